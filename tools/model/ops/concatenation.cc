// CONCATENATION: the inputs joined along one axis (TFLite ConcatenationOptions: axis, negative from
// the end; fused activation). int8, uint8, float32; every input has the output's rank and, off the
// axis, its dimensions.
//
// What the runtimes compute and reject (LiteRT @HEAD as indexed: tflite/kernels/concatenation.cc,
// kernels/internal/reference/concatenation.h; delegates/xnnpack/xnnpack_delegate.cc
// VisitConcatenationNode; XNNPACK src/subgraph/concatenate.c):
//   * A fused activation other than NONE: TFLite's Prepare rejects it (TF_LITE_ENSURE_EQ(activation,
//     kTfLiteActNone)); XNNPACK's delegate does not read it and copies (measured: LiteRT.js returns
//     the unclamped copy). Accepted under kXnnpack systems, where it is ignored (describe() says
//     so), rejected under every other.
//   * int8: TFLite's Prepare requires every input's scale and zero point to equal the output's
//     ("no re-scaling needed for Int8"); XNNPACK's xnn_define_concatenateN rejects a mismatch too.
//     Rejected under those systems (prepare names the node); what remains is a copy. Under kFloat
//     and kNpu an int8 input of another quantization is requantized as a uint8 one is (below),
//     saturated to [-128, 127]: ONNX Runtime's com.microsoft QLinearConcat does so for both types.
//   * uint8: TFLite runs ConcatenationWithScaling: an input whose scale or zero point differs from
//     the output's is requantized element by element in float32,
//         S = float(s_in * float(1 / s_out)),  B = float(-zp_in) * S,
//         y = clamp(int(round_half_away(float(x) * S + B)) + zp_out, 0, 255)
//     (the float product and sum rounded separately: x86 and wasm builds have no fused
//     multiply-add there); the others are copied. XNNPACK's delegate declines a uint8
//     concatenation whose quantizations differ (and its own operator would only copy), so TFLite's
//     kernel runs it under every TFLite system. Target kArm: TFLite's arm64 builds are clang,
//     whose default -ffp-contract=on fuses x * S + B into one fused multiply-add
//     (UNVERIFIED: no arm64 runtime measured).
//   * The delegate takes 2 to 5 inputs of float32 or per-tensor 8-bit (quantized_dimension 0),
//     ranks up to 6 (XNN_MAX_TENSOR_DIMS); anything else runs TFLite's kernel, whose bits are the
//     same (a copy), so xnnpack_takes() matters only for the tally of paths.
// Other systems on a requantized input: kFloat dequantizes and requantizes,
//     y = saturate(RNE(float(s_in * float(x - zp_in)) / s_out) + zp_out),
// ties to even (ONNX Runtime's com.microsoft QLinearConcat: a 256-entry table per input built by
// QlinearBuildLookupTable, onnxruntime/contrib_ops/cpu/quantization/qlinear_lookup_table.cc, with
// MlasQuantizeLinear's division, onnxruntime/core/mlas/lib/quantize.cpp; measured bit-exact for
// int8 and uint8, docs/semantics.md §22.2); kNpu requantizes x - zp_in by s_in / s_out once with the
// preset's core and multiplier (the NPU hypothesis, UNVERIFIED).
//
// Both engines copy the bytes of unchanged inputs; a requantized input goes through a 256-entry
// table built at prepare (fast engine) or the formula per element (reference engine).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>

#include "model/op.h"
#include "model/ops/conv_common.h"
#include "model/ops/data_ops.h"
#include "preset_params.h"
#include "qparity/policies.h"
#include "qparity/scale_composition.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

/// The node's options (a node built without options has TFLite's defaults: axis 0, NONE).
const ConcatenationOptions& concat_opts(const Node& n) {
  static const ConcatenationOptions kDefault;
  return n.options ? n.opts<ConcatenationOptions>() : kDefault;
}

struct ConcatShape {
  std::size_t axis = 0;
  std::vector<std::size_t> out_shape;
};

ConcatShape concat_shape(const Graph& g, const Node& n) {
  const auto& o = concat_opts(n);
  const TensorDef& t0 = input_def(g, n, 0);
  const long long rank = static_cast<long long>(t0.shape.size());
  if (rank == 0) node_error(g, n, fmt::format("input '{}' is a scalar; allowed: rank >= 1", t0.name));
  const long long axis = o.axis < 0 ? o.axis + rank : o.axis;
  if (axis < 0 || axis >= rank) {
    node_error(g, n, fmt::format("axis {} for inputs of rank {}; allowed: {} to {}", o.axis, rank, -rank, rank - 1));
  }
  ConcatShape s;
  s.axis = static_cast<std::size_t>(axis);
  s.out_shape = t0.shape;
  s.out_shape[s.axis] = 0;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const TensorDef& t = input_def(g, n, i);
    bool ok = t.shape.size() == t0.shape.size();
    for (std::size_t d = 0; ok && d < t.shape.size(); ++d) ok = d == s.axis || t.shape[d] == t0.shape[d];
    if (!ok) {
      node_error(g, n, fmt::format("input {} '{}' has shape {}, input 0 {}; allowed: the same rank and the same "
                                   "dimensions except along axis {}", i, t.name, cli::shape_text(t.shape),
                                   cli::shape_text(t0.shape), s.axis));
    }
    s.out_shape[s.axis] += t.shape[s.axis];
  }
  return s;
}

/// How a requantized uint8 input is computed (see the top of this file).
enum class Requant : std::uint8_t { kTflite, kTfliteFma, kFloat, kNpu };

class ConcatPrepared : public PreparedNode {
 public:
  ConcatPrepared(const Graph& g, const Node& n, const System& sys, Engine engine) : system_(sys), engine_(engine) {
    activation_ = concat_opts(n).activation;
    if (activation_ != Activation::kNone && sys.style != OpStyle::kXnnpack) {
      node_error(g, n, fmt::format("fused activation {} under {}; allowed: NONE (TFLite's CONCATENATION kernel "
                                   "rejects any other in its Prepare; only XNNPACK's delegate runs the node, "
                                   "ignoring it)", activation_text(activation_), sys.name));
    }
    const ConcatShape s = concat_shape(g, n);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    out_ = n.outputs[0];
    dtype_ = out.dtype;
    es_ = cli::size_of(dtype_);
    axis_ = s.axis;
    out_shape_ = s.out_shape;
    for (std::size_t d = 0; d < axis_; ++d) outer_ *= out_shape_[d];
    for (std::size_t d = axis_ + 1; d < out_shape_.size(); ++d) inner_ *= out_shape_[d];
    switch (sys.style) {
      case OpStyle::kTfliteReference:
      case OpStyle::kTfliteOptimized:
      case OpStyle::kXnnpack: requant_ = sys.target == Target::kArm ? Requant::kTfliteFma : Requant::kTflite; break;
      case OpStyle::kFloat: requant_ = Requant::kFloat; break;
      case OpStyle::kNpu: requant_ = Requant::kNpu; break;
    }
    out_zp_ = static_cast<std::int32_t>(out.quant.zero_point());
    out_scale_ = out.quant.scales.empty() ? 1.0f : out.quant.scales[0];
    const bool tflite_style = requant_ == Requant::kTflite || requant_ == Requant::kTfliteFma;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const TensorDef& t = input_def(g, n, i);
      Input in;
      in.tensor = n.inputs[i];
      in.axis_dim = t.shape[axis_];
      in.requantize = dtype_ != DType::kFloat32 && !same_quantization(t, out);
      if (in.requantize && dtype_ == DType::kInt8 && tflite_style) {
        node_error(g, n, fmt::format("int8 input {} '{}' has scale {} and zero point {}, the output {} and {}, under "
                                     "{}; allowed: the output's (TFLite's int8 CONCATENATION does not rescale: its "
                                     "Prepare rejects this, and so does XNNPACK's concatenate)", i, t.name,
                                     t.quant.scales[0], t.quant.zero_point(), out.quant.scales[0],
                                     out.quant.zero_point(), sys.name));
      }
      if (in.requantize) {
        in.scale = t.quant.scales[0];
        in.zero_point = static_cast<std::int32_t>(t.quant.zero_point());
        if (requant_ == Requant::kNpu) {
          try {
            in.params = derive_requant_params(sys.preset.core, sys.preset.derivation,
                                              EffectiveScale{static_cast<double>(in.scale) / out_scale_, 1.0f});
          } catch (const InvalidArgument& e) {
            node_error(g, n, fmt::format("input {} scale {} / output scale {} under preset {}: {}", i, in.scale,
                                         out_scale_, sys.preset.name, cli::without_library_prefix(e.what())));
          }
        }
        // Indexed by the stored byte; an int8 byte stands for its two's complement value.
        for (int b = 0; b < 256; ++b) {
          const std::int32_t x = dtype_ == DType::kInt8 ? static_cast<std::int8_t>(b) : b;
          in.table[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(requantize(in, x));
        }
      }
      inputs_.push_back(in);
    }
  }

  void run(std::vector<Tensor>& values) const override {
    Tensor& out = values[static_cast<std::size_t>(out_)];
    if (engine_ == Engine::kReference) return run_reference(values, out);
    std::uint8_t* dst = out.bytes.data();
    for (std::size_t k = 0; k < outer_; ++k) {
      for (const Input& in : inputs_) {
        const std::size_t count = in.axis_dim * inner_;
        const std::uint8_t* src = values[static_cast<std::size_t>(in.tensor)].bytes.data() + k * count * es_;
        if (in.requantize) {
          for (std::size_t j = 0; j < count; ++j) dst[j] = in.table[src[j]];
        } else if (count != 0) {
          std::memcpy(dst, src, count * es_);
        }
        dst += count * es_;
      }
    }
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> lines = {fmt::format("arithmetic: {}", system_.name),
                                      fmt::format("CONCATENATION of {} inputs along axis {} into {} ({})", inputs_.size(),
                                                  axis_, cli::shape_text(out_shape_), cli::to_string(dtype_))};
    bool any = false;
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const Input& in = inputs_[i];
      if (!in.requantize) continue;
      any = true;
      const float s = in.scale * (1.0f / out_scale_);
      const char* range = dtype_ == DType::kInt8 ? "-128, 127" : "0, 255";
      switch (requant_) {
        case Requant::kTflite:
        case Requant::kTfliteFma:
          lines.push_back(fmt::format(
              "input {}: y = clamp(int(round_half_away({})) + {}, 0, 255), S = float(s_in * float(1 / s_out)) = {}, B = "
              "float(-{}) * S = {} (TFLite ConcatenationWithScaling{})", i,
              requant_ == Requant::kTfliteFma ? "fma(float(x), S, B)" : "float(float(x) * S) + B", out_zp_, s,
              in.zero_point, static_cast<float>(-in.zero_point) * s,
              requant_ == Requant::kTfliteFma ? "; fused multiply-add of clang's arm64 builds, UNVERIFIED" : ""));
          break;
        case Requant::kFloat:
          lines.push_back(fmt::format("input {}: y = clamp(RNE(float({} * float(x - {})) / {}) + {}, {}) (float32: "
                                      "ONNX Runtime's QLinearConcat table)", i, in.scale, in.zero_point, out_scale_,
                                      out_zp_, range));
          break;
        case Requant::kNpu:
          lines.push_back(fmt::format("input {}: y = clamp(requantize(x - {}) + {}, {}), core {}: {} (NPU "
                                      "hypothesis, UNVERIFIED)", i, in.zero_point, out_zp_, range,
                                      to_string(system_.preset.core), cli::params_text(system_.preset.core, in.params)));
          break;
      }
    }
    if (!any) lines.emplace_back("no arithmetic: every input has the output's quantization (bytes copied)");
    if (activation_ != Activation::kNone) {
      lines.push_back(fmt::format("fused activation {} ignored (XNNPACK's delegate does not read it)",
                                  activation_text(activation_)));
    }
    return lines;
  }

 private:
  struct Input {
    int tensor = -1;
    std::size_t axis_dim = 0;
    bool requantize = false;
    float scale = 1.0f;
    std::int32_t zero_point = 0;
    RequantParams params{};
    std::array<std::uint8_t, 256> table{};
  };

  /// One requantized element, x the input's value, saturated to the type's range (the scalar
  /// reference; the fast engine tabulates it per input).
  std::int32_t requantize(const Input& in, std::int32_t x) const {
    std::int64_t q = 0;
    switch (requant_) {
      case Requant::kTflite:
      case Requant::kTfliteFma: {
        const float s = in.scale * (1.0f / out_scale_);
        const float b = static_cast<float>(-in.zero_point) * s;
        const float v = requant_ == Requant::kTfliteFma ? std::fma(static_cast<float>(x), s, b)
                                                        : static_cast<float>(x) * s + b;
        const float r = std::round(v);  // TfliteRound: half away from zero
        // int32 conversion of a value beyond the range is undefined in TFLite; it saturates here.
        q = r >= 2147483647.0f ? 2147483647 : (r <= -2147483648.0f ? -2147483647 - 1 : static_cast<std::int64_t>(r));
        q += out_zp_;
        break;
      }
      case Requant::kFloat: {
        const float real = in.scale * static_cast<float>(x - in.zero_point);
        q = static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(real / out_scale_)) + out_zp_;
        break;
      }
      case Requant::kNpu: {
        const std::int32_t d = x - in.zero_point;
        if (system_.preset.core == RoundingCore::kFloat32ZeroPointInside) {
          q = Float32ZeroPointInside::requantize_with_zero_point(d, in.params, out_zp_);
        } else {
          q = static_cast<std::int64_t>(qparity::requantize(system_.preset.core, d, in.params)) + out_zp_;
        }
        break;
      }
    }
    const std::int64_t lo = dtype_ == DType::kInt8 ? -128 : 0, hi = dtype_ == DType::kInt8 ? 127 : 255;
    return static_cast<std::int32_t>(q < lo ? lo : (q > hi ? hi : q));
  }

  /// Every output element from its coordinates: (outer, c, rest) with c along the axis.
  void run_reference(const std::vector<Tensor>& values, Tensor& out) const {
    const std::size_t out_axis = out_shape_[axis_];
    const std::size_t total = outer_ * out_axis * inner_;
    for (std::size_t o = 0; o < total; ++o) {
      const std::size_t rest = o % inner_;
      const std::size_t c = (o / inner_) % out_axis;
      const std::size_t k = o / (inner_ * out_axis);
      std::size_t offset = 0, i = 0;
      while (c >= offset + inputs_[i].axis_dim) offset += inputs_[i++].axis_dim;
      const Input& in = inputs_[i];
      const Tensor& t = values[static_cast<std::size_t>(in.tensor)];
      const std::size_t src = (k * in.axis_dim + (c - offset)) * inner_ + rest;
      if (in.requantize) {
        const std::int32_t x = dtype_ == DType::kInt8 ? static_cast<std::int8_t>(t.bytes[src]) : t.bytes[src];
        out.bytes[o] = static_cast<std::uint8_t>(requantize(in, x));
      } else {
        std::memcpy(out.bytes.data() + o * es_, t.bytes.data() + src * es_, es_);
      }
    }
  }

  System system_;
  Engine engine_;
  Activation activation_ = Activation::kNone;
  int out_ = -1;
  DType dtype_ = DType::kInt8;
  std::size_t es_ = 1;
  std::size_t axis_ = 0;
  std::vector<std::size_t> out_shape_;
  std::size_t outer_ = 1, inner_ = 1;
  Requant requant_ = Requant::kTflite;
  std::int32_t out_zp_ = 0;
  float out_scale_ = 1.0f;
  std::vector<Input> inputs_;
};

class ConcatenationOp : public Op {
 public:
  // Float32 tensors are copied as they are, under an integer arithmetic or a float precision.
  FloatSupport float_support() const override { return FloatSupport::kDataMovement; }

  // int8 (inputs share the output's quantization, as TFLite requires) and uint8 with inputs of
  // other scales (rescaled).
  std::vector<OpSample> samples() const override {
    std::vector<OpSample> out;
    for (const DType d : {DType::kInt8, DType::kUint8}) {
      const bool u8 = d == DType::kUint8;
      SampleBuilder b(u8 ? "uint8, rescaling inputs" : "int8, shared quantization");
      const std::int64_t z = u8 ? 128 : -3;
      const int x = b.input("x", d, {1, 2, 2, 3}, 0.05f, z);
      const int y = b.input("y", d, {1, 2, 2, 5}, u8 ? 0.07f : 0.05f, u8 ? 120 : z);
      const int o = b.output("out", d, 0.05f, z);
      auto opt = std::make_shared<ConcatenationOptions>();
      opt->axis = 3;
      b.node(OpKind::kConcatenation, {x, y}, {o}, opt);
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1u << 20, 1);
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] < 0) node_error(g, n, fmt::format("input {} is omitted; allowed: every input present", i));
    }
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, out, "output", {DType::kInt8, DType::kUint8, DType::kFloat32});
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const TensorDef& t = input_def(g, n, i);
      if (t.dtype != out.dtype) {
        node_error(g, n, fmt::format("input {} '{}' is {}, the output {}; allowed: the output's type", i, t.name,
                                     cli::to_string(t.dtype), cli::to_string(out.dtype)));
      }
    }
    const ConcatShape s = concat_shape(g, n);
    if (out.dtype != DType::kFloat32) {
      require_per_tensor(g, n, out, "output");
      require_valid_scales(g, n, out, "output");
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const TensorDef& t = input_def(g, n, i);
        const std::string role = fmt::format("input {}", i);
        require_per_tensor(g, n, t, role.c_str());
        require_valid_scales(g, n, t, role.c_str());
      }
    }
    set_output_shape(g, n, 0, s.out_shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    return std::make_unique<ConcatPrepared>(g, n, sys, engine);
  }

  // VisitConcatenationNode: 2 to 5 inputs; float32 or per-tensor 8-bit tensors (quantized_dimension
  // 0); uint8 inputs with the output's scale and zero point; XNNPACK's 6 dimensions at most.
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    if (n.inputs.size() < 2 || n.inputs.size() > 5) return false;
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    if (out.shape.size() > 6 || !xnnpack_per_tensor(out)) return false;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const TensorDef& t = input_def(g, n, i);
      if (!xnnpack_per_tensor(t)) return false;
      if (out.dtype != DType::kFloat32 && !same_quantization(t, out)) return false;
    }
    return true;
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    auto o = std::make_shared<ConcatenationOptions>();
    if (const tflite::ConcatenationOptions* t = op.builtin_options_as_ConcatenationOptions()) {
      o->axis = t->axis();
      o->activation = activation_from_tflite(t->fused_activation_function(), label);
    }
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const auto& o = concat_opts(n);
    const auto off = tflite::CreateConcatenationOptions(
        b, o.axis, static_cast<tflite::ActivationFunctionType>(activation_to_tflite(o.activation)));
    return {tflite::BuiltinOptions_ConcatenationOptions, off.o};
  }
};

}  // namespace

const Op& concatenation_op() {
  static const ConcatenationOp op;
  return op;
}

}  // namespace qparity::model
