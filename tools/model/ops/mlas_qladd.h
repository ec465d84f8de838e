// The scalar form of ONNX Runtime's AVX2 QLinearAdd kernel (MlasQLinearAddKernelAvx2Helper,
// onnxruntime/core/mlas/lib/intrinsics/avx2/qladd_avx2.cpp), what x86 builds run on AVX2 CPUs:
// the ratios r1 = s1 / so and r2 = s2 / so in float32, a fixed part zo - (r1 z1 + r2 z2), then
// y = fma(x1, r1, fma(x2, r2, fixed)) on the raw inputs; a one-element x2 is folded into the fixed
// part first (x2 r2 rounded, then added). The fixed part is scalar C++ that the compiler may
// contract into an FMA; this takes the first product fused, and the measured data does not separate
// that from the unfused sum (docs/semantics.md §22.2, UNVERIFIED detail). cvtps2dq rounds half to
// even (outside int32: INT32_MIN); saturating packs clamp.
//
// elementwise.cc's ADD under the onnxruntime presets computes its elements with
// mlas_qladd_element() (the reference engine, and the fast engine's table for broadcasts), and
// hands the same Params to the library's vector kernels (kernels/entries/qparity_internal/
// mlas_qladd.h) for same-shape and one-element-x2 inputs; tests/model/mlas_qladd_kernel_test.cc
// checks those against this form on every input pair. Built with -ffp-contract=off, so each
// operation written here is one float32 rounding.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "qparity_internal/mlas_qladd.h"

namespace qparity::model {

/// The per-call constants from the three (scale, zero point) pairs; with `scalar_b` (x2 has one
/// element, ORT's IsScalarB kernel) x2's value b is folded into the fixed part: fixed + float(b) r2.
inline internal::mlas_qladd::Params mlas_qladd_params(float s1, std::int32_t z1, float s2, std::int32_t z2, float so,
                                                      std::int32_t zo) {
  internal::mlas_qladd::Params p;
  p.r1 = s1 / so;
  p.r2 = s2 / so;
  p.fixed = static_cast<float>(zo) - std::fma(p.r1, static_cast<float>(z1), p.r2 * static_cast<float>(z2));
  return p;
}

/// The fixed part of the one-element-x2 form: x2's product rounded, then added (two roundings).
inline internal::mlas_qladd::Params mlas_qladd_fold_b(internal::mlas_qladd::Params p, std::int32_t b) {
  p.fixed = p.fixed + static_cast<float>(b) * p.r2;
  return p;
}

/// One element: the 8-bit result in [lo, hi] (the type's range). With scalar_b, `p` is the
/// unfolded Params and b x2's one value.
inline std::int64_t mlas_qladd_element(const internal::mlas_qladd::Params& p, std::int32_t a, std::int32_t b,
                                       bool scalar_b, std::int64_t lo, std::int64_t hi) {
  float v = 0.0f;
  if (scalar_b) {
    v = std::fma(static_cast<float>(a), p.r1, mlas_qladd_fold_b(p, b).fixed);
  } else {
    v = std::fma(static_cast<float>(a), p.r1, std::fma(static_cast<float>(b), p.r2, p.fixed));
  }
  std::int64_t q = std::numeric_limits<std::int32_t>::min();
  if (v >= -2147483648.0f && v < 2147483648.0f) q = static_cast<std::int64_t>(std::nearbyint(v));
  return q < lo ? lo : (q > hi ? hi : q);
}

}  // namespace qparity::model
