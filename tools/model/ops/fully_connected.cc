// FULLY_CONNECTED: the input read as [batch, depth] (batch = elements / depth), OI filter, int32
// bias, fused activation; keep_num_dims keeps the input's leading dimensions. The arithmetic is the
// library's GEMM under the node's preset (include/qparity/fully_connected.h). Sources: TFLite
// kernels/fully_connected.cc, reference_integer_ops/fully_connected.h; XNNPACK's delegate:
// xnnpack_delegate.cc VisitFullyConnectedNode. Float32 ones run under a float precision
// (include/qparity/float_precision.h, docs/semantics.md §24); an int32 output makes it
// accumulate-only (int32_accumulate.h: ONNX MatMulInteger).
#include <fmt/format.h>

#include "model/ops/conv_common.h"
#include "model/ops/int32_accumulate.h"
#include "qparity/fully_connected.h"
#include "qparity/gemm.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

struct FcShape {
  std::size_t batch = 0, depth = 0, out = 0;
  std::vector<std::size_t> out_shape;
};

FcShape fc_shape(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& filter = input_def(g, n, 1);
  if (filter.shape.size() != 2 || filter.shape[0] == 0 || filter.shape[1] == 0) {
    node_error(g, n, fmt::format("filter '{}' has shape {}; allowed: [output depth, input depth], both >= 1",
                                 filter.name, cli::shape_text(filter.shape)));
  }
  FcShape s;
  s.out = filter.shape[0];
  s.depth = filter.shape[1];
  std::size_t elements = 1;
  for (std::size_t d : in.shape) elements *= d;  // checked by the importer against overflow
  if (in.shape.empty() || elements == 0 || elements % s.depth != 0) {
    node_error(g, n, fmt::format("input '{}' of shape {} has {} elements, not a positive multiple of the filter's "
                                 "input depth {}", in.name, cli::shape_text(in.shape), elements, s.depth));
  }
  s.batch = elements / s.depth;
  if (n.opts<FullyConnectedOptions>().keep_num_dims) {
    if (in.shape.back() != s.depth) {
      node_error(g, n, fmt::format("keep_num_dims needs the input's last dimension ({}) to be the filter's input "
                                   "depth {}", in.shape.back(), s.depth));
    }
    s.out_shape = in.shape;
    s.out_shape.back() = s.out;
  } else {
    s.out_shape = {s.batch, s.out};
  }
  return s;
}

class FcPrepared : public PreparedNode {
 public:
  FcPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), engine_(engine), in_(n.inputs[0]), out_(n.outputs[0]) {
    shape_ = fc_shape(g, n);
    in_type_ = input_def(g, n, 0).dtype;
    out_type_ = g.tensors[static_cast<std::size_t>(out_)].dtype;
    quant_ = derive_conv_quant(g, n, sys.preset, shape_.out, n.opts<FullyConnectedOptions>().activation);
    if (engine == Engine::kFast && !quant_.dynamic) {
      try {
        packed_ = std::make_unique<PackedGemm>(gemm_weights_of(fc_weights()), sys.preset.core, sys.preset.accumulator);
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
      const FullyConnectedCall<A, O> call{shape_.batch, reinterpret_cast<const A*>(in.bytes.data()),
                                          quant_.input_zero_point, quant_.output, reinterpret_cast<O*>(out.bytes.data())};
      if (packed_ && threads > 1) {
        // fully_connected() as a GEMM call, split over threads.
        qparity::gemm_threaded(*packed_, GemmCall<A, O>{call.batch, call.input, 0, call.input_zero_point, call.output,
                                                        call.out, 0},
                               threads);
      } else if (packed_) {
        qparity::fully_connected(*packed_, call);
      } else if (engine_ == Engine::kFast) {
        qparity::gemm(gemm_problem_of(fc_weights(), call), system_.preset.core, system_.preset.accumulator);
      } else {
        qparity::reference::gemm(gemm_problem_of(fc_weights(), call), system_.preset.core, system_.preset.accumulator);
      }
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> lines = describe_conv_quant(quant_, system_);
    if (packed_) lines.push_back(fmt::format("kernel: {}", packed_->kernel_name(shape_.batch)));
    return lines;
  }

 private:
  FullyConnectedWeights fc_weights() const {
    const ConvWeights w = quant_.weights();
    FullyConnectedWeights f;
    f.output_depth = shape_.out;
    f.input_depth = shape_.depth;
    f.filter = w.filter;
    f.filter_zero_points = w.filter_zero_points;
    f.filter_zero_point_per_channel = w.filter_zero_point_per_channel;
    f.bias = w.bias;
    f.params = w.params;
    f.per_channel = w.per_channel;
    return f;
  }

  System system_;
  Engine engine_;
  int in_, out_;
  DType in_type_{}, out_type_{};
  FcShape shape_;
  mutable ConvQuant quant_;  // dynamic weights are reloaded by run()
  std::unique_ptr<PackedGemm> packed_;
};

// A float32 FULLY_CONNECTED under a float precision (include/qparity/float_precision.h).
class FloatFcPrepared : public PreparedNode {
 public:
  FloatFcPrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), shape_(fc_shape(g, n)), activation_(n.opts<FullyConnectedOptions>().activation),
        in_(n.inputs[0]), filter_(n.inputs[1]), bias_(has_input(n, 2) ? n.inputs[2] : -1), out_(n.outputs[0]) {}

  void run(std::vector<Tensor>& values) const override {
    const float* bias = bias_ < 0 ? nullptr : data_of(values[static_cast<std::size_t>(bias_)]);
    reference::float_fully_connected(shape_.batch, shape_.depth, shape_.out, *system_.float_precision,
                                     data_of(values[static_cast<std::size_t>(in_)]),
                                     data_of(values[static_cast<std::size_t>(filter_)]), bias, float_clamp(activation_),
                                     reinterpret_cast<float*>(values[static_cast<std::size_t>(out_)].bytes.data()));
  }

  std::vector<std::string> describe() const override {
    return describe_float_conv(system_, "input depth", activation_);
  }

 private:
  static const float* data_of(const Tensor& t) { return reinterpret_cast<const float*>(t.bytes.data()); }

  System system_;
  FcShape shape_;
  Activation activation_;
  int in_, filter_, bias_, out_;
};

class FullyConnectedOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 3, 1);
    const FcShape s = fc_shape(g, n);
    if (accumulates_only(g, n)) {
      check_accumulate_tensors(g, n, 0, s.out, n.opts<FullyConnectedOptions>().activation != Activation::kNone);
    } else {
      check_conv_tensors(g, n, 0, s.out);
    }
    set_output_shape(g, n, 0, s.out_shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatFcPrepared>(g, n, sys);
    if (accumulates_only(g, n)) {
      const FcShape s = fc_shape(g, n);
      return prepare_fc_accumulate(g, n, sys, s.batch, s.depth, s.out);
    }
    return std::make_unique<FcPrepared>(g, n, sys, engine);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    auto o = std::make_shared<FullyConnectedOptions>();
    const tflite::FullyConnectedOptions* t = op.builtin_options_as_FullyConnectedOptions();
    if (t == nullptr) return o;  // all defaults
    if (t->weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT) {
      throw cli::ToolError(fmt::format("{}: weights_format = {} (shuffled weights) is not supported; allowed: "
                                       "DEFAULT (0)", label, static_cast<int>(t->weights_format())));
    }
    if (t->asymmetric_quantize_inputs()) {
      throw cli::ToolError(fmt::format("{}: asymmetric_quantize_inputs (dynamic-range quantization) is not "
                                       "supported; allowed: false", label));
    }
    o->activation = activation_from_tflite(t->fused_activation_function(), label);
    o->keep_num_dims = t->keep_num_dims();
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const auto& o = n.opts<FullyConnectedOptions>();
    const auto off = tflite::CreateFullyConnectedOptions(
        b, static_cast<tflite::ActivationFunctionType>(activation_to_tflite(o.activation)),
        tflite::FullyConnectedOptionsWeightsFormat_DEFAULT, o.keep_num_dims);
    return {tflite::BuiltinOptions_FullyConnectedOptions, off.o};
  }

  std::vector<OpSample> samples() const override { return conv_like_samples(OpKind::kFullyConnected); }

  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    return input_def(g, n, 1).constant() && (!has_input(n, 2) || input_def(g, n, 2).constant()) &&
           !(input_def(g, n, 0).dtype == DType::kUint8 && input_def(g, n, 1).quant.per_axis());
  }

  // TFLite's own FULLY_CONNECTED: optimized_integer_ops::FullyConnected through cpu_backend_gemm
  // (ruy), as CONV_2D (single rounding in the WebAssembly build: measured, docs/semantics.md §20).
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


  Preset xnnpack_preset(const Graph& g, const Node& n, Target target) const override {
    if (target == Target::kArm && input_def(g, n, 0).dtype == DType::kUint8) return find_preset("xnnpack-rndnu");
    return find_preset("xnnpack-fp32");
  }
};

}  // namespace

const Op& fully_connected_op() {
  static const FullyConnectedOp op;
  return op;
}

}  // namespace qparity::model
