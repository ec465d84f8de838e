// Golden vectors: every row and every column of the test-vector tables of docs/semantics.md §11,
// checked against the corresponding policy, multiplier derivation or scale composition.
//
// Column legend (§11): DR = DoubleRoundingAwayFromZero, UU = DoubleRoundingUpward,
// SR = SingleRoundingUpward, AZ = SingleRoundingAwayFromZero, RNE = SingleRoundingToEven,
// TZ = TruncateTowardZero, FL = FloorRounding, F32 = Float32Rounding with
// scale = float(M * 2^(shift - 31)). §11.5 "NEON SR" = SingleRoundingUpwardNeon.
// Every tie row carries a comment saying why each value is right.
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::F32;
using qparity_test::F32FromQ31;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::kMin;
using qparity_test::Q15;
using qparity_test::Q31;

constexpr std::int32_t kM31 = 2147483647;  // 2^31 - 1

// One row of the §11.1 / §11.3 tables: every rounding core on the same (x, M, shift).
struct CoreRow {
  std::int32_t x;
  std::int32_t m;
  std::int32_t shift;
  double exact;  // x * M * 2^(shift - 31), as printed in the table
  std::int32_t dr, uu, sr, az, rne, tz, fl, f32;
  const char* why;
};

std::string Describe(const CoreRow& r) {
  return "x=" + std::to_string(r.x) + " M=" + std::to_string(r.m) +
         " shift=" + std::to_string(r.shift) + " (" + r.why + ")";
}

// Checks each column with the policy type and with run-time dispatch (both must agree).
void CheckCoreRow(const CoreRow& r, double exact_tolerance) {
  SCOPED_TRACE(Describe(r));
  const RequantParams p = Q31(r.m, r.shift);
  // The "exact" column is x * M * 2^(shift-31). long double keeps 64 bits of mantissa.
  const long double exact = static_cast<long double>(r.x) * r.m * std::ldexp(1.0L, r.shift - 31);
  EXPECT_NEAR(static_cast<double>(exact), r.exact, exact_tolerance) << "exact column";

  EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(r.x, p), r.dr) << "DR";
  EXPECT_EQ(DoubleRoundingUpward::requantize(r.x, p), r.uu) << "UU";
  EXPECT_EQ(SingleRoundingUpward::requantize(r.x, p), r.sr) << "SR";
  EXPECT_EQ(SingleRoundingAwayFromZero::requantize(r.x, p), r.az) << "AZ";
  EXPECT_EQ(SingleRoundingToEven::requantize(r.x, p), r.rne) << "RNE";
  EXPECT_EQ(TruncateTowardZero::requantize(r.x, p), r.tz) << "TZ";
  EXPECT_EQ(FloorRounding::requantize(r.x, p), r.fl) << "FL";
  const RequantParams pf = F32FromQ31(r.m, r.shift);
  EXPECT_EQ(Float32Rounding::requantize(r.x, pf), r.f32) << "F32";

  // Run-time dispatch by RoundingCore gives the same values.
  EXPECT_EQ(requantize(RoundingCore::kDoubleRoundingAwayFromZero, r.x, p), r.dr);
  EXPECT_EQ(requantize(RoundingCore::kDoubleRoundingUpward, r.x, p), r.uu);
  EXPECT_EQ(requantize(RoundingCore::kSingleRoundingUpward, r.x, p), r.sr);
  EXPECT_EQ(requantize(RoundingCore::kSingleRoundingAwayFromZero, r.x, p), r.az);
  EXPECT_EQ(requantize(RoundingCore::kSingleRoundingToEven, r.x, p), r.rne);
  EXPECT_EQ(requantize(RoundingCore::kTruncate, r.x, p), r.tz);
  EXPECT_EQ(requantize(RoundingCore::kFloor, r.x, p), r.fl);
  EXPECT_EQ(requantize(RoundingCore::kFloat32, r.x, pf), r.f32);

  // "TOSA parameters for any row: multiplier = M, shift = 31 - shift" (§11): on TOSA's REQUIRE
  // domain, and where TFLite's pre-shift does not wrap, DOUBLE_ROUND = DR and SINGLE_ROUND = SR.
  const int tosa_shift = 31 - r.shift;
  const int left = r.shift > 0 ? r.shift : 0;
  const bool no_wrap = left == 0 || static_cast<std::int64_t>(r.x) * (std::int64_t{1} << left) ==
                                        static_cast<std::int64_t>(shift_left_wrapping(r.x, left));
  if (no_wrap && qparity_test::TosaApplyScale32Requires(r.x, r.m, tosa_shift)) {
    EXPECT_EQ(qparity_test::TosaApplyScale32(r.x, r.m, tosa_shift, true), r.dr) << "TOSA DOUBLE_ROUND";
    EXPECT_EQ(qparity_test::TosaApplyScale32(r.x, r.m, tosa_shift, false), r.sr) << "TOSA SINGLE_ROUND";
  }
}

// ---------------------------------------------------------------------------------------------
// §11.1 Ties and near-ties with exact power-of-two scales. M = 2^30 is 0.5 in Q31, so the real
// scale is 2^(shift-1) exactly for every core, and only the rounding differs.
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_1_PowerOfTwoTies) {
  const CoreRow rows[] = {
      // +2.5 with no right shift: DR/UU are SRDHM alone, which rounds half up (HU) -> 3; SR HU -> 3;
      // AZ away -> 3; RNE -> even 2; TZ/FL -> 2; F32 exact 2.5 -> RNE 2.
      {5, k2p30, 0, 2.5, 3, 3, 3, 3, 2, 2, 2, 2, "+tie, no right shift"},
      // -2.5: SRDHM is HU, so DR = UU = -2 (not -3); SR HU -> -2; AZ -> -3; RNE -> -2 (even);
      // TZ -> -2; FL -> -3; F32 RNE -> -2.
      {-5, k2p30, 0, -2.5, -2, -2, -2, -3, -2, -2, -3, -2, "SRDHM alone is half-up"},
      // -1.5: HU -> -1 (DR, UU, SR); AZ -> -2; RNE -> -2 (even); TZ -> -1; FL -> -2; F32 -> -2.
      {-3, k2p30, 0, -1.5, -1, -1, -1, -2, -2, -1, -2, -2, ""},
      // +2.5 formed in the 2nd stage: SRDHM(10, 2^30) = 5 exactly, RDBPOT(5,1) = 3 (HAZ),
      // SRSHL(5,1) = 3 (HU); single rounding HU/AZ -> 3, RNE -> 2, TZ/FL -> 2, F32 -> 2.
      {10, k2p30, -1, 2.5, 3, 3, 3, 3, 2, 2, 2, 2, "tie formed in 2nd stage"},
      // -2.5 in the 2nd stage: t = -5 exactly; RDBPOT(-5,1) = -3 (HAZ) but SRSHL(-5,1) = -2 (HU);
      // SR HU -> -2: DR-AZ != SR-UP. AZ -> -3, RNE -> -2, TZ -> -2, FL -> -3, F32 -> -2.
      {-10, k2p30, -1, -2.5, -3, -2, -2, -3, -2, -2, -3, -2, "DR-AZ != SR-UP"},
      // +1.5: t = 3 exactly, both second steps round up -> 2; RNE -> 2 (even); TZ/FL -> 1;
      // F32 -> 2 (even).
      {6, k2p30, -1, 1.5, 2, 2, 2, 2, 2, 1, 1, 2, ""},
      // -1.5: t = -3; HAZ -> -2 (DR), HU -> -1 (UU, SR); AZ -> -2; RNE -> -2; TZ -> -1; FL -> -2;
      // F32 -> -2 (even).
      {-6, k2p30, -1, -1.5, -2, -1, -1, -2, -2, -1, -2, -2, ""},
      // +0.5: t = 1; HAZ and HU -> 1; AZ -> 1; RNE -> 0 (even); TZ/FL -> 0; F32 -> 0.
      {2, k2p30, -1, 0.5, 1, 1, 1, 1, 0, 0, 0, 0, ""},
      // -0.5: t = -1; HAZ -> -1 (DR), HU -> 0 (UU, SR); AZ -> -1; RNE -> 0; TZ -> 0; FL -> -1;
      // F32 -> -0 = 0.
      {-2, k2p30, -1, -0.5, -1, 0, 0, -1, 0, 0, -1, 0, ""},
      // -1.5 with R = 2: SRDHM(-12, 2^30) = -6 exactly; RDBPOT(-6,2): -1.5 -> -2 (HAZ);
      // SRSHL: -1 (HU); SR -1; AZ -2; RNE -2; TZ -1; FL -2; F32 -2.
      {-12, k2p30, -2, -1.5, -2, -1, -1, -2, -2, -1, -2, -2, "R = 2"},
      // 0.875: not a tie; every nearest rounding -> 1, TZ/FL -> 0.
      {7, k2p30, -2, 0.875, 1, 1, 1, 1, 1, 0, 0, 1, "no tie (TZ/FL differ)"},
      // -50.5 with no right shift: SRDHM HU -> -50 (DR, UU), SR -50; AZ -51; RNE -50 (even);
      // TZ -50; FL -51; F32 -50.
      {-101, k2p30, 0, -50.5, -50, -50, -50, -51, -50, -50, -51, -50, ""},
      // -49.5: HU -> -49; AZ -> -50; RNE -> -50 (even); TZ -> -49; FL -> -50; F32 -> -50.
      {-99, k2p30, 0, -49.5, -49, -49, -49, -50, -50, -49, -50, -50, ""},
  };
  for (const CoreRow& r : rows) CheckCoreRow(r, 0.0);
}

// ---------------------------------------------------------------------------------------------
// §11.2 Double-rounding discrepancies on non-tie values; parameters from TFLite
// QuantizeMultiplier(double) (quantize_multiplier_tflite, default build).
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_2_DoubleRoundingOnNonTies) {
  struct Row {
    double scale;
    std::int32_t m;
    std::int32_t shift;
    std::int32_t x;
    double exact;
    std::int32_t dr_az, sr_up, dr_up, sqrdmulh;
  };
  const Row rows[] = {
      {0.0037, 2034096511, -8, 135, 0.499499999905, 1, 0, 1, 128},
      {0.0037, 2034096511, -8, -135, -0.499499999905, -1, 0, 0, -128},
      {0.0037, 2034096511, -8, 405, 1.498499999716, 2, 1, 2, 384},
      // Scale 0.3, x = 1: SRDHM gives 1 (0.6 rounded up in units of 2^-1), an exact tie for the
      // second step, rounded away to 1: double rounding maps 0.3 to 1.
      {0.3, 1288490189, -1, 1, 0.300000000047, 1, 0, 1, 1},
      {0.3, 1288490189, -1, -1, -0.300000000047, -1, 0, 0, -1},
      {0.3, 1288490189, -1, 8, 2.400000000373, 3, 2, 3, 5},
      {0.00066894531250000005, 1471026299, -10, 747, 0.499702148478, 1, 0, 1, 512},
      {0.00066894531250000005, 1471026299, -10, -747, -0.499702148478, -1, 0, 0, -512},
      {0.00066894531250000005, 1471026299, -10, 2242, 1.499775390747, 2, 1, 2, 1536},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("scale=" + std::to_string(r.scale) + " x=" + std::to_string(r.x));
    EXPECT_EQ(quantize_multiplier_tflite(r.scale), (QuantizedMultiplier{r.m, r.shift}));
    const long double exact = static_cast<long double>(r.x) * r.m * std::ldexp(1.0L, r.shift - 31);
    EXPECT_NEAR(static_cast<double>(exact), r.exact, 1e-12) << "exact column";
    const RequantParams p = Q31(r.m, r.shift);
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(r.x, p), r.dr_az) << "DR-AZ";
    EXPECT_EQ(SingleRoundingUpward::requantize(r.x, p), r.sr_up) << "SR-UP";
    EXPECT_EQ(DoubleRoundingUpward::requantize(r.x, p), r.dr_up) << "DR-UP";
    EXPECT_EQ(saturating_rounding_doubling_high_mul(r.x, r.m), r.sqrdmulh) << "SQRDMULH(x, M)";
  }
}

// ---------------------------------------------------------------------------------------------
// §11.3 Extremes (M = 2^31 - 1, shift = -31 ... +30).
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_3_Extremes) {
  const CoreRow rows[] = {
      // -0.5 at the maximum right shift: SRDHM(-2^31, 2^30) = -2^30 exactly; RDBPOT(-2^30, 31) =
      // -1 (HAZ); SRSHL -> 0 (HU); SR HU -> 0; AZ -1; RNE 0 (even); TZ 0; FL -1; F32 -0.5 -> 0.
      {kMin, k2p30, -31, -0.5, -1, 0, 0, -1, 0, 0, -1, 0, "tie at max right shift"},
      // 0.4999999998 (not a tie): SRDHM(2^30, 2^31-1) = 2^30 (0.5 below rounded up), which RDBPOT
      // then sees as an exact tie 0.5 -> 1: DR = UU = 1; single rounding -> 0; F32: float(M) = 2^31
      // makes the scale 2^-31 and the product exactly 0.5 -> RNE 0.
      {k2p30, kM31, -31, 0.4999999998, 1, 1, 0, 0, 0, 0, 0, 0, "non-tie, DR rounds up"},
      {kMin, kM31, -31, -0.99999999953, -1, -1, -1, -1, -1, 0, -1, -1, ""},
      {kMax, kM31, -31, 0.99999999907, 1, 1, 1, 1, 1, 0, 0, 1, ""},
      // Table F32 = 2147483648 ("float(2^31-1) = 2^31 overflows int32"): not representable in the
      // int32 the API returns; Float32Rounding saturates it to INT32_MAX by design
      // (policy_float.h: saturation stands for the float-domain clamp). Reported.
      {kMax, kM31, 0, 2147483646.0000000005, 2147483646, 2147483646, 2147483646, 2147483646,
       2147483646, 2147483646, 2147483646, kMax, "F32: float(2^31-1)=2^31, saturated"},
      {kMin, kM31, 0, -2147483647, -2147483647, -2147483647, -2147483647, -2147483647, -2147483647,
       -2147483647, -2147483647, kMin, ""},
      // -2147483646.0000000005: every nearest rule and TZ -> -2147483646; FL -> -2147483647;
      // F32: float(-2^31+1) = -2^31, float scale = 1 -> -2^31.
      {kMin + 1, kM31, 0, -2147483646.0000000005, -2147483646, -2147483646, -2147483646,
       -2147483646, -2147483646, -2147483646, -2147483647, kMin, ""},
      // 1.4999999993 (not a tie): SRDHM(3, M) = 3 (2.9999999986 rounded), RDBPOT(3,1) = 2 (tie
      // manufactured by the first step, HAZ); UU: 2 (HU); single rounding -> 1; F32: float(M) = 2^31
      // makes the scale 0.5, product 1.5 -> RNE 2.
      {3, kM31, -1, 1.4999999993, 2, 2, 1, 1, 1, 1, 1, 2, "float(M)=2^31 -> F32 sees 1.5"},
      // -1.4999999993: SRDHM(-3, M) = -3; RDBPOT(-3,1) = -2 (HAZ); SRSHL(-3,1) = -1 (HU);
      // single rounding nearest -> -1; TZ -1; FL -2; F32 -1.5 -> RNE -2.
      {-3, kM31, -1, -1.4999999993, -2, -1, -1, -1, -1, -1, -2, -2, ""},
      // Table F32 cell is "—"; derived here: float(2^31-1) = 2^31, float scale = 0.5 -> 2^30.
      {kMax, kM31, -1, 1073741823.0000000002, 1073741823, 1073741823, 1073741823, 1073741823,
       1073741823, 1073741823, 1073741823, 1073741824, "F32 derived (table: -)"},
      // Exact tie -1073741823.5: SRDHM(-2^31, M) = -(2^31 - 1) exactly; RDBPOT(.,1) = -1073741824
      // (HAZ); SRSHL -> -1073741823 (HU); SR HU -> -1073741823; AZ -1073741824; RNE -1073741824
      // (even); TZ -1073741823; FL -1073741824. F32 (table "—"; derived): -2^31 * 0.5 = -2^30.
      {kMin, kM31, -1, -1073741823.5, -1073741824, -1073741823, -1073741823, -1073741824,
       -1073741824, -1073741823, -1073741824, -1073741824, "exact tie; F32 derived (table: -)"},
      {1, k2p30, 30, 536870912, 536870912, 536870912, 536870912, 536870912, 536870912, 536870912,
       536870912, 536870912, "SR max left shift"},
      // DR: 3 << 30 wraps in int32 to -2^30, SRDHM(-2^30, 2^30) = -2^29.
      {3, k2p30, 30, 1610612736, -536870912, -536870912, 1610612736, 1610612736, 1610612736,
       1610612736, 1610612736, 1610612736, "DR: 3<<30 wraps in int32"},
      // Exact 2^31 does not fit int32. DR/UU: 4 << 30 wraps to 0 -> 0. SR: table "2^31 (does not
      // fit int32: DCHECK; release truncates to -2^31)": the API wraps -> INT32_MIN. AZ/RNE/TZ/FL
      // cells are blank in the table: the exact value is an integer, so every single-rounding rule
      // gives 2^31, wrapped to INT32_MIN (policy_single_rounding.h). F32 blank: 4 * 2^29 = 2^31 in
      // float, saturated to INT32_MAX (policy_float.h).
      {4, k2p30, 30, 2147483648.0, 0, 0, kMin, kMin, kMin, kMin, kMin, kMax,
       "2^31: SR wraps (API), F32 saturates (API); AZ..F32 blank in table"},
      // DR wraps -4 << 30 to 0. SR -2^31 fits. AZ..FL blank in the table: exact integer -2^31
      // for every rule; F32: -2^31 exactly.
      {-4, k2p30, 30, -2147483648.0, 0, 0, kMin, kMin, kMin, kMin, kMin, kMin,
       "DR wraps -4<<30 to 0; AZ..F32 blank in table"},
  };
  // The exact column is printed with about 11 significant digits, except where it is spelled out.
  for (const CoreRow& r : rows) CheckCoreRow(r, std::fabs(r.exact) < 2.0 ? 5e-11 : 1e-6);

  // "TOSA cannot express shift_tflite = 30 (TOSA shift 1 < 2)".
  EXPECT_FALSE(qparity_test::TosaApplyScale32Requires(1, k2p30, 31 - 30));
}

// ---------------------------------------------------------------------------------------------
// §11.4 Primitive-level vectors.
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_4_Primitives) {
  // SQRDMULH saturation of the one overflowing case (gemmlowp, SQRDMULH, SQDMULH).
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kMin, kMin), kMax);
  EXPECT_EQ(saturating_doubling_high_mul(kMin, kMin), kMax);
  // (CMSIS arm_nn_doubling_high_mult_no_sat -> INT32_MIN is not modelled by the API; reported.)
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kMax, kMax), 2147483646);
  // Ties up for both signs: +0.5 -> 1, -0.5 -> 0, +1.5 -> 2, -1.5 -> -1.
  EXPECT_EQ(saturating_rounding_doubling_high_mul(k2p30, 1), 1);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-k2p30, 1), 0);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(3 * (1 << 29), 2), 2);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-3 * (1 << 29), 2), -1);
  // RDBPOT: HAZ, exact at the extremes.
  EXPECT_EQ(rounding_divide_by_pot(kMin, 31), -1);   // -1 exactly
  EXPECT_EQ(rounding_divide_by_pot(kMax, 31), 1);    // 0.99999999953 -> 1
  EXPECT_EQ(rounding_divide_by_pot(-k2p30, 31), -1);  // -0.5 -> -1 (HAZ) ...
  EXPECT_EQ(rounding_shift_right_half_up(-k2p30, 31), 0);  // ... but vrshr -> 0 (HU)
  // 1073741823.5 -> 1073741824 both ways, with no int32 overflow in the hardware op.
  EXPECT_EQ(rounding_divide_by_pot(kMax, 1), 1073741824);
  EXPECT_EQ(rounding_shift_right_half_up(kMax, 1), 1073741824);
}

// ---------------------------------------------------------------------------------------------
// §11.5 NEON single-rounding pre-shift edge (SQDMULH + SRSHL with left = shift + 1).
// "NEON DR (fix-up)" is bit-identical to scalar DR-AZ (§2.3), which the API models as DR-AZ.
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_5_NeonPreShiftEdge) {
  struct Row {
    std::int32_t x, m, shift, scalar_sr, neon_sr, scalar_dr, neon_dr;
  };
  const Row rows[] = {
      // 2^30 << 1 wraps to -2^31 in NEON's pre-shift.
      {k2p30, k2p30, 0, 536870912, -536870912, 536870912, 536870912},
      // (2^31-1) << 1 wraps to -2: SQDMULH(-2, 2^30) = -1, SRSHL(-1, 1) = 0.
      {kMax, k2p30, 0, 1073741824, 0, 1073741824, 1073741824},
      // -2^31 << 1 wraps to 0.
      {kMin, k2p30, 0, -1073741824, 0, -1073741824, -1073741824},
      // (2^30-1) << 1 fits: NEON equals scalar.
      {k2p30 - 1, k2p30, 0, 536870912, 536870912, 536870912, 536870912},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("x=" + std::to_string(r.x));
    const RequantParams p = Q31(r.m, r.shift);
    EXPECT_EQ(SingleRoundingUpward::requantize(r.x, p), r.scalar_sr) << "scalar SR";
    EXPECT_EQ(SingleRoundingUpwardNeon::requantize(r.x, p), r.neon_sr) << "NEON SR";
    EXPECT_EQ(requantize(RoundingCore::kSingleRoundingUpwardNeon, r.x, p), r.neon_sr);
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(r.x, p), r.scalar_dr) << "scalar DR";
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(r.x, p), r.neon_dr) << "NEON DR (fix-up)";
  }
}

// ---------------------------------------------------------------------------------------------
// §11.6 Multiplier-precision vectors.
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_6_Q15VersusQ31) {
  const double scale = 0.0123456789;
  const QuantizedMultiplier q31 = quantize_multiplier_tflite(scale);
  EXPECT_EQ(q31, (QuantizedMultiplier{1696777188, -6}));
  const QuantizedMultiplier q15 = reduce_multiplier_q31_to_q15(q31);
  EXPECT_EQ(q15, (QuantizedMultiplier{25891, -6}));

  struct Row {
    std::int64_t acc;
    double exact;
    std::int32_t q15_sr, q31_sr;
  };
  // None of these is a tie: Q15's coarser multiplier (25891 * 2^-21 = 0.01234579) moves each
  // value across the .5 boundary.
  const Row rows[] = {{118786, 1466.493814, 1467, 1466},
                      {490979, 6061.469081, 6062, 6061},
                      {625602, 7723.481411, 7724, 7723}};
  for (const Row& r : rows) {
    SCOPED_TRACE("acc=" + std::to_string(r.acc));
    EXPECT_NEAR(static_cast<double>(r.acc) * scale, r.exact, 5e-7) << "exact column";
    const RequantParams p15 = Q15(q15.multiplier, q15.shift);
    EXPECT_EQ(Q15Rounding::requantize_wide(r.acc, p15), r.q15_sr) << "Q15 SR (wide)";
    EXPECT_EQ(Q15Rounding::requantize(static_cast<std::int32_t>(r.acc), p15), r.q15_sr) << "Q15 SR";
    EXPECT_EQ(requantize(RoundingCore::kQ15, static_cast<std::int32_t>(r.acc), p15), r.q15_sr);
    const RequantParams p31 = Q31(q31.multiplier, q31.shift);
    EXPECT_EQ(SingleRoundingUpward::requantize(static_cast<std::int32_t>(r.acc), p31), r.q31_sr)
        << "Q31 SR";
    EXPECT_EQ(SingleRoundingUpward::requantize_wide(r.acc, p31), r.q31_sr) << "Q31 SR (wide)";
  }
  // "TOSA apply_scale_16(118786, 25891, 21) = 1467, identical to TFLite's int64 path."
  EXPECT_EQ(qparity_test::TosaApplyScale16(118786, 25891, 21), 1467);
  EXPECT_EQ(15 - q15.shift, 21);
}

TEST(ReferenceGoldenVectors, Table11_6_Q15Derivation) {
  struct Row {
    double scale;
    std::int32_t q31_m;
    std::int32_t tflite_q15;
    std::int32_t direct_q15;
    int direct_exponent_bump;  // 1 when the direct rounding reached 2^15 and was halved
    double q_times_2p15;
  };
  const Row rows[] = {
      // q * 2^15 = 19625.49999667 rounds directly (HAZ, not a tie) to 19625, but rounding the
      // already-rounded Q31 value again, (M + 2^15) >> 16, lands on 19626: double rounding of the
      // parameter.
      {0.0748653411738368, 1286176768, 19626, 19625, 0, 19625.49999667},
      {0.2234611510930765, 1919516672, 29290, 29289, 0, 29289.49999607},
      // M >= 0x7FFF0000 -> TFLite caps at 0x7FFF; direct rounding reaches 32768 -> 16384, exponent+1.
      {0.031249862618088618, 2147474207, 32767, 16384, 1, 32767.856},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("scale=" + std::to_string(r.scale));
    int e = 0;
    const double q = std::frexp(r.scale, &e);
    EXPECT_NEAR(q * 32768.0, r.q_times_2p15, r.q_times_2p15 == 32767.856 ? 5e-4 : 5e-9);
    const QuantizedMultiplier q31 = quantize_multiplier_tflite(r.scale);
    EXPECT_EQ(q31.multiplier, r.q31_m);
    EXPECT_EQ(q31.shift, e);
    EXPECT_EQ(reduce_multiplier_q31_to_q15(q31), (QuantizedMultiplier{r.tflite_q15, e}));
    EXPECT_EQ(quantize_multiplier_q15_direct(r.scale),
              (QuantizedMultiplier{r.direct_q15, e + r.direct_exponent_bump}));
  }
}

TEST(ReferenceGoldenVectors, Table11_6_FloatVersusDoubleComposition) {
  struct Row {
    float s_in, s_w, s_out;
    double double_scale;
    float float_scale;
    std::int32_t acc;
    double exact;
    std::int32_t tflite_sr, xnnpack_rndnu, xnnpack_f32, tflite_dr;
  };
  const Row rows[] = {
      // exact -14.4999998 (no tie): the Q31-of-double multiplier keeps it above -14.5 -> SR -14.
      // The float scale is larger: exact product with it -14.5000005 -> rndnu -15, F32 (float
      // product -14.500001) -15. DR: SRDHM gives t = -29696 = -14.5 * 2^11, an exact tie that
      // RDBPOT rounds away -> -15 (double rounding).
      {0.00140596379f, 0.00894607045f, 0.0273668021f, 0.00045960251669771687, 0.000459602539f,
       -31549, -14.499999799, -14, -15, -15, -15},
      // exact 12.5000008 (no tie): SR -> 13; rndnu (exact float scale: 12.50000024) -> 13; the
      // float product rounds to 12.5 exactly and RNE picks 12; DR: t = 6400 = 12.5 * 2^9, tie,
      // HAZ -> 13.
      {0.0617987774f, 0.00524291256f, 0.218587115f, 0.0014822721186344189, 0.00148227206f, 8433,
       12.500000776, 13, 13, 12, 13},
      // exact -12.5000007 (no tie): SR -> -13. The float scale is smaller: -12.4999999992 ->
      // rndnu -12; the float product is exactly -12.5 -> RNE -12; DR: t = -25600 = -12.5 * 2^11,
      // tie, HAZ -> -13.
      {0.0154719995f, 0.000355372089f, 0.0122621255f, 0.00044839834617762305, 0.000448398321f,
       -27877, -12.500000696, -13, -12, -12, -13},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("acc=" + std::to_string(r.acc));
    const EffectiveScale d = compose_scale(ScaleComposition::kDouble, r.s_in, r.s_w, r.s_out);
    const EffectiveScale f = compose_scale(ScaleComposition::kFloat, r.s_in, r.s_w, r.s_out);
    EXPECT_EQ(d.scale, r.double_scale) << "double scale";
    EXPECT_EQ(d.post_scale, 1.0f);
    EXPECT_EQ(static_cast<float>(f.scale), r.float_scale) << "float scale";
    EXPECT_EQ(f.scale, static_cast<double>(r.float_scale)) << "float composition is a float";
    EXPECT_NEAR(static_cast<double>(r.acc) * r.double_scale, r.exact, 5e-9) << "exact column";

    // TFLite SR: Q31 of the double scale (single-rounding build), SR-UP.
    const QuantizedMultiplier sr_m = quantize_multiplier_tflite(d.scale, TfliteBuild::kSingleRounding);
    EXPECT_EQ(SingleRoundingUpward::requantize(r.acc, Q31(sr_m.multiplier, sr_m.shift)), r.tflite_sr)
        << "TFLite SR";
    // XNNPACK rndnu: SR-UP with the 24-bit mantissa of the float scale.
    const QuantizedMultiplier nu = quantize_multiplier_float_mantissa(static_cast<float>(f.scale));
    EXPECT_EQ(SingleRoundingUpward::requantize(r.acc, Q31(nu.multiplier, nu.shift)), r.xnnpack_rndnu)
        << "XNNPACK rndnu";
    // XNNPACK F32: float(acc) * float scale, RNE.
    EXPECT_EQ(Float32Rounding::requantize(r.acc, F32(static_cast<float>(f.scale))), r.xnnpack_f32)
        << "XNNPACK F32";
    // TFLite DR: Q31 of the double scale (default build), DR-AZ.
    const QuantizedMultiplier dr_m = quantize_multiplier_tflite(d.scale);
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(r.acc, Q31(dr_m.multiplier, dr_m.shift)),
              r.tflite_dr)
        << "TFLite DR";

    // The same columns through the presets that name these systems.
    EXPECT_EQ(SingleRoundingUpward::requantize(
                  r.acc, derive_requant_params(find_preset("tflite-single"), r.s_in, r.s_w, r.s_out)),
              r.tflite_sr);
    EXPECT_EQ(SingleRoundingUpward::requantize(
                  r.acc, derive_requant_params(find_preset("xnnpack-rndnu"), r.s_in, r.s_w, r.s_out)),
              r.xnnpack_rndnu);
    EXPECT_EQ(Float32Rounding::requantize(
                  r.acc, derive_requant_params(find_preset("xnnpack-fp32"), r.s_in, r.s_w, r.s_out)),
              r.xnnpack_f32);
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(
                  r.acc, derive_requant_params(find_preset("tflite-reference"), r.s_in, r.s_w, r.s_out)),
              r.tflite_dr);
  }
}

// ---------------------------------------------------------------------------------------------
// §11.7 Float-pipeline specials.
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_7_IntToFloatLoss) {
  // acc = 2^24 + 1, scale 2^-25 (M = 2^30, shift = -24): exact 0.500000030 (not a tie) ->
  // DR = SR = 1; F32: float(acc) = 2^24 -> 0.5 -> RNE 0.
  const RequantParams p = Q31(k2p30, -24);
  const RequantParams pf = F32FromQ31(k2p30, -24);
  EXPECT_EQ(pf.scale, 0x1p-25f);
  EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(16777217, p), 1);
  EXPECT_EQ(SingleRoundingUpward::requantize(16777217, p), 1);
  EXPECT_EQ(Float32Rounding::requantize(16777217, pf), 0);
  // acc = -(2^24 + 1): "integer policies -1, F32 0". The nearest-rounding single-rounding cores,
  // DR-AZ and FLOOR give -1 (exact -0.500000030 is not a tie):
  EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(-16777217, p), -1);
  EXPECT_EQ(SingleRoundingUpward::requantize(-16777217, p), -1);
  EXPECT_EQ(SingleRoundingAwayFromZero::requantize(-16777217, p), -1);
  EXPECT_EQ(SingleRoundingToEven::requantize(-16777217, p), -1);
  EXPECT_EQ(FloorRounding::requantize(-16777217, p), -1);
  EXPECT_EQ(Float32Rounding::requantize(-16777217, pf), 0);
  // ... but not every integer policy (imprecision in §11.7's wording, reported): DR-UP's first
  // step turns -8388608.5 into -8388608 (HU), an exact tie -0.5 that SRSHL rounds up to 0; TRUNC
  // truncates -0.50000003 to 0.
  EXPECT_EQ(DoubleRoundingUpward::requantize(-16777217, p), 0);
  EXPECT_EQ(TruncateTowardZero::requantize(-16777217, p), 0);
}

TEST(ReferenceGoldenVectors, Table11_7_FloatProductLandsOnTie) {
  struct Row {
    std::int32_t acc;
    std::int32_t mantissa;  // scale = mantissa * 2^exponent, exactly a float
    int exponent;
    double exact;
    float float_product;
    std::int32_t f32, exact_hu_he;
  };
  const Row rows[] = {
      // The float product rounds -72.500003144 to -72.5, which RNE sends to -72 (even); the exact
      // value is not a tie, so SR-UP (HU) and SR-EVEN (HE) on the same exact scale give -73.
      {-25212, 12350672, -32, -72.500003144, -72.5f, -72, -73},
      // 68.500002618 -> float 68.5 -> RNE 68; exact -> 69.
      {37732, 15594470, -33, 68.500002618, 68.5f, 68, 69},
      // 37.499999232 -> float 37.5 -> RNE 38; exact -> 37.
      {22050, 14608732, -33, 37.499999232, 37.5f, 38, 37},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("acc=" + std::to_string(r.acc));
    const float scale = std::ldexp(static_cast<float>(r.mantissa), r.exponent);
    EXPECT_EQ(static_cast<double>(scale), std::ldexp(static_cast<double>(r.mantissa), r.exponent))
        << "scale is exactly a float";
    EXPECT_NEAR(static_cast<double>(r.acc) * scale, r.exact, 5e-9) << "exact column";
    EXPECT_EQ(static_cast<float>(r.acc) * scale, r.float_product) << "float product";
    EXPECT_EQ(Float32Rounding::requantize(r.acc, F32(scale)), r.f32) << "F32";
    // "same exact 24-bit scale for every policy": the float mantissa as a Q31 multiplier.
    const QuantizedMultiplier m = quantize_multiplier_float_mantissa(scale);
    EXPECT_EQ(SingleRoundingUpward::requantize(r.acc, Q31(m.multiplier, m.shift)), r.exact_hu_he)
        << "exact HU";
    EXPECT_EQ(SingleRoundingToEven::requantize(r.acc, Q31(m.multiplier, m.shift)), r.exact_hu_he)
        << "exact HE";
  }
}

TEST(ReferenceGoldenVectors, Table11_7_ZeroPointPlacement) {
  struct Row {
    std::int32_t acc, zp, f32, f32_zpf, sr_up, dr_az;
  };
  const Row rows[] = {
      {1, 0, 0, 0, 1, 1},   // 0.5: RNE -> 0 both float ways; HU -> 1 (SR, and SRDHM alone in DR)
      {1, 1, 1, 2, 2, 2},   // F32: RNE(0.5) + 1 = 1; F32-ZPF: RNE(1.5) = 2 (even); integer: 1 + 1
      {1, -1, -1, 0, 0, 0},  // F32: 0 - 1; F32-ZPF: RNE(-0.5) = -0 = 0; integer: 1 - 1
      {1, 3, 3, 4, 4, 4},   // F32: 0 + 3; F32-ZPF: RNE(3.5) = 4 (even); integer: 1 + 3
      {3, 1, 3, 2, 3, 3},   // 1.5: F32: RNE(1.5) = 2, + 1 = 3; F32-ZPF: RNE(2.5) = 2; HU 2 + 1
  };
  const RequantParams q = Q31(k2p30, 0);  // scale 0.5 exactly
  RequantParams f = F32(0.5f);
  for (const Row& r : rows) {
    SCOPED_TRACE("acc=" + std::to_string(r.acc) + " zp=" + std::to_string(r.zp));
    const OutputParams o = full_range_output(OutputType::kInt32, r.zp);
    EXPECT_EQ(requantize_to_output<Float32Rounding>(r.acc, f, o), r.f32) << "F32";
    EXPECT_EQ(requantize_to_output<Float32ZeroPointInside>(r.acc, f, o), r.f32_zpf) << "F32-ZPF";
    EXPECT_EQ(Float32ZeroPointInside::requantize_with_zero_point(r.acc, f, r.zp), r.f32_zpf);
    EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(r.acc, q, o), r.sr_up) << "SR-UP + zp";
    EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(r.acc, q, o), r.dr_az) << "DR-AZ + zp";
  }
}

// ---------------------------------------------------------------------------------------------
// §11.8 QuantizeMultiplier edge cases, both TFLite builds.
// ---------------------------------------------------------------------------------------------
TEST(ReferenceGoldenVectors, Table11_8_QuantizeMultiplierEdgeCases) {
  struct Row {
    double m;
    QuantizedMultiplier dr_build, sr_build;
  };
  const Row rows[] = {
      {1.0, {k2p30, 1}, {k2p30, 1}},
      {0.5, {k2p30, 0}, {k2p30, 0}},
      // q * 2^31 = 2147483647.78 rounds (HAZ) to 2^31: the mantissa is halved and the exponent
      // bumped.
      {0.99999999989999999, {k2p30, 1}, {k2p30, 1}},
      {1.5, {1610612736, 1}, {1610612736, 1}},
      {0.75, {1610612736, 0}, {1610612736, 0}},
      {0x1p-31, {k2p30, -30}, {k2p30, -30}},
      // 4e-10 = 0.8589934592 * 2^-31 -> round(1844674407.37) = 1844674407 (shift -31, lowest kept)
      {4e-10, {1844674407, -31}, {1844674407, -31}},
      // exponent -39 < -31: flushed to (0, 0).
      {1e-12, {0, 0}, {0, 0}},
      // 3e9 = 0.6984919309616089 * 2^32: DR build keeps shift 32; SR build saturates to (2^31-1, 30).
      {3e9, {1500000000, 32}, {kM31, 30}},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE("m=" + std::to_string(r.m));
    EXPECT_EQ(quantize_multiplier_tflite(r.m, TfliteBuild::kDoubleRounding), r.dr_build) << "DR build";
    EXPECT_EQ(quantize_multiplier_tflite(r.m, TfliteBuild::kSingleRounding), r.sr_build) << "SR build";
  }
  // The default argument is the DR build.
  EXPECT_EQ(quantize_multiplier_tflite(3e9), (QuantizedMultiplier{1500000000, 32}));
}

}  // namespace
