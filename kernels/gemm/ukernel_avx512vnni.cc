// AVX512-VNNI GEMM micro-kernels: VPDPBUSD on zmm registers over the kDot4 format (exact). The
// pair-saturating arithmetic has no VNNI form (VPDPBUSD does not saturate pairs): the driver uses
// the AVX-512BW kernel for it.
//
// Also the EVEX instantiations of the 256-bit kernels shared with AVX-VNNI
// (kernels/gemm/ukernel_dot4_ymm.h), for tests only (kernels/gemm/ukernel_avx512vnni_ymm.h), and
// the main kernel fused with its block's epilogue (gemm_epilogue.h, FusedFn), which compiles
// kernels/gemm/gemm_epilogue_x86.h at the AVX-512 level in its own namespace.
#define QPARITY_GEMM_ISA_NS gemm_avx512vnni
#define QPARITY_ISA_NS gemm_avx512vnni_epi
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/gemm/gemm_epilogue_x86.h"
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

// Main tile: 8 rows x 32 columns (2 panels) = 16 zmm accumulators.
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
static_assert(kMr == 8 && kPanels == 2, "update the kernel name in ukernel_set()");

// One-panel tile (exact_one_panel): the main kernel's 8 rows over 16 columns, for a column block
// with at most 16 valid columns (MobileNet v2's N = 16 projection, the last 16 of N = 144), where
// 8x32 computes a whole padding panel. 8 accumulators still cover VPDPBUSD's 4-cycle latency at
// one per cycle on Zen 4 (two chains per pipe would be needed on CPUs with two pipes, which then
// run this block at half their peak: still no slower than 8x32 spending half on padding).
constexpr std::size_t kOnePanel = 1;

// Narrow tile (exact_narrow, calls with M = 1: a batch-1 fully connected layer): 1 row x 64
// columns (4 panels), K split over 2 accumulator sets (even / odd K groups) = 8 accumulators.
//  * With one row every B byte feeds exactly one VPDPBUSD (2 ops per byte), so the loop is bound
//    by streaming B, not by arithmetic: a plain zmm load loop reads ~115 GB/s from L2 on Zen 4
//    (~32 bytes per cycle) and ~99 GB/s over 1 MB (L2 spilling to L3), i.e. at most ~230 / ~200
//    GOPS, against ~460 for the VPDPBUSD pipe. This tile reaches ~196 GOPS (98 GB/s) on
//    1 x 1000 x 1024, where the 8x32 tile computes 7 padding rows and reaches ~55.
//  * Latency: 4 panels alone are 4 chains, exactly VPDPBUSD's latency x throughput on Zen 4 and
//    short of the 5-10 that Intel needs; the K split doubles them to 8 (the two sums are added at
//    the end, wrapping like every other addition, so the result is the same).
//  * Why not wider or taller: 1x32, 1x64 and 1x128 (2, 4, 8 concurrent panel streams) measure
//    within noise on a 1 MB B (~190 GOPS kernel-only for 1 x 1000 x 1024), with 1x128 ~5% behind
//    when B fits L2; 2 or 4 rows (so that M = 2..4 would use this kernel too) cost M = 1 ~15% and
//    ~45%, as the extra padding rows' VPDPBUSD then compete with the B loads.
//  * nr = 64 is a multiple of the main kernel's 32, as the contract requires (B panels are padded
//    to a multiple of 4).
constexpr std::size_t kNarrowMr = 1;
constexpr std::size_t kNarrowPanels = 4;
constexpr std::size_t kNarrowKSplit = 2;
static_assert(kNarrowMr == 1 && kNarrowPanels == 4, "update the kernel name in ukernel_set()");

// Row-tail tile (exact_row_tail): 1 row x the main kernel's 32 columns, K split over 2 accumulator
// sets (4 chains), run once per valid row of a row block with at most kRowTailMaxRows valid rows
// (gemm_tile.cc), where the 8x32 tile would compute 7 padding rows for 1 valid one: M = 49 (a 7x7
// layer: MobileNet's last 1x1 convolutions) is 6 full blocks and 1 row. Its 2 VPDPBUSD per K
// group can issue every ~2 cycles (4 chains at 4 cycles of latency), against ~16 for the 8x32
// tile: the row costs about 1/8 of a block instead of a whole one (M = 49 layers: 8-13 % faster,
// packed_gemm_data.h kRowTailMaxRows). A strided (in place) or packed, like the main kernel.
constexpr std::size_t kRowTailMr = 1;

/// acc (+)= the products of one K group: A's 4 bytes of row i broadcast to every lane, times
/// panel q's 16 columns x 4 bytes (one zmm). Inlined into the fully unrolled kernels so that the
/// accumulators stay in registers.
template <std::size_t kRows, std::size_t kCols16>
__attribute__((always_inline)) inline void dot4_group_zmm(__m512i (&acc)[kRows][kCols16],
                                                          const std::uint8_t* a,
                                                          const std::uint8_t* const (&panel)[kCols16],
                                                          std::size_t offset) {
  __m512i bv[kCols16];
#pragma GCC unroll 16
  for (std::size_t q = 0; q < kCols16; ++q) bv[q] = _mm512_loadu_si512(panel[q] + offset);
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kRows; ++i) {
    std::int32_t a_dword;
    std::memcpy(&a_dword, a + i * 4, 4);
    const __m512i av = _mm512_set1_epi32(a_dword);  // vpbroadcastd from memory
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kCols16; ++q) acc[i][q] = _mm512_dpbusd_epi32(acc[i][q], av, bv[q]);
  }
}

/// dot4_group_zmm on unpacked A (UkernelArgs::a_stride): row i's 4 bytes of the group at
/// row[i] + a_offset, XORed with flip (0x80 bytes for int8 activations, else 0).
template <std::size_t kRows, std::size_t kCols16>
__attribute__((always_inline)) inline void dot4_group_zmm_rows(
    __m512i (&acc)[kRows][kCols16], const std::uint8_t* const (&row)[kRows], std::size_t a_offset,
    __m512i flip, const std::uint8_t* const (&panel)[kCols16], std::size_t offset) {
  __m512i bv[kCols16];
#pragma GCC unroll 16
  for (std::size_t q = 0; q < kCols16; ++q) bv[q] = _mm512_loadu_si512(panel[q] + offset);
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kRows; ++i) {
    std::int32_t a_dword;
    std::memcpy(&a_dword, row[i] + a_offset, 4);
    const __m512i av = _mm512_xor_si512(_mm512_set1_epi32(a_dword), flip);
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kCols16; ++q) acc[i][q] = _mm512_dpbusd_epi32(acc[i][q], av, bv[q]);
  }
}

/// No epilogue: the accumulators are stored to C (the plain micro-kernel).
struct NoVectors {};

/// Where the kernel reads A (UkernelArgs): packed, in place strided (a_stride), in place through
/// segment pointers (a_segments).
enum class AMode { kPacked, kStrided, kSegments };

/// C (+)= init + A * B for one kRows x (16 * kCols16) tile (gemm_ukernel.h). kKSplit > 1 keeps
/// kKSplit accumulator sets, set s taking the K groups g with g % kKSplit == s (the tail, fewer
/// than kKSplit groups, goes to set 0), summed before the store: more independent chains for
/// tiles too small to hide VPDPBUSD's latency with their own accumulators.
/// With an epilogue (Vectors = gemm_epilogue_x86.h BlockVectors, FusedFn) the sums are
/// requantized from registers into the output instead, for the valid rows x cols of the block, and
/// C is not written (the call must be its block's last K block; p.accumulate still loads the
/// earlier K blocks' sums from C).
/// One function per A mode: with the three K loops in one body GCC 12 spilled general registers
/// around the packed loop (-10 % on 784x128x1152).
template <std::size_t kRows, std::size_t kCols16, std::size_t kKSplit, AMode kMode, class Vectors>
__attribute__((noinline)) void dot4_exact_zmm_mode(const UkernelArgs& p, const Vectors* epilogue,
                                                   std::size_t rows, std::size_t cols) {
  static_assert(kKSplit == 1 || kKSplit == 2, "one or two accumulator sets");
  static_assert(kMode != AMode::kSegments || kKSplit == 1, "segments: one accumulator set");
  constexpr bool kFused = !std::is_same<Vectors, NoVectors>::value;
  // Locals: stores through c could alias the argument struct as far as the compiler knows.
  std::int32_t* const c = p.c;
  const std::size_t ldc = p.ldc;
  __m512i acc[kRows][kCols16];
  __m512i acc_odd[kKSplit == 2 ? kRows : 1][kCols16];  // set 1 (unused when kKSplit == 1)

  if (p.accumulate) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 16
      for (std::size_t q = 0; q < kCols16; ++q) acc[i][q] = _mm512_loadu_si512(c + i * ldc + q * 16);
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
  const std::uint8_t* panel[kCols16];
#pragma GCC unroll 16
  for (std::size_t q = 0; q < kCols16; ++q) {
    panel[q] = static_cast<const std::uint8_t*>(p.b) + q * p.b_panel_stride;
  }
  std::size_t g = 0;
  if constexpr (kKSplit == 2) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 16
      for (std::size_t q = 0; q < kCols16; ++q) {
        acc_odd[i][q] = _mm512_setzero_si512();
        // Without this empty asm, GCC 12 keeps the odd set in two register copies and moves
        // every accumulator once per iteration (8 extra uops per 8 VPDPBUSD).
        asm("" : "+v"(acc_odd[i][q]));
      }
    }
    if constexpr (kMode == AMode::kStrided) {
      const std::uint8_t* row[kRows];
#pragma GCC unroll 16
      for (std::size_t i = 0; i < kRows; ++i) row[i] = a + (i < p.a_rows ? i : p.a_rows - 1) * p.a_stride;
      const __m512i flip = _mm512_set1_epi32(p.a_flip ? static_cast<std::int32_t>(0x80808080u) : 0);
      for (; g + 2 <= p.kgroups; g += 2) {
        dot4_group_zmm_rows(acc, row, g * 4, flip, panel, g * kPanelGroupBytes);
        dot4_group_zmm_rows(acc_odd, row, (g + 1) * 4, flip, panel, (g + 1) * kPanelGroupBytes);
      }
    } else {
      for (; g + 2 <= p.kgroups; g += 2) {
        dot4_group_zmm(acc, a + g * kRows * 4, panel, g * kPanelGroupBytes);
        dot4_group_zmm(acc_odd, a + (g + 1) * kRows * 4, panel, (g + 1) * kPanelGroupBytes);
      }
    }
  }
  if constexpr (kMode == AMode::kSegments) {
    const __m512i flip = _mm512_set1_epi32(p.a_flip ? static_cast<std::int32_t>(0x80808080u) : 0);
    const std::size_t sg = p.a_seg_groups;
    for (const std::uint8_t* const* seg = p.a_segments; g < p.kgroups; seg += kRows) {
      const std::uint8_t* row[kRows];
#pragma GCC unroll 16
      for (std::size_t i = 0; i < kRows; ++i) row[i] = seg[i];
      for (std::size_t q = 0; q < sg; ++q, ++g) {
        dot4_group_zmm_rows(acc, row, q * 4, flip, panel, g * kPanelGroupBytes);
      }
    }
  } else if constexpr (kMode == AMode::kStrided) {
    const std::uint8_t* row[kRows];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) row[i] = a + (i < p.a_rows ? i : p.a_rows - 1) * p.a_stride;
    const __m512i flip = _mm512_set1_epi32(p.a_flip ? static_cast<std::int32_t>(0x80808080u) : 0);
    for (; g < p.kgroups; ++g) dot4_group_zmm_rows(acc, row, g * 4, flip, panel, g * kPanelGroupBytes);
  } else {
    for (; g < p.kgroups; ++g) dot4_group_zmm(acc, a + g * kRows * 4, panel, g * kPanelGroupBytes);
  }

  if constexpr (kFused) {
    // The block's valid rows and column vectors only (rows past M and columns past N are padding),
    // column vector by column vector so that its registers are loaded once. A local copy of the
    // epilogue (see BlockVectors).
    const Vectors v = *epilogue;
#pragma GCC unroll 16
    for (std::size_t q = 0; q < kCols16; ++q) {
      if (q * 16 >= cols) break;
      const auto regs = v.regs(q * 16);
#pragma GCC unroll 16
      for (std::size_t i = 0; i < kRows; ++i) {
        if (i >= rows) break;
        __m512i sum = acc[i][q];
        if constexpr (kKSplit == 2) sum = _mm512_add_epi32(sum, acc_odd[i][q]);  // wraps
        v.run(i, q * 16, sum, regs);
      }
    }
  } else {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 16
      for (std::size_t q = 0; q < kCols16; ++q) {
        __m512i sum = acc[i][q];
        if constexpr (kKSplit == 2) sum = _mm512_add_epi32(sum, acc_odd[i][q]);  // wraps
        _mm512_storeu_si512(c + i * ldc + q * 16, sum);
      }
    }
  }
}

/// The kernel for p's A mode.
template <std::size_t kRows, std::size_t kCols16, std::size_t kKSplit, class Vectors = NoVectors>
__attribute__((always_inline)) inline void dot4_exact_zmm_body(const UkernelArgs& p,
                                                               const Vectors* epilogue = nullptr,
                                                               std::size_t rows = 0,
                                                               std::size_t cols = 0) {
  if constexpr (kKSplit == 1) {
    if (p.a_segments != nullptr) {
      return dot4_exact_zmm_mode<kRows, kCols16, 1, AMode::kSegments>(p, epilogue, rows, cols);
    }
  }
  if (p.a_stride != 0) {
    return dot4_exact_zmm_mode<kRows, kCols16, kKSplit, AMode::kStrided>(p, epilogue, rows, cols);
  }
  dot4_exact_zmm_mode<kRows, kCols16, kKSplit, AMode::kPacked>(p, epilogue, rows, cols);
}

template <std::size_t kRows, std::size_t kCols16, std::size_t kKSplit>
void dot4_exact_zmm(const UkernelArgs& p) {
  dot4_exact_zmm_body<kRows, kCols16, kKSplit>(p);
}

/// The main kernel (kCols16 = kPanels) or the one-panel kernel (kOnePanel) with an epilogue, for
/// gemm_epilogue_x86.h's fused_fns_for.
template <std::size_t kCols16>
struct FusedKernel {
  template <class Vectors>
  static void run(const UkernelArgs& p, const Vectors* epilogue, std::size_t rows,
                  std::size_t cols) {
    dot4_exact_zmm_body<kMr, kCols16, 1>(p, epilogue, rows, cols);
  }
};

/// The EVEX encoding of the 256-bit VPDPBUSD, for the shared ymm kernel.
struct EvexDpbusd {
  static __m256i dpbusd(__m256i acc, __m256i a_u8, __m256i b_s8) {
    return _mm256_dpbusd_epi32(acc, a_u8, b_s8);
  }
};

}  // namespace
}  // namespace gemm_avx512vnni

namespace {

UkernelSet ukernel_set() {
  using namespace gemm_avx512vnni;
  UkernelSet s;
  s.exact = Ukernel{"avx512vnni-dot4-8x32", PackFormat::kDot4, Arithmetic::kExact, kMr,
                    kPanels * kPanelCols, &dot4_exact_zmm<kMr, kPanels, 1>, nullptr, true};
  s.exact_narrow = Ukernel{"avx512vnni-dot4-1x64", PackFormat::kDot4, Arithmetic::kExact,
                           kNarrowMr, kNarrowPanels * kPanelCols,
                           &dot4_exact_zmm<kNarrowMr, kNarrowPanels, kNarrowKSplit>, nullptr};
  static_assert(kOnePanel == 1, "update the kernel name");
  s.exact_one_panel = Ukernel{"avx512vnni-dot4-8x16", PackFormat::kDot4, Arithmetic::kExact, kMr,
                              kOnePanel * kPanelCols, &dot4_exact_zmm<kMr, kOnePanel, 1>, nullptr,
                              true};
  static_assert(kRowTailMr == 1, "update the kernel name");
  s.exact_row_tail = Ukernel{"avx512vnni-dot4-1x32", PackFormat::kDot4, Arithmetic::kExact,
                             kRowTailMr, kPanels * kPanelCols,
                             &dot4_exact_zmm<kRowTailMr, kPanels, kNarrowKSplit>, nullptr, true};
  return s;  // pair_saturate absent: VPDPBUSD cannot saturate pairs (use the AVX-512BW kernel)
}

/// The fused kernels of the main (kCols16 = kPanels) or the one-panel kernel for a plan's variant.
template <std::size_t kCols16>
FusedFns fused_fns(const EpilogueVariant& variant, bool saturated) {
  return gemm_avx512vnni_epi::fused_fns_for<gemm_avx512vnni::FusedKernel<kCols16>>(variant,
                                                                                   saturated);
}

UkernelSet evex_ymm_set() {
  using namespace gemm_avx512vnni;
  static_assert(kDot4YmmMr == 6 && kDot4YmmPanels == 1, "update the kernel name");
  static_assert(kDot4YmmNarrowMr == 1 && kDot4YmmNarrowPanels == 2, "update the kernel name");
  UkernelSet s;
  s.exact = Ukernel{"avx512vnni-ymm-dot4-6x16", PackFormat::kDot4, Arithmetic::kExact, kDot4YmmMr,
                    kDot4YmmPanels * kPanelCols,
                    &dot4_exact_ymm<EvexDpbusd, kDot4YmmMr, kDot4YmmPanels, 1>, nullptr};
  s.exact_narrow = Ukernel{"avx512vnni-ymm-dot4-1x32", PackFormat::kDot4, Arithmetic::kExact,
                           kDot4YmmNarrowMr, kDot4YmmNarrowPanels * kPanelCols,
                           &dot4_exact_ymm<EvexDpbusd, kDot4YmmNarrowMr, kDot4YmmNarrowPanels,
                                           kDot4YmmNarrowKSplit>,
                           nullptr};
  return s;
}

}  // namespace
}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelFamily) { return qparity::internal::ukernel_set(); }
QPARITY_DEFINE_KERNELS(qparity::internal::GemmFusedFamily) {
  using namespace qparity::internal;
  GemmFusedKernels k;
  k.get = &fused_fns<gemm_avx512vnni::kPanels>;
  k.get_one_panel = &fused_fns<gemm_avx512vnni::kOnePanel>;
  k.lanes = 16;
  return k;
}
QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelEvexYmmFamily) {
  return qparity::internal::evex_ymm_set();
}
