// The reference GEMM (include/qparity/reference_gemm.h) against an independent naive model:
// exact int64 dot products written here from the definition, the zero point and bias applied by
// hand, then the policy's scalar requantize and the output clamp. Random problems over both weight
// layouts, both activation types, strides, per-tensor / per-channel weight zero points and
// requantization parameters, and several accumulator models.
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "qparity/reference_gemm.h"

namespace {

using namespace qparity;

template <class AType>
struct RandomGemm {
  std::size_t m, n, k, lda, ldb, ldc;
  WeightLayout layout;
  std::vector<AType> a;
  std::vector<std::int8_t> b;
  std::vector<std::int32_t> b_zp, bias;
  std::vector<RequantParams> params;
  bool per_channel, zp_per_channel;
  std::int32_t a_zp;
  OutputParams out;

  explicit RandomGemm(std::mt19937& rng) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::size_t sizes[] = {1, 3, 7, 17, 63};
    m = sizes[pick(0, 4)];
    n = sizes[pick(0, 4)];
    k = sizes[pick(0, 4)] * static_cast<std::size_t>(pick(1, 3));
    layout = pick(0, 1) ? WeightLayout::kKxN : WeightLayout::kNxK;
    lda = k + static_cast<std::size_t>(pick(0, 5));
    ldb = (layout == WeightLayout::kKxN ? n : k) + static_cast<std::size_t>(pick(0, 5));
    ldc = n + static_cast<std::size_t>(pick(0, 5));
    const int amin = std::is_signed<AType>::value ? -128 : 0;
    a.resize(m * lda);
    for (auto& v : a) v = static_cast<AType>(pick(amin, amin + 255));
    b.resize((layout == WeightLayout::kKxN ? k : n) * ldb);
    for (auto& v : b) v = static_cast<std::int8_t>(pick(-128, 127));
    a_zp = pick(0, 3) == 0 ? amin : pick(amin, amin + 255);
    zp_per_channel = pick(0, 1);
    b_zp.resize(n);
    for (auto& v : b_zp) v = pick(-128, 127);
    bias.resize(n);
    for (auto& v : bias) v = pick(-100000, 100000);
    per_channel = pick(0, 1);
    params.resize(n);
    for (auto& p : params) {
      p.multiplier = pick(1 << 30, 2147483647);
      p.shift = pick(-14, -6);
      p.scale = static_cast<float>(std::ldexp(p.multiplier, p.shift - 31));
    }
    out = OutputParams{pick(-20, 20), pick(-128, -60), pick(60, 127)};
  }

  std::int8_t b_at(std::size_t kk, std::size_t j) const {
    return layout == WeightLayout::kKxN ? b[kk * ldb + j] : b[j * ldb + kk];
  }

  GemmProblem<AType, std::int8_t> problem(std::vector<std::int8_t>& c) const {
    GemmProblem<AType, std::int8_t> g;
    g.m = m; g.n = n; g.k = k;
    g.a = a.data(); g.a_row_stride = lda; g.a_zero_point = a_zp;
    g.b = b.data(); g.b_layout = layout; g.b_row_stride = ldb;
    g.b_zero_points = b_zp.data(); g.b_zero_point_per_channel = zp_per_channel;
    g.bias = bias.data();
    g.params = params.data(); g.per_channel = per_channel;
    g.output = out;
    c.assign(m * ldc, 0x55);
    g.c = c.data(); g.c_row_stride = ldc;
    return g;
  }

  // Independent model: exact dot product, then the policy and the clamp.
  template <class Policy>
  std::int32_t expected(std::size_t i, std::size_t j) const {
    std::int64_t dot = 0;
    const std::int32_t bz = b_zp[zp_per_channel ? j : 0];
    for (std::size_t kk = 0; kk < k; ++kk) {
      dot += static_cast<std::int64_t>(a[i * lda + kk] - a_zp) * (b_at(kk, j) - bz);
    }
    dot += bias[j];
    const RequantParams& p = params[per_channel ? j : 0];
    const std::int64_t y = static_cast<std::int64_t>(Policy::requantize(static_cast<std::int32_t>(dot), p)) +
                           out.zero_point;
    return static_cast<std::int32_t>(y < out.qmin ? out.qmin : (y > out.qmax ? out.qmax : y));
  }
};

template <class Policy, class Accum, class AType>
void check_random(int cases, unsigned seed) {
  std::mt19937 rng(seed);
  int distinct_outputs_seen = 0;
  for (int t = 0; t < cases; ++t) {
    RandomGemm<AType> r(rng);
    std::vector<std::int8_t> c;
    reference::gemm<Policy, Accum>(r.problem(c));
    std::vector<bool> seen(256, false);
    for (std::size_t i = 0; i < r.m; ++i) {
      for (std::size_t j = 0; j < r.ldc; ++j) {
        if (j >= r.n) {
          ASSERT_EQ(c[i * r.ldc + j], 0x55) << "wrote into the row padding at " << i << "," << j;
          continue;
        }
        const std::int32_t want = r.template expected<Policy>(i, j);
        ASSERT_EQ(c[i * r.ldc + j], want) << "case " << t << " at (" << i << ", " << j << ") m=" << r.m
                                          << " n=" << r.n << " k=" << r.k;
        seen[static_cast<std::size_t>(want + 128)] = true;
      }
    }
    for (bool s : seen) distinct_outputs_seen += s;
  }
  EXPECT_GT(distinct_outputs_seen, cases * 2) << "outputs barely vary: the comparison would be vacuous";
}

// |dot| < 63 * 3 * 2^16 + 10^5 fits every model below, so they all equal the exact model.
TEST(ReferenceGemm, Int32MatchesNaiveModelDrAz) {
  check_random<DoubleRoundingAwayFromZero, Int32Accumulator, std::int8_t>(150, 1);
  check_random<DoubleRoundingAwayFromZero, Int32Accumulator, std::uint8_t>(150, 2);
}
TEST(ReferenceGemm, Int64MatchesNaiveModelSrUp) {
  check_random<SingleRoundingUpward, Int64Accumulator, std::int8_t>(150, 3);
}
TEST(ReferenceGemm, Sat48MatchesNaiveModelFloat32) {
  check_random<Float32Rounding, SaturatingAccumulator<48>, std::uint8_t>(150, 4);
}
TEST(ReferenceGemm, Wrap40MatchesNaiveModelSrEven) {
  check_random<SingleRoundingToEven, WrappingAccumulator<40>, std::int8_t>(150, 5);
}

TEST(ReferenceGemm, NarrowAccumulatorSaturates) {
  // K = 64 products of (-128 - 0) * (-128 - 0) = 16384 sum to 2^20; a 16-bit saturating
  // accumulator stops at 32767, int32 keeps the exact value. Scale 1 (M = 2^30, shift 1).
  std::vector<std::int8_t> a(64, -128), b(64, -128);
  std::vector<std::int32_t> c(1);
  RequantParams p;
  p.multiplier = 1 << 30;
  p.shift = 1;
  GemmProblem<std::int8_t, std::int32_t> g;
  g.m = 1; g.n = 1; g.k = 64;
  g.a = a.data(); g.b = b.data(); g.params = &p; g.c = c.data();
  reference::gemm<SingleRoundingUpward, Int32Accumulator>(g);
  EXPECT_EQ(c[0], 1 << 20);
  reference::gemm<SingleRoundingUpward, SaturatingAccumulator<16>>(g);
  EXPECT_EQ(c[0], 32767);
}

TEST(ReferenceGemm, ValidationNamesTheParameter) {
  std::vector<std::int8_t> a(4), b(4), c(4);
  RequantParams p;
  p.multiplier = 1 << 30;
  GemmProblem<std::int8_t, std::int8_t> g;
  g.m = 2; g.n = 2; g.k = 2;
  g.a = a.data(); g.b = b.data(); g.params = &p; g.c = c.data();
  g.output = full_range_output(OutputType::kInt8);
  auto message = [&] {
    try {
      reference::gemm<DoubleRoundingAwayFromZero>(g);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  g.a_row_stride = 1;
  EXPECT_NE(message().find("a_row_stride"), std::string::npos) << message();
  g.a_row_stride = 0;
  g.a_zero_point = 128;
  EXPECT_NE(message().find("a_zero_point"), std::string::npos) << message();
  g.a_zero_point = 0;
  p.shift = 31;
  EXPECT_NE(message().find("shift"), std::string::npos) << message();
  p.shift = 0;
  g.k = 0;
  EXPECT_NE(message().find("k = 0"), std::string::npos) << message();
  g.k = 2;
  g.c = nullptr;
  EXPECT_NE(message().find("c is null"), std::string::npos) << message();
}

}  // namespace

namespace {

// The run-time entry reference::gemm(g, core, spec) is the compile-time one for every pair.
template <class Accum, class AType>
void check_runtime_entry_matches(const AccumulatorSpec& spec, unsigned seed) {
  std::mt19937 rng(seed);
  for (int t = 0; t < 20; ++t) {
    RandomGemm<AType> r(rng);
    for (RoundingCore core : kAllRoundingCores) {
      if (core == RoundingCore::kQ15) {
        for (auto& p : r.params) { p.multiplier >>= 16; p.shift += 16; }
      }
      std::vector<std::int8_t> by_type, by_value;
      visit_rounding_core(core, [&](auto policy) {
        reference::gemm<decltype(policy), Accum>(r.problem(by_type));
      });
      reference::gemm(r.problem(by_value), core, spec);
      ASSERT_EQ(by_type, by_value) << to_string(core) << " " << to_string(spec) << " case " << t;
      if (core == RoundingCore::kQ15) {
        for (auto& p : r.params) { p.multiplier <<= 16; p.shift -= 16; }
      }
    }
  }
}

TEST(ReferenceGemm, RuntimeEntryEqualsCompileTimeEntry) {
  check_runtime_entry_matches<Int32Accumulator, std::int8_t>(Int32Accumulator::kSpec, 11);
  check_runtime_entry_matches<Int64Accumulator, std::uint8_t>(Int64Accumulator::kSpec, 12);
  check_runtime_entry_matches<SaturatingAccumulator<18>, std::int8_t>(SaturatingAccumulator<18>::kSpec, 13);
  check_runtime_entry_matches<WrappingAccumulator<20>, std::uint8_t>(WrappingAccumulator<20>::kSpec, 14);
  check_runtime_entry_matches<WrappingAccumulator<44>, std::int8_t>(WrappingAccumulator<44>::kSpec, 15);
  check_runtime_entry_matches<Int16PairSaturatingAccumulator<true>, std::int8_t>(
      AccumulatorSpec{AccumulatorKind::kPairSaturating, 32}, 16);
  check_runtime_entry_matches<Int16PairSaturatingAccumulator<false>, std::uint8_t>(
      AccumulatorSpec{AccumulatorKind::kPairSaturating, 32}, 17);
}

TEST(ReferenceGemm, RuntimeAccumulatorSpecIsValidated) {
  std::vector<std::int8_t> a(4, 1), b(4, 1), c(1, 0);
  RequantParams p{1 << 30, 0};
  GemmProblem<std::int8_t, std::int8_t> g;
  g.m = 1; g.n = 1; g.k = 4; g.a = a.data(); g.b = b.data(); g.c = c.data(); g.params = &p;
  g.output = full_range_output(OutputType::kInt8);
  for (AccumulatorSpec bad : {AccumulatorSpec{AccumulatorKind::kSaturating, 15},
                              AccumulatorSpec{AccumulatorKind::kSaturating, 49},
                              AccumulatorSpec{AccumulatorKind::kWrapping, 65},
                              AccumulatorSpec{AccumulatorKind::kInt32, 31}}) {
    try {
      reference::gemm(g, RoundingCore::kDoubleRoundingAwayFromZero, bad);
      FAIL() << "accepted " << to_string(bad);
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("accumulator.bits"), std::string::npos) << e.what();
    }
  }
}

TEST(FixedPoint, WrapToBits) {
  EXPECT_EQ(wrap_to_bits(0x7fffff, 24), 0x7fffff);
  EXPECT_EQ(wrap_to_bits(0x800000, 24), -0x800000);
  EXPECT_EQ(wrap_to_bits(static_cast<std::uint64_t>(-1), 16), -1);
  EXPECT_EQ(wrap_to_bits(std::uint64_t{1} << 40, 40), 0);
  EXPECT_EQ(wrap_to_bits(std::uint64_t{1} << 63, 64), INT64_MIN);
  EXPECT_EQ(wrap_to_bits((std::uint64_t{1} << 39) + 5, 40), -(std::int64_t{1} << 39) + 5);
}

}  // namespace
