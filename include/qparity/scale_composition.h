// Scale composition: how each system combines input, weight and output scales into the effective
// requantization scale (docs/semantics.md §3.1, §6.3, §8, §9, §10, §19.1). The same three float
// scales give different effective scales (different bits) depending on precision and order.
#pragma once

#include <cstdint>

#include "qparity/error.h"

namespace qparity {

enum class ScaleComposition : std::uint8_t {
  /// TFLite int8/int16 (kernel_util.cc PopulateConvolutionQuantizationParams): each float scale is
  /// widened to double, eff = double(s_in) * double(s_w) / double(s_out).
  kDouble,
  /// TFLite legacy uint8 per-tensor (GetQuantizedConvolutionMultipler): the product s_in * s_w is
  /// taken in float, then widened: eff = double(float(s_in * s_w)) / double(s_out).
  kFloatProductThenDouble,
  /// XNNPACK (convolution-nhwc.c), ONNX Runtime (ComputeOutputScale), PyTorch/FBGEMM:
  /// eff = float(float(s_in * s_w) / s_out), two float32 RNE operations.
  kFloat,
  /// oneDNN (ref_convolution_int8.cpp): two steps in float. acc is multiplied by
  /// float(s_in * s_w), the f32 bias is added, then the result is multiplied by float(1 / s_out).
  kFloatTwoStep,
};

/// The result of composing scales. For every composition but kFloatTwoStep, `scale` is the whole
/// effective scale and `post_scale` is 1. For kFloatTwoStep, `scale` = float(s_in * s_w) and
/// `post_scale` = 1.f / s_out (the multiplication by the inverse oneDNN performs).
struct EffectiveScale {
  double scale = 0.0;
  float post_scale = 1.0f;
};

/// Composes (s_in, s_w, s_out) the way `composition` prescribes. Throws InvalidArgument naming
/// the scale that is not finite and > 0.
QPARITY_MAY_THROW
inline EffectiveScale compose_scale(ScaleComposition composition, float input_scale,
                                    float filter_scale, float output_scale) {
  detail::require_positive_finite("input_scale", input_scale);
  detail::require_positive_finite("filter_scale", filter_scale);
  detail::require_positive_finite("output_scale", output_scale);
  switch (composition) {
    case ScaleComposition::kDouble:
      return {static_cast<double>(input_scale) * static_cast<double>(filter_scale) /
                  static_cast<double>(output_scale),
              1.0f};
    case ScaleComposition::kFloatProductThenDouble: {
      const float product = input_scale * filter_scale;
      return {static_cast<double>(product) / static_cast<double>(output_scale), 1.0f};
    }
    case ScaleComposition::kFloat: {
      const float product = input_scale * filter_scale;
      const float eff = product / output_scale;
      return {static_cast<double>(eff), 1.0f};
    }
    case ScaleComposition::kFloatTwoStep: {
      const float product = input_scale * filter_scale;
      return {static_cast<double>(product), 1.0f / output_scale};
    }
  }
  return {};
}

inline const char* to_string(ScaleComposition c) {
  switch (c) {
    case ScaleComposition::kDouble: return "double";
    case ScaleComposition::kFloatProductThenDouble: return "float-product-then-double";
    case ScaleComposition::kFloat: return "float";
    case ScaleComposition::kFloatTwoStep: return "float-two-step";
  }
  return "?";
}

}  // namespace qparity
