// Single-rounding policies: the exact product acc * multiplier divided by 2^(31 - shift) and
// rounded once, with a selectable tie rule (docs/semantics.md §1, §2.3, §3.2, §4, §6.1, §7, §14).
#pragma once

#include <cstdint>

#include "qparity/fixed_point.h"
#include "qparity/requant_params.h"

namespace qparity {

namespace detail {

template <TieRule Rule>
struct SingleRoundingTraits;
template <>
struct SingleRoundingTraits<TieRule::kHalfUp> {
  static constexpr RoundingCore kCore = RoundingCore::kSingleRoundingUpward;
  static constexpr const char* kFormula = "floor((acc*M + 2^(s-1)) / 2^s)";
  static constexpr const char* kTieRuleText = "half up (toward +infinity)";
};
template <>
struct SingleRoundingTraits<TieRule::kHalfAwayFromZero> {
  static constexpr RoundingCore kCore = RoundingCore::kSingleRoundingAwayFromZero;
  static constexpr const char* kFormula = "HAZ(acc*M / 2^s)";
  static constexpr const char* kTieRuleText = "half away from zero";
};
template <>
struct SingleRoundingTraits<TieRule::kHalfToEven> {
  static constexpr RoundingCore kCore = RoundingCore::kSingleRoundingToEven;
  static constexpr const char* kFormula = "HE(acc*M / 2^s)";
  static constexpr const char* kTieRuleText = "half to even";
};
template <>
struct SingleRoundingTraits<TieRule::kTowardZero> {
  static constexpr RoundingCore kCore = RoundingCore::kTruncate;
  static constexpr const char* kFormula = "TZ(acc*M / 2^s)";
  static constexpr const char* kTieRuleText = "no rounding: toward zero";
};
template <>
struct SingleRoundingTraits<TieRule::kFloor> {
  static constexpr RoundingCore kCore = RoundingCore::kFloor;
  static constexpr const char* kFormula = "floor(acc*M / 2^s)";
  static constexpr const char* kTieRuleText = "no rounding: toward -infinity";
};

}  // namespace detail

/// Single rounding of the exact product, one policy per tie rule.
///
/// Formula, with s = 31 - shift in [1, 62]:
///   y = round_Rule(acc * multiplier / 2^s)      (exact 64-bit product; |product| < 2^62)
/// then narrowed to int32 MODULO 2^32 when it does not fit (only possible for shift > 0 and
/// |acc| large: acc = 4, M = 2^30, shift = 30 gives 2^31 -> INT32_MIN). That is what TFLite's
/// release build does (its DCHECK is compiled out) and what CMSIS-NN's int32 narrowing does.
/// Wide (int64) accumulators use an exact 128-bit product and the same narrowing.
/// Parameters: multiplier in [0, 2^31-1], shift in [-31, 30].
///
///   Rule                  ID        +2.5  -2.5  -1.5  Reproduces
///   kHalfUp               SR-UP      3    -2    -1    TFLite TFLITE_SINGLE_ROUNDING=1 (common.cc),
///                                                     ruy reference + ARM kernels since 2021-02
///                                                     (apply_multiplier.cc), CMSIS-NN
///                                                     CMSIS_NN_USE_SINGLE_ROUNDING, TOSA
///                                                     SINGLE_ROUND (apply_scale_32), XNNPACK rndnu
///                                                     (multiplier = float mantissa), FBGEMM
///                                                     fixed-point Requantize (QuantUtils.h)
///   kHalfAwayFromZero     SR-AZ      3    -3    -2    XNNPACK rndna ("precise"), removed 2024-10
///   kHalfToEven           SR-EVEN    2    -2    -2    OpenVX VX_ROUND_POLICY_TO_NEAREST_EVEN,
///                                                     TIM-VX RTNE default (hardware UNVERIFIED)
///   kTowardZero           TRUNC      2    -2    -1    OpenVX VX_ROUND_POLICY_TO_ZERO, Ethos-U
///                                                     RoundingMode.ToZero (UNVERIFIED)
///   kFloor                FLOOR      2    -3    -2    plain arithmetic shift, no rounding term
template <TieRule Rule>
struct SingleRounding {
  static constexpr RoundingCore kCore = detail::SingleRoundingTraits<Rule>::kCore;
  static constexpr const char* kFormula = detail::SingleRoundingTraits<Rule>::kFormula;
  static constexpr const char* kTieRuleText = detail::SingleRoundingTraits<Rule>::kTieRuleText;
  static constexpr TieRule kTieRule = Rule;
  static constexpr bool kZeroPointInside = false;
  static constexpr bool kAcceptsWideInput = true;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) { detail::validate_q31_params(p); }
  static bool is_valid(const RequantParams& p) noexcept { return detail::q31_params_valid(p); }

  static constexpr std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    const std::int64_t product = static_cast<std::int64_t>(acc) * p.multiplier;
    return wrap_to_int32(round_shift_right(product, 31 - p.shift, Rule));
  }

  static constexpr std::int32_t requantize_wide(std::int64_t acc, const RequantParams& p) noexcept {
    return wrap_to_int32(round_shift_right(mul_i64_i32(acc, p.multiplier), 31 - p.shift, Rule));
  }
};

using SingleRoundingUpward = SingleRounding<TieRule::kHalfUp>;
using SingleRoundingAwayFromZero = SingleRounding<TieRule::kHalfAwayFromZero>;
using SingleRoundingToEven = SingleRounding<TieRule::kHalfToEven>;
using TruncateTowardZero = SingleRounding<TieRule::kTowardZero>;
using FloorRounding = SingleRounding<TieRule::kFloor>;

/// SR-UP-NEON: single rounding as Arm NEON/MVE code computes it, with SQDMULH + SRSHL and the
/// left shift applied to the accumulator *before* the multiply, in int32 (wrapping).
///
/// Formula (TFLite SR-build `MultiplyByQuantizedMultiplier4Rows`, ruy kernel_arm64.cc since
/// 2021-02, CMSIS-NN MVE `arm_requantize_mve` single-rounding branch; docs/semantics.md §3.2,
/// §11.5):
///   right = min(-1, shift); left = shift - right     (left = shift + 1 when shift >= 0, else 0)
///   x' = acc * 2^left (int32, wrapping);  t = SQDMULH(x', M) = floor(x' * M / 2^31);
///   y  = floor((t + 2^(-right-1)) / 2^(-right))      (SRSHL, unbounded precision, HU)
/// Equal to SR-UP whenever acc * 2^left does not wrap; because left is shift + 1 it wraps one bit
/// earlier than the 64-bit scalar form: acc = 2^30, M = 2^30, shift = 0 gives -2^29 (SR-UP 2^29).
/// Ties: half up (+2.5 -> 3, -2.5 -> -2). Always fits in int32.
/// Parameters: multiplier in [0, 2^31-1], shift in [-31, 30].
struct SingleRoundingUpwardNeon {
  static constexpr RoundingCore kCore = RoundingCore::kSingleRoundingUpwardNeon;
  static constexpr const char* kFormula = "SRSHL(SQDMULH(acc*2^(shift-r), M), -r), r = min(-1, shift)";
  static constexpr const char* kTieRuleText = "half up; pre-shift by shift+1 wraps in int32";
  static constexpr bool kZeroPointInside = false;
  static constexpr bool kAcceptsWideInput = false;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) { detail::validate_q31_params(p); }
  static bool is_valid(const RequantParams& p) noexcept { return detail::q31_params_valid(p); }

  static constexpr std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    const int right = p.shift < -1 ? p.shift : -1;
    const int left = p.shift - right;
    const std::int32_t t =
        saturating_doubling_high_mul(shift_left_wrapping(acc, left), p.multiplier);
    return rounding_shift_right_half_up(t, -right);
  }
};

}  // namespace qparity
