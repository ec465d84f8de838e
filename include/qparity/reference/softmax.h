// SOFTMAX on int8 / uint8 tensors (output scale 1/256; zero point -128 for int8, 0 for uint8),
// per runtime (docs/semantics.md §21.5). Header-only, standard C++17, depends only on
// include/qparity. Sources restated, not copied.
//
// Status: the float-table kernel that TFLite's optimized SOFTMAX runs outside aarch64 / clang
// builds (and that LiteRT.js runs, *measured*) and a float32 style. NOT YET IMPLEMENTED: TFLite's
// reference / TFLM fixed-point kernel (gemmlowp exp_on_negative_values, GetReciprocal,
// PreprocessSoftmaxScaling with 5 integer bits for the scaled difference and 12 for the sum) and
// the uint16 two-byte table of aarch64 / clang builds; docs/semantics.md §21.5 lists them as open.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "qparity/error.h"
#include "qparity/policy_float.h"
#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

enum class SoftmaxVariant : std::uint8_t {
  /// TFLite optimized SOFTMAX for 8-bit input without TFLITE_SOFTMAX_USE_UINT16_LUT (every build
  /// but aarch64 + clang; LiteRT tflite/kernels/activations.cc SoftmaxPrepare ->
  /// optimized_ops::PopulateSoftmaxLookupTable, optimized_ops::Softmax):
  ///   table[255 - k] = expf(float(-s_in * beta) * k), k = 0..255   (expf of the C library, float)
  ///   per row: m = max x;  e_j = table[255 - (m - x_j)] = expf(-s_in * beta * (m - x_j))
  ///            sum = e_0 + e_1 + ... in float, left to right (RNE each add)
  ///            inv = float(1.0f / float(sum * s_out))
  ///            p_j = float(e_j * inv)                    (the probability in output units)
  ///            y_j = clamp(round(p_j) + zp_out)          int8 out: std::round (p >= 0: half up);
  ///                                                      uint8 out: int(p_j + 0.5f), float add
  /// Depends on expf being correctly rounded for the 256 arguments (glibc's and musl's expf, both
  /// from Arm's optimized-routines, agree on every argument the measurement used).
  kTfliteOptimizedFloatTable,
  /// Float32 (dequantize, softmax in float, quantize RNE): d_j = float(s_in * (x_j - m));
  /// e_j = expf(beta * d_j); sum left to right; y_j = clamp(RNE(float(float(e_j / sum) / s_out)) +
  /// zp_out). **UNVERIFIED** for any runtime (ORT's QLinearSoftmax builds a table; not re-read).
  kFloat32,
};

/// SOFTMAX over the last dimension (`row` elements per row) of x. `in` / `out` quantizations; the
/// usual output is {1/256, -128} (int8) or {1/256, 0} (uint8), but any is accepted. beta > 0.
/// Throws InvalidArgument for bad scales / zero points, row == 0 or x.size() % row != 0.
template <class TIn, class TOut>
std::vector<TOut> softmax(const std::vector<TIn>& x, std::size_t row, const TensorQuant& in,
                          const TensorQuant& out, float beta, SoftmaxVariant variant) {
  static_assert(kIsQuant8<TIn> && kIsQuant8<TOut>, "softmax: 8-bit types only");
  detail::require_scale("input scale", in.scale);
  detail::require_scale("output scale", out.scale);
  detail::require_zero_point<TIn>("input zero_point", in.zero_point);
  detail::require_zero_point<TOut>("output zero_point", out.zero_point);
  qparity::detail::require_positive_finite("beta", beta);
  if (row == 0 || x.size() % row != 0) {
    throw InvalidArgument("qparity: softmax rows of " + std::to_string(row) + " do not divide " +
                          std::to_string(x.size()) + " elements");
  }
  float table[256];
  const float neg = -in.scale * beta;
  for (int k = 0; k <= 255; ++k) table[255 - k] = std::exp(neg * static_cast<float>(k));
  std::vector<TOut> y(x.size());
  for (std::size_t r = 0; r < x.size(); r += row) {
    std::int32_t m = type_min<TIn>();
    for (std::size_t j = 0; j < row; ++j) m = std::max<std::int32_t>(m, x[r + j]);
    switch (variant) {
      case SoftmaxVariant::kTfliteOptimizedFloatTable: {
        float sum = 0.0f;
        for (std::size_t j = 0; j < row; ++j) sum += table[255 - (m - x[r + j])];
        const float inv = 1.0f / (sum * out.scale);
        for (std::size_t j = 0; j < row; ++j) {
          const float p = table[255 - (m - x[r + j])] * inv;
          std::int64_t q;
          if (std::is_same<TOut, std::uint8_t>::value) {
            q = static_cast<std::int64_t>(p + 0.5f);
          } else {
            q = static_cast<std::int64_t>(std::round(p));
          }
          y[r + j] = saturate_to<TOut>(q + out.zero_point);
        }
        break;
      }
      case SoftmaxVariant::kFloat32: {
        std::vector<float> e(row);
        float sum = 0.0f;
        for (std::size_t j = 0; j < row; ++j) {
          const float d = static_cast<float>(static_cast<double>(in.scale) * (x[r + j] - m));
          e[j] = std::exp(beta * d);
          sum += e[j];
        }
        for (std::size_t j = 0; j < row; ++j) {
          const float p = e[j] / sum;
          y[r + j] = saturate_to<TOut>(
              static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(p / out.scale)) + out.zero_point);
        }
        break;
      }
    }
  }
  return y;
}

}  // namespace reference
}  // namespace qparity
