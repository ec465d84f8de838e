// Shared pieces of the op references in include/qparity/reference/ (QUANTIZE, DEQUANTIZE, pooling,
// MEAN, SOFTMAX, RELU / RELU6): quantization records, element-type ranges, TFLite's
// MultiplyByQuantizedMultiplier in both builds, and the NPU single-rounding hypothesis
// (docs/semantics.md §3.1, §3.2, §14.4, §21).
//
// Everything here is a restatement in qparity's own words and code of what the cited systems
// compute; no other project's code is copied. Standard C++17, header-only, depends only on
// include/qparity.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "qparity/error.h"
#include "qparity/fixed_point.h"
#include "qparity/multiplier.h"
#include "qparity/policies.h"
#include "qparity/presets.h"
#include "qparity/requant_params.h"
#include "qparity/scale_composition.h"

namespace qparity {
namespace reference {

/// Affine quantization of one tensor: real = scale * (q - zero_point).
struct TensorQuant {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
};

/// The 8-bit element types the op references accept.
template <class T>
inline constexpr bool kIsQuant8 = std::is_same<T, std::int8_t>::value || std::is_same<T, std::uint8_t>::value;

template <class T>
constexpr std::int32_t type_min() {
  return static_cast<std::int32_t>(std::numeric_limits<T>::min());
}
template <class T>
constexpr std::int32_t type_max() {
  return static_cast<std::int32_t>(std::numeric_limits<T>::max());
}

/// Clamps v to T's range and converts.
template <class T>
constexpr T saturate_to(std::int64_t v) {
  return static_cast<T>(v < type_min<T>() ? type_min<T>() : (v > type_max<T>() ? type_max<T>() : v));
}

namespace detail {

template <class T>
QPARITY_MAY_THROW
void require_zero_point(const char* name, std::int32_t zp) {
  qparity::detail::require_in_range(name, zp, type_min<T>(), type_max<T>(),
                                    std::is_same<T, std::int8_t>::value ? "int8" : "uint8");
}

QPARITY_MAY_THROW
inline void require_scale(const char* name, float s) {
  qparity::detail::require_positive_finite(name, static_cast<double>(s));
}

}  // namespace detail

/// TFLite `MultiplyByQuantizedMultiplier(int32 x, M, shift)` (tflite/kernels/internal/common.cc,
/// docs/semantics.md §3.2): DR-AZ in the default build (TFLITE_SINGLE_ROUNDING undefined), SR-UP in
/// the TFLITE_SINGLE_ROUNDING=1 build. Parameters as QuantizeMultiplier returns them; shift must be
/// in [-31, 30] (both builds' cores reject anything else; 2^30 * 2^1 is the identity).
inline std::int32_t tflite_multiply_by_quantized_multiplier(std::int32_t x, QuantizedMultiplier m,
                                                            TfliteBuild build) {
  RequantParams p;
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  return build == TfliteBuild::kDoubleRounding ? DoubleRoundingAwayFromZero::requantize(x, p)
                                               : SingleRoundingUpward::requantize(x, p);
}

/// QuantizeMultiplier that also accepts 0 (TFLite maps a zero real multiplier to (0, 0)) and checks
/// that the result is usable by MultiplyByQuantizedMultiplier (shift in [-31, 30]).
QPARITY_MAY_THROW
inline QuantizedMultiplier tflite_quantize_multiplier_checked(double real, TfliteBuild build) {
  if (real == 0.0) return QuantizedMultiplier{0, 0};
  const QuantizedMultiplier m = quantize_multiplier_tflite(real, build);
  qparity::detail::require_in_range("shift (from the real multiplier)", m.shift, kQ31ShiftMin,
                                    kQ31ShiftMax, "MultiplyByQuantizedMultiplier's domain");
  return m;
}

/// The NPU single-rounding hypothesis of docs/semantics.md §14.4, applied to an op's
/// requantization: one rounding of the exact value with `tie`, the multiplier derived from the
/// double effective scale at `precision` (Q31 as TFLite's QuantizeMultiplier, Q15 rounded directly
/// from the scale, or the float32 mantissa). **UNVERIFIED**: no NPU has been measured for any op
/// beyond convolution; it is a family to test devices against, not a description of one.
struct NpuHypothesis {
  TieRule tie = TieRule::kHalfToEven;
  NpuMultiplierPrecision precision = NpuMultiplierPrecision::kQ15;
};

/// Core and parameters of `h` for the effective scale `eff` (> 0, finite).
struct NpuRequant {
  RoundingCore core = RoundingCore::kSingleRoundingToEven;
  RequantParams params;
};

QPARITY_MAY_THROW
inline NpuRequant npu_requant(const NpuHypothesis& h, double eff) {
  const Preset preset = qparity::detail::make_npu_preset(h.tie, h.precision, AccumulatorSpec{});
  NpuRequant r;
  r.core = preset.core;
  EffectiveScale e;
  e.scale = eff;
  r.params = derive_requant_params(preset.core, preset.derivation, e);
  return r;
}

/// One rounding of acc * eff as `r` prescribes (the value before the output zero point).
QPARITY_MAY_THROW
inline std::int32_t npu_apply(const NpuRequant& r, std::int32_t acc) {
  return requantize(r.core, acc, r.params);
}

}  // namespace reference
}  // namespace qparity
