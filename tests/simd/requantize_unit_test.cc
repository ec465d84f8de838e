// Unit tests of the requantization paths (label: unit).
//
//  * SimdProperty.<core>: RapidCheck properties, one per rounding core. Each case draws valid
//    random parameters (per-tensor and per-channel), a shape (odd sizes, sizes around the vector
//    widths and the per-channel block, strided rows, unaligned pointers) and accumulators (edge
//    values, ties, small and full-range values), then for every output type, both per-tensor and
//    per-channel, random zero points and clamps, checks every ISA in supported_isas() and the
//    dispatching entry against the header reference, and that nothing outside the destination
//    elements is written.
//  * Vectors.*: literal expected values from docs/semantics.md §11 on every ISA (independent of the
//    reference), and gemmlowp's own fixedpoint.h as a second oracle for DR-AZ when available;
//    SignSymmetricAndQ15AtEveryShift: the edges of SR-AZ / TRUNC's |x| form and Q15's scaled plan
//    at every shift, against the reference.
//  * Dispatch.*: the dispatching entry equals the forced-ISA entry; set_isa_mask_for_testing
//    selects the active ISA; the QPARITY_ISA cap, tested by re-running this binary in a child
//    process with QPARITY_ISA set (the variable is read once per process); the requantization
//    kernels each ISA runs (the VNNI and AMX paths reuse the AVX2 and AVX-512 kernels).
//  * InvalidArgs.*: bad input to the public entry throws qparity::InvalidArgument naming the
//    parameter.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <unistd.h>
#endif

#ifdef QPARITY_TEST_HAVE_GEMMLOWP
#include "fixedpoint/fixedpoint.h"
#endif

#include "exhaustive_params.h"
#include "isa_coverage.h"
#include "qparity/error.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/requantize.h"

namespace {

using namespace qparity;
using qparity_test::for_each_supported_isa;

constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax32 = std::numeric_limits<std::int32_t>::max();

// ---- child mode: report active_isa() and enabled_isas() under the inherited QPARITY_ISA, exit --
// Dispatch.EnvironmentCap runs this binary again with QPARITY_SIMD_TEST_PRINT_ACTIVE_ISA=1.

int run_child_mode_if_requested() {
  const char* flag = std::getenv("QPARITY_SIMD_TEST_PRINT_ACTIVE_ISA");
  if (flag == nullptr || std::string(flag) != "1") return 0;
  try {
    const Isa active = active_isa();
    std::printf("active=%s enabled=%s\n", to_string(active),
                qparity::isa_names(enabled_isas(), ",").c_str());
  } catch (const InvalidArgument& e) {
    std::printf("InvalidArgument: %s\n", e.what());
  }
  std::fflush(stdout);
  std::_Exit(0);
}
[[maybe_unused]] const int g_child_mode = run_child_mode_if_requested();

// 500 RapidCheck cases per property unless RC_PARAMS says otherwise (e.g. RC_PARAMS="seed=..."
// to replay a failure). RapidCheck reads RC_PARAMS on first use, after static initialisation.
[[maybe_unused]] const int g_rc_params = setenv("RC_PARAMS", "max_success=500", /*overwrite=*/0);

// ---- reference and helpers -----------------------------------------------------------------------

template <class Out>
const char* type_name() {
  return std::is_same<Out, std::int8_t>::value    ? "int8"
         : std::is_same<Out, std::uint8_t>::value ? "uint8"
         : std::is_same<Out, std::int16_t>::value ? "int16"
                                                  : "int32";
}

template <class Out>
OutputType output_type() {
  return std::is_same<Out, std::int8_t>::value    ? OutputType::kInt8
         : std::is_same<Out, std::uint8_t>::value ? OutputType::kUint8
         : std::is_same<Out, std::int16_t>::value ? OutputType::kInt16
                                                  : OutputType::kInt32;
}

/// dst[r * dst_stride + c] per the header reference (strides resolved by the caller).
template <class Out>
void reference(const RequantizeArgs& a, std::size_t acc_stride, std::size_t dst_stride, Out* dst) {
  visit_rounding_core(a.core, [&](auto policy) {
    using P = decltype(policy);
    for (std::size_t r = 0; r < a.rows; ++r) {
      for (std::size_t c = 0; c < a.channels; ++c) {
        const RequantParams& p = a.params[a.per_channel ? c : 0];
        dst[r * dst_stride + c] =
            saturating_cast<Out>(requantize_to_output<P>(a.acc[r * acc_stride + c], p, a.output));
      }
    }
  });
}

std::string describe(RoundingCore core, const RequantParams& p) {
  char buf[160];
  if (is_float_core(core)) {
    std::snprintf(buf, sizeof buf, "scale=%a bias=%a post_scale=%a", static_cast<double>(p.scale),
                  static_cast<double>(p.bias), static_cast<double>(p.post_scale));
  } else {
    std::snprintf(buf, sizeof buf, "multiplier=%d shift=%d", p.multiplier, p.shift);
  }
  return buf;
}

// ---- generators ------------------------------------------------------------------------------------

rc::Gen<std::int32_t> gen_q31_multiplier() {
  return rc::gen::weightedOneOf<std::int32_t>({
      {3, rc::gen::elementOf(std::vector<std::int32_t>{0, 1, 1 << 30, kMax32, 1610612736, 2034096511})},
      {4, rc::gen::inRange<std::int32_t>(1 << 30, kMax32)},
      {2, rc::gen::inRange<std::int32_t>(0, kMax32)},
  });
}

rc::Gen<float> gen_positive_float() {
  return rc::gen::weightedOneOf<float>({
      {3, rc::gen::map(rc::gen::inRange(-40, 20), [](int e) { return std::ldexp(1.0f, e); })},
      {5, rc::gen::map(rc::gen::pair(rc::gen::inRange(1 << 23, 1 << 24), rc::gen::inRange(-60, 30)),
                       [](std::pair<int, int> me) { return std::ldexp(static_cast<float>(me.first), me.second - 23); })},
      {1, rc::gen::element(std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                           std::numeric_limits<float>::max(), 1e-30f, 3e38f, 1.0f / 3.0f)},
  });
}

rc::Gen<float> gen_bias() {
  return rc::gen::weightedOneOf<float>({
      {3, rc::gen::element(0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -2.5f)},
      {3, rc::gen::map(rc::gen::inRange(-2000000, 2000001), [](int v) { return static_cast<float>(v) / 8.0f; })},
      {1, rc::gen::element(1e30f, -1e30f, 3e9f, -3e9f)},
  });
}

/// Valid parameters for `core`.
rc::Gen<RequantParams> gen_params(RoundingCore core) {
  if (core == RoundingCore::kQ15) {
    return rc::gen::map(
        rc::gen::pair(rc::gen::weightedOneOf<std::int32_t>({{2, rc::gen::elementOf(std::vector<std::int32_t>{0, 1, 16384, 32767})},
                                                            {3, rc::gen::inRange<std::int32_t>(0, 32768)}}),
                      rc::gen::weightedOneOf<std::int32_t>({{1, rc::gen::elementOf(std::vector<std::int32_t>{-47, -31, -1, 0, 13})},
                                                            {3, rc::gen::inRange<std::int32_t>(-47, 14)}})),
        [](std::pair<std::int32_t, std::int32_t> v) { return qparity_test::q31(v.first, v.second); });
  }
  if (core == RoundingCore::kFloat32) {
    return rc::gen::map(gen_positive_float(), [](float s) { return qparity_test::f32(s); });
  }
  if (core == RoundingCore::kFloat32ZeroPointInside) {
    return rc::gen::map(rc::gen::tuple(gen_positive_float(), gen_bias(),
                                       rc::gen::weightedOneOf<float>({{1, rc::gen::just(1.0f)}, {3, gen_positive_float()}})),
                        [](std::tuple<float, float, float> v) {
                          return qparity_test::f32(std::get<0>(v), std::get<1>(v), std::get<2>(v));
                        });
  }
  return rc::gen::map(
      rc::gen::pair(gen_q31_multiplier(),
                    rc::gen::weightedOneOf<std::int32_t>({{1, rc::gen::elementOf(std::vector<std::int32_t>{-31, -1, 0, 1, 30})},
                                                          {2, rc::gen::inRange<std::int32_t>(-31, 31)},
                                                          {2, rc::gen::inRange<std::int32_t>(-12, 0)}})),
      [](std::pair<std::int32_t, std::int32_t> v) { return qparity_test::q31(v.first, v.second); });
}

rc::Gen<std::int32_t> gen_accumulator() {
  return rc::gen::weightedOneOf<std::int32_t>({
      {2, rc::gen::elementOf(std::vector<std::int32_t>{kMin32, kMin32 + 1, -(1 << 30), -16777217, -1, 0, 1, 16777217,
                                         (1 << 30) - 1, 1 << 30, kMax32 - 1, kMax32})},
      {3, rc::gen::inRange<std::int32_t>(-70000, 70000)},
      {2, rc::gen::map(rc::gen::pair(rc::gen::inRange(-1000, 1000), rc::gen::inRange(1, 31)),
                       [](std::pair<int, int> v) {  // ties: odd multiples of 2^(k-1)
                         const std::int64_t x = (2 * static_cast<std::int64_t>(v.first) + 1) * (std::int64_t{1} << (v.second - 1));
                         return static_cast<std::int32_t>(std::clamp<std::int64_t>(x, kMin32, kMax32));
                       })},
      {3, rc::gen::arbitrary<std::int32_t>()},
  });
}

rc::Gen<std::size_t> gen_channels() {
  return rc::gen::weightedOneOf<std::size_t>({
      {4, rc::gen::elementOf(std::vector<std::size_t>{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100})},
      {1, rc::gen::elementOf(std::vector<std::size_t>{255, 256, 257, 300, 513})},
      {2, rc::gen::inRange<std::size_t>(1, 130)},
  });
}

/// Zero point and clamp valid for Out: full range, a random sub-range, or a single value; for int32
/// also the extreme zero points whose [qmin - zp, qmax - zp] leaves the int32 range.
template <class Out>
rc::Gen<OutputParams> gen_output() {
  const std::int64_t lo = std::numeric_limits<Out>::min(), hi = std::numeric_limits<Out>::max();
  auto in_type = [lo, hi] {
    return rc::gen::weightedOneOf<std::int64_t>({
        {1, rc::gen::elementOf(std::vector<std::int64_t>{lo, hi, 0, -128, 127, 255})},
        {2, rc::gen::inRange<std::int64_t>(lo, hi + 1)},
    });
  };
  return rc::gen::map(rc::gen::tuple(in_type(), in_type(), in_type(), rc::gen::inRange(0, 4)),
                      [lo, hi](std::tuple<std::int64_t, std::int64_t, std::int64_t, int> v) {
                        std::int64_t zp = std::clamp(std::get<0>(v), lo, hi);
                        std::int64_t a = std::clamp(std::get<1>(v), lo, hi);
                        std::int64_t b = std::clamp(std::get<2>(v), lo, hi);
                        if (a > b) std::swap(a, b);
                        switch (std::get<3>(v)) {
                          case 0: a = lo, b = hi; break;  // full range
                          case 1: b = a; break;           // a single value
                          default: break;                 // a random sub-range
                        }
                        return OutputParams{static_cast<std::int32_t>(zp), static_cast<std::int32_t>(a),
                                            static_cast<std::int32_t>(b)};
                      });
}

// ---- the property ----------------------------------------------------------------------------------

struct Shape {
  std::size_t rows, channels, acc_stride, dst_stride, acc_offset, dst_offset;
};

template <class Out>
void check_output_type(RoundingCore core, const Shape& s, const std::vector<std::int32_t>& acc_buf,
                       const std::vector<RequantParams>& channel_params) {
  const OutputParams output = *gen_output<Out>();
  const Out kCanary = static_cast<Out>(0x5A);
  for (bool per_channel : {false, true}) {
    RequantizeArgs a;
    a.core = core;
    a.params = channel_params.data();
    a.per_channel = per_channel;
    a.output = output;
    a.rows = s.rows;
    a.channels = s.channels;
    a.acc = acc_buf.data() + s.acc_offset;
    a.acc_row_stride = s.acc_stride == s.channels && (s.rows & 1) ? 0 : s.acc_stride;  // 0 = dense
    a.dst_row_stride = s.dst_stride;
    const std::size_t dst_size = s.dst_offset + (s.rows - 1) * s.dst_stride + s.channels + 8;
    std::vector<Out> want(dst_size, kCanary), got(dst_size, kCanary);
    reference<Out>(a, s.acc_stride, s.dst_stride, want.data() + s.dst_offset);

    auto check = [&](const char* what) {
      for (std::size_t i = 0; i < dst_size; ++i) {
        if (got[i] == want[i]) continue;
        const bool inside = i >= s.dst_offset && (i - s.dst_offset) % s.dst_stride < s.channels &&
                            (i - s.dst_offset) / s.dst_stride < s.rows;
        std::string msg = std::string(what) + " " + type_name<Out>() + (per_channel ? " per-channel" : " per-tensor") +
                          " rows=" + std::to_string(s.rows) + " channels=" + std::to_string(s.channels) +
                          " dst index " + std::to_string(i) + ": got " + std::to_string(static_cast<std::int64_t>(got[i])) +
                          " want " + std::to_string(static_cast<std::int64_t>(want[i]));
        if (inside) {
          const std::size_t r = (i - s.dst_offset) / s.dst_stride, c = (i - s.dst_offset) % s.dst_stride;
          msg += " acc=" + std::to_string(a.acc[r * s.acc_stride + c]) + " " +
                 describe(core, channel_params[per_channel ? c : 0]) + " zp=" + std::to_string(output.zero_point) +
                 " [" + std::to_string(output.qmin) + ", " + std::to_string(output.qmax) + "]";
        } else {
          msg += " (outside the destination elements: written by mistake)";
        }
        RC_FAIL(msg);
      }
    };

    for_each_supported_isa([&](Isa isa) {
      std::fill(got.begin(), got.end(), kCanary);
      requantize<Out>(isa, a, got.data() + s.dst_offset);
      check(to_string(isa));
    });
    std::fill(got.begin(), got.end(), kCanary);
    requantize<Out>(a, got.data() + s.dst_offset);
    check("dispatching entry");
  }
}

void check_core(RoundingCore core) {
  Shape s;
  s.rows = *rc::gen::weightedOneOf<std::size_t>({{3, rc::gen::just<std::size_t>(1)}, {2, rc::gen::inRange<std::size_t>(2, 6)}});
  s.channels = *gen_channels();
  s.acc_stride = s.channels + *rc::gen::weightedOneOf<std::size_t>({{2, rc::gen::just<std::size_t>(0)}, {1, rc::gen::inRange<std::size_t>(1, 20)}});
  s.dst_stride = s.channels + *rc::gen::weightedOneOf<std::size_t>({{2, rc::gen::just<std::size_t>(0)}, {1, rc::gen::inRange<std::size_t>(1, 20)}});
  s.acc_offset = *rc::gen::inRange<std::size_t>(0, 17);  // unaligned loads
  s.dst_offset = *rc::gen::inRange<std::size_t>(0, 17);  // unaligned stores

  const std::vector<RequantParams> channel_params =
      *rc::gen::container<std::vector<RequantParams>>(s.channels, gen_params(core));
  for (const RequantParams& p : channel_params) RC_ASSERT_FALSE(std::string(describe(core, p)).empty());

  std::vector<std::int32_t> acc_buf(s.acc_offset + s.rows * s.acc_stride);
  const std::vector<std::int32_t> values = *rc::gen::container<std::vector<std::int32_t>>(acc_buf.size(), gen_accumulator());
  std::copy(values.begin(), values.end(), acc_buf.begin());

  check_output_type<std::int8_t>(core, s, acc_buf, channel_params);
  check_output_type<std::uint8_t>(core, s, acc_buf, channel_params);
  check_output_type<std::int16_t>(core, s, acc_buf, channel_params);
  check_output_type<std::int32_t>(core, s, acc_buf, channel_params);
}

#define QPARITY_SIMD_PROPERTY(Name, Core) \
  RC_GTEST_PROP(SimdProperty, Name, ()) { check_core(Core); }

QPARITY_SIMD_PROPERTY(DR_AZ, RoundingCore::kDoubleRoundingAwayFromZero)
QPARITY_SIMD_PROPERTY(DR_UP, RoundingCore::kDoubleRoundingUpward)
QPARITY_SIMD_PROPERTY(SR_UP, RoundingCore::kSingleRoundingUpward)
QPARITY_SIMD_PROPERTY(SR_UP_NEON, RoundingCore::kSingleRoundingUpwardNeon)
QPARITY_SIMD_PROPERTY(SR_AZ, RoundingCore::kSingleRoundingAwayFromZero)
QPARITY_SIMD_PROPERTY(SR_EVEN, RoundingCore::kSingleRoundingToEven)
QPARITY_SIMD_PROPERTY(TRUNC, RoundingCore::kTruncate)
QPARITY_SIMD_PROPERTY(FLOOR, RoundingCore::kFloor)
QPARITY_SIMD_PROPERTY(F32, RoundingCore::kFloat32)
QPARITY_SIMD_PROPERTY(F32_ZPF, RoundingCore::kFloat32ZeroPointInside)
QPARITY_SIMD_PROPERTY(Q15, RoundingCore::kQ15)

// ---- literal vectors --------------------------------------------------------------------------------

/// Runs one accumulator through `isa` (per-tensor, int32 raw output) for every ISA and expects `want`.
void expect_all_isas(RoundingCore core, const RequantParams& p, std::int32_t acc, std::int32_t want,
                     const OutputParams& output = OutputParams{}) {
  // The value sits in the middle of a vector-width-odd block so that both the vector body and the
  // tail are exercised with it.
  std::vector<std::int32_t> in(37, acc), out(37);
  RequantizeArgs a;
  a.core = core;
  a.params = &p;
  a.output = output;
  a.channels = in.size();
  a.acc = in.data();
  for_each_supported_isa([&](Isa isa) {
    requantize<std::int32_t>(isa, a, out.data());
    for (std::size_t i = 0; i < out.size(); ++i) {
      ASSERT_EQ(out[i], want) << to_string(core) << " on " << to_string(isa) << ": acc=" << acc << " "
                              << describe(core, p) << " zp=" << output.zero_point;
    }
  });
}

TEST(Vectors, TiesWithPowerOfTwoScales) {
  // docs/semantics.md §11.1: x, shift (M = 2^30), then DR, UU, SR, AZ, RNE, TZ, FL, F32.
  struct Row {
    std::int32_t x, shift, dr, uu, sr, az, rne, tz, fl, f32;
  };
  const Row rows[] = {
      {5, 0, 3, 3, 3, 3, 2, 2, 2, 2},          {-5, 0, -2, -2, -2, -3, -2, -2, -3, -2},
      {-3, 0, -1, -1, -1, -2, -2, -1, -2, -2}, {10, -1, 3, 3, 3, 3, 2, 2, 2, 2},
      {-10, -1, -3, -2, -2, -3, -2, -2, -3, -2}, {6, -1, 2, 2, 2, 2, 2, 1, 1, 2},
      {-6, -1, -2, -1, -1, -2, -2, -1, -2, -2}, {2, -1, 1, 1, 1, 1, 0, 0, 0, 0},
      {-2, -1, -1, 0, 0, -1, 0, 0, -1, 0},      {-12, -2, -2, -1, -1, -2, -2, -1, -2, -2},
      {7, -2, 1, 1, 1, 1, 1, 0, 0, 1},          {-101, 0, -50, -50, -50, -51, -50, -50, -51, -50},
      {-99, 0, -49, -49, -49, -50, -50, -49, -50, -50},
  };
  for (const Row& r : rows) {
    const RequantParams p = qparity_test::q31(1 << 30, r.shift);
    expect_all_isas(RoundingCore::kDoubleRoundingAwayFromZero, p, r.x, r.dr);
    expect_all_isas(RoundingCore::kDoubleRoundingUpward, p, r.x, r.uu);
    expect_all_isas(RoundingCore::kSingleRoundingUpward, p, r.x, r.sr);
    expect_all_isas(RoundingCore::kSingleRoundingUpwardNeon, p, r.x, r.sr);
    expect_all_isas(RoundingCore::kSingleRoundingAwayFromZero, p, r.x, r.az);
    expect_all_isas(RoundingCore::kSingleRoundingToEven, p, r.x, r.rne);
    expect_all_isas(RoundingCore::kTruncate, p, r.x, r.tz);
    expect_all_isas(RoundingCore::kFloor, p, r.x, r.fl);
    expect_all_isas(RoundingCore::kFloat32, qparity_test::f32(std::ldexp(1.0f, r.shift - 1)), r.x, r.f32);
  }
}

TEST(Vectors, ExtremesAndWraps) {
  // docs/semantics.md §11.3 and §11.5.
  const std::int32_t kM = kMax32;
  struct Row {
    RoundingCore core;
    std::int32_t x, m, shift, want;
  };
  using C = RoundingCore;
  const Row rows[] = {
      {C::kDoubleRoundingAwayFromZero, kMin32, 1 << 30, -31, -1},
      {C::kSingleRoundingUpward, kMin32, 1 << 30, -31, 0},
      {C::kDoubleRoundingAwayFromZero, 1 << 30, kM, -31, 1},
      {C::kSingleRoundingUpward, 1 << 30, kM, -31, 0},
      {C::kTruncate, kMin32, kM, -31, 0},
      {C::kFloor, kMax32, kM, -31, 0},
      {C::kDoubleRoundingAwayFromZero, 3, kM, -1, 2},
      {C::kSingleRoundingUpward, 3, kM, -1, 1},
      {C::kDoubleRoundingAwayFromZero, kMin32, kM, -1, -1073741824},
      {C::kDoubleRoundingUpward, kMin32, kM, -1, -1073741823},
      {C::kSingleRoundingToEven, kMin32, kM, -1, -1073741824},
      {C::kDoubleRoundingAwayFromZero, 3, 1 << 30, 30, -536870912},  // 3 << 30 wraps in int32
      {C::kSingleRoundingUpward, 3, 1 << 30, 30, 1610612736},
      {C::kSingleRoundingUpward, 4, 1 << 30, 30, kMin32},  // 2^31 wraps to INT32_MIN
      {C::kSingleRoundingUpward, -4, 1 << 30, 30, kMin32},
      {C::kDoubleRoundingAwayFromZero, -4, 1 << 30, 30, 0},
      {C::kSingleRoundingUpwardNeon, 1 << 30, 1 << 30, 0, -536870912},  // §11.5: wraps one bit early
      {C::kSingleRoundingUpwardNeon, kMax32, 1 << 30, 0, 0},
      {C::kSingleRoundingUpwardNeon, kMin32, 1 << 30, 0, 0},
      {C::kSingleRoundingUpwardNeon, (1 << 30) - 1, 1 << 30, 0, 536870912},
      {C::kSingleRoundingUpward, 1 << 30, 1 << 30, 0, 536870912},
  };
  for (const Row& r : rows) expect_all_isas(r.core, qparity_test::q31(r.m, r.shift), r.x, r.want);
  // §11.6: Q15 with reduced multiplier 25891, shift -6.
  expect_all_isas(C::kQ15, qparity_test::q31(25891, -6), 118786, 1467);
  expect_all_isas(C::kQ15, qparity_test::q31(25891, -6), 490979, 6062);
  expect_all_isas(C::kQ15, qparity_test::q31(25891, -6), 625602, 7724);
  // §11.7: float conversion loss and saturation.
  expect_all_isas(C::kFloat32, qparity_test::f32(0x1p-25f), 16777217, 0);
  expect_all_isas(C::kFloat32, qparity_test::f32(1.0f), kMax32, kMax32);  // 2^31 saturates
  expect_all_isas(C::kFloat32, qparity_test::f32(3e38f), -5, kMin32);
  expect_all_isas(C::kFloat32, qparity_test::f32(3e38f), 5, kMax32);       // +inf saturates
}

/// SR-AZ and TRUNC (computed as sign(x) floor((|x| M + c) / 2^s): requantize_x86.h's
/// symmetric_core) and Q15 (planned as its rational scaled by 2^16 while s + 16 <= 62:
/// requant_plan.h) at every shift of their ranges, against the header reference on every ISA, raw
/// int32 output: per-tensor for each shift, and all the shifts as the channels of one per-channel
/// call (blocks mixing the high-half and the direct modes). Accumulators: INT32_MIN (|x| = 2^31)
/// and its neighbours, -1, 0, 1, the largest, and +-(2j + 1) 2^e (ties of both signs under the
/// power-of-two multiplier); multipliers 0 (negative x times 0), 1, 2^30 (exact ties), the
/// largest. ~0.1 s.
TEST(Vectors, SignSymmetricAndQ15AtEveryShift) {
  std::vector<std::int32_t> accs = {kMin32, kMin32 + 1, kMin32 + 2, -3, -1, 0, 1, 3, kMax32 - 1, kMax32};
  for (int e = 1; e <= 30; ++e) {
    for (std::int64_t j : {1, 3}) {
      const std::int64_t v = j << e;
      if (v > kMax32) continue;
      accs.push_back(static_cast<std::int32_t>(v));
      accs.push_back(static_cast<std::int32_t>(-v));
    }
  }
  struct Case {
    RoundingCore core;
    std::vector<std::int32_t> multipliers;
    std::int32_t shift_min, shift_max;
  };
  const std::vector<std::int32_t> q31_multipliers = {0, 1, 1 << 30, (1 << 30) + 1, kMax32};
  const Case cases[] = {
      {RoundingCore::kSingleRoundingAwayFromZero, q31_multipliers, kQ31ShiftMin, kQ31ShiftMax},
      {RoundingCore::kTruncate, q31_multipliers, kQ31ShiftMin, kQ31ShiftMax},
      {RoundingCore::kQ15, {0, 1, 16384, 16385, kQ15MultiplierMax}, kQ15ShiftMin, kQ15ShiftMax},
  };
  for (const Case& k : cases) {
    for (const std::int32_t m : k.multipliers) {
      std::vector<RequantParams> params;
      for (std::int32_t shift = k.shift_min; shift <= k.shift_max; ++shift) {
        params.push_back(qparity_test::q31(m, shift));
      }
      // Per-tensor, one shift at a time.
      for (const RequantParams& p : params) {
        RequantizeArgs a;
        a.core = k.core;
        a.params = &p;
        a.channels = accs.size();
        a.acc = accs.data();
        std::vector<std::int32_t> want(accs.size()), got(accs.size());
        reference(a, accs.size(), accs.size(), want.data());
        for_each_supported_isa([&](Isa isa) {
          requantize<std::int32_t>(isa, a, got.data());
          for (std::size_t i = 0; i < accs.size(); ++i) {
            ASSERT_EQ(got[i], want[i]) << to_string(k.core) << " per-tensor on " << to_string(isa)
                                       << ": acc=" << accs[i] << " " << describe(k.core, p);
          }
        });
      }
      // Per-channel: channel c has params[c]; row r holds the accumulators rotated by r.
      const std::size_t channels = params.size(), rows = accs.size();
      std::vector<std::int32_t> acc(rows * channels);
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < channels; ++c) acc[r * channels + c] = accs[(r + c) % accs.size()];
      }
      RequantizeArgs a;
      a.core = k.core;
      a.params = params.data();
      a.per_channel = true;
      a.rows = rows;
      a.channels = channels;
      a.acc = acc.data();
      std::vector<std::int32_t> want(acc.size()), got(acc.size());
      reference(a, channels, channels, want.data());
      for_each_supported_isa([&](Isa isa) {
        requantize<std::int32_t>(isa, a, got.data());
        for (std::size_t i = 0; i < acc.size(); ++i) {
          ASSERT_EQ(got[i], want[i]) << to_string(k.core) << " per-channel on " << to_string(isa)
                                     << ": acc=" << acc[i] << " " << describe(k.core, params[i % channels]);
        }
      });
    }
  }
}

TEST(Vectors, ZeroPointPlacement) {
  // docs/semantics.md §11.7: scale 0.5, acc 1 and 3, F32 vs F32-ZPF with odd zero points.
  const RequantParams half = qparity_test::f32(0.5f);
  const OutputParams zp1{1, kMin32, kMax32}, zpm1{-1, kMin32, kMax32}, zp3{3, kMin32, kMax32};
  expect_all_isas(RoundingCore::kFloat32, half, 1, 1, zp1);
  expect_all_isas(RoundingCore::kFloat32ZeroPointInside, half, 1, 2, zp1);
  expect_all_isas(RoundingCore::kFloat32, half, 1, -1, zpm1);
  expect_all_isas(RoundingCore::kFloat32ZeroPointInside, half, 1, 0, zpm1);
  expect_all_isas(RoundingCore::kFloat32ZeroPointInside, half, 1, 4, zp3);
  expect_all_isas(RoundingCore::kFloat32, half, 3, 3, zp1);
  expect_all_isas(RoundingCore::kFloat32ZeroPointInside, half, 3, 2, zp1);
  expect_all_isas(RoundingCore::kSingleRoundingUpward, qparity_test::q31(1 << 30, 0), 1, 2, zp1);
  // The zero point is added exactly: INT32_MAX + 127 clamps to qmax instead of wrapping.
  expect_all_isas(RoundingCore::kSingleRoundingUpward, qparity_test::q31(1 << 30, 1), kMax32, kMax32,
                  OutputParams{127, kMin32, kMax32});
  expect_all_isas(RoundingCore::kSingleRoundingUpward, qparity_test::q31(1 << 30, 1), kMin32, kMin32,
                  OutputParams{-127, kMin32, kMax32});
}

TEST(Vectors, ZeroPointInsideIsNotFused) {
  // F32-ZPF rounds v * post_scale before adding the zero point. These inputs (found by search
  // with exact rational arithmetic) give a different integer if the two steps are fused into an
  // FMA, which the paths must never do.
  struct Row {
    std::int32_t acc;
    float post_scale;
    std::int32_t zero_point;
  };
  const Row rows[] = {
      {1127129, 0x1.55f4p+7f, -192712640},
      {529379, 0x1.33929cp+6f, -40705632},
      {4156011, 0x1.c8d106p+7f, -949267200},
      {3961481, 0x1.874de0p+7f, -775072064},
  };
  for (const Row& r : rows) {
    const RequantParams p = qparity_test::f32(1.0f, 0.0f, r.post_scale);
    const OutputParams o{r.zero_point, kMin32, kMax32};
    const std::int32_t want = requantize_to_output<Float32ZeroPointInside>(r.acc, p, o);
    const std::int32_t fused = detail::round_half_even_saturating(
        std::fma(static_cast<float>(r.acc), r.post_scale, static_cast<float>(r.zero_point)));
    ASSERT_NE(want, fused) << "vector is not sensitive to fusing: acc=" << r.acc;
    expect_all_isas(RoundingCore::kFloat32ZeroPointInside, p, r.acc, want, o);
  }
}

#ifdef QPARITY_TEST_HAVE_GEMMLOWP
TEST(Vectors, DoubleRoundingMatchesGemmlowp) {
  // gemmlowp's scalar SaturatingRoundingDoublingHighMul + RoundingDivideByPOT, i.e. TFLite's
  // MultiplyByQuantizedMultiplier, as an oracle independent of qparity's headers.
  std::vector<std::int32_t> acc;
  for (std::int64_t x = -300000; x <= 300000; x += 7) acc.push_back(static_cast<std::int32_t>(x));
  for (std::int32_t x : {kMin32, kMin32 + 1, kMax32, kMax32 - 1, 1 << 30, -(1 << 30)}) acc.push_back(x);
  std::vector<std::int32_t> got(acc.size());
  for (const RequantParams& p : qparity_test::exhaustive_params(RoundingCore::kDoubleRoundingAwayFromZero)) {
    const int left = p.shift > 0 ? p.shift : 0, right = p.shift > 0 ? 0 : -p.shift;
    RequantizeArgs a;
    a.core = RoundingCore::kDoubleRoundingAwayFromZero;
    a.params = &p;
    a.channels = acc.size();
    a.acc = acc.data();
    for_each_supported_isa([&](Isa isa) {
      requantize<std::int32_t>(isa, a, got.data());
      for (std::size_t i = 0; i < acc.size(); ++i) {
        const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) << left);
        const std::int32_t want = gemmlowp::RoundingDivideByPOT(
            gemmlowp::SaturatingRoundingDoublingHighMul(shifted, p.multiplier), right);
        ASSERT_EQ(got[i], want) << to_string(isa) << " acc=" << acc[i] << " " << describe(a.core, p);
      }
    });
  }
}
#endif

// ---- dispatch -----------------------------------------------------------------------------------------

struct TestMaskReset {
  ~TestMaskReset() { set_isa_mask_for_testing(0); }
};

TEST(Dispatch, DispatchingEntryEqualsActiveIsa) {
  std::vector<std::int32_t> acc(1000);
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<std::int32_t>(i * 2654435761u);
  const RequantParams p = qparity_test::q31(1288490189, -9);
  RequantizeArgs a;
  a.core = RoundingCore::kDoubleRoundingAwayFromZero;
  a.params = &p;
  a.output = full_range_output(OutputType::kInt8, -3);
  a.rows = 10;
  a.channels = 100;
  a.acc = acc.data();
  std::vector<std::int8_t> want(acc.size()), got(acc.size());
  requantize<std::int8_t>(Isa::kScalar, a, want.data());

  TestMaskReset reset;
  set_isa_mask_for_testing(0);
  const IsaMask allowed = enabled_isas();  // supported_isas() under this process's QPARITY_ISA cap
  auto highest = [](IsaMask m) {
    Isa h = Isa::kScalar;
    for (Isa isa : all_isas()) {
      if (m & mask_of(isa)) h = isa;
    }
    return h;
  };
  for_each_supported_isa([&](Isa isa) {
    // Only `isa` (scalar stays enabled) and everything up to `isa`: both select `isa` unless
    // QPARITY_ISA caps it lower.
    for (IsaMask mask : {mask_of(isa), isas_up_to(isa)}) {
      set_isa_mask_for_testing(mask);
      const IsaMask expected = (allowed & mask) | mask_of(Isa::kScalar);
      EXPECT_EQ(enabled_isas(), expected) << "mask " << mask;
      EXPECT_EQ(active_isa(), highest(expected)) << "mask " << mask;
      std::fill(got.begin(), got.end(), 0);
      requantize<std::int8_t>(a, got.data());
      EXPECT_EQ(got, want) << "dispatching entry with active ISA " << to_string(active_isa());
    }
    // The forced-ISA entry ignores the test mask (and the QPARITY_ISA cap).
    set_isa_mask_for_testing(mask_of(Isa::kScalar));
    std::fill(got.begin(), got.end(), 0);
    requantize<std::int8_t>(isa, a, got.data());
    EXPECT_EQ(got, want) << "forced " << to_string(isa) << " under a scalar-only test mask";
  });
  set_isa_mask_for_testing(0);
  EXPECT_EQ(active_isa(), highest(allowed));
  if (std::getenv("QPARITY_ISA") == nullptr) {
    EXPECT_EQ(allowed, supported_isas()) << "no QPARITY_ISA: every supported ISA is enabled";
  }
}

std::string self_executable() {
#if defined(__linux__)
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
#endif
  return {};
}

std::string run_child(const std::string& exe, const std::string& isa_env) {
  const std::string cmd = "QPARITY_SIMD_TEST_PRINT_ACTIVE_ISA=1 QPARITY_ISA='" + isa_env + "' '" + exe + "' 2>&1";
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, f) != nullptr) out += buf;
    pclose(f);
  }
  return out;
}

/// What the child prints when QPARITY_ISA allows `cap_mask`: the highest allowed supported ISA and
/// every allowed supported one.
std::string expected_child_output(IsaMask cap_mask) {
  const IsaMask enabled = (supported_isas() & cap_mask) | mask_of(Isa::kScalar);
  Isa active = Isa::kScalar;
  for (Isa isa : all_isas()) {
    if (enabled & mask_of(isa)) active = isa;
  }
  return std::string("active=") + to_string(active) +
         " enabled=" + qparity::isa_names(enabled, ",") + "\n";
}

TEST(Dispatch, EnvironmentCap) {
  const std::string exe = self_executable();
  ASSERT_FALSE(exe.empty()) << "cannot locate this test binary (/proc/self/exe) to re-run it";
  // Every name, including those this CPU lacks (a cap above the CPU runs the best supported path
  // below the cap: on a Zen 4, QPARITY_ISA=avxvnni runs avx2, QPARITY_ISA=amx avx512vnni).
  for (Isa cap : all_isas()) {
    EXPECT_EQ(run_child(exe, to_string(cap)), expected_child_output(isas_up_to(cap)))
        << "QPARITY_ISA=" << to_string(cap);
  }
  EXPECT_EQ(run_child(exe, ""), expected_child_output(~IsaMask{0})) << "QPARITY_ISA empty";
  const std::string bad = run_child(exe, "avx9000");
  EXPECT_NE(bad.find("InvalidArgument"), std::string::npos) << bad;
  EXPECT_NE(bad.find("avx9000"), std::string::npos) << bad;
}

// ---- invalid arguments ---------------------------------------------------------------------------------

template <class F>
void expect_invalid(F&& f, const std::string& names) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming '" << names << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos)
        << "message does not name '" << names << "': " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

struct ValidCall {
  std::vector<std::int32_t> acc = std::vector<std::int32_t>(64, 1000);
  std::vector<std::int8_t> dst = std::vector<std::int8_t>(64);
  RequantParams p = qparity_test::q31(1 << 30, -3);
  RequantizeArgs a;
  ValidCall() {
    a.params = &p;
    a.rows = 4;
    a.channels = 16;
    a.acc = acc.data();
    a.output = full_range_output(OutputType::kInt8);
  }
};

TEST(InvalidArgs, Pointers) {
  ValidCall v;
  for (Isa isa : qparity_test::supported_isa_list()) {
    RequantizeArgs a = v.a;
    a.acc = nullptr;
    expect_invalid([&] { requantize<std::int8_t>(isa, a, v.dst.data()); }, "acc");
    expect_invalid([&] { requantize<std::int8_t>(isa, v.a, static_cast<std::int8_t*>(nullptr)); }, "dst");
    a = v.a;
    a.params = nullptr;
    expect_invalid([&] { requantize<std::int8_t>(isa, a, v.dst.data()); }, "params");
  }
  RequantizeArgs a = v.a;
  a.acc = nullptr;
  expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, "acc");
}

TEST(InvalidArgs, Strides) {
  ValidCall v;
  RequantizeArgs a = v.a;
  a.acc_row_stride = 15;
  expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, "acc_row_stride");
  a = v.a;
  a.dst_row_stride = 1;
  expect_invalid([&] { requantize<std::int8_t>(Isa::kScalar, a, v.dst.data()); }, "dst_row_stride");
}

TEST(InvalidArgs, CoreParameters) {
  ValidCall v;
  struct Bad {
    RoundingCore core;
    RequantParams p;
    const char* name;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<Bad> bad;
  for (RoundingCore core : kAllRoundingCores) {
    if (core == RoundingCore::kQ15) {
      bad.push_back({core, qparity_test::q31(32768, 0), "multiplier"});
      bad.push_back({core, qparity_test::q31(-1, 0), "multiplier"});
      bad.push_back({core, qparity_test::q31(100, 14), "shift"});
      bad.push_back({core, qparity_test::q31(100, -48), "shift"});
    } else if (is_float_core(core)) {
      bad.push_back({core, qparity_test::f32(0.0f), "scale"});
      bad.push_back({core, qparity_test::f32(-1.0f), "scale"});
      bad.push_back({core, qparity_test::f32(nan), "scale"});
      bad.push_back({core, qparity_test::f32(inf), "scale"});
      if (core == RoundingCore::kFloat32ZeroPointInside) {
        bad.push_back({core, qparity_test::f32(1.0f, 0.0f, 0.0f), "post_scale"});
        bad.push_back({core, qparity_test::f32(1.0f, 0.0f, inf), "post_scale"});
        bad.push_back({core, qparity_test::f32(1.0f, inf), "bias"});
        bad.push_back({core, qparity_test::f32(1.0f, nan), "bias"});
      }
    } else {
      bad.push_back({core, qparity_test::q31(-1, 0), "multiplier"});
      bad.push_back({core, qparity_test::q31(kMin32, 0), "multiplier"});
      bad.push_back({core, qparity_test::q31(1 << 30, 31), "shift"});
      bad.push_back({core, qparity_test::q31(1 << 30, -32), "shift"});
    }
  }
  for (const Bad& b : bad) {
    SCOPED_TRACE(std::string(to_string(b.core)) + " " + b.name);
    RequantizeArgs a = v.a;
    a.core = b.core;
    a.params = &b.p;
    expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, b.name);
    // Per-channel: the bad entry is named with its index.
    std::vector<RequantParams> per_channel(16, qparity_test::exhaustive_params(b.core)[0]);
    per_channel[11] = b.p;
    a.params = per_channel.data();
    a.per_channel = true;
    expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, "params[11]");
    expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, b.name);
  }
}

TEST(InvalidArgs, OutputParameters) {
  ValidCall v;
  std::vector<std::uint8_t> u8(64);
  std::vector<std::int16_t> i16(64);
  RequantizeArgs a = v.a;
  a.output = OutputParams{128, -128, 127};
  expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, "zero_point");
  a.output = OutputParams{-1, 0, 255};
  expect_invalid([&] { requantize<std::uint8_t>(a, u8.data()); }, "zero_point");
  a.output = OutputParams{40000, -32768, 32767};
  expect_invalid([&] { requantize<std::int16_t>(a, i16.data()); }, "zero_point");
  a.output = OutputParams{0, 10, 9};
  expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, "qmax");
  a.output = OutputParams{0, -129, 127};
  expect_invalid([&] { requantize<std::int8_t>(a, v.dst.data()); }, "qmin");
  a.output = OutputParams{0, 0, 256};
  expect_invalid([&] { requantize<std::uint8_t>(Isa::kScalar, a, u8.data()); }, "qmax");
}

TEST(Dispatch, RequantizeKernelIsa) {
  // The paths with requantization files of their own serve themselves; the others their nearest
  // ancestor's (isa_list.h). Checked for the paths this build compiles (QPARITY_ISAS may leave
  // some out, and then an uncompiled file cannot serve).
  const std::pair<Isa, Isa> want[] = {
      {Isa::kScalar, Isa::kScalar},   {Isa::kSse41, Isa::kSse41},      {Isa::kAvx2, Isa::kAvx2},
      {Isa::kAvxVnni, Isa::kAvx2},    {Isa::kAvx512, Isa::kAvx512},    {Isa::kAvx512Vnni, Isa::kAvx512},
      {Isa::kAmx, Isa::kAvx512}};
  for (const auto& w : want) {
    if ((compiled_isas() & mask_of(w.first)) == 0) continue;
    EXPECT_EQ(requantize_kernel_isa(w.first), w.second) << to_string(w.first);
  }
  // On this machine, forcing any supported ISA runs kernels that are supported too (for every
  // feature set: IsaLevels.KernelsOfEverySupportedPathAreSupported).
  for (Isa isa : qparity_test::supported_isa_list()) {
    EXPECT_NE(supported_isas() & mask_of(requantize_kernel_isa(isa)), 0u) << to_string(isa);
  }
  expect_invalid([] { requantize_kernel_isa(static_cast<Isa>(1u << 7)); }, "isa");
  expect_invalid([] { requantize_kernel_isa(static_cast<Isa>(3)); }, "isa");
}

TEST(InvalidArgs, UnsupportedForcedIsa) {
  ValidCall v;
  const Isa not_an_isa = static_cast<Isa>(1u << 7);
  expect_invalid([&] { requantize<std::int8_t>(not_an_isa, v.a, v.dst.data()); }, "isa");
  for (Isa isa : all_isas()) {
    if (supported_isas() & mask_of(isa)) continue;  // only ISAs this machine lacks
    expect_invalid([&] { requantize<std::int8_t>(isa, v.a, v.dst.data()); }, "isa");
  }
}

}  // namespace
