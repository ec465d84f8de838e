// TOSA equivalences (docs/semantics.md §5.1, §3.3, §13), with TOSA's helpers written independently
// in the test (test_util.h, from scale_helpers.tosac as restated in §5.1):
//  * apply_scale_32(double_round = true)  == DR-AZ  on TOSA's REQUIRE domain
//  * apply_scale_32(double_round = false) == SR-UP  on TOSA's REQUIRE domain
//    (TOSA multiplier = M, TOSA shift = 31 - shift_tflite)
//  * apply_scale_16 == Q15Rounding::requantize_wide, and TFLite's int64
//    MultiplyByQuantizedMultiplier (§3.3, written out here) == Q15 with the reduced multiplier.
#include <cstdint>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::i128;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::Q15;
using qparity_test::Q31;
using qparity_test::RcCheck;
using qparity_test::TosaApplyScale16;
using qparity_test::TosaApplyScale32;
using qparity_test::TosaApplyScale32Requires;

// A value in TOSA's REQUIRE range [-2^(s-1), 2^(s-1)) intersected with int32, with a random
// number of significant bits, sometimes at the range ends.
std::int32_t GenTosaValue(int tosa_shift) {
  const std::int64_t lim = tosa_shift - 1 >= 31 ? (std::int64_t{1} << 31) : (std::int64_t{1} << (tosa_shift - 1));
  const int kind = qparity_test::Uniform(0, 4);
  if (kind == 0) return static_cast<std::int32_t>(-lim);
  if (kind == 1) return static_cast<std::int32_t>(lim - 1);
  const int max_bits = tosa_shift - 1 >= 31 ? 31 : tosa_shift - 1;
  const int bits = qparity_test::Uniform(0, max_bits + 1);
  const std::int64_t mag = qparity_test::Uniform<std::int64_t>(0, std::int64_t{1} << bits);
  const std::int64_t v = qparity_test::Coin() ? -mag : mag;
  return static_cast<std::int32_t>(v >= lim ? lim - 1 : v);
}

std::int32_t GenMultiplier() {
  switch (qparity_test::Uniform(0, 4)) {
    case 0: return qparity_test::Uniform<std::int32_t>(0, kMax);
    case 1: return k2p30;
    case 2: return qparity_test::Uniform<std::int32_t>(k2p30, kMax) & ~0xFFFF;  // makes ties likely
    default: return qparity_test::Uniform<std::int32_t>(k2p30, kMax);
  }
}

TEST(ReferenceTosaEquivalence, ApplyScale32MatchesDrAzAndSrUpOnRequireDomain) {
  std::uint64_t cases = 0, dr_ne_sr = 0, flag_matters = 0, pre_shift_cases = 0;
  RcCheck([&] {
    // Half of the cases use small right shifts, where double and single rounding often differ.
    const int shift_tflite = qparity_test::Coin() ? qparity_test::Uniform(-8, 1)
                                                         : qparity_test::Uniform(-31, 30);  // TOSA 2..62
    const int tosa_shift = 31 - shift_tflite;
    const std::int32_t m = GenMultiplier();
    const std::int32_t start = GenTosaValue(tosa_shift);
    const RequantParams p = Q31(m, shift_tflite);
    for (std::int64_t v = start; v < std::int64_t{start} + 64; ++v) {
      if (v > kMax || !TosaApplyScale32Requires(static_cast<std::int32_t>(v), m, tosa_shift)) break;
      const auto value = static_cast<std::int32_t>(v);
      // On the REQUIRE domain TFLite's pre-shift value * 2^L (L = max(shift, 0)) never wraps:
      // |value| <= 2^(30 - L), so |value * 2^L| <= 2^30.
      const int left = shift_tflite > 0 ? shift_tflite : 0;
      RC_ASSERT(qparity_test::FitsInt32(static_cast<i128>(value) * (i128{1} << left)));
      pre_shift_cases += left > 0;

      const std::int64_t dbl = TosaApplyScale32(value, m, tosa_shift, true);
      const std::int64_t sgl = TosaApplyScale32(value, m, tosa_shift, false);
      RC_ASSERT(qparity_test::FitsInt32(dbl));
      RC_ASSERT(qparity_test::FitsInt32(sgl));
      RC_ASSERT(DoubleRoundingAwayFromZero::requantize(value, p) == dbl);
      RC_ASSERT(SingleRoundingUpward::requantize(value, p) == sgl);
      // SR-UP-NEON too, where its earlier pre-shift (shift + 1) does not wrap.
      const int neon_left = shift_tflite >= -1 ? shift_tflite + 1 : 0;
      if (qparity_test::FitsInt32(static_cast<i128>(value) * (i128{1} << neon_left))) {
        RC_ASSERT(SingleRoundingUpwardNeon::requantize(value, p) == sgl);
      }
      // For TOSA shifts <= 31 the double_round flag is a no-op.
      if (tosa_shift <= 31) RC_ASSERT(dbl == sgl);
      ++cases;
      dr_ne_sr += dbl != sgl;
      flag_matters += tosa_shift > 31 && dbl != sgl;
    }
  });
  EXPECT_GT(cases, 1000u);
  EXPECT_GT(dr_ne_sr, 0u) << "DOUBLE_ROUND never differed from SINGLE_ROUND: vacuous";
  EXPECT_GT(flag_matters, 0u);
  EXPECT_GT(pre_shift_cases, 0u);
}

TEST(ReferenceTosaEquivalence, ApplyScale32DenseSweepOfSmallValues) {
  // Every value in [-4096, 4096) for every TOSA shift 2..62 with a few multipliers, including the
  // power-of-two multiplier that makes exact ties of every kind.
  const std::int32_t multipliers[] = {k2p30, 2034096511, 1288490189, kMax, 0x7FFF0000, 1};
  std::uint64_t checked = 0;
  for (int shift_tflite = -31; shift_tflite <= 29; ++shift_tflite) {
    const int tosa_shift = 31 - shift_tflite;
    for (std::int32_t m : multipliers) {
      const RequantParams p = Q31(m, shift_tflite);
      for (std::int32_t v = -4096; v < 4096; ++v) {
        if (!TosaApplyScale32Requires(v, m, tosa_shift)) continue;
        ASSERT_EQ(DoubleRoundingAwayFromZero::requantize(v, p), TosaApplyScale32(v, m, tosa_shift, true))
            << "v=" << v << " M=" << m << " shift=" << shift_tflite;
        ASSERT_EQ(SingleRoundingUpward::requantize(v, p), TosaApplyScale32(v, m, tosa_shift, false))
            << "v=" << v << " M=" << m << " shift=" << shift_tflite;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000000u);
}

TEST(ReferenceTosaEquivalence, RescaleOutputStageMatchesTosaPseudocode) {
  // RESCALE: apply_scale_32, + output_zp in int32, clip to the output type, cast (§5.1).
  RcCheck([] {
    const int shift_tflite = qparity_test::Uniform(-31, 30);
    const int tosa_shift = 31 - shift_tflite;
    const std::int32_t m = GenMultiplier();
    const std::int32_t value = GenTosaValue(tosa_shift);
    const bool uint8 = qparity_test::Coin();
    const OutputType type = uint8 ? OutputType::kUint8 : OutputType::kInt8;
    const std::int32_t zp = qparity_test::Uniform(output_type_min(type), output_type_max(type) + 1);
    const OutputParams out = full_range_output(type, zp);
    for (bool dbl : {true, false}) {
      const std::int64_t scaled = TosaApplyScale32(value, m, tosa_shift, dbl) + zp;
      const std::int64_t clipped = scaled < output_type_min(type) ? output_type_min(type)
                                   : scaled > output_type_max(type) ? output_type_max(type) : scaled;
      const RequantParams p = Q31(m, shift_tflite);
      const std::int32_t got = dbl ? requantize_to_output<DoubleRoundingAwayFromZero>(value, p, out)
                                   : requantize_to_output<SingleRoundingUpward>(value, p, out);
      RC_ASSERT(got == clipped);
    }
  });
}

TEST(ReferenceTosaEquivalence, ApplyScale16MatchesQ15Wide) {
  std::uint64_t in_require = 0, outside = 0, nonzero = 0;
  RcCheck([&] {
    const std::int16_t m = static_cast<std::int16_t>(qparity_test::Uniform(0, 32768));
    for (int i = 0; i < 16; ++i) {
      // value: int48 with a random number of bits; the shift is chosen so that the result has
      // about `target` bits (sometimes more than int32 holds).
      const int bits = qparity_test::Uniform(0, 48);
      const std::int64_t mag = qparity_test::Uniform<std::int64_t>(0, std::int64_t{1} << bits);
      const std::int64_t value = qparity_test::Coin() ? -mag : mag;
      const int target = qparity_test::Uniform(0, 36);
      int tosa_shift = bits + 15 - target;
      tosa_shift = tosa_shift < 2 ? 2 : tosa_shift > 62 ? 62 : tosa_shift;
      const int q15_shift = 15 - tosa_shift;  // in [kQ15ShiftMin, kQ15ShiftMax]
      const i128 tosa = TosaApplyScale16(value, m, tosa_shift);
      const std::int32_t ours = Q15Rounding::requantize_wide(value, Q15(m, q15_shift));
      if (qparity_test::FitsInt32(tosa)) {
        RC_ASSERT(ours == static_cast<std::int32_t>(tosa));
        ++in_require;
        nonzero += tosa != 0;
      } else {
        // Outside TOSA's result REQUIRE: documented as narrowed modulo 2^32 (TFLite's narrowing).
        RC_ASSERT(ours == qparity_test::Wrap32(tosa));
        ++outside;
      }
    }
  });
  EXPECT_GT(in_require, 200u);
  EXPECT_GT(nonzero, 100u);
  EXPECT_GT(outside, 0u);
}

// TFLite MultiplyByQuantizedMultiplier(int64_t x, int32_t M, int shift) (common.cc; §3.3),
// written out: both builds execute this.
std::int32_t TfliteMultiplyInt64(std::int64_t x, std::int32_t quantized_multiplier, int shift) {
  const std::int32_t reduced_multiplier =
      quantized_multiplier < 0x7FFF0000 ? ((quantized_multiplier + (1 << 15)) >> 16) : 0x7FFF;
  const int total_shift = 15 - shift;
  const std::int64_t round = static_cast<std::int64_t>(1) << (total_shift - 1);
  std::int64_t result = x * static_cast<std::int64_t>(reduced_multiplier) + round;
  result = result >> total_shift;
  return static_cast<std::int32_t>(result);
}

TEST(ReferenceTosaEquivalence, TfliteInt64PathMatchesQ15WithReducedMultiplier) {
  std::uint64_t fits = 0;
  RcCheck([&] {
    const std::int32_t m = qparity_test::Uniform<std::int32_t>(0, kMax);
    const int shift = qparity_test::Uniform(-31, 8);  // TFLite: -31 <= shift < 8
    const int bits = qparity_test::Uniform(0, 48);
    const std::int64_t mag = qparity_test::Uniform<std::int64_t>(0, std::int64_t{1} << bits);
    const std::int64_t x = qparity_test::Coin() ? -mag : mag;  // [-2^47, 2^47)
    const QuantizedMultiplier r = reduce_multiplier_q31_to_q15({m, shift});
    const RequantParams p = Q15(r.multiplier, r.shift);
    const i128 exact = TosaApplyScale16(x, static_cast<std::int16_t>(r.multiplier), 15 - shift);
    RC_PRE(qparity_test::FitsInt32(exact));  // TFLite DCHECKs the result range
    RC_ASSERT(Q15Rounding::requantize_wide(x, p) == TfliteMultiplyInt64(x, m, shift));
    ++fits;
  });
  EXPECT_GT(fits, 50u);
  // The §11.6 vector through TFLite's own formula.
  EXPECT_EQ(TfliteMultiplyInt64(118786, 1696777188, -6), 1467);
}

}  // namespace
