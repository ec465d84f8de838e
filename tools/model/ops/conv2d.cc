// CONV_2D: NHWC input, OHWI filter (grouped when the filter's I divides the input's channels),
// int32 bias, fused activation; the arithmetic is the library's conv2d under the node's preset
// (include/qparity/conv2d.h, reference_conv2d.h). Sources: TFLite kernels/conv.cc and
// reference_integer_ops/conv.h (docs/semantics.md §3.4); XNNPACK's delegate: xnnpack_delegate.cc
// VisitConv2DNode. Float32 convolutions run under a float precision (float_precision.h, §24); an
// int32 output makes it accumulate-only (int32_accumulate.h: ONNX ConvInteger).
#include <fmt/format.h>

#include "model/ops/conv_common.h"
#include "model/ops/int32_accumulate.h"
#include "qparity/conv2d.h"
#include "qparity/float_precision.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

struct ConvShapes {
  Conv2DGeometry geometry;
  ResolvedWindow window;
};

ConvShapes conv_shapes(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& filter = input_def(g, n, 1);
  if (in.shape.size() != 4) node_error(g, n, fmt::format("input '{}' has shape {}; allowed: NHWC (rank 4)", in.name, cli::shape_text(in.shape)));
  if (filter.shape.size() != 4) node_error(g, n, fmt::format("filter '{}' has shape {}; allowed: OHWI (rank 4)", filter.name, cli::shape_text(filter.shape)));
  for (std::size_t d : in.shape) {
    if (d == 0) node_error(g, n, fmt::format("input '{}' has an empty dimension ({})", in.name, cli::shape_text(in.shape)));
  }
  for (std::size_t d : filter.shape) {
    if (d == 0) node_error(g, n, fmt::format("filter '{}' has an empty dimension ({})", filter.name, cli::shape_text(filter.shape)));
  }
  const auto& o = n.opts<Conv2DOptions>();
  ConvShapes s;
  Conv2DGeometry& geo = s.geometry;
  geo.batch = in.shape[0];
  geo.in_h = in.shape[1];
  geo.in_w = in.shape[2];
  geo.in_channels = in.shape[3];
  geo.out_channels = filter.shape[0];
  const std::size_t icg = filter.shape[3];
  if (geo.in_channels % icg != 0) {
    node_error(g, n, fmt::format("input channels {} are not a multiple of the filter's {} (OHWI; a grouped "
                                 "convolution's I is in_channels / groups)", geo.in_channels, icg));
  }
  geo.groups = geo.in_channels / icg;
  if (geo.out_channels % geo.groups != 0) {
    node_error(g, n, fmt::format("{} groups do not divide the {} output channels", geo.groups, geo.out_channels));
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

class Conv2DPrepared : public PreparedNode {
 public:
  Conv2DPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), engine_(engine), in_(n.inputs[0]), out_(n.outputs[0]) {
    const ConvShapes s = conv_shapes(g, n);
    geometry_ = s.geometry;
    in_type_ = input_def(g, n, 0).dtype;
    out_type_ = g.tensors[static_cast<std::size_t>(out_)].dtype;
    quant_ = derive_conv_quant(g, n, sys.preset, geometry_.out_channels, n.opts<Conv2DOptions>().activation);
    if (engine == Engine::kFast && !quant_.dynamic) {
      try {
        packed_ = std::make_unique<PackedConv2D>(geometry_, quant_.weights(), sys.preset.core, sys.preset.accumulator);
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
        qparity::conv2d_threaded(*packed_, call, threads);
      } else if (packed_) {
        qparity::conv2d(*packed_, call);
      } else {
        Conv2DProblem<A, O> p;
        p.geometry = geometry_;
        p.weights = quant_.weights();
        p.call = call;
        if (engine_ == Engine::kFast) {
          qparity::conv2d(p, system_.preset.core, system_.preset.accumulator);
        } else {
          qparity::reference::conv2d(p, system_.preset.core, system_.preset.accumulator);
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
  Conv2DGeometry geometry_;
  mutable ConvQuant quant_;  // dynamic weights are reloaded by run()
  std::unique_ptr<PackedConv2D> packed_;
};

// A float32 CONV_2D under a float precision (include/qparity/float_precision.h); the filter and
// bias are read from the run's values, so a filter computed at run time works too.
class FloatConv2DPrepared : public PreparedNode {
 public:
  FloatConv2DPrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), geometry_(conv_shapes(g, n).geometry), activation_(n.opts<Conv2DOptions>().activation),
        in_(n.inputs[0]), filter_(n.inputs[1]), bias_(has_input(n, 2) ? n.inputs[2] : -1), out_(n.outputs[0]) {}

  void run(std::vector<Tensor>& values) const override {
    const float* bias = bias_ < 0 ? nullptr : data_of(values[static_cast<std::size_t>(bias_)]);
    reference::float_conv2d(geometry_, *system_.float_precision, data_of(values[static_cast<std::size_t>(in_)]),
                            data_of(values[static_cast<std::size_t>(filter_)]), bias, float_clamp(activation_),
                            reinterpret_cast<float*>(values[static_cast<std::size_t>(out_)].bytes.data()));
  }

  std::vector<std::string> describe() const override {
    return describe_float_conv(system_, "ky, kx, ic (OHWI)", activation_);
  }

 private:
  static const float* data_of(const Tensor& t) { return reinterpret_cast<const float*>(t.bytes.data()); }

  System system_;
  Conv2DGeometry geometry_;
  Activation activation_;
  int in_, filter_, bias_, out_;
};

class Conv2DOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 3, 1);
    const ConvShapes s = conv_shapes(g, n);
    if (accumulates_only(g, n)) {
      check_accumulate_tensors(g, n, 0, s.geometry.out_channels,
                               n.opts<Conv2DOptions>().activation != Activation::kNone);
    } else {
      check_conv_tensors(g, n, 0, s.geometry.out_channels);
    }
    set_output_shape(g, n, 0, {s.geometry.batch, s.window.out_h, s.window.out_w, s.geometry.out_channels});
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatConv2DPrepared>(g, n, sys);
    if (accumulates_only(g, n)) {
      const ConvShapes s = conv_shapes(g, n);
      return prepare_conv_accumulate(g, n, sys, s.geometry, s.window, 0);
    }
    return std::make_unique<Conv2DPrepared>(g, n, sys, engine);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    auto o = std::make_shared<Conv2DOptions>();
    const tflite::Conv2DOptions* t = op.builtin_options_as_Conv2DOptions();
    if (t == nullptr) throw cli::ToolError(fmt::format("{}: Conv2DOptions missing", label));
    o->window.padding = padding_from_tflite(t->padding(), label);
    o->window.stride_h = positive(t->stride_h(), "stride_h", label);
    o->window.stride_w = positive(t->stride_w(), "stride_w", label);
    o->window.dilation_h = positive(t->dilation_h_factor(), "dilation_h_factor", label);
    o->window.dilation_w = positive(t->dilation_w_factor(), "dilation_w_factor", label);
    o->activation = activation_from_tflite(t->fused_activation_function(), label);
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const auto& o = n.opts<Conv2DOptions>();
    const auto off = tflite::CreateConv2DOptions(
        b, static_cast<tflite::Padding>(padding_to_tflite(o.window.padding)), static_cast<int>(o.window.stride_w),
        static_cast<int>(o.window.stride_h), static_cast<tflite::ActivationFunctionType>(activation_to_tflite(o.activation)),
        static_cast<int>(o.window.dilation_w), static_cast<int>(o.window.dilation_h));
    return {tflite::BuiltinOptions_Conv2DOptions, off.o};
  }

  std::vector<OpSample> samples() const override { return conv_like_samples(OpKind::kConv2D); }

  // XNNPACK's delegate takes a quantized convolution with a static filter and bias, int8
  // (per-tensor or per-channel filter) or uint8 (per-tensor); it then runs qs8_qc8w / qu8 GEMMs.
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    return input_def(g, n, 1).constant() && (!has_input(n, 2) || input_def(g, n, 2).constant()) &&
           !(input_def(g, n, 0).dtype == DType::kUint8 && input_def(g, n, 1).quant.per_axis());
  }

  // TFLite's own CONV_2D: optimized_integer_ops::ConvPerChannel through cpu_backend_gemm, i.e. ruy,
  // which applies the multiplier itself: ruy-x86 (AVX kernels), ruy-arm, and ruy's portable path
  // in the WebAssembly build (single rounding: measured with LiteRT.js, docs/semantics.md §20).
  Preset tflite_builtin_preset(const Graph& g, const Node& n, Target target) const override {
    // uint8: the legacy uint8 path (optimized_ops), whose cpu_backend_gemm runs gemmlowp with its
    // double-rounding output stage where TFLite is built without TFLITE_WITH_RUY (x86, wasm: measured
    // with LiteRT.js for CONV_2D) and ruy on ARM, where TFLITE_WITH_RUY is the default.
    if (input_def(g, n, 0).dtype == DType::kUint8) {
      return find_preset(target == Target::kArm ? "ruy-arm" : "tflite-reference");
    }
    switch (target) {
      case Target::kX86: return find_preset("ruy-x86");
      case Target::kArm: return find_preset("ruy-arm");
      case Target::kWasm: return find_preset("tflite-single");
    }
    return find_preset("tflite-single");
  }


  // XNNPACK requantizes int8 convolutions in float32 everywhere (qs8_qc8w GEMMs); its uint8 GEMMs
  // on ARM are rndnu kernels (src/qu8-gemm/*-rndnu-*neon*; UNVERIFIED for the delegate's choice).
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

const Op& conv2d_op() {
  static const Conv2DOp op;
  return op;
}

}  // namespace qparity::model
