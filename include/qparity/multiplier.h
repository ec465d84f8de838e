// Multiplier derivation: how each system turns a real (effective) scale into integer parameters.
//
// The same real scale yields different integer parameters in different systems, and that alone
// changes output bits (docs/semantics.md §3.1, §5.3, §6.1, §10, §11.6, §11.8). Every function here
// is the normative re-statement of one system's derivation.
//
// Representation (TFLite convention, docs/semantics.md §0): a `QuantizedMultiplier{m, shift}` with
// `fraction_bits` = 31 stands for the real value m * 2^(shift - 31); with `fraction_bits` = 15
// (Q15) for m * 2^(shift - 15). shift > 0 means a left shift.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "qparity/error.h"

namespace qparity {

struct QuantizedMultiplier {
  std::int32_t multiplier = 0;  ///< Q31: [2^30, 2^31-1] or 0. Q15: [2^14, 2^15-1] or 0.
  std::int32_t shift = 0;       ///< TFLite convention: > 0 left, < 0 right.

  friend constexpr bool operator==(QuantizedMultiplier a, QuantizedMultiplier b) {
    return a.multiplier == b.multiplier && a.shift == b.shift;
  }
  friend constexpr bool operator!=(QuantizedMultiplier a, QuantizedMultiplier b) { return !(a == b); }
};

/// Which build of TFLite's `QuantizeMultiplier` to reproduce.
enum class TfliteBuild : std::uint8_t {
  kDoubleRounding,  ///< default build (TFLITE_SINGLE_ROUNDING undefined = 0)
  kSingleRounding,  ///< TFLITE_SINGLE_ROUNDING=1: exponents > 30 saturate to (2^31-1, 30)
};

/// TFLite `QuantizeMultiplier(double, int32_t*, int*)` (tflite/kernels/internal/quantization_util.cc,
/// float path; docs/semantics.md §3.1, vectors §11.8):
///   (q, e) = frexp(m), q in [0.5, 1);  M = round_half_away(q * 2^31);
///   if M == 2^31 { M = 2^30; e += 1 }           (mantissa rounded up to 1.0)
///   if e < -31  { M = 0; e = 0 }                (TFLite: "flush denormals to zero")
///   single-rounding build only: if e > 30 { M = 2^31 - 1; e = 30 }
/// Result: {M, shift = e}; real multiplier = M * 2^(e - 31).
/// The double-rounding build returns exponents above 30 unchanged (3e9 -> (1500000000, 32)); the
/// rounding policies reject such shifts when they are used.
/// Throws InvalidArgument unless `real_multiplier` is finite and > 0.
QPARITY_MAY_THROW
inline QuantizedMultiplier quantize_multiplier_tflite(double real_multiplier,
                                                      TfliteBuild build = TfliteBuild::kDoubleRounding) {
  detail::require_positive_finite("real_multiplier", real_multiplier);
  int exponent = 0;
  const double q = std::frexp(real_multiplier, &exponent);
  std::int64_t q_fixed = static_cast<std::int64_t>(std::round(q * 2147483648.0));  // HAZ, exact
  if (q_fixed == (std::int64_t{1} << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) {
    exponent = 0;
    q_fixed = 0;
  }
  if (build == TfliteBuild::kSingleRounding && exponent > 30) {
    exponent = 30;
    q_fixed = (std::int64_t{1} << 31) - 1;
  }
  return QuantizedMultiplier{static_cast<std::int32_t>(q_fixed), exponent};
}

/// XNNPACK `rndnu` parameters (src/microparams-init.c, requantization.h; docs/semantics.md §6.1):
/// the multiplier is the exact float32 scale, i.e. its 24-bit mantissa with the hidden bit,
/// M24 in [2^23, 2^24), and right shift s = 150 - biased_exponent. Returned in Q31 form as
/// {M24 << 7, shift = biased_exponent - 126}, which denotes exactly the same real value, so the
/// single-rounding policies reproduce `(acc * M24 + 2^(s-1)) >> s` bit for bit.
/// Allowed scales: [2^-32, 256) (XNNPACK's own limits; its operators reject >= 256).
QPARITY_MAY_THROW
inline QuantizedMultiplier quantize_multiplier_float_mantissa(float scale) {
  detail::require_positive_finite("scale", scale);
  if (!(scale >= 0x1p-32f && scale < 256.0f)) {
    detail::throw_out_of_range("scale", scale, "[2^-32, 256) (XNNPACK rndnu range)");
  }
  std::uint32_t bits = 0;
  std::memcpy(&bits, &scale, sizeof bits);
  const std::int32_t biased_exponent = static_cast<std::int32_t>(bits >> 23);
  const std::int32_t mantissa = static_cast<std::int32_t>((bits & 0x7FFFFFu) | 0x800000u);
  return QuantizedMultiplier{mantissa << 7, biased_exponent - 126};
}

/// TFLite's reduction of a Q31 multiplier to Q15 for its int64-input `MultiplyByQuantizedMultiplier`
/// (int16x8 ops, both builds; also CMSIS-NN `REDUCE_MULTIPLIER`; docs/semantics.md §3.3):
///   rm = M < 0x7FFF0000 ? (M + 2^15) >> 16 : 0x7FFF        (half-up, capped)
/// The shift is unchanged: real = rm * 2^(shift - 15).
QPARITY_MAY_THROW
inline QuantizedMultiplier reduce_multiplier_q31_to_q15(QuantizedMultiplier q31) {
  detail::require_in_range("multiplier", q31.multiplier, 0, 2147483647, "Q31 mantissa");
  const std::int32_t m = q31.multiplier;
  const std::int32_t rm = m < 0x7FFF0000 ? (m + (1 << 15)) >> 16 : 0x7FFF;
  return QuantizedMultiplier{rm, q31.shift};
}

/// MLIR-TOSA 16-bit `computeMultiplierAndShift` (mlir/lib/Dialect/Tosa/Utils/QuantUtils.cpp;
/// docs/semantics.md §5.3, vectors §11.6): rounds the double mantissa directly to Q15,
///   (q, e) = frexp(m); rm = round_half_away(q * 2^15); if rm == 2^15 { rm = 2^14; e += 1 }
/// Result {rm, shift = e}: real = rm * 2^(e - 15); TOSA's own shift attribute is 15 - e.
/// This can differ by 1 from reduce_multiplier_q31_to_q15(quantize_multiplier_tflite(m)), which
/// rounds twice. Throws unless m is finite and > 0.
QPARITY_MAY_THROW
inline QuantizedMultiplier quantize_multiplier_q15_direct(double real_multiplier) {
  detail::require_positive_finite("real_multiplier", real_multiplier);
  int exponent = 0;
  const double q = std::frexp(real_multiplier, &exponent);
  std::int32_t rm = static_cast<std::int32_t>(std::round(q * 32768.0));
  if (rm == (1 << 15)) {
    rm = 1 << 14;
    ++exponent;
  }
  return QuantizedMultiplier{rm, exponent};
}

/// FBGEMM `ChooseRequantizationMultiplier` (src/QuantUtils.cc; docs/semantics.md §10): normalise
/// the real multiplier into [0.5, 1] by doubling/halving (tracking a right shift starting at 31),
/// q = nearbyint(real * 2^31) (round half to EVEN, in double), and if q == 2^31 halve it.
/// Returned in TFLite convention: shift = 31 - right_shift.
QPARITY_MAY_THROW
inline QuantizedMultiplier quantize_multiplier_fbgemm(double real_multiplier) {
  detail::require_positive_finite("real_multiplier", real_multiplier);
  int right_shift = 31;
  double real = real_multiplier;
  while (real < 0.5) {
    real *= 2.0;
    ++right_shift;
  }
  while (real > 1.0) {
    real /= 2.0;
    --right_shift;
  }
  std::int64_t q = static_cast<std::int64_t>(std::nearbyint(real * 2147483648.0));
  if (q == (std::int64_t{1} << 31)) {
    q /= 2;
    --right_shift;
  }
  return QuantizedMultiplier{static_cast<std::int32_t>(q), 31 - right_shift};
}

/// The real value a QuantizedMultiplier stands for (for reports; exact in double).
inline double multiplier_to_double(QuantizedMultiplier m, int fraction_bits = 31) {
  return std::ldexp(static_cast<double>(m.multiplier), m.shift - fraction_bits);
}

}  // namespace qparity
