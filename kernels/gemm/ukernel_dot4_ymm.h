// INTERNAL: the 256-bit VPDPBUSD micro-kernels of the kDot4 exact format (the 6x16 tile and the
// 1x32 one for calls with one row), written once for both encodings of the instruction. Not
// installed.
//
//   AVX-VNNI (VEX):        _mm256_dpbusd_avx_epi32  (kernels/gemm/ukernel_avxvnni.cc)
//   AVX512-VNNI+VL (EVEX): _mm256_dpbusd_epi32      (kernels/gemm/ukernel_avx512vnni.cc)
//
// Both compute the same thing (per int32 lane: acc + the 4 products uint8 * int8 of the lane's
// bytes, wrapping mod 2^32). Many CPUs with AVX-512 VNNI lack AVX-VNNI (Cascade Lake, Ice Lake,
// Zen 4), so the VEX instantiation cannot run there; sharing the code lets the test of the EVEX
// instantiation (tests/gemm/ukernel_test.cc) prove the code the AVX-VNNI build runs.
//
// ODR: like rounding/simd_x86.h, this header compiles to different machine code depending on the
// -m flags of the translation unit that includes it, so everything lives in the namespace
// qparity::internal::QPARITY_GEMM_ISA_NS, which each including translation unit names differently
// (gemm_avx512vnni, gemm_avxvnni; the gemm_ prefix keeps clear of the requantization paths'
// namespaces, as in ukernel_madd_x86.h). Define QPARITY_GEMM_ISA_NS before including it.
//
// An `Ops` struct supplies the one ISA-specific operation:
//   static __m256i dpbusd(__m256i acc, __m256i a_u8, __m256i b_s8);
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/gemm/gemm_ukernel.h"

#if !defined(QPARITY_GEMM_ISA_NS)
#error "define QPARITY_GEMM_ISA_NS before including kernels/gemm/ukernel_dot4_ymm.h"
#endif
#if !defined(__AVX2__)
#error "kernels/gemm/ukernel_dot4_ymm.h needs -mavx2"
#endif

namespace qparity {
namespace internal {
namespace QPARITY_GEMM_ISA_NS {

/// The tile both instantiations use: 6 x 16, sized for the CPUs that run the VEX kernel, those
/// with AVX-VNNI but no AVX-512 (Alder Lake and later client cores, Sierra Forest), which have 16
/// ymm registers: 6 rows x 2 ymm = 12 accumulators + 2 B vectors + 1 broadcast A = 15. Twelve
/// independent accumulators cover VPDPBUSD's latency (5 cycles) at 2 per cycle; 16 columns is
/// the narrowest tile the panel format allows, so the N padding stays minimal.
constexpr std::size_t kDot4YmmMr = 6;
constexpr std::size_t kDot4YmmPanels = 1;

/// The narrow tile (exact_narrow, calls with M = 1), same for both instantiations: 1 row x 32
/// columns (2 panels, 4 ymm), K split over 2 accumulator sets = 8 accumulators.
///  * With one row every B byte feeds one VPDPBUSD: the loop is bound by streaming B from L2,
///    not by arithmetic, which the 6x16 tile would spend 5/6 of on padding rows.
///  * 8 independent chains: VPDPBUSD ymm at 2 per cycle with 4 (Zen 4) to 5 (Alder Lake) cycles
///    of latency needs 8 to 10; without the split 2 panels give only 4.
///  * Registers: 8 accumulators + the broadcast A (+ B as memory operands) fit the 16 of a
///    VEX-only CPU; 1x64 with the split (16 accumulators) would not.
///  * Measured on Zen 4 (EVEX instantiation, 1 x 1000 x 1024, kernel only, GOPS): 6x16 70;
///    1x16 178, 1x32 187, 1x48 191-197, 1x64 164-189, 1x128 194: all the one-row shapes stream
///    B at the same rate within noise, so the one with the least N padding that keeps 8 chains.
constexpr std::size_t kDot4YmmNarrowMr = 1;
constexpr std::size_t kDot4YmmNarrowPanels = 2;
constexpr std::size_t kDot4YmmNarrowKSplit = 2;

/// acc (+)= the products of one K group: A's dword of row i broadcast to every lane, times the
/// 2 * kPanels B vectors (panel q's 16 columns x 4 bytes are 64 contiguous bytes).
template <class Ops, std::size_t kMr, std::size_t kPanels>
__attribute__((always_inline)) inline void dot4_group_ymm(__m256i (&acc)[kMr][2 * kPanels],
                                                          const std::uint8_t* a,
                                                          const std::uint8_t* const (&panel)[kPanels],
                                                          std::size_t offset) {
  constexpr std::size_t kVecs = 2 * kPanels;
  __m256i bv[kVecs];
#pragma GCC unroll 16
  for (std::size_t q = 0; q < kPanels; ++q) {
    bv[2 * q] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel[q] + offset));
    bv[2 * q + 1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel[q] + offset + 32));
  }
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kMr; ++i) {
    std::int32_t a_dword;
    std::memcpy(&a_dword, a + i * 4, 4);
    const __m256i av = _mm256_set1_epi32(a_dword);  // vpbroadcastd from memory
#pragma GCC unroll 16
    for (std::size_t v = 0; v < kVecs; ++v) acc[i][v] = Ops::dpbusd(acc[i][v], av, bv[v]);
  }
}

/// C (+)= init + A * B for one kMr x (16 * kPanels) tile (gemm_ukernel.h). One panel of 16 int32
/// columns is two ymm accumulators per row. Each K group loads 2 * kPanels B vectors and
/// broadcasts one dword of A per row. kKSplit == 2 keeps a second accumulator set for the odd K
/// groups (the even ones and an odd tail group go to the first), added before the store: more
/// independent chains for tiles too small to hide VPDPBUSD's latency with their own.
template <class Ops, std::size_t kMr, std::size_t kPanels, std::size_t kKSplit>
void dot4_exact_ymm(const UkernelArgs& p) {
  static_assert(kKSplit == 1 || kKSplit == 2, "one or two accumulator sets");
  constexpr std::size_t kVecs = 2 * kPanels;  // ymm accumulators per row
  // Locals: stores through c could alias the argument struct as far as the compiler knows.
  std::int32_t* const c = p.c;
  const std::size_t ldc = p.ldc;
  __m256i acc[kMr][kVecs];
  __m256i acc_odd[kKSplit == 2 ? kMr : 1][kVecs];  // set 1 (unused when kKSplit == 1)

  if (p.accumulate) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 16
      for (std::size_t v = 0; v < kVecs; ++v) {
        acc[i][v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + i * ldc + v * 8));
      }
    }
  } else {
    __m256i col[kVecs];
#pragma GCC unroll 16
    for (std::size_t v = 0; v < kVecs; ++v) {
      col[v] = p.col_init ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.col_init + v * 8))
                          : _mm256_setzero_si256();
    }
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kMr; ++i) {
      const __m256i row = _mm256_set1_epi32(p.row_init ? p.row_init[i] : 0);
#pragma GCC unroll 16
      for (std::size_t v = 0; v < kVecs; ++v) acc[i][v] = _mm256_add_epi32(col[v], row);  // wraps
    }
  }

  const auto* a = static_cast<const std::uint8_t*>(p.a);
  const std::uint8_t* panel[kPanels];
#pragma GCC unroll 16
  for (std::size_t q = 0; q < kPanels; ++q) {
    panel[q] = static_cast<const std::uint8_t*>(p.b) + q * p.b_panel_stride;
  }
  std::size_t g = 0;
  if constexpr (kKSplit == 2) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 16
      for (std::size_t v = 0; v < kVecs; ++v) {
        acc_odd[i][v] = _mm256_setzero_si256();
        // Without this empty asm, GCC 12 keeps the odd set in two register copies and moves
        // every accumulator once per iteration.
        asm("" : "+x"(acc_odd[i][v]));
      }
    }
    for (; g + 2 <= p.kgroups; g += 2) {
      dot4_group_ymm<Ops>(acc, a + g * kMr * 4, panel, g * kPanelGroupBytes);
      dot4_group_ymm<Ops>(acc_odd, a + (g + 1) * kMr * 4, panel, (g + 1) * kPanelGroupBytes);
    }
  }
  for (; g < p.kgroups; ++g) dot4_group_ymm<Ops>(acc, a + g * kMr * 4, panel, g * kPanelGroupBytes);

#pragma GCC unroll 16
  for (std::size_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 16
    for (std::size_t v = 0; v < kVecs; ++v) {
      __m256i sum = acc[i][v];
      if constexpr (kKSplit == 2) sum = _mm256_add_epi32(sum, acc_odd[i][v]);  // wraps
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + i * ldc + v * 8), sum);
    }
  }
}

}  // namespace QPARITY_GEMM_ISA_NS
}  // namespace internal
}  // namespace qparity
