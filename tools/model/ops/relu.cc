// RELU and RELU6 on int8 / uint8 tensors (no options): the input requantized to the output's
// quantization and clamped to [0, +inf) / [0, 6]. The arithmetic is
// include/qparity/reference/activation.h (docs/semantics.md §21.14). With 8-bit inputs every
// element is one of 256 values: prepare() evaluates the reference on all of them and Engine::kFast
// looks the outputs up (the same bits by construction); Engine::kReference calls the reference per
// element.
//
// System -> variant (system.h op styles):
//   kTfliteReference, kTfliteOptimized  ReluVariant::kTfliteDoubleRounding, or
//       kTfliteSingleRounding in the TFLITE_SINGLE_ROUNDING build (tflite_build_of): LiteRT
//       tflite/kernels/activations.cc ReluPrepare / QuantizedReluX (multiplier from the float
//       ratio s_in / s_out, TFLite-rounded bounds), reference_ops / optimized_ops ReluX. Measured:
//       LiteRT.js 2.5.3 (§21.14). The ARM optimized kernel's NEON form is not modelled (the scalar
//       formula is used for Target kArm too; UNVERIFIED there).
//   kXnnpack  XNNPACK's delegate does not take 8-bit RELU / RELU6 (below), so TFLite's kernel runs
//       (kTfliteDoubleRounding, the default build); an XNNPACK-native runtime would clamp only, and
//       only with equal quantizations (kXnnpackClamp: used when the quantizations are equal).
//   kNpu      kNpuSingleRounding with the preset's tie rule and multiplier precision (UNVERIFIED).
//   kFloat    kFloat32 (UNVERIFIED).
//   TFLM's RELU6 (kTflm: clamp-only) is not selected by a system.
// TFLite's builtin RELU / RELU6 round the default way (tflite_builtin_preset: default).
//
// XNNPACK's delegate (xnnpack_takes): no. TensorFlow's xnnpack_delegate.cc (TF 2.x) visits RELU,
// RELU6 and RELU_N1_TO_1 with CheckTensorFloat32Type on input and output (float32 only); LiteRT's
// current delegate routes them through a generic unary visitor that was not read here, and
// LiteRT.js 2.5.3 runs 8-bit RELU / RELU6 in TFLite's own kernel (measured, §20.3: the RELU6
// bound follows TFLite's rounding where XNNPACK's would differ).
// Float32 RELU / RELU6 run under a float precision (FloatReluPrepared; docs/semantics.md §24).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "model/ops/conv_common.h"
#include "model/ops/op_variants.h"
#include "preset_params.h"
#include "qparity/reference/activation.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

using reference::ReluKind;
using reference::ReluVariant;

const char* variant_name(ReluVariant v) {
  switch (v) {
    case ReluVariant::kTfliteDoubleRounding: return "ReluVariant::kTfliteDoubleRounding";
    case ReluVariant::kTfliteSingleRounding: return "ReluVariant::kTfliteSingleRounding";
    case ReluVariant::kTflm: return "ReluVariant::kTflm";
    case ReluVariant::kXnnpackClamp: return "ReluVariant::kXnnpackClamp";
    case ReluVariant::kNpuSingleRounding: return "ReluVariant::kNpuSingleRounding";
    case ReluVariant::kFloat32: return "ReluVariant::kFloat32";
  }
  return "?";
}

class ReluPrepared : public PreparedNode {
 public:
  ReluPrepared(const Graph& g, const Node& n, const System& sys, Engine engine, ReluKind kind)
      : system_(sys), kind_(kind), in_(n.inputs[0]), out_(n.outputs[0]), fast_(engine == Engine::kFast) {
    const TensorDef& in = input_def(g, n, 0);
    type_ = in.dtype;
    const reference::TensorQuant iq = tensor_quant(in), oq = tensor_quant(g.tensors[static_cast<std::size_t>(out_)]);
    const TfliteBuild build = tflite_build_of(sys.preset);
    const ReluVariant tflite = build == TfliteBuild::kDoubleRounding ? ReluVariant::kTfliteDoubleRounding
                                                                     : ReluVariant::kTfliteSingleRounding;
    reference::NpuHypothesis npu;
    switch (sys.style) {
      case OpStyle::kTfliteReference:
      case OpStyle::kTfliteOptimized: variant_ = tflite; break;
      case OpStyle::kXnnpack:
        if (iq.scale == oq.scale && iq.zero_point == oq.zero_point) {
          variant_ = ReluVariant::kXnnpackClamp;
          note_ = "XNNPACK clamp (its delegate does not take 8-bit RELU / RELU6; equal quantizations: a clamp)";
        } else {
          variant_ = ReluVariant::kTfliteDoubleRounding;
          note_ = "XNNPACK's delegate does not take 8-bit RELU / RELU6: TFLite's kernel runs it";
        }
        break;
      case OpStyle::kNpu:
        variant_ = ReluVariant::kNpuSingleRounding;
        npu = npu_hypothesis_of(sys.preset);
        break;
      case OpStyle::kFloat: variant_ = ReluVariant::kFloat32; break;
    }
    try {
      with_8bit_type(type_, [&](auto tag) {
        using T = decltype(tag);
        params_ = reference::make_relu_params<T>(kind, iq, oq, variant_, npu);
        for (int v = reference::type_min<T>(); v <= reference::type_max<T>(); ++v) {
          table_[static_cast<std::uint8_t>(v)] = static_cast<std::uint8_t>(reference::relu_value<T>(static_cast<T>(v), params_));
        }
      });
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("under {}: {}", sys.name, cli::without_library_prefix(e.what())));
    }
    npu_ = npu;
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
      for (std::size_t i = 0; i < count; ++i) y[i] = reference::relu_value<T>(x[i], params_);
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    if (!note_.empty()) l.push_back(note_);
    l.push_back(fmt::format("{} {} (include/qparity/reference/activation.h)",
                            kind_ == ReluKind::kRelu ? "RELU" : "RELU6", variant_name(variant_)));
    const reference::ReluParams& p = params_;
    switch (variant_) {
      case ReluVariant::kTfliteDoubleRounding:
      case ReluVariant::kTfliteSingleRounding:
        l.push_back(fmt::format("y = clamp({} + MultiplyByQuantizedMultiplier(x - {}, {}, {}), {}, {}) ({}); multiplier "
                                "from double(float({} / {}))",
                                p.out.zero_point, p.in.zero_point, p.tflite.multiplier, p.tflite.shift, p.lo, p.hi,
                                variant_ == ReluVariant::kTfliteDoubleRounding ? "DR-AZ" : "SR-UP", p.in.scale,
                                p.out.scale));
        break;
      case ReluVariant::kXnnpackClamp:
        l.push_back(fmt::format("y = clamp(x, {}, {}) (bounds round_half_even(f / s + zp))", p.lo, p.hi));
        break;
      case ReluVariant::kNpuSingleRounding:
        l.push_back(fmt::format("NPU hypothesis (UNVERIFIED): y = clamp({} + round((x - {}) * M), {}, {}), {}; core {}, "
                                "multiplier {}, shift {}",
                                p.out.zero_point, p.in.zero_point, p.lo, p.hi, npu_text(npu_), to_string(p.npu.core),
                                p.npu.params.multiplier, p.npu.params.shift));
        break;
      case ReluVariant::kFloat32:
        l.push_back(fmt::format("float32 style (UNVERIFIED): v = relu{}(float({} * (x - {}))); y = "
                                "clamp(round_half_even(v / {}) + {})",
                                kind_ == ReluKind::kRelu ? "" : "6", p.in.scale, p.in.zero_point, p.out.scale,
                                p.out.zero_point));
        break;
      case ReluVariant::kTflm:
        l.push_back(fmt::format("TFLM: y = clamp(x, {}, {})", p.lo, p.hi));
        break;
    }
    return l;
  }

 private:
  System system_;
  ReluKind kind_;
  int in_, out_;
  bool fast_;
  DType type_{};
  ReluVariant variant_ = ReluVariant::kTfliteDoubleRounding;
  reference::ReluParams params_;
  reference::NpuHypothesis npu_;
  std::array<std::uint8_t, 256> table_{};
  std::string note_;
};

// A float32 RELU / RELU6 under a float precision: y = round_storage(min(max(round_storage(x), 0),
// 6)); the bounds are exact in every storage format, so only the input's load rounds.
class FloatReluPrepared : public PreparedNode {
 public:
  FloatReluPrepared(const Node& n, const System& sys, ReluKind kind)
      : system_(sys), kind_(kind), in_(n.inputs[0]), out_(n.outputs[0]) {}

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const float* x = reinterpret_cast<const float*>(in.bytes.data());
    float* y = reinterpret_cast<float*>(out.bytes.data());
    const FloatClamp c = float_clamp(kind_ == ReluKind::kRelu ? Activation::kRelu : Activation::kRelu6);
    const FloatFormat storage = system_.float_precision->storage;
    for (std::size_t i = 0, count = in.elements(); i < count; ++i) {
      y[i] = round_to(storage, std::min(std::max(round_to(storage, x[i]), c.min), c.max));
    }
  }

  std::vector<std::string> describe() const override {
    const FloatFormat storage = system_.float_precision->storage;
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("y = min(max(round_{}(x), 0), {}) (float precision {}, include/qparity/float_precision.h)",
                        to_string(storage), kind_ == ReluKind::kRelu ? "inf" : "6", system_.float_precision->name)};
  }

 private:
  System system_;
  ReluKind kind_;
  int in_, out_;
};

class ReluOp : public Op {
 public:
  explicit ReluOp(ReluKind kind) : kind_(kind) {}

  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  // Equal input and output quantization (a clamp) and different ones (a requantization).
  std::vector<OpSample> samples() const override {
    const OpKind kind = kind_ == ReluKind::kRelu ? OpKind::kRelu : OpKind::kRelu6;
    std::vector<OpSample> out;
    for (const bool same : {true, false}) {
      SampleBuilder b(same ? "int8, same quantization" : "int8, requantizing");
      const int x = b.input("x", DType::kInt8, {2, 16}, 0.05f, -3);
      const int y = same ? b.output("y", DType::kInt8, 0.05f, -3) : b.output("y", DType::kInt8, 6.0f / 255.0f, -128);
      b.node(kind, {x}, {y});
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat32});
    if (in.dtype == DType::kFloat32) {  // a float layer, under a float precision
      require_dtype(g, n, output_def(g, n, 0), "output", {DType::kFloat32});
      set_output_shape(g, n, 0, in.shape);
      return;
    }
    require_per_tensor(g, n, in, "input");
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, out, "output", {in.dtype});
    require_per_tensor(g, n, out, "output");
    set_output_shape(g, n, 0, in.shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatReluPrepared>(n, sys, kind_);
    return std::make_unique<ReluPrepared>(g, n, sys, engine, kind_);
  }
  // xnnpack_takes: default (no), see above.

 private:
  ReluKind kind_;
};

}  // namespace

const Op& relu_op() {
  static const ReluOp op(ReluKind::kRelu);
  return op;
}

const Op& relu6_op() {
  static const ReluOp op(ReluKind::kRelu6);
  return op;
}

}  // namespace qparity::model
