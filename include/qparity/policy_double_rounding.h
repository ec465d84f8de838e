// Double-rounding policies: a rounding Q31 high multiply, then a rounding right shift.
// (docs/semantics.md §1, §2.1-2.3, §3.2, §4, vectors §11.1-11.5)
#pragma once

#include <cstdint>

#include "qparity/fixed_point.h"
#include "qparity/requant_params.h"

namespace qparity {

namespace detail {

/// The first stage both double-rounding policies share: t = SRDHM(acc * 2^L mod 2^32, M),
/// L = max(shift, 0). Ties toward +infinity.
constexpr std::int32_t double_rounding_first_stage(std::int32_t acc,
                                                   const RequantParams& p) noexcept {
  const int left = p.shift > 0 ? p.shift : 0;
  return saturating_rounding_doubling_high_mul(shift_left_wrapping(acc, left), p.multiplier);
}

/// The second stage's right shift R = max(-shift, 0).
constexpr int right_shift(const RequantParams& p) noexcept { return p.shift > 0 ? 0 : -p.shift; }

}  // namespace detail

/// DR-AZ: TFLite's default `MultiplyByQuantizedMultiplier` (TFLITE_SINGLE_ROUNDING = 0).
///
/// Formula, with L = max(shift, 0), R = max(-shift, 0):
///   x' = acc * 2^L                 in int32, WRAPPING (TFLite marks it no-sanitize; e.g. acc = 3,
///                                  shift = 30 wraps to -2^30, §11.3)
///   t  = SRDHM(x', multiplier)     = floor((x' * M + 2^30) / 2^31): ties toward +inf (HU);
///                                  saturates only INT32_MIN * INT32_MIN (unreachable, M >= 0)
///   y  = RDBPOT(t, R)              = t / 2^R rounded half AWAY from zero (HAZ)
/// Ties: the first step sends +0.5 -> 1 and -0.5 -> 0; the second sends +2.5 -> 3 and -2.5 -> -3.
/// Because the first step already rounded, y is not the nearest integer to acc * scale: scale 0.3,
/// acc = 1 gives 1 (§11.2). The result always fits in int32.
/// Parameters: multiplier in [0, 2^31-1], shift in [-31, 30].
///
/// Reproduces: TFLite reference and scalar kernels and TFLM (tflite/kernels/internal/common.cc),
/// gemmlowp `OutputStageScaleInt32ByFixedPointAndExponent` (public/output_stages.h), CMSIS-NN
/// `arm_nn_requantize` default build (Include/arm_nnsupportfunctions.h), gemmlowp NEON
/// (vqrdmulh + sign fix-up + vrshl), and TOSA RESCALE DOUBLE_ROUND (apply_scale_32 with
/// double_round) on its REQUIRE domain, where TFLite's pre-shift never wraps (§5.1).
struct DoubleRoundingAwayFromZero {
  static constexpr RoundingCore kCore = RoundingCore::kDoubleRoundingAwayFromZero;
  static constexpr const char* kFormula = "RDBPOT(SRDHM(acc*2^L, M), R)";
  static constexpr const char* kTieRuleText =
      "stage 1 half up, stage 2 half away from zero (a tie can be made by stage 1)";
  static constexpr bool kZeroPointInside = false;
  static constexpr bool kAcceptsWideInput = false;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) { detail::validate_q31_params(p); }
  static bool is_valid(const RequantParams& p) noexcept { return detail::q31_params_valid(p); }

  static constexpr std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    return rounding_divide_by_pot(detail::double_rounding_first_stage(acc, p),
                                  detail::right_shift(p));
  }
};

/// DR-UP: the Arm idiom SQRDMULH then SRSHL *without* gemmlowp's sign fix-up.
///
/// Formula, with L, R as for DR-AZ:
///   x' = acc * 2^L (int32, wrapping);  t = SRDHM(x', M) (HU);
///   y  = floor((t + 2^(R-1)) / 2^R) in unbounded precision (SRSHL; no overflow at INT32_MAX)
/// Ties: both steps go toward +infinity: -2.5 -> -2 (DR-AZ gives -3), +2.5 -> 3.
/// Differs from DR-AZ exactly when t / 2^R is a negative tie (e.g. acc = -10, M = 2^30,
/// shift = -1: DR-AZ -3, DR-UP -2). The result always fits in int32.
/// Parameters: multiplier in [0, 2^31-1], shift in [-31, 30].
///
/// Reproduces: ruy's x86 AVX / AVX2-FMA / AVX-512 kernels (ruy/kernel_avx2_fma.cc etc., whose
/// overflow branch yields the unbounded-precision result), TFLite NEON per-channel `Quantize` and
/// `MultiplyByQuantizedMultiplier4Rows` in the double-rounding build, TFLite 3x3 depthwise NEON
/// kernels (`DepthwiseConvOutputRounding::kUpward`), ruy's reference July 2020 - Feb 2021.
struct DoubleRoundingUpward {
  static constexpr RoundingCore kCore = RoundingCore::kDoubleRoundingUpward;
  static constexpr const char* kFormula = "SRSHL(SQRDMULH(acc*2^L, M), R)";
  static constexpr const char* kTieRuleText = "both stages half up";
  static constexpr bool kZeroPointInside = false;
  static constexpr bool kAcceptsWideInput = false;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) { detail::validate_q31_params(p); }
  static bool is_valid(const RequantParams& p) noexcept { return detail::q31_params_valid(p); }

  static constexpr std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    return rounding_shift_right_half_up(detail::double_rounding_first_stage(acc, p),
                                        detail::right_shift(p));
  }
};

}  // namespace qparity
