// The output stage after the rounding core: output zero point, activation clamp and the
// saturating cast to the output type (docs/semantics.md §2.4, §3.5, §6.1, §6.4, §9, §19.4, §19.7).
//
// Integer systems (TFLite, CMSIS-NN, TOSA, gemmlowp) add the zero point to the int32 result, clamp
// to [qmin, qmax] and cast. XNNPACK/ORT/FBGEMM clamp in float to [qmin - zp, qmax - zp], round,
// then add zp: because RNE is monotonic and the bounds are integers this equals rounding first and
// clamping after, which is how qparity evaluates it. oneDNN adds zp in float before rounding
// (F32-ZPF); only the clamp is left for this stage.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "qparity/error.h"
#include "qparity/fixed_point.h"
#include "qparity/policy_float.h"
#include "qparity/requant_params.h"

namespace qparity {

enum class OutputType : std::uint8_t { kInt8, kUint8, kInt16, kInt32 };

inline const char* to_string(OutputType t) {
  switch (t) {
    case OutputType::kInt8: return "int8";
    case OutputType::kUint8: return "uint8";
    case OutputType::kInt16: return "int16";
    case OutputType::kInt32: return "int32";
  }
  return "?";
}

constexpr std::int32_t output_type_min(OutputType t) {
  return t == OutputType::kInt8 ? -128
         : t == OutputType::kUint8 ? 0
         : t == OutputType::kInt16 ? -32768
                                   : kInt32Min;
}
constexpr std::int32_t output_type_max(OutputType t) {
  return t == OutputType::kInt8 ? 127
         : t == OutputType::kUint8 ? 255
         : t == OutputType::kInt16 ? 32767
                                   : kInt32Max;
}

/// Zero point and clamp of the output tensor. Defaults give the raw int32 result.
struct OutputParams {
  std::int32_t zero_point = 0;
  std::int32_t qmin = kInt32Min;  ///< inclusive, already including the zero point
  std::int32_t qmax = kInt32Max;  ///< inclusive
};

/// The full range of `type` with zero point `zp` (no activation).
constexpr OutputParams full_range_output(OutputType type, std::int32_t zp = 0) {
  return OutputParams{zp, output_type_min(type), output_type_max(type)};
}

/// Checks zero_point, qmin and qmax against `type`: each in the type's range, qmin <= qmax.
QPARITY_MAY_THROW
inline void validate(const OutputParams& o, OutputType type) {
  const std::int64_t lo = output_type_min(type), hi = output_type_max(type);
  detail::require_in_range("zero_point", o.zero_point, lo, hi, to_string(type));
  detail::require_in_range("qmin", o.qmin, lo, hi, to_string(type));
  detail::require_in_range("qmax", o.qmax, o.qmin, hi, "qmin..type max");
}

/// acc -> requantized value with zero point, clamped to [qmin, qmax]. The zero point is added in
/// exact arithmetic (an int32 add in TFLite would only differ where it overflows, which is
/// undefined behaviour there).
template <class Policy>
std::int32_t requantize_to_output(std::int32_t acc, const RequantParams& p, const OutputParams& o) {
  std::int64_t v;
  if constexpr (Policy::kZeroPointInside) {
    v = Policy::requantize_with_zero_point(acc, p, o.zero_point);
  } else {
    v = static_cast<std::int64_t>(Policy::requantize(acc, p)) + o.zero_point;
  }
  return static_cast<std::int32_t>(clamp_i64(v, o.qmin, o.qmax));
}

/// Fused activations of TFLite's vocabulary.
enum class Activation : std::uint8_t { kNone, kRelu, kRelu6, kReluN1To1 };

/// How a system turns a float activation bound into a quantized clamp limit.
enum class ClampDerivation : std::uint8_t {
  /// TFLite CalculateActivationRangeQuantized (kernel_util.cc): zp + round_half_away(f / scale)
  /// (float division; zp added after rounding), intersected with the type range.
  kTflite,
  /// XNNPACK xnn_qs8_quantize (subgraph/convolution-2d.c): lrintf(clamp(f / scale + zp)),
  /// i.e. zp added before rounding half to even.
  kXnnpack,
  /// oneDNN post-op order (eltwise in f32 before the dst scale): RNE(f * (1.f / scale) + zp).
  kOnednn,
};

inline const char* to_string(ClampDerivation d) {
  switch (d) {
    case ClampDerivation::kTflite: return "tflite";
    case ClampDerivation::kXnnpack: return "xnnpack";
    case ClampDerivation::kOnednn: return "onednn";
  }
  return "?";
}

namespace detail {

QPARITY_MAY_THROW
inline std::int64_t quantize_bound(ClampDerivation d, float f, float scale, std::int32_t zp) {
  switch (d) {
    case ClampDerivation::kTflite: {
      const float q = std::round(f / scale);  // std::round: half away from zero
      if (!(std::fabs(q) < 4e18f)) return q > 0 ? INT64_MAX / 4 : INT64_MIN / 4;
      return static_cast<std::int64_t>(q) + zp;
    }
    case ClampDerivation::kXnnpack: {
      float v = f / scale;
      v = v + static_cast<float>(zp);
      return round_half_even_saturating(v);
    }
    case ClampDerivation::kOnednn: {
      float v = f * (1.0f / scale);
      v = v + static_cast<float>(zp);
      return round_half_even_saturating(v);
    }
  }
  return 0;
}

}  // namespace detail

/// The quantized clamp [qmin, qmax] (zero point included) for `activation`, derived the way
/// `derivation` prescribes and intersected with `type`'s range.
/// Throws InvalidArgument if output_scale is not finite and > 0 or zero_point is outside the type.
QPARITY_MAY_THROW
inline OutputParams activation_output_params(Activation activation, ClampDerivation derivation,
                                             float output_scale, std::int32_t zero_point,
                                             OutputType type) {
  detail::require_positive_finite("output_scale", output_scale);
  detail::require_in_range("zero_point", zero_point, output_type_min(type), output_type_max(type),
                           to_string(type));
  std::int64_t lo = output_type_min(type), hi = output_type_max(type);
  auto bound = [&](float f) { return detail::quantize_bound(derivation, f, output_scale, zero_point); };
  switch (activation) {
    case Activation::kNone: break;
    case Activation::kRelu: lo = std::max(lo, bound(0.0f)); break;
    case Activation::kRelu6:
      lo = std::max(lo, bound(0.0f));
      hi = std::min(hi, bound(6.0f));
      break;
    case Activation::kReluN1To1:
      lo = std::max(lo, bound(-1.0f));
      hi = std::min(hi, bound(1.0f));
      break;
  }
  if (hi < lo) hi = lo;  // degenerate scale: every output is the single remaining value
  return OutputParams{zero_point, static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi)};
}

/// Saturating cast of an already clamped int32 to the output element type.
template <class T>
constexpr T saturating_cast(std::int32_t v) {
  constexpr std::int64_t lo = static_cast<std::int64_t>(std::numeric_limits<T>::min());
  constexpr std::int64_t hi = static_cast<std::int64_t>(std::numeric_limits<T>::max());
  return static_cast<T>(clamp_i64(v, lo, hi));
}

}  // namespace qparity
