// A layer of the tool (conv2d, depthwise_conv2d, fully_connected) as described by the layer JSON
// schema (SCHEMA.md), and a stack: an input and an ordered list of layers.
//
// Parsing is strict: unknown or duplicate keys, wrong types and out-of-range values are
// ToolErrors whose message names the file, the JSON path ("layers[3].strides") and the allowed
// values. Everything that can be checked without a preset and an input is checked here (filter
// and bias shapes, per-channel list lengths, zero points, scales); output_shape() and run_layer()
// (layer_runner.h) check the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qparity/conv_geometry.h"
#include "qparity/output_stage.h"
#include "tensor.h"

namespace qparity::cli {

enum class LayerType : std::uint8_t { kConv2D, kDepthwiseConv2D, kFullyConnected };

/// "conv2d", "depthwise_conv2d", "fully_connected".
const char* to_string(LayerType type);

/// Parses the three names above; false otherwise.
bool layer_type_from_string(const std::string& text, LayerType* out);

/// "NONE", "RELU", "RELU6", "RELU_N1_TO_1" (TFLite's fused activations).
const char* activation_name(Activation activation);

struct Layer {
  std::string name;  ///< [A-Za-z0-9_.-]+, not starting with '.'; defaults to the type name
  LayerType type = LayerType::kConv2D;

  /// conv2d / depthwise: kernel_h and kernel_w come from the filter's shape; strides, dilations
  /// and padding from the JSON (default stride 1, dilation 1, VALID). Unused by fully_connected.
  Window2D window{};
  /// conv2d only; 0 = not given: a plain convolution, whose input depth must equal the filter's
  /// I (TFLite infers groups from the shapes; qparity wants them stated, so that a wrong input
  /// depth is an error rather than a silently grouped convolution).
  std::size_t groups = 0;
  /// depthwise only; 0 = derived from the shapes (out_channels / in_channels).
  std::size_t depth_multiplier = 0;

  std::int32_t input_zero_point = 0;
  std::int32_t filter_zero_point = 0;  ///< per tensor, [-128, 127]; TFLite int8 filters use 0
  std::int32_t output_zero_point = 0;

  /// Scales (float32, as TFLite stores them): input_scale, filter_scales (one or one per output
  /// channel) and output_scale; the preset composes and derives its own multipliers from them.
  std::optional<float> input_scale;
  std::vector<float> filter_scales;
  std::optional<float> output_scale;  ///< also allowed with explicit multipliers (for activation)
  /// Or: explicit TFLite-convention multipliers and shifts (one or one per output channel),
  /// converted for each preset's core by params_from_multiplier (preset_params.h).
  std::vector<std::int32_t> multipliers;
  std::vector<std::int32_t> shifts;
  bool explicit_multipliers() const { return !multipliers.empty(); }

  /// Fused activation, quantized with the preset's ClampDerivation (activation_output_params),
  /// or explicit bounds (zero point included) when activation_min/max are given.
  Activation activation = Activation::kNone;
  std::optional<std::int32_t> activation_min;
  std::optional<std::int32_t> activation_max;

  std::optional<DType> output_dtype;  ///< int8/uint8/int16/int32; default: the input's dtype

  /// fully_connected only: read an input whose last dimension is not the filter's depth as
  /// [elements / depth, depth] (TFLite's keep_num_dims = false). Without it, only rows of depth
  /// elements, one flattened vector, or one flattened item per index of the first dimension.
  bool fold_batch = false;

  Tensor filter;              ///< int8 or float32: conv2d OHWI, depthwise 1HWO, fully_connected OI
  std::optional<Tensor> bias;  ///< int32 [out_channels], in accumulator units (s_in * s_w); float32
                               ///< for a float layer

  /// A float layer: float32 filter, bias, input and output, no quantization; it runs under a float
  /// precision (include/qparity/float_precision.h) through the model runner (stack_model.h).
  bool is_float() const { return filter.dtype == DType::kFloat32; }

  /// Output channels (the filter's O dimension).
  std::size_t out_channels() const;
};

/// What the command line supplies for `qparity run <type> --filter --bias`: the JSON must then
/// not give them again ("filter" given twice is an error) and "type", if present, must agree.
struct LayerSources {
  std::optional<LayerType> type;
  std::optional<Tensor> filter;
  std::optional<Tensor> bias;
};

/// Parses one layer object. `base_dir` resolves relative .npy paths; `context` names the file in
/// errors. Throws ToolError.
Layer parse_layer(const std::string& json_text, const std::string& base_dir,
                  const std::string& context, const LayerSources& given = {});

struct Stack {
  std::optional<Tensor> input;  ///< absent if the JSON has no "input" (then --input is required)
  std::vector<Layer> layers;    ///< at least one
};

/// Reads and parses a stack file: {"input": <npy path or generator>, "layers": [...]}; relative
/// paths are relative to the file's directory. Throws ToolError.
Stack load_stack(const std::string& path);

/// Parses a stack held in memory (the fuzzer drives this). Throws ToolError.
Stack parse_stack(const std::string& json_text, const std::string& base_dir,
                  const std::string& context);

/// The directory part of a path ("." for a bare file name), for base_dir.
std::string directory_of(const std::string& path);

/// Reads a whole file as text. Throws ToolError(kExitIoError) naming the path.
std::string read_text_file(const std::string& path);

}  // namespace qparity::cli
