// QUANTIZE (float32 -> int8 / uint8, and int8 / uint8 -> int8 / uint8 requantization) and
// DEQUANTIZE (int8 / uint8 -> float32), per runtime (docs/semantics.md §21.10).
//
// Every function is the normative scalar definition of one system's arithmetic, restated from
// the sources named in its comment (revisions: docs/semantics.md §0.4 unless a comment says
// otherwise). Header-only, standard C++17, depends only on include/qparity. Build note: like
// policy_float.h, the float steps assume no FMA contraction (-ffp-contract=off, implied by
// -std=c++17 on GCC).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "qparity/error.h"
#include "qparity/policy_float.h"
#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

// ------------------------------------------------------------------ float32 -> int8 / uint8

/// How a float32 value becomes an 8-bit quantized value.
enum class QuantizeFloatVariant : std::uint8_t {
  /// TFLite reference `AffineQuantize` as read in tflite-micro
  /// (tensorflow/lite/kernels/internal/reference/quantize.h @d138bfc, the LiteRT-synced copy; TFLM
  /// runs it): q = clamp(HAZ(float(x / s)) + zp) -- a FLOAT32 division (RNE), then `TfLiteRound` =
  /// std::round (ties away from zero: +2.5 -> 3, -2.5 -> -3), zero point added after rounding,
  /// then saturation to the type. (Another stored tflite-micro revision, @7f51872, reads
  /// trunc(x / s + 0.5) instead: not modelled.)
  kTfliteFloatDivide,
  /// TFLite's own QUANTIZE kernel as LiteRT.js 2.5.3 runs it (*measured*, docs/semantics.md
  /// §21.10; the source of this build was not read): q = clamp(HAZ(double(x) / double(s)) + zp) --
  /// the division in DOUBLE, so a quotient the float division rounds onto a tie (or off one) is
  /// decided on the exact value. Identical to kTfliteFloatDivide whenever x / s is exact in float
  /// (power-of-two scales); it differs for 245 of 3,164 values at s = 0.1 and 6/255.
  kTfliteDoubleDivide,
  /// XNNPACK `f32-qs8-vcvt` / `f32-qu8-vcvt` (src/microparams-init.c xnn_init_f32_qs8_cvt_*:
  /// scale = 1.0f / s_out; kernels src/f32-qs8-vcvt/*): q = clamp(RNE(float(x * float(1/s))) + zp)
  /// -- a MULTIPLICATION by the float reciprocal (so it can differ from kTflite* off ties too),
  /// ties to even (magic-bias or cvt instructions: +2.5 -> 2, -2.5 -> -2, +3.5 -> 4), zero point
  /// after rounding, saturating (the kernels clamp in float or saturate on narrowing; same
  /// integers for every finite x). Scalar, SSE/AVX, NEON and wasm SIMD kernels compute the same.
  kXnnpack,
  /// ONNX `QuantizeLinear` (spec: "rounding to nearest ties to even", saturate): q =
  /// clamp(RNE(float(x / s)) + zp). The spec fixes the tie rule; whether ONNX Runtime's MLAS
  /// divides or multiplies by a reciprocal was not re-read: **UNVERIFIED** for ORT, PyTorch and
  /// oneDNN.
  kFloat32DivideHalfEven,
};

namespace detail {

/// float -> int32 rounded half away from zero, saturating (TfLiteRound = std::round(float); the
/// C cast of an out-of-range float is undefined in TFLite, here it saturates).
inline std::int32_t round_half_away_saturating(float v) noexcept {
  if (!(v == v)) return 0;
  if (v >= 2147483520.0f) return kInt32Max;
  if (v <= -2147483648.0f) return kInt32Min;
  return static_cast<std::int32_t>(std::round(v));
}

}  // namespace detail

/// One float32 value quantized as `variant` does, saturated to T (int8 or uint8).
/// Preconditions: out.scale finite and > 0; out.zero_point in T's range; x finite (NaN gives zp).
template <class T>
T quantize_float(float x, const TensorQuant& out, QuantizeFloatVariant variant) {
  static_assert(kIsQuant8<T>, "quantize_float: T must be int8_t or uint8_t");
  std::int64_t q = 0;
  switch (variant) {
    case QuantizeFloatVariant::kTfliteFloatDivide:
      q = detail::round_half_away_saturating(x / out.scale);
      break;
    case QuantizeFloatVariant::kTfliteDoubleDivide: {
      const double v = static_cast<double>(x) / static_cast<double>(out.scale);
      q = !(v == v) ? 0 : v >= 2147483647.0 ? kInt32Max : v <= -2147483648.0 ? kInt32Min
                                                          : static_cast<std::int64_t>(std::round(v));
      break;
    }
    case QuantizeFloatVariant::kXnnpack: {
      const float inv = 1.0f / out.scale;
      q = qparity::detail::round_half_even_saturating(x * inv);
      break;
    }
    case QuantizeFloatVariant::kFloat32DivideHalfEven:
      q = qparity::detail::round_half_even_saturating(x / out.scale);
      break;
  }
  return saturate_to<T>(q + out.zero_point);
}

/// Element-wise quantize_float over a tensor (any shape). Throws InvalidArgument for a bad scale
/// or zero point.
template <class T>
QPARITY_MAY_THROW
std::vector<T> quantize(const std::vector<float>& x, const TensorQuant& out, QuantizeFloatVariant variant) {
  detail::require_scale("output scale", out.scale);
  detail::require_zero_point<T>("output zero_point", out.zero_point);
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = quantize_float<T>(x[i], out, variant);
  return y;
}

// ------------------------------------------------------------------ int8 / uint8 -> float32

/// DEQUANTIZE: x = float(s * (q - zp)).
///
/// TFLite reference / optimized and TFLM (reference/dequantize.h: `static_cast<float>(scale *
/// (val - zero_point))` with the scale held as a double copy of the float) round the exact product
/// once to float; XNNPACK's `qs8-f32-vcvt` (int subtraction or an exact magic-number conversion,
/// then one float multiply by the float scale) also rounds the exact product once, because
/// |q - zp| <= 255 needs 9 bits and the float scale 24, so the double product is exact. Hence one
/// formula for every variant: RNE(s * (q - zp)). *Measured* in docs/semantics.md §21.10.
/// Preconditions: in.scale finite and > 0.
template <class T>
float dequantize_value(T q, const TensorQuant& in) {
  static_assert(kIsQuant8<T>, "dequantize_value: T must be int8_t or uint8_t");
  const double exact = static_cast<double>(in.scale) *
                       static_cast<double>(static_cast<std::int32_t>(q) - in.zero_point);
  return static_cast<float>(exact);
}

template <class T>
QPARITY_MAY_THROW
std::vector<float> dequantize(const std::vector<T>& q, const TensorQuant& in) {
  detail::require_scale("input scale", in.scale);
  detail::require_zero_point<T>("input zero_point", in.zero_point);
  std::vector<float> y(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) y[i] = dequantize_value<T>(q[i], in);
  return y;
}

// ------------------------------------------------------------------ requantization (8 -> 8 bit)

/// How QUANTIZE with an 8-bit input (int8 -> int8, int8 <-> uint8, uint8 -> uint8) rescales.
enum class RequantizeVariant : std::uint8_t {
  /// TFLite reference and optimized `Requantize` and TFLM (tflite/kernels/quantize.cc Prepare:
  /// eff = double(s_in) / double(s_out), QuantizeMultiplier; reference/requantize.h):
  /// y = clamp(MultiplyByQuantizedMultiplier(x - zp_in, M, shift) + zp_out), default build: DR-AZ
  /// (docs/semantics.md §3.2). The int8 <-> uint8 "same scale, zero points 128 apart" fast path
  /// (x XOR 0x80) equals the formula (M = 2^30, shift = 1 is exact). *Measured*: rounds twice.
  kTfliteDoubleRounding,
  /// The same with TFLITE_SINGLE_ROUNDING=1: SR-UP and the single-build QuantizeMultiplier.
  kTfliteSingleRounding,
  /// XNNPACK `qs8-vcvt` / `qu8-vcvt` (src/microparams-init.c xnn_init_qs8_cvt_scalar_params:
  /// ratio = float(s_in / s_out), required in [2^-8, 2^7]; m = lrintf(256 * ratio), an integer in
  /// [1, 32768], i.e. an 8-fraction-bit multiplier rounded half to even; kernels
  /// src/qs8-vcvt/gen/*: y = clamp(floor(((x - zp_in) * m + 128) / 256) + zp_out), ties toward
  /// +infinity (+2.5 -> 3, -2.5 -> -2). The scalar kernel adds a precomputed bias and shifts
  /// (asr 8); wasm SIMD, SSE/AVX and NEON pre-shift (zp_in - x) by 7 into int16 and use a Q15
  /// rounding multiply (q15mulr / pmulhrsw / vqrdmulh) by -m: the same integers, since
  /// |x - zp_in| <= 255 keeps every int16 step exact. The delegate takes int8 -> int8 and
  /// uint8 -> uint8 only (docs/semantics.md §20.3). Throws if the ratio is outside XNNPACK's range.
  kXnnpack,
  /// NPU single rounding (NpuHypothesis): y = clamp(round_tie((x - zp_in) * M(eff)) + zp_out),
  /// eff = double(s_in) / double(s_out). **UNVERIFIED** (docs/semantics.md §14.4).
  kNpuSingleRounding,
  /// Float32 dequantize-then-quantize (ONNX DequantizeLinear -> QuantizeLinear run in float, as
  /// ORT does for unfused QDQ pairs): v = float(s_in * (x - zp_in)); y = clamp(RNE(float(v / s_out))
  /// + zp_out). **UNVERIFIED** per runtime.
  kFloat32,
};

/// Integer parameters of a requantization, derived as the variant's system derives them.
struct RequantizeParams {
  RequantizeVariant variant = RequantizeVariant::kTfliteDoubleRounding;
  TensorQuant in, out;
  QuantizedMultiplier tflite;  ///< kTflite*: QuantizeMultiplier(double(s_in) / double(s_out))
  std::int32_t xnn_multiplier = 0;  ///< kXnnpack: lrintf(256 * float(s_in / s_out))
  NpuRequant npu;                   ///< kNpuSingleRounding
};

/// Derives the parameters of `variant` from the float scales. Throws InvalidArgument for a bad
/// scale or zero point, or a ratio outside XNNPACK's [2^-8, 2^7] for kXnnpack.
template <class TIn, class TOut>
QPARITY_MAY_THROW
RequantizeParams make_requantize_params(const TensorQuant& in, const TensorQuant& out,
                                        RequantizeVariant variant, NpuHypothesis npu = {}) {
  static_assert(kIsQuant8<TIn> && kIsQuant8<TOut>, "requantize: 8-bit types only");
  detail::require_scale("input scale", in.scale);
  detail::require_scale("output scale", out.scale);
  detail::require_zero_point<TIn>("input zero_point", in.zero_point);
  detail::require_zero_point<TOut>("output zero_point", out.zero_point);
  RequantizeParams p;
  p.variant = variant;
  p.in = in;
  p.out = out;
  const double eff = static_cast<double>(in.scale) / static_cast<double>(out.scale);
  switch (variant) {
    case RequantizeVariant::kTfliteDoubleRounding:
      p.tflite = tflite_quantize_multiplier_checked(eff, TfliteBuild::kDoubleRounding);
      break;
    case RequantizeVariant::kTfliteSingleRounding:
      p.tflite = tflite_quantize_multiplier_checked(eff, TfliteBuild::kSingleRounding);
      break;
    case RequantizeVariant::kXnnpack: {
      const float ratio = in.scale / out.scale;
      if (!(ratio >= 0x1p-8f && ratio <= 0x1p+7f)) {
        qparity::detail::throw_out_of_range("s_in / s_out", ratio, "[2^-8, 2^7] (XNNPACK qs8-vcvt)");
      }
      p.xnn_multiplier = static_cast<std::int32_t>(std::nearbyint(256.0f * ratio));
      break;
    }
    case RequantizeVariant::kNpuSingleRounding:
      p.npu = npu_requant(npu, eff);
      break;
    case RequantizeVariant::kFloat32:
      break;
  }
  return p;
}

/// One element requantized by `p` (see RequantizeVariant for the formulas and tie rules).
template <class TIn, class TOut>
QPARITY_MAY_THROW
TOut requantize_value(TIn x, const RequantizeParams& p) {
  const std::int32_t d = static_cast<std::int32_t>(x) - p.in.zero_point;  // [-255, 255]
  std::int64_t y = 0;
  switch (p.variant) {
    case RequantizeVariant::kTfliteDoubleRounding:
      y = tflite_multiply_by_quantized_multiplier(d, p.tflite, TfliteBuild::kDoubleRounding);
      break;
    case RequantizeVariant::kTfliteSingleRounding:
      y = tflite_multiply_by_quantized_multiplier(d, p.tflite, TfliteBuild::kSingleRounding);
      break;
    case RequantizeVariant::kXnnpack:
      y = (static_cast<std::int64_t>(d) * p.xnn_multiplier + 128) >> 8;  // floor: ties up
      break;
    case RequantizeVariant::kNpuSingleRounding:
      y = npu_apply(p.npu, d);
      break;
    case RequantizeVariant::kFloat32: {
      const float v = static_cast<float>(static_cast<double>(p.in.scale) * d);
      y = qparity::detail::round_half_even_saturating(v / p.out.scale);
      break;
    }
  }
  return saturate_to<TOut>(y + p.out.zero_point);
}

template <class TIn, class TOut>
QPARITY_MAY_THROW
std::vector<TOut> requantize(const std::vector<TIn>& x, const RequantizeParams& p) {
  std::vector<TOut> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = requantize_value<TIn, TOut>(x[i], p);
  return y;
}

}  // namespace reference
}  // namespace qparity
