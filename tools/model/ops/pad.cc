// PAD and PADV2: the input surrounded by pre / post paddings on every dimension (paddings: a
// constant int32 or int64 tensor of shape [rank, 2], values >= 0), the new elements set to one
// value. int8, uint8, float32. No arithmetic in any runtime:
//   * TFLite (LiteRT tflite/kernels/pad.cc, one kernel for both ops): the pad value of an 8-bit
//     tensor is the output's zero point (PAD, or PADV2 without constant_values), else
//     constant_values' integer, whose scale and zero point must equal the output's (EvalInt's
//     TF_LITE_ENSURE_EQ); float32 pads with 0.0f or constant_values. The input's integers are
//     copied unchanged: TFLite does not compare the input's quantization with the output's, so a
//     file where they differ gets its integers reinterpreted, not requantized (done so here too).
//     Its kernels take at most 5 dimensions (PadKernelMaxDimensionCount).
//   * XNNPACK (xnnpack_delegate.cc VisitPadNode, src/subgraph/static-constant-pad.c): PAD only (no
//     PADV2 visitor), 2 inputs, int32 static paddings, ranks 1 to 6, float32 or per-tensor 8-bit
//     tensors (quantized_dimension 0); pad value xnn_qs8_quantize(0.0f, s_out, zp_out) = the
//     output zero point, the same bits. xnn_define_static_constant_pad rejects an input whose
//     quantization differs from the output's; TFLite then drops the delegate (for the whole graph,
//     which qparity does not model: such a node is treated as declined, TFLite's kernel runs it).
// Both engines: the fast one copies, per index of the dimensions up to the last padded one, the
// contiguous block below it with one memcpy and fills the padding by blocks (memset for 8-bit);
// the reference one computes every output element from its coordinates.
#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <utility>

#include "model/op.h"
#include "model/ops/data_ops.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

constexpr std::size_t kTfliteMaxRank = 5;  // reference_ops::PadKernelMaxDimensionCount()
constexpr std::size_t kXnnpackMaxRank = 6;  // XNN_MAX_TENSOR_DIMS

struct PadSpec {
  std::vector<std::size_t> pre, post, out_shape;
};

PadSpec pad_spec(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& p = input_def(g, n, 1);
  const std::size_t rank = in.shape.size();
  if (p.dtype != DType::kInt32 && p.dtype != DType::kInt64) {
    node_error(g, n, fmt::format("paddings '{}' is {}; allowed: int32, int64", p.name, cli::to_string(p.dtype)));
  }
  if (!p.constant()) {
    node_error(g, n, fmt::format("paddings '{}' is computed at run time; allowed: a constant tensor (qparity needs the "
                                 "output shape before running; TFLite would make the output dynamic)", p.name));
  }
  if (p.shape.size() != 2 || p.shape[0] != rank || p.shape[1] != 2) {
    node_error(g, n, fmt::format("paddings '{}' has shape {}; allowed: [{}, 2] (one [pre, post] pair per input "
                                 "dimension)", p.name, cli::shape_text(p.shape), rank));
  }
  PadSpec s;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t a = p.data->integer_at(2 * d), b = p.data->integer_at(2 * d + 1);
    if (a < 0 || b < 0 || a > std::numeric_limits<std::int32_t>::max() || b > std::numeric_limits<std::int32_t>::max() ||
        static_cast<std::uint64_t>(in.shape[d]) + static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b) >
            static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
      node_error(g, n, fmt::format("paddings [{}, {}] on dimension {} of size {}; allowed: >= 0, padded size below 2^31",
                                   a, b, d, in.shape[d]));
    }
    s.pre.push_back(static_cast<std::size_t>(a));
    s.post.push_back(static_cast<std::size_t>(b));
    s.out_shape.push_back(in.shape[d] + s.pre.back() + s.post.back());
  }
  return s;
}

bool is_8bit(DType d) { return d == DType::kInt8 || d == DType::kUint8; }

class PadPrepared : public PreparedNode {
 public:
  PadPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), engine_(engine), op_(n.op), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    const PadSpec s = pad_spec(g, n);
    if (in.shape.size() > kTfliteMaxRank && sys.style != OpStyle::kXnnpack) {
      node_error(g, n, fmt::format("input of rank {} under {}: TFLite's own PAD kernel takes at most {} dimensions "
                                   "(only XNNPACK's takes {})", in.shape.size(), sys.name, kTfliteMaxRank,
                                   kXnnpackMaxRank));
    }
    dtype_ = in.dtype;
    es_ = cli::size_of(dtype_);
    in_shape_ = in.shape;
    out_shape_ = s.out_shape;
    pre_ = s.pre;
    post_ = s.post;
    out_stride_.assign(out_shape_.size(), 1);
    for (std::size_t d = out_shape_.size(); d-- > 1;) out_stride_[d - 1] = out_stride_[d] * out_shape_[d];
    // The dimensions after the last padded one are copied as one block per index above them.
    last_padded_ = 0;
    for (std::size_t d = 0; d < pre_.size(); ++d) {
      if (pre_[d] != 0 || post_[d] != 0) last_padded_ = d;
    }
    if (is_8bit(dtype_)) {
      in_quant_ = fmt::format("scale {} zero point {}", in.quant.scales.empty() ? 0.0f : in.quant.scales[0],
                              in.quant.zero_point());
      out_quant_ = fmt::format("scale {} zero point {}", out.quant.scales.empty() ? 0.0f : out.quant.scales[0],
                               out.quant.zero_point());
      requant_ignored_ = in.quant.present() && out.quant.present() && !same_quantization(in, out);
    }
    if (has_input(n, 2)) {
      const TensorDef& c = input_def(g, n, 2);
      if (c.constant()) {
        std::memcpy(pad_bytes_, c.data->bytes.data(), es_);
      } else {
        constant_tensor_ = n.inputs[2];
      }
      pad_source_ = c.constant() ? fmt::format("constant_values ({})", value_text(pad_bytes_))
                                 : "constant_values (read at run time)";
    } else if (is_8bit(dtype_)) {
      const std::int64_t zp = out.quant.zero_point();
      Tensor t = cli::make_tensor(dtype_, {1});
      t.set_integer(0, zp);
      std::memcpy(pad_bytes_, t.bytes.data(), es_);
      pad_source_ = fmt::format("the output zero point {}", zp);
    } else {
      pad_source_ = "0.0";  // pad_bytes_ is zero
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    std::uint8_t pad[8] = {};
    std::memcpy(pad, pad_bytes_, sizeof pad_bytes_);
    if (constant_tensor_ >= 0) std::memcpy(pad, values[static_cast<std::size_t>(constant_tensor_)].bytes.data(), es_);
    if (in_shape_.empty()) {  // a scalar: nothing to pad
      std::memcpy(out.bytes.data(), in.bytes.data(), es_);
      return;
    }
    if (engine_ == Engine::kReference) return run_reference(in, out, pad);
    const std::uint8_t* src = in.bytes.data();
    std::uint8_t* dst = out.bytes.data();
    copy_dim(0, src, dst, pad);
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> pads;
    for (std::size_t d = 0; d < pre_.size(); ++d) pads.push_back(fmt::format("[{}, {}]", pre_[d], post_[d]));
    std::vector<std::string> lines = {
        fmt::format("arithmetic: {}", system_.name),
        fmt::format("{} {} -> {} ({}), paddings [{}]: no arithmetic, the input copied, the rest set to {}", to_string(op_),
                    cli::shape_text(in_shape_), cli::shape_text(out_shape_), cli::to_string(dtype_),
                    fmt::join(pads, ", "), pad_source_)};
    if (requant_ignored_) {
      lines.push_back(fmt::format("the input's integers are copied unchanged although its quantization ({}) differs "
                                  "from the output's ({}): TFLite does not requantize in PAD", in_quant_, out_quant_));
    }
    return lines;
  }

 private:
  std::string value_text(const std::uint8_t* bytes) const {
    Tensor t = cli::make_tensor(dtype_, {1});
    std::memcpy(t.bytes.data(), bytes, es_);
    return fmt::format("{}", t.value_at(0));
  }

  void fill(std::uint8_t* dst, std::size_t count, const std::uint8_t* pad) const {
    if (es_ == 1) {
      if (count != 0) std::memset(dst, pad[0], count);
      return;
    }
    for (std::size_t i = 0; i < count; ++i) std::memcpy(dst + i * es_, pad, es_);
  }

  /// Writes the output block of dimension d (and below) for one index of the dimensions above.
  void copy_dim(std::size_t d, const std::uint8_t*& src, std::uint8_t*& dst, const std::uint8_t* pad) const {
    const std::size_t slice = out_stride_[d] * es_;  // bytes of one index of dimension d
    fill(dst, pre_[d] * out_stride_[d], pad);
    dst += pre_[d] * slice;
    if (d == last_padded_) {  // below d nothing is padded: input and output rows coincide
      const std::size_t bytes = in_shape_[d] * slice;
      if (bytes != 0) std::memcpy(dst, src, bytes);
      src += bytes;
      dst += bytes;
    } else {
      for (std::size_t i = 0; i < in_shape_[d]; ++i) copy_dim(d + 1, src, dst, pad);
    }
    fill(dst, post_[d] * out_stride_[d], pad);
    dst += post_[d] * slice;
  }

  void run_reference(const Tensor& in, Tensor& out, const std::uint8_t* pad) const {
    const std::size_t rank = in_shape_.size();
    const std::size_t total = out.elements();
    for (std::size_t o = 0; o < total; ++o) {
      std::size_t rem = o, src = 0;
      bool inside = true;
      for (std::size_t d = 0; d < rank; ++d) {
        const std::size_t c = rem / out_stride_[d];
        rem %= out_stride_[d];
        inside = inside && c >= pre_[d] && c < pre_[d] + in_shape_[d];
        src = src * in_shape_[d] + (inside ? c - pre_[d] : 0);
      }
      std::memcpy(out.bytes.data() + o * es_, inside ? in.bytes.data() + src * es_ : pad, es_);
    }
  }

  System system_;
  Engine engine_;
  OpKind op_;
  int in_, out_;
  int constant_tensor_ = -1;
  DType dtype_ = DType::kInt8;
  std::size_t es_ = 1;
  std::vector<std::size_t> in_shape_, out_shape_, pre_, post_, out_stride_;
  std::size_t last_padded_ = 0;
  std::uint8_t pad_bytes_[8] = {};
  std::string pad_source_;
  std::string in_quant_, out_quant_;
  bool requant_ignored_ = false;
};

class PadOp : public Op {
 public:
  // Float32 tensors are copied as they are, under an integer arithmetic or a float precision.
  FloatSupport float_support() const override { return FloatSupport::kDataMovement; }

  explicit PadOp(bool v2) : v2_(v2) {}

  // PAD pads with the zero point; PADV2 with a given constant.
  std::vector<OpSample> samples() const override {
    SampleBuilder b(v2_ ? "int8, constant value" : "int8");
    const int x = b.input("x", DType::kInt8, {1, 3, 3, 2}, 0.05f, -3);
    const int p = b.constant_values("paddings", DType::kInt32, {4, 2}, {0, 0, 1, 1, 2, 0, 0, 0});
    std::vector<int> inputs = {x, p};
    if (v2_) inputs.push_back(b.constant("value", DType::kInt8, {1}, 7, 7, GraphBuilder::per_tensor(0.05f, -3)));
    const int y = b.output("y", DType::kInt8, 0.05f, -3);
    b.node(v2_ ? OpKind::kPadV2 : OpKind::kPad, inputs, {y});
    return {b.finish()};
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 3, 1);
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat32});
    if (out.dtype != in.dtype) {
      node_error(g, n, fmt::format("output '{}' is {}, the input {}; allowed: the same type", out.name,
                                   cli::to_string(out.dtype), cli::to_string(in.dtype)));
    }
    if (in.shape.size() > kXnnpackMaxRank) {
      node_error(g, n, fmt::format("input '{}' has rank {}; allowed: at most {} (TFLite's kernel: {})", in.name,
                                   in.shape.size(), kXnnpackMaxRank, kTfliteMaxRank));
    }
    if (is_8bit(in.dtype)) {
      const std::pair<const TensorDef*, const char*> roles[] = {{&in, "input"}, {&out, "output"}};
      for (const auto& [t, role] : roles) {
        if (t->quant.present()) {
          require_per_tensor(g, n, *t, role);
          require_valid_scales(g, n, *t, role);
        }
      }
    }
    if (has_input(n, 2)) {
      const TensorDef& c = input_def(g, n, 2);
      if (c.dtype != in.dtype) {
        node_error(g, n, fmt::format("constant_values '{}' is {}, the input {}; allowed: the input's type", c.name,
                                     cli::to_string(c.dtype), cli::to_string(in.dtype)));
      }
      std::size_t ce = 0;
      if (!cli::checked_elements(c.shape, 8, &ce) || ce != 1) {
        node_error(g, n, fmt::format("constant_values '{}' has shape {}; allowed: one element", c.name,
                                     cli::shape_text(c.shape)));
      }
      if (is_8bit(in.dtype) && !same_quantization(c, out)) {
        node_error(g, n, fmt::format("constant_values '{}' has scale {} and zero point {}, the output {} and {}; "
                                     "allowed: the output's (TFLite's PAD kernel requires them equal)", c.name,
                                     c.quant.scales.empty() ? 0.0f : c.quant.scales[0], c.quant.zero_point(),
                                     out.quant.scales.empty() ? 0.0f : out.quant.scales[0], out.quant.zero_point()));
      }
    }
    set_output_shape(g, n, 0, pad_spec(g, n).out_shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    return std::make_unique<PadPrepared>(g, n, sys, engine);
  }

  // VisitPadNode (PAD only): two inputs, int32 paddings, rank 1 to 6, per-tensor 8-bit tensors with
  // quantized_dimension 0, and (XNNPACK's own check) the input's quantization equal to the output's.
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    if (v2_ || n.inputs.size() != 2) return false;
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    if (in.shape.empty() || in.shape.size() > kXnnpackMaxRank || input_def(g, n, 1).dtype != DType::kInt32) return false;
    if (!xnnpack_per_tensor(in) || !xnnpack_per_tensor(out)) return false;
    return in.dtype == DType::kFloat32 || same_quantization(in, out);
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node&) const override {
    if (v2_) return {tflite::BuiltinOptions_PadV2Options, tflite::CreatePadV2Options(b).o};
    return {tflite::BuiltinOptions_PadOptions, tflite::CreatePadOptions(b).o};
  }

 private:
  bool v2_;
};

}  // namespace

const Op& pad_op() {
  static const PadOp op(false);
  return op;
}

const Op& pad_v2_op() {
  static const PadOp op(true);
  return op;
}

}  // namespace qparity::model
