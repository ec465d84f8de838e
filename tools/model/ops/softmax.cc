// SOFTMAX on int8 / uint8 tensors over the last dimension: y = softmax(beta * s_in * x) in units of
// the output scale. The output quantization is TFLite's: scale 1/256 (within TFLite's tolerance of
// 0.1 %), zero point -128 for int8 and 0 for uint8. TFLite's Prepare checks it for int8
// (tflite/kernels/activations.cc SoftmaxPrepare: zero_point == -128, scale near 1/256); it does not
// check uint8, where its optimized kernel would follow any output quantization and its reference
// kernel would ignore it (its fixed point always produces units of 1/256 from 0), so qparity
// requires 1/256 and 0 for uint8 too rather than pick one of two different answers.
//
// The arithmetic is include/qparity/reference/softmax.h (docs/semantics.md §21.5); the node's
// system picks its variant:
//
//   style              variant                              source
//   kTfliteReference   kTfliteReference (gemmlowp fixed     reference_ops::Softmax (TFLite's
//                      point), kTfliteReferenceSingle-      kReference kernel) and TFLM's softmax,
//                      Rounding when the preset's core is   which run the same function; the
//                      SR-UP (TFLITE_SINGLE_ROUNDING=1:     single build changes the input rescale
//                      tflite-single, cmsis-nn-single,      (MultiplyByQuantizedMultiplierGreater-
//                      tosa-single)                         ThanOne) and its 2^30 - 1 cap
//   kTfliteOptimized   target kArm: kTfliteOptimized-       Register_SOFTMAX is kGenericOptimized;
//                      Uint16Table; kX86, kWasm:            optimized_ops.h defines TFLITE_SOFTMAX_
//                      kTfliteOptimizedFloatTable           USE_UINT16_LUT under `__aarch64__ &&
//                                                           __clang__`, and SoftmaxPrepare then
//                                                           fills the two byte tables for 8-bit
//                                                           outputs (PopulateSoftmaxUInt8Lookup-
//                                                           Table), else the float table (Populate-
//                                                           SoftmaxLookupTable). kArm stands for
//                                                           TFLite's arm64 builds (Android, iOS:
//                                                           clang); a GCC or 32-bit ARM build
//                                                           would run the float table. The uint16
//                                                           table is modelled in the default
//                                                           (double-rounding) build only, whatever
//                                                           the preset: softmax.h has no single-
//                                                           rounding form of it. The float table is
//                                                           *measured* (LiteRT.js, wasm); the
//                                                           uint16 table is not (no arm64 runtime).
//   kXnnpack           as kTfliteOptimized                  XNNPACK's delegate takes SOFTMAX only in
//                                                           float32 with beta 1 (xnnpack_delegate.cc
//                                                           VisitSoftmaxNode: CheckTensorFloat32-
//                                                           Type), so an 8-bit SOFTMAX runs TFLite's
//                                                           own kernel (docs/semantics.md §20.3;
//                                                           measured: both LiteRT.js paths are the
//                                                           float table); xnnpack_takes() is false
//   kFloat             kFloat32 (dequantize, expf, float    UNVERIFIED for every runtime; ONNX
//                      sum, RNE); the onnxruntime presets:  Runtime's systems run QLinearSoftmax's
//                      softmax_ort.cc                       arithmetic instead (measured, §22.8)
//   kNpu               kTfliteOptimizedFloatTable           UNVERIFIED hypothesis: an NPU vendor's
//                                                           converter is validated against TFLite's
//                                                           CPU kernel, so the NPU is assumed to
//                                                           reproduce it; no device measurement
//
// The fast engine precomputes, per node, everything that depends only on d = max - x (256 values):
// the float table, the uint16 table, the float32 exps, or the fixed point's exp and accumulator
// terms; a row is then one pass for the maximum, one for the sum and one for the outputs, on typed
// pointers. The reference engine calls reference::softmax. Both give the same bits
// (tests/model/model_ops_misc_test.cc).
//
// Float32 SOFTMAX runs under a float precision (FloatSoftmaxPrepared; docs/semantics.md §24):
// reference::float_softmax (include/qparity/float_precision.h), TFLite's float reference kernel
// with the precision's roundings; an 8-bit SOFTMAX under a float precision, or a float32 one under
// an integer arithmetic, is an error naming what is allowed (check_system_fits).
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "model/op.h"
#include "model/ops/data_ops.h"
#include "model/ops/op_variants.h"
#include "model/ops/softmax_ort.h"
#include "preset_params.h"
#include "qparity/float_precision.h"
#include "qparity/reference/softmax.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

std::string SoftmaxOptions::describe() const { return fmt::format("beta {}", beta); }

namespace {

using reference::SoftmaxVariant;

const char* variant_name(SoftmaxVariant v) {
  switch (v) {
    case SoftmaxVariant::kTfliteOptimizedFloatTable: return "TFLite optimized float table";
    case SoftmaxVariant::kTfliteReference: return "TFLite reference fixed point, double-rounding build";
    case SoftmaxVariant::kTfliteReferenceSingleRounding: return "TFLite reference fixed point, single-rounding build";
    case SoftmaxVariant::kTfliteOptimizedUint16Table: return "TFLite optimized uint16 table (aarch64 + clang builds)";
    case SoftmaxVariant::kFloat32: return "float32 style (UNVERIFIED)";
  }
  return "?";
}

/// The softmax.h variant a system computes (the table at the top of this file).
SoftmaxVariant softmax_variant(const System& sys) {
  switch (sys.style) {
    case OpStyle::kTfliteReference:
      return sys.preset.core == RoundingCore::kSingleRoundingUpward ? SoftmaxVariant::kTfliteReferenceSingleRounding
                                                                     : SoftmaxVariant::kTfliteReference;
    case OpStyle::kTfliteOptimized:
    case OpStyle::kXnnpack:
      return sys.target == Target::kArm ? SoftmaxVariant::kTfliteOptimizedUint16Table
                                        : SoftmaxVariant::kTfliteOptimizedFloatTable;
    case OpStyle::kFloat: return SoftmaxVariant::kFloat32;
    case OpStyle::kNpu: return SoftmaxVariant::kTfliteOptimizedFloatTable;
  }
  return SoftmaxVariant::kTfliteOptimizedFloatTable;
}

constexpr float kOutputScale = 1.0f / 256.0f;

class SoftmaxPrepared : public PreparedNode {
 public:
  SoftmaxPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), engine_(engine), in_(n.inputs[0]), out_(n.outputs[0]) {
    label_ = fmt::format("{}: {}", g.source, g.node_label(node_index(g, n)));
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    dtype_ = in.dtype;
    row_ = in.shape.back();
    beta_ = n.opts<SoftmaxOptions>().beta;
    in_q_ = {in.quant.scales[0], static_cast<std::int32_t>(in.quant.zero_point())};
    out_q_ = {out.quant.scales[0], static_cast<std::int32_t>(out.quant.zero_point())};
    variant_ = softmax_variant(sys);
    type_min_ = static_cast<std::int32_t>(cli::dtype_min(dtype_));
    switch (variant_) {
      case SoftmaxVariant::kTfliteOptimizedFloatTable: {
        // table[255 - k] = expf(float(-s_in * beta) * k): indexed here by k = max - x.
        const float neg = -in_q_.scale * beta_;
        for (int k = 0; k < 256; ++k) float_table_[k] = std::exp(neg * static_cast<float>(k));
        break;
      }
      case SoftmaxVariant::kTfliteOptimizedUint16Table: {
        const float sb = in_q_.scale * beta_;
        for (int k = 0; k < 256; ++k) {
          const float e = std::exp(sb * static_cast<float>(-k)) * 65535.0f;
          u16_table_[k] = std::min<std::int32_t>(65535, static_cast<std::int32_t>(static_cast<double>(e) + 0.5));
        }
        break;
      }
      case SoftmaxVariant::kFloat32: {
        for (int k = 0; k < 256; ++k) {
          const float d = static_cast<float>(static_cast<double>(in_q_.scale) * static_cast<double>(-k));
          float_table_[k] = std::exp(beta_ * d);
        }
        break;
      }
      case SoftmaxVariant::kTfliteReference:
      case SoftmaxVariant::kTfliteReferenceSingleRounding: prepare_fixed_point(g, n); break;
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    if (dtype_ == DType::kInt8) {
      run_typed<std::int8_t>(in, out);
    } else {
      run_typed<std::uint8_t>(in, out);
    }
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> lines = {
        fmt::format("arithmetic: {}", system_.name),
        fmt::format("SOFTMAX over the last dimension (rows of {}), beta {}, input scale {} (its zero point {} "
                    "cancels), output scale {} zero point {}",
                    row_, beta_, in_q_.scale, in_q_.zero_point, out_q_.scale, out_q_.zero_point)};
    const std::string npu = system_.style == OpStyle::kNpu ? "NPU hypothesis (UNVERIFIED): " : "";
    switch (variant_) {
      case SoftmaxVariant::kTfliteOptimizedFloatTable:
        lines.push_back(fmt::format("{}{}: e = table[255 - (max - x)], table[255 - k] = expf(float(-s_in * beta) * k); "
                                    "float sum left to right; p = e * float(1 / float(sum * s_out)); y = {} + zp",
                                    npu, variant_name(variant_),
                                    dtype_ == DType::kInt8 ? "round_half_away(p)" : "int(p + 0.5f)"));
        break;
      case SoftmaxVariant::kTfliteOptimizedUint16Table:
        lines.push_back(fmt::format("{}: e = t[max - x], t[k] = min(65535, trunc(double(expf(float(s_in * beta) * -k) "
                                    "* 65535) + 0.5)); int32 sum S; (M, shift) = QuantizeMultiplier(float(1 / float(S * "
                                    "s_out))) per row; y = MultiplyByQuantizedMultiplier(e, M, shift) (DR-AZ) + zp",
                                    variant_name(variant_)));
        break;
      case SoftmaxVariant::kFloat32:
        lines.push_back(fmt::format("{}: e = expf(beta * float(s_in * (x - max))), float sum left to right, y = "
                                    "RNE(float(e / sum) / s_out) + zp", variant_name(variant_)));
        break;
      case SoftmaxVariant::kTfliteReference:
      case SoftmaxVariant::kTfliteReferenceSingleRounding:
        lines.push_back(fmt::format("{}: input multiplier {} shift {} ({}), diff_min {}; e = exp_on_negative_values(Q5.26) "
                                    "in Q0.31, sum of RDBPOT(e, 12) in Q12.19, r = GetReciprocal(sum), y = "
                                    "RDBPOT(SRDHM(r, e), bits_over_unit + 23) + {} (x - max < diff_min: {})",
                                    variant_name(variant_), beta_m_.multiplier, beta_m_.shift,
                                    single_ ? "SR-UP" : "SRDHM of d * 2^shift", diff_min_, type_min_, type_min_));
        break;
    }
    return lines;
  }

 private:
  void prepare_fixed_point(const Graph& g, const Node& n) {
    single_ = variant_ == SoftmaxVariant::kTfliteReferenceSingleRounding;
    // PreprocessSoftmaxScaling: QuantizeMultiplierGreaterThanOne(min(beta * s_in * 2^26, cap)).
    const double cap = static_cast<double>((std::int64_t{1} << (single_ ? 30 : 31)) - 1);
    const double real = std::min(static_cast<double>(beta_) * static_cast<double>(in_q_.scale) * 67108864.0, cap);
    if (!(real > 1.0)) {
      node_error(g, n, fmt::format("beta {} x input scale {} x 2^26 = {} under {}: TFLite's fixed-point SOFTMAX needs "
                                   "more than 1 (QuantizeMultiplierGreaterThanOne); allowed: beta * input scale > 2^-26",
                                   beta_, in_q_.scale, real, system_.name));
    }
    beta_m_ = quantize_multiplier_tflite(real, single_ ? TfliteBuild::kSingleRounding : TfliteBuild::kDoubleRounding);
    diff_min_ = -static_cast<std::int64_t>(std::floor(31.0 * 67108864.0 / std::ldexp(1.0, beta_m_.shift)));
    for (int k = 0; k < 256; ++k) {
      const std::int32_t d = -k;
      fixed_valid_[k] = d >= diff_min_;
      if (!fixed_valid_[k]) continue;
      std::int32_t z;
      if (single_) {
        RequantParams p;
        p.multiplier = beta_m_.multiplier;
        p.shift = beta_m_.shift;
        z = SingleRoundingUpward::requantize(d, p);
      } else {
        z = reference::detail::srdhm(shift_left_wrapping(d, beta_m_.shift), beta_m_.multiplier);
      }
      fixed_exp_[k] = reference::detail::exp_on_negative_values(z, 5);
      fixed_acc_[k] = reference::detail::rescale(fixed_exp_[k], 0, 12);
    }
  }

  template <class T>
  void run_typed(const Tensor& in, Tensor& out) const {
    const std::size_t n = in.elements();
    const T* x = reinterpret_cast<const T*>(in.bytes.data());
    T* y = reinterpret_cast<T*>(out.bytes.data());
    if (engine_ == Engine::kReference) {
      std::vector<T> xv(x, x + n);
      std::vector<T> yv;
      try {
        yv = reference::softmax<T, T>(xv, row_, in_q_, out_q_, beta_, variant_);
      } catch (const InvalidArgument& e) {
        throw cli::ToolError(fmt::format("{}: {} (for the fixed point: a row's sum of exponentials too large, where "
                                         "gemmlowp's RoundingDivideByPOT would shift by more than 31)",
                                         label_, cli::without_library_prefix(e.what())));
      }
      if (n != 0) std::memcpy(y, yv.data(), n * sizeof(T));
      return;
    }
    for (std::size_t r = 0; r < n; r += row_) run_row(x + r, y + r);
  }

  template <class T>
  void run_row(const T* x, T* y) const {
    std::int32_t m = type_min_;
    for (std::size_t j = 0; j < row_; ++j) m = std::max<std::int32_t>(m, x[j]);
    const std::int32_t zp = out_q_.zero_point;
    switch (variant_) {
      case SoftmaxVariant::kTfliteOptimizedFloatTable: {
        const float* table = float_table_;  // locals: y (a char type) may alias every member
        const std::size_t row = row_;
        float sum = 0.0f;  // left to right, as TFLite: one dependent add per element
        for (std::size_t j = 0; j < row; ++j) sum += table[m - x[j]];
        const float inv = 1.0f / (sum * out_q_.scale);
        for (std::size_t j = 0; j < row; ++j) {
          const float p = table[m - x[j]] * inv;  // in [0, 256 (1 + 2^-22)]
          std::int32_t q;
          if (std::is_same<T, std::uint8_t>::value) {
            q = static_cast<std::int32_t>(p + 0.5f);
          } else {
            // std::round(p) for p >= 0 without the call: p - floor(p) is exact here.
            const std::int32_t f = static_cast<std::int32_t>(p);
            q = f + (p - static_cast<float>(f) >= 0.5f ? 1 : 0);
          }
          q += zp;
          y[j] = static_cast<T>(q < reference::type_min<T>() ? reference::type_min<T>()
                                                             : (q > reference::type_max<T>() ? reference::type_max<T>() : q));
        }
        break;
      }
      case SoftmaxVariant::kTfliteOptimizedUint16Table: {
        std::int32_t sum = 0;
        for (std::size_t j = 0; j < row_; ++j) sum += u16_table_[m - x[j]];
        const float inv = 1.0f / (static_cast<float>(sum) * out_q_.scale);
        const QuantizedMultiplier qm = quantize_multiplier_tflite(static_cast<double>(inv), TfliteBuild::kDoubleRounding);
        RequantParams p;
        p.multiplier = qm.multiplier;
        p.shift = qm.shift;
        for (std::size_t j = 0; j < row_; ++j) {
          const std::int32_t v = DoubleRoundingAwayFromZero::requantize(u16_table_[m - x[j]], p);
          y[j] = reference::saturate_to<T>(static_cast<std::int64_t>(v) + zp);
        }
        break;
      }
      case SoftmaxVariant::kFloat32: {
        float sum = 0.0f;
        for (std::size_t j = 0; j < row_; ++j) sum += float_table_[m - x[j]];
        for (std::size_t j = 0; j < row_; ++j) {
          const float p = float_table_[m - x[j]] / sum;
          y[j] = reference::saturate_to<T>(
              static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(p / out_q_.scale)) + zp);
        }
        break;
      }
      case SoftmaxVariant::kTfliteReference:
      case SoftmaxVariant::kTfliteReferenceSingleRounding: {
        std::int32_t sum = 0;  // Q12.19
        for (std::size_t j = 0; j < row_; ++j) {
          const std::int32_t k = m - x[j];
          if (fixed_valid_[k]) sum = reference::detail::add_wrap(sum, fixed_acc_[k]);
        }
        int bits_over_unit = 0;
        const std::int32_t recip = reference::detail::get_reciprocal(sum, 12, &bits_over_unit);
        const int exponent = bits_over_unit + 31 - 8;
        if (exponent < 0 || exponent > 31) {
          throw cli::ToolError(fmt::format(
              "{}: a row's sum of exponentials needs a shift by {} in TFLite's fixed-point SOFTMAX, where gemmlowp's "
              "RoundingDivideByPOT is defined for 0 to 31 only (TFLite's result is undefined there; the float "
              "kernels are not affected)", label_, exponent));
        }
        for (std::size_t j = 0; j < row_; ++j) {
          const std::int32_t k = m - x[j];
          std::int64_t q = type_min_;
          if (fixed_valid_[k]) {
            q = static_cast<std::int64_t>(
                    rounding_divide_by_pot(reference::detail::srdhm(recip, fixed_exp_[k]), exponent)) +
                type_min_;
          }
          y[j] = reference::saturate_to<T>(q);
        }
        break;
      }
    }
  }

  System system_;
  Engine engine_;
  int in_, out_;
  std::string label_;
  DType dtype_ = DType::kInt8;
  std::size_t row_ = 1;
  float beta_ = 1.0f;
  reference::TensorQuant in_q_, out_q_;
  SoftmaxVariant variant_ = SoftmaxVariant::kTfliteOptimizedFloatTable;
  std::int32_t type_min_ = -128;
  // Everything per d = max - x, indexed by k = max - x in [0, 255].
  float float_table_[256] = {};
  std::int32_t u16_table_[256] = {};
  bool single_ = false;
  QuantizedMultiplier beta_m_{};
  std::int64_t diff_min_ = 0;
  bool fixed_valid_[256] = {};
  std::int32_t fixed_exp_[256] = {};
  std::int32_t fixed_acc_[256] = {};
};

// A float32 SOFTMAX under a float precision: reference::float_softmax over the last dimension.
class FloatSoftmaxPrepared : public PreparedNode {
 public:
  FloatSoftmaxPrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]), row_(input_def(g, n, 0).shape.back()),
        beta_(n.opts<SoftmaxOptions>().beta) {}

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    reference::float_softmax(in.elements() / row_, row_, beta_, *system_.float_precision,
                             reinterpret_cast<const float*>(in.bytes.data()), reinterpret_cast<float*>(out.bytes.data()));
  }

  std::vector<std::string> describe() const override {
    const FloatPrecision& p = *system_.float_precision;
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("SOFTMAX over the last dimension (rows of {}), beta {}: TFLite's float reference kernel "
                        "(reference/softmax.h) under float precision {} (include/qparity/float_precision.h "
                        "float_softmax)", row_, beta_, p.name),
            fmt::format("x = round_{0}(input), m = max(x), e = round_{1}(expf(float((x - m) * beta))), sum = "
                        "round_{1}(sum + e) in index order, y = round_{0}(round_{1}(e / sum))",
                        to_string(p.storage), to_string(p.accumulator))};
  }

 private:
  System system_;
  int in_, out_;
  std::size_t row_;
  float beta_;
};

class SoftmaxOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  // int8 and uint8 probabilities (the output quantization TFLite requires: 1/256, zero point at the
  // type's minimum).
  std::vector<OpSample> samples() const override {
    std::vector<OpSample> out;
    for (const DType d : {DType::kInt8, DType::kUint8}) {
      SampleBuilder b(d == DType::kInt8 ? "int8" : "uint8");
      const std::int64_t z = d == DType::kUint8 ? 128 : 0;
      const int x = b.input("x", d, {2, 10}, 0.1f, z - 3);
      const int y = b.output("y", d, kOutputScale, cli::dtype_min(d));
      auto o = std::make_shared<SoftmaxOptions>();
      o->beta = 1.0f;
      b.node(OpKind::kSoftmax, {x}, {y}, o);
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat32});
    if (out.dtype != in.dtype) {
      node_error(g, n, fmt::format("output '{}' is {}, the input {}; allowed: the same type", out.name,
                                   cli::to_string(out.dtype), cli::to_string(in.dtype)));
    }
    if (in.shape.empty() || in.shape.back() == 0) {
      node_error(g, n, fmt::format("input '{}' has shape {}; allowed: rank >= 1 with a non-empty last dimension "
                                   "(the rows SOFTMAX normalizes)", in.name, cli::shape_text(in.shape)));
    }
    const float beta = n.options ? n.opts<SoftmaxOptions>().beta : 0.0f;
    if (!(beta > 0.0f) || !std::isfinite(beta)) {
      node_error(g, n, fmt::format("beta = {}; allowed: finite and > 0", beta));
    }
    if (in.dtype == DType::kFloat32) {  // a float classifier's last op, under a float precision
      set_output_shape(g, n, 0, in.shape);
      return;
    }
    require_per_tensor(g, n, in, "input");
    require_per_tensor(g, n, out, "output");
    const float s_in = in.quant.scales[0];
    if (!(s_in > 0.0f) || !std::isfinite(s_in)) {
      node_error(g, n, fmt::format("input '{}' has scale {}; allowed: finite and > 0", in.name, s_in));
    }
    const std::int64_t want_zp = cli::dtype_min(out.dtype);
    const float s_out = out.quant.scales[0];
    if (out.quant.zero_point() != want_zp || !(std::fabs(s_out - kOutputScale) <= 0.001f * kOutputScale)) {
      node_error(g, n, fmt::format("output '{}' has scale {} and zero point {}; allowed: scale 1/256 (within 0.1 %) and "
                                   "zero point {} ({} SOFTMAX: TFLite's kernels compute probabilities in units of "
                                   "1/256{})", out.name, s_out, out.quant.zero_point(), want_zp,
                                   cli::to_string(out.dtype),
                                   out.dtype == DType::kInt8 ? ", and its Prepare rejects anything else"
                                                             : "; its reference kernel ignores the output "
                                                               "quantization, its optimized kernel follows it"));
    }
    set_output_shape(g, n, 0, in.shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatSoftmaxPrepared>(g, n, sys);
    if (is_onnxruntime_system(sys)) return prepare_ort_softmax(g, n, sys);  // softmax_ort.h
    return std::make_unique<SoftmaxPrepared>(g, n, sys, engine);
  }

  // Not for 8-bit tensors (VisitSoftmaxNode takes float32 only); see the top of this file.
  bool xnnpack_takes(const Graph&, const Node&) const override { return false; }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string&) const override {
    auto o = std::make_shared<SoftmaxOptions>();
    // TFLite's parser leaves beta at 0 without options; check() then names the problem.
    const tflite::SoftmaxOptions* t = op.builtin_options_as_SoftmaxOptions();
    o->beta = t != nullptr ? t->beta() : 0.0f;
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    return {tflite::BuiltinOptions_SoftmaxOptions, tflite::CreateSoftmaxOptions(b, n.opts<SoftmaxOptions>().beta).o};
  }
};

}  // namespace

const Op& softmax_op() {
  static const SoftmaxOp op;
  return op;
}

}  // namespace qparity::model
