// INTERNAL: the x86 vector operations the requantization cores are written with, one `Ops` struct
// per ISA path. Not installed.
//
// ODR: this header defines inline functions whose machine code depends on the -m flags of the
// translation unit that includes it. Every definition therefore lives in the namespace
// qparity::internal::QPARITY_ISA_NS, which each ISA translation unit names differently
// (sse41, avx2, avx512), so no inline symbol is ever shared between code built for different ISAs.
// Include it only from ISA translation units (those CMake compiles with an ISA's flags, which define
// QPARITY_TARGET_HAS_<name> for the unit's ISA and each ancestor of include/qparity/isa_list.h),
// after defining
//   QPARITY_ISA_NS     the unit's namespace (sse41, avx2, avx512, gemm_epi_avx2, ...)
// The register width follows the unit's ISA: 512 bits from avx512 on, 256 from avx2, 128 for sse41
// (QPARITY_X86_VECTOR_BITS, derived below).
//
// Conventions. `I` is an integer register of kLanes int32 lanes; the same register is also read
// as kLanes / 2 int64 lanes ("64-bit lanes"). The 64-bit steps of the cores work on the even int32
// lanes (0, 2, ...) in place and on the odd ones after odd_to_even(); combine() puts the low 32 bits
// of both halves back in lane order.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#if !defined(QPARITY_ISA_NS)
#error "define QPARITY_ISA_NS before including rounding/simd_x86.h"
#endif

#if defined(QPARITY_TARGET_HAS_avx512)
#define QPARITY_X86_VECTOR_BITS 512
#if !(defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__))
#error "an avx512 unit must be compiled with its flags (-mavx512f -mavx512bw -mavx512dq -mavx512vl)"
#endif
#elif defined(QPARITY_TARGET_HAS_avx2)
#define QPARITY_X86_VECTOR_BITS 256
#if !defined(__AVX2__)
#error "an avx2 unit must be compiled with its flags (-mavx2)"
#endif
#elif defined(QPARITY_TARGET_HAS_sse41)
#define QPARITY_X86_VECTOR_BITS 128
#if !defined(__SSE4_1__)
#error "an sse41 unit must be compiled with its flags (-msse4.1)"
#endif
#else
#error "rounding/simd_x86.h needs an x86 ISA translation unit (QPARITY_TARGET_HAS_sse41 or above)"
#endif

/// Hot-path helpers are force-inlined: an out-of-line call that passes vector registers through
/// memory costs more than the helper itself (GCC otherwise declines to inline some of them).
#if defined(__GNUC__)
#define QPARITY_SIMD_INLINE inline __attribute__((always_inline))
#else
#define QPARITY_SIMD_INLINE inline
#endif

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

/// memcpy of `bytes` < kBound <= 64 bytes as a few fixed-size moves (a variable-size memcpy is a
/// library call). kBound lets the compiler drop the moves that cannot happen.
template <std::size_t kBound>
QPARITY_SIMD_INLINE void copy_small(void* dst, const void* src, std::size_t bytes) {
  static_assert(kBound <= 64, "copy_small handles fewer than 64 bytes");
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (kBound > 32 && (bytes & 32)) std::memcpy(d, s, 32), d += 32, s += 32;
  if (kBound > 16 && (bytes & 16)) std::memcpy(d, s, 16), d += 16, s += 16;
  if (kBound > 8 && (bytes & 8)) std::memcpy(d, s, 8), d += 8, s += 8;
  if (kBound > 4 && (bytes & 4)) std::memcpy(d, s, 4), d += 4, s += 4;
  if (kBound > 2 && (bytes & 2)) std::memcpy(d, s, 2), d += 2, s += 2;
  if (kBound > 1 && (bytes & 1)) *d = *s;
}

/// Partial vectors through a stack buffer, for ISAs without masked byte/word stores.
/// Lanes [0, n) from p, the others 0; n < kLanes.
template <class Ops>
QPARITY_SIMD_INLINE typename Ops::I buffered_load_partial(const std::int32_t* p, std::size_t n) {
  alignas(64) std::int32_t buf[Ops::kLanes] = {};
  copy_small<Ops::kLanes * sizeof(std::int32_t)>(buf, p, n * sizeof(std::int32_t));
  return Ops::load(buf);
}
/// Stores lanes [0, n) of v, narrowed like Ops::store_out.
template <class Ops, class Out>
QPARITY_SIMD_INLINE void buffered_store_out_partial(Out* p, typename Ops::I v, std::size_t n) {
  alignas(64) Out buf[Ops::kLanes];
  Ops::store_out(buf, v);
  copy_small<Ops::kLanes * sizeof(Out)>(p, buf, n * sizeof(Out));
}

#if QPARITY_X86_VECTOR_BITS == 128
// ---------------------------------------------------------------------------------------------
// SSE4.1: 4 lanes. No 64-bit arithmetic shift and no per-lane shift counts: the cores use the
// "bias by 2^63, shift logically, subtract 2^(63-s)" form (kHasSra64 = false) or, when every
// shift is >= 32 and uniform, an arithmetic shift of the high halves; per-lane 64-bit shifts are
// two shifts and a blend, and the per-lane pre-shift is a multiply by 2^L.
struct Ops {
  using I = __m128i;
  using F = __m128;
  static constexpr int kLanes = 4;
  static constexpr bool kHasSra64 = false;
  static constexpr bool kPreShiftByMultiply = true;

  QPARITY_SIMD_INLINE static I load_partial(const std::int32_t* p, std::size_t n) {
    return buffered_load_partial<Ops>(p, n);
  }
  template <class Out>
  QPARITY_SIMD_INLINE static void store_out_partial(Out* p, I v, std::size_t n) {
    buffered_store_out_partial<Ops>(p, v, n);
  }

  QPARITY_SIMD_INLINE static I load(const void* p) { return _mm_loadu_si128(static_cast<const I*>(p)); }
  QPARITY_SIMD_INLINE static void store(void* p, I v) { _mm_storeu_si128(static_cast<I*>(p), v); }
  QPARITY_SIMD_INLINE static I set1(std::int32_t v) { return _mm_set1_epi32(v); }
  QPARITY_SIMD_INLINE static I set1_64(std::int64_t v) { return _mm_set1_epi64x(v); }
  QPARITY_SIMD_INLINE static I zero() { return _mm_setzero_si128(); }

  QPARITY_SIMD_INLINE static I add32(I a, I b) { return _mm_add_epi32(a, b); }
  QPARITY_SIMD_INLINE static I sub32(I a, I b) { return _mm_sub_epi32(a, b); }
  QPARITY_SIMD_INLINE static I min32(I a, I b) { return _mm_min_epi32(a, b); }
  QPARITY_SIMD_INLINE static I max32(I a, I b) { return _mm_max_epi32(a, b); }
  /// x * 2^L mod 2^32 per lane; `pow2` holds 2^L (kPreShiftByMultiply).
  QPARITY_SIMD_INLINE static I shl32(I x, I pow2) { return _mm_mullo_epi32(x, pow2); }

  QPARITY_SIMD_INLINE static I odd_to_even(I x) { return _mm_srli_epi64(x, 32); }
  QPARITY_SIMD_INLINE static I mul_even(I a, I b) { return _mm_mul_epi32(a, b); }
  /// Unsigned products of the even lanes (|INT32_MIN| = 2^31 read as unsigned).
  QPARITY_SIMD_INLINE static I mul_even_u(I a, I b) { return _mm_mul_epu32(a, b); }
  /// |v| per lane, INT32_MIN staying 0x80000000 (2^31 for mul_even_u).
  QPARITY_SIMD_INLINE static I abs32(I v) { return _mm_abs_epi32(v); }
  /// -y where x < 0, y where x > 0; callers have y = 0 where x = 0 (PSIGND gives 0 there).
  QPARITY_SIMD_INLINE static I copy_sign32(I y, I x) { return _mm_sign_epi32(y, x); }
  QPARITY_SIMD_INLINE static I add64(I a, I b) { return _mm_add_epi64(a, b); }
  /// -1 in every 64-bit lane whose value is negative, else 0.
  QPARITY_SIMD_INLINE static I sign64(I v) { return _mm_shuffle_epi32(_mm_srai_epi32(v, 31), _MM_SHUFFLE(3, 3, 1, 1)); }
  /// v + (v < 0 ? n : 0) per 64-bit lane.
  QPARITY_SIMD_INLINE static I add_if_negative64(I v, I n) { return _mm_add_epi64(v, _mm_and_si128(sign64(v), n)); }
  /// v - 1 in every 64-bit lane where (v & bit) == 0.
  QPARITY_SIMD_INLINE static I dec_if_clear64(I v, I bit) {
    return _mm_add_epi64(v, _mm_cmpeq_epi64(_mm_and_si128(v, bit), _mm_setzero_si128()));
  }
  /// v + c - 1 in every 64-bit lane where (v & bit) == 0, else v + c (`ones`: all bits set, unused
  /// here).
  QPARITY_SIMD_INLINE static I add_dec_if_clear64(I v, I c, I bit, I) { return add64(dec_if_clear64(v, bit), c); }
  /// Logical 64-bit right shift; `count` holds the count in each 64-bit lane. kUniform: every lane
  /// has the same count (per-tensor), so one shift suffices.
  template <bool kUniform>
  QPARITY_SIMD_INLINE static I shr64(I v, I count) {
    if (kUniform) return _mm_srl_epi64(v, count);
    const I lo = _mm_srl_epi64(v, count);
    const I hi = _mm_srl_epi64(v, _mm_unpackhi_epi64(count, count));
    return _mm_blend_epi16(lo, hi, 0xF0);
  }
  /// Low 32 bits of the even-lane results and of the odd-lane results, back in lane order.
  QPARITY_SIMD_INLINE static I combine(I even, I odd) { return _mm_blend_epi16(even, _mm_slli_epi64(odd, 32), 0xCC); }
  /// The lane selector of combine_high and combine_bits31 (AVX-512: a mask register; here the
  /// blend's immediate does it).
  struct CombineMask {};
  QPARITY_SIMD_INLINE static CombineMask combine_mask() { return {}; }
  /// High 32 bits of the even-lane and of the odd-lane 64-bit values, back in lane order.
  QPARITY_SIMD_INLINE static I combine_high(I even, I odd, CombineMask) {
    return _mm_blend_epi16(_mm_srli_epi64(even, 32), odd, 0xCC);
  }
  /// Bits [31, 63) of the even-lane and of the odd-lane 64-bit values, back in lane order.
  QPARITY_SIMD_INLINE static I combine_bits31(I even, I odd, CombineMask) {
    return _mm_blend_epi16(_mm_srli_epi64(even, 31), _mm_slli_epi64(odd, 1), 0xCC);
  }
  template <int kCount>
  QPARITY_SIMD_INLINE static I sra32_imm(I v) { return _mm_srai_epi32(v, kCount); }
  /// 32-bit arithmetic right shift. No per-lane counts before AVX2: uniform only, count in the
  /// low 64 bits (set_sra32_count).
  static constexpr bool kHasVarShift32 = false;
  QPARITY_SIMD_INLINE static I set_sra32_count(std::int32_t v) { return _mm_set1_epi64x(v); }
  template <bool kUniform>
  QPARITY_SIMD_INLINE static I sra32(I v, I count) {
    static_assert(kUniform, "SSE4.1 has no per-lane 32-bit shifts");
    return _mm_sra_epi32(v, count);
  }

  // Narrowing stores of values already clamped into the destination type's range.
  QPARITY_SIMD_INLINE static void store_out(std::int32_t* p, I v) { store(p, v); }
  QPARITY_SIMD_INLINE static void store_out(std::int16_t* p, I v) { _mm_storel_epi64(reinterpret_cast<I*>(p), _mm_packs_epi32(v, v)); }
  QPARITY_SIMD_INLINE static void store_out(std::int8_t* p, I v) {
    const I b = _mm_packs_epi16(_mm_packs_epi32(v, v), _mm_setzero_si128());
    const std::int32_t w = _mm_cvtsi128_si32(b);
    std::memcpy(p, &w, 4);
  }
  QPARITY_SIMD_INLINE static void store_out(std::uint8_t* p, I v) {
    const I b = _mm_packus_epi16(_mm_packs_epi32(v, v), _mm_setzero_si128());
    const std::int32_t w = _mm_cvtsi128_si32(b);
    std::memcpy(p, &w, 4);
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int32_t* p, I a, I b, I c, I d) {
    store(p, a), store(p + 4, b), store(p + 8, c), store(p + 12, d);
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int16_t* p, I a, I b, I c, I d) {
    store(p, _mm_packs_epi32(a, b));
    store(p + 8, _mm_packs_epi32(c, d));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int8_t* p, I a, I b, I c, I d) {
    store(p, _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::uint8_t* p, I a, I b, I c, I d) {
    store(p, _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
  }
};

#elif QPARITY_X86_VECTOR_BITS == 256
// ---------------------------------------------------------------------------------------------
// AVX2: 8 lanes, per-lane shift counts (vpsrlvq, vpsllvd) but no 64-bit arithmetic shift.
struct Ops {
  using I = __m256i;
  using F = __m256;
  static constexpr int kLanes = 8;
  static constexpr bool kHasSra64 = false;
  static constexpr bool kPreShiftByMultiply = false;

  QPARITY_SIMD_INLINE static I load_partial(const std::int32_t* p, std::size_t n) {
    return buffered_load_partial<Ops>(p, n);
  }
  template <class Out>
  QPARITY_SIMD_INLINE static void store_out_partial(Out* p, I v, std::size_t n) {
    buffered_store_out_partial<Ops>(p, v, n);
  }

  QPARITY_SIMD_INLINE static I load(const void* p) { return _mm256_loadu_si256(static_cast<const I*>(p)); }
  QPARITY_SIMD_INLINE static void store(void* p, I v) { _mm256_storeu_si256(static_cast<I*>(p), v); }
  QPARITY_SIMD_INLINE static I set1(std::int32_t v) { return _mm256_set1_epi32(v); }
  QPARITY_SIMD_INLINE static I set1_64(std::int64_t v) { return _mm256_set1_epi64x(v); }
  QPARITY_SIMD_INLINE static I zero() { return _mm256_setzero_si256(); }

  QPARITY_SIMD_INLINE static I add32(I a, I b) { return _mm256_add_epi32(a, b); }
  QPARITY_SIMD_INLINE static I sub32(I a, I b) { return _mm256_sub_epi32(a, b); }
  QPARITY_SIMD_INLINE static I min32(I a, I b) { return _mm256_min_epi32(a, b); }
  QPARITY_SIMD_INLINE static I max32(I a, I b) { return _mm256_max_epi32(a, b); }
  QPARITY_SIMD_INLINE static I shl32(I x, I count) { return _mm256_sllv_epi32(x, count); }

  QPARITY_SIMD_INLINE static I odd_to_even(I x) { return _mm256_srli_epi64(x, 32); }
  QPARITY_SIMD_INLINE static I mul_even(I a, I b) { return _mm256_mul_epi32(a, b); }
  QPARITY_SIMD_INLINE static I mul_even_u(I a, I b) { return _mm256_mul_epu32(a, b); }
  QPARITY_SIMD_INLINE static I abs32(I v) { return _mm256_abs_epi32(v); }
  QPARITY_SIMD_INLINE static I copy_sign32(I y, I x) { return _mm256_sign_epi32(y, x); }  // (see SSE4.1)
  QPARITY_SIMD_INLINE static I add64(I a, I b) { return _mm256_add_epi64(a, b); }
  QPARITY_SIMD_INLINE static I sign64(I v) {
    return _mm256_shuffle_epi32(_mm256_srai_epi32(v, 31), _MM_SHUFFLE(3, 3, 1, 1));
  }
  QPARITY_SIMD_INLINE static I add_if_negative64(I v, I n) { return _mm256_add_epi64(v, _mm256_and_si256(sign64(v), n)); }
  QPARITY_SIMD_INLINE static I dec_if_clear64(I v, I bit) {
    return _mm256_add_epi64(v, _mm256_cmpeq_epi64(_mm256_and_si256(v, bit), _mm256_setzero_si256()));
  }
  /// v + c - 1 in every 64-bit lane where (v & bit) == 0, else v + c (`ones`: all bits set, unused
  /// here).
  QPARITY_SIMD_INLINE static I add_dec_if_clear64(I v, I c, I bit, I) { return add64(dec_if_clear64(v, bit), c); }
  template <bool kUniform>
  QPARITY_SIMD_INLINE static I shr64(I v, I count) { return _mm256_srlv_epi64(v, count); }
  QPARITY_SIMD_INLINE static I combine(I even, I odd) { return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA); }
  struct CombineMask {};  // (see the SSE4.1 Ops)
  QPARITY_SIMD_INLINE static CombineMask combine_mask() { return {}; }
  QPARITY_SIMD_INLINE static I combine_high(I even, I odd, CombineMask) {
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  }
  QPARITY_SIMD_INLINE static I combine_bits31(I even, I odd, CombineMask) {
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  }
  template <int kCount>
  QPARITY_SIMD_INLINE static I sra32_imm(I v) { return _mm256_srai_epi32(v, kCount); }
  static constexpr bool kHasVarShift32 = true;
  QPARITY_SIMD_INLINE static I set_sra32_count(std::int32_t v) { return _mm256_set1_epi32(v); }
  template <bool kUniform>
  QPARITY_SIMD_INLINE static I sra32(I v, I count) { return _mm256_srav_epi32(v, count); }

  QPARITY_SIMD_INLINE static void store_out(std::int32_t* p, I v) { store(p, v); }
  QPARITY_SIMD_INLINE static void store_out(std::int16_t* p, I v) {
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packs_epi32(lo, hi));
  }
  QPARITY_SIMD_INLINE static void store_out(std::int8_t* p, I v) {
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    const __m128i w = _mm_packs_epi32(lo, hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi16(w, w));
  }
  QPARITY_SIMD_INLINE static void store_out(std::uint8_t* p, I v) {
    const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    const __m128i w = _mm_packs_epi32(lo, hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(w, w));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int32_t* p, I a, I b, I c, I d) {
    store(p, a), store(p + 8, b), store(p + 16, c), store(p + 24, d);
  }
  // packs works within 128-bit halves; the permutes restore element order.
  QPARITY_SIMD_INLINE static void store_out4(std::int16_t* p, I a, I b, I c, I d) {
    store(p, _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), _MM_SHUFFLE(3, 1, 2, 0)));
    store(p + 16, _mm256_permute4x64_epi64(_mm256_packs_epi32(c, d), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int8_t* p, I a, I b, I c, I d) {
    const I v = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    store(p, _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::uint8_t* p, I a, I b, I c, I d) {
    const I v = _mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    store(p, _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  }
};

#elif QPARITY_X86_VECTOR_BITS == 512
// ---------------------------------------------------------------------------------------------
// AVX-512 (F+BW+DQ+VL): 16 lanes, 64-bit arithmetic shifts with per-lane counts (vpsravq), so the
// cores shift the signed value directly (kHasSra64 = true); sign and bit tests go through masks.
struct Ops {
  using I = __m512i;
  using F = __m512;
  static constexpr int kLanes = 16;
  static constexpr bool kHasSra64 = true;
  static constexpr bool kPreShiftByMultiply = false;

  QPARITY_SIMD_INLINE static I load(const void* p) { return _mm512_loadu_si512(p); }
  QPARITY_SIMD_INLINE static void store(void* p, I v) { _mm512_storeu_si512(p, v); }
  QPARITY_SIMD_INLINE static I set1(std::int32_t v) { return _mm512_set1_epi32(v); }
  QPARITY_SIMD_INLINE static I set1_64(std::int64_t v) { return _mm512_set1_epi64(v); }
  QPARITY_SIMD_INLINE static I zero() { return _mm512_setzero_si512(); }

  QPARITY_SIMD_INLINE static I add32(I a, I b) { return _mm512_add_epi32(a, b); }
  QPARITY_SIMD_INLINE static I sub32(I a, I b) { return _mm512_sub_epi32(a, b); }
  QPARITY_SIMD_INLINE static I min32(I a, I b) { return _mm512_min_epi32(a, b); }
  QPARITY_SIMD_INLINE static I max32(I a, I b) { return _mm512_max_epi32(a, b); }
  QPARITY_SIMD_INLINE static I shl32(I x, I count) { return _mm512_sllv_epi32(x, count); }

  QPARITY_SIMD_INLINE static I odd_to_even(I x) { return _mm512_srli_epi64(x, 32); }
  QPARITY_SIMD_INLINE static I mul_even(I a, I b) { return _mm512_mul_epi32(a, b); }
  QPARITY_SIMD_INLINE static I mul_even_u(I a, I b) { return _mm512_mul_epu32(a, b); }
  QPARITY_SIMD_INLINE static I abs32(I v) { return _mm512_abs_epi32(v); }
  /// No VPSIGND at 512 bits: x's sign bits into a mask (VPMOVD2M) and a masked 0 - y.
  QPARITY_SIMD_INLINE static I copy_sign32(I y, I x) {
    return _mm512_mask_sub_epi32(y, _mm512_movepi32_mask(x), _mm512_setzero_si512(), y);
  }
  QPARITY_SIMD_INLINE static I add64(I a, I b) { return _mm512_add_epi64(a, b); }
  // Sign through an arithmetic shift, not a mask register: vpmovq2m and the masked add compete
  // with VPDPBUSD for the multiply pipes on Zen 4 (measured: 8 of them cost ~10 cycles next to
  // 16 VPDPBUSD zmm, where 16 shifts / ands / adds cost nothing), which matters when the epilogue
  // overlaps the micro-kernel.
  QPARITY_SIMD_INLINE static I add_if_negative64(I v, I n) {
    return _mm512_add_epi64(v, _mm512_and_si512(_mm512_srai_epi64(v, 63), n));
  }
  QPARITY_SIMD_INLINE static I dec_if_clear64(I v, I bit) {
    return _mm512_mask_add_epi64(v, _mm512_testn_epi64_mask(v, bit), v, _mm512_set1_epi64(-1));
  }
  /// v + c - [(v & bit) == 0] per 64-bit lane: the test on v, then the masked decrement merged
  /// into the fresh sum v + c (merging into v, still live for the add, cost GCC 12 a register move
  /// per half), with the all-ones register `ones` the caller holds (IntRegs::ones; as a literal
  /// GCC 12 rebuilt it with a vpternlogd for every vector).
  QPARITY_SIMD_INLINE static I add_dec_if_clear64(I v, I c, I bit, I ones) {
    const __mmask8 clear = _mm512_testn_epi64_mask(v, bit);
    const I t = _mm512_add_epi64(v, c);
    return _mm512_mask_add_epi64(t, clear, t, ones);
  }
  /// Arithmetic 64-bit right shift by per-lane counts.
  template <bool kUniform>
  QPARITY_SIMD_INLINE static I shr64(I v, I count) { return _mm512_srav_epi64(v, count); }
  // The high-half mode (every s >= 32): combine_high + one 32-bit shift, 2 instructions against
  // the 3 of two vpsravq + combine.
  static constexpr bool kHasVarShift32 = true;
  /// The lane selector of combine_high and combine_bits31: here the mask of the even 32-bit lanes
  /// (0x5555), opaque to the compiler so that a kernel holding it keeps it in a mask register (as
  /// a constant, GCC 12 re-materialised it, mov + kmovw, for every vector of the fused GEMM
  /// epilogue). The even mask because that is the one VPSHUFD merges with: holding the odd one
  /// cost a KNOTW per vector, which GCC 12 did not hoist out of the epilogue loops (perf annotate
  /// of the AMX GEMM's epilogue: 1 of its 14 instructions per vector; 907 KNOTW in gemm_bench).
  using CombineMask = __mmask16;
  QPARITY_SIMD_INLINE static CombineMask combine_mask() {
    __mmask16 m = 0x5555;
    asm("" : "+k"(m));
    return m;
  }
  /// The high dwords of even's and odd's 64-bit lanes, in order: odd's are in place, even's come
  /// down by a VPSHUFD merged into the even lanes (one instruction; shift + blend was two).
  QPARITY_SIMD_INLINE static I combine_high(I even, I odd, CombineMask even_lanes) {
    return _mm512_mask_shuffle_epi32(odd, even_lanes, even, _MM_PERM_DDBB);
  }
  QPARITY_SIMD_INLINE static I combine_bits31(I even, I odd, CombineMask even_lanes) {
    return _mm512_mask_blend_epi32(even_lanes, _mm512_slli_epi64(odd, 1),
                                   _mm512_srli_epi64(even, 31));
  }
  template <int kCount>
  QPARITY_SIMD_INLINE static I sra32_imm(I v) { return _mm512_srai_epi32(v, kCount); }
  QPARITY_SIMD_INLINE static I set_sra32_count(std::int32_t v) { return _mm512_set1_epi32(v); }
  template <bool kUniform>
  QPARITY_SIMD_INLINE static I sra32(I v, I count) { return _mm512_srav_epi32(v, count); }
  QPARITY_SIMD_INLINE static I combine(I even, I odd) {
    const I idx = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
    return _mm512_permutex2var_epi32(even, idx, odd);
  }

  // Partial vectors with masked loads and stores.
  QPARITY_SIMD_INLINE static __mmask16 first(std::size_t n) {
    return static_cast<__mmask16>((1u << n) - 1u);
  }
  QPARITY_SIMD_INLINE static I load_partial(const std::int32_t* p, std::size_t n) {
    return _mm512_maskz_loadu_epi32(first(n), p);
  }
  // The narrowing stores saturate to Out's range, like the SSE4.1 / AVX2 packs: VPMOVSDB /
  // VPMOVSDW, and for uint8 VPMOVUSDB after a max with 0 (it saturates unsigned lanes). The
  // clamped output stage never needs it; the saturating one (gemm_epilogue_x86.h BlockVectors)
  // relies on it.
  QPARITY_SIMD_INLINE static void store_out_partial(std::int32_t* p, I v, std::size_t n) {
    _mm512_mask_storeu_epi32(p, first(n), v);
  }
  QPARITY_SIMD_INLINE static void store_out_partial(std::int16_t* p, I v, std::size_t n) {
    _mm512_mask_cvtsepi32_storeu_epi16(p, first(n), v);
  }
  QPARITY_SIMD_INLINE static void store_out_partial(std::int8_t* p, I v, std::size_t n) {
    _mm512_mask_cvtsepi32_storeu_epi8(p, first(n), v);
  }
  QPARITY_SIMD_INLINE static void store_out_partial(std::uint8_t* p, I v, std::size_t n) {
    _mm512_mask_cvtusepi32_storeu_epi8(p, first(n), _mm512_max_epi32(v, zero()));
  }

  QPARITY_SIMD_INLINE static void store_out(std::int32_t* p, I v) { store(p, v); }
  QPARITY_SIMD_INLINE static void store_out(std::int16_t* p, I v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtsepi32_epi16(v));
  }
  QPARITY_SIMD_INLINE static void store_out(std::int8_t* p, I v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtsepi32_epi8(v));
  }
  QPARITY_SIMD_INLINE static void store_out(std::uint8_t* p, I v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, zero())));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int32_t* p, I a, I b, I c, I d) {
    store(p, a), store(p + 16, b), store(p + 32, c), store(p + 48, d);
  }
  // packs works within 128-bit quarters; the permutes restore element order.
  QPARITY_SIMD_INLINE static void store_out4(std::int16_t* p, I a, I b, I c, I d) {
    const I idx = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    store(p, _mm512_permutexvar_epi64(idx, _mm512_packs_epi32(a, b)));
    store(p + 32, _mm512_permutexvar_epi64(idx, _mm512_packs_epi32(c, d)));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::int8_t* p, I a, I b, I c, I d) {
    const I v = _mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
    store(p, _mm512_permutexvar_epi32(
                 _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), v));
  }
  QPARITY_SIMD_INLINE static void store_out4(std::uint8_t* p, I a, I b, I c, I d) {
    const I v = _mm512_packus_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
    store(p, _mm512_permutexvar_epi32(
                 _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), v));
  }
};

#else
#error "unknown QPARITY_X86_VECTOR_BITS"
#endif

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
