// RELU and RELU6 on int8 / uint8 tensors, per runtime (docs/semantics.md §21.14). TFLite
// requantizes from the input to the output quantization and clamps; TFLM's RELU6 only clamps.
//
// Header-only, standard C++17, depends only on include/qparity. Sources restated, not copied.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "qparity/output_stage.h"
#include "qparity/policy_float.h"
#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

enum class ReluKind : std::uint8_t {
  kRelu,   ///< RELU: [0, +inf)
  kRelu6,  ///< RELU6: [0, 6]
};

enum class ReluVariant : std::uint8_t {
  /// TFLite (LiteRT tflite/kernels/activations.cc ReluPrepare / QuantizedReluX, reference_ops and
  /// optimized_ops ReluX outside NEON), default build:
  ///   M, shift = QuantizeMultiplier(double(float(s_in / s_out)))   -- the ratio is a FLOAT division
  ///   lo = max(type_min, zp_out + int(roundf(0 / s_out))) = max(type_min, zp_out)
  ///   hi = RELU: type_max; RELU6: min(type_max, zp_out + int(roundf(6 / s_out)))  (roundf: HAZ)
  ///   y  = clamp(zp_out + MultiplyByQuantizedMultiplier(x - zp_in, M, shift), lo, hi)   (DR-AZ)
  /// When s_in == s_out the multiplier is (2^30, 1), exact: y = clamp(x - zp_in + zp_out).
  kTfliteDoubleRounding,
  /// The same in the TFLITE_SINGLE_ROUNDING=1 build (SR-UP, single-build QuantizeMultiplier).
  kTfliteSingleRounding,
  /// TFLM (tflite-micro tensorflow/lite/micro/kernels/activations_common.cc @0ad7093,
  /// activations.cc): RELU as kTfliteDoubleRounding except that the ratio is a DOUBLE division
  /// double(s_in) / double(s_out). RELU6 does not requantize at all: it clamps the raw input to
  /// [zp_in, zp_in + round(6 / s_in)] (FloatToQuantizedType on the INPUT quantization, half away
  /// from zero) and ignores the output quantization.
  kTflm,
  /// XNNPACK clamp as the delegate would define it for a quantized RELU / RELU6 with EQUAL input and
  /// output quantization: y = clamp(x, lo, hi) with bounds quantized XNNPACK's way,
  /// RNE(f / s_out + zp_out) (docs/semantics.md §6.4, `ClampDerivation::kXnnpack`). Whether the
  /// delegate takes quantized RELU at all is settled by measurement (docs/semantics.md §21.14);
  /// requires equal quantizations.
  kXnnpackClamp,
  /// NPU single rounding (NpuHypothesis) of (x - zp_in) * double(s_in) / double(s_out), then TFLite's
  /// bounds. **UNVERIFIED**.
  kNpuSingleRounding,
  /// Float32: v = float(s_in * (x - zp_in)); v = relu(v); y = clamp(RNE(float(v / s_out)) + zp_out).
  /// **UNVERIFIED** (ORT runs unfused QDQ RELU this way; not measured here).
  kFloat32,
};

struct ReluParams {
  ReluVariant variant = ReluVariant::kTfliteDoubleRounding;
  ReluKind kind = ReluKind::kRelu;
  TensorQuant in, out;
  QuantizedMultiplier tflite;
  NpuRequant npu;
  std::int32_t lo = 0, hi = 0;  ///< clamp bounds, zero point included
};

namespace detail {

/// TFLite's `zp + static_cast<int32>(roundf(f / s))`: float division, HAZ, zero point after.
inline std::int64_t tflite_bound(float f, float s, std::int32_t zp) {
  const float q = std::round(f / s);
  if (!(std::fabs(q) < 1e9f)) return q > 0 ? std::int64_t{1} << 40 : -(std::int64_t{1} << 40);
  return static_cast<std::int64_t>(q) + zp;
}

}  // namespace detail

/// Derives the parameters of `variant`. Throws InvalidArgument for bad scales / zero points, or
/// kXnnpackClamp with unequal quantizations.
template <class T>
QPARITY_MAY_THROW
ReluParams make_relu_params(ReluKind kind, const TensorQuant& in, const TensorQuant& out,
                            ReluVariant variant, NpuHypothesis npu = {}) {
  static_assert(kIsQuant8<T>, "relu: 8-bit types only");
  detail::require_scale("input scale", in.scale);
  detail::require_scale("output scale", out.scale);
  detail::require_zero_point<T>("input zero_point", in.zero_point);
  detail::require_zero_point<T>("output zero_point", out.zero_point);
  ReluParams p;
  p.variant = variant;
  p.kind = kind;
  p.in = in;
  p.out = out;
  std::int64_t lo = type_min<T>(), hi = type_max<T>();
  auto tflite_bounds = [&](float s, std::int32_t zp) {
    lo = std::max<std::int64_t>(lo, detail::tflite_bound(0.0f, s, zp));
    if (kind == ReluKind::kRelu6) hi = std::min<std::int64_t>(hi, detail::tflite_bound(6.0f, s, zp));
  };
  switch (variant) {
    case ReluVariant::kTfliteDoubleRounding:
    case ReluVariant::kTfliteSingleRounding: {
      const TfliteBuild b = variant == ReluVariant::kTfliteDoubleRounding
                                ? TfliteBuild::kDoubleRounding
                                : TfliteBuild::kSingleRounding;
      p.tflite = tflite_quantize_multiplier_checked(static_cast<double>(in.scale / out.scale), b);
      tflite_bounds(out.scale, out.zero_point);
      break;
    }
    case ReluVariant::kTflm:
      if (kind == ReluKind::kRelu) {
        p.tflite = tflite_quantize_multiplier_checked(
            static_cast<double>(in.scale) / static_cast<double>(out.scale), TfliteBuild::kDoubleRounding);
        tflite_bounds(out.scale, out.zero_point);
      } else {
        lo = in.zero_point;
        hi = detail::tflite_bound(6.0f, in.scale, in.zero_point);
      }
      break;
    case ReluVariant::kXnnpackClamp: {
      if (!(in.scale == out.scale) || in.zero_point != out.zero_point) {
        QPARITY_THROW(InvalidArgument(
            "qparity: kXnnpackClamp models a clamp with equal input and output "
            "quantization; the given quantizations differ"));
      }
      const OutputType type = std::is_same<T, std::int8_t>::value ? OutputType::kInt8 : OutputType::kUint8;
      const OutputParams o = activation_output_params(
          kind == ReluKind::kRelu ? Activation::kRelu : Activation::kRelu6, ClampDerivation::kXnnpack,
          out.scale, out.zero_point, type);
      lo = o.qmin;
      hi = o.qmax;
      break;
    }
    case ReluVariant::kNpuSingleRounding:
      p.npu = npu_requant(npu, static_cast<double>(in.scale) / static_cast<double>(out.scale));
      tflite_bounds(out.scale, out.zero_point);
      break;
    case ReluVariant::kFloat32:
      break;
  }
  if (hi < lo) hi = lo;
  p.lo = static_cast<std::int32_t>(lo);
  p.hi = static_cast<std::int32_t>(hi);
  return p;
}

/// One element (formulas and tie rules: ReluVariant).
template <class T>
QPARITY_MAY_THROW
T relu_value(T x, const ReluParams& p) {
  const std::int32_t d = static_cast<std::int32_t>(x) - p.in.zero_point;
  std::int64_t y = 0;
  switch (p.variant) {
    case ReluVariant::kTfliteDoubleRounding:
      y = p.out.zero_point + static_cast<std::int64_t>(tflite_multiply_by_quantized_multiplier(
                                 d, p.tflite, TfliteBuild::kDoubleRounding));
      break;
    case ReluVariant::kTfliteSingleRounding:
      y = p.out.zero_point + static_cast<std::int64_t>(tflite_multiply_by_quantized_multiplier(
                                 d, p.tflite, TfliteBuild::kSingleRounding));
      break;
    case ReluVariant::kTflm:
      if (p.kind == ReluKind::kRelu) {
        y = p.out.zero_point + static_cast<std::int64_t>(tflite_multiply_by_quantized_multiplier(
                                   d, p.tflite, TfliteBuild::kDoubleRounding));
      } else {
        y = x;
      }
      break;
    case ReluVariant::kXnnpackClamp:
      y = x;
      break;
    case ReluVariant::kNpuSingleRounding:
      y = p.out.zero_point + static_cast<std::int64_t>(npu_apply(p.npu, d));
      break;
    case ReluVariant::kFloat32: {
      float v = static_cast<float>(static_cast<double>(p.in.scale) * d);
      if (v < 0.0f) v = 0.0f;
      if (p.kind == ReluKind::kRelu6 && v > 6.0f) v = 6.0f;
      return saturate_to<T>(
          static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(v / p.out.scale)) +
          p.out.zero_point);
    }
  }
  if (y < p.lo) y = p.lo;
  if (y > p.hi) y = p.hi;
  return saturate_to<T>(y);
}

template <class T>
QPARITY_MAY_THROW
std::vector<T> relu(const std::vector<T>& x, const ReluParams& p) {
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = relu_value<T>(x[i], p);
  return y;
}

}  // namespace reference
}  // namespace qparity
