// Float32 requantization policies (docs/semantics.md §1, §6.1, §8, §9, §10, vectors §11.7).
//
// These reproduce IEEE float32 arithmetic step by step: int32 -> float conversion rounds to
// nearest even (inexact above 2^24), each product and sum rounds to nearest even, and the final
// float -> int conversion rounds half to even. The rounding to integer is implemented here
// explicitly, so the result does not depend on the floating-point environment.
//
// Build note: a compiler allowed to fuse a*b+c into one FMA (GCC's -ffp-contract=fast, its
// default in GNU dialects when FMA is enabled) would change F32-ZPF's bits. qparity's own targets
// compile with -ffp-contract=off; compile code that includes this header as an oracle the same
// way (C++ ISO mode, e.g. -std=c++17, already implies it for GCC).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "qparity/fixed_point.h"
#include "qparity/requant_params.h"

namespace qparity {

namespace detail {

/// float -> int32, round half to even, saturating to [INT32_MIN, INT32_MAX]. Saturation stands
/// for the float-domain clamp every source system performs before converting (XNNPACK clamps to
/// [qmin - zp, qmax - zp], oneDNN to the destination range), so it is never observable after the
/// output clamp; it keeps our own code free of undefined behaviour.
inline std::int32_t round_half_even_saturating(float v) noexcept {
  if (!(v < 2147483648.0f)) return v != v ? 0 : kInt32Max;  // NaN cannot occur: finite inputs
  if (v < -2147483648.0f) return kInt32Min;
  const float f = std::floor(v);
  const float frac = v - f;  // exact: v and floor(v) share an exponent range
  std::int64_t r = static_cast<std::int64_t>(f);
  if (frac > 0.5f || (frac == 0.5f && (r & 1) != 0)) ++r;
  return static_cast<std::int32_t>(clamp_i64(r, kInt32Min, kInt32Max));
}

/// Finite and > 0 (what validate_float_scale accepts), without an exception.
inline bool positive_finite(float v) noexcept {
  return v > 0.0f && v <= std::numeric_limits<float>::max();
}

QPARITY_MAY_THROW
inline void validate_float_scale(const char* name, float value) {
  require_positive_finite(name, value);
}

}  // namespace detail

/// F32: y = RNE(float(acc) * scale), zero point added afterwards in integer.
///
/// Steps: float(acc) (RNE; 2^24 + 1 -> 2^24), product in float32 (RNE), round half to even.
/// Ties: +2.5 -> 2, -2.5 -> -2, +3.5 -> 4; but a float product can land on a tie the exact value
/// is not on (acc = -25212, scale = 12350672 * 2^-32: exact -72.500003, float -72.5 -> -72).
/// Parameters: scale finite and > 0 (XNNPACK further limits it to [2^-32, 256)).
/// Result saturates to int32 (see detail::round_half_even_saturating).
///
/// Reproduces: XNNPACK `fp32` requantization (every qs8_qc8w GEMM/IGEMM/DWCONV kernel and most
/// qs8/qu8; src/xnnpack/requantization.h `xnn_qs8_requantize_fp32`), ONNX Runtime
/// `MlasRequantizeOutput` (onnxruntime/core/mlas/lib/quantize.cpp), FBGEMM/PyTorch
/// `requantizeOutputProcessingAvx2` (src/QuantUtilsAvx2.cc), TFLite via the XNNPACK delegate.
struct Float32Rounding {
  static constexpr RoundingCore kCore = RoundingCore::kFloat32;
  static constexpr const char* kFormula = "RNE(float(acc) * scale)";
  static constexpr const char* kTieRuleText =
      "half to even on the float32 product (which may itself round onto a tie)";
  static constexpr bool kZeroPointInside = false;
  static constexpr bool kAcceptsWideInput = true;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) {
    detail::validate_float_scale("scale", p.scale);
  }
  static bool is_valid(const RequantParams& p) noexcept { return detail::positive_finite(p.scale); }

  static std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    const float v = static_cast<float>(acc) * p.scale;
    return detail::round_half_even_saturating(v);
  }

  static std::int32_t requantize_wide(std::int64_t acc, const RequantParams& p) noexcept {
    const float v = static_cast<float>(acc) * p.scale;
    return detail::round_half_even_saturating(v);
  }
};

/// F32-ZPF: the zero point is added in float BEFORE rounding, as oneDNN does.
///
///   v = float(acc) * scale        (RNE)
///   v = v + bias                  (RNE; oneDNN's f32 bias, in the dequantized domain)
///   v = v * post_scale            (RNE; oneDNN multiplies by 1.f / s_out)
///   v = v + float(zero_point)     (RNE)
///   y = RNE-to-integer(v), saturating
/// Single-step form (bias = 0, post_scale = 1): y = RNE(float(acc) * scale + zp). Differs from F32
/// whenever zp is odd and v is a tie: scale 0.5, acc 1, zp 1 -> F32 gives 0 + 1 = 1, F32-ZPF 2.
/// `requantize` (no zero point) is the zp = 0 case.
/// Parameters: scale and post_scale finite and > 0; bias finite.
///
/// Reproduces: oneDNN int8 convolution/matmul reference and JIT (src/cpu/ref_convolution_int8.cpp,
/// src/cpu/x64/jit_avx512_core_x8s8s32x_conv_kernel.cpp, simple_q10n.hpp), and XNNPACK's
/// quantization of activation bounds (xnn_qs8_quantize).
struct Float32ZeroPointInside {
  static constexpr RoundingCore kCore = RoundingCore::kFloat32ZeroPointInside;
  static constexpr const char* kFormula = "RNE((float(acc) * scale + bias) * post_scale + zp)";
  static constexpr const char* kTieRuleText = "half to even on float32 (product + zero point)";
  static constexpr bool kZeroPointInside = true;
  static constexpr bool kAcceptsWideInput = true;

  QPARITY_MAY_THROW static void validate(const RequantParams& p) {
    detail::validate_float_scale("scale", p.scale);
    detail::validate_float_scale("post_scale", p.post_scale);
    if (!std::isfinite(p.bias)) detail::throw_out_of_range("bias", p.bias, "a finite value");
  }
  static bool is_valid(const RequantParams& p) noexcept {
    return detail::positive_finite(p.scale) && detail::positive_finite(p.post_scale) &&
           std::fabs(p.bias) <= std::numeric_limits<float>::max();
  }

  static std::int32_t requantize_with_zero_point(std::int32_t acc, const RequantParams& p,
                                                 std::int32_t zero_point) noexcept {
    return finish(static_cast<float>(acc), p, zero_point);
  }
  static std::int32_t requantize(std::int32_t acc, const RequantParams& p) noexcept {
    return finish(static_cast<float>(acc), p, 0);
  }
  static std::int32_t requantize_wide(std::int64_t acc, const RequantParams& p) noexcept {
    return finish(static_cast<float>(acc), p, 0);
  }
  static std::int32_t requantize_wide_with_zero_point(std::int64_t acc, const RequantParams& p,
                                                      std::int32_t zero_point) noexcept {
    return finish(static_cast<float>(acc), p, zero_point);
  }

 private:
  static std::int32_t finish(float a, const RequantParams& p, std::int32_t zero_point) noexcept {
    // One rounding per statement, in oneDNN's order (see the build note above about FMA).
    float v = a * p.scale;
    v = v + p.bias;
    v = v * p.post_scale;
    v = v + static_cast<float>(zero_point);
    return detail::round_half_even_saturating(v);
  }
};

}  // namespace qparity
