// INTERNAL: the SIMD kernels of the mlas_qladd family (mlas_qladd_kernel.h), written once and
// compiled per ISA by mlas_qladd_avx512.cc and mlas_qladd_avx2.cc. Not installed.
//
// ODR: everything here depends on the -m flags of the including translation unit, so it lives in
// qparity::internal::mlas_qladd::QPARITY_MLAS_QLADD_NS, which each includer names differently; no
// standard-library template is used for the same reason.
//
// Per vector of kLanes elements: widen the bytes to int32 and convert to float32 (exact), the two
// FMAs of the contract (fma(x2, r2, fixed) first, then fma(x1, r1, that)), cvtps2dq in the default
// rounding mode (round half to even; "integer indefinite" INT32_MIN outside int32 or for NaN), then
// the clamp to the type's range. The tail (n mod kLanes) goes through a zero-padded copy of one
// vector, so it runs the same instructions.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/mlas_qladd/mlas_qladd_kernel.h"

#if !defined(QPARITY_MLAS_QLADD_NS)
#error "define QPARITY_MLAS_QLADD_NS before including mlas_qladd_kernel_body.h"
#endif

namespace qparity::internal::mlas_qladd::QPARITY_MLAS_QLADD_NS {

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__FMA__)
constexpr std::size_t kLanes = 16;
using VecF = __m512;

inline VecF vset(float v) {
  return _mm512_set1_ps(v);
}

/// kLanes bytes as float32 (signed or unsigned widening).
template <bool kSigned>
inline VecF load_float(const std::uint8_t* p) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm512_cvtepi32_ps(kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
}

/// cvtps2dq, then the clamp of MLAS's packs: vpmovsdb saturates to [-128, 127]; for uint8 a max
/// with 0 first, then vpmovusdb saturates the (now non-negative) values to [0, 255].
template <bool kSigned>
inline void store_rounded(std::uint8_t* p, VecF v) {
  const __m512i q = _mm512_cvtps_epi32(v);
  const __m128i b = kSigned ? _mm512_cvtsepi32_epi8(q)
                            : _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, _mm512_setzero_si512()));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), b);
}

inline VecF vfma(VecF a, VecF b, VecF c) {
  return _mm512_fmadd_ps(a, b, c);
}
#elif defined(__AVX2__) && defined(__FMA__)
constexpr std::size_t kLanes = 8;
using VecF = __m256;

inline VecF vset(float v) {
  return _mm256_set1_ps(v);
}

template <bool kSigned>
inline VecF load_float(const std::uint8_t* p) {
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return _mm256_cvtepi32_ps(kSigned ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
}

/// cvtps2dq, then MLAS's two saturating packs: int32 -> int16 (packssdw), int16 -> the 8-bit type
/// (packuswb for uint8, packsswb for int8).
template <bool kSigned>
inline void store_rounded(std::uint8_t* p, VecF v) {
  const __m256i q = _mm256_cvtps_epi32(v);
  const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  const __m128i b = kSigned ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), b);
}

inline VecF vfma(VecF a, VecF b, VecF c) {
  return _mm256_fmadd_ps(a, b, c);
}
#else
#error "mlas_qladd_kernel_body.h needs AVX2 + FMA or AVX-512 F+BW"
#endif

/// One vector: y[0, kLanes) from x1 and x2 (null: the one-element form, fixed already holds x2's
/// part).
template <bool kSigned>
inline void run_vector(const std::uint8_t* x1, const std::uint8_t* x2, VecF r1, VecF r2, VecF fixed,
                       std::uint8_t* y) {
  const VecF inner = x2 == nullptr ? fixed : vfma(load_float<kSigned>(x2), r2, fixed);
  store_rounded<kSigned>(y, vfma(load_float<kSigned>(x1), r1, inner));
}

template <bool kSigned>
void run(const void* x1v, const void* x2v, std::size_t n, const Params& p, void* yv) {
  const auto* x1 = static_cast<const std::uint8_t*>(x1v);
  const auto* x2 = static_cast<const std::uint8_t*>(x2v);
  auto* y = static_cast<std::uint8_t*>(yv);
  const VecF r1 = vset(p.r1), r2 = vset(p.r2), fixed = vset(p.fixed);
  std::size_t i = 0;
  if (x2 != nullptr) {
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {  // two independent vectors per iteration
      run_vector<kSigned>(x1 + i, x2 + i, r1, r2, fixed, y + i);
      run_vector<kSigned>(x1 + i + kLanes, x2 + i + kLanes, r1, r2, fixed, y + i + kLanes);
    }
    for (; i + kLanes <= n; i += kLanes) run_vector<kSigned>(x1 + i, x2 + i, r1, r2, fixed, y + i);
  } else {
    for (; i + kLanes <= n; i += kLanes) run_vector<kSigned>(x1 + i, nullptr, r1, r2, fixed, y + i);
  }
  if (i < n) {  // the tail: zero-padded copies, the padding's outputs dropped
    std::uint8_t a[kLanes] = {}, b[kLanes] = {}, out[kLanes];
    std::memcpy(a, x1 + i, n - i);
    if (x2 != nullptr) std::memcpy(b, x2 + i, n - i);
    run_vector<kSigned>(a, x2 == nullptr ? nullptr : b, r1, r2, fixed, out);
    std::memcpy(y + i, out, n - i);
  }
}

}  // namespace qparity::internal::mlas_qladd::QPARITY_MLAS_QLADD_NS
