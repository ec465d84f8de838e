// TRANSPOSE: output dimension i is input dimension perm[i]; no arithmetic (elements are moved, the
// quantization is the input's, as in TFLite's kernel, which requires equal scale and zero point).
// The permutation is the constant int32/int64 input 1. The ONNX importer puts one at every 4-D
// graph input and output so that the user-facing tensors keep ONNX's NCHW layout while qparity's
// convolutions run NHWC (onnx/onnx_reader.cc).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "model/op.h"
#include "model/ops/data_ops.h"
#include "tool_error.h"

namespace qparity::model {

namespace {

// Reads and checks the permutation of a node (input 1, constant, a permutation of 0..rank-1).
std::vector<std::size_t> permutation_of(const Graph& g, const Node& n, std::size_t rank) {
  const TensorDef& p = input_def(g, n, 1);
  require_dtype(g, n, p, "perm", {DType::kInt32, DType::kInt64});
  if (!p.constant()) node_error(g, n, fmt::format("perm '{}' is computed at run time; allowed: a constant", p.name));
  if (p.data->elements() != rank) {
    node_error(g, n,
               fmt::format("perm '{}' has {} elements for an input of rank {}", p.name, p.data->elements(), rank));
  }
  std::vector<std::size_t> perm;
  std::vector<bool> seen(rank, false);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t v = p.data->integer_at(i);
    if (v < 0 || static_cast<std::size_t>(v) >= rank || seen[static_cast<std::size_t>(v)]) {
      node_error(g, n,
                 fmt::format("perm '{}' is not a permutation of 0..{} (element {} = {})", p.name, rank - 1, i, v));
    }
    seen[static_cast<std::size_t>(v)] = true;
    perm.push_back(static_cast<std::size_t>(v));
  }
  return perm;
}

class TransposePrepared : public PreparedNode {
 public:
  TransposePrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = g.tensors[static_cast<std::size_t>(in_)];
    shape_ = in.shape;
    perm_ = permutation_of(g, n, shape_.size());
    elem_ = cli::size_of(in.dtype);
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& x = values[static_cast<std::size_t>(in_)];
    Tensor& y = values[static_cast<std::size_t>(out_)];
    const std::size_t rank = shape_.size();
    // The ONNX importer's layout changes of 8-bit activations (NCHW <-> NHWC) as plain loops: each
    // image is a [rows, cols] matrix transposed (NCHW -> NHWC: rows C, cols H*W; back: rows H*W,
    // cols C), blocked so that both sides stay in cache.
    if (elem_ == 1 && rank == 4 &&
        (perm_ == std::vector<std::size_t>{0, 2, 3, 1} || perm_ == std::vector<std::size_t>{0, 3, 1, 2})) {
      const bool to_nhwc = perm_[1] == 2;
      const std::size_t rows = to_nhwc ? shape_[1] : shape_[1] * shape_[2];
      const std::size_t cols = to_nhwc ? shape_[2] * shape_[3] : shape_[3];
      constexpr std::size_t kBlock = 32;
      for (std::size_t n = 0; n < shape_[0]; ++n) {
        const std::uint8_t* src = x.bytes.data() + n * rows * cols;
        std::uint8_t* dst = y.bytes.data() + n * rows * cols;
        if (rows == 3) {
          // An RGB image (every image model's input): each output pixel's three bytes in one pass
          // over the three planes; the blocked loop below writes them in three strided passes.
          const std::uint8_t *p0 = src, *p1 = src + cols, *p2 = src + 2 * cols;
          for (std::size_t c = 0; c < cols; ++c) {
            dst[3 * c] = p0[c];
            dst[3 * c + 1] = p1[c];
            dst[3 * c + 2] = p2[c];
          }
          continue;
        }
        for (std::size_t r0 = 0; r0 < rows; r0 += kBlock) {
          const std::size_t r1 = std::min(rows, r0 + kBlock);
          for (std::size_t c0 = 0; c0 < cols; c0 += kBlock) {
            const std::size_t c1 = std::min(cols, c0 + kBlock);
            for (std::size_t r = r0; r < r1; ++r) {
              for (std::size_t c = c0; c < c1; ++c) dst[c * rows + r] = src[r * cols + c];
            }
          }
        }
      }
      return;
    }
    // Input strides (in elements), then walk the output in C order with an odometer.
    std::vector<std::size_t> in_stride(rank, 1);
    for (std::size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * shape_[d];
    std::vector<std::size_t> out_shape(rank), stride(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      out_shape[i] = shape_[perm_[i]];
      stride[i] = in_stride[perm_[i]];
    }
    const std::size_t total = x.elements();
    std::vector<std::size_t> idx(rank, 0);
    std::size_t src = 0;
    for (std::size_t o = 0; o < total; ++o) {
      std::memcpy(y.bytes.data() + o * elem_, x.bytes.data() + src * elem_, elem_);
      for (std::size_t d = rank; d-- > 0;) {
        if (++idx[d] < out_shape[d]) {
          src += stride[d];
          break;
        }
        src -= stride[d] * (out_shape[d] - 1);
        idx[d] = 0;
      }
    }
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("no arithmetic (elements moved, perm [{}])", fmt::join(perm_, ", "))};
  }

 private:
  System system_;
  int in_, out_;
  std::vector<std::size_t> shape_, perm_;
  std::size_t elem_ = 1;
};

class TransposeOp : public Op {
 public:
  // Float32 tensors are copied as they are, under an integer arithmetic or a float precision.
  FloatSupport float_support() const override { return FloatSupport::kDataMovement; }

  std::vector<OpSample> samples() const override {
    SampleBuilder b("int8, NCHW to NHWC");
    const int x = b.input("x", DType::kInt8, {1, 3, 2, 4}, 0.05f, -3);
    const int p = b.constant_values("perm", DType::kInt32, {4}, {0, 2, 3, 1});
    const int y = b.output("y", DType::kInt8, 0.05f, -3);
    b.node(OpKind::kTranspose, {x, p}, {y});
    return {b.finish()};
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 2, 1);
    const TensorDef& in = input_def(g, n, 0);
    const std::vector<std::size_t> perm = permutation_of(g, n, in.shape.size());
    const TensorDef& out = output_def(g, n, 0);
    if (out.dtype != in.dtype) {
      node_error(g, n,
                 fmt::format("output '{}' is {}, the input {}; allowed: the same type", out.name,
                             cli::to_string(out.dtype), cli::to_string(in.dtype)));
    }
    if (in.quant.present() && !same_quantization(in, out)) {
      node_error(g, n,
                 fmt::format("output '{}' is quantized differently from input '{}'; allowed: the same scale "
                             "and zero point (TRANSPOSE moves elements, it does not requantize)",
                             out.name, in.name));
    }
    std::vector<std::size_t> shape;
    for (std::size_t p : perm) shape.push_back(in.shape[p]);
    set_output_shape(g, n, 0, shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine) const override {
    return std::make_unique<TransposePrepared>(g, n, sys);
  }

  bool xnnpack_takes(const Graph&, const Node&) const override { return true; }
};

}  // namespace

const Op& transpose_op() {
  static const TransposeOp op;
  return op;
}

}  // namespace qparity::model
