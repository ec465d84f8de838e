// ONNX Runtime's com.microsoft QLinearSoftmax on int8 / uint8 rows (docs/semantics.md §22.8): a
// 256-entry table of float32 exponentials indexed by the distance to the row's maximum, a float32
// sum in MLAS's AVX2 lane order, and one float32 scale per row.
//
// Source (restated, not copied): microsoft/onnxruntime
//   onnxruntime/contrib_ops/cpu/quantization/qlinear_softmax.cc  QlinearBuildLookupTableUint32,
//                                                                QlinearSoftmaxCPU<uint8_t /
//                                                                int8_t>
//   onnxruntime/contrib_ops/cpu/quantization/qlinear_softmax.h   EXP_OUT_DTYPE = float
//   onnxruntime/core/mlas/lib/qsoftmax_kernel_avx2.cpp           the row kernel on x86 AVX2
//
// Header-only, standard C++17, depends only on include/qparity.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace qparity {
namespace reference {

/// The exponentials, indexed by d = row max - x (0..255):
///   shift  = max(0, log(double(float(FLT_MAX / float(D)))) - 5) / double(x_scale)
///   e[d]   = float(exp((double(255 - d) - 255 + shift) * double(x_scale)))
/// with D the row length (the reduced size) and every operation in double except the quotient
/// FLT_MAX / D (float32, as ORT divides a float by the size). ORT stores e[d] at byte 255 - d
/// (uint8) or at byte (255 - d) - 128 (int8) and indexes it with the shifted input: the same entry.
/// The shift keeps the sum of D exponentials below FLT_MAX; the input zero point cancels.
inline std::array<float, 256> ort_softmax_exp_table(float x_scale, std::size_t row_length) {
  const float quotient = std::numeric_limits<float>::max() / static_cast<float>(row_length);
  double shift = std::log(static_cast<double>(quotient));
  shift = std::max(0.0, shift - 5.0) / static_cast<double>(x_scale);
  std::array<float, 256> e{};
  for (int i = 0; i < 256; ++i) {
    const double v =
        std::exp((static_cast<double>(i) - 255 + shift) * static_cast<double>(x_scale));
    e[static_cast<std::size_t>(255 - i)] = static_cast<float>(v);
  }
  return e;
}

/// The output multiplier: floor(1 / y_scale) in float32 (ORT ignores the rest of the scale).
inline float ort_softmax_output_multiplier(float y_scale) {
  return std::floor(1.0f / y_scale);
}

/// One row of D elements as MLAS's AVX2 kernel computes it (MlasQuantizeSoftmaxI8KernelAvx2 /
/// U8KernelAvx2, onnxruntime/core/mlas/lib/qsoftmax_kernel_avx2.cpp, which MlasComputeQSoftmax
/// runs on x86-64 CPUs with AVX2), with mult = ort_softmax_output_multiplier(y_scale):
///   m     = max(x);  e_i = e[m - x_i]
///   lanes = 8 float32 sums: over each block of 16 elements (i = 16 b ...), lane j adds e_(i+j)
///           and then e_(i+8+j); the tail (the last D mod 16 elements) is summed on its own, from
///           0, in order; total = tail + lane 0 + lane 1 + ... + lane 7 (float32, in that order)
///   scale = float(1 / total) * mult
///   t_i   = float(e_i * scale) + y_zp   (two roundings, as the intrinsics are written; a build
///   that
///           contracts them into an fma was not separated from this by the measured data)
///   y_i   = round_half_even(t_i) saturated to the type
/// The 16-element blocks saturate with VPACKSSDW / VPACKSSWB (VPACKUS* for uint8). The source read
/// converts the scalar tail with `q > 255 ? 255 : T(q)`, which for int8 would wrap q = 128 to -128;
/// ONNX Runtime 1.30 returns 127 there (measured on rows shorter than 16, whose elements are all
/// tail), so the tail saturates too. Under SOFTMAX's output contract (int8 zero point -128, scale
/// 1/256) q stays within [-128, 128] and [0, 256], so those saturations are all that is reachable.
/// The sum is never 0 (e[0] >= 1).
template <class T>
void ort_qlinear_softmax_row(const T* x, T* y, std::size_t d, const std::array<float, 256>& e,
                             float mult, std::int32_t y_zp) {
  static_assert(std::is_same<T, std::int8_t>::value || std::is_same<T, std::uint8_t>::value,
                "8-bit types");
  const int m = static_cast<int>(*std::max_element(x, x + d));
  auto exp_of = [&](std::size_t i) {
    return e[static_cast<std::size_t>(m - static_cast<int>(x[i]))];
  };
  const std::size_t blocks = d / 16 * 16;
  float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < blocks; i += 16) {
    for (std::size_t j = 0; j < 8; ++j) lanes[j] += exp_of(i + j);
    for (std::size_t j = 0; j < 8; ++j) lanes[j] += exp_of(i + 8 + j);
  }
  float total = 0.0f;
  for (std::size_t i = blocks; i < d; ++i) total += exp_of(i);
  for (float lane : lanes) total += lane;
  const float scale = (1.0f / total) * mult;
  const auto zp = static_cast<float>(y_zp);
  constexpr std::int32_t lo = std::is_same<T, std::int8_t>::value ? -128 : 0;
  constexpr std::int32_t hi = std::is_same<T, std::int8_t>::value ? 127 : 255;
  for (std::size_t i = 0; i < d; ++i) {
    const float t = exp_of(i) * scale + zp;
    const auto q = static_cast<std::int32_t>(std::nearbyint(t));
    y[i] = static_cast<T>(q < lo ? lo : (q > hi ? hi : q));
  }
}

}  // namespace reference
}  // namespace qparity
