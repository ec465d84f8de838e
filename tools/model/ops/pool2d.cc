// AVERAGE_POOL_2D and MAX_POOL_2D on int8 / uint8 NHWC tensors (TFLite Pool2DOptions: filter,
// strides, SAME / VALID, fused activation). The arithmetic is include/qparity/reference/pooling.h
// (docs/semantics.md §21.3); Engine::kFast runs the compiled kernels of include/qparity/pooling.h
// (kernels/pooling/, bit-identical to the header on every ISA).
// Float32 pools run under a float precision (FloatPoolPrepared, docs/semantics.md §24).
//
// System -> variant (a system's op style, system.h):
//   AVERAGE_POOL_2D
//     kTfliteReference, kTfliteOptimized (every target)  AveragePoolVariant::kTflite: the raw mean
//         of the in-image taps rounded half away from zero, TFLite's clamp. Sources: LiteRT
//         tflite/kernels/internal/reference/integer_ops/pooling.h and optimized/integer_ops/
//         pooling.h (int8), reference/pooling.h (uint8); TFLM runs the same reference file; NEON
//         sums in int32 and rounds the same way. Measured: LiteRT.js 2.5.3 (§21.3). No rounding
//         build difference (integer division, no MultiplyByQuantizedMultiplier).
//     kXnnpack        kTflite as well: TFLite's XNNPACK delegate never takes an 8-bit
//         AVERAGE_POOL_2D (VisitAveragePool2DNode checks float32 tensors,
//         tflite/delegates/xnnpack/xnnpack_delegate.cc), so TFLite's kernel runs it; XNNPACK's own
//         qu8 average pooling is not modelled.
//     kNpu            kNpuSingleRounding with the preset's tie rule and multiplier precision
//         (reference/op_common.h NpuHypothesis; UNVERIFIED).
//     kFloat          kFloat32 (UNVERIFIED); under the onnxruntime preset without a fused
//                     activation: ONNX Runtime's QLinearAveragePool formula, measured
//                     (ort_average_pool; docs/semantics.md §22.2).
//   MAX_POOL_2D
//     kTfliteReference, kTfliteOptimized  MaxPoolVariant::kTflite: bounds zp + HAZ(f / s).
//     kXnnpack        kXnnpack: bounds RNE(f / s + zp) (xnn_qs8_quantize; measured §21.3). The
//         x86 / ARM / wasm max pooling kernels have no arithmetic beyond the bounds.
//     kNpu            kTflite (a maximum has no rounding; the NPU hypothesis keeps TFLite's bounds,
//         as its other ops do; UNVERIFIED).
//     kFloat          kXnnpack (a float clamp quantized with round-half-even; UNVERIFIED).
// TFLite's builtin kernels round these ops the default way (tflite_builtin_preset: default).
//
// XNNPACK's delegate (xnnpack_takes; xnnpack_delegate.cc VisitMaxPool2DNode, CheckPoolingParams):
// MAX_POOL_2D when input and output are int8 or uint8 with one scale and zero point and
// quantized_dimension 0, strides no larger than the filter, not a 1x1 filter with a stride > 1,
// and (XNNPACK's max pooling / clamp node) equal input and output quantization.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <cstring>
#include <set>

#include "model/ops/conv_common.h"
#include "model/ops/mlas_global_sum.h"
#include "model/ops/op_variants.h"
#include "model/ops/ort_qlinear_global_average_pool.h"
#include "preset_params.h"
#include "model/ops/pool2d.h"
#include "qparity/pooling.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

namespace {

std::string pool_text(const reference::PoolWindow& w, Activation act) {
  return fmt::format("filter {}x{}, stride {}x{}, {}, {}", w.filter_h, w.filter_w, w.stride_h, w.stride_w,
                     w.padding == Padding::kExplicit
                         ? fmt::format("pads top {} bottom {} left {} right {}", w.pad_top, w.pad_bottom, w.pad_left,
                                       w.pad_right)
                         : to_string(w.padding),
                     activation_text(act));
}

}  // namespace

std::string Pool2DOptions::describe() const { return pool_text(window, activation); }

namespace {

using reference::AveragePoolVariant;
using reference::MaxPoolVariant;
using reference::Shape4;

Shape4 shape4(const TensorDef& t) { return Shape4{t.shape[0], t.shape[1], t.shape[2], t.shape[3]}; }

const char* variant_name(AveragePoolVariant v) {
  switch (v) {
    case AveragePoolVariant::kTflite: return "AveragePoolVariant::kTflite";
    case AveragePoolVariant::kNpuSingleRounding: return "AveragePoolVariant::kNpuSingleRounding";
    case AveragePoolVariant::kFloat32: return "AveragePoolVariant::kFloat32";
  }
  return "?";
}

/// The MLAS kernel that ONNX Runtime's float AveragePool runs for a 2-D window (MlasPool,
/// onnxruntime/core/mlas/lib/pooling.cpp; onnxruntime/core/providers/cpu/nn/pool.cc hands every
/// float AveragePool without dilations to it, the pads resolved by PoolBase::SetOutputSize):
///   kGlobal   the window is the whole image, strides 1, no padding: MlasPoolGlobalKernel
///   kVector   the last stride <= 2, every kernel side <= 32, and pad_left + width + pad_right fits
///             the 2,048-float reduction buffer less its 3 floats of over-read room:
///             MlasPool2DVectorKernel
///   kGeneric  otherwise: MlasPool2DKernel
enum class MlasPoolPath : std::uint8_t { kGlobal, kVector, kGeneric };

MlasPoolPath mlas_pool_path(const Shape4& s, const reference::PoolWindow& w) {
  const ResolvedWindow r = reference::detail::resolve_pool(w, s);
  const bool padded = r.pad_top + r.pad_bottom + r.pad_left + r.pad_right != 0;
  if (w.filter_h == s.h && w.filter_w == s.w && w.stride_h == 1 && w.stride_w == 1 && !padded) {
    return MlasPoolPath::kGlobal;
  }
  if (w.stride_w <= 2 && w.filter_h <= 32 && w.filter_w <= 32 && r.pad_left + s.w + r.pad_right <= 2048 - 3) {
    return MlasPoolPath::kVector;
  }
  return MlasPoolPath::kGeneric;
}

const char* to_string(MlasPoolPath p) {
  switch (p) {
    case MlasPoolPath::kGlobal: return "MlasPoolGlobalKernel";
    case MlasPoolPath::kVector: return "MlasPool2DVectorKernel";
    case MlasPoolPath::kGeneric: return "MlasPool2DKernel";
  }
  return "?";
}

/// The distinct tap counts n of the output pixels' in-image windows (rows x cols).
std::set<std::size_t> tap_counts(const Shape4& s, const reference::PoolWindow& w) {
  const ResolvedWindow r = reference::detail::resolve_pool(w, s);
  auto extents = [](std::size_t out, std::size_t stride, std::size_t pad, std::size_t filter, std::size_t size) {
    std::set<std::size_t> e;
    for (std::size_t o = 0; o < out; ++o) {
      const long long i0 = static_cast<long long>(o * stride) - static_cast<long long>(pad);
      const long long a = std::max<long long>(i0, 0);
      const long long b = std::min<long long>(i0 + static_cast<long long>(filter), static_cast<long long>(size));
      e.insert(b > a ? static_cast<std::size_t>(b - a) : 0);
    }
    return e;
  };
  std::set<std::size_t> n;
  for (std::size_t rows : extents(r.out_h, w.stride_h, r.pad_top, w.filter_h, s.h))
    for (std::size_t cols : extents(r.out_w, w.stride_w, r.pad_left, w.filter_w, s.w)) n.insert(rows * cols);
  return n;
}

struct PoolShapes {
  Shape4 in, out;
};

PoolShapes pool_shapes(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  if (in.shape.size() != 4) {
    node_error(g, n, fmt::format("input '{}' has shape {}; allowed: NHWC (rank 4)", in.name, cli::shape_text(in.shape)));
  }
  for (std::size_t d : in.shape) {
    if (d == 0) node_error(g, n, fmt::format("input '{}' has an empty dimension ({})", in.name, cli::shape_text(in.shape)));
  }
  PoolShapes s;
  s.in = shape4(in);
  try {
    s.out = reference::pool_output_shape(s.in, n.opts<Pool2DOptions>().window);
  } catch (const InvalidArgument& e) {
    node_error(g, n, cli::without_library_prefix(e.what()));
  }
  return s;
}

/// Checks shared by both pools: one 8-bit input and output of the same type, per-tensor; or a
/// float32 input and output (a float layer, under a float precision).
void check_pool(Graph& g, const Node& n) {
  check_arity(g, n, 1, 1, 1);
  const TensorDef& in = input_def(g, n, 0);
  require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat32});
  if (in.dtype != DType::kFloat32) require_per_tensor(g, n, in, "input");
  const TensorDef& out = output_def(g, n, 0);
  require_dtype(g, n, out, "output", {in.dtype});
  if (in.dtype != DType::kFloat32) require_per_tensor(g, n, out, "output");
  const PoolShapes s = pool_shapes(g, n);
  set_output_shape(g, n, 0, {s.out.n, s.out.h, s.out.w, s.out.c});
}

std::shared_ptr<const OpOptions> read_pool_options(const tflite::Operator& op, const std::string& label) {
  const tflite::Pool2DOptions* t = op.builtin_options_as_Pool2DOptions();
  if (t == nullptr) throw cli::ToolError(fmt::format("{}: Pool2DOptions missing", label));
  auto positive = [&](int v, const char* field) {
    if (v < 1) throw cli::ToolError(fmt::format("{}: {} = {}; allowed: >= 1", label, field, v));
    return static_cast<std::size_t>(v);
  };
  auto o = std::make_shared<Pool2DOptions>();
  o->window.padding = padding_from_tflite(t->padding(), label);
  o->window.stride_w = positive(t->stride_w(), "stride_w");
  o->window.stride_h = positive(t->stride_h(), "stride_h");
  o->window.filter_w = positive(t->filter_width(), "filter_width");
  o->window.filter_h = positive(t->filter_height(), "filter_height");
  o->activation = activation_from_tflite(t->fused_activation_function(), label);
  return o;
}

TfliteOptions write_pool_options(flatbuffers::FlatBufferBuilder& b, const Node& n) {
  const auto& o = n.opts<Pool2DOptions>();
  // Pool2DOptions has SAME and VALID only, and always divides by the in-image taps.
  if (o.window.padding == Padding::kExplicit) {
    throw cli::ToolError(fmt::format("{} '{}': explicit pads ({}) have no .tflite form; allowed: SAME or VALID",
                                     to_string(n.op), n.name, pool_text(o.window, o.activation)));
  }
  if (o.count_include_pad) {
    throw cli::ToolError(fmt::format("{} '{}': count_include_pad 1 has no .tflite form; allowed: 0", to_string(n.op),
                                     n.name));
  }
  const auto off = tflite::CreatePool2DOptions(
      b, static_cast<tflite::Padding>(padding_to_tflite(o.window.padding)), static_cast<int>(o.window.stride_w),
      static_cast<int>(o.window.stride_h), static_cast<int>(o.window.filter_w), static_cast<int>(o.window.filter_h),
      static_cast<tflite::ActivationFunctionType>(activation_to_tflite(o.activation)));
  return {tflite::BuiltinOptions_Pool2DOptions, off.o};
}

std::string clamp_text(const OutputParams& o, Activation act, ClampDerivation d) {
  return fmt::format("clamp to [{}, {}] (fused activation {}; bounds {})", o.qmin, o.qmax, activation_text(act),
                     d == ClampDerivation::kTflite ? "zp + round_half_away(f / s), TFLite"
                                                   : "round_half_even(f / s + zp), XNNPACK");
}

// ---- AVERAGE_POOL_2D ----------------------------------------------------------------------------

// A float32 pool under a float precision (docs/semantics.md §24), TFLite's float reference order
// (reference_ops::AveragePool / MaxPool): over the window's in-image taps in (ky, kx) order,
// AVERAGE: acc = round_acc(acc + x) from +0, then v = round_acc(acc / n); MAX: v = the largest x;
// then y = round_storage(clamp(v)), every x rounded to the storage format when read.
class FloatPoolPrepared : public PreparedNode {
 public:
  FloatPoolPrepared(const Graph& g, const Node& n, const System& sys, bool average)
      : system_(sys), average_(average), in_(n.inputs[0]), out_(n.outputs[0]) {
    shape_ = pool_shapes(g, n).in;
    window_ = n.opts<Pool2DOptions>().window;
    clamp_ = float_clamp(n.opts<Pool2DOptions>().activation);
    for (std::size_t taps : tap_counts(shape_, window_)) {
      if (taps == 0) node_error(g, n, "a pooling window has no tap inside the image");
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const float* x = reinterpret_cast<const float*>(values[static_cast<std::size_t>(in_)].bytes.data());
    float* y = reinterpret_cast<float*>(values[static_cast<std::size_t>(out_)].bytes.data());
    const FloatPrecision& p = *system_.float_precision;
    const ResolvedWindow r = reference::detail::resolve_pool(window_, shape_);
    std::size_t o = 0;
    reference::detail::for_each_window(
        shape_, window_, r,
        [&](std::size_t b, std::size_t, std::size_t, std::size_t ch, std::int64_t y0, std::int64_t y1, std::int64_t x0,
            std::int64_t x1) {
          float v = average_ ? 0.0f : -std::numeric_limits<float>::infinity();
          for (std::int64_t iy = y0; iy < y1; ++iy) {
            for (std::int64_t ix = x0; ix < x1; ++ix) {
              const float t = round_to(
                  p.storage, x[((b * shape_.h + static_cast<std::size_t>(iy)) * shape_.w + static_cast<std::size_t>(ix)) *
                                   shape_.c + ch]);
              v = average_ ? round_to(p.accumulator, v + t) : std::max(v, t);
            }
          }
          if (average_) v = round_to(p.accumulator, v / static_cast<float>((y1 - y0) * (x1 - x0)));
          y[o++] = round_to(p.storage, std::min(std::max(v, clamp_.min), clamp_.max));
        });
  }

  std::vector<std::string> describe() const override {
    const FloatPrecision& p = *system_.float_precision;
    return {fmt::format("arithmetic: {}", system_.name),
            average_ ? fmt::format("acc = +0; acc = round_{0}(acc + round_{1}(x)) over the in-image taps (ky, kx); "
                                   "y = round_{1}(clamp(round_{0}(acc / n))) (float precision {2})",
                                   to_string(p.accumulator), to_string(p.storage), p.name)
                     : fmt::format("y = round_{0}(clamp(max of round_{0}(x) over the in-image taps)) (float precision "
                                   "{1})", to_string(p.storage), p.name)};
  }

 private:
  System system_;
  bool average_;
  int in_, out_;
  Shape4 shape_;
  reference::PoolWindow window_;
  FloatClamp clamp_;
};


class AveragePoolPrepared : public PreparedNode {
 public:
  AveragePoolPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    const auto& o = n.opts<Pool2DOptions>();
    type_ = in.dtype;
    shape_ = pool_shapes(g, n).in;
    window_ = o.window;
    act_ = o.activation;
    in_q_ = tensor_quant(in);
    out_q_ = tensor_quant(out);
    switch (sys.style) {
      case OpStyle::kTfliteReference:
      case OpStyle::kTfliteOptimized: variant_ = AveragePoolVariant::kTflite; break;
      case OpStyle::kXnnpack:
        variant_ = AveragePoolVariant::kTflite;
        note_ = "XNNPACK's delegate does not take 8-bit AVERAGE_POOL_2D: TFLite's kernel runs it";
        break;
      case OpStyle::kNpu:
        variant_ = AveragePoolVariant::kNpuSingleRounding;
        npu_ = npu_hypothesis_of(sys.preset);
        break;
      case OpStyle::kFloat: variant_ = AveragePoolVariant::kFloat32; break;
    }
    // ONNX Runtime's QLinearAveragePool (no fused activation in the ONNX op): its own measured
    // float formula (ort_average_pool below; docs/semantics.md §22.2).
    ort_ = sys.style == OpStyle::kFloat && sys.preset.name.compare(0, 11, "onnxruntime") == 0 &&
           act_ == Activation::kNone;
    // The fused kernel (preset onnxruntime) adds the zero point in float before rounding; an
    // unfused QDQ group (onnxruntime-qdq-float) quantizes with MlasQuantizeLinear, after it.
    ort_zero_point_inside_ = ort_ && sys.preset.name == "onnxruntime";
    count_include_pad_ = o.count_include_pad;
    if (count_include_pad_ && !ort_) {
      node_error(g, n, fmt::format("count_include_pad 1 under {}; allowed: 0 (only ONNX Runtime's arithmetics, "
                                   "presets onnxruntime and onnxruntime-qdq-float, divide by the whole window)",
                                   sys.name));
    }
    if (ort_ && !ort_zero_point_inside_) mlas_path_ = mlas_pool_path(shape_, window_);
    if (ort_zero_point_inside_) {
      // QLinearAveragePool hands a window that is the whole image, with no pads, to
      // MlasQLinearGlobalAveragePool ("fallback_to_global" in qlinear_pool.cc), whatever the strides.
      const ResolvedWindow r = reference::detail::resolve_pool(window_, shape_);
      ort_global_ = window_.filter_h == shape_.h && window_.filter_w == shape_.w &&
                    r.pad_top + r.pad_bottom + r.pad_left + r.pad_right == 0;
      global_scale_ = ort_global_average_pool_scale(in_q_.scale, out_q_.scale, shape_.h * shape_.w);
      if (ort_global_ && !ort_global_scale_allowed(global_scale_, shape_.h * shape_.w)) {
        node_error(g, n, fmt::format("under {}: a whole-image window: input scale {} / (output scale {} * {} pixels) "
                                     "= {}; ONNX Runtime's global average pool allows [2^-32, 256) and fewer than "
                                     "2^24 pixels",
                                     sys.name, in_q_.scale, out_q_.scale, shape_.h * shape_.w, global_scale_));
      }
    }
    try {
      output_ = activation_output_params(act_, ClampDerivation::kTflite, out_q_.scale, out_q_.zero_point,
                                         type_ == DType::kInt8 ? OutputType::kInt8 : OutputType::kUint8);
      for (std::size_t taps : tap_counts(shape_, window_)) {
        if (taps == 0) node_error(g, n, "a pooling window has no tap inside the image");
        if (variant_ == AveragePoolVariant::kNpuSingleRounding) {
          npu_params_.push_back({taps, reference::npu_requant(npu_, static_cast<double>(in_q_.scale) /
                                                                        (static_cast<double>(out_q_.scale) *
                                                                         static_cast<double>(taps)))});
        } else {
          taps_.push_back(taps);
        }
      }
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("under {}: {}", sys.name, cli::without_library_prefix(e.what())));
    }
    fast_ = engine == Engine::kFast && window_.filter_h * window_.filter_w <= kMaxPoolingReduction;
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      if (ort_global_) {
        ort_qlinear_global_average_pool(data_of<T>(in), data_of<T>(out), shape_.n, shape_.h * shape_.w, shape_.c,
                                        in_q_.zero_point, out_q_.zero_point, global_scale_);
      } else if (ort_) {
        ort_average_pool(data_of<T>(in), data_of<T>(out));
      } else if (fast_) {
        qparity::average_pool(data_of<T>(in), shape_, window_, in_q_, out_q_, act_, variant_, data_of<T>(out), npu_);
      } else {
        const std::vector<T> y =
            reference::average_pool(elements_of<T>(in), shape_, window_, in_q_, out_q_, act_, variant_, npu_);
        std::memcpy(out.bytes.data(), y.data(), y.size());
      }
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    if (ort_global_) {
      l.push_back(fmt::format("ONNX Runtime QLinearAveragePool over the whole image ({}), run by "
                              "MlasQLinearGlobalAveragePool (x86): acc = sum - {} * {} (int32); y = RNE(clamp(float(acc) "
                              "* {:a}, lo - {}, hi - {})) + {}",
                              pool_text(window_, act_), in_q_.zero_point, shape_.h * shape_.w, global_scale_,
                              out_q_.zero_point, out_q_.zero_point, out_q_.zero_point));
      return l;
    }
    if (ort_) {
      const char* order = "row by row";
      if (!ort_zero_point_inside_ && mlas_path_ == MlasPoolPath::kVector) {
        order = "each column down its rows, then the columns left to right";
      } else if (!ort_zero_point_inside_ && mlas_path_ == MlasPoolPath::kGlobal) {
        order = "the flattened image in 4 lanes (i mod 4), then (l0 + l2) + (l1 + l3), then the 0 to 3 left";
      }
      l.push_back(fmt::format("ONNX Runtime {}, {}: x_f = float({:a} * (x - {})); s = float32 sum "
                              "of x_f over the in-image taps, {}; y = clamp({}); n {}",
                              ort_zero_point_inside_ ? "QLinearAveragePool"
                                                     : fmt::format("AveragePool (float, {}) then QuantizeLinear",
                                                                   to_string(mlas_path_)),
                              pool_text(window_, act_), in_q_.scale, in_q_.zero_point, order,
                              ort_zero_point_inside_
                                  ? fmt::format("RNE(float((s / n) / {:a}) + {})", out_q_.scale, out_q_.zero_point)
                                  : fmt::format("RNE((s / n) / {:a}) + {}", out_q_.scale, out_q_.zero_point),
                              count_include_pad_ ? fmt::format("= {} (count_include_pad: the whole window)",
                                                               window_.filter_h * window_.filter_w)
                                                 : fmt::format("in {{{}}} (the in-image taps)", fmt::join(taps_, ", "))));
      return l;
    }
    if (!note_.empty()) l.push_back(note_);
    l.push_back(fmt::format("{} (include/qparity/reference/pooling.h), {}", variant_name(variant_),
                            pool_text(window_, act_)));
    switch (variant_) {
      case AveragePoolVariant::kTflite:
        l.push_back("n = taps of the window inside the image (padding not counted); acc = sum of the stored "
                    "values (no zero point, no scale: input and output are meant to share them)");
        l.push_back(fmt::format("y = acc > 0 ? (acc + n/2) / n : (acc - n/2) / n  (C division: the raw mean "
                                "rounded half away from zero); n in {{{}}}",
                                fmt::join(taps_, ", ")));
        break;
      case AveragePoolVariant::kNpuSingleRounding:
        l.push_back(fmt::format("NPU hypothesis (UNVERIFIED): y = round((acc - n * {}) * M_n) + {}, {}, M_n from "
                                "s_in / (s_out * n) = {} / ({} * n)",
                                in_q_.zero_point, out_q_.zero_point, npu_text(npu_), in_q_.scale, out_q_.scale));
        for (const auto& p : npu_params_) {
          l.push_back(fmt::format("n = {}: core {}, multiplier {}, shift {}", p.first, to_string(p.second.core),
                                  p.second.params.multiplier, p.second.params.shift));
        }
        break;
      case AveragePoolVariant::kFloat32:
        l.push_back(fmt::format("float32 style (UNVERIFIED): y = round_half_even(float(float({} * (acc - n * {})) / n) "
                                "/ {}) + {}; n in {{{}}}",
                                in_q_.scale, in_q_.zero_point, out_q_.scale, out_q_.zero_point, fmt::join(taps_, ", ")));
        break;
    }
    l.push_back(clamp_text(output_, act_, ClampDerivation::kTflite));
    if (fast_) l.push_back(fmt::format("kernel: pooling, {}", to_string(pooling_kernel_isa(active_isa()))));
    return l;
  }

 private:
  /// The ONNX Runtime average pools as its CPU kernels compute them (the scalar references), both
  /// on x_f = float(x_scale * float(x - x_zp)) and dividing a float32 sum s by n, the in-image tap
  /// count (count_include_pad 0) or kh * kw (1), with a true division:
  ///   fused kernel, QLinearAveragePool (onnxruntime/contrib_ops/cpu/quantization/qlinear_pool.cc,
  ///     QLinearPoolNhwc2DTask / QLinearPool2DTask, quantize_value): s sums the in-image taps row
  ///     by row (h, then w) from +0; y = saturate(int32(nearbyintf(float(s / n / y_scale) + y_zp)))
  ///   unfused QDQ group, float AveragePool (MlasPool, onnxruntime/core/mlas/lib/pooling.cpp; the
  ///     order of s is the kernel's, mlas_pool_path) then QuantizeLinear (MlasQuantizeLinear):
  ///     y = saturate(nearbyintf(s / n / y_scale) + y_zp), where
  ///       MlasPool2DVectorKernel  each in-image column of the window summed down its rows first
  ///         (c_w = x_f[h0][w] + x_f[h0+1][w] + ...), then the columns left to right
  ///         (s = c_w0 + c_w0+1 + ...; the padding columns of its reduction buffer hold +0, which
  ///         adds nothing). Its 4 lanes are 4 output columns, each with the scalar arithmetic; the
  ///         divisor is min(w + kw, pad_left + W) - max(w, pad_left) times the row count, in float
  ///         (exact), the same n.
  ///       MlasPool2DKernel        row by row from +0, as the fused kernel
  ///       MlasPoolGlobalKernel    the image flattened (h * W + w): element i into lane i mod 4 of
  ///         4 partial sums from +0 while 4 elements remain, then (l0 + l2) + (l1 + l3) (x86
  ///         MlasReduceAddFloat32x4: shuffle 2,3,2,3 then 1,1,1,1), then the remaining 0 to 3
  ///         elements one by one; n = H * W.
  /// nearbyintf rounds half to even. The zero point inside the rounding is what separates the fused
  /// kernel: float(v + y_zp) rounds v to the ulp of |v + y_zp| first (uint8's y_zp near 128 moves a
  /// value within 2^-17 of a half onto it); the summation order is what separates the unfused
  /// kernels (near exact halves, e.g. sums of 2 or 6 multiples of x_scale over n = 4 or 6 with
  /// y_scale = x_scale). Measured bit-exact against ONNX Runtime 1.30 (docs/semantics.md §22.2).
  template <class T>
  void ort_average_pool(const T* x, T* y) const {
    const ResolvedWindow r = reference::detail::resolve_pool(window_, shape_);
    const auto lo = static_cast<std::int64_t>(std::numeric_limits<T>::min());
    const auto hi = static_cast<std::int64_t>(std::numeric_limits<T>::max());
    const auto dequantized = [&](std::size_t b, std::ptrdiff_t h, std::ptrdiff_t w, std::size_t c) {
      const std::size_t at = ((b * shape_.h + static_cast<std::size_t>(h)) * shape_.w + static_cast<std::size_t>(w)) *
                                 shape_.c + c;
      return in_q_.scale * static_cast<float>(static_cast<std::int32_t>(x[at]) - in_q_.zero_point);
    };
    std::size_t k = 0;
    for (std::size_t b = 0; b < shape_.n; ++b) {
      for (std::size_t oy = 0; oy < r.out_h; ++oy) {
        for (std::size_t ox = 0; ox < r.out_w; ++ox) {
          const auto h0 = static_cast<std::ptrdiff_t>(oy * window_.stride_h) - static_cast<std::ptrdiff_t>(r.pad_top);
          const auto w0 = static_cast<std::ptrdiff_t>(ox * window_.stride_w) - static_cast<std::ptrdiff_t>(r.pad_left);
          const std::ptrdiff_t h1 = std::min<std::ptrdiff_t>(h0 + static_cast<std::ptrdiff_t>(window_.filter_h),
                                                             static_cast<std::ptrdiff_t>(shape_.h));
          const std::ptrdiff_t w1 = std::min<std::ptrdiff_t>(w0 + static_cast<std::ptrdiff_t>(window_.filter_w),
                                                             static_cast<std::ptrdiff_t>(shape_.w));
          const std::ptrdiff_t hs = std::max<std::ptrdiff_t>(h0, 0), ws = std::max<std::ptrdiff_t>(w0, 0);
          const auto count = static_cast<float>(count_include_pad_ ? window_.filter_h * window_.filter_w
                                                                   : static_cast<std::size_t>((h1 - hs) * (w1 - ws)));
          for (std::size_t c = 0; c < shape_.c; ++c) {
            float sum = 0.0f;
            if (!ort_zero_point_inside_ && mlas_path_ == MlasPoolPath::kVector) {
              for (std::ptrdiff_t w = ws; w < w1; ++w) {
                float column = dequantized(b, hs, w, c);
                for (std::ptrdiff_t h = hs + 1; h < h1; ++h) column += dequantized(b, h, w, c);
                sum += column;
              }
            } else if (!ort_zero_point_inside_ && mlas_path_ == MlasPoolPath::kGlobal) {
              sum = mlas_global_sum(shape_.h * shape_.w, [&](std::size_t i) {
                return dequantized(b, static_cast<std::ptrdiff_t>(i / shape_.w),
                                   static_cast<std::ptrdiff_t>(i % shape_.w), c);
              });
            } else {
              for (std::ptrdiff_t h = hs; h < h1; ++h) {
                for (std::ptrdiff_t w = ws; w < w1; ++w) sum += dequantized(b, h, w, c);
              }
            }
            const float mean = sum / count;
            std::int64_t q = 0;
            if (ort_zero_point_inside_) {
              // float + zero point, then nearbyintf and a truncating int32 conversion (x86 cvttss2si:
              // a value outside int32 becomes INT32_MIN, which then saturates to the type's minimum).
              const float v = std::nearbyint(mean / out_q_.scale + static_cast<float>(out_q_.zero_point));
              q = v >= -2147483648.0f && v < 2147483648.0f ? static_cast<std::int64_t>(v) : std::numeric_limits<std::int32_t>::min();
            } else {
              q = static_cast<std::int64_t>(std::nearbyint(mean / out_q_.scale)) + out_q_.zero_point;
            }
            y[k++] = static_cast<T>(q < lo ? lo : (q > hi ? hi : q));
          }
        }
      }
    }
  }

  System system_;
  int in_, out_;
  DType type_{};
  bool ort_ = false;
  bool ort_zero_point_inside_ = false;
  bool count_include_pad_ = false;
  MlasPoolPath mlas_path_ = MlasPoolPath::kGeneric;  ///< the unfused QDQ group's MLAS kernel
  bool ort_global_ = false;    ///< QLinearAveragePool over the whole image: its global kernel
  float global_scale_ = 0.0f;  ///< ort_global_average_pool_scale when ort_global_
  Shape4 shape_;
  reference::PoolWindow window_;
  Activation act_ = Activation::kNone;
  reference::TensorQuant in_q_, out_q_;
  AveragePoolVariant variant_ = AveragePoolVariant::kTflite;
  reference::NpuHypothesis npu_;
  OutputParams output_{};
  std::vector<std::size_t> taps_;
  std::vector<std::pair<std::size_t, reference::NpuRequant>> npu_params_;
  std::string note_;
  bool fast_ = false;
};

std::vector<OpSample> pool_samples(OpKind kind) {
  struct Config {
    const char* label;
    DType dtype;
    std::size_t filter, stride;
  };
  const Config configs[] = {{"int8, 3x3 stride 2 SAME", DType::kInt8, 3, 2},
                            {"int8, 1x1 stride 2", DType::kInt8, 1, 2},
                            {"uint8, 3x3 stride 2 SAME", DType::kUint8, 3, 2}};
  std::vector<OpSample> out;
  for (const Config& c : configs) {
    SampleBuilder b(c.label);
    const std::int64_t z = c.dtype == DType::kUint8 ? 128 : 0;
    const int x = b.input("x", c.dtype, {1, 7, 7, 4}, 0.05f, z - 3);
    const int y = b.output("y", c.dtype, 0.05f, z - 3);
    auto o = std::make_shared<Pool2DOptions>();
    o->window.filter_h = o->window.filter_w = c.filter;
    o->window.stride_h = o->window.stride_w = c.stride;
    o->window.padding = Padding::kSame;
    b.node(kind, {x}, {y}, o);
    out.push_back(b.finish());
  }
  return out;
}

class AveragePool2DOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  // SAME 3x3 stride 2 (XNNPACK's rules allow it) and a 1x1 filter with stride 2 (they do not), int8
  // and uint8.
  std::vector<OpSample> samples() const override { return pool_samples(OpKind::kAveragePool2D); }

  void check(Graph& g, const Node& n) const override { check_pool(g, n); }
  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatPoolPrepared>(g, n, sys, true);
    return std::make_unique<AveragePoolPrepared>(g, n, sys, engine);
  }
  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    return read_pool_options(op, label);
  }
  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    return write_pool_options(b, n);
  }
  // xnnpack_takes: default (no): VisitAveragePool2DNode takes float32 tensors only.
};

// ---- MAX_POOL_2D --------------------------------------------------------------------------------

class MaxPoolPrepared : public PreparedNode {
 public:
  MaxPoolPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    const auto& o = n.opts<Pool2DOptions>();
    type_ = in.dtype;
    shape_ = pool_shapes(g, n).in;
    window_ = o.window;
    act_ = o.activation;
    out_q_ = tensor_quant(g.tensors[static_cast<std::size_t>(out_)]);
    switch (sys.style) {
      case OpStyle::kTfliteReference:
      case OpStyle::kTfliteOptimized: variant_ = MaxPoolVariant::kTflite; break;
      case OpStyle::kXnnpack: variant_ = MaxPoolVariant::kXnnpack; break;
      case OpStyle::kNpu:
        variant_ = MaxPoolVariant::kTflite;
        note_ = "NPU hypothesis (UNVERIFIED): a maximum has no rounding; TFLite's activation bounds";
        break;
      case OpStyle::kFloat:
        variant_ = MaxPoolVariant::kXnnpack;
        note_ = "float32 style (UNVERIFIED): the float clamp quantized with round-half-even bounds";
        break;
    }
    derivation_ = variant_ == MaxPoolVariant::kTflite ? ClampDerivation::kTflite : ClampDerivation::kXnnpack;
    try {
      output_ = activation_output_params(act_, derivation_, out_q_.scale, out_q_.zero_point,
                                         type_ == DType::kInt8 ? OutputType::kInt8 : OutputType::kUint8);
      for (std::size_t taps : tap_counts(shape_, window_)) {
        if (taps == 0) node_error(g, n, "a pooling window has no tap inside the image");
      }
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("under {}: {}", sys.name, cli::without_library_prefix(e.what())));
    }
    fast_ = engine == Engine::kFast;
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      if (fast_) {
        qparity::max_pool(data_of<T>(in), shape_, window_, out_q_, act_, variant_, data_of<T>(out));
      } else {
        const std::vector<T> y = reference::max_pool(elements_of<T>(in), shape_, window_, out_q_, act_, variant_);
        std::memcpy(out.bytes.data(), y.data(), y.size());
      }
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    if (!note_.empty()) l.push_back(note_);
    l.push_back(fmt::format("MaxPoolVariant::{} (include/qparity/reference/pooling.h), {}",
                            variant_ == MaxPoolVariant::kTflite ? "kTflite" : "kXnnpack",
                            pool_text(window_, act_)));
    l.push_back("y = maximum of the stored values over the window's in-image taps (padding never wins)");
    l.push_back(clamp_text(output_, act_, derivation_));
    if (fast_) l.push_back(fmt::format("kernel: pooling, {}", to_string(pooling_kernel_isa(active_isa()))));
    return l;
  }

 private:
  System system_;
  int in_, out_;
  DType type_{};
  Shape4 shape_;
  reference::PoolWindow window_;
  Activation act_ = Activation::kNone;
  reference::TensorQuant out_q_;
  MaxPoolVariant variant_ = MaxPoolVariant::kTflite;
  ClampDerivation derivation_ = ClampDerivation::kTflite;
  OutputParams output_{};
  std::string note_;
  bool fast_ = false;
};

class MaxPool2DOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  // SAME 3x3 stride 2 (XNNPACK's rules allow it) and a 1x1 filter with stride 2 (they do not), int8
  // and uint8.
  std::vector<OpSample> samples() const override { return pool_samples(OpKind::kMaxPool2D); }

  void check(Graph& g, const Node& n) const override { check_pool(g, n); }
  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatPoolPrepared>(g, n, sys, false);
    return std::make_unique<MaxPoolPrepared>(g, n, sys, engine);
  }
  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    return read_pool_options(op, label);
  }
  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    return write_pool_options(b, n);
  }
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    const reference::PoolWindow& w = n.opts<Pool2DOptions>().window;
    if (!xnnpack_per_tensor_8bit(in) || !xnnpack_per_tensor_8bit(out)) return false;
    if (w.stride_w > w.filter_w || w.stride_h > w.filter_h) return false;
    if (w.filter_w == 1 && w.filter_h == 1 && std::max(w.stride_w, w.stride_h) > 1) return false;
    return in.quant.scales[0] == out.quant.scales[0] && in.quant.zero_point() == out.quant.zero_point();
  }
};

}  // namespace

const Op& average_pool2d_op() {
  static const AveragePool2DOp op;
  return op;
}

const Op& max_pool2d_op() {
  static const MaxPool2DOp op;
  return op;
}

}  // namespace qparity::model
