// SOFTMAX under ONNX Runtime's systems, over the last dimension (the reader only maps softmaxes
// over the last axis); docs/semantics.md §22.8:
//   fused (QLinearSoftmax; QDQ groups at level basic and above): the exponential table, float32
//     sum and division of include/qparity/reference/ort_softmax.h;
//   unfused QDQ group (preset onnxruntime-qdq-float[-fma3], ORT at level disabled): dequantize,
//     MLAS's float32 Softmax with the AVX512F or FMA3 sum of exponentials, QuantizeLinear
//     (include/qparity/reference/ort_float_softmax.h).
// Both engines call the reference row functions: a row is two passes already, and the fused
// table is the per-node precomputation.
#include "model/ops/softmax_ort.h"

#include <fmt/format.h>

#include "model/ops/data_ops.h"
#include "model/ops/op_variants.h"
#include "qparity/reference/ort_float_softmax.h"
#include "qparity/reference/ort_softmax.h"

namespace qparity::model {

namespace {

class OrtSoftmaxPrepared : public PreparedNode {
 public:
  OrtSoftmaxPrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    type_ = in.dtype;
    row_ = in.shape.back();
    x_scale_ = in.quant.scales[0];
    y_scale_ = out.quant.scales[0];
    y_zp_ = static_cast<std::int32_t>(out.quant.zero_point());
    exps_ = reference::ort_softmax_exp_table(x_scale_, row_);
    mult_ = reference::ort_softmax_output_multiplier(y_scale_);
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::size_t rows = in.elements() / row_;
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      const T* x = data_of<T>(in);
      T* y = data_of<T>(out);
      for (std::size_t r = 0; r < rows; ++r) {
        reference::ort_qlinear_softmax_row<T>(x + r * row_, y + r * row_, row_, exps_, mult_, y_zp_);
      }
    });
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("ONNX Runtime QLinearSoftmax (qlinear_softmax.cc, MLAS qsoftmax_kernel_avx2.cpp; "
                        "include/qparity/reference/ort_softmax.h), rows of {}: e[d] = float(exp((255 - d - 255 + "
                        "shift) * {})), shift = max(0, log(FLT_MAX / {}) - 5) / {}, d = row max - x",
                        row_, x_scale_, row_, x_scale_),
            fmt::format("sum: 8 float32 lanes over blocks of 16, the tail apart, then tail + lanes 0..7; y = "
                        "sat(round_half_even(float(e[d] * float((1 / sum) * {})) + {})) (multiplier floor(1 / {}))",
                        mult_, y_zp_, y_scale_)};
  }

 private:
  System system_;
  int in_, out_;
  DType type_{};
  std::size_t row_ = 1;
  float x_scale_ = 1.0f, y_scale_ = 1.0f, mult_ = 1.0f;
  std::int32_t y_zp_ = 0;
  std::array<float, 256> exps_{};
};

// The unfused QDQ group: DequantizeLinear, ORT's float32 Softmax (MlasComputeSoftmax), QuantizeLinear.
class OrtFloatSoftmaxPrepared : public PreparedNode {
 public:
  OrtFloatSoftmaxPrepared(const Graph& g, const Node& n, const System& sys, reference::MlasSoftmaxIsa isa)
      : system_(sys), isa_(isa), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    type_ = in.dtype;
    row_ = in.shape.back();
    iq_ = tensor_quant(in);
    oq_ = tensor_quant(g.tensors[static_cast<std::size_t>(out_)]);
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::size_t rows = in.elements() / row_;
    std::vector<float> scratch(2 * row_);
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      const T* x = data_of<T>(in);
      T* y = data_of<T>(out);
      for (std::size_t r = 0; r < rows; ++r) {
        reference::ort_float_softmax_row<T>(x + r * row_, y + r * row_, row_, iq_, oq_, isa_, scratch.data());
      }
    });
  }

  std::vector<std::string> describe() const override {
    const bool avx512 = isa_ == reference::MlasSoftmaxIsa::kAvx512F;
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("ONNX Runtime unfused QDQ Softmax (MLAS MlasComputeSoftmax, {}; "
                        "include/qparity/reference/ort_float_softmax.h), rows of {}: v = float(x - {}) * {}, "
                        "e = MLAS exp(v - max) (FMA polynomial, {})",
                        avx512 ? "TransKernelAvx512F.S" : "TransKernelFma3.S", row_, iq_.zero_point, iq_.scale,
                        avx512 ? "VSCALEFPS" : "exponent bits"),
            fmt::format("sum: {} float32 lanes over blocks of {}, then chunks of {}, lanes paired by VHADDPS; y = "
                        "QuantizeLinear(e * float(1 / sum), {}, {}) (float division, round half to even)",
                        avx512 ? 16 : 8, avx512 ? 48 : 24, avx512 ? 16 : 8, oq_.scale, oq_.zero_point)};
  }

 private:
  System system_;
  reference::MlasSoftmaxIsa isa_;
  int in_, out_;
  DType type_{};
  std::size_t row_ = 1;
  reference::TensorQuant iq_, oq_;
};

}  // namespace

std::unique_ptr<PreparedNode> prepare_ort_softmax(const Graph& g, const Node& n, const System& sys) {
  const float beta = n.opts<SoftmaxOptions>().beta;
  if (beta != 1.0f) {
    node_error(
        g, n,
        fmt::format("under {}: beta = {}; allowed: 1 (ONNX Runtime's QLinearSoftmax has no beta)", sys.name, beta));
  }
  // ort_system: an unfused QDQ group's float32 Softmax, with the CPU's MLAS kernel.
  if (sys.preset.name == "onnxruntime-qdq-float") {
    return std::make_unique<OrtFloatSoftmaxPrepared>(g, n, sys, reference::MlasSoftmaxIsa::kAvx512F);
  }
  if (sys.preset.name == "onnxruntime-qdq-float-fma3") {
    return std::make_unique<OrtFloatSoftmaxPrepared>(g, n, sys, reference::MlasSoftmaxIsa::kFma3);
  }
  return std::make_unique<OrtSoftmaxPrepared>(g, n, sys);
}

}  // namespace qparity::model
