// QUANTIZE: float32 -> int8 / uint8 (a model's float input), and int8 / uint8 -> int8 / uint8
// (requantization between two quantizations, including int8 <-> uint8). The arithmetic is
// include/qparity/reference/quantize.h (docs/semantics.md §21.10): quantize_float and
// make_requantize_params + requantize_value. An 8-bit input has 256 values: prepare() evaluates
// the reference on all of them and Engine::kFast looks the outputs up (the same bits by
// construction); float inputs run quantize_floats (ops/quantize_fast.h: branch-free loops,
// bit-identical to quantize_float for every float) on Engine::kFast, quantize_float per element on
// Engine::kReference.
//
// System -> variant (system.h op styles):
//   float32 -> 8 bit
//     kTfliteReference  QuantizeFloatVariant::kTfliteFloatDivide: HAZ(float(x / s)) + zp, TFLite's
//         reference AffineQuantize as tflite-micro's LiteRT-synced copy reads it
//         (tensorflow/lite/kernels/internal/reference/quantize.h @d138bfc).
//     kTfliteOptimized  kTfliteDoubleDivide: HAZ(double(x) / double(s)) + zp, TFLite's own kernel
//         as LiteRT.js 2.5.3 runs it (measured, §21.10; that build's source was not read; every
//         target assumed the same, UNVERIFIED for the ARM NEON AffineQuantize).
//     kXnnpack          kXnnpack: RNE(x * float(1 / s)) + zp (xnn_init_f32_qs8_cvt_* and the
//         f32-qs8-vcvt / f32-qu8-vcvt kernels; scalar, SSE/AVX, NEON and wasm SIMD round alike;
//         measured on wasm).
//     kNpu              the host's quantization of the NPU's input (UNVERIFIED): ties to even ->
//         kFloat32DivideHalfEven, ties away from zero -> kTfliteFloatDivide; the other tie rules
//         have no float variant in the header and also take kTfliteFloatDivide (said in describe).
//     kFloat            kFloat32DivideHalfEven (ONNX QuantizeLinear: ONNX Runtime's MlasQuantizeLinear,
//         measured bit-exact against ORT 1.30, docs/semantics.md §22.2; fbgemm / onednn UNVERIFIED).
//   Per axis (ONNX's QuantizeLinear, float input only): each index of the output's axis quantizes
//   with its own scale and zero point, under ONNX Runtime's systems only (is_onnxruntime_system);
//   TFLite's per-channel QUANTIZE is not modelled, so the other systems refuse it when preparing.
//   8 bit -> 8 bit
//     kTfliteReference, kTfliteOptimized  RequantizeVariant::kTfliteDoubleRounding, or
//         kTfliteSingleRounding in the TFLITE_SINGLE_ROUNDING build (tflite_build_of):
//         QuantizeMultiplier(double(s_in) / double(s_out)), MultiplyByQuantizedMultiplier
//         (tflite/kernels/quantize.cc, reference/requantize.h). Measured: double rounding.
//     kXnnpack          kXnnpack (qs8-vcvt / qu8-vcvt: 8-bit lrintf multiplier, one rounding ties
//         up; the wasm / SSE / NEON Q15 forms give the same integers; measured on wasm) for
//         int8 -> int8 and uint8 -> uint8 with s_in / s_out in [2^-8, 2^7]; otherwise XNNPACK has no
//         such conversion and TFLite's kernel runs it (kTfliteDoubleRounding, said in describe).
//     kNpu              kNpuSingleRounding with the preset's tie rule and multiplier precision
//         (UNVERIFIED).
//     kFloat            kFloat32: dequantize then quantize in float32 (UNVERIFIED).
// TFLite's builtin QUANTIZE rounds the default way (tflite_builtin_preset: default, measured).
//
// XNNPACK's delegate (xnnpack_takes; TF 2.x xnnpack_delegate.cc VisitQuantizeNode, LiteRT's
// unary visitor measured with LiteRT.js): float32 -> int8 / uint8, and int8 -> int8 /
// uint8 -> uint8 with s_in / s_out in [2^-8, 2^7]; never int8 <-> uint8. Output (and 8-bit input)
// with one scale; LiteRT.js takes them even with a quantized_dimension other than 0 (measured).
// Tensors of more than 6 dimensions are refused (XNN_MAX_TENSOR_DIMS; measured: rank 7 sends
// QUANTIZE to TFLite's kernel).
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "model/op.h"
#include "model/ops/op_variants.h"
#include "model/ops/quantize_fast.h"
#include "preset_params.h"
#include "qparity/reference/quantize.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

using reference::QuantizeFloatVariant;
using reference::RequantizeVariant;

/// XNNPACK's 8-bit conversion range: float(s_in / s_out) in [2^-8, 2^7].
bool xnnpack_ratio_ok(float s_in, float s_out) {
  const float ratio = s_in / s_out;
  return ratio >= 0x1p-8f && ratio <= 0x1p+7f;
}

const char* float_variant_text(QuantizeFloatVariant v) {
  switch (v) {
    case QuantizeFloatVariant::kTfliteFloatDivide:
      return "QuantizeFloatVariant::kTfliteFloatDivide: q = round_half_away(float(x / s)) + zp";
    case QuantizeFloatVariant::kTfliteDoubleDivide:
      return "QuantizeFloatVariant::kTfliteDoubleDivide: q = round_half_away(double(x) / double(s)) + zp";
    case QuantizeFloatVariant::kXnnpack:
      return "QuantizeFloatVariant::kXnnpack: q = round_half_even(float(x * float(1 / s))) + zp";
    case QuantizeFloatVariant::kFloat32DivideHalfEven:
      return "QuantizeFloatVariant::kFloat32DivideHalfEven: q = round_half_even(float(x / s)) + zp";
  }
  return "?";
}

class QuantizePrepared : public PreparedNode {
 public:
  QuantizePrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]), fast_(engine == Engine::kFast) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    in_type_ = in.dtype;
    out_type_ = out.dtype;
    out_q_ = tensor_quant(out);
    from_float_ = in.dtype == DType::kFloat32;
    const TfliteBuild build = tflite_build_of(sys.preset);
    if (from_float_) {
      switch (sys.style) {
        case OpStyle::kTfliteReference: float_variant_ = QuantizeFloatVariant::kTfliteFloatDivide; break;
        case OpStyle::kTfliteOptimized: float_variant_ = QuantizeFloatVariant::kTfliteDoubleDivide; break;
        case OpStyle::kXnnpack: float_variant_ = QuantizeFloatVariant::kXnnpack; break;
        case OpStyle::kFloat: float_variant_ = QuantizeFloatVariant::kFloat32DivideHalfEven; break;
        case OpStyle::kNpu: {
          const reference::NpuHypothesis h = npu_hypothesis_of(sys.preset);
          float_variant_ = h.tie == TieRule::kHalfToEven ? QuantizeFloatVariant::kFloat32DivideHalfEven
                                                         : QuantizeFloatVariant::kTfliteFloatDivide;
          note_ = fmt::format("NPU hypothesis (UNVERIFIED): the host quantizes the NPU's float input, {}",
                              h.tie == TieRule::kHalfToEven || h.tie == TieRule::kHalfAwayFromZero
                                  ? "with the preset's tie rule"
                                  : "with TFLite's half-away rounding (the preset's tie rule has no float variant)");
          break;
        }
      }
      out_axis_ = axis_quant(out);
      if (out.quant.per_axis() && !is_onnxruntime_system(sys)) {
        node_error(g, n, fmt::format("output '{}' is quantized per axis (ONNX QuantizeLinear); allowed under ONNX "
                                     "Runtime's profiles (ort-cpu*) only, not {}: qparity does not model the other "
                                     "runtimes' per-channel QUANTIZE",
                                     out.name, sys.name));
      }
      try {
        for (const reference::TensorQuant& q : out_axis_.channels) reference::detail::require_scale("output scale", q.scale);
      } catch (const InvalidArgument& e) {
        node_error(g, n, cli::without_library_prefix(e.what()));
      }
      return;
    }
    const reference::TensorQuant iq = tensor_quant(in);
    const RequantizeVariant tflite = build == TfliteBuild::kDoubleRounding ? RequantizeVariant::kTfliteDoubleRounding
                                                                           : RequantizeVariant::kTfliteSingleRounding;
    reference::NpuHypothesis npu;
    switch (sys.style) {
      case OpStyle::kTfliteReference:
      case OpStyle::kTfliteOptimized: variant_ = tflite; break;
      case OpStyle::kXnnpack:
        if (in.dtype == out.dtype && xnnpack_ratio_ok(iq.scale, out_q_.scale)) {
          variant_ = RequantizeVariant::kXnnpack;
        } else {
          variant_ = RequantizeVariant::kTfliteDoubleRounding;
          note_ = in.dtype != out.dtype ? "XNNPACK has no int8 <-> uint8 conversion: TFLite's kernel runs it"
                                        : "s_in / s_out is outside XNNPACK's [2^-8, 2^7]: TFLite's kernel runs it";
        }
        break;
      case OpStyle::kNpu:
        variant_ = RequantizeVariant::kNpuSingleRounding;
        npu = npu_hypothesis_of(sys.preset);
        npu_text_ = npu_text(npu);
        break;
      case OpStyle::kFloat: variant_ = RequantizeVariant::kFloat32; break;
    }
    try {
      with_8bit_type(in_type_, [&](auto in_tag) {
        with_8bit_type(out_type_, [&](auto out_tag) {
          using TI = decltype(in_tag);
          using TO = decltype(out_tag);
          params_ = reference::make_requantize_params<TI, TO>(iq, out_q_, variant_, npu);
          for (int v = reference::type_min<TI>(); v <= reference::type_max<TI>(); ++v) {
            table_[static_cast<std::uint8_t>(v)] =
                static_cast<std::uint8_t>(reference::requantize_value<TI, TO>(static_cast<TI>(v), params_));
          }
        });
      });
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("input scale {} / output scale {} under {}: {}", iq.scale, out_q_.scale, sys.name,
                                   cli::without_library_prefix(e.what())));
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::size_t count = in.elements();
    if (from_float_) {
      with_8bit_type(out_type_, [&](auto tag) {
        using T = decltype(tag);
        const float* x = data_of<float>(in);
        T* y = data_of<T>(out);
        // One run of `inner` elements per (outer index, channel): the whole tensor when per tensor.
        const std::size_t channels = out_axis_.channels.size(), inner = out_axis_.inner;
        for (std::size_t run = 0; run < out_axis_.outer * channels; ++run) {
          const reference::TensorQuant& q = out_axis_.channels[run % channels];
          const float* xr = x + run * inner;
          T* yr = y + run * inner;
          if (fast_) {
            quantize_floats<T>(xr, inner, q, float_variant_, yr);
          } else {
            for (std::size_t i = 0; i < inner; ++i) yr[i] = reference::quantize_float<T>(xr[i], q, float_variant_);
          }
        }
      });
      return;
    }
    if (fast_) {
      for (std::size_t i = 0; i < count; ++i) out.bytes[i] = table_[in.bytes[i]];
      return;
    }
    with_8bit_type(in_type_, [&](auto in_tag) {
      with_8bit_type(out_type_, [&](auto out_tag) {
        using TI = decltype(in_tag);
        using TO = decltype(out_tag);
        const TI* x = data_of<TI>(in);
        TO* y = data_of<TO>(out);
        for (std::size_t i = 0; i < count; ++i) y[i] = reference::requantize_value<TI, TO>(x[i], params_);
      });
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    if (!note_.empty()) l.push_back(note_);
    const char* range = out_type_ == DType::kInt8 ? "[-128, 127]" : "[0, 255]";
    if (from_float_) {
      l.push_back(fmt::format("{} (include/qparity/reference/quantize.h)", float_variant_text(float_variant_)));
      if (out_axis_.channels.size() > 1) {
        l.push_back(fmt::format("per axis: {} scales and zero points (the first s = {}, zp = {}), saturated to {}",
                                out_axis_.channels.size(), out_q_.scale, out_q_.zero_point, range));
      } else {
        l.push_back(fmt::format("s = {}, zp = {}, saturated to {}", out_q_.scale, out_q_.zero_point, range));
      }
      return l;
    }
    const reference::RequantizeParams& p = params_;
    switch (variant_) {
      case RequantizeVariant::kTfliteDoubleRounding:
      case RequantizeVariant::kTfliteSingleRounding:
        l.push_back(fmt::format("RequantizeVariant::{} (include/qparity/reference/quantize.h)",
                                variant_ == RequantizeVariant::kTfliteDoubleRounding ? "kTfliteDoubleRounding"
                                                                                     : "kTfliteSingleRounding"));
        l.push_back(fmt::format("y = clamp(MultiplyByQuantizedMultiplier(x - {}, {}, {}) + {}, {}) ({}); "
                                "QuantizeMultiplier(double({}) / double({}))",
                                p.in.zero_point, p.tflite.multiplier, p.tflite.shift, p.out.zero_point, range,
                                variant_ == RequantizeVariant::kTfliteDoubleRounding ? "DR-AZ" : "SR-UP", p.in.scale,
                                p.out.scale));
        break;
      case RequantizeVariant::kXnnpack:
        l.push_back("RequantizeVariant::kXnnpack (include/qparity/reference/quantize.h)");
        l.push_back(fmt::format("y = clamp(floor(((x - {}) * {} + 128) / 256) + {}, {}); m = lrintf(256 * float({} / {}))",
                                p.in.zero_point, p.xnn_multiplier, p.out.zero_point, range, p.in.scale, p.out.scale));
        break;
      case RequantizeVariant::kNpuSingleRounding:
        l.push_back("RequantizeVariant::kNpuSingleRounding (include/qparity/reference/quantize.h)");
        l.push_back(fmt::format("NPU hypothesis (UNVERIFIED): y = clamp(round((x - {}) * M) + {}, {}), {}; core {}, "
                                "multiplier {}, shift {}",
                                p.in.zero_point, p.out.zero_point, range, npu_text_, to_string(p.npu.core),
                                p.npu.params.multiplier, p.npu.params.shift));
        break;
      case RequantizeVariant::kFloat32:
        l.push_back("RequantizeVariant::kFloat32 (include/qparity/reference/quantize.h)");
        l.push_back(fmt::format("float32 style (UNVERIFIED): y = clamp(round_half_even(float({} * (x - {})) / {}) + {}, {})",
                                p.in.scale, p.in.zero_point, p.out.scale, p.out.zero_point, range));
        break;
    }
    return l;
  }

 private:
  System system_;
  int in_, out_;
  bool fast_;
  bool from_float_ = false;
  DType in_type_{}, out_type_{};
  reference::TensorQuant out_q_;
  AxisQuant out_axis_;  // float input: the output's quantization per channel
  QuantizeFloatVariant float_variant_ = QuantizeFloatVariant::kTfliteFloatDivide;
  RequantizeVariant variant_ = RequantizeVariant::kTfliteDoubleRounding;
  reference::RequantizeParams params_;
  std::array<std::uint8_t, 256> table_{};
  std::string note_, npu_text_;
};

class QuantizeOp : public Op {
 public:
  // float32 -> int8 (a model's entry) and int8 -> int8 / uint8 (a requantization).
  std::vector<OpSample> samples() const override {
    std::vector<OpSample> out;
    {
      SampleBuilder b("float32 -> int8");
      const int x = b.input("x", DType::kFloat32, {2, 16});
      const int y = b.output("y", DType::kInt8, 0.05f, -3);
      b.node(OpKind::kQuantize, {x}, {y});
      out.push_back(b.finish());
    }
    for (const DType d : {DType::kInt8, DType::kUint8}) {
      SampleBuilder b(d == DType::kInt8 ? "int8 -> int8" : "int8 -> uint8");
      const int x = b.input("x", DType::kInt8, {2, 16}, 0.05f, -3);
      const int y = b.output("y", d, 0.07f, d == DType::kInt8 ? 4 : 130);
      b.node(OpKind::kQuantize, {x}, {y});
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kFloat32, DType::kInt8, DType::kUint8});
    require_dtype(g, n, out, "output", {DType::kInt8, DType::kUint8});
    set_output_shape(g, n, 0, in.shape);  // first: a per-axis check reads the output's shape
    // Per axis from float32 only: ONNX's QuantizeLinear (prepare() takes it under ONNX Runtime's profiles).
    if (in.dtype == DType::kFloat32) {
      require_per_tensor_or_axis(g, n, out, "output");
    } else {
      require_per_tensor(g, n, out, "output");
      require_per_tensor(g, n, in, "input");
    }
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    return std::make_unique<QuantizePrepared>(g, n, sys, engine);
  }

  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    if (in.shape.size() > kXnnpackMaxRank || out.quant.scales.size() != 1) return false;
    if (in.dtype == DType::kFloat32) return true;
    return in.dtype == out.dtype && in.quant.scales.size() == 1 && xnnpack_ratio_ok(in.quant.scales[0], out.quant.scales[0]);
  }
};

}  // namespace

const Op& quantize_op() {
  static const QuantizeOp op;
  return op;
}

}  // namespace qparity::model
