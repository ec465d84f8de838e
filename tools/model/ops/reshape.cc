// RESHAPE: the same elements in a new shape; no arithmetic (the bytes are copied, as TFLite does:
// its converter gives input and output the same quantization). The shape comes from the constant
// shape input (input 1) when there is one, else from the options, else the declared output shape;
// one dimension may be -1.
#include <fmt/format.h>

#include "model/op.h"
#include "model/ops/reshape.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

std::string ReshapeOptions::describe() const {
  return has_new_shape ? fmt::format("new_shape [{}]", fmt::join(new_shape, ", ")) : std::string("shape from input 1");
}

namespace {

class CopyPrepared : public PreparedNode {
 public:
  CopyPrepared(const Node& n, const System& sys) : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {}
  void run(std::vector<Tensor>& values) const override {
    values[static_cast<std::size_t>(out_)].bytes = values[static_cast<std::size_t>(in_)].bytes;
  }
  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name), "no arithmetic (elements copied)"};
  }

 private:
  System system_;
  int in_, out_;
};

class ReshapeOp : public Op {
 public:
  // Float32 tensors are copied as they are, under an integer arithmetic or a float precision.
  FloatSupport float_support() const override { return FloatSupport::kDataMovement; }

  std::vector<OpSample> samples() const override {
    SampleBuilder b("int8, constant shape");
    const int x = b.input("x", DType::kInt8, {1, 1, 1, 8}, 0.05f, -3);
    const int s = b.constant_values("shape", DType::kInt32, {2}, {1, 8});
    const int y = b.output("y", DType::kInt8, 0.05f, -3);
    b.node(OpKind::kReshape, {x, s}, {y});
    return {b.finish()};
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 2, 1);
    const TensorDef& in = input_def(g, n, 0);
    TensorDef& out = output_def(g, n, 0);
    std::size_t elements = 1;
    for (std::size_t d : in.shape) elements *= d;
    std::vector<long long> want;
    bool have = false;
    if (has_input(n, 1)) {
      const TensorDef& s = input_def(g, n, 1);
      require_dtype(g, n, s, "shape", {DType::kInt32, DType::kInt64});
      if (s.constant()) {
        for (std::size_t i = 0; i < s.data->elements(); ++i) want.push_back(s.data->integer_at(i));
        have = true;
      }
    }
    if (!have && n.options && n.opts<ReshapeOptions>().has_new_shape) {
      want = n.opts<ReshapeOptions>().new_shape;
      have = true;
    }
    if (out.dtype != in.dtype) {
      node_error(g, n, fmt::format("output '{}' is {}, the input {}; allowed: the same type", out.name,
                                   cli::to_string(out.dtype), cli::to_string(in.dtype)));
    }
    if (!have) {
      std::size_t oe = 1;
      for (std::size_t d : out.shape) oe *= d;
      if (out.shape.empty() && elements != 1) {
        node_error(g, n, "the new shape is given neither by a constant shape input, the options, nor the output");
      }
      if (oe != elements) {
        node_error(g, n, fmt::format("output shape {} has {} elements, the input {} has {}", cli::shape_text(out.shape),
                                     oe, cli::shape_text(in.shape), elements));
      }
      return;
    }
    std::vector<std::size_t> shape;
    std::size_t known = 1;
    int infer = -1;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (want[i] == -1 && infer < 0) {
        infer = static_cast<int>(i);
        shape.push_back(1);
      } else if (want[i] < 0 || want[i] > (1LL << 40)) {
        node_error(g, n, fmt::format("new shape [{}] has dimension {} = {}; allowed: >= 0, or one -1",
                                     fmt::join(want, ", "), i, want[i]));
      } else {
        shape.push_back(static_cast<std::size_t>(want[i]));
        known *= static_cast<std::size_t>(want[i]);
      }
    }
    if (infer >= 0) {
      if (known == 0 || elements % known != 0) {
        node_error(g, n, fmt::format("new shape [{}] cannot hold the input's {} elements", fmt::join(want, ", "), elements));
      }
      shape[static_cast<std::size_t>(infer)] = elements / known;
    } else if (known != elements) {
      node_error(g, n, fmt::format("new shape [{}] has {} elements, the input {} has {}", fmt::join(want, ", "), known,
                                   cli::shape_text(in.shape), elements));
    }
    set_output_shape(g, n, 0, shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph&, const Node& n, const System& sys, Engine) const override {
    return std::make_unique<CopyPrepared>(n, sys);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string&) const override {
    auto o = std::make_shared<ReshapeOptions>();
    const tflite::ReshapeOptions* t = op.builtin_options_as_ReshapeOptions();
    if (t != nullptr && t->new_shape() != nullptr) {
      o->has_new_shape = true;
      for (int v : *t->new_shape()) o->new_shape.push_back(v);
    }
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    if (!n.options || !n.opts<ReshapeOptions>().has_new_shape) return {};
    std::vector<std::int32_t> shape;
    for (long long v : n.opts<ReshapeOptions>().new_shape) shape.push_back(static_cast<std::int32_t>(v));
    return {tflite::BuiltinOptions_ReshapeOptions, tflite::CreateReshapeOptions(b, b.CreateVector(shape)).o};
  }

  bool xnnpack_takes(const Graph&, const Node&) const override { return true; }
};

}  // namespace

const Op& reshape_op() {
  static const ReshapeOp op;
  return op;
}

// SQUEEZE: removes dimensions of size 1 (those listed, or all); no arithmetic.
std::string SqueezeOptions::describe() const {
  return dims.empty() ? std::string("every dimension of size 1") : fmt::format("dims [{}]", fmt::join(dims, ", "));
}

namespace {

class SqueezeOp : public Op {
 public:
  // Float32 tensors are copied as they are, under an integer arithmetic or a float precision.
  FloatSupport float_support() const override { return FloatSupport::kDataMovement; }

  std::vector<OpSample> samples() const override {
    SampleBuilder b("int8, squeeze H,W");
    const int x = b.input("x", DType::kInt8, {1, 1, 1, 8}, 0.05f, -3);
    const int y = b.output("y", DType::kInt8, 0.05f, -3);
    auto o = std::make_shared<SqueezeOptions>();
    o->dims = {1, 2};
    b.node(OpKind::kSqueeze, {x}, {y}, o);
    return {b.finish()};
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    const auto& dims = n.opts<SqueezeOptions>().dims;
    std::vector<bool> drop(in.shape.size(), false);
    for (long long d : dims) {
      const long long r = static_cast<long long>(in.shape.size());
      const long long k = d < 0 ? d + r : d;
      if (k < 0 || k >= r || in.shape[static_cast<std::size_t>(k)] != 1) {
        node_error(g, n, fmt::format("squeeze dimension {} of input shape {}; allowed: a dimension of size 1, "
                                     "-{} to {}", d, cli::shape_text(in.shape), r, r - 1));
      }
      drop[static_cast<std::size_t>(k)] = true;
    }
    std::vector<std::size_t> shape;
    for (std::size_t i = 0; i < in.shape.size(); ++i) {
      if (dims.empty() ? in.shape[i] == 1 : drop[i]) continue;
      shape.push_back(in.shape[i]);
    }
    if (output_def(g, n, 0).dtype != in.dtype) node_error(g, n, "the output's type differs from the input's");
    set_output_shape(g, n, 0, shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph&, const Node& n, const System& sys, Engine) const override {
    return std::make_unique<CopyPrepared>(n, sys);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string&) const override {
    auto o = std::make_shared<SqueezeOptions>();
    const tflite::SqueezeOptions* t = op.builtin_options_as_SqueezeOptions();
    if (t != nullptr && t->squeeze_dims() != nullptr) {
      for (int v : *t->squeeze_dims()) o->dims.push_back(v);
    }
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    std::vector<std::int32_t> dims;
    for (long long v : n.opts<SqueezeOptions>().dims) dims.push_back(static_cast<std::int32_t>(v));
    return {tflite::BuiltinOptions_SqueezeOptions, tflite::CreateSqueezeOptions(b, b.CreateVector(dims)).o};
  }

  bool xnnpack_takes(const Graph&, const Node&) const override { return true; }
};

}  // namespace

const Op& squeeze_op() {
  static const SqueezeOp op;
  return op;
}

}  // namespace qparity::model
