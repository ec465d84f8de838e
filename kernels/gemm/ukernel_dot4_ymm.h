// INTERNAL: the 256-bit VPDPBUSD micro-kernel of the kDot4 exact format, written once for both
// encodings of the instruction. Not installed.
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

/// C (+)= init + A * B for one kMr x (16 * kPanels) tile (gemm_ukernel.h). One panel of 16 int32
/// columns is two ymm accumulators per row. Each K group loads 2 * kPanels B vectors (the 16
/// columns x 4 bytes of a panel are 64 contiguous bytes) and broadcasts one dword of A per row.
template <class Ops, std::size_t kMr, std::size_t kPanels>
void dot4_exact_ymm(const UkernelArgs& p) {
  constexpr std::size_t kVecs = 2 * kPanels;  // ymm accumulators per row
  __m256i acc[kMr][kVecs];

  if (p.accumulate) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 16
      for (std::size_t v = 0; v < kVecs; ++v) {
        acc[i][v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.c + i * p.ldc + v * 8));
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
  const auto* b = static_cast<const std::uint8_t*>(p.b);
  for (std::size_t g = 0; g < p.kgroups; ++g) {
    __m256i bv[kVecs];
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kPanels; ++q) {
      const std::uint8_t* panel = b + q * p.b_panel_stride;
      bv[2 * q] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel));
      bv[2 * q + 1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 32));
    }
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kMr; ++i) {
      std::int32_t a_dword;
      std::memcpy(&a_dword, a + i * 4, 4);
      const __m256i av = _mm256_set1_epi32(a_dword);  // vpbroadcastd from memory
#pragma GCC unroll 16
      for (std::size_t v = 0; v < kVecs; ++v) acc[i][v] = Ops::dpbusd(acc[i][v], av, bv[v]);
    }
    a += kMr * 4;
    b += kPanelGroupBytes;
  }

#pragma GCC unroll 16
  for (std::size_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 16
    for (std::size_t v = 0; v < kVecs; ++v) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p.c + i * p.ldc + v * 8), acc[i][v]);
    }
  }
}

}  // namespace QPARITY_GEMM_ISA_NS
}  // namespace internal
}  // namespace qparity
