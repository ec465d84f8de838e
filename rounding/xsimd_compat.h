// INTERNAL: the one place qparity touches xsimd 8.1 (Debian libxsimd-dev), and every quirk of that
// version we work around. Not installed; xsimd is a private dependency of qparity::qparity.
//
// Include after rounding/simd_x86.h, in the same ISA translation unit (QPARITY_ISA_NS defined,
// QPARITY_X86_VECTOR_BITS derived there). The helpers are in the ISA namespace for the ODR reason explained
// in simd_x86.h; xsimd's own templates are instantiated with this TU's architecture tag only.
//
// Quirks of xsimd 8.1 handled here:
//  1. `nearbyint_as_int` is cvtps2dq: it rounds with the MXCSR mode and returns INT32_MIN for
//     every out-of-range value. We instead use `nearbyint` (round with an explicit
//     round-to-nearest-even immediate), `to_int` (truncating conversion, exact on integral
//     values) and fix positive overflow ourselves, which is detail::round_half_even_saturating.
//  2. There is no `batch_bool_cast` in 8.1; a float comparison mask becomes an integer mask
//     through its register type (a vector on SSE/AVX2, a __mmask16 on AVX-512).
//  3. The AVX-512 architecture tag to use with -mavx512f/bw/dq/vl is `avx512bw` (8.1 has no
//     avx512vl tag); SSE4.1 is `sse4_1`, AVX2 is `avx2` (we do not enable FMA, so not fma3<avx2>).
//  4. Whether `xsimd::fma` (fms, fnma, ...) fuses depends on the architecture tag: 8.1 fuses only
//     for the fma3<...>/fma4 tags and silently computes x * y + z with two roundings for
//     sse4_1, avx2 and avx512bw. F32-ZPF must never fuse (tests/simd: Vectors.
//     ZeroPointInsideIsNotFused), so we never call it; the project compiles with
//     -ffp-contract=off so that `a * b + c` on batches stays two roundings.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstdint>

#include "rounding/simd_x86.h"

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

#if QPARITY_X86_VECTOR_BITS == 128
using XsimdArch = xsimd::sse4_1;
#elif QPARITY_X86_VECTOR_BITS == 256
using XsimdArch = xsimd::avx2;
#else
using XsimdArch = xsimd::avx512bw;
#endif

using FloatBatch = xsimd::batch<float, XsimdArch>;
using Int32Batch = xsimd::batch<std::int32_t, XsimdArch>;
static_assert(FloatBatch::size == Ops::kLanes, "xsimd batch width must match the Ops width");

/// float(x) per lane, rounded to nearest even under the default MXCSR (like static_cast<float>).
QPARITY_SIMD_INLINE FloatBatch int_to_float(Ops::I x) { return xsimd::to_float(Int32Batch(x)); }

/// Round half to even, saturating to [INT32_MIN, INT32_MAX]: the vector form of
/// qparity::detail::round_half_even_saturating (NaN cannot occur: scales are finite).
QPARITY_SIMD_INLINE Ops::I round_half_even_saturating(FloatBatch v) {
  const FloatBatch limit(2147483648.0f);  // 2^31
#if QPARITY_X86_VECTOR_BITS == 512
  // One instruction with an embedded rounding mode: independent of MXCSR, like the scalar code.
  const __m512i r = _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __mmask16 over = _mm512_cmp_ps_mask(v, limit, _CMP_GE_OQ);
  return _mm512_mask_mov_epi32(r, over, _mm512_set1_epi32(2147483647));
#else
  // Quirk 1: nearbyint rounds with an explicit RNE immediate; to_int truncates, exact here.
  // Out-of-range values convert to 0x80000000, right for v < -2^31 and flipped to 0x7FFFFFFF
  // for v >= 2^31 by XOR with the all-ones comparison mask (quirk 2).
  const Int32Batch r = xsimd::to_int(xsimd::nearbyint(v));
  const Ops::F over = (v >= limit);
#if QPARITY_X86_VECTOR_BITS == 128
  return _mm_xor_si128(r, _mm_castps_si128(over));
#else
  return _mm256_xor_si256(r, _mm256_castps_si256(over));
#endif
#endif
}

/// RNE(v) for v already inside [-2^24, 2^24] (a clamped value, F32-ZPF's float_core_clamped): no
/// saturation fix-up (1 instruction on AVX-512, 2 on SSE4.1 / AVX2 instead of 3 / 4).
QPARITY_SIMD_INLINE Ops::I round_half_even_in_range(FloatBatch v) {
#if QPARITY_X86_VECTOR_BITS == 512
  return _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
  return xsimd::to_int(xsimd::nearbyint(v));
#endif
}

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
