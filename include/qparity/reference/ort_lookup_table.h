// ONNX Runtime's 8-bit activations computed through a 256-entry table (docs/semantics.md §22.7):
// com.microsoft QLinearSigmoid and QLinearLeakyRelu, and the QDQ groups DequantizeLinear -> Sigmoid
// / LeakyRelu -> QuantizeLinear, which compute the same bits fused or in float32.
//
// Source (restated, not copied): microsoft/onnxruntime
//   onnxruntime/contrib_ops/cpu/quantization/qlinear_lookup_table.cc  QlinearBuildLookupTable
//   onnxruntime/contrib_ops/cpu/quantization/qlinear_activations.cc   the two functions
//   onnxruntime/core/mlas/lib/logistic.cpp                            the coefficients
//   onnxruntime/core/mlas/lib/x86_64/LogisticKernelFma3.S             the x86 FMA3 kernel
//   onnxruntime/core/mlas/lib/quantize.cpp                            MlasQuantizeLinear
//
// Header-only, standard C++17, depends only on include/qparity.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

/// MLAS's logistic function as its x86 FMA3 kernel (MlasLogisticKernelFma3, the routine
/// MlasComputeLogistic dispatches to on every x86-64 CPU with FMA3 and AVX2) computes it, in
/// float32:
///   v  = min(max(x, -18), 18)                     (a NaN input stays NaN: MAXPS returns x)
///   s  = v * v
///   p  = fma(fma(fma(fma(s, a9, a7), s, a5), s, a3), s, a1) * v
///   q  = fma(fma(fma(fma(fma(s, b10, b8), s, b6), s, b4), s, b2), s, b0)
///   y  = max(p / q + 0.5, 0)                      (no upper clamp in this kernel)
/// with Eigen's rational coefficients (logistic.cpp MlasLogisticConstants), each fma rounded once
/// (VFMADD), the other operations rounded to float32 each. The portable kernel (MlasLogisticKernel,
/// SSE2-only CPUs and other architectures) multiplies and adds separately and clamps to [0, 1];
/// it is not modelled.
inline float mlas_logistic_fma3(float x) {
  float v = x < -18.0f ? -18.0f : x;  // MAXPS(lower, x): x when x is NaN
  v = v > 18.0f ? 18.0f : v;
  const float s = v * v;
  float p = std::fma(s, 4.37031012579801e-11f, 1.15627324459942e-07f);
  p = std::fma(p, s, 6.08574864600143e-05f);
  p = std::fma(p, s, 8.51377133304701e-03f);
  p = std::fma(p, s, 2.48287947061529e-01f);
  p = p * v;
  float q = std::fma(s, 6.10247389755681e-13f, 5.76102136993427e-09f);
  q = std::fma(q, s, 6.29106785017040e-06f);
  q = std::fma(q, s, 1.70198817374094e-03f);
  q = std::fma(q, s, 1.16817656904453e-01f);
  q = std::fma(q, s, 9.93151921023180e-01f);
  const float y = p / q + 0.5f;
  return y > 0.0f ? y : 0.0f;  // MAXPS(0, y)
}

/// ONNX Runtime's LeakyRelu on float32 (QLinearLeakyRelu's table function and the float kernel):
/// v >= 0 ? v : alpha * v, the product rounded to float32.
inline float ort_leaky_relu(float v, float alpha) {
  return v >= 0.0f ? v : alpha * v;
}

/// MLAS's QuantizeLinear of one float32 value (MlasQuantizeLinear, quantize.cpp):
///   v = y / scale                                 (a true float32 division)
///   v = min(max(v, type_min - zp), type_max - zp) (in float; a NaN becomes the lower bound)
///   q = round_half_even(v) + zp                   (CVTPS2DQ in the default rounding mode)
template <class T>
T ort_quantize_linear(float y, float scale, std::int32_t zero_point) {
  const auto lo = static_cast<float>(type_min<T>() - zero_point);
  const auto hi = static_cast<float>(type_max<T>() - zero_point);
  float v = y / scale;
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return static_cast<T>(static_cast<std::int32_t>(std::nearbyint(v)) + zero_point);
}

enum class OrtTableFunction : std::uint8_t {
  kSigmoid,    ///< QLinearSigmoid: mlas_logistic_fma3
  kLeakyRelu,  ///< QLinearLeakyRelu: ort_leaky_relu with the node's alpha
};

/// The float function of a table (the contrasts in the tests swap it).
inline float ort_table_function(OrtTableFunction f, float v, float alpha) {
  return f == OrtTableFunction::kSigmoid ? mlas_logistic_fma3(v) : ort_leaky_relu(v, alpha);
}

/// QlinearBuildLookupTable: entry i (the byte i read as T) holds
///   quantize(f(float(x_scale * float(x - x_zp))), y_scale, y_zp)
/// where the dequantization is one float32 product of x_scale and the integer difference
/// converted to float (exact: |x - x_zp| <= 255), f is the table's function and quantize is
/// ort_quantize_linear. QLinearLookupTableTransform then maps every input byte through the table.
template <class T>
std::array<T, 256> ort_lookup_table(OrtTableFunction f, float alpha, TensorQuant in,
                                    TensorQuant out) {
  std::array<T, 256> table{};
  for (int i = 0; i < 256; ++i) {
    const T x = static_cast<T>(static_cast<std::uint8_t>(i));
    const float v = in.scale * static_cast<float>(static_cast<int>(x) - in.zero_point);
    table[static_cast<std::size_t>(i)] =
        ort_quantize_linear<T>(ort_table_function(f, v, alpha), out.scale, out.zero_point);
  }
  return table;
}

/// One element of the table's arithmetic (the reference engine's per-element form).
template <class T>
T ort_lookup_value(T x, OrtTableFunction f, float alpha, TensorQuant in, TensorQuant out) {
  const float v = in.scale * static_cast<float>(static_cast<int>(x) - in.zero_point);
  return ort_quantize_linear<T>(ort_table_function(f, v, alpha), out.scale, out.zero_point);
}

}  // namespace reference
}  // namespace qparity
