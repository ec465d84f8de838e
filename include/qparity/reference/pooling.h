// AVERAGE_POOL_2D and MAX_POOL_2D on NHWC int8 / uint8 tensors, per runtime
// (docs/semantics.md §21.3). Header-only, standard C++17, depends only on include/qparity.
// Sources are restated in qparity's words, not copied.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "qparity/conv_geometry.h"
#include "qparity/error.h"
#include "qparity/output_stage.h"
#include "qparity/policy_float.h"
#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

/// NHWC shape of a 4-D tensor.
struct Shape4 {
  std::size_t n = 1, h = 1, w = 1, c = 1;
  std::size_t size() const { return n * h * w * c; }
};

/// A pooling window: filter size, strides, and TFLite's padding (VALID or SAME; SAME puts the odd
/// padding pixel at the bottom / right, tflite/kernels/padding.h ComputePaddingHeightWidth, as
/// conv_geometry.h's resolve_window does), or explicit pads (ONNX `pads` and SAME_LOWER), each
/// smaller than the filter on its axis. Every window sums its in-image taps only.
struct PoolWindow {
  std::size_t filter_h = 1, filter_w = 1;
  std::size_t stride_h = 1, stride_w = 1;
  Padding padding = Padding::kValid;
  /// Used only with Padding::kExplicit (ONNX pads, SAME_LOWER; TFLite has VALID and SAME only).
  std::size_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

enum class AveragePoolVariant : std::uint8_t {
  /// TFLite reference_integer_ops::AveragePool and optimized_integer_ops::AveragePool (int8),
  /// reference_ops / optimized_ops AveragePool (uint8), TFLM (same reference file), LiteRT.js
  /// (XNNPACK does not take int8 / uint8 AVERAGE_POOL_2D there; docs/semantics.md §20.3):
  ///   n   = number of taps of the window INSIDE the image (padding is not counted)
  ///   acc = sum of the raw stored values over those taps (no zero point subtracted: input and
  ///         output are meant to share scale and zero point, the output ones are not applied)
  ///   y   = acc > 0 ? (acc + n/2) / n : (acc - n/2) / n     (C division, truncating)
  ///       = the raw mean rounded half AWAY from zero (+2.5 -> 3, -2.5 -> -3; odd n has no ties)
  ///   y   = clamp(y, act_min, act_max), bounds from the fused activation the TFLite way
  ///         (ClampDerivation::kTflite on the output quantization), then cast.
  /// Rounding the raw mean is not rounding the real mean: with zp = 1 the raw values 0, 1 (mean
  /// 0.5) give 1 while the zero-point-corrected mean -0.5 would round to -1 + 1 = 0. The optimized
  /// kernels sum in int32 (NEON: widening adds) and round the same way; identical results.
  kTflite,
  /// NPU single rounding of the requantized mean: y = round_tie((acc - n*zp_in) * M) + zp_out with
  /// M derived from double(s_in) / (double(s_out) * n) at the hypothesis' precision (the divisor
  /// folded into the multiplier, one rounding), then the TFLite clamp. **UNVERIFIED**.
  kNpuSingleRounding,
  /// Float32 (ONNX QLinearAveragePool pattern: dequantize, average in float, quantize RNE;
  /// count_include_pad = 0): v = float(s_in * (acc - n*zp_in)) / float(n) in float;
  /// y = clamp(RNE(float(v / s_out)) + zp_out). **UNVERIFIED** (ORT's kernel not re-read).
  kFloat32,
};

enum class MaxPoolVariant : std::uint8_t {
  /// TFLite reference / optimized MaxPool and TFLM: max over the in-image taps (padding never
  /// wins), clamped to the fused activation's bounds derived the TFLite way (zp + HAZ(f / s)).
  kTflite,
  /// XNNPACK max pooling as the delegate runs it (LiteRT.js takes int8 / uint8 MAX_POOL_2D there,
  /// docs/semantics.md §20.3): the same maximum, clamped to bounds quantized XNNPACK's way
  /// (RNE(f / s + zp), ClampDerivation::kXnnpack). The two differ only where 6 / s is a tie.
  kXnnpack,
};

namespace detail {

template <class T>
OutputType output_type_of() {
  return std::is_same<T, std::int8_t>::value ? OutputType::kInt8 : OutputType::kUint8;
}

/// Resolves the window (VALID, SAME, or explicit pads, each in [0, filter)); throws InvalidArgument
/// for anything pooling would reject.
QPARITY_MAY_THROW
inline ResolvedWindow resolve_pool(const PoolWindow& w, const Shape4& s) {
  if (w.padding == Padding::kExplicit &&
      (w.pad_top >= w.filter_h || w.pad_bottom >= w.filter_h || w.pad_left >= w.filter_w || w.pad_right >= w.filter_w)) {
    QPARITY_THROW(InvalidArgument("qparity: pooling pads must be smaller than the filter on their axis (a window "
                                  "would hold padding only)"));
  }
  Window2D win;
  win.kernel_h = w.filter_h;
  win.kernel_w = w.filter_w;
  win.stride_h = w.stride_h;
  win.stride_w = w.stride_w;
  win.padding = w.padding;
  win.pad_top = w.pad_top;
  win.pad_bottom = w.pad_bottom;
  win.pad_left = w.pad_left;
  win.pad_right = w.pad_right;
  return resolve_window(win, s.h, s.w);
}

template <class T>
QPARITY_MAY_THROW
void require_pool_tensor(const std::vector<T>& x, const Shape4& s) {
  static_assert(kIsQuant8<T>, "pooling: 8-bit types only");
  if (x.size() != s.size() || s.n == 0 || s.c == 0) {
    QPARITY_THROW(InvalidArgument("qparity: pooling input has " + std::to_string(x.size()) +
                                  " elements, the shape says " + std::to_string(s.size()) +
                                  " (batch and channels must be >= 1)"));
  }
}

/// Visits every output element: f(b, oy, ox, ch, y0, y1, x0, x1) with the in-image tap ranges
/// [y0, y1) x [x0, x1) of its window (TFLite's filter_*_start / end clamping).
template <class F>
void for_each_window(const Shape4& s, const PoolWindow& w, const ResolvedWindow& r, F&& f) {
  for (std::size_t b = 0; b < s.n; ++b)
    for (std::size_t oy = 0; oy < r.out_h; ++oy)
      for (std::size_t ox = 0; ox < r.out_w; ++ox)
        for (std::size_t ch = 0; ch < s.c; ++ch) {
          const std::int64_t iy0 = static_cast<std::int64_t>(oy * w.stride_h) - static_cast<std::int64_t>(r.pad_top);
          const std::int64_t ix0 = static_cast<std::int64_t>(ox * w.stride_w) - static_cast<std::int64_t>(r.pad_left);
          const std::int64_t y0 = std::max<std::int64_t>(iy0, 0);
          const std::int64_t y1 = std::min<std::int64_t>(iy0 + static_cast<std::int64_t>(w.filter_h), static_cast<std::int64_t>(s.h));
          const std::int64_t x0 = std::max<std::int64_t>(ix0, 0);
          const std::int64_t x1 = std::min<std::int64_t>(ix0 + static_cast<std::int64_t>(w.filter_w), static_cast<std::int64_t>(s.w));
          f(b, oy, ox, ch, y0, y1, x0, x1);
        }
}

}  // namespace detail

/// Output shape of a pool over `s` with `w` (TFLite's VALID / SAME arithmetic, or explicit pads).
QPARITY_MAY_THROW
inline Shape4 pool_output_shape(const Shape4& s, const PoolWindow& w) {
  const ResolvedWindow r = detail::resolve_pool(w, s);
  return Shape4{s.n, r.out_h, r.out_w, s.c};
}

/// AVERAGE_POOL_2D over an NHWC tensor (formulas: AveragePoolVariant). `in` / `out` are the input
/// and output quantizations (kTflite uses only the output's, for the activation bounds).
/// Throws InvalidArgument for a bad shape, window, scale or zero point, or a window with no
/// in-image tap (TFLite returns an error there).
template <class T>
QPARITY_MAY_THROW
std::vector<T> average_pool(const std::vector<T>& x, const Shape4& s, const PoolWindow& w,
                            const TensorQuant& in, const TensorQuant& out, Activation act,
                            AveragePoolVariant variant, NpuHypothesis npu = {}) {
  detail::require_pool_tensor(x, s);
  detail::require_scale("input scale", in.scale);
  detail::require_zero_point<T>("input zero_point", in.zero_point);
  const ResolvedWindow r = detail::resolve_pool(w, s);
  const OutputParams o = activation_output_params(act, ClampDerivation::kTflite, out.scale,
                                                  out.zero_point, detail::output_type_of<T>());
  std::vector<T> y(s.n * r.out_h * r.out_w * s.c);
  std::size_t k = 0;
  detail::for_each_window(s, w, r, [&](std::size_t b, std::size_t, std::size_t, std::size_t ch,
                                       std::int64_t y0, std::int64_t y1, std::int64_t x0, std::int64_t x1) {
    std::int64_t acc = 0, n = 0;
    for (std::int64_t iy = y0; iy < y1; ++iy)
      for (std::int64_t ix = x0; ix < x1; ++ix) {
        acc += x[((b * s.h + static_cast<std::size_t>(iy)) * s.w + static_cast<std::size_t>(ix)) * s.c + ch];
        ++n;
      }
    if (n == 0) {
      QPARITY_THROW(InvalidArgument("qparity: a pooling window has no tap inside the image"));
    }
    std::int64_t v = 0;
    switch (variant) {
      case AveragePoolVariant::kTflite:
        v = acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
        break;
      case AveragePoolVariant::kNpuSingleRounding: {
        const NpuRequant rq = npu_requant(npu, static_cast<double>(in.scale) /
                                                   (static_cast<double>(out.scale) * static_cast<double>(n)));
        v = static_cast<std::int64_t>(npu_apply(rq, static_cast<std::int32_t>(acc - n * in.zero_point))) + out.zero_point;
        break;
      }
      case AveragePoolVariant::kFloat32: {
        const float sum = static_cast<float>(static_cast<double>(in.scale) * static_cast<double>(acc - n * in.zero_point));
        const float mean = sum / static_cast<float>(n);
        v = static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(mean / out.scale)) + out.zero_point;
        break;
      }
    }
    v = std::min<std::int64_t>(std::max<std::int64_t>(v, o.qmin), o.qmax);
    y[k++] = saturate_to<T>(v);
  });
  return y;
}

/// MAX_POOL_2D over an NHWC tensor (formulas: MaxPoolVariant); only the output quantization is
/// used (for the activation bounds). Throws as average_pool does.
template <class T>
QPARITY_MAY_THROW
std::vector<T> max_pool(const std::vector<T>& x, const Shape4& s, const PoolWindow& w,
                        const TensorQuant& out, Activation act, MaxPoolVariant variant) {
  detail::require_pool_tensor(x, s);
  const ResolvedWindow r = detail::resolve_pool(w, s);
  const OutputParams o = activation_output_params(
      act, variant == MaxPoolVariant::kTflite ? ClampDerivation::kTflite : ClampDerivation::kXnnpack,
      out.scale, out.zero_point, detail::output_type_of<T>());
  std::vector<T> y(s.n * r.out_h * r.out_w * s.c);
  std::size_t k = 0;
  detail::for_each_window(s, w, r, [&](std::size_t b, std::size_t, std::size_t, std::size_t ch,
                                       std::int64_t y0, std::int64_t y1, std::int64_t x0, std::int64_t x1) {
    std::int32_t m = type_min<T>();
    bool any = false;
    for (std::int64_t iy = y0; iy < y1; ++iy)
      for (std::int64_t ix = x0; ix < x1; ++ix) {
        m = std::max<std::int32_t>(m, x[((b * s.h + static_cast<std::size_t>(iy)) * s.w + static_cast<std::size_t>(ix)) * s.c + ch]);
        any = true;
      }
    if (!any) {
      QPARITY_THROW(InvalidArgument("qparity: a pooling window has no tap inside the image"));
    }
    y[k++] = saturate_to<T>(std::min<std::int32_t>(std::max<std::int32_t>(m, o.qmin), o.qmax));
  });
  return y;
}

}  // namespace reference
}  // namespace qparity
