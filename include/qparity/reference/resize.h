// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR on 8-bit NHWC tensors (docs/semantics.md §21.9): the
// arithmetic of TFLite's own kernels (both builds), of XNNPACK's, and a float32 style. None of them
// requantizes: the output has the input's scale and zero point, and every variant works on the
// stored integers. Height and width are resized; batches and channels pass through.
//
// Restated in qparity's own words from the sources named at each variant; no code copied.
// Standard C++17, header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qparity/error.h"
#include "qparity/reference/op_common.h"
#include "qparity/reference/ort_lookup_table.h"

namespace qparity {
namespace reference {

/// The sizes and options of one resize. Input [batches, in_h, in_w, channels] -> output
/// [batches, out_h, out_w, channels]. align_corners and half_pixel_centers exclude each other
/// (TFLite's Prepare refuses both).
struct ResizeGeometry {
  std::size_t batches = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  bool align_corners = false;
  bool half_pixel_centers = false;
};

/// Which arithmetic interpolates (RESIZE_BILINEAR).
enum class ResizeBilinearVariant : std::uint8_t {
  /// TFLite `reference_ops::ResizeBilinearInteger` (tflite/kernels/internal/reference/
  /// resize_bilinear.h), what both of TFLite's kernels run for int8 (the optimized one calls it), in
  /// the default build (TFLITE_SINGLE_ROUNDING undefined). Per axis, a 10-bit scale
  /// `s10 = (1024 * in + out / 2) / out` (align_corners, out > 1: `(1024 * (in - 1) + (out - 1) / 2) /
  /// (out - 1)`), integer division; the source position `p = i * s10` (half_pixel_centers:
  /// `i * s10 + s10 / 2 - 512`), `lo = max(p / 1024, 0)`, `hi = min((p + 1023) / 1024, in - 1)`
  /// (C division, toward zero), weights `w_hi = p - 1024 * lo`, `w_lo = 1024 - w_hi`. The four
  /// products `x * w_y * w_x` are summed in int64 (`acc`, 20 fractional bits) and
  /// `y = (acc + (acc > 0 ? 2^19 : -2^19)) / 2^20`, truncating: round half away from zero.
  kTfliteInteger,
  /// The same with TFLITE_SINGLE_ROUNDING=1: `y = (acc + 2^19) >> 20`, round half up (toward +inf);
  /// differs from kTfliteInteger on negative exact halves only.
  kTfliteIntegerSingleRounding,
  /// TFLite `reference_ops::ResizeBilinear<uint8_t>` (the reference kernel's uint8 path): float32
  /// positions `p = i * scale` (half_pixel_centers: `(i + 0.5f) * scale - 0.5f`), `scale = float(in) /
  /// out` (align_corners, out > 1: `float(in - 1) / (out - 1)`), `lo = max(int(floor(p)), 0)`,
  /// `hi = min(int(ceil(p)), in - 1)`, `dy = p - lo`; `y = T(x00 * (1 - dy) * (1 - dx) + x10 * dy *
  /// (1 - dx) + x01 * (1 - dy) * dx + x11 * dy * dx + 0.5f)`, each product left to right in float32,
  /// the sum in that order, truncated (values are >= 0: round half up).
  kTfliteFloatReference,
  /// TFLite `optimized_ops::ResizeBilinear(uint8)` -> `ResizeBilinearGenericSmallChannel`
  /// (tflite/kernels/internal/optimized/resize_bilinear.h), the optimized kernel's uint8 path:
  /// positions as kTfliteFloatReference, but the four weights are formed first (`(1 - dy) * (1 -
  /// dx)`, `(1 - dy) * dx`, `dy * (1 - dx)`, `dy * dx`) and `y = T(x00 * w0 + x01 * w1 + x10 * w2 +
  /// x11 * w3 + 0.5f)`. Its 8x upsampling special case (ResizeBilinear888Uint8: half_pixel_centers,
  /// channels a multiple of 8, both sides exactly 8x and >= 8) is not modelled
  /// (resize_bilinear_888_special_case).
  kTfliteFloatOptimized,
  /// XNNPACK `xnn_indirection_init_resize_bilinear2d_hwc_q11` (src/indirection.c) and the
  /// s8 / u8 ibilinear micro-kernels (src/s8-ibilinear, src/u8-ibilinear: the scalar ones read; the
  /// wasm SIMD ones measured equal through LiteRT.js; the x86 / ARM SIMD ones not read, assumed
  /// equal since the arithmetic is all-integer). Per axis, `scale = float(in - a) / float(out - a)` with `a = 1` for
  /// align_corners and out != 1, else 0; TensorFlow legacy mode (neither option) and align_corners:
  /// `p = float(i) * scale`; half_pixel_centers: `p = float(i) * scale + (0.5f * scale - 0.5f)`
  /// clamped to [0, in - 1]; `lo = int(p)`, `hi = min(lo + 1, in - 1)`, 11-bit weight
  /// `a = lrintf((p - lo) * 2048)` (round half to even). Per channel, in int32: `t = (x00 << 11) +
  /// (x01 - x00) * a_x`, `b = (x10 << 11) + (x11 - x10) * a_x`, `acc = (t << 11) + (b - t) * a_y`,
  /// `y = (acc + 2^21) >> 22`: round half up.
  kXnnpackQ11,
  /// Float32 style (UNVERIFIED for every runtime): the positions and weights of
  /// kTfliteFloatReference, the sum rounded half to even and saturated.
  kFloat32,
  /// ONNX Runtime's Resize (mode linear) on 8-bit tensors, with the ONNX coordinate mode that the
  /// TFLite options name (align_corners -> align_corners, half_pixel_centers -> half_pixel, neither
  /// -> asymmetric): ort_resize_bilinear.
  kOnnxRuntime,
};

/// ONNX Resize's coordinate_transformation_mode (the ones qparity models), from an output index `i`
/// to a float32 input position, with `scale = float(out) / float(in)`:
enum class OnnxCoordinateMode : std::uint8_t {
  kHalfPixel,         ///< (i + 0.5f) / scale - 0.5f
  kPytorchHalfPixel,  ///< out > 1 ? (i + 0.5f) / scale - 0.5f : 0
  kAsymmetric,        ///< i / scale
  kAlignCorners,      ///< out == 1 ? 0 : i * float(in - 1) / float(out - 1)
};

/// ONNX Resize's nearest_mode: how mode nearest turns a position p into an index (then clamped to
/// [0, in - 1]).
enum class OnnxNearestMode : std::uint8_t {
  kRoundPreferFloor,  ///< p == float(int(p)) + 0.5f ? floor(p) : round_half_away(p)
  kRoundPreferCeil,   ///< round_half_away(p)
  kFloor,             ///< floor(p)
  kCeil,              ///< ceil(p)
};

/// Which arithmetic picks the source pixel (RESIZE_NEAREST_NEIGHBOR).
enum class ResizeNearestVariant : std::uint8_t {
  /// TFLite `reference_ops::ResizeNearestNeighbor` / `GetNearestNeighbor`
  /// (tflite/kernels/internal/reference/resize_nearest_neighbor.h), which TFLite runs for int8
  /// (both kernels) and for uint8 in its reference kernel: `scale = float(in) / out` (align_corners,
  /// out > 1: `float(in - 1) / (out - 1)`), `p = (float(i) + offset) * scale` with offset 0.5f under
  /// half_pixel_centers, else 0; `src = align_corners ? int(round_half_away(p)) : int(floor(p))`,
  /// then `min(src, in - 1)`, and under half_pixel_centers `max(src, 0)`.
  kTfliteReference,
  /// TFLite `optimized_ops::ResizeNearestNeighbor(uint8)`, the optimized kernel's uint8 path without
  /// either option (with one it falls back to kTfliteReference): 16.16 fixed point,
  /// `scale = (in << 16) / out + 1`, `src = min((i * scale) >> 16, in - 1)`. Differs from the float
  /// rule on some size pairs (TFLite's own parity test skips those: resize_nearest_neighbor_test.cc
  /// is_valid_scale).
  kTfliteOptimizedFixedPoint,
};

namespace detail {

/// Per output coordinate along one axis: the two source indices and the weight of `hi`.
struct ResizeAxisTap {
  std::int32_t lo = 0, hi = 0;
  std::int32_t weight_int = 0;  ///< kTfliteInteger*: w_hi in 1/1024; kXnnpackQ11: a in 1/2048
  float weight_float = 0.0f;    ///< the float variants: p - lo
};

/// TFLite's 10-bit scale of one axis (ResizeBilinearInteger).
inline std::int32_t tflite_scale_10(std::size_t in, std::size_t out, bool align_corners) {
  const auto i = static_cast<std::int64_t>(in), o = static_cast<std::int64_t>(out);
  if (align_corners && o > 1) return static_cast<std::int32_t>((1024 * (i - 1) + (o - 1) / 2) / (o - 1));
  return static_cast<std::int32_t>((1024 * i + o / 2) / o);
}

/// TFLite's float scale of one axis (reference ResizeBilinear, GetNearestNeighbor).
inline float tflite_scale_float(std::size_t in, std::size_t out, bool align_corners) {
  if (align_corners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  return static_cast<float>(in) / static_cast<float>(out);
}

/// The taps of one axis for a bilinear variant. Throws InvalidArgument when TFLite's integer kernel
/// would read outside the input (upsampling so large that `i * s10` rounds past the last pixel) or
/// when a position does not fit int32.
QPARITY_MAY_THROW
inline std::vector<ResizeAxisTap> bilinear_axis(ResizeBilinearVariant v, std::size_t in, std::size_t out,
                                                bool align_corners, bool half_pixel_centers, const char* axis) {
  std::vector<ResizeAxisTap> taps(out);
  const auto last = static_cast<std::int32_t>(in) - 1;
  switch (v) {
    case ResizeBilinearVariant::kTfliteInteger:
    case ResizeBilinearVariant::kTfliteIntegerSingleRounding: {
      const std::int64_t s10 = tflite_scale_10(in, out, align_corners);
      for (std::size_t i = 0; i < out; ++i) {
        std::int64_t p = static_cast<std::int64_t>(i) * s10;
        if (half_pixel_centers) p += s10 / 2 - 512;
        if (p > 2147483647 - 1023) {
          QPARITY_THROW(InvalidArgument(std::string("resize: ") + axis + " position " + std::to_string(p) +
                                " does not fit TFLite's int32 arithmetic; allowed: output size * 1024 * input "
                                "size / output size below 2^31"));
        }
        const auto p32 = static_cast<std::int32_t>(p);
        ResizeAxisTap t;
        t.lo = std::max<std::int32_t>(p32 / 1024, 0);
        t.hi = std::min<std::int32_t>((p32 + 1023) / 1024, last);
        if (t.lo > last) {
          QPARITY_THROW(InvalidArgument(std::string("resize: ") + axis + " output index " + std::to_string(i) +
                                " maps to input index " + std::to_string(t.lo) + " of " + std::to_string(in) +
                                " in TFLite's 10-bit integer kernel, which would read outside the input; allowed: "
                                "upsampling where (out - 1) * round(1024 * in / out) < 1024 * in"));
        }
        t.weight_int = p32 - 1024 * t.lo;
        taps[i] = t;
      }
      break;
    }
    case ResizeBilinearVariant::kTfliteFloatReference:
    case ResizeBilinearVariant::kTfliteFloatOptimized:
    case ResizeBilinearVariant::kFloat32: {
      const float scale = tflite_scale_float(in, out, align_corners);
      for (std::size_t i = 0; i < out; ++i) {
        const float fi = static_cast<float>(i);
        const float p = half_pixel_centers ? (fi + 0.5f) * scale - 0.5f : fi * scale;
        ResizeAxisTap t;
        t.lo = std::max<std::int32_t>(static_cast<std::int32_t>(std::floor(p)), 0);
        t.hi = std::min<std::int32_t>(static_cast<std::int32_t>(std::ceil(p)), last);
        if (t.lo > last) {
          QPARITY_THROW(InvalidArgument(std::string("resize: ") + axis + " output index " + std::to_string(i) +
                                " maps past the input in TFLite's float kernel"));
        }
        t.weight_float = p - static_cast<float>(t.lo);
        taps[i] = t;
      }
      break;
    }
    case ResizeBilinearVariant::kOnnxRuntime:
      QPARITY_THROW(InvalidArgument("resize: ONNX Runtime's taps come from ort_bilinear_axis"));
    case ResizeBilinearVariant::kXnnpackQ11: {
      const std::int32_t adj = align_corners && out != 1 ? 1 : 0;
      const float scale = static_cast<float>(static_cast<std::int32_t>(in) - adj) /
                          static_cast<float>(static_cast<std::int32_t>(out) - adj);
      const float offset = 0.5f * scale - 0.5f;
      for (std::size_t i = 0; i < out; ++i) {
        float p = static_cast<float>(static_cast<std::int32_t>(i)) * scale;
        if (half_pixel_centers) {
          p = p + offset;
          p = std::min(std::max(p, 0.0f), static_cast<float>(last));
        }
        ResizeAxisTap t;
        t.lo = static_cast<std::int32_t>(p);
        t.hi = std::min(t.lo + 1, last);
        t.weight_int = static_cast<std::int32_t>(std::lrint((p - static_cast<float>(t.lo)) * 2048.0f));
        taps[i] = t;
      }
      break;
    }
  }
  return taps;
}

template <class T>
T bilinear_one(ResizeBilinearVariant v, std::int32_t x00, std::int32_t x01, std::int32_t x10, std::int32_t x11,
               const ResizeAxisTap& ty, const ResizeAxisTap& tx) {
  switch (v) {
    case ResizeBilinearVariant::kTfliteInteger:
    case ResizeBilinearVariant::kTfliteIntegerSingleRounding: {
      const std::int64_t wy1 = ty.weight_int, wy0 = 1024 - wy1, wx1 = tx.weight_int, wx0 = 1024 - wx1;
      const std::int64_t acc = x00 * wy0 * wx0 + x10 * wy1 * wx0 + x01 * wy0 * wx1 + x11 * wy1 * wx1;
      std::int64_t y;
      if (v == ResizeBilinearVariant::kTfliteInteger) {
        y = (acc + (acc > 0 ? (std::int64_t{1} << 19) : -(std::int64_t{1} << 19))) / (std::int64_t{1} << 20);
      } else {
        // Arithmetic shift of a possibly negative value: floor division.
        const std::int64_t s = acc + (std::int64_t{1} << 19);
        y = s >= 0 ? s / (std::int64_t{1} << 20) : -((-s + (std::int64_t{1} << 20) - 1) / (std::int64_t{1} << 20));
      }
      return saturate_to<T>(y);  // y is in T's range: a convex combination of stored values
    }
    case ResizeBilinearVariant::kTfliteFloatReference:
    case ResizeBilinearVariant::kFloat32: {
      const float dy = ty.weight_float, dx = tx.weight_float;
      const float sum = static_cast<float>(x00) * (1.0f - dy) * (1.0f - dx) + static_cast<float>(x10) * dy * (1.0f - dx) +
                        static_cast<float>(x01) * (1.0f - dy) * dx + static_cast<float>(x11) * dy * dx;
      if (v == ResizeBilinearVariant::kFloat32) {
        return saturate_to<T>(static_cast<std::int64_t>(std::nearbyint(sum)));
      }
      return saturate_to<T>(static_cast<std::int64_t>(sum + 0.5f));  // truncation toward zero, as the cast
    }
    case ResizeBilinearVariant::kTfliteFloatOptimized: {
      const float dy = ty.weight_float, dx = tx.weight_float;
      const float w0 = (1.0f - dy) * (1.0f - dx), w1 = (1.0f - dy) * dx, w2 = dy * (1.0f - dx), w3 = dy * dx;
      const float sum = static_cast<float>(x00) * w0 + static_cast<float>(x01) * w1 + static_cast<float>(x10) * w2 +
                        static_cast<float>(x11) * w3 + 0.5f;
      return saturate_to<T>(static_cast<std::int64_t>(sum));
    }
    case ResizeBilinearVariant::kXnnpackQ11: {
      const std::int32_t ax = tx.weight_int, ay = ty.weight_int;
      const std::int32_t t = x00 * 2048 + (x01 - x00) * ax;
      const std::int32_t b = x10 * 2048 + (x11 - x10) * ax;
      const std::int32_t acc = t * 2048 + (b - t) * ay;
      // (acc + 2^21) >> 22 as an arithmetic shift (floor), written without shifting a negative value.
      const std::int64_t s = static_cast<std::int64_t>(acc) + (1 << 21);
      const std::int64_t y = s >= 0 ? s / (1 << 22) : -((-s + (1 << 22) - 1) / (1 << 22));
      return saturate_to<T>(y);
    }
    case ResizeBilinearVariant::kOnnxRuntime: break;  // ort_resize_bilinear
  }
  return T{};
}

/// ONNX's position of output index `i` on an axis of `in` -> `out` (get_original_coordinate in ONNX
/// Runtime's upsamplebase.h), not clamped.
inline float onnx_position(std::size_t i, std::size_t in, std::size_t out, OnnxCoordinateMode mode) {
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  const float fi = static_cast<float>(i);
  switch (mode) {
    case OnnxCoordinateMode::kHalfPixel: return (fi + 0.5f) / scale - 0.5f;
    case OnnxCoordinateMode::kPytorchHalfPixel: return out > 1 ? (fi + 0.5f) / scale - 0.5f : 0.0f;
    case OnnxCoordinateMode::kAsymmetric: return fi / scale;
    case OnnxCoordinateMode::kAlignCorners:
      return out == 1 ? 0.0f : fi * static_cast<float>(in - 1) / static_cast<float>(out - 1);
  }
  return 0.0f;
}

/// ONNX Runtime's taps of one axis (SetupUpsampleBilinear, core/providers/cpu/tensor/upsample.cc):
/// the position clamped to [0, in - 1], `lo = int(p)`, `hi = min(lo + 1, in - 1)`,
/// `d_lo = |p - lo|` (the weight of hi), `d_hi = |p - hi|` (the weight of lo); both 0.5 when
/// lo == hi.
struct OrtAxisTap {
  std::size_t lo = 0, hi = 0;
  float w_lo = 0.0f, w_hi = 0.0f;
};

inline std::vector<OrtAxisTap> ort_bilinear_axis(std::size_t in, std::size_t out, OnnxCoordinateMode mode) {
  std::vector<OrtAxisTap> taps(out);
  const float last = static_cast<float>(in - 1);
  for (std::size_t i = 0; i < out; ++i) {
    const float p = std::max(0.0f, std::min(onnx_position(i, in, out, mode), last));
    OrtAxisTap t;
    t.lo = std::min(static_cast<std::size_t>(p), in - 1);
    t.hi = std::min(t.lo + 1, in - 1);
    if (t.lo == t.hi) {
      t.w_lo = t.w_hi = 0.5f;
    } else {
      t.w_hi = std::fabs(p - static_cast<float>(t.lo));
      t.w_lo = std::fabs(p - static_cast<float>(t.hi));
    }
    taps[i] = t;
  }
  return taps;
}

/// ONNX Runtime's bilinear blend of one output over NHWC `x` (values of type V: the stored integers,
/// or their dequantized floats): coefficients `w_lo_x * w_lo_y`, `w_hi_x * w_lo_y`, `w_lo_x *
/// w_hi_y`, `w_hi_x * w_hi_y` in float32, applied to (lo_y, lo_x), (lo_y, hi_x), (hi_y, lo_x),
/// (hi_y, hi_x) and summed in that order.
template <class V>
float ort_blend(const V* r0, const V* r1, std::size_t c0, std::size_t c1, const OrtAxisTap& ty, const OrtAxisTap& tx) {
  const float k11 = tx.w_lo * ty.w_lo, k21 = tx.w_hi * ty.w_lo, k12 = tx.w_lo * ty.w_hi, k22 = tx.w_hi * ty.w_hi;
  return k11 * static_cast<float>(r0[c0]) + k21 * static_cast<float>(r0[c1]) + k12 * static_cast<float>(r1[c0]) +
         k22 * static_cast<float>(r1[c1]);
}

}  // namespace detail

/// ONNX Runtime's Resize, mode linear, on an 8-bit NHWC tensor: the CPU kernel's float path on the
/// stored integers (UpsampleBilinear, core/providers/cpu/tensor/upsample.cc: detail::ort_bilinear_axis,
/// detail::ort_blend), the float sum converted to T by truncation toward zero (`static_cast<T>`).
/// `qdq` set: the QDQ group DequantizeLinear -> Resize (float32) -> QuantizeLinear instead: the
/// blend of `float(x - zp) * scale`, then MLAS's QuantizeLinear (ort_quantize_linear: division,
/// clamp, round half to even). *Measured* (ONNX Runtime 1.30, tests/onnx/oracle_onnx_resize_test.cc):
/// the plain node at graph optimization levels all and disabled, the QDQ group at both (ORT does not
/// fuse it). Output sizes come from `g` (the `sizes` form: scale = out / in in float32).
template <class T>
QPARITY_MAY_THROW std::vector<T> ort_resize_bilinear(const std::vector<T>& x, const ResizeGeometry& g, OnnxCoordinateMode mode,
                                   const TensorQuant* qdq = nullptr) {
  static_assert(kIsQuant8<T>, "ort_resize_bilinear: int8 or uint8");
  if (x.size() != g.batches * g.in_h * g.in_w * g.channels || g.in_h == 0 || g.in_w == 0 || g.out_h == 0 ||
      g.out_w == 0) {
    QPARITY_THROW(InvalidArgument("ort_resize_bilinear: input size does not match the geometry, or an empty side"));
  }
  const std::vector<detail::OrtAxisTap> ty = detail::ort_bilinear_axis(g.in_h, g.out_h, mode);
  const std::vector<detail::OrtAxisTap> tx = detail::ort_bilinear_axis(g.in_w, g.out_w, mode);
  std::vector<float> deq;
  if (qdq != nullptr) {
    deq.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      deq[i] = static_cast<float>(static_cast<std::int32_t>(x[i]) - qdq->zero_point) * qdq->scale;
    }
  }
  std::vector<T> y(g.batches * g.out_h * g.out_w * g.channels);
  const std::size_t row = g.in_w * g.channels;
  std::size_t o = 0;
  for (std::size_t b = 0; b < g.batches; ++b) {
    const std::size_t img = b * g.in_h * row;
    for (std::size_t oy = 0; oy < g.out_h; ++oy) {
      const std::size_t r0 = img + ty[oy].lo * row, r1 = img + ty[oy].hi * row;
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        const std::size_t c0 = tx[ox].lo * g.channels, c1 = tx[ox].hi * g.channels;
        for (std::size_t c = 0; c < g.channels; ++c) {
          if (qdq != nullptr) {
            const float v = detail::ort_blend(deq.data() + r0, deq.data() + r1, c0 + c, c1 + c, ty[oy], tx[ox]);
            y[o++] = ort_quantize_linear<T>(v, qdq->scale, qdq->zero_point);
          } else {
            const float v = detail::ort_blend(x.data() + r0, x.data() + r1, c0 + c, c1 + c, ty[oy], tx[ox]);
            y[o++] = saturate_to<T>(static_cast<std::int64_t>(v));  // truncation toward zero
          }
        }
      }
    }
  }
  return y;
}

/// Whether TFLite's optimized uint8 kernel would take its 8x special case (ResizeBilinear888Uint8),
/// whose arithmetic kTfliteFloatOptimized does not model.
inline bool resize_bilinear_888_special_case(const ResizeGeometry& g) {
  if (g.align_corners || !g.half_pixel_centers || g.channels % 8 != 0 || g.in_h == 0) return false;
  const std::size_t scale = g.out_h / g.in_h;
  return scale == 8 && g.out_h >= 8 && g.out_w >= 8 && g.in_h * scale == g.out_h && g.in_w * scale == g.out_w;
}

/// The ONNX coordinate mode a TFLite node's options name (what a TFLite -> ONNX conversion of
/// RESIZE_BILINEAR writes): align_corners, half_pixel, else asymmetric (TensorFlow's legacy mapping).
inline OnnxCoordinateMode onnx_mode_of(const ResizeGeometry& g) {
  if (g.align_corners) return OnnxCoordinateMode::kAlignCorners;
  return g.half_pixel_centers ? OnnxCoordinateMode::kHalfPixel : OnnxCoordinateMode::kAsymmetric;
}

/// RESIZE_BILINEAR of an NHWC tensor under `variant` (see ResizeBilinearVariant). x has
/// batches * in_h * in_w * channels elements. Throws InvalidArgument for sizes the variant cannot
/// run (bilinear_axis) and for align_corners together with half_pixel_centers.
template <class T>
QPARITY_MAY_THROW std::vector<T> resize_bilinear(const std::vector<T>& x, const ResizeGeometry& g,
                                                  ResizeBilinearVariant variant) {
  static_assert(kIsQuant8<T>, "resize_bilinear: int8 or uint8");
  if (g.align_corners && g.half_pixel_centers) {
    QPARITY_THROW(InvalidArgument("resize_bilinear: align_corners and half_pixel_centers together"));
  }
  if (x.size() != g.batches * g.in_h * g.in_w * g.channels || g.in_h == 0 || g.in_w == 0 || g.out_h == 0 ||
      g.out_w == 0) {
    QPARITY_THROW(InvalidArgument("resize_bilinear: input size does not match the geometry, or an empty side"));
  }
  if (variant == ResizeBilinearVariant::kOnnxRuntime) {
    return ort_resize_bilinear(x, g, onnx_mode_of(g));
  }
  const std::vector<detail::ResizeAxisTap> ty =
      detail::bilinear_axis(variant, g.in_h, g.out_h, g.align_corners, g.half_pixel_centers, "height");
  const std::vector<detail::ResizeAxisTap> tx =
      detail::bilinear_axis(variant, g.in_w, g.out_w, g.align_corners, g.half_pixel_centers, "width");
  std::vector<T> y(g.batches * g.out_h * g.out_w * g.channels);
  const std::size_t row = g.in_w * g.channels;
  std::size_t o = 0;
  for (std::size_t b = 0; b < g.batches; ++b) {
    const T* img = x.data() + b * g.in_h * row;
    for (std::size_t oy = 0; oy < g.out_h; ++oy) {
      const T* r0 = img + static_cast<std::size_t>(ty[oy].lo) * row;
      const T* r1 = img + static_cast<std::size_t>(ty[oy].hi) * row;
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        const std::size_t c0 = static_cast<std::size_t>(tx[ox].lo) * g.channels;
        const std::size_t c1 = static_cast<std::size_t>(tx[ox].hi) * g.channels;
        for (std::size_t c = 0; c < g.channels; ++c) {
          y[o++] = detail::bilinear_one<T>(variant, r0[c0 + c], r0[c1 + c], r1[c0 + c], r1[c1 + c], ty[oy], tx[ox]);
        }
      }
    }
  }
  return y;
}

namespace detail {

/// Every output pixel of an NHWC tensor copied from input pixel (sy[oy], sx[ox]).
template <class T>
std::vector<T> gather_nhwc(const std::vector<T>& x, const ResizeGeometry& g, const std::vector<std::size_t>& sy,
                           const std::vector<std::size_t>& sx) {
  std::vector<T> y(g.batches * g.out_h * g.out_w * g.channels);
  std::size_t o = 0;
  for (std::size_t b = 0; b < g.batches; ++b) {
    for (std::size_t oy = 0; oy < g.out_h; ++oy) {
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        const T* src = x.data() + ((b * g.in_h + sy[oy]) * g.in_w + sx[ox]) * g.channels;
        for (std::size_t c = 0; c < g.channels; ++c) y[o++] = src[c];
      }
    }
  }
  return y;
}

}  // namespace detail

/// The source index of every output coordinate along one axis (RESIZE_NEAREST_NEIGHBOR).
inline std::vector<std::size_t> nearest_axis(ResizeNearestVariant v, std::size_t in, std::size_t out,
                                             bool align_corners, bool half_pixel_centers) {
  std::vector<std::size_t> src(out);
  const auto last = static_cast<std::int64_t>(in) - 1;
  if (v == ResizeNearestVariant::kTfliteOptimizedFixedPoint && !align_corners && !half_pixel_centers) {
    const std::int64_t scale = (static_cast<std::int64_t>(in) << 16) / static_cast<std::int64_t>(out) + 1;
    for (std::size_t i = 0; i < out; ++i) {
      src[i] = static_cast<std::size_t>(std::min<std::int64_t>((static_cast<std::int64_t>(i) * scale) >> 16, last));
    }
    return src;
  }
  const float scale = detail::tflite_scale_float(in, out, align_corners);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  for (std::size_t i = 0; i < out; ++i) {
    const float p = (static_cast<float>(i) + offset) * scale;
    std::int64_t s = static_cast<std::int64_t>(align_corners ? std::round(p) : std::floor(p));
    s = std::min(s, last);
    if (half_pixel_centers) s = std::max<std::int64_t>(s, 0);
    src[i] = static_cast<std::size_t>(s);
  }
  return src;
}

/// RESIZE_NEAREST_NEIGHBOR of an NHWC tensor: every output element copies one input element
/// (no arithmetic on the values). Throws InvalidArgument on a size mismatch or an empty side.
template <class T>
QPARITY_MAY_THROW std::vector<T> resize_nearest(const std::vector<T>& x, const ResizeGeometry& g,
                                                 ResizeNearestVariant variant) {
  if (x.size() != g.batches * g.in_h * g.in_w * g.channels || g.in_h == 0 || g.in_w == 0 || g.out_h == 0 ||
      g.out_w == 0) {
    QPARITY_THROW(InvalidArgument("resize_nearest: input size does not match the geometry, or an empty side"));
  }
  return detail::gather_nhwc(x, g, nearest_axis(variant, g.in_h, g.out_h, g.align_corners, g.half_pixel_centers),
                             nearest_axis(variant, g.in_w, g.out_w, g.align_corners, g.half_pixel_centers));
}

/// ONNX Runtime's source indices of one axis for Resize in mode nearest
/// (UpsampleNearestSetupInputMappings, core/providers/cpu/tensor/upsample.cc): an axis whose scale
/// out / in is 1 maps i -> i; otherwise the unclamped ONNX position (onnx_position) through the
/// nearest mode, clamped to [0, in - 1].
inline std::vector<std::size_t> ort_nearest_axis(std::size_t in, std::size_t out, OnnxCoordinateMode mode,
                                                 OnnxNearestMode nearest) {
  std::vector<std::size_t> src(out);
  const bool identity = static_cast<float>(out) / static_cast<float>(in) == 1.0f;
  for (std::size_t i = 0; i < out; ++i) {
    if (identity) {
      src[i] = i;
      continue;
    }
    const float p = detail::onnx_position(i, in, out, mode);
    double k = 0.0;
    switch (nearest) {
      case OnnxNearestMode::kRoundPreferFloor:
        k = p == static_cast<float>(static_cast<std::int64_t>(p)) + 0.5f ? std::floor(p) : std::round(p);
        break;
      case OnnxNearestMode::kRoundPreferCeil: k = std::round(p); break;
      case OnnxNearestMode::kFloor: k = std::floor(p); break;
      case OnnxNearestMode::kCeil: k = std::ceil(p); break;
    }
    k = std::max(0.0, std::min(k, static_cast<double>(in - 1)));
    src[i] = static_cast<std::size_t>(k);
  }
  return src;
}

/// ONNX Runtime's Resize in mode nearest on an NHWC tensor (8-bit, or a QDQ group with one
/// quantization on both sides, whose dequantize / quantize round trip returns every stored value):
/// each output copies the input element at the indices of ort_nearest_axis. *Measured* (ONNX
/// Runtime 1.30, tests/onnx/oracle_onnx_resize_test.cc), levels all and disabled.
template <class T>
QPARITY_MAY_THROW std::vector<T> ort_resize_nearest(const std::vector<T>& x, const ResizeGeometry& g, OnnxCoordinateMode mode,
                                  OnnxNearestMode nearest) {
  if (x.size() != g.batches * g.in_h * g.in_w * g.channels || g.in_h == 0 || g.in_w == 0 || g.out_h == 0 ||
      g.out_w == 0) {
    QPARITY_THROW(InvalidArgument("ort_resize_nearest: input size does not match the geometry, or an empty side"));
  }
  return detail::gather_nhwc(x, g, ort_nearest_axis(g.in_h, g.out_h, mode, nearest),
                             ort_nearest_axis(g.in_w, g.out_w, mode, nearest));
}

}  // namespace reference
}  // namespace qparity
