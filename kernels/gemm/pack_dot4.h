// INTERNAL: the kDot4 A packing step shared by strided and indirect operands (gemm_pack_a.cc,
// gemm_indirect_a.cc). Not installed.
//
// Packs `groups` K groups (4 bytes each) of MR rows into the kDot4 layout [group][MR][4]
// (gemm_ukernel.h): out[(g * MR + r) * 4 + t] = rows[r][g * 4 + t] ^ flip, i.e. an MR x groups
// transpose of dwords. With SSE2 (every x86-64) four rows by four groups are one 4x4 dword
// transpose in registers, about three times the scalar dword loop; this step runs once per
// activation byte, so on a layer with few output channels it costs as much as the products.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qparity {
namespace internal {

/// rows[r]: the first byte of row r's run (4 * groups readable bytes), or null for a row of zeros
/// (rows past M). flip: 0x80808080 for int8 activations (+128 mod 256), else 0. `out` points at the
/// run's first group within its block (runs of one block share the block's [group][MR][4] layout).
inline void pack_dot4_run(const std::uint8_t* const* rows, std::size_t mr, std::size_t groups,
                          std::uint32_t flip, std::uint8_t* out) {
  std::size_t r0 = 0;
#if defined(__SSE2__)
  const __m128i vflip = _mm_set1_epi32(static_cast<int>(flip));
  for (; r0 + 4 <= mr; r0 += 4) {
    if (!rows[r0] || !rows[r0 + 1] || !rows[r0 + 2] || !rows[r0 + 3]) break;
    std::size_t g = 0;
    for (; g + 4 <= groups; g += 4) {
      const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r0] + g * 4));
      const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r0 + 1] + g * 4));
      const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r0 + 2] + g * 4));
      const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r0 + 3] + g * 4));
      const __m128i t0 = _mm_unpacklo_epi32(x0, x1);  // r0g0 r1g0 r0g1 r1g1
      const __m128i t1 = _mm_unpacklo_epi32(x2, x3);  // r2g0 r3g0 r2g1 r3g1
      const __m128i t2 = _mm_unpackhi_epi32(x0, x1);  // r0g2 r1g2 r0g3 r1g3
      const __m128i t3 = _mm_unpackhi_epi32(x2, x3);
      std::uint8_t* o = out + (g * mr + r0) * 4;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_xor_si128(_mm_unpacklo_epi64(t0, t1), vflip));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + mr * 4), _mm_xor_si128(_mm_unpackhi_epi64(t0, t1), vflip));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + mr * 8), _mm_xor_si128(_mm_unpacklo_epi64(t2, t3), vflip));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + mr * 12), _mm_xor_si128(_mm_unpackhi_epi64(t2, t3), vflip));
    }
    for (; g < groups; ++g) {
      for (std::size_t r = r0; r < r0 + 4; ++r) {
        std::uint32_t v;
        std::memcpy(&v, rows[r] + g * 4, 4);
        v ^= flip;
        std::memcpy(out + (g * mr + r) * 4, &v, 4);
      }
    }
  }
#endif
  for (std::size_t r = r0; r < mr; ++r) {
    if (rows[r] == nullptr) {
      for (std::size_t g = 0; g < groups; ++g) std::memset(out + (g * mr + r) * 4, 0, 4);
      continue;
    }
    for (std::size_t g = 0; g < groups; ++g) {
      std::uint32_t v;
      std::memcpy(&v, rows[r] + g * 4, 4);
      v ^= flip;
      std::memcpy(out + (g * mr + r) * 4, &v, 4);
    }
  }
}

}  // namespace internal
}  // namespace qparity
