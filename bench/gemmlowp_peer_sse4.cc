// The gemmlowp peer, SSE4.1 variant (compiled with -msse4.1; see bench/CMakeLists.txt).
//
// gemmlowp's headers define inline functions with external linkage. The SSE4.1 and AVX2 peers
// include them with different -m flags, so their out-of-line copies would be merged by the linker
// (ODR/COMDAT folding) and the SSE4.1 path could end up calling a VEX-encoded copy. Renaming the
// namespace per translation unit keeps each copy private to its ISA.
#define gemmlowp qparity_bench_gemmlowp_sse4
#include "fixedpoint/fixedpoint.h"
#undef gemmlowp

#if !defined(GEMMLOWP_SSE4) || defined(GEMMLOWP_AVX2)
#error "gemmlowp_peer_sse4.cc must be compiled with -msse4.1 and without GEMMLOWP_ENABLE_AVX2"
#endif

#include <smmintrin.h>

#include "bench/gemmlowp_peer.h"

namespace qparity_bench {

namespace gl = ::qparity_bench_gemmlowp_sse4;

void gemmlowp_requantize_sse4(const GemmlowpPeerParams& p, const std::int32_t* acc, std::size_t n,
                              std::int8_t* dst) {
  const __m128i multiplier = gl::Dup<__m128i>(p.multiplier);
  const __m128i zero_point = gl::Dup<__m128i>(p.zero_point);
  const __m128i qmin = gl::Dup<__m128i>(p.qmin);
  const __m128i qmax = gl::Dup<__m128i>(p.qmax);
  const int shift = p.right_shift;
  const auto requantize = [&](__m128i x) {
    x = gl::SaturatingRoundingDoublingHighMul(x, multiplier);
    x = gl::RoundingDivideByPOT(x, shift);
    x = gl::Add(x, zero_point);
    return _mm_min_epi32(_mm_max_epi32(x, qmin), qmax);
  };
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const auto* in = reinterpret_cast<const __m128i*>(acc + i);
    const __m128i y0 = requantize(_mm_loadu_si128(in + 0));
    const __m128i y1 = requantize(_mm_loadu_si128(in + 1));
    const __m128i y2 = requantize(_mm_loadu_si128(in + 2));
    const __m128i y3 = requantize(_mm_loadu_si128(in + 3));
    const __m128i y = _mm_packs_epi16(_mm_packs_epi32(y0, y1), _mm_packs_epi32(y2, y3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), y);
  }
  for (; i < n; ++i) {
    std::int32_t x = gl::SaturatingRoundingDoublingHighMul(acc[i], p.multiplier);
    x = gl::RoundingDivideByPOT(x, shift) + p.zero_point;
    x = x < p.qmin ? p.qmin : (x > p.qmax ? p.qmax : x);
    dst[i] = static_cast<std::int8_t>(x);
  }
}

}  // namespace qparity_bench
