// ONNX Runtime's unfused QDQ Softmax (DequantizeLinear -> Softmax -> QuantizeLinear at graph
// optimization level `disabled`, docs/semantics.md §22.8) on int8 / uint8 rows: the dequantized
// row through ORT's float32 Softmax over the last axis, which is MLAS's MlasComputeSoftmax, then
// QuantizeLinear.
//
// Source (restated, not copied): microsoft/onnxruntime
//   onnxruntime/core/providers/cpu/math/softmax_shared.cc   SoftmaxCPU<float> -> MlasComputeSoftmax
//   onnxruntime/core/mlas/lib/compute.cpp                   MlasComputeSoftmaxThreaded<float> (row max,
//                                                           sum of exponentials, 1 / sum, multiply),
//                                                           MlasExpConstants
//   onnxruntime/core/mlas/lib/platform.cpp                  the x86 kernels by CPU feature
//   onnxruntime/core/mlas/lib/x86_64/TransKernelAvx512F.S   MlasComputeSumExpF32KernelAvx512F
//   onnxruntime/core/mlas/lib/x86_64/TransKernelFma3.S      MlasComputeSumExpF32KernelFma3
//   onnxruntime/core/mlas/lib/quantize.cpp                  MlasQuantizeLinear (ort_quantize_linear)
//
// Header-only, standard C++17, depends only on include/qparity.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "qparity/reference/op_common.h"
#include "qparity/reference/ort_lookup_table.h"

namespace qparity {
namespace reference {

/// The x86-64 sum-of-exponentials kernel MLAS's platform table gives a CPU (platform.cpp): AVX512F
/// when the CPU and OS have AVX-512F, else FMA3 on AVX2 + FMA3 CPUs. The row maximum (any kernel:
/// a maximum is exact in every order) and the output multiply (one float32 product) do not depend
/// on it.
enum class MlasSoftmaxIsa : std::uint8_t {
  kAvx512F,  ///< MlasComputeSumExpF32KernelAvx512F: 16 lanes, VSCALEFPS
  kFma3,     ///< MlasComputeSumExpF32KernelFma3: 8 lanes, exponent bits built by shift and add
};

namespace detail {

// MlasExpConstants (compute.cpp), as float32.
constexpr float kMlasExpLowerRange = -103.9720840454f;        // AVX512F kernel's lower clamp
constexpr float kMlasExpLowerRangeSumExp = -88.3762626647949f;  // FMA3 kernel's lower clamp
constexpr float kMlasExpRoundingBias = 12582912.0f;          // 1.5 * 2^23
constexpr float kMlasExpLog2Reciprocal = 1.44269504088896341f;
constexpr float kMlasExpLog2High = -6.93145752e-1f;
constexpr float kMlasExpLog2Low = -1.42860677e-6f;
constexpr float kMlasExpPoly0 = 0x1.694000p-10f;
constexpr float kMlasExpPoly1 = 0x1.125edcp-7f;
constexpr float kMlasExpPoly2 = 0x1.555b5ap-5f;
constexpr float kMlasExpPoly3 = 0x1.555450p-3f;
constexpr float kMlasExpPoly4 = 0x1.fffff6p-2f;
constexpr float kMlasExpPoly56 = 1.0f;
constexpr std::uint32_t kMlasExpMaximumExponent = 0x3F800000u;

inline std::uint32_t float_bits(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bits_float(std::uint32_t u) {
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace detail

/// exp(v + negative_max) as one lane of MLAS's sum-of-exponentials kernel computes it, in float32,
/// each fma rounded once (VFMADD*PS), the other operations rounded each:
///   x = negative_max + v                              (VADDPS)
///   x = lower > x ? lower : x                         (VMAXPS; lower -103.972084 on AVX512F,
///                                                      -88.3762627 on FMA3; a NaN stays NaN)
///   b = fma(x, 1/ln 2, 1.5 * 2^23);  m = b - 1.5 * 2^23      (m = round_half_even(x / ln 2))
///   x = fma(m, ln2_high, x);  x = fma(m, ln2_low, x)          (ln2_high, ln2_low negative)
///   p = poly_0;  p = fma(p, x, poly_k) for poly_1 .. poly_4, then twice for poly_5 = poly_6 = 1
///   AVX512F: e = p * 2^m exactly rounded (VSCALEFPS: gradual underflow down to m = -150)
///   FMA3:    e = p * float(bits((bits(b) << 23) + 0x3F800000)), i.e. p * 2^m for m >= -126,
///            0 for m = -127 (the clamp keeps m >= -127)
inline float mlas_sum_exp_lane(float v, float negative_max, MlasSoftmaxIsa isa) {
  using namespace detail;
  const bool avx512 = isa == MlasSoftmaxIsa::kAvx512F;
  const float lower = avx512 ? kMlasExpLowerRange : kMlasExpLowerRangeSumExp;
  float x = negative_max + v;
  x = lower > x ? lower : x;
  const float b = std::fma(x, kMlasExpLog2Reciprocal, kMlasExpRoundingBias);
  const float m = b - kMlasExpRoundingBias;
  x = std::fma(m, kMlasExpLog2High, x);
  x = std::fma(m, kMlasExpLog2Low, x);
  float p = kMlasExpPoly0;
  p = std::fma(p, x, kMlasExpPoly1);
  p = std::fma(p, x, kMlasExpPoly2);
  p = std::fma(p, x, kMlasExpPoly3);
  p = std::fma(p, x, kMlasExpPoly4);
  p = std::fma(p, x, kMlasExpPoly56);
  p = std::fma(p, x, kMlasExpPoly56);
  if (avx512) {
    if (std::isnan(m)) return p;  // p is NaN too; VSCALEFPS passes it through
    return std::ldexp(p, static_cast<int>(m));  // m in [-150, 0]: one correctly rounded scaling
  }
  return p * bits_float((float_bits(b) << 23) + kMlasExpMaximumExponent);
}

/// The sum of the e_i = mlas_sum_exp_lane(v_i, -max, isa) of a row of d values, in the kernel's
/// float32 order (exps[i] receives e_i):
///   AVX512F: 16 lane sums from 0; blocks of 48 add elements 48 b + j, then + 16 + j, then + 32 + j
///            to lane j; then chunks of 16 (the last one partial: its lanes j >= rest keep their
///            sum) add element c + j to lane j; a_j = lane (j + 8) + lane j for j < 8;
///            total = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))   (VHADDPS twice, VADDSS)
///   FMA3:    8 lane sums from 0; blocks of 24 add 24 b + j, + 8 + j, + 16 + j to lane j; then
///            chunks of 8 likewise, a partial last chunk adding 0 to its unused lanes;
///            total = ((a4 + a5) + (a6 + a7)) + ((a0 + a1) + (a2 + a3)) with a_j = lane j
inline float mlas_sum_exp_row(const float* v, std::size_t d, float negative_max, MlasSoftmaxIsa isa,
                              float* exps) {
  const bool avx512 = isa == MlasSoftmaxIsa::kAvx512F;
  const std::size_t lanes = avx512 ? 16 : 8;
  const std::size_t block = 3 * lanes;
  float acc[16] = {};
  for (std::size_t i = 0; i < d; ++i) exps[i] = mlas_sum_exp_lane(v[i], negative_max, isa);
  std::size_t i = 0;
  for (; d - i >= block; i += block) {
    for (std::size_t k = 0; k < 3; ++k) {
      for (std::size_t j = 0; j < lanes; ++j) acc[j] += exps[i + k * lanes + j];
    }
  }
  for (; i < d; i += lanes) {
    for (std::size_t j = 0; j < lanes; ++j) {
      if (i + j < d) {
        acc[j] += exps[i + j];
      } else if (!avx512) {
        acc[j] += 0.0f;  // VANDPS-masked lane: adds +0 (no effect on a sum of non-negative terms)
      }
    }
  }
  float a[8];
  for (std::size_t j = 0; j < 8; ++j) a[j] = avx512 ? acc[j + 8] + acc[j] : acc[j];
  const float low = (a[0] + a[1]) + (a[2] + a[3]);
  const float high = (a[4] + a[5]) + (a[6] + a[7]);
  return avx512 ? low + high : high + low;
}

/// One row of ONNX Runtime's unfused QDQ Softmax (DequantizeLinear -> Softmax over the last axis ->
/// QuantizeLinear), d elements:
///   v_i   = float(x_i - x_zp) * x_scale                   (DequantizeLinear, one rounding)
///   max   = max_i v_i                                     (exact in any order)
///   e_i, total = mlas_sum_exp_row(v, d, -max, isa)        (MlasComputeSumExpF32Kernel*)
///   s     = 1.0f / total                                  (one float32 division per row)
///   y_i   = ort_quantize_linear<T>(e_i * s, y_scale, y_zp) (VMULPS, then MlasQuantizeLinear:
///                                                          float division, clamp, half to even)
/// `scratch` holds at least 2 d floats.
template <class T>
void ort_float_softmax_row(const T* x, T* y, std::size_t d, TensorQuant in, TensorQuant out,
                           MlasSoftmaxIsa isa, float* scratch) {
  float* v = scratch;
  float* e = scratch + d;
  float max = 0.0f;
  for (std::size_t i = 0; i < d; ++i) {
    v[i] = static_cast<float>(static_cast<std::int32_t>(x[i]) - in.zero_point) * in.scale;
    if (i == 0 || v[i] > max) max = v[i];
  }
  const float total = mlas_sum_exp_row(v, d, -max, isa, e);
  const float s = 1.0f / total;
  for (std::size_t i = 0; i < d; ++i) y[i] = ort_quantize_linear<T>(e[i] * s, out.scale, out.zero_point);
}

}  // namespace reference
}  // namespace qparity
