// QUANTIZE float32 -> int8 / uint8 for Engine::kFast: reference::quantize_float
// (include/qparity/reference/quantize.h) restated for speed (a model's float input is its largest
// QUANTIZE: 224 x 224 x 3 values; the reference's floor / round calls cost milliseconds there):
// SSE2 (every x86-64) in blocks of 16, portable branch-free code elsewhere and for the tail.
// Bit-identical to the reference for every float, NaN and infinity included
// (tests/model/quantize_fast_test.cc), in the default floating-point environment, because:
//   * the reference saturates the rounded value to int32, adds the zero point (|zp| <= 255) and
//     saturates to the 8-bit type, so every |v| >= 1024 gives the same result as +-1024; NaN gives
//     0 in every variant. The code clamps v to [-1024, 1024] (NaN -> 0) first;
//   * on that range, round half to even is (v + 1.5 * 2^23) - 1.5 * 2^23 in float, or SSE's
//     conversion in the default rounding mode (exact: the sum's ulp is 1; no FMA contraction, the
//     project builds with -ffp-contract=off), and round half away from zero is trunc(v) + sign
//     where |v - trunc(v)| >= 0.5 (v - trunc(v) is exact);
//   * the variants' v: float(x / s), double(x) / double(s) (clamped and rounded in double), float(x
//     * float(1 / s)), as the reference computes it; +-1024 + zp fits int16, so SSE's saturating
//     packs are the clamp to the 8-bit type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "qparity/reference/quantize.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qparity::model {

namespace quantize_fast_detail {

#if defined(__SSE2__)
/// v clamped to [-1024, 1024], NaN -> 0 (maxps returns its second operand for a NaN first one).
inline __m128 clamp_1024_sse(__m128 v) {
  const __m128 c = _mm_min_ps(_mm_max_ps(v, _mm_set1_ps(-1024.0f)), _mm_set1_ps(1024.0f));
  return _mm_and_ps(c, _mm_cmpord_ps(v, v));
}
inline __m128d clamp_1024_sse(__m128d v) {
  const __m128d c = _mm_min_pd(_mm_max_pd(v, _mm_set1_pd(-1024.0)), _mm_set1_pd(1024.0));
  return _mm_and_pd(c, _mm_cmpord_pd(v, v));
}
/// Round half away from zero of clamped values.
inline __m128i haz_sse(__m128 v) {
  const __m128i t = _mm_cvttps_epi32(v);
  const __m128 frac = _mm_sub_ps(v, _mm_cvtepi32_ps(t));
  const __m128i up = _mm_castps_si128(_mm_cmpge_ps(frac, _mm_set1_ps(0.5f)));    // -1 where true
  const __m128i down = _mm_castps_si128(_mm_cmple_ps(frac, _mm_set1_ps(-0.5f)));
  return _mm_add_epi32(_mm_sub_epi32(t, up), down);
}
/// The same for two doubles (results in the low two int32 lanes).
inline __m128i haz_sse(__m128d v) {
  const __m128i t = _mm_cvttpd_epi32(v);
  const __m128d frac = _mm_sub_pd(v, _mm_cvtepi32_pd(t));
  const __m128i up = _mm_shuffle_epi32(_mm_castpd_si128(_mm_cmpge_pd(frac, _mm_set1_pd(0.5))), 0x08);
  const __m128i down = _mm_shuffle_epi32(_mm_castpd_si128(_mm_cmple_pd(frac, _mm_set1_pd(-0.5))), 0x08);
  return _mm_add_epi32(_mm_sub_epi32(t, up), down);
}
/// Round half to even of clamped values: the conversion in the default rounding mode.
inline __m128i rne_sse(__m128 v) { return _mm_cvtps_epi32(v); }

/// Four int32 results of one variant for x[0..3].
inline __m128i quantize4(const float* x, reference::QuantizeFloatVariant variant, __m128 s, __m128d sd, __m128 inv) {
  const __m128 xv = _mm_loadu_ps(x);
  switch (variant) {
    case reference::QuantizeFloatVariant::kTfliteFloatDivide: return haz_sse(clamp_1024_sse(_mm_div_ps(xv, s)));
    case reference::QuantizeFloatVariant::kTfliteDoubleDivide: {
      const __m128i lo = haz_sse(clamp_1024_sse(_mm_div_pd(_mm_cvtps_pd(xv), sd)));
      const __m128i hi = haz_sse(clamp_1024_sse(_mm_div_pd(_mm_cvtps_pd(_mm_movehl_ps(xv, xv)), sd)));
      return _mm_unpacklo_epi64(lo, hi);
    }
    case reference::QuantizeFloatVariant::kXnnpack: return rne_sse(clamp_1024_sse(_mm_mul_ps(xv, inv)));
    case reference::QuantizeFloatVariant::kFloat32DivideHalfEven: return rne_sse(clamp_1024_sse(_mm_div_ps(xv, s)));
  }
  return _mm_setzero_si128();
}
#endif

}  // namespace quantize_fast_detail

/// y[i] = reference::quantize_float<T>(x[i], q, variant) for i < n.
template <class T>
void quantize_floats(const float* x, std::size_t n, const reference::TensorQuant& q,
                     reference::QuantizeFloatVariant variant, T* y) {
  using namespace quantize_fast_detail;
  const std::int32_t zp = q.zero_point;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128 s = _mm_set1_ps(q.scale), inv = _mm_set1_ps(1.0f / q.scale);
  const __m128d sd = _mm_set1_pd(static_cast<double>(q.scale));
  const __m128i z = _mm_set1_epi32(zp);
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_add_epi32(quantize4(x + i, variant, s, sd, inv), z);
    const __m128i b = _mm_add_epi32(quantize4(x + i + 4, variant, s, sd, inv), z);
    const __m128i c = _mm_add_epi32(quantize4(x + i + 8, variant, s, sd, inv), z);
    const __m128i d = _mm_add_epi32(quantize4(x + i + 12, variant, s, sd, inv), z);
    const __m128i ab = _mm_packs_epi32(a, b), cd = _mm_packs_epi32(c, d);  // exact: |v| <= 1279
    const __m128i bytes = std::is_same<T, std::int8_t>::value ? _mm_packs_epi16(ab, cd) : _mm_packus_epi16(ab, cd);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), bytes);
  }
#endif
  for (; i < n; ++i) y[i] = reference::quantize_float<T>(x[i], q, variant);
}

}  // namespace qparity::model
