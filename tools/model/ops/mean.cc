// MEAN on int8 / uint8 tensors: input 0 the data (any rank), input 1 the axes (a constant int32 /
// int64 vector; negative values count from the end, duplicates allowed), ReducerOptions keep_dims.
// The arithmetic is include/qparity/reference/mean.h (docs/semantics.md §21.4); Engine::kFast runs
// the compiled H,W kernel of include/qparity/pooling.h (mean_hw, kernels/pooling/) when the reduced
// axes of a 4-D input are exactly {1, 2} (MobileNet's / ResNet's global average pool), the
// reference otherwise. Float32 MEAN runs under a float precision (FloatMeanPrepared,
// docs/semantics.md §24).
//
// System -> variant (system.h op styles), with the rounding build of the preset (tflite_build_of):
//   kTfliteReference  MeanVariant::kTfliteReference for every case: reference_ops::
//       QuantizedMeanOrSum (1/n folded into the multiplier by an integer division), which LiteRT's
//       reduce.cc EvalMean runs for its reference kernel type (EvalQuantizedMean; LiteRT
//       tflite/kernels/reduce.cc, read at the revision stored by the search index, 2026). Older
//       TFLite reference kernels sent the 4-D H,W keep_dims int8 case to
//       reference_integer_ops::Mean (kTflmHW), which TFLM still runs, and TFLM truncates
//       equal-quantization means (kTflmSameQuantTruncate): neither is selected by a system here.
//   kTfliteOptimized  kTfliteOptimizedHW when keep_dims, the input is 4-D and the axes tensor holds
//       exactly the values 1 and 2 in either order, for int8 and uint8 (EvalMean's
//       kGenericOptimized branch: optimized_integer_ops::Mean / optimized_ops::Mean; negative axes
//       such as {-3, -2} do not take it: measured with LiteRT.js 2.5.3); on Target
//       kArm its NEON form kTfliteOptimizedHWNeon (16-channel blocks, DR-UP / SR-UP-NEON;
//       single-threaded, UNVERIFIED on a device); every other MEAN kTfliteReference. Measured:
//       LiteRT.js 2.5.3 (wasm: no NEON blocks), §21.4.
//   kXnnpack          kXnnpack (sums in int32, float scale, zero point added in float before RNE;
//       measured for the wasm kernels; x86 / ARM use the same parameters, their finishing kernels
//       were not read).
//   kNpu              kNpuSingleRounding with the preset's tie rule and multiplier precision
//       (UNVERIFIED).
//   kFloat            kFloat32 (UNVERIFIED); the H,W mean of a 4-D tensor under the onnxruntime
//                     preset: ONNX Runtime's QLinearGlobalAveragePool formula, measured
//                     (ort_qlinear_global_average_pool.h; docs/semantics.md §22.2).
// TFLite's builtin MEAN rounds the default way (tflite_builtin_preset: default).
//
// XNNPACK's delegate (xnnpack_takes; xnnpack_delegate.cc VisitReduceNode with xnn_reduce_mean):
// input and output int8 or uint8 with one scale, one zero point and quantized_dimension 0
// (CheckTensorFloat32OrQUInt8Type), the axes a static int32 tensor of rank <= 1 (CheckTensorType,
// CheckAxesTensorShape, CheckTensorStaticAllocation), any axes and keep_dims; XNNPACK tensors have
// at most 6 dimensions.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <cmath>
#include <set>

#include "model/ops/mean.h"
#include "model/ops/op_variants.h"
#include "model/ops/ort_qlinear_global_average_pool.h"
#include "preset_params.h"
#include "qparity/pooling.h"
#include "qparity/reference/mean.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

std::string ReducerOptions::describe() const { return keep_dims ? "keep_dims" : "keep_dims false"; }

namespace {

using reference::MeanVariant;

const char* variant_name(MeanVariant v) {
  switch (v) {
    case MeanVariant::kTfliteOptimizedHW: return "MeanVariant::kTfliteOptimizedHW";
    case MeanVariant::kTfliteOptimizedHWNeon: return "MeanVariant::kTfliteOptimizedHWNeon";
    case MeanVariant::kTfliteReference: return "MeanVariant::kTfliteReference";
    case MeanVariant::kTflmHW: return "MeanVariant::kTflmHW";
    case MeanVariant::kTflmSameQuantTruncate: return "MeanVariant::kTflmSameQuantTruncate";
    case MeanVariant::kXnnpack: return "MeanVariant::kXnnpack";
    case MeanVariant::kNpuSingleRounding: return "MeanVariant::kNpuSingleRounding";
    case MeanVariant::kFloat32: return "MeanVariant::kFloat32";
  }
  return "?";
}

/// The axes as the file states them (input 1, constant).
std::vector<int> raw_axes(const Graph& g, const Node& n) {
  const TensorDef& a = input_def(g, n, 1);
  std::vector<int> axes;
  for (std::size_t i = 0; i < a.data->elements(); ++i) axes.push_back(static_cast<int>(a.data->integer_at(i)));
  return axes;
}

/// TFLite's optimized H,W case: keep_dims, 4-D, two axes whose stored values are 1 and 2 (either
/// order). Negative values are not normalised first: axes {-3, -2} run QuantizedMeanOrSum
/// (measured with LiteRT.js 2.5.3, tests/model/oracle_pool_test.cc).
bool tflite_hw_case(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  if (!n.opts<ReducerOptions>().keep_dims || in.shape.size() != 4) return false;
  const std::vector<int> axes = raw_axes(g, n);
  if (axes.size() != 2) return false;
  return (axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1);
}

class MeanPrepared : public PreparedNode {
 public:
  MeanPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    type_ = in.dtype;
    dims_ = in.shape;
    spec_.axes = raw_axes(g, n);
    spec_.keep_dims = n.opts<ReducerOptions>().keep_dims;
    in_q_ = tensor_quant(in);
    out_q_ = tensor_quant(g.tensors[static_cast<std::size_t>(out_)]);
    build_ = tflite_build_of(sys.preset);
    std::vector<bool> reduced;
    reference::mean_output_dims(dims_, spec_, &reduced);
    reduced_ = 1;
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      if (reduced[i]) reduced_ *= dims_[i];
    }
    const bool hw_set = dims_.size() == 4 && !reduced[0] && reduced[1] && reduced[2] && !reduced[3];
    switch (sys.style) {
      case OpStyle::kTfliteReference: variant_ = MeanVariant::kTfliteReference; break;
      case OpStyle::kTfliteOptimized:
        variant_ = !tflite_hw_case(g, n)       ? MeanVariant::kTfliteReference
                   : sys.target == Target::kArm ? MeanVariant::kTfliteOptimizedHWNeon
                                                : MeanVariant::kTfliteOptimizedHW;
        break;
      case OpStyle::kXnnpack: variant_ = MeanVariant::kXnnpack; break;
      case OpStyle::kNpu:
        variant_ = MeanVariant::kNpuSingleRounding;
        npu_ = npu_hypothesis_of(sys.preset);
        break;
      case OpStyle::kFloat: variant_ = MeanVariant::kFloat32; break;
    }
    // The global average pool (H, W of a 4-D tensor) under ONNX Runtime's preset: its own measured
    // formula (QLinearGlobalAveragePool, docs/semantics.md §22.2).
    mlas_gap_ = sys.style == OpStyle::kFloat && sys.preset.name.compare(0, 11, "onnxruntime") == 0 && hw_set;
    if (mlas_gap_) {
      const std::size_t image = dims_[1] * dims_[2];
      gap_scale_ = ort_global_average_pool_scale(in_q_.scale, out_q_.scale, image);
      if (!ort_global_scale_allowed(gap_scale_, image)) {
        node_error(g, n, fmt::format("under {}: input scale {} / (output scale {} * {} pixels) = {}; ONNX Runtime "
                                     "allows [2^-32, 256) and fewer than 2^24 pixels", sys.name, in_q_.scale,
                                     out_q_.scale, image, gap_scale_));
      }
      return;
    }
    try {
      derive_lines();
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("under {}: {}", sys.name, cli::without_library_prefix(e.what())));
    }
    fast_ = engine == Engine::kFast && hw_set && dims_[1] * dims_[2] <= kMaxPoolingReduction;
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      if (mlas_gap_) {
        ort_qlinear_global_average_pool(data_of<T>(in), data_of<T>(out), dims_[0], dims_[1] * dims_[2], dims_[3],
                                        in_q_.zero_point, out_q_.zero_point, gap_scale_);
      } else if (fast_) {
        const reference::Shape4 s{dims_[0], dims_[1], dims_[2], dims_[3]};
        qparity::mean_hw(data_of<T>(in), s, in_q_, out_q_, variant_, data_of<T>(out), build_, npu_);
      } else {
        const std::vector<T> y = reference::mean(elements_of<T>(in), dims_, spec_, in_q_, out_q_, variant_, build_, npu_);
        std::memcpy(out.bytes.data(), y.data(), y.size());
      }
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    if (mlas_gap_) {
      l.push_back(fmt::format("ONNX Runtime MlasQLinearGlobalAveragePool (x86): acc = sum - {} * {} (int32); y = "
                              "RNE(clamp(float(acc) * {:a}, {} - {}, {} - {})) + {}, the scale float({:a} / "
                              "float({:a} * {}))",
                              in_q_.zero_point, dims_[1] * dims_[2], gap_scale_, type_ == DType::kInt8 ? -128 : 0,
                              out_q_.zero_point, type_ == DType::kInt8 ? 127 : 255, out_q_.zero_point,
                              out_q_.zero_point, in_q_.scale, out_q_.scale, dims_[1] * dims_[2]));
      return l;
    }
    l.push_back(fmt::format("{} (include/qparity/reference/mean.h), axes [{}], {}, n = {} elements per output",
                            variant_name(variant_), fmt::join(spec_.axes, ", "),
                            spec_.keep_dims ? "keep_dims" : "keep_dims false", reduced_));
    l.insert(l.end(), lines_.begin(), lines_.end());
    if (fast_) l.push_back(fmt::format("kernel: pooling (H,W mean), {}", to_string(pooling_kernel_isa(active_isa()))));
    return l;
  }

 private:
  /// The variant's derived parameters, as reference/mean.h derives them (and any error it throws).
  void derive_lines() {
    const float si = in_q_.scale, so = out_q_.scale;
    const std::int32_t zi = in_q_.zero_point, zo = out_q_.zero_point;
    const std::size_t n = reduced_;
    reference::detail::require_scale("input scale", si);
    reference::detail::require_scale("output scale", so);
    const char* type_range = type_ == DType::kInt8 ? "[-128, 127]" : "[0, 255]";
    switch (variant_) {
      case MeanVariant::kTfliteOptimizedHW:
      case MeanVariant::kTfliteOptimizedHWNeon: {
        float t = static_cast<float>(zi) * si;
        t = t / so;
        t = t > 0 ? t + 0.5f : t - 0.5f;
        const std::int64_t bias = zo - static_cast<std::int32_t>(t);
        const float real = si / (static_cast<float>(n) * so);
        const QuantizedMultiplier m = reference::tflite_quantize_multiplier_checked(static_cast<double>(real), build_);
        lines_.push_back("acc = sum of the stored values (no zero point)");
        lines_.push_back(fmt::format("bias = {} - trunc(float({} * {}) / {} +- 0.5f) = {} (float rounding of the "
                                     "zero-point term)", zo, zi, si, so, bias));
        lines_.push_back(fmt::format("y = clamp(MultiplyByQuantizedMultiplier(acc, {}, {}) + {}, {}), real = "
                                     "float({} / float({} * {})) = {}, {}",
                                     m.multiplier, m.shift, bias, type_range, si, n, so, real, to_string(build_)));
        if (variant_ == MeanVariant::kTfliteOptimizedHWNeon) {
          const std::size_t neon_end = dims_.back() / 16 * 16;
          lines_.push_back(neon_end == 0
                               ? std::string("NEON: fewer than 16 channels, every channel takes the scalar form")
                               : fmt::format("NEON: channels [0, {}) in 16-blocks with "
                                             "MultiplyByQuantizedMultiplier4Rows ({}), the rest the scalar form",
                                             neon_end, build_ == TfliteBuild::kDoubleRounding ? "DR-UP" : "SR-UP-NEON"));
        }
        break;
      }
      case MeanVariant::kTfliteReference:
      case MeanVariant::kTflmHW: {
        QuantizedMultiplier m = reference::tflite_quantize_multiplier_checked(
            static_cast<double>(si) / static_cast<double>(so), build_);
        if (variant_ == MeanVariant::kTflmHW) {
          lines_.push_back(fmt::format("t = MultiplyByQuantizedMultiplier(acc - {} * {}, {}, {}) ({}); y = clamp(HAZ(t "
                                       "/ {}) + {}, {})",
                                       n, zi, m.multiplier, m.shift, to_string(build_), n, zo, type_range));
          break;
        }
        int k = 63 - reference::detail::count_leading_zeros_u64(static_cast<std::uint64_t>(n));
        k = std::min(k, 32);
        k = std::min(k, 31 + m.shift);
        const std::int64_t mk = (static_cast<std::int64_t>(m.multiplier) << k) / static_cast<std::int64_t>(n);
        lines_.push_back(fmt::format("(M, e) = QuantizeMultiplier(double({}) / double({})) = ({}, {}); k = {}; M' = "
                                     "trunc(M * 2^k / {}) = {}, e' = {}",
                                     si, so, m.multiplier, m.shift, k, n, mk, m.shift - k));
        lines_.push_back(fmt::format("y = clamp(MultiplyByQuantizedMultiplier(acc - {} * {}, {}, {}) + {}, {}), {}", n,
                                     zi, mk, m.shift - k, zo, type_range, to_string(build_)));
        break;
      }
      case MeanVariant::kTflmSameQuantTruncate:
        lines_.push_back(fmt::format("y = trunc(acc / {}) (C division toward zero)", n));
        break;
      case MeanVariant::kXnnpack: {
        const float scale = (si / so) * (1.0f / static_cast<float>(n));
        lines_.push_back(fmt::format("scale = float(float({} / {}) * float(1 / {})) = {}", si, so, n, scale));
        lines_.push_back(fmt::format("y = clamp(round_half_even(float(float(acc - {} * {}) * scale) + float({})), {}) "
                                     "(zero point added in float before rounding)",
                                     n, zi, zo, type_range));
        break;
      }
      case MeanVariant::kNpuSingleRounding: {
        const reference::NpuRequant r = reference::npu_requant(
            npu_, static_cast<double>(si) / (static_cast<double>(so) * static_cast<double>(n)));
        lines_.push_back(fmt::format("NPU hypothesis (UNVERIFIED): y = clamp(round((acc - {} * {}) * M) + {}, {}), {}; "
                                     "core {}, multiplier {}, shift {} (M from {} / ({} * {}))",
                                     n, zi, zo, type_range, npu_text(npu_), to_string(r.core), r.params.multiplier,
                                     r.params.shift, si, so, n));
        break;
      }
      case MeanVariant::kFloat32:
        lines_.push_back(fmt::format("float32 style (UNVERIFIED): y = clamp(round_half_even(float({} * (acc - {} * {}) / "
                                     "{}) / {}) + {}, {})",
                                     si, n, zi, n, so, zo, type_range));
        break;
    }
  }

  System system_;
  int in_, out_;
  DType type_{};
  bool mlas_gap_ = false;
  float gap_scale_ = 0.0f;
  std::vector<std::size_t> dims_;
  reference::MeanSpec spec_;
  std::size_t reduced_ = 1;
  reference::TensorQuant in_q_, out_q_;
  MeanVariant variant_ = MeanVariant::kTfliteReference;
  TfliteBuild build_ = TfliteBuild::kDoubleRounding;
  reference::NpuHypothesis npu_;
  std::vector<std::string> lines_;
  bool fast_ = false;
};

// A float32 MEAN under a float precision (docs/semantics.md §24), TFLite's float reference order
// (reference_ops::Mean: the input walked in row-major order, each element added to its output's
// sum): per output, acc = +0, acc = round_acc(acc + round_storage(x)) over the reduced elements in
// row-major order, then y = round_storage(round_acc(acc / n)).
class FloatMeanPrepared : public PreparedNode {
 public:
  FloatMeanPrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]), shape_(input_def(g, n, 0).shape),
        reduced_axis_(shape_.size(), false) {
    reference::MeanSpec spec;
    spec.axes = raw_axes(g, n);
    spec.keep_dims = n.opts<ReducerOptions>().keep_dims;
    (void)reference::mean_output_dims(shape_, spec, &reduced_axis_);  // the axes were checked by check()
    for (std::size_t d = 0; d < shape_.size(); ++d) count_ *= reduced_axis_[d] ? shape_[d] : 1;
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    const float* x = reinterpret_cast<const float*>(in.bytes.data());
    float* y = reinterpret_cast<float*>(values[static_cast<std::size_t>(out_)].bytes.data());
    const FloatPrecision& p = *system_.float_precision;
    // Output index of each input element: its coordinates along the kept dimensions, row-major.
    std::vector<float> acc(values[static_cast<std::size_t>(out_)].elements(), 0.0f);
    std::vector<std::size_t> idx(shape_.size(), 0);
    for (std::size_t i = 0, total = in.elements(); i < total; ++i) {
      std::size_t o = 0;
      for (std::size_t d = 0; d < shape_.size(); ++d) {
        if (!reduced_axis_[d]) o = o * shape_[d] + idx[d];
      }
      acc[o] = round_to(p.accumulator, acc[o] + round_to(p.storage, x[i]));
      for (std::size_t d = shape_.size(); d-- > 0;) {
        if (++idx[d] < shape_[d]) break;
        idx[d] = 0;
      }
    }
    for (std::size_t o = 0; o < acc.size(); ++o) {
      y[o] = round_to(p.storage, round_to(p.accumulator, acc[o] / static_cast<float>(count_)));
    }
  }

  std::vector<std::string> describe() const override {
    const FloatPrecision& p = *system_.float_precision;
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("per output: acc = +0; acc = round_{0}(acc + round_{1}(x)) over its {2} reduced elements in "
                        "row-major order; y = round_{1}(round_{0}(acc / {2})) (float precision {3})",
                        to_string(p.accumulator), to_string(p.storage), count_, p.name)};
  }

 private:
  System system_;
  int in_, out_;
  std::vector<std::size_t> shape_;
  std::vector<bool> reduced_axis_;
  std::size_t count_ = 1;
};

class MeanOp : public Op {
 public:
  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  // The global average pool of MobileNet and ResNet (axes H, W), int8 and uint8, and a reduction
  // over the channels.
  std::vector<OpSample> samples() const override {
    struct Config {
      const char* label;
      DType dtype;
      std::vector<std::int64_t> axes;
    };
    const Config configs[] = {{"int8, axes H,W", DType::kInt8, {1, 2}},
                              {"int8, axis C", DType::kInt8, {3}},
                              {"uint8, axes H,W", DType::kUint8, {1, 2}}};
    std::vector<OpSample> out;
    for (const Config& c : configs) {
      SampleBuilder b(c.label);
      const std::int64_t z = c.dtype == DType::kUint8 ? 128 : 0;
      const int x = b.input("x", c.dtype, {1, 5, 5, 8}, 0.05f, z - 3);
      const int a = b.constant_values("axes", DType::kInt32, {c.axes.size()}, c.axes);
      const int y = b.output("y", c.dtype, 0.04f, z + 2);
      b.node(OpKind::kMean, {x, a}, {y}, std::make_shared<ReducerOptions>());
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 2, 1);
    const TensorDef& in = input_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat32});
    if (in.dtype != DType::kFloat32) require_per_tensor(g, n, in, "input");
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, out, "output", {in.dtype});
    if (in.dtype != DType::kFloat32) require_per_tensor(g, n, out, "output");
    const TensorDef& axes = input_def(g, n, 1);
    require_dtype(g, n, axes, "axes", {DType::kInt32, DType::kInt64});
    if (!axes.constant()) node_error(g, n, fmt::format("axes '{}' is computed at run time; allowed: a constant tensor", axes.name));
    if (axes.shape.size() > 1) {
      node_error(g, n, fmt::format("axes '{}' has shape {}; allowed: a scalar or a vector", axes.name, cli::shape_text(axes.shape)));
    }
    for (std::size_t d : in.shape) {
      if (d == 0) node_error(g, n, fmt::format("input '{}' has an empty dimension ({})", in.name, cli::shape_text(in.shape)));
    }
    reference::MeanSpec spec;
    spec.axes = raw_axes(g, n);
    spec.keep_dims = n.opts<ReducerOptions>().keep_dims;
    std::vector<std::size_t> shape;
    try {
      shape = reference::mean_output_dims(in.shape, spec);
    } catch (const InvalidArgument& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
    set_output_shape(g, n, 0, shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatMeanPrepared>(g, n, sys);
    return std::make_unique<MeanPrepared>(g, n, sys, engine);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string&) const override {
    auto o = std::make_shared<ReducerOptions>();
    if (const tflite::ReducerOptions* t = op.builtin_options_as_ReducerOptions()) o->keep_dims = t->keep_dims();
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    return {tflite::BuiltinOptions_ReducerOptions, tflite::CreateReducerOptions(b, n.opts<ReducerOptions>().keep_dims).o};
  }

  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& axes = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    return xnnpack_per_tensor_8bit(in) && xnnpack_per_tensor_8bit(out) && axes.dtype == DType::kInt32 &&
           axes.constant() && axes.shape.size() <= 1 && in.shape.size() <= kXnnpackMaxRank &&
           out.shape.size() <= kXnnpackMaxRank;
  }
};

}  // namespace

const Op& mean_op() {
  static const MeanOp op;
  return op;
}

}  // namespace qparity::model
