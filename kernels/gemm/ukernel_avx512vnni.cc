// AVX512-VNNI GEMM micro-kernels: VPDPBUSD on zmm registers over the kDot4 format (exact). The
// pair-saturating arithmetic has no VNNI form (VPDPBUSD does not saturate pairs): the driver uses
// the AVX-512BW kernel for it.
//
// Also the EVEX instantiation of the 256-bit kernel shared with AVX-VNNI
// (kernels/gemm/ukernel_dot4_ymm.h), for tests only (kernels/gemm/ukernel_avx512vnni_ymm.h).
#define QPARITY_GEMM_ISA_NS gemm_avx512vnni

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/gemm/gemm_ukernel.h"
#include "kernels/gemm/ukernel_avx512vnni_ymm.h"
#include "kernels/gemm/ukernel_dot4_ymm.h"

#if !(defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
      defined(__AVX512VNNI__))
#error "ukernel_avx512vnni.cc must be compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni"
#endif

namespace qparity {
namespace internal {
namespace gemm_avx512vnni {
namespace {

// Tile: 8 rows x 32 columns (2 panels) = 16 zmm accumulators.
//  * Latency: VPDPBUSD zmm has 4 (Zen 4, measured) to 5 (Intel) cycles of latency at 1 per cycle;
//    CPUs with two 512-bit VNNI pipes issue 2 per cycle, so up to 10 chains must be in flight.
//    16 independent accumulators cover that with slack.
//  * Loads per K group: 8 dword broadcasts of A + 2 zmm of B for 16 VPDPBUSD, well under the 2-3
//    loads per cycle of the load ports.
//  * Registers: 16 accumulators + 2 B + the broadcast A fit in 32 zmm without spills.
//  * Padding: on Zen 4, 8x32, 12x32, 6x64, 4x64 and 8x48 all run at the VPDPBUSD-bound peak on
//    L1/L2-resident data (kgroups 128-256, ~460 GOPS per core at 3.6 GHz), so the shape is
//    chosen for padding: M rounds up to 8 and N to 32, where 4x64 and 6x64 pad N to 64 and 12x32
//    pads M to 12.
constexpr std::size_t kMr = 8;
constexpr std::size_t kPanels = 2;
static_assert(kMr == 8 && kPanels == 2, "update the kernel name in gemm_ukernels_avx512vnni()");

/// C (+)= init + A * B for one kMr x (16 * kPanels) tile (gemm_ukernel.h). Panel q's 16 columns x
/// 4 bytes of one K group are one zmm; A's 4 bytes of row i are broadcast to every lane.
template <std::size_t kRows, std::size_t kCols16>
void dot4_exact_zmm(const UkernelArgs& p) {
  __m512i acc[kRows][kCols16];

  if (p.accumulate) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 16
      for (std::size_t q = 0; q < kCols16; ++q) acc[i][q] = _mm512_loadu_si512(p.c + i * p.ldc + q * 16);
    }
  } else {
    __m512i col[kCols16];
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kCols16; ++q) {
      col[q] = p.col_init ? _mm512_loadu_si512(p.col_init + q * 16) : _mm512_setzero_si512();
    }
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) {
      const __m512i row = _mm512_set1_epi32(p.row_init ? p.row_init[i] : 0);
#pragma GCC unroll 16
      for (std::size_t q = 0; q < kCols16; ++q) acc[i][q] = _mm512_add_epi32(col[q], row);  // wraps
    }
  }

  const auto* a = static_cast<const std::uint8_t*>(p.a);
  const auto* b = static_cast<const std::uint8_t*>(p.b);
  for (std::size_t g = 0; g < p.kgroups; ++g) {
    __m512i bv[kCols16];
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kCols16; ++q) bv[q] = _mm512_loadu_si512(b + q * p.b_panel_stride);
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) {
      std::int32_t a_dword;
      std::memcpy(&a_dword, a + i * 4, 4);
      const __m512i av = _mm512_set1_epi32(a_dword);  // vpbroadcastd from memory
#pragma GCC unroll 16
      for (std::size_t q = 0; q < kCols16; ++q) acc[i][q] = _mm512_dpbusd_epi32(acc[i][q], av, bv[q]);
    }
    a += kRows * 4;
    b += kPanelGroupBytes;
  }

#pragma GCC unroll 16
  for (std::size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kCols16; ++q) _mm512_storeu_si512(p.c + i * p.ldc + q * 16, acc[i][q]);
  }
}

/// The EVEX encoding of the 256-bit VPDPBUSD, for the shared ymm kernel.
struct EvexDpbusd {
  static __m256i dpbusd(__m256i acc, __m256i a_u8, __m256i b_s8) {
    return _mm256_dpbusd_epi32(acc, a_u8, b_s8);
  }
};

}  // namespace
}  // namespace gemm_avx512vnni

UkernelSet gemm_ukernels_avx512vnni() {
  using namespace gemm_avx512vnni;
  UkernelSet s;
  s.exact = Ukernel{"avx512vnni-dot4-8x32", PackFormat::kDot4, Arithmetic::kExact, kMr,
                    kPanels * kPanelCols, &dot4_exact_zmm<kMr, kPanels>, nullptr};
  return s;  // pair_saturate absent: VPDPBUSD cannot saturate pairs (use the AVX-512BW kernel)
}

UkernelSet gemm_ukernels_avx512vnni_ymm_for_testing() {
  using namespace gemm_avx512vnni;
  static_assert(kDot4YmmMr == 6 && kDot4YmmPanels == 1, "update the kernel name");
  UkernelSet s;
  s.exact = Ukernel{"avx512vnni-ymm-dot4-6x16", PackFormat::kDot4, Arithmetic::kExact, kDot4YmmMr,
                    kDot4YmmPanels * kPanelCols,
                    &dot4_exact_ymm<EvexDpbusd, kDot4YmmMr, kDot4YmmPanels>, nullptr};
  return s;
}

}  // namespace internal
}  // namespace qparity
