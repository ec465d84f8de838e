// LOGISTIC and LEAKY_RELU on int8 / uint8 tensors, as ONNX Runtime computes them: a 256-entry table
// built from the float32 function (include/qparity/reference/ort_lookup_table.h, docs/semantics.md
// §22.7). They come from .onnx models only: com.microsoft QLinearSigmoid / QLinearLeakyRelu and the
// QDQ groups DequantizeLinear -> Sigmoid / LeakyRelu -> QuantizeLinear.
//
// System -> arithmetic: the ONNX Runtime systems (presets onnxruntime, onnxruntime-qdq-float and
// onnxruntime-pairsat16, so every ort-cpu* profile) get ORT's table: QlinearBuildLookupTable
// (onnxruntime/contrib_ops/cpu/quantization/qlinear_lookup_table.cc) over MLAS's FMA3 logistic or
// LeakyRelu's select. An unfused QDQ group (ort-cpu-unfused, and int8 at level all) runs
// DequantizeLinear, the float Sigmoid (MlasComputeLogistic) or LeakyRelu, and QuantizeLinear
// (MlasQuantizeLinear) per element: the same float32 operations in the same order, so the same
// bits (measured, §22.7). Every other system is refused with an error naming the node: TFLite's
// LOGISTIC (its int8 table and fixed-point paths), its LEAKY_RELU (two multipliers, §21.11),
// XNNPACK's and the NPU hypotheses are not modelled, which is also why the op list gives these ops
// no .tflite operator code (the .tflite reader refuses them and the writer cannot write them).
//
// Engine::kFast looks the prepared table up; Engine::kReference computes ort_lookup_value per
// element (the same bits by construction).
#include "model/ops/lookup_activation.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>

#include "model/ops/op_variants.h"
#include "preset_params.h"
#include "qparity/reference/ort_lookup_table.h"
#include "tool_error.h"

namespace qparity::model {

std::string LeakyReluOptions::describe() const {
  return fmt::format("alpha {}", alpha);
}

namespace {

using reference::OrtTableFunction;

class OrtTablePrepared : public PreparedNode {
 public:
  OrtTablePrepared(const Graph& g, const Node& n, const System& sys, Engine engine, OrtTableFunction f)
      : system_(sys), f_(f), in_(n.inputs[0]), out_(n.outputs[0]), fast_(engine == Engine::kFast), qdq_(n.onnx_qdq) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    type_ = in.dtype;
    iq_ = tensor_quant(in);
    oq_ = tensor_quant(out);
    if (f == OrtTableFunction::kLeakyRelu) alpha_ = n.opts<LeakyReluOptions>().alpha;
    try {
      reference::detail::require_scale("input scale", iq_.scale);
      reference::detail::require_scale("output scale", oq_.scale);
    } catch (const InvalidArgument& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      const std::array<T, 256> t = reference::ort_lookup_table<T>(f_, alpha_, iq_, oq_);
      std::memcpy(table_.data(), t.data(), 256);
    });
    in_text_ = quant_text(in);
    out_text_ = quant_text(out);
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::size_t count = in.elements();
    if (fast_) {
      for (std::size_t i = 0; i < count; ++i) out.bytes[i] = table_[in.bytes[i]];
      return;
    }
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      const T* x = data_of<T>(in);
      T* y = data_of<T>(out);
      for (std::size_t i = 0; i < count; ++i) y[i] = reference::ort_lookup_value<T>(x[i], f_, alpha_, iq_, oq_);
    });
  }

  std::vector<std::string> describe() const override {
    const bool sigmoid = f_ == OrtTableFunction::kSigmoid;
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    const bool unfused = system_.preset.name == "onnxruntime-qdq-float";
    if (qdq_) {
      l.push_back(
          unfused
              ? fmt::format("QDQ group in float32: DequantizeLinear, {} (float), QuantizeLinear, per element "
                            "(the same operations as the fused table)",
                            sigmoid ? "Sigmoid" : "LeakyRelu")
              : fmt::format("QDQ group fused into com.microsoft.{}", sigmoid ? "QLinearSigmoid" : "QLinearLeakyRelu"));
    }
    l.push_back(
        fmt::format("ONNX Runtime's 256-entry table (qlinear_lookup_table.cc, "
                    "include/qparity/reference/ort_lookup_table.h): y = quantize(f(float({} * float(x - {}))))",
                    iq_.scale, iq_.zero_point));
    l.push_back(sigmoid ? std::string("f = MLAS logistic, x86 FMA3 kernel: v clamped to [-18, 18], Eigen's rational "
                                      "polynomial with fused multiply-adds, max(p / q + 0.5, 0)")
                        : fmt::format("f(v) = v >= 0 ? v : float({} * v)", alpha_));
    l.push_back(fmt::format("quantize(y) = clamp(round_half_even(y / {}) + {}) (MlasQuantizeLinear)", oq_.scale,
                            oq_.zero_point));
    l.push_back("input " + in_text_ + ", output " + out_text_);
    return l;
  }

 private:
  System system_;
  OrtTableFunction f_;
  int in_, out_;
  bool fast_;
  bool qdq_;
  DType type_{};
  reference::TensorQuant iq_, oq_;
  float alpha_ = 0.0f;
  std::array<std::uint8_t, 256> table_{};
  std::string in_text_, out_text_;
};

class OrtTableOp : public Op {
 public:
  explicit OrtTableOp(OrtTableFunction f) : f_(f) {}

  std::vector<OpSample> samples() const override {
    const OpKind kind = f_ == OrtTableFunction::kSigmoid ? OpKind::kLogistic : OpKind::kLeakyRelu;
    std::vector<OpSample> out;
    for (const DType t : {DType::kInt8, DType::kUint8}) {
      const bool s8 = t == DType::kInt8;
      SampleBuilder b(s8 ? "int8" : "uint8");
      const int x = b.input("x", t, {2, 16}, 0.05f, s8 ? -3 : 125);
      const int y = f_ == OrtTableFunction::kSigmoid ? b.output("y", t, 1.0f / 256.0f, s8 ? -128 : 0)
                                                     : b.output("y", t, 0.04f, s8 ? 20 : 150);
      std::shared_ptr<const OpOptions> o;
      if (f_ == OrtTableFunction::kLeakyRelu) {
        auto lo = std::make_shared<LeakyReluOptions>();
        lo->alpha = 0.1f;
        o = lo;
      }
      b.node(kind, {x}, {y}, o);
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8});
    require_per_tensor(g, n, in, "input");
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, out, "output", {in.dtype});
    require_per_tensor(g, n, out, "output");
    if (f_ == OrtTableFunction::kLeakyRelu) {
      if (dynamic_cast<const LeakyReluOptions*>(n.options.get()) == nullptr)
        node_error(g, n, "has no LeakyRelu options");
      const float alpha = n.opts<LeakyReluOptions>().alpha;
      if (!std::isfinite(alpha)) node_error(g, n, fmt::format("alpha {}; allowed: a finite float", alpha));
    }
    set_output_shape(g, n, 0, in.shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    check_system_fits(g, n, sys);
    if (!is_onnxruntime_system(sys)) {
      node_error(g, n,
                 fmt::format("under {}: qparity has {}'s arithmetic only as ONNX Runtime computes it; allowed: the "
                             "ort-cpu* profiles or the onnxruntime preset",
                             sys.name, f_ == OrtTableFunction::kSigmoid ? "LOGISTIC" : "LEAKY_RELU"));
    }
    return std::make_unique<OrtTablePrepared>(g, n, sys, engine, f_);
  }

 private:
  OrtTableFunction f_;
};

}  // namespace

const Op& logistic_op() {
  static const OrtTableOp op(OrtTableFunction::kSigmoid);
  return op;
}

const Op& leaky_relu_op() {
  static const OrtTableOp op(OrtTableFunction::kLeakyRelu);
  return op;
}

}  // namespace qparity::model
