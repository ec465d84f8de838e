// INTERNAL: the pooling kernels of kernels/pooling/pooling_kernel.h, written once and compiled per
// ISA by kernels/pooling/pooling_<isa>.cc. Not installed.
//
// ODR: everything here depends on the -m flags of the including translation unit, so it lives in
// qparity::internal::QPARITY_POOL_ISA_NS, which each includer names differently (pool_scalar,
// pool_avx2, pool_avx512): no inline function or template instantiation is shared between objects
// built for different ISAs (rounding/simd_x86.h, tests/simd/odr_guard.cmake). No standard-library
// template is used for the same reason. Define
//   QPARITY_POOL_ISA_NS     the namespace
// before including this file. The code follows the unit's ISA (QPARITY_TARGET_HAS_<name>,
// cmake/QparityIsas.cmake): portable loops for scalar, ymm from avx2, zmm (with byte masks for the
// channel tail) from avx512.
//
// Layout of the work: channels are the vector lanes. A window is reduced one channel block at a
// time (AVX2: 32 channels = two int16 ymm, then 16, then a scalar tail; AVX-512: 64 channels = two
// int16 zmm, then 32, then a masked block), walking every tap of the window for the block, so each
// tap's bytes are loaded once and widened to int16 (sums) or compared as bytes (max).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/pooling/pooling_kernel.h"

#if !defined(QPARITY_POOL_ISA_NS)
#error "define QPARITY_POOL_ISA_NS before including pooling_kernel_body.h"
#endif

#if defined(QPARITY_TARGET_HAS_avx512)
#define QPARITY_POOL_VECTOR_BITS 512
#if !(defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__))
#error "the AVX-512 pooling kernels must be compiled with their ISA's flags"
#endif
#elif defined(QPARITY_TARGET_HAS_avx2)
#define QPARITY_POOL_VECTOR_BITS 256
#if !defined(__AVX2__)
#error "the AVX2 pooling kernels must be compiled with their ISA's flags"
#endif
#else
#define QPARITY_POOL_VECTOR_BITS 0  // portable
#endif
#if QPARITY_POOL_VECTOR_BITS > 0
#include <immintrin.h>
#endif

#if defined(__GNUC__)
#define QPARITY_POOL_INLINE inline __attribute__((always_inline))
#else
#define QPARITY_POOL_INLINE inline
#endif

namespace qparity {
namespace internal {
namespace QPARITY_POOL_ISA_NS {

/// Element types: int8 (signed) and uint8.
struct S8 {
  static constexpr bool kSigned = true;
  static constexpr std::int32_t kMin = -128;
};
struct U8 {
  static constexpr bool kSigned = false;
  static constexpr std::int32_t kMin = 0;
};

template <class E>
QPARITY_POOL_INLINE std::int32_t load1(const std::uint8_t* p) {
  if constexpr (E::kSigned) {
    return static_cast<std::int32_t>(static_cast<std::int8_t>(*p));
  } else {
    return static_cast<std::int32_t>(*p);
  }
}

QPARITY_POOL_INLINE std::int32_t clamp32(std::int32_t v, std::int32_t lo, std::int32_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/// C's truncating division of acc +- n/2 by n: the mean rounded half away from zero.
QPARITY_POOL_INLINE std::int32_t haz_divide(std::int32_t acc, std::int32_t n) {
  return acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
}

// ---- Portable parts (every ISA's channel tail; the whole of the scalar path) ---------------------

/// Channels [c0, c1) in blocks of kTailBlock: per tap a contiguous inner loop over the block.
inline constexpr std::size_t kTailBlock = 256;

/// acc[i] = sum over taps of channel c0 + i, for channels [c0, c1).
template <class E>
void sum_portable(const PoolTaps& t, std::size_t c0, std::size_t c1, std::int32_t* acc) {
  const std::size_t count = c1 - c0;
  for (std::size_t i = 0; i < count; ++i) acc[i] = 0;
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::uint8_t* row = t.first + r * t.row_stride + c0;
    for (std::size_t k = 0; k < t.cols; ++k) {
      const std::uint8_t* p = row + k * t.col_stride;
      for (std::size_t i = 0; i < count; ++i) acc[i] += load1<E>(p + i);
    }
  }
}

template <class E>
void avg_portable(const PoolTaps& t, std::size_t c0, std::size_t c1, std::int32_t lo, std::int32_t hi,
                  std::uint8_t* out) {
  const std::int32_t n = static_cast<std::int32_t>(t.rows * t.cols);
  std::int32_t buf[kTailBlock];
  for (std::size_t b = c0; b < c1; b += kTailBlock) {
    const std::size_t e = c1 - b < kTailBlock ? c1 : b + kTailBlock;
    sum_portable<E>(t, b, e, buf);
    for (std::size_t c = b; c < e; ++c) {
      out[c] = static_cast<std::uint8_t>(clamp32(haz_divide(buf[c - b], n), lo, hi));
    }
  }
}

template <class E>
void max_portable(const PoolTaps& t, std::size_t c0, std::size_t c1, std::int32_t lo, std::int32_t hi,
                  std::uint8_t* out) {
  std::int32_t buf[kTailBlock];
  for (std::size_t b = c0; b < c1; b += kTailBlock) {
    const std::size_t e = c1 - b < kTailBlock ? c1 : b + kTailBlock;
    for (std::size_t c = b; c < e; ++c) buf[c - b] = E::kMin;
    for (std::size_t r = 0; r < t.rows; ++r) {
      const std::uint8_t* row = t.first + r * t.row_stride;
      for (std::size_t k = 0; k < t.cols; ++k) {
        const std::uint8_t* p = row + k * t.col_stride;
        for (std::size_t c = b; c < e; ++c) {
          const std::int32_t v = load1<E>(p + c);
          if (v > buf[c - b]) buf[c - b] = v;
        }
      }
    }
    for (std::size_t c = b; c < e; ++c) out[c] = static_cast<std::uint8_t>(clamp32(buf[c - b], lo, hi));
  }
}

#if QPARITY_POOL_VECTOR_BITS == 256
// ---- AVX2 -----------------------------------------------------------------------------------------

/// 16 channels widened to int16.
template <class E>
QPARITY_POOL_INLINE __m256i widen16(const std::uint8_t* p) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (E::kSigned) {
    return _mm256_cvtepi8_epi16(b);
  } else {
    return _mm256_cvtepu8_epi16(b);
  }
}

/// int32 sums of kVecs * 16 channels from channel c: acc[2v] channels 16v..16v+7, acc[2v+1] the
/// next 8. int16 partial sums are flushed every kInt16ChunkTaps taps.
template <class E, int kVecs>
QPARITY_POOL_INLINE void sum_block(const PoolTaps& t, std::size_t c, __m256i* acc) {
  __m256i s[kVecs];
  for (int v = 0; v < kVecs; ++v) s[v] = _mm256_setzero_si256();
  for (int v = 0; v < 2 * kVecs; ++v) acc[v] = _mm256_setzero_si256();
  std::size_t chunk = 0;
  auto flush = [&]() {
    for (int v = 0; v < kVecs; ++v) {
      acc[2 * v] = _mm256_add_epi32(acc[2 * v], _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s[v])));
      acc[2 * v + 1] = _mm256_add_epi32(acc[2 * v + 1], _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s[v], 1)));
      s[v] = _mm256_setzero_si256();
    }
  };
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::uint8_t* row = t.first + r * t.row_stride + c;
    for (std::size_t k = 0; k < t.cols; ++k) {
      const std::uint8_t* p = row + k * t.col_stride;
      for (int v = 0; v < kVecs; ++v) s[v] = _mm256_add_epi16(s[v], widen16<E>(p + 16 * v));
      if (++chunk == kInt16ChunkTaps) {
        flush();
        chunk = 0;
      }
    }
  }
  flush();
}

/// 16 int32 values (clamped to the element range) -> 16 bytes in channel order.
template <class E>
QPARITY_POOL_INLINE __m128i pack16(__m256i q0, __m256i q1) {
  __m256i w = _mm256_packs_epi32(q0, q1);  // [0-3, 8-11 | 4-7, 12-15]
  w = _mm256_permute4x64_epi64(w, 0xD8);   // [0-3, 4-7 | 8-11, 12-15]
  const __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
  if constexpr (E::kSigned) {
    return _mm_packs_epi16(lo, hi);
  } else {
    return _mm_packus_epi16(lo, hi);
  }
}

struct HazConstants {
  __m256i half, neg_half, lo, hi;
  __m256 n;
};

QPARITY_POOL_INLINE __m256i haz_finish(__m256i acc, const HazConstants& k) {
  const __m256i pos = _mm256_cmpgt_epi32(acc, _mm256_setzero_si256());
  const __m256i a = _mm256_add_epi32(acc, _mm256_blendv_epi8(k.neg_half, k.half, pos));
  const __m256i q = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(a), k.n));
  return _mm256_min_epi32(_mm256_max_epi32(q, k.lo), k.hi);
}

template <class E>
void avg_kernel(const PoolTaps& t, std::size_t channels, std::int32_t lo, std::int32_t hi, void* out_v) {
  auto* out = static_cast<std::uint8_t*>(out_v);
  const std::int32_t n = static_cast<std::int32_t>(t.rows * t.cols);
  HazConstants k;
  k.half = _mm256_set1_epi32(n / 2);
  k.neg_half = _mm256_set1_epi32(-(n / 2));
  k.lo = _mm256_set1_epi32(lo);
  k.hi = _mm256_set1_epi32(hi);
  k.n = _mm256_set1_ps(static_cast<float>(n));
  std::size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    __m256i acc[4];
    sum_block<E, 2>(t, c, acc);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c), pack16<E>(haz_finish(acc[0], k), haz_finish(acc[1], k)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c + 16), pack16<E>(haz_finish(acc[2], k), haz_finish(acc[3], k)));
  }
  if (c + 16 <= channels) {
    __m256i acc[2];
    sum_block<E, 1>(t, c, acc);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c), pack16<E>(haz_finish(acc[0], k), haz_finish(acc[1], k)));
    c += 16;
  }
  if (c < channels) avg_portable<E>(t, c, channels, lo, hi, out);
}

template <class E>
void sum_kernel(const PoolTaps& t, std::size_t channels, std::int32_t* out) {
  std::size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    __m256i acc[4];
    sum_block<E, 2>(t, c, acc);
    for (int v = 0; v < 4; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c + 8 * v), acc[v]);
  }
  if (c + 16 <= channels) {
    __m256i acc[2];
    sum_block<E, 1>(t, c, acc);
    for (int v = 0; v < 2; ++v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c + 8 * v), acc[v]);
    c += 16;
  }
  if (c < channels) sum_portable<E>(t, c, channels, out + c);
}

template <class E>
QPARITY_POOL_INLINE __m256i max_bytes(__m256i a, __m256i b) {
  if constexpr (E::kSigned) {
    return _mm256_max_epi8(a, b);
  } else {
    return _mm256_max_epu8(a, b);
  }
}
template <class E>
QPARITY_POOL_INLINE __m256i min_bytes(__m256i a, __m256i b) {
  if constexpr (E::kSigned) {
    return _mm256_min_epi8(a, b);
  } else {
    return _mm256_min_epu8(a, b);
  }
}

template <class E, int kVecs>
QPARITY_POOL_INLINE void max_block(const PoolTaps& t, std::size_t c, __m256i lo, __m256i hi, std::uint8_t* out) {
  __m256i m[kVecs];
  for (int v = 0; v < kVecs; ++v) m[v] = _mm256_set1_epi8(static_cast<char>(E::kMin));
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::uint8_t* row = t.first + r * t.row_stride + c;
    for (std::size_t k = 0; k < t.cols; ++k) {
      const std::uint8_t* p = row + k * t.col_stride;
      for (int v = 0; v < kVecs; ++v) {
        m[v] = max_bytes<E>(m[v], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * v)));
      }
    }
  }
  for (int v = 0; v < kVecs; ++v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c + 32 * v), min_bytes<E>(max_bytes<E>(m[v], lo), hi));
  }
}

template <class E>
void max_kernel(const PoolTaps& t, std::size_t channels, std::int32_t lo, std::int32_t hi, void* out_v) {
  auto* out = static_cast<std::uint8_t*>(out_v);
  const __m256i vlo = _mm256_set1_epi8(static_cast<char>(lo)), vhi = _mm256_set1_epi8(static_cast<char>(hi));
  std::size_t c = 0;
  for (; c + 64 <= channels; c += 64) max_block<E, 2>(t, c, vlo, vhi, out);
  if (c + 32 <= channels) {
    max_block<E, 1>(t, c, vlo, vhi, out);
    c += 32;
  }
  if (c < channels) max_portable<E>(t, c, channels, lo, hi, out);
}

#elif QPARITY_POOL_VECTOR_BITS == 512
// ---- AVX-512 (F, BW, VL) --------------------------------------------------------------------------

/// 32 channels widened to int16; `mask` selects the channels to load (the others read as 0).
template <class E>
QPARITY_POOL_INLINE __m512i widen32(const std::uint8_t* p, __mmask32 mask) {
  const __m256i b = _mm256_maskz_loadu_epi8(mask, p);
  if constexpr (E::kSigned) {
    return _mm512_cvtepi8_epi16(b);
  } else {
    return _mm512_cvtepu8_epi16(b);
  }
}
template <class E>
QPARITY_POOL_INLINE __m512i widen32(const std::uint8_t* p) {
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if constexpr (E::kSigned) {
    return _mm512_cvtepi8_epi16(b);
  } else {
    return _mm512_cvtepu8_epi16(b);
  }
}

/// int32 sums of kVecs * 32 channels from channel c (acc[2v]: channels 32v..32v+15, acc[2v+1]:
/// the next 16); kMasked: one vector whose lanes outside `mask` are 0.
template <class E, int kVecs, bool kMasked>
QPARITY_POOL_INLINE void sum_block(const PoolTaps& t, std::size_t c, __mmask32 mask, __m512i* acc) {
  __m512i s[kVecs];
  for (int v = 0; v < kVecs; ++v) s[v] = _mm512_setzero_si512();
  for (int v = 0; v < 2 * kVecs; ++v) acc[v] = _mm512_setzero_si512();
  std::size_t chunk = 0;
  auto flush = [&]() {
    for (int v = 0; v < kVecs; ++v) {
      acc[2 * v] = _mm512_add_epi32(acc[2 * v], _mm512_cvtepi16_epi32(_mm512_castsi512_si256(s[v])));
      acc[2 * v + 1] = _mm512_add_epi32(acc[2 * v + 1], _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(s[v], 1)));
      s[v] = _mm512_setzero_si512();
    }
  };
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::uint8_t* row = t.first + r * t.row_stride + c;
    for (std::size_t k = 0; k < t.cols; ++k) {
      const std::uint8_t* p = row + k * t.col_stride;
      for (int v = 0; v < kVecs; ++v) {
        s[v] = _mm512_add_epi16(s[v], kMasked ? widen32<E>(p + 32 * v, mask) : widen32<E>(p + 32 * v));
      }
      if (++chunk == kInt16ChunkTaps) {
        flush();
        chunk = 0;
      }
    }
  }
  flush();
}

struct HazConstants {
  __m512i half, neg_half, lo, hi;
  __m512 n;
};

QPARITY_POOL_INLINE __m512i haz_finish(__m512i acc, const HazConstants& k) {
  const __mmask16 pos = _mm512_cmpgt_epi32_mask(acc, _mm512_setzero_si512());
  const __m512i a = _mm512_add_epi32(acc, _mm512_mask_blend_epi32(pos, k.neg_half, k.half));
  const __m512i q = _mm512_cvttps_epi32(_mm512_div_ps(_mm512_cvtepi32_ps(a), k.n));
  return _mm512_min_epi32(_mm512_max_epi32(q, k.lo), k.hi);
}

template <class E>
void avg_kernel(const PoolTaps& t, std::size_t channels, std::int32_t lo, std::int32_t hi, void* out_v) {
  auto* out = static_cast<std::uint8_t*>(out_v);
  const std::int32_t n = static_cast<std::int32_t>(t.rows * t.cols);
  HazConstants k;
  k.half = _mm512_set1_epi32(n / 2);
  k.neg_half = _mm512_set1_epi32(-(n / 2));
  k.lo = _mm512_set1_epi32(lo);
  k.hi = _mm512_set1_epi32(hi);
  k.n = _mm512_set1_ps(static_cast<float>(n));
  std::size_t c = 0;
  // vpmovdb after the clamp: the values are in the element range, so truncation is exact.
  for (; c + 64 <= channels; c += 64) {
    __m512i acc[4];
    sum_block<E, 2, false>(t, c, 0, acc);
    for (int v = 0; v < 4; ++v) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c + 16 * v), _mm512_cvtepi32_epi8(haz_finish(acc[v], k)));
    }
  }
  if (c + 32 <= channels) {
    __m512i acc[2];
    sum_block<E, 1, false>(t, c, 0, acc);
    for (int v = 0; v < 2; ++v) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c + 16 * v), _mm512_cvtepi32_epi8(haz_finish(acc[v], k)));
    }
    c += 32;
  }
  if (c < channels) {
    const std::size_t rest = channels - c;  // 1..31
    const __mmask32 mask = static_cast<__mmask32>((std::uint32_t{1} << rest) - 1u);
    __m512i acc[2];
    sum_block<E, 1, true>(t, c, mask, acc);
    const __mmask16 m0 = static_cast<__mmask16>(mask & 0xFFFFu), m1 = static_cast<__mmask16>(mask >> 16);
    _mm512_mask_cvtepi32_storeu_epi8(out + c, m0, haz_finish(acc[0], k));
    if (m1 != 0) _mm512_mask_cvtepi32_storeu_epi8(out + c + 16, m1, haz_finish(acc[1], k));
  }
}

template <class E>
void sum_kernel(const PoolTaps& t, std::size_t channels, std::int32_t* out) {
  std::size_t c = 0;
  for (; c + 64 <= channels; c += 64) {
    __m512i acc[4];
    sum_block<E, 2, false>(t, c, 0, acc);
    for (int v = 0; v < 4; ++v) _mm512_storeu_si512(out + c + 16 * v, acc[v]);
  }
  if (c + 32 <= channels) {
    __m512i acc[2];
    sum_block<E, 1, false>(t, c, 0, acc);
    for (int v = 0; v < 2; ++v) _mm512_storeu_si512(out + c + 16 * v, acc[v]);
    c += 32;
  }
  if (c < channels) {
    const std::size_t rest = channels - c;
    const __mmask32 mask = static_cast<__mmask32>((std::uint32_t{1} << rest) - 1u);
    __m512i acc[2];
    sum_block<E, 1, true>(t, c, mask, acc);
    const __mmask16 m0 = static_cast<__mmask16>(mask & 0xFFFFu), m1 = static_cast<__mmask16>(mask >> 16);
    _mm512_mask_storeu_epi32(out + c, m0, acc[0]);
    if (m1 != 0) _mm512_mask_storeu_epi32(out + c + 16, m1, acc[1]);
  }
}

template <class E>
QPARITY_POOL_INLINE __m512i max_bytes(__m512i a, __m512i b) {
  if constexpr (E::kSigned) {
    return _mm512_max_epi8(a, b);
  } else {
    return _mm512_max_epu8(a, b);
  }
}
template <class E>
QPARITY_POOL_INLINE __m512i min_bytes(__m512i a, __m512i b) {
  if constexpr (E::kSigned) {
    return _mm512_min_epi8(a, b);
  } else {
    return _mm512_min_epu8(a, b);
  }
}

/// kVecs * 64 channels from c; kMasked: one vector, lanes outside `mask` neither read nor written.
template <class E, int kVecs, bool kMasked>
QPARITY_POOL_INLINE void max_block(const PoolTaps& t, std::size_t c, __mmask64 mask, __m512i lo, __m512i hi,
                                   std::uint8_t* out) {
  __m512i m[kVecs];
  for (int v = 0; v < kVecs; ++v) m[v] = _mm512_set1_epi8(static_cast<char>(E::kMin));
  for (std::size_t r = 0; r < t.rows; ++r) {
    const std::uint8_t* row = t.first + r * t.row_stride + c;
    for (std::size_t k = 0; k < t.cols; ++k) {
      const std::uint8_t* p = row + k * t.col_stride;
      for (int v = 0; v < kVecs; ++v) {
        const __m512i x = kMasked ? _mm512_maskz_loadu_epi8(mask, p + 64 * v) : _mm512_loadu_si512(p + 64 * v);
        m[v] = max_bytes<E>(m[v], x);
      }
    }
  }
  for (int v = 0; v < kVecs; ++v) {
    const __m512i y = min_bytes<E>(max_bytes<E>(m[v], lo), hi);
    if (kMasked) {
      _mm512_mask_storeu_epi8(out + c + 64 * v, mask, y);
    } else {
      _mm512_storeu_si512(out + c + 64 * v, y);
    }
  }
}

template <class E>
void max_kernel(const PoolTaps& t, std::size_t channels, std::int32_t lo, std::int32_t hi, void* out_v) {
  auto* out = static_cast<std::uint8_t*>(out_v);
  const __m512i vlo = _mm512_set1_epi8(static_cast<char>(lo)), vhi = _mm512_set1_epi8(static_cast<char>(hi));
  std::size_t c = 0;
  for (; c + 128 <= channels; c += 128) max_block<E, 2, false>(t, c, 0, vlo, vhi, out);
  if (c + 64 <= channels) {
    max_block<E, 1, false>(t, c, 0, vlo, vhi, out);
    c += 64;
  }
  if (c < channels) {
    const std::size_t rest = channels - c;  // 1..63
    const __mmask64 mask = static_cast<__mmask64>((std::uint64_t{1} << rest) - 1u);
    max_block<E, 1, true>(t, c, mask, vlo, vhi, out);
  }
}

#else
// ---- Portable -------------------------------------------------------------------------------------

template <class E>
void avg_kernel(const PoolTaps& t, std::size_t channels, std::int32_t lo, std::int32_t hi, void* out) {
  avg_portable<E>(t, 0, channels, lo, hi, static_cast<std::uint8_t*>(out));
}
template <class E>
void sum_kernel(const PoolTaps& t, std::size_t channels, std::int32_t* out) {
  sum_portable<E>(t, 0, channels, out);
}
template <class E>
void max_kernel(const PoolTaps& t, std::size_t channels, std::int32_t lo, std::int32_t hi, void* out) {
  max_portable<E>(t, 0, channels, lo, hi, static_cast<std::uint8_t*>(out));
}

#endif

/// The kernel set of this translation unit's ISA.
inline PoolingKernelSet kernel_set(const char* isa_name) {
  PoolingKernelSet k;
  k.isa_name = isa_name;
  k.max_s8 = &max_kernel<S8>;
  k.max_u8 = &max_kernel<U8>;
  k.avg_s8 = &avg_kernel<S8>;
  k.avg_u8 = &avg_kernel<U8>;
  k.sum_s8 = &sum_kernel<S8>;
  k.sum_u8 = &sum_kernel<U8>;
  return k;
}

}  // namespace QPARITY_POOL_ISA_NS
}  // namespace internal
}  // namespace qparity
