// DEPTHWISE_CONV_2D: NHWC input, 1HWO filter (output channel oc = ic * multiplier + m), int32
// bias, fused activation; the arithmetic is the library's depthwise_conv2d under the node's preset
// (include/qparity/depthwise_conv2d.h, reference_conv2d.h). Sources: TFLite
// kernels/depthwise_conv.cc and reference_integer_ops/depthwise_conv.h (docs/semantics.md §3.4);
// XNNPACK's delegate: xnnpack_delegate.cc VisitDepthwiseConv2DNode. Float32 ones run under a float
// precision (include/qparity/float_precision.h, docs/semantics.md §24); an int32 output makes it
// accumulate-only (int32_accumulate.h: ONNX ConvInteger).
#include <fmt/format.h>

#include "model/ops/conv_common.h"
#include "model/ops/int32_accumulate.h"
#include "qparity/depthwise_conv2d.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

struct ConvShapes {
  DepthwiseConv2DGeometry geometry;
  ResolvedWindow window;
};

ConvShapes conv_shapes(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& filter = input_def(g, n, 1);
  if (in.shape.size() != 4) node_error(g, n, fmt::format("input '{}' has shape {}; allowed: NHWC (rank 4)", in.name, cli::shape_text(in.shape)));
  if (filter.shape.size() != 4 || filter.shape[0] != 1) {
    node_error(g, n, fmt::format("filter '{}' has shape {}; allowed: 1HWO (rank 4, first dimension 1)", filter.name,
                                 cli::shape_text(filter.shape)));
  }
  for (std::size_t d : in.shape) {
    if (d == 0) node_error(g, n, fmt::format("input '{}' has an empty dimension ({})", in.name, cli::shape_text(in.shape)));
  }
  for (std::size_t d : filter.shape) {
    if (d == 0) node_error(g, n, fmt::format("filter '{}' has an empty dimension ({})", filter.name, cli::shape_text(filter.shape)));
  }
  const auto& o = n.opts<DepthwiseConv2DOptions>();
  ConvShapes s;
  DepthwiseConv2DGeometry& geo = s.geometry;
  geo.batch = in.shape[0];
  geo.in_h = in.shape[1];
  geo.in_w = in.shape[2];
  geo.in_channels = in.shape[3];
  const std::size_t oc = filter.shape[3];
  if (oc % geo.in_channels != 0) {
    node_error(g, n, fmt::format("the filter's {} output channels are not a multiple of the {} input channels", oc,
                                 geo.in_channels));
  }
  geo.depth_multiplier = oc / geo.in_channels;
  if (o.depth_multiplier != 0 && o.depth_multiplier != geo.depth_multiplier) {
    node_error(g, n, fmt::format("depth_multiplier = {} needs {} output channels ({} input channels x {}); the filter "
                                 "has {}", o.depth_multiplier, geo.in_channels * o.depth_multiplier, geo.in_channels,
                                 o.depth_multiplier, oc));
  }
  geo.window = o.window;
  geo.window.kernel_h = filter.shape[1];
  geo.window.kernel_w = filter.shape[2];
  try {
    s.window = validate(geo);
  } catch (const InvalidArgument& e) {
    node_error(g, n, cli::without_library_prefix(e.what()));
  }
  return s;
}

class DepthwisePrepared : public PreparedNode {
 public:
  DepthwisePrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), engine_(engine), in_(n.inputs[0]), out_(n.outputs[0]) {
    const ConvShapes s = conv_shapes(g, n);
    geometry_ = s.geometry;
    in_type_ = input_def(g, n, 0).dtype;
    out_type_ = g.tensors[static_cast<std::size_t>(out_)].dtype;
    quant_ = derive_conv_quant(g, n, sys.preset, geometry_.out_channels(), n.opts<DepthwiseConv2DOptions>().activation);
    if (engine == Engine::kFast && !quant_.dynamic) {
      try {
        packed_ = std::make_unique<PackedDepthwiseConv2D>(geometry_, quant_.weights(), sys.preset.core, sys.preset.accumulator);
      } catch (const InvalidArgument& e) {
        node_error(g, n, cli::without_library_prefix(e.what()));
      }
    }
  }

  void run(std::vector<Tensor>& values) const override { run_on_threads(values, 1); }

  void run_on_threads(std::vector<Tensor>& values, unsigned threads) const override {
    if (quant_.dynamic) quant_.load_weights(values);
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    with_conv_types(in_type_, out_type_, [&](auto a, auto o) {
      using A = decltype(a);
      using O = decltype(o);
      const ConvCall<A, O> call{reinterpret_cast<const A*>(in.bytes.data()), quant_.input_zero_point, quant_.output,
                                reinterpret_cast<O*>(out.bytes.data())};
      if (packed_ && threads > 1) {
        qparity::depthwise_conv2d_threaded(*packed_, call, threads);
      } else if (packed_) {
        qparity::depthwise_conv2d(*packed_, call);
      } else {
        DepthwiseConv2DProblem<A, O> p;
        p.geometry = geometry_;
        p.weights = quant_.weights();
        p.call = call;
        if (engine_ == Engine::kFast) {
          qparity::depthwise_conv2d(p, system_.preset.core, system_.preset.accumulator);
        } else {
          qparity::reference::depthwise_conv2d(p, system_.preset.core, system_.preset.accumulator);
        }
      }
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> lines = describe_conv_quant(quant_, system_);
    if (packed_) lines.push_back(fmt::format("kernel: {}", packed_->kernel_name()));
    return lines;
  }

 private:
  System system_;
  Engine engine_;
  int in_, out_;
  DType in_type_{}, out_type_{};
  DepthwiseConv2DGeometry geometry_;
  mutable ConvQuant quant_;  // dynamic weights are reloaded by run()
  std::unique_ptr<PackedDepthwiseConv2D> packed_;
};

// A float32 DEPTHWISE_CONV_2D under a float precision (include/qparity/float_precision.h).
class FloatDepthwisePrepared : public PreparedNode {
 public:
  FloatDepthwisePrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), geometry_(conv_shapes(g, n).geometry), activation_(n.opts<DepthwiseConv2DOptions>().activation),
        in_(n.inputs[0]), filter_(n.inputs[1]), bias_(has_input(n, 2) ? n.inputs[2] : -1), out_(n.outputs[0]) {}

  void run(std::vector<Tensor>& values) const override {
    const float* bias = bias_ < 0 ? nullptr : data_of(values[static_cast<std::size_t>(bias_)]);
    reference::float_depthwise_conv2d(geometry_, *system_.float_precision,
                                      data_of(values[static_cast<std::size_t>(in_)]),
                                      data_of(values[static_cast<std::size_t>(filter_)]), bias, float_clamp(activation_),
                                      reinterpret_cast<float*>(values[static_cast<std::size_t>(out_)].bytes.data()));
  }

  std::vector<std::string> describe() const override { return describe_float_conv(system_, "ky, kx", activation_); }

 private:
  static const float* data_of(const Tensor& t) { return reinterpret_cast<const float*>(t.bytes.data()); }

  System system_;
  DepthwiseConv2DGeometry geometry_;
  Activation activation_;
  int in_, filter_, bias_, out_;
};

class DepthwiseConv2DOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 3, 1);
    const ConvShapes s = conv_shapes(g, n);
    if (accumulates_only(g, n)) {
      check_accumulate_tensors(g, n, 3, s.geometry.out_channels(),
                               n.opts<DepthwiseConv2DOptions>().activation != Activation::kNone);
    } else {
      check_conv_tensors(g, n, 3, s.geometry.out_channels());
    }
    set_output_shape(g, n, 0, {s.geometry.batch, s.window.out_h, s.window.out_w, s.geometry.out_channels()});
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatDepthwisePrepared>(g, n, sys);
    if (accumulates_only(g, n)) {
      const ConvShapes s = conv_shapes(g, n);
      Conv2DGeometry c;  // the depthwise window as a convolution with one group per input channel
      c.batch = s.geometry.batch;
      c.in_h = s.geometry.in_h;
      c.in_w = s.geometry.in_w;
      c.in_channels = s.geometry.in_channels;
      c.out_channels = s.geometry.out_channels();
      c.groups = s.geometry.in_channels;
      c.window = s.geometry.window;
      return prepare_conv_accumulate(g, n, sys, c, s.window, s.geometry.depth_multiplier);
    }
    return std::make_unique<DepthwisePrepared>(g, n, sys, engine);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    auto o = std::make_shared<DepthwiseConv2DOptions>();
    const tflite::DepthwiseConv2DOptions* t = op.builtin_options_as_DepthwiseConv2DOptions();
    if (t == nullptr) throw cli::ToolError(fmt::format("{}: DepthwiseConv2DOptions missing", label));
    o->window.padding = padding_from_tflite(t->padding(), label);
    // Redundant with the shapes (filter channels / input channels); TFLite's kernels check that the
    // two agree, and so does check() here: 0 (some converters' "derive it") is left to the shapes.
    if (t->depth_multiplier() < 0) {
      throw cli::ToolError(fmt::format("{}: depth_multiplier = {}; allowed: 0 (derived from the shapes) or the "
                                       "filter's channels / the input's channels", label, t->depth_multiplier()));
    }
    o->depth_multiplier = static_cast<std::size_t>(t->depth_multiplier());
    o->window.stride_h = positive(t->stride_h(), "stride_h", label);
    o->window.stride_w = positive(t->stride_w(), "stride_w", label);
    o->window.dilation_h = positive(t->dilation_h_factor(), "dilation_h_factor", label);
    o->window.dilation_w = positive(t->dilation_w_factor(), "dilation_w_factor", label);
    o->activation = activation_from_tflite(t->fused_activation_function(), label);
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const auto& o = n.opts<DepthwiseConv2DOptions>();
    const auto off = tflite::CreateDepthwiseConv2DOptions(
        b, static_cast<tflite::Padding>(padding_to_tflite(o.window.padding)), static_cast<int>(o.window.stride_w),
        static_cast<int>(o.window.stride_h), static_cast<int>(o.depth_multiplier),
        static_cast<tflite::ActivationFunctionType>(activation_to_tflite(o.activation)),
        static_cast<int>(o.window.dilation_w), static_cast<int>(o.window.dilation_h));
    return {tflite::BuiltinOptions_DepthwiseConv2DOptions, off.o};
  }

  std::vector<OpSample> samples() const override { return conv_like_samples(OpKind::kDepthwiseConv2D); }

  // XNNPACK's delegate takes a quantized convolution with a static filter and bias, int8
  // (per-tensor or per-channel filter) or uint8 (per-tensor); it then runs qs8_qc8w / qu8 GEMMs.
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    return input_def(g, n, 1).constant() && (!has_input(n, 2) || input_def(g, n, 2).constant()) &&
           !(input_def(g, n, 0).dtype == DType::kUint8 && input_def(g, n, 1).quant.per_axis());
  }

  // TFLite's own DEPTHWISE_CONV_2D: optimized_integer_ops::DepthwiseConvPerChannel, which
  // requantizes with MultiplyByQuantizedMultiplier (double rounding in the default build; measured
  // with LiteRT.js's WebAssembly build, docs/semantics.md §20). On ARM its NEON paths round the
  // second stage upward instead (DepthwiseConvOutputRounding::kUpward, and
  // MultiplyByQuantizedMultiplier4Rows in the general path's blocks of 8 channels; docs/semantics.md
  // §3.6): modelled as DR-UP for every channel, which the general path's leftover channels
  // (count % 8) do not follow (UNVERIFIED on hardware).
  Preset tflite_builtin_preset(const Graph&, const Node&, Target target) const override {
    Preset p = find_preset("tflite-reference");
    if (target == Target::kArm) {
      p.core = RoundingCore::kDoubleRoundingUpward;
      p.name = "tflite-neon-depthwise";
      p.description = "TFLite's NEON depthwise kernels: double rounding, second stage upward (DR-UP)";
    }
    return p;
  }

  // XNNPACK requantizes int8 depthwise convolutions in float32 (qs8_qc8w dwconv); uint8 on ARM:
  // rndnu (UNVERIFIED for the delegate's choice).
  Preset xnnpack_preset(const Graph& g, const Node& n, Target target) const override {
    if (target == Target::kArm && input_def(g, n, 0).dtype == DType::kUint8) return find_preset("xnnpack-rndnu");
    return find_preset("xnnpack-fp32");
  }

 private:
  static std::size_t positive(int v, const char* field, const std::string& label) {
    if (v < 1) throw cli::ToolError(fmt::format("{}: {} = {}; allowed: >= 1", label, field, v));
    return static_cast<std::size_t>(v);
  }
};

}  // namespace

const Op& depthwise_conv2d_op() {
  static const DepthwiseConv2DOp op;
  return op;
}

}  // namespace qparity::model
