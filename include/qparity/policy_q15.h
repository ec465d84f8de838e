// Q15: single rounding with a 16-bit multiplier on a wide (48-bit) accumulator
// (docs/semantics.md §3.3, §5.1 apply_scale_16, §7 arm_nn_requantize_s64, vectors §11.6).
#pragma once

#include <cstdint>

#include "qparity/fixed_point.h"
#include "qparity/requant_params.h"

namespace qparity {

/// Q15: y = floor((acc * m15 + 2^(s-1)) / 2^s) with s = 15 - shift, then narrowed to int32
/// modulo 2^32.
///
/// The multiplier m15 in [0, 32767] is usually TFLite's reduction of a Q31 multiplier
/// (reduce_multiplier_q31_to_q15) or MLIR-TOSA's direct Q15 rounding
/// (quantize_multiplier_q15_direct). Ties: half up (+2.5 -> 3, -2.5 -> -2).
/// Parameters: multiplier in [0, 32767]; shift in [-47, 13] (TOSA apply_scale_16's shift
/// 15 - shift in [2, 62]; TFLite itself uses [-31, 7]).
/// Accumulator domain: TFLite and TOSA require acc in [-2^47, 2^47) (then |acc * m15| < 2^62);
/// outside it we still compute the exact product (128-bit), so there is no undefined behaviour.
/// Results outside int32 (TOSA: REQUIRE violation; TFLite: DCHECK) wrap like TFLite's narrowing.
/// Known variant not modelled here: CMSIS-NN `arm_nn_requantize_s64` narrows to int32 one shift
/// before the end; it differs only when that intermediate exceeds int32.
///
/// Reproduces: TFLite `MultiplyByQuantizedMultiplier(int64_t, ...)` in both builds (int16x8
/// conv/fc; tflite/kernels/internal/common.cc), CMSIS-NN `arm_nn_requantize_s64`, TOSA
/// `apply_scale_16` (pseudocode/library/scale_helpers.tosac).
struct Q15Rounding {
  static constexpr RoundingCore kCore = RoundingCore::kQ15;
  static constexpr const char* kFormula = "floor((acc*m15 + 2^(s'-1)) / 2^s'), s' = 15-shift";
  static constexpr const char* kTieRuleText = "half up, 16-bit multiplier";
  static constexpr bool kZeroPointInside = false;
  static constexpr bool kAcceptsWideInput = true;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) { detail::validate_q15_params(p); }
  static bool is_valid(const RequantParams& p) noexcept { return detail::q15_params_valid(p); }

  static constexpr std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    // |acc| <= 2^31 and m15 < 2^15: the product fits comfortably in int64.
    const std::int64_t product = static_cast<std::int64_t>(acc) * p.multiplier;
    return wrap_to_int32(round_shift_right(product, 15 - p.shift, TieRule::kHalfUp));
  }

  static constexpr std::int32_t requantize_wide(std::int64_t acc, const RequantParams& p) noexcept {
    return wrap_to_int32(
        round_shift_right(mul_i64_i32(acc, p.multiplier), 15 - p.shift, TieRule::kHalfUp));
  }
};

}  // namespace qparity
