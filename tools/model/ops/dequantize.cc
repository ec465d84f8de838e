// DEQUANTIZE: int8/uint8 -> float32, x = s * (q - zp).
//   TFLite (reference_ops/dequantize.h): the product in double, then rounded to float32.
//   XNNPACK (qs8-f32-vcvt, as its delegate runs DEQUANTIZE): float32(q - zp) * s in float32.
// Both are one rounding of the exact product (|q - zp| <= 510 and s has 24 significant bits, so the
// product is exact in double, and float32(q - zp) is exact), hence the same float: one formula
// serves every system.
#include <fmt/format.h>

#include <cstring>

#include "model/op.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

class DequantizePrepared : public PreparedNode {
 public:
  DequantizePrepared(const Graph& g, const Node& n, const System& sys) : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    scale_ = in.quant.scales[0];
    zp_ = static_cast<std::int32_t>(in.quant.zero_point());
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::size_t n = in.elements();
    for (std::size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(static_cast<double>(scale_) * static_cast<double>(in.integer_at(i) - zp_));
      std::memcpy(out.bytes.data() + 4 * i, &v, 4);
    }
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name), fmt::format("x = {} * (q - {})", scale_, zp_)};
  }

 private:
  System system_;
  int in_, out_;
  float scale_ = 1.0f;
  std::int32_t zp_ = 0;
};

class DequantizeOp : public Op {
 public:
  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8});
    require_per_tensor(g, n, in, "input");
    require_dtype(g, n, g.tensors[static_cast<std::size_t>(n.outputs[0])], "output", {DType::kFloat32});
    set_output_shape(g, n, 0, in.shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine) const override {
    return std::make_unique<DequantizePrepared>(g, n, sys);
  }

  bool xnnpack_takes(const Graph&, const Node&) const override { return true; }
};

}  // namespace

const Op& dequantize_op() {
  static const DequantizeOp op;
  return op;
}

}  // namespace qparity::model
