#include "model/ops/conv_common.h"

#include <fmt/format.h>

#include "preset_params.h"
#include "qparity/presets.h"
#include "qparity/scale_composition.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

std::string window_text(const Window2D& w) {
  return fmt::format("stride {}x{}, dilation {}x{}, {}", w.stride_h, w.stride_w, w.dilation_h, w.dilation_w,
                     to_string(w.padding));
}

std::string Conv2DOptions::describe() const {
  return fmt::format("{}, {}", window_text(window), activation_text(activation));
}

std::string DepthwiseConv2DOptions::describe() const {
  return fmt::format("{}, depth multiplier {}, {}", window_text(window), depth_multiplier,
                     activation_text(activation));
}

std::string FullyConnectedOptions::describe() const {
  return fmt::format("{}{}", activation_text(activation), keep_num_dims ? ", keep_num_dims" : "");
}

Activation activation_from_tflite(int code, const std::string& label) {
  switch (code) {
    case 0: return Activation::kNone;
    case 1: return Activation::kRelu;
    case 2: return Activation::kReluN1To1;
    case 3: return Activation::kRelu6;
    default: break;  // TANH, SIGN_BIT: not fused into quantized kernels by TFLite either
  }
  throw ToolError(fmt::format("{}: fused_activation_function = {} is not supported; allowed: NONE (0), "
                              "RELU (1), RELU_N1_TO_1 (2), RELU6 (3)", label, code));
}

int activation_to_tflite(Activation a) {
  switch (a) {
    case Activation::kNone: return 0;
    case Activation::kRelu: return 1;
    case Activation::kReluN1To1: return 2;
    case Activation::kRelu6: return 3;
  }
  return 0;
}

const char* activation_text(Activation a) {
  switch (a) {
    case Activation::kNone: return "NONE";
    case Activation::kRelu: return "RELU";
    case Activation::kReluN1To1: return "RELU_N1_TO_1";
    case Activation::kRelu6: return "RELU6";
  }
  return "?";
}

Padding padding_from_tflite(int code, const std::string& label) {
  if (code == 0) return Padding::kSame;
  if (code == 1) return Padding::kValid;
  throw ToolError(fmt::format("{}: padding = {} is not a TFLite padding; allowed: SAME (0), VALID (1)", label, code));
}

int padding_to_tflite(Padding p) { return p == Padding::kSame ? 0 : 1; }

namespace {

void require_scales_valid(const Graph& g, const Node& n, const TensorDef& t, const char* role) {
  for (std::size_t i = 0; i < t.quant.scales.size(); ++i) {
    const float s = t.quant.scales[i];
    if (!(s > 0.0f) || s > 3.4e38f) {
      node_error(g, n, fmt::format("{} '{}' has scale[{}] = {}; allowed: finite and > 0", role, t.name, i, s));
    }
  }
}

}  // namespace

void check_conv_tensors(const Graph& g, const Node& n, std::size_t filter_axis, std::size_t out_channels) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& filter = input_def(g, n, 1);
  const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
  require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat32});
  if (in.dtype == DType::kFloat32) {
    // A float layer: float32 throughout, any quantization parameters ignored (TFLite's float
    // kernels read none); it runs under a float precision (check_system_fits).
    require_dtype(g, n, filter, "filter (of a float32 input)", {DType::kFloat32});
    if (has_input(n, 2)) {
      const TensorDef& bias = input_def(g, n, 2);
      require_dtype(g, n, bias, "bias (of a float32 input)", {DType::kFloat32});
      std::size_t elements = 0;
      if (!cli::checked_elements(bias.shape, 4, &elements) || elements != out_channels) {
        node_error(g, n, fmt::format("bias '{}' has shape {}; allowed: {} elements (the output channels)", bias.name,
                                     cli::shape_text(bias.shape), out_channels));
      }
    }
    require_dtype(g, n, out, "output (of a float32 input)", {DType::kFloat32});
    return;
  }
  require_per_tensor(g, n, in, "input");
  require_scales_valid(g, n, in, "input");
  if (in.dtype == DType::kInt8) {
    require_dtype(g, n, filter, "filter", {DType::kInt8});
  } else {
    require_dtype(g, n, filter, "filter", {DType::kUint8, DType::kInt8});
  }
  if (!filter.quant.present()) node_error(g, n, fmt::format("filter '{}' is not quantized", filter.name));
  require_scales_valid(g, n, filter, "filter");
  const std::size_t ns = filter.quant.scales.size();
  if (ns != 1 && ns != out_channels) {
    node_error(g, n, fmt::format("filter '{}' has {} scales; allowed: 1 or one per output channel ({})",
                                 filter.name, ns, out_channels));
  }
  if (ns > 1 && filter.quant.axis != filter_axis) {
    node_error(g, n, fmt::format("filter '{}' is quantized along dimension {}; allowed: {} (the output "
                                 "channels)", filter.name, filter.quant.axis, filter_axis));
  }
  const std::size_t nz = filter.quant.zero_points.size();
  if (nz > 1 && nz != ns) {
    node_error(g, n, fmt::format("filter '{}' has {} zero points for {} scales", filter.name, nz, ns));
  }
  for (std::size_t i = 0; i < nz; ++i) {
    const std::int64_t z = filter.quant.zero_points[i];
    if (z < cli::dtype_min(filter.dtype) || z > cli::dtype_max(filter.dtype)) {
      node_error(g, n, fmt::format("filter '{}' zero_point[{}] = {}; allowed: {} to {}", filter.name, i, z,
                                   cli::dtype_min(filter.dtype), cli::dtype_max(filter.dtype)));
    }
  }
  if (has_input(n, 2)) {
    const TensorDef& bias = input_def(g, n, 2);
    require_dtype(g, n, bias, "bias", {DType::kInt32});
    std::size_t elements = 0;
    if (!cli::checked_elements(bias.shape, 4, &elements) || elements != out_channels) {
      node_error(g, n, fmt::format("bias '{}' has shape {}; allowed: {} elements (the output channels)", bias.name,
                                   cli::shape_text(bias.shape), out_channels));
    }
  }
  require_dtype(g, n, out, "output", {DType::kInt8, DType::kUint8});
  if (out.dtype != in.dtype) {
    node_error(g, n, fmt::format("output '{}' is {}, the input {}; allowed: the same type", out.name,
                                 cli::to_string(out.dtype), cli::to_string(in.dtype)));
  }
  require_per_tensor(g, n, out, "output");
  require_scales_valid(g, n, out, "output");
}

ConvWeights ConvQuant::weights() const {
  ConvWeights w;
  w.filter = filter.data();
  w.filter_zero_points = filter_zero_points.empty() ? nullptr : filter_zero_points.data();
  w.filter_zero_point_per_channel = filter_zero_points.size() > 1;
  w.bias = bias.empty() ? nullptr : bias.data();
  w.params = params.data();
  w.per_channel = per_channel;
  return w;
}

void ConvQuant::load_weights(const std::vector<Tensor>& values) {
  const Tensor& f = values[static_cast<std::size_t>(filter_tensor)];
  filter.resize(f.elements());
  for (std::size_t i = 0; i < filter.size(); ++i) {
    filter[i] = static_cast<std::int8_t>(f.integer_at(i) - (filter_u8 ? 128 : 0));
  }
  if (bias_tensor >= 0 && !bias.empty()) {
    const Tensor& b = values[static_cast<std::size_t>(bias_tensor)];
    for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<std::int32_t>(b.integer_at(i));
  }
}

ConvQuant derive_conv_quant(const Graph& g, const Node& n, const Preset& preset, std::size_t out_channels,
                            Activation activation) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& filter = input_def(g, n, 1);
  const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
  ConvQuant q;
  q.input_zero_point = static_cast<std::int32_t>(in.quant.zero_point());
  // A uint8 filter w with zero point z gives the products of (w - 128) with zero point z - 128.
  const bool u8 = filter.dtype == DType::kUint8;
  q.filter_u8 = u8;
  q.filter_tensor = n.inputs[1];
  q.bias_tensor = has_input(n, 2) ? n.inputs[2] : -1;
  q.dynamic = !filter.constant() || (has_input(n, 2) && !input_def(g, n, 2).constant());
  if (filter.constant()) {
    const std::size_t fn = filter.data->elements();
    q.filter.resize(fn);
    for (std::size_t i = 0; i < fn; ++i) {
      q.filter[i] = static_cast<std::int8_t>(filter.data->integer_at(i) - (u8 ? 128 : 0));
    }
  }
  bool any_zp = u8;
  for (std::int64_t z : filter.quant.zero_points) any_zp |= z != 0;
  if (any_zp) {
    const std::size_t nz = std::max<std::size_t>(1, filter.quant.zero_points.size());
    for (std::size_t i = 0; i < nz; ++i) {
      q.filter_zero_points.push_back(static_cast<std::int32_t>(filter.quant.zero_point(i) - (u8 ? 128 : 0)));
    }
  }
  if (has_input(n, 2)) {
    const TensorDef& bias = input_def(g, n, 2);
    if (bias.constant()) {
      const Tensor& b = *bias.data;
      for (std::size_t i = 0; i < b.elements(); ++i) q.bias.push_back(static_cast<std::int32_t>(b.integer_at(i)));
    } else if (preset.composition == ScaleComposition::kFloatTwoStep) {
      node_error(g, n, fmt::format("bias '{}' is computed at run time, but preset {} folds the bias into its "
                                   "float scales; allowed: a constant bias", bias.name, preset.name));
    } else {
      q.bias.assign(out_channels, 0);  // loaded per run
    }
  }
  // oneDNN adds an f32 bias between its two scale steps (docs/semantics.md §9): the int32 bias b,
  // in units of s_in * s_w, becomes float(b * float(s_in * s_w)) inside the params.
  const bool bias_in_params = preset.composition == ScaleComposition::kFloatTwoStep && !q.bias.empty();
  q.per_channel = filter.quant.scales.size() > 1 || bias_in_params;
  const std::size_t count = q.per_channel ? out_channels : 1;
  const float s_in = in.quant.scales[0], s_out = out.quant.scales[0];
  for (std::size_t c = 0; c < count; ++c) {
    const std::size_t si = filter.quant.scales.size() > 1 ? c : 0;
    const float s_w = filter.quant.scales[si];
    try {
      const EffectiveScale eff = compose_scale(preset.composition, s_in, s_w, s_out);
      const float f32_bias = bias_in_params ? static_cast<float>(static_cast<double>(q.bias[c]) * eff.scale) : 0.0f;
      q.params.push_back(derive_requant_params(preset.core, preset.derivation, eff, f32_bias));
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("channel {}: input scale {}, filter scale {}, output scale {} under preset {}: {}",
                                   c, s_in, s_w, s_out, preset.name, cli::without_library_prefix(e.what())));
    }
  }
  if (bias_in_params) q.bias.clear();
  q.output_type = out.dtype == DType::kInt8 ? OutputType::kInt8 : OutputType::kUint8;
  try {
    q.output = activation_output_params(activation, preset.clamp, s_out,
                                        static_cast<std::int32_t>(out.quant.zero_point()), q.output_type);
  } catch (const InvalidArgument& e) {
    node_error(g, n, fmt::format("output: {}", cli::without_library_prefix(e.what())));
  }
  return q;
}

std::vector<std::string> describe_conv_quant(const ConvQuant& q, const System& system) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("arithmetic: {}", system.name));
  lines.push_back(fmt::format("core {}, {} accumulator", to_string(system.preset.core),
                              to_string(system.preset.accumulator)));
  const std::size_t shown = std::min<std::size_t>(q.params.size(), 4);
  for (std::size_t c = 0; c < shown; ++c) {
    lines.push_back(fmt::format("{}: {}", q.per_channel ? fmt::format("channel {}", c) : std::string("all channels"),
                                cli::params_text(system.preset.core, q.params[c])));
  }
  if (q.params.size() > shown) lines.push_back(fmt::format("... {} channels in all", q.params.size()));
  lines.push_back(fmt::format("input zero point {}, output zero point {}, clamp [{}, {}]", q.input_zero_point,
                              q.output.zero_point, q.output.qmin, q.output.qmax));
  return lines;
}


std::vector<OpSample> conv_like_samples(OpKind kind) {
  const bool dw = kind == OpKind::kDepthwiseConv2D;
  const bool fc = kind == OpKind::kFullyConnected;
  constexpr std::size_t kIn = 3, kOut = 4;
  const std::size_t oc = dw ? kIn : kOut;
  const std::vector<std::size_t> in_shape = fc ? std::vector<std::size_t>{2, 8} : std::vector<std::size_t>{1, 5, 5, kIn};
  const std::size_t ic = in_shape.back();
  const std::vector<std::size_t> filter_shape = fc ? std::vector<std::size_t>{oc, ic}
                                                   : dw ? std::vector<std::size_t>{1, 3, 3, oc}
                                                        : std::vector<std::size_t>{oc, 3, 3, ic};
  const std::size_t filter_axis = dw ? 3 : 0;
  std::vector<OpSample> out;
  struct Config {
    const char* label;
    DType dtype;
    bool per_channel, constant_filter;
  };
  const Config configs[] = {{"int8, per-channel constant filter", DType::kInt8, true, true},
                            {"int8, filter given at run time", DType::kInt8, true, false},
                            {"uint8, per-tensor constant filter", DType::kUint8, false, true}};
  for (const Config& c : configs) {
    SampleBuilder b(c.label);
    const bool u8 = c.dtype == DType::kUint8;
    const float in_scale = 0.05f;
    const int x = b.input("x", c.dtype, in_shape, in_scale, u8 ? 128 : -3);
    Quantization wq = c.per_channel ? sample_per_axis(0.02f, oc, filter_axis) : GraphBuilder::per_tensor(0.02f, u8 ? 120 : 0);
    if (!c.per_channel) wq.axis = filter_axis;
    const int w = c.constant_filter ? b.constant("w", c.dtype, filter_shape, u8 ? 0 : -127, u8 ? 255 : 127, wq)
                                    : b.input("w", c.dtype, filter_shape, wq);
    Quantization bq;
    for (float s : wq.scales) bq.scales.push_back(in_scale * s);
    bq.zero_points.assign(bq.scales.size(), 0);
    bq.axis = 0;
    const int bias = b.constant("bias", DType::kInt32, {oc}, -300, 300, bq);
    const int y = b.output("y", c.dtype, 0.1f, u8 ? 130 : 2);
    if (fc) {
      b.node(kind, {x, w, bias}, {y}, std::make_shared<FullyConnectedOptions>());
    } else if (dw) {
      auto o = std::make_shared<DepthwiseConv2DOptions>();
      o->window.padding = Padding::kSame;
      o->depth_multiplier = 1;
      b.node(kind, {x, w, bias}, {y}, o);
    } else {
      auto o = std::make_shared<Conv2DOptions>();
      o->window.padding = Padding::kSame;
      b.node(kind, {x, w, bias}, {y}, o);
    }
    out.push_back(b.finish());
  }
  return out;
}

}  // namespace qparity::model

namespace qparity::model {

FloatClamp float_clamp(Activation a) {
  FloatClamp c;
  switch (a) {
    case Activation::kNone: break;
    case Activation::kRelu: c.min = 0.0f; break;
    case Activation::kRelu6: c.min = 0.0f; c.max = 6.0f; break;
    case Activation::kReluN1To1: c.min = -1.0f; c.max = 1.0f; break;
  }
  return c;
}

std::vector<std::string> describe_float_conv(const System& system, const char* order, Activation activation) {
  const FloatPrecision& p = *system.float_precision;
  return {fmt::format("arithmetic: {}", system.name),
          fmt::format("float precision {}: storage {}, accumulator {} (include/qparity/float_precision.h)", p.name,
                      to_string(p.storage), to_string(p.accumulator)),
          fmt::format("inputs, filter and bias rounded to {} (to nearest, ties to even); acc = +0; per tap "
                      "acc = round_{}(acc + round_{}(x * w)) in {} order, padding taps skipped; no FMA",
                      to_string(p.storage), to_string(p.accumulator), to_string(p.accumulator), order),
          fmt::format("y = round_{}(clamp(round_{}(acc + bias), {}))", to_string(p.storage), to_string(p.accumulator),
                      activation_text(activation))};
}

}  // namespace qparity::model
