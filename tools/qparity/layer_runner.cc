#include "layer_runner.h"

#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "preset_params.h"
#include "qparity/conv2d.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/float_precision.h"
#include "qparity/fully_connected.h"
#include "qparity/reference_conv2d.h"
#include "qparity/reference_fully_connected.h"
#include "tool_error.h"

namespace qparity::cli {

// ---- the library entry points, one per operation and engine --------------------------------------
// kFast runs the compiled SIMD paths (bit-identical to the reference by the library's tests);
// kReference (`run --reference`) runs the header-only definitions.
namespace {

template <class A, class O>
void run_conv2d(const Conv2DProblem<A, O>& p, const Preset& preset, Engine engine) {
  if (engine == Engine::kFast) {
    qparity::conv2d(p, preset.core, preset.accumulator);
  } else {
    qparity::reference::conv2d(p, preset.core, preset.accumulator);
  }
}

template <class A, class O>
void run_depthwise_conv2d(const DepthwiseConv2DProblem<A, O>& p, const Preset& preset, Engine engine) {
  if (engine == Engine::kFast) {
    qparity::depthwise_conv2d(p, preset.core, preset.accumulator);
  } else {
    qparity::reference::depthwise_conv2d(p, preset.core, preset.accumulator);
  }
}

template <class A, class O>
void run_fully_connected(const GemmProblem<A, O>& p, const Preset& preset, Engine engine) {
  if (engine == Engine::kFast) {
    qparity::gemm(p, preset.core, preset.accumulator);
  } else {
    qparity::reference::gemm(p, preset.core, preset.accumulator);
  }
}

// ---- shapes ----------------------------------------------------------------------------------------

[[noreturn]] void shape_error(const Layer& layer, const std::vector<std::size_t>& input_shape,
                              const std::string& problem) {
  throw ToolError(fmt::format("layer '{}' ({}): input shape {} and filter shape {} do not fit: {}", layer.name,
                              to_string(layer.type), shape_text(input_shape), shape_text(layer.filter.shape),
                              problem));
}

/// Resolved channel structure of a convolution for a given input.
struct ConvShape {
  std::size_t batch = 0, in_h = 0, in_w = 0, in_channels = 0;
  std::size_t groups = 1, depth_multiplier = 1;
  ResolvedWindow window{};
};

ConvShape conv_shape(const Layer& layer, const std::vector<std::size_t>& in) {
  if (in.size() != 4) shape_error(layer, in, "the input must be NHWC (rank 4)");
  ConvShape s;
  s.batch = in[0];
  s.in_h = in[1];
  s.in_w = in[2];
  s.in_channels = in[3];
  for (std::size_t d : in) {
    if (d == 0) shape_error(layer, in, "the input has an empty dimension");
  }
  const std::size_t oc = layer.out_channels();
  if (layer.type == LayerType::kConv2D) {
    const std::size_t icg = layer.filter.shape[3];
    if (layer.groups == 0) {
      // Not inferred from the shapes (as TFLite does): a wrong input depth must be an error, not
      // a silently grouped convolution. A grouped one says "groups".
      if (s.in_channels != icg) {
        std::string hint;
        if (s.in_channels % icg == 0) {
          hint = fmt::format("; a grouped convolution says so: \"groups\": {}", s.in_channels / icg);
        }
        shape_error(layer, in, fmt::format("the input has {} channels but the filter's I (OHWI) is {}{}", s.in_channels,
                                           icg, hint));
      }
      s.groups = 1;
    } else {
      s.groups = layer.groups;
      if (s.in_channels != s.groups * icg) {
        shape_error(layer, in, fmt::format("groups = {} needs {} input channels (groups x filter I = {}), the input has {}",
                                           s.groups, s.groups * icg, icg, s.in_channels));
      }
    }
    if (oc % s.groups != 0) {
      shape_error(layer, in, fmt::format("groups = {} does not divide the {} output channels", s.groups, oc));
    }
  } else {
    if (oc % s.in_channels != 0) {
      shape_error(layer, in, fmt::format("the filter's {} output channels are not a multiple of the {} input channels",
                                         oc, s.in_channels));
    }
    s.depth_multiplier = oc / s.in_channels;
    if (layer.depth_multiplier != 0 && layer.depth_multiplier != s.depth_multiplier) {
      shape_error(layer, in, fmt::format("depth_multiplier = {} needs {} output channels ({} input channels x {}), the "
                                         "filter has {}", layer.depth_multiplier, s.in_channels * layer.depth_multiplier,
                                         s.in_channels, layer.depth_multiplier, oc));
    }
  }
  try {
    s.window = resolve_window(layer.window, s.in_h, s.in_w);
  } catch (const InvalidArgument& e) {
    shape_error(layer, in, without_library_prefix(e.what()));
  }
  return s;
}

// ---- requantization parameters -----------------------------------------------------------------------

[[noreturn]] void layer_error(const Layer& layer, const std::string& problem) {
  throw ToolError(fmt::format("layer '{}' ({}): {}", layer.name, to_string(layer.type), problem));
}

/// One RequantParams per output channel (per_channel) or one for the tensor, and whether the bias
/// has been moved into the params (oneDNN's f32 bias, see SCHEMA.md).
struct LayerParams {
  std::vector<RequantParams> params;
  bool per_channel = false;
  bool bias_in_params = false;
};

LayerParams layer_params(const Layer& layer, const Preset& preset, const std::vector<std::int32_t>& bias) {
  LayerParams lp;
  const std::size_t oc = layer.out_channels();
  if (layer.explicit_multipliers()) {
    lp.per_channel = layer.multipliers.size() > 1;
    for (std::size_t c = 0; c < layer.multipliers.size(); ++c) {
      try {
        lp.params.push_back(params_from_multiplier(preset.core, layer.multipliers[c], layer.shifts[c]));
      } catch (const InvalidArgument& e) {
        layer_error(layer, fmt::format("multipliers[{}] = {}, shifts[{}] = {} under preset {}: {}", c,
                                       layer.multipliers[c], c, layer.shifts[c], preset.name,
                                       without_library_prefix(e.what())));
      }
    }
    return lp;
  }
  // oneDNN adds an f32 bias between its two scale steps, in real units: the int32 bias b (in units
  // of s_in * s_w) becomes float(b * float(s_in * s_w)) there instead of an accumulator term.
  lp.bias_in_params = preset.composition == ScaleComposition::kFloatTwoStep && !bias.empty();
  lp.per_channel = layer.filter_scales.size() > 1 || lp.bias_in_params;
  const std::size_t count = lp.per_channel ? oc : 1;
  for (std::size_t c = 0; c < count; ++c) {
    const std::size_t si = layer.filter_scales.size() > 1 ? c : 0;
    try {
      const EffectiveScale eff =
          compose_scale(preset.composition, *layer.input_scale, layer.filter_scales[si], *layer.output_scale);
      const float f32_bias = lp.bias_in_params ? static_cast<float>(static_cast<double>(bias[c]) * eff.scale) : 0.0f;
      lp.params.push_back(derive_requant_params(preset.core, preset.derivation, eff, f32_bias));
    } catch (const InvalidArgument& e) {
      layer_error(layer, fmt::format("filter_scales[{}] = {} (input_scale {}, output_scale {}) under preset {}: {}", si,
                                     layer.filter_scales[si], *layer.input_scale, *layer.output_scale, preset.name,
                                     without_library_prefix(e.what())));
    }
  }
  return lp;
}

OutputType output_type_of(DType d) {
  switch (d) {
    case DType::kInt8: return OutputType::kInt8;
    case DType::kUint8: return OutputType::kUint8;
    case DType::kInt16: return OutputType::kInt16;
    default: return OutputType::kInt32;
  }
}

OutputParams layer_output_params(const Layer& layer, const Preset& preset, DType out_dtype) {
  const OutputType type = output_type_of(out_dtype);
  try {
    if (layer.activation_min || layer.activation_max) {
      OutputParams o{layer.output_zero_point, layer.activation_min.value_or(output_type_min(type)),
                     layer.activation_max.value_or(output_type_max(type))};
      validate(o, type);
      return o;
    }
    // NONE and RELU bounds do not depend on the scale (zp + round(0 / s) = zp): 1 stands in when
    // the layer has explicit multipliers and no output_scale.
    return activation_output_params(layer.activation, preset.clamp, layer.output_scale.value_or(1.0f),
                                    layer.output_zero_point, type);
  } catch (const InvalidArgument& e) {
    layer_error(layer, fmt::format("output ({}): {}", to_string(out_dtype), without_library_prefix(e.what())));
  }
}

// ---- typed execution ------------------------------------------------------------------------------------

template <class T>
std::vector<T> typed_copy(const Tensor& t) {
  std::vector<T> v(t.elements());
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

template <class T>
void store(const std::vector<T>& v, Tensor* t) {
  if (!v.empty()) std::memcpy(t->bytes.data(), v.data(), v.size() * sizeof(T));
}

/// Everything run_typed needs, independent of the element types.
struct Prepared {
  const Layer* layer = nullptr;
  const Preset* preset = nullptr;
  Engine engine = Engine::kFast;
  std::vector<std::int32_t> bias;  // empty if none (or moved into the params)
  LayerParams params;
  OutputParams output;
  std::int32_t filter_zero_point = 0;
  std::vector<std::size_t> out_shape;
};

template <class A, class O>
void run_typed(const Prepared& p, const Tensor& input, Tensor* out) {
  const Layer& layer = *p.layer;
  const std::vector<A> in = typed_copy<A>(input);
  std::vector<O> result(out->elements());
  const std::int8_t* filter = reinterpret_cast<const std::int8_t*>(layer.filter.bytes.data());
  const std::int32_t* bias = p.bias.empty() ? nullptr : p.bias.data();
  const std::int32_t* fzp = p.filter_zero_point != 0 ? &p.filter_zero_point : nullptr;
  const ConvWeights weights{filter, fzp, false, bias, p.params.params.data(), p.params.per_channel};
  const ConvCall<A, O> call{in.data(), layer.input_zero_point, p.output, result.data()};
  switch (layer.type) {
    case LayerType::kConv2D: {
      const ConvShape s = conv_shape(layer, input.shape);
      Conv2DProblem<A, O> problem;
      problem.geometry = Conv2DGeometry{s.batch, s.in_h, s.in_w, s.in_channels, layer.out_channels(), s.groups,
                                        layer.window};
      problem.weights = weights;
      problem.call = call;
      run_conv2d(problem, *p.preset, p.engine);
      break;
    }
    case LayerType::kDepthwiseConv2D: {
      const ConvShape s = conv_shape(layer, input.shape);
      DepthwiseConv2DProblem<A, O> problem;
      problem.geometry = DepthwiseConv2DGeometry{s.batch, s.in_h, s.in_w, s.in_channels, s.depth_multiplier,
                                                 layer.window};
      problem.weights = weights;
      problem.call = call;
      run_depthwise_conv2d(problem, *p.preset, p.engine);
      break;
    }
    case LayerType::kFullyConnected: {
      FullyConnectedWeights f;
      f.output_depth = layer.filter.shape[0];
      f.input_depth = layer.filter.shape[1];
      f.filter = filter;
      f.filter_zero_points = fzp;
      f.bias = bias;
      f.params = p.params.params.data();
      f.per_channel = p.params.per_channel;
      const FullyConnectedCall<A, O> fc{p.out_shape[0], in.data(), layer.input_zero_point, p.output, result.data()};
      run_fully_connected(gemm_problem_of(f, fc), *p.preset, p.engine);
      break;
    }
  }
  store(result, out);
}

template <class A>
void run_for_input(const Prepared& p, const Tensor& input, Tensor* out) {
  switch (out->dtype) {
    case DType::kInt8: return run_typed<A, std::int8_t>(p, input, out);
    case DType::kUint8: return run_typed<A, std::uint8_t>(p, input, out);
    case DType::kInt16: return run_typed<A, std::int16_t>(p, input, out);
    default: return run_typed<A, std::int32_t>(p, input, out);
  }
}

}  // namespace

std::vector<std::size_t> output_shape(const Layer& layer, const std::vector<std::size_t>& input_shape) {
  if (layer.type == LayerType::kFullyConnected) {
    // TFLite FULLY_CONNECTED (keep_num_dims = false): the input is read as [batch, depth] with
    // batch = elements / depth, so [1, 6, 6, 12] feeds a depth-432 layer directly (the flatten of
    // a conv feature map) and [batch, depth] is the ordinary case.
    // Without "fold_batch", only the unambiguous readings: rows of depth elements (the last axis
    // is the depth), one flattened vector (the whole input is one row), or each item of the first
    // axis flattened (batch = the first dimension). Anything else would silently become another
    // batch size.
    const std::size_t depth = layer.filter.shape[1];
    std::size_t elements = 1;
    for (std::size_t d : input_shape) elements *= d;  // a Tensor's shape product never overflows
    if (input_shape.empty() || elements == 0 || elements % depth != 0) {
      shape_error(layer, input_shape, fmt::format("the input's {} elements are not a positive multiple of the "
                                                  "filter's input depth {} (OI filter)", elements, depth));
    }
    if (!layer.fold_batch && input_shape.back() != depth && elements != depth &&
        elements / depth != input_shape.front()) {
      shape_error(layer, input_shape,
                  fmt::format("the input's last dimension is {} and it has {} elements, but the filter's input depth "
                              "is {}: read as TFLite does, it would be a batch of {}; say \"fold_batch\": true if that "
                              "is meant",
                              input_shape.back(), elements, depth, elements / depth));
    }
    return {elements / depth, layer.filter.shape[0]};
  }
  const ConvShape s = conv_shape(layer, input_shape);
  return {s.batch, s.window.out_h, s.window.out_w, layer.out_channels()};
}

Tensor run_layer(const Layer& layer, const Preset& preset, const Tensor& input) {
  return run_layer(layer, preset, input, Engine::kFast);
}

Tensor run_layer(const Layer& layer, const Preset& preset, const Tensor& input, Engine engine) {
  if (layer.is_float()) {
    layer_error(layer, fmt::format("a float layer (float32 filter) runs under a float precision ({}), as a stack "
                                   "(run/diff --stack) or a model; '{}' is an integer preset",
                                   float_precision_names(), preset.name));
  }
  if (input.dtype != DType::kInt8 && input.dtype != DType::kUint8) {
    layer_error(layer, fmt::format("the input is {}; allowed: int8, uint8 (a previous layer's output_dtype "
                                   "int16/int32 cannot feed another layer)", to_string(input.dtype)));
  }
  const DType out_dtype = layer.output_dtype.value_or(input.dtype);
  Prepared p;
  p.layer = &layer;
  p.preset = &preset;
  p.engine = engine;
  p.filter_zero_point = layer.filter_zero_point;
  p.out_shape = output_shape(layer, input.shape);
  if (layer.bias) {
    for (std::size_t i = 0; i < layer.bias->elements(); ++i) {
      p.bias.push_back(static_cast<std::int32_t>(layer.bias->integer_at(i)));
    }
  }
  p.params = layer_params(layer, preset, p.bias);
  if (p.params.bias_in_params) p.bias.clear();
  p.output = layer_output_params(layer, preset, out_dtype);
  Tensor out;
  try {
    out = make_tensor(out_dtype, p.out_shape);
  } catch (const ToolError& e) {
    layer_error(layer, fmt::format("its output: {}", e.what()));
  }
  try {
    if (input.dtype == DType::kInt8) {
      run_for_input<std::int8_t>(p, input, &out);
    } else {
      run_for_input<std::uint8_t>(p, input, &out);
    }
  } catch (const InvalidArgument& e) {
    layer_error(layer, without_library_prefix(e.what()));
  }
  return out;
}

std::string chained_input_note(const Stack& stack, std::size_t index, const Tensor& input) {
  if (index == 0) return "";
  return fmt::format(" (its input is the output of {}: {} {})", layer_label(index - 1, stack.layers[index - 1]),
                     to_string(input.dtype), shape_text(input.shape));
}

std::vector<Tensor> run_stack(const Stack& stack, const std::vector<Preset>& presets, const Tensor& input,
                              Engine engine) {
  if (presets.size() != 1 && presets.size() != stack.layers.size()) {
    throw ToolError(fmt::format("{} presets for {} layers; allowed: one preset, or one per layer", presets.size(),
                                stack.layers.size()));
  }
  std::vector<Tensor> outputs;
  for (std::size_t i = 0; i < stack.layers.size(); ++i) {
    const Tensor& in = i == 0 ? input : outputs.back();
    const Preset& preset = presets.size() == 1 ? presets[0] : presets[i];
    try {
      outputs.push_back(run_layer(stack.layers[i], preset, in, engine));
    } catch (const ToolError& e) {
      throw ToolError(fmt::format("layers[{}]: {}{}", i, e.what(), chained_input_note(stack, i, in)), e.exit_code());
    }
  }
  return outputs;
}

Preset preset_by_name(const std::string& name) {
  try {
    return find_preset(name);
  } catch (const InvalidArgument& e) {
    throw ToolError(fmt::format("--preset: {}", without_library_prefix(e.what())));
  }
}

std::string layer_label(std::size_t index, const Layer& layer) {
  return fmt::format("layers[{}] '{}'", index, layer.name);
}

std::string layer_output_file_name(std::size_t index, std::size_t layer_count, const Layer& layer) {
  const std::size_t width = fmt::format("{}", layer_count == 0 ? 0 : layer_count - 1).size();
  return fmt::format("{:0{}}_{}.npy", index, width, layer.name);
}

}  // namespace qparity::cli
