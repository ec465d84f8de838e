// QUANTIZE: float32 -> int8/uint8 (quantization of a model's float input), and int8/uint8 ->
// int8/uint8 (requantization between two quantizations).
//
//   float -> int:  q = clamp(round(x / s) + zp)   TFLite: AffineQuantize, round half away from zero
//                  on the float32 quotient (reference_ops/quantize.h, TfliteRound);
//                  XNNPACK (f32-qs8-vcvt / f32-qu8-vcvt): x * (1 / s) in float32, rounded half to
//                  even (measured with LiteRT.js: ties go to even, docs/semantics.md §20).
//   int -> int:    q = clamp(requantize(x - zp_in, s_in / s_out) + zp_out) with the preset's rounding
//                  core and multiplier derivation (TFLite: Requantize with
//                  MultiplyByQuantizedMultiplier, kernels/quantize.cc).
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "model/op.h"
#include "preset_params.h"
#include "qparity/policies.h"
#include "qparity/scale_composition.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

bool is_int(DType d) { return d == DType::kInt8 || d == DType::kUint8; }

class QuantizePrepared : public PreparedNode {
 public:
  QuantizePrepared(const Graph& g, const Node& n, const System& sys) : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    from_float_ = in.dtype == DType::kFloat32;
    out_zp_ = static_cast<std::int32_t>(out.quant.zero_point());
    lo_ = cli::dtype_min(out.dtype);
    hi_ = cli::dtype_max(out.dtype);
    out_scale_ = out.quant.scales[0];
    if (!from_float_) {
      in_zp_ = static_cast<std::int32_t>(in.quant.zero_point());
      const double scale = static_cast<double>(in.quant.scales[0]) / static_cast<double>(out_scale_);
      try {
        params_ = derive_requant_params(sys.preset.core, sys.preset.derivation, EffectiveScale{scale, 1.0f});
      } catch (const InvalidArgument& e) {
        node_error(g, n, fmt::format("input scale {} / output scale {} under preset {}: {}", in.quant.scales[0],
                                     out_scale_, sys.preset.name, cli::without_library_prefix(e.what())));
      }
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::size_t n = in.elements();
    if (from_float_) {
      const bool xnnpack = system_.style == OpStyle::kXnnpack;
      const float inv = 1.0f / out_scale_;
      for (std::size_t i = 0; i < n; ++i) {
        float x;
        std::memcpy(&x, in.bytes.data() + 4 * i, 4);
        std::int64_t q;
        if (xnnpack) {
          q = detail::round_half_even_saturating(x * inv);
        } else {
          const float r = std::round(x / out_scale_);  // half away from zero
          q = std::isnan(r) ? 0 : (r >= 2147483647.0f ? 2147483647 : (r <= -2147483648.0f ? -2147483647 - 1 : static_cast<std::int64_t>(r)));
        }
        q += out_zp_;
        out.set_integer(i, q < lo_ ? lo_ : (q > hi_ ? hi_ : q));
      }
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t x = in.integer_at(i) - in_zp_;
      std::int64_t q = static_cast<std::int64_t>(requantize(system_.preset.core, static_cast<std::int32_t>(x), params_));
      if (system_.preset.core == RoundingCore::kFloat32ZeroPointInside) {
        q = Float32ZeroPointInside::requantize_with_zero_point(static_cast<std::int32_t>(x), params_, out_zp_);
      } else {
        q += out_zp_;
      }
      out.set_integer(i, q < lo_ ? lo_ : (q > hi_ ? hi_ : q));
    }
  }

  std::vector<std::string> describe() const override {
    if (from_float_) {
      return {fmt::format("arithmetic: {}", system_.name),
              fmt::format("q = {} + {}", system_.style == OpStyle::kXnnpack
                                              ? fmt::format("round_half_even(x * (1 / {}))", out_scale_)
                                              : fmt::format("round_half_away(x / {})", out_scale_),
                          out_zp_)};
    }
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("core {}: {}, input zero point {}, output zero point {}", to_string(system_.preset.core),
                        cli::params_text(system_.preset.core, params_), in_zp_, out_zp_)};
  }

 private:
  System system_;
  int in_, out_;
  bool from_float_ = false;
  float out_scale_ = 1.0f;
  std::int32_t in_zp_ = 0, out_zp_ = 0;
  std::int64_t lo_ = 0, hi_ = 0;
  RequantParams params_{};
};

class QuantizeOp : public Op {
 public:
  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    require_dtype(g, n, in, "input", {DType::kFloat32, DType::kInt8, DType::kUint8});
    require_dtype(g, n, out, "output", {DType::kInt8, DType::kUint8});
    require_per_tensor(g, n, out, "output");
    if (is_int(in.dtype)) require_per_tensor(g, n, in, "input");
    set_output_shape(g, n, 0, in.shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine) const override {
    return std::make_unique<QuantizePrepared>(g, n, sys);
  }

  // XNNPACK's delegate takes float -> int8/uint8 and int8 -> int8 / uint8 -> uint8, not a change of
  // signedness (docs/semantics.md §20).
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const DType in = input_def(g, n, 0).dtype;
    const DType out = g.tensors[static_cast<std::size_t>(n.outputs[0])].dtype;
    return in == DType::kFloat32 || in == out;
  }
};

}  // namespace

const Op& quantize_op() {
  static const QuantizeOp op;
  return op;
}

}  // namespace qparity::model
