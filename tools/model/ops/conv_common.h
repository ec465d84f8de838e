// What CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED share: the TFLite fused activation, the
// quantization checks of their tensors, and the derivation of the library's weights and
// requantization parameters under a preset (the same derivation as the tool's layer runner:
// compose_scale then derive_requant_params per output channel).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/op.h"
#include "preset_params.h"
#include "qparity/conv_geometry.h"
#include "qparity/float_precision.h"
#include "qparity/reference_conv2d.h"
#include "qparity/output_stage.h"

namespace qparity::model {

/// CONV_2D's options (TFLite Conv2DOptions): the window's strides, dilations and padding (its
/// kernel size comes from the filter) and the fused activation.
struct Conv2DOptions : OpOptions {
  Window2D window{};
  Activation activation = Activation::kNone;
  std::string describe() const override;
};

/// DEPTHWISE_CONV_2D's options; depth_multiplier as the file states it (0 when absent: derived
/// from the shapes, as current runtimes do).
struct DepthwiseConv2DOptions : OpOptions {
  Window2D window{};
  std::size_t depth_multiplier = 0;
  Activation activation = Activation::kNone;
  std::string describe() const override;
};

/// FULLY_CONNECTED's options (keep_num_dims: the output keeps the input's leading dimensions).
struct FullyConnectedOptions : OpOptions {
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
  std::string describe() const override;
};

/// "stride 2x2, dilation 1x1, SAME" for a window.
std::string window_text(const Window2D& w);

/// TFLite's fused activation (NONE, RELU, RELU_N1_TO_1, RELU6); others are a ToolError naming the
/// node.
Activation activation_from_tflite(int code, const std::string& label);
int activation_to_tflite(Activation a);
const char* activation_text(Activation a);

/// TFLite's padding (SAME, VALID).
Padding padding_from_tflite(int code, const std::string& label);
int padding_to_tflite(Padding p);

/// Checks a conv-like node's tensors. A float32 input makes a float layer: filter, bias (optional,
/// out_channels elements) and output float32, quantization ignored. Otherwise: input int8/uint8 per-tensor; filter int8 (or uint8 with a
/// uint8 input), per-tensor or per-axis along `filter_axis` with `out_channels` scales and zero
/// point(s) in range; bias (input 2, optional) int32 of out_channels elements; output int8/uint8
/// per-tensor, the input's dtype. The filter and bias may be computed at run time (TFLite allows
/// it; XNNPACK then declines the node), their quantization is what the parameters come from.
void check_conv_tensors(const Graph& graph, const Node& node, std::size_t filter_axis,
                        std::size_t out_channels);

/// The library's weights and parameters of a checked conv-like node under a preset.
struct ConvQuant {
  std::vector<std::int8_t> filter;  ///< uint8 filters as w - 128 with their zero points - 128
  int filter_tensor = -1, bias_tensor = -1;
  bool filter_u8 = false;
  bool dynamic = false;  ///< the filter or the bias is computed at run time: load_weights per run
  std::vector<std::int32_t> filter_zero_points;  ///< empty (all 0), one, or per channel
  std::vector<std::int32_t> bias;                ///< empty when absent or moved into params
  std::vector<RequantParams> params;
  bool per_channel = false;
  std::int32_t input_zero_point = 0;
  OutputParams output{};
  OutputType output_type = OutputType::kInt8;

  /// The library's weight record (pointers into this object).
  ConvWeights weights() const;

  /// Copies the filter (and bias) from the run's values (dynamic weights).
  void load_weights(const std::vector<Tensor>& values);
};

/// Derives ConvQuant for `preset`. Throws ToolError naming the node and the channel when the
/// preset cannot represent a scale.
ConvQuant derive_conv_quant(const Graph& graph, const Node& node, const Preset& preset,
                            std::size_t out_channels, Activation activation);

/// Samples of a conv-like op (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED): int8 with a
/// per-channel constant filter (XNNPACK takes it), int8 with the filter given at run time (TFLite's
/// own kernel runs it), uint8 with a per-tensor constant filter (the legacy uint8 kernels).
std::vector<OpSample> conv_like_samples(OpKind kind);

/// Lines for PreparedNode::describe: the preset, the first channels' parameters, the clamp.
std::vector<std::string> describe_conv_quant(const ConvQuant& q, const System& system);

/// The fused activation's float bounds (TFLite CalculateActivationRange).
FloatClamp float_clamp(Activation activation);

/// Lines for PreparedNode::describe of a conv-like node under a float precision; `order` names the
/// summation order ("ky, kx, ic").
std::vector<std::string> describe_float_conv(const System& system, const char* order, Activation activation);

/// Calls f(AType{}, OutType{}) with the element types of an int8/uint8 input and output.
template <class F>
void with_conv_types(DType in, DType out, F&& f) {
  if (in == DType::kInt8) {
    if (out == DType::kInt8) return f(std::int8_t{}, std::int8_t{});
    return f(std::int8_t{}, std::uint8_t{});
  }
  if (out == DType::kInt8) return f(std::uint8_t{}, std::int8_t{});
  return f(std::uint8_t{}, std::uint8_t{});
}

}  // namespace qparity::model
