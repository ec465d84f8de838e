// MEAN on int8 / uint8 tensors, per runtime (docs/semantics.md §21.4): the 4-D mean over H and W
// with keep_dims (global average pooling as MobileNet / ResNet write it) and general axes.
// Header-only, standard C++17, depends only on include/qparity. Sources restated, not copied.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qparity/error.h"
#include "qparity/policies.h"
#include "qparity/policy_float.h"
#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

enum class MeanVariant : std::uint8_t {
  /// TFLite's optimized 4-D H,W mean (LiteRT tflite/kernels/reduce.cc EvalMean -> int8:
  /// optimized_integer_ops::Mean, tflite/kernels/internal/optimized/integer_ops/mean.h; taken for
  /// int8 when keep_dims, a 4-D input and axes {1, 2}), scalar lanes:
  ///   n    = H * W;  acc = sum of the raw stored values (no zero point)
  ///   t    = float(float(zp_in * s_in) / s_out);  t = t > 0 ? float(t + 0.5f) : float(t - 0.5f)
  ///   bias = zp_out - trunc(t)                       (float rounding of the zero-point term)
  ///   real = float(s_in / float(float(n) * s_out));  (M, shift) = QuantizeMultiplier(real)
  ///   y    = clamp(MultiplyByQuantizedMultiplier(acc, M, shift) + bias, type range)
  /// MultiplyByQuantizedMultiplier is DR-AZ (default build) or SR-UP (single-rounding build).
  /// Not the same function as the reference: the zero point is folded into a float-rounded bias
  /// and the 1/n into a float-derived multiplier. No fused activation (MEAN has none).
  kTfliteOptimizedHW,
  /// The same kernel's NEON blocks (aarch64 / armv7 builds with USE_NEON): channels in blocks of
  /// 16 from channel 0 while 16 remain use MultiplyByQuantizedMultiplier4Rows, which is DR-UP in
  /// the default build and SR-UP-NEON in the single-rounding build (docs/semantics.md §3.2); the
  /// remaining channels use the scalar form. Single-threaded (the multi-threaded kernel splits the
  /// depth into ranges, each with its own 16-blocks: not modelled).
  kTfliteOptimizedHWNeon,
  /// TFLite reference_ops::QuantizedMeanOrSum (tflite/kernels/internal/reference/reduce.h), which
  /// LiteRT runs for every int8 / uint8 MEAN its optimized path does not take (other axes,
  /// keep_dims = false, not 4-D), and TFLM runs for int8 when the quantizations differ and the
  /// case is not 4-D H,W keep_dims:
  ///   (M, e) = QuantizeMultiplier(double(s_in) / double(s_out)); n = elements reduced
  ///   k = min(floor(log2 n), 32, 31 + e);  M' = trunc(M * 2^k / n);  e' = e - k
  ///   y = clamp(MultiplyByQuantizedMultiplier(acc - n * zp_in, M', e') + zp_out, type range)
  /// (1/n folded into the multiplier by an integer division that truncates; one
  /// MultiplyByQuantizedMultiplier: DR-AZ / SR-UP by build).
  kTfliteReference,
  /// TFLM reference_integer_ops::Mean (tensorflow/lite/kernels/internal/reference/integer_ops/
  /// mean.h, tensorflow/tensorflow @27445d0; TFLM reduce_common.cc sends int8 4-D H,W keep_dims
  /// here): acc = sum of (x - zp_in); t = MultiplyByQuantizedMultiplier(acc, M, e) with
  /// (M, e) = QuantizeMultiplier(double(s_in) / double(s_out)); then t / n rounded half away from
  /// zero by C division (t > 0 ? (t + n/2) / n : (t - n/2) / n); y = clamp(t + zp_out).
  /// Two to three roundings: DR-AZ's two, then the division's.
  kTflmHW,
  /// TFLM int8 MEAN with EQUAL input and output quantization outside the 4-D H,W keep_dims case
  /// (reduce_common.cc -> reference_ops::Mean<int8_t, int32_t>): y = trunc(acc / n) on the raw
  /// values, C division: toward ZERO, not nearest (raw mean 2.9 -> 2, -2.9 -> -2).
  kTflmSameQuantTruncate,
  /// XNNPACK as the delegate runs int8 / uint8 MEAN (src/operators/reduce-nd.c,
  /// xnn_create_reduce_nd + update_params_mean_qs8: the qs8 rsum / rdsum kernels sum into int32,
  /// conversion kernels finish in float): scale = float(float(s_in / s_out) * float(1.0f / n));
  ///   v = float(float(acc - n * zp_in) * scale);  y = clamp(RNE(float(v + float(zp_out))))
  /// -- the output zero point is added in FLOAT before rounding half to even (like oneDNN's
  /// F32-ZPF, unlike XNNPACK's convolutions). The finishing kernels were read only in part: among
  /// the candidate orders (zero point after rounding; scale float(s_in / (s_out * n)) or
  /// float(s_in / s_out) / n) only this one reproduces all 1,020 LiteRT.js elements
  /// (docs/semantics.md §21.4), the others miss 4-11. x86 / ARM use the same parameters; their
  /// finishing kernels were not read (assumed to compute the same, as XNNPACK tests them against
  /// one scalar reference).
  kXnnpack,
  /// NPU single rounding: y = clamp(round_tie((acc - n*zp_in) * M) + zp_out), M derived from
  /// double(s_in) / (double(s_out) * n) at the hypothesis' precision. **UNVERIFIED**.
  kNpuSingleRounding,
  /// Float32 (dequantize, mean, quantize with RNE): v = float(s_in * (acc - n*zp_in) / n) (one
  /// rounding of the exact mean); y = clamp(RNE(float(v / s_out)) + zp_out). **UNVERIFIED**.
  kFloat32,
};

struct MeanSpec {
  std::vector<int> axes;  ///< may be negative (counted from the end); duplicates allowed
  bool keep_dims = true;
};

namespace detail {

inline int count_leading_zeros_u64(std::uint64_t v) {
  int n = 0;
  for (int b = 63; b >= 0 && ((v >> b) & 1u) == 0; --b) ++n;
  return n;
}

}  // namespace detail

/// Output dims of MEAN over `dims` (the reduced axes become 1 with keep_dims, vanish otherwise).
QPARITY_MAY_THROW
inline std::vector<std::size_t> mean_output_dims(const std::vector<std::size_t>& dims, const MeanSpec& spec,
                                                 std::vector<bool>* reduced_out = nullptr) {
  std::vector<bool> reduced(dims.size(), false);
  for (int a : spec.axes) {
    const int r = a < 0 ? a + static_cast<int>(dims.size()) : a;
    if (r < 0 || r >= static_cast<int>(dims.size())) {
      QPARITY_THROW(InvalidArgument("qparity: MEAN axis " + std::to_string(a) + " is outside a " +
                                    std::to_string(dims.size()) + "-D input"));
    }
    reduced[static_cast<std::size_t>(r)] = true;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!reduced[i]) out.push_back(dims[i]);
    else if (spec.keep_dims) out.push_back(1);
  }
  if (reduced_out) *reduced_out = reduced;
  return out;
}

/// MEAN of an int8 / uint8 tensor of shape `dims` (row-major, NHWC for 4-D) over `spec.axes`
/// (formulas: MeanVariant). Throws InvalidArgument for bad scales / zero points / axes, an empty
/// reduction, or a variant that does not apply (the H,W variants need 4-D, axes {1, 2} and
/// keep_dims; kTflmSameQuantTruncate needs equal quantizations).
template <class T>
QPARITY_MAY_THROW
std::vector<T> mean(const std::vector<T>& x, const std::vector<std::size_t>& dims, const MeanSpec& spec,
                    const TensorQuant& in, const TensorQuant& out, MeanVariant variant,
                    TfliteBuild build = TfliteBuild::kDoubleRounding, NpuHypothesis npu = {}) {
  static_assert(kIsQuant8<T>, "mean: 8-bit types only");
  detail::require_scale("input scale", in.scale);
  detail::require_scale("output scale", out.scale);
  detail::require_zero_point<T>("input zero_point", in.zero_point);
  detail::require_zero_point<T>("output zero_point", out.zero_point);
  std::size_t total = 1;
  for (std::size_t d : dims) total *= d;
  if (total != x.size() || total == 0) {
    QPARITY_THROW(InvalidArgument(
        "qparity: MEAN input has " + std::to_string(x.size()) +
        " elements, the shape says " + std::to_string(total) + " (must be >= 1)"));
  }
  std::vector<bool> reduced;
  mean_output_dims(dims, spec, &reduced);
  const bool hw = dims.size() == 4 && reduced[1] && reduced[2] && !reduced[0] && !reduced[3] && spec.keep_dims;
  if ((variant == MeanVariant::kTfliteOptimizedHW || variant == MeanVariant::kTfliteOptimizedHWNeon ||
       variant == MeanVariant::kTflmHW) && !hw) {
    QPARITY_THROW(InvalidArgument(
        "qparity: this MEAN variant is the 4-D H,W keep_dims kernel; the given axes / "
        "keep_dims / rank are not that case"));
  }
  if (variant == MeanVariant::kTflmSameQuantTruncate && (!(in.scale == out.scale) || in.zero_point != out.zero_point)) {
    QPARITY_THROW(InvalidArgument(
        "qparity: kTflmSameQuantTruncate needs equal input and output quantization"));
  }
  // Sums over the reduced axes, outputs in row-major order of the kept axes.
  std::size_t n = 1, outputs = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) (reduced[i] ? n : outputs) *= dims[i];
  std::vector<std::int64_t> acc(outputs, 0);
  std::vector<std::size_t> idx(dims.size(), 0);
  for (std::size_t e = 0; e < total; ++e) {
    std::size_t o = 0;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (!reduced[i]) o = o * dims[i] + idx[i];
    acc[o] += x[e];
    for (std::size_t i = dims.size(); i-- > 0;) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
  const std::int64_t nn = static_cast<std::int64_t>(n);
  std::vector<T> y(outputs);
  // Per-variant parameters.
  QuantizedMultiplier m{};
  std::int32_t bias = 0;
  float xnn_scale = 0.0f;
  NpuRequant rq;
  switch (variant) {
    case MeanVariant::kTfliteOptimizedHW:
    case MeanVariant::kTfliteOptimizedHWNeon: {
      const float num = static_cast<float>(n);
      float t = static_cast<float>(in.zero_point) * in.scale;
      t = t / out.scale;
      t = t > 0 ? t + 0.5f : t - 0.5f;
      bias = out.zero_point - static_cast<std::int32_t>(t);
      const float denom = num * out.scale;
      const float real = in.scale / denom;
      m = tflite_quantize_multiplier_checked(static_cast<double>(real), build);
      break;
    }
    case MeanVariant::kTfliteReference: {
      m = tflite_quantize_multiplier_checked(static_cast<double>(in.scale) / static_cast<double>(out.scale), build);
      int k = 63 - detail::count_leading_zeros_u64(static_cast<std::uint64_t>(n));
      k = std::min(k, 32);
      k = std::min(k, 31 + m.shift);
      m.multiplier = static_cast<std::int32_t>((static_cast<std::int64_t>(m.multiplier) << k) / nn);
      m.shift -= k;
      break;
    }
    case MeanVariant::kTflmHW:
      m = tflite_quantize_multiplier_checked(static_cast<double>(in.scale) / static_cast<double>(out.scale), build);
      break;
    case MeanVariant::kTflmSameQuantTruncate:
      break;
    case MeanVariant::kXnnpack: {
      const float ratio = in.scale / out.scale;
      xnn_scale = ratio * (1.0f / static_cast<float>(n));
      break;
    }
    case MeanVariant::kNpuSingleRounding:
      rq = npu_requant(npu, static_cast<double>(in.scale) / (static_cast<double>(out.scale) * static_cast<double>(n)));
      break;
    case MeanVariant::kFloat32:
      break;
  }
  const std::size_t channels = dims.size() == 4 ? dims[3] : 1;
  const std::size_t neon_end = channels / 16 * 16;
  for (std::size_t o = 0; o < outputs; ++o) {
    const std::int64_t a = acc[o];
    const std::int32_t centered = static_cast<std::int32_t>(a - nn * in.zero_point);
    std::int64_t v = 0;
    switch (variant) {
      case MeanVariant::kTfliteOptimizedHW:
        v = static_cast<std::int64_t>(tflite_multiply_by_quantized_multiplier(static_cast<std::int32_t>(a), m, build)) + bias;
        break;
      case MeanVariant::kTfliteOptimizedHWNeon: {
        const std::size_t ch = o % channels;
        RequantParams p;
        p.multiplier = m.multiplier;
        p.shift = m.shift;
        std::int32_t r;
        if (ch < neon_end) {
          r = build == TfliteBuild::kDoubleRounding ? DoubleRoundingUpward::requantize(static_cast<std::int32_t>(a), p)
                                                    : SingleRoundingUpwardNeon::requantize(static_cast<std::int32_t>(a), p);
        } else {
          r = tflite_multiply_by_quantized_multiplier(static_cast<std::int32_t>(a), m, build);
        }
        v = static_cast<std::int64_t>(r) + bias;
        break;
      }
      case MeanVariant::kTfliteReference:
        v = static_cast<std::int64_t>(tflite_multiply_by_quantized_multiplier(centered, m, build)) + out.zero_point;
        break;
      case MeanVariant::kTflmHW: {
        const std::int64_t t = tflite_multiply_by_quantized_multiplier(centered, m, build);
        v = (t > 0 ? (t + nn / 2) / nn : (t - nn / 2) / nn) + out.zero_point;
        break;
      }
      case MeanVariant::kTflmSameQuantTruncate:
        v = a / nn;
        break;
      case MeanVariant::kXnnpack:
      {
        const float scaled = static_cast<float>(centered) * xnn_scale;
        v = qparity::detail::round_half_even_saturating(scaled + static_cast<float>(out.zero_point));
      }
        break;
      case MeanVariant::kNpuSingleRounding:
        v = static_cast<std::int64_t>(npu_apply(rq, centered)) + out.zero_point;
        break;
      case MeanVariant::kFloat32: {
        const float mv = static_cast<float>(static_cast<double>(in.scale) * static_cast<double>(centered) / static_cast<double>(nn));
        v = static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(mv / out.scale)) + out.zero_point;
        break;
      }
    }
    y[o] = saturate_to<T>(v);
  }
  return y;
}

}  // namespace reference
}  // namespace qparity
