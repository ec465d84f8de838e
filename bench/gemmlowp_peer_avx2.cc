// The gemmlowp peer, AVX2 variant (compiled with -mavx2 and GEMMLOWP_ENABLE_AVX2, which makes
// fixedpoint.h pull in fixedpoint_avx.h; see bench/CMakeLists.txt). The namespace is renamed per
// translation unit for the reason given in gemmlowp_peer_sse4.cc.
#define gemmlowp qparity_bench_gemmlowp_avx2
#include "fixedpoint/fixedpoint.h"
#undef gemmlowp

#if !defined(GEMMLOWP_AVX2)
#error "gemmlowp_peer_avx2.cc must be compiled with -mavx2 and GEMMLOWP_ENABLE_AVX2"
#endif

#include <immintrin.h>

#include "bench/gemmlowp_peer.h"

namespace qparity_bench {

namespace gl = ::qparity_bench_gemmlowp_avx2;

void gemmlowp_requantize_avx2(const GemmlowpPeerParams& p, const std::int32_t* acc, std::size_t n,
                              std::int8_t* dst) {
  const __m256i multiplier = gl::Dup<__m256i>(p.multiplier);
  const __m256i zero_point = gl::Dup<__m256i>(p.zero_point);
  const __m256i qmin = gl::Dup<__m256i>(p.qmin);
  const __m256i qmax = gl::Dup<__m256i>(p.qmax);
  // The two in-lane packs leave the 4-byte groups in the order r0a r1a r2a r3a | r0b r1b r2b r3b.
  const __m256i unshuffle = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const int shift = p.right_shift;
  const auto requantize = [&](__m256i x) {
    x = gl::SaturatingRoundingDoublingHighMul(x, multiplier);
    x = gl::RoundingDivideByPOT(x, shift);
    x = gl::Add(x, zero_point);
    return _mm256_min_epi32(_mm256_max_epi32(x, qmin), qmax);
  };
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const auto* in = reinterpret_cast<const __m256i*>(acc + i);
    const __m256i y0 = requantize(_mm256_loadu_si256(in + 0));
    const __m256i y1 = requantize(_mm256_loadu_si256(in + 1));
    const __m256i y2 = requantize(_mm256_loadu_si256(in + 2));
    const __m256i y3 = requantize(_mm256_loadu_si256(in + 3));
    __m256i y = _mm256_packs_epi16(_mm256_packs_epi32(y0, y1), _mm256_packs_epi32(y2, y3));
    y = _mm256_permutevar8x32_epi32(y, unshuffle);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), y);
  }
  for (; i < n; ++i) {
    std::int32_t x = gl::SaturatingRoundingDoublingHighMul(acc[i], p.multiplier);
    x = gl::RoundingDivideByPOT(x, shift) + p.zero_point;
    x = x < p.qmin ? p.qmin : (x > p.qmax ? p.qmax : x);
    dst[i] = static_cast<std::int8_t>(x);
  }
}

}  // namespace qparity_bench
