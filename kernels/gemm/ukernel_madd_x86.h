// INTERNAL: the x86 non-VNNI GEMM micro-kernels (VPMADDWD, VPMADDUBSW), written once against a
// vector type and compiled twice: kernels/gemm/ukernel_avx2.cc (ymm) and ukernel_avx512.cc (zmm).
// Not installed.
//
// ODR: the code here depends on the -m flags of the translation unit that includes it, so every
// definition lives in qparity::internal::QPARITY_GEMM_ISA_NS, which each includer names
// differently (gemm_avx2, gemm_avx512): no inline function or template instantiation is ever
// shared between objects built for different ISAs (see rounding/simd_x86.h). The namespace is not
// the requantization path's (avx2, avx512) so that no name can collide with it either. Define
//   QPARITY_GEMM_ISA_NS     the namespace
// before including this file, from kernels/gemm/ukernel_<isa>.cc only. The vector width follows the
// unit's ISA (QPARITY_TARGET_HAS_<name>, cmake/QparityIsas.cmake): zmm from avx512 on, else ymm.
//
// ---- The loop -----------------------------------------------------------------------------------
// Both packing formats handled here (kPairs16, kDot4) store one dword per (K group, row) in A and
// 64 bytes per (K group, panel) in B, where column j's dword is at byte 4 * (j % 16). So for each K
// group the kernel loads the NR columns' B dwords as NR / kLanes vectors (lane = column), and for
// each row broadcasts the row's A dword to every lane; one `Product` turns (A broadcast, B) into
// that group's int32 contribution per column, added with VPADDD (wrapping, as the contract says):
//   ExactPairs16:  VPMADDWD(A, B)                       a0*b0 + a1*b1, exact int32 (the only
//                  inexact case, (-2^15)^2 * 2 = 2^31, wraps to INT32_MIN like the contract's sum)
//   PairSat16:     VPMADDWD(VPMADDUBSW(A, B), ones)     sat16(a0*b0 + a1*b1) + sat16(a2*b2 + a3*b3)
//                  (VPMADDUBSW's first operand is the unsigned one: A is uint8, B int8)
// i.e. exactly ukernel_scalar.cc's dot4_pairsat_4x16 and the kPairs16 exact sum.
//
// Accumulators stay in registers across the whole K block (MR * NR / kLanes of them); the tile
// shapes, chosen per ISA for the register file, are in the two .cc files.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/gemm/gemm_ukernel.h"

#if !defined(QPARITY_GEMM_ISA_NS)
#error "define QPARITY_GEMM_ISA_NS before including ukernel_madd_x86.h"
#endif

#if defined(QPARITY_TARGET_HAS_avx512)
#define QPARITY_GEMM_MADD_ZMM 1
#if !(defined(__AVX512F__) && defined(__AVX512BW__))
#error "the AVX-512 GEMM micro-kernels must be compiled with their ISA's flags"
#endif
#elif defined(QPARITY_TARGET_HAS_avx2)
#define QPARITY_GEMM_MADD_ZMM 0
#if !defined(__AVX2__)
#error "the AVX2 GEMM micro-kernels must be compiled with their ISA's flags"
#endif
#else
#error "ukernel_madd_x86.h needs an avx2 or avx512 translation unit"
#endif

// Why force inlining: the accumulators only stay in registers if every helper is inlined into the
// fully unrolled kernel body (an out-of-line call passes vectors through memory).
#if defined(__GNUC__)
#define QPARITY_GEMM_INLINE inline __attribute__((always_inline))
#else
#define QPARITY_GEMM_INLINE inline
#endif

// The loops over rows and vectors have compile-time trip counts and must be fully unrolled for
// the accumulator array to be promoted to registers; GCC's heuristics do not always do it alone.
#if defined(__clang__)
#define QPARITY_GEMM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define QPARITY_GEMM_UNROLL _Pragma("GCC unroll 64")
#else
#define QPARITY_GEMM_UNROLL
#endif

namespace qparity {
namespace internal {
namespace QPARITY_GEMM_ISA_NS {

#if !QPARITY_GEMM_MADD_ZMM
/// ymm: 8 int32 lanes, so one 16-column B panel group is two vectors.
struct Vec {
  using V = __m256i;
  static constexpr std::size_t kLanes = 8;
  static QPARITY_GEMM_INLINE V zero() { return _mm256_setzero_si256(); }
  static QPARITY_GEMM_INLINE V load(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  }
  static QPARITY_GEMM_INLINE void store(void* p, V v) {
    _mm256_storeu_si256(static_cast<__m256i*>(p), v);
  }
  static QPARITY_GEMM_INLINE V set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  static QPARITY_GEMM_INLINE V add(V a, V b) { return _mm256_add_epi32(a, b); }
  static QPARITY_GEMM_INLINE V madd16(V a, V b) { return _mm256_madd_epi16(a, b); }
  static QPARITY_GEMM_INLINE V maddubs(V u8, V s8) { return _mm256_maddubs_epi16(u8, s8); }
};
#else
/// zmm: 16 int32 lanes, one vector per 16-column B panel group.
struct Vec {
  using V = __m512i;
  static constexpr std::size_t kLanes = 16;
  static QPARITY_GEMM_INLINE V zero() { return _mm512_setzero_si512(); }
  static QPARITY_GEMM_INLINE V load(const void* p) { return _mm512_loadu_si512(p); }
  static QPARITY_GEMM_INLINE void store(void* p, V v) { _mm512_storeu_si512(p, v); }
  static QPARITY_GEMM_INLINE V set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  static QPARITY_GEMM_INLINE V add(V a, V b) { return _mm512_add_epi32(a, b); }
  static QPARITY_GEMM_INLINE V madd16(V a, V b) { return _mm512_madd_epi16(a, b); }
  static QPARITY_GEMM_INLINE V maddubs(V u8, V s8) { return _mm512_maddubs_epi16(u8, s8); }
};
#endif

using V = Vec::V;

/// kPairs16, kExact: int16 pairs multiplied and summed exactly into int32.
struct ExactPairs16 {
  QPARITY_GEMM_INLINE V operator()(V a, V b) const { return Vec::madd16(a, b); }
};

/// kDot4, kPairSaturate16: VPMADDUBSW's saturated int16 pair sums, then the two pairs of each
/// group summed into int32 by VPMADDWD with ones (exact: |sat16 + sat16| <= 2^16).
struct PairSat16 {
  V ones = Vec::set1(0x00010001);
  QPARITY_GEMM_INLINE V operator()(V a, V b) const { return Vec::madd16(Vec::maddubs(a, b), ones); }
};

/// The A dword of one (K group, row), in every lane. memcpy: the packed A is a byte buffer.
QPARITY_GEMM_INLINE V broadcast_dword(const unsigned char* p) {
  std::int32_t x;
  std::memcpy(&x, p, sizeof(x));
  return Vec::set1(x);
}

/// No epilogue: madd_body stores its accumulators into C.
struct NoVectors {};

/// C[0:kMr][0:kNr] (+)= init + sum over the K block of Product(A dword, B dwords); see the
/// contract in gemm_ukernel.h. With an epilogue (Vectors = gemm_epilogue_x86.h BlockVectors, for
/// a FusedFn) the sums of the valid rows x cols are requantized from registers into the output
/// instead and C is not written (the call must be its block's last K block; p.accumulate still
/// loads the earlier K blocks' sums from C).
template <class Product, std::size_t kMr, std::size_t kNr, class Vectors = NoVectors>
QPARITY_GEMM_INLINE void madd_body(const UkernelArgs& p, const Vectors* epilogue = nullptr,
                                   std::size_t rows = 0, std::size_t cols = 0) {
  static_assert(kNr % kPanelCols == 0, "NR is a whole number of B panels");
  constexpr std::size_t kVecs = kNr / Vec::kLanes;  // vectors per row of the tile
  constexpr std::size_t kVecsPerPanel = kPanelCols / Vec::kLanes;
  constexpr std::size_t kVecBytes = Vec::kLanes * sizeof(std::int32_t);
  constexpr std::size_t kPanels = kNr / kPanelCols;

  // Locals: stores through c could alias the argument struct as far as the compiler knows.
  std::int32_t* const c = p.c;
  const std::size_t ldc = p.ldc;
  V acc[kMr][kVecs];
  if (p.accumulate) {
    QPARITY_GEMM_UNROLL
    for (std::size_t i = 0; i < kMr; ++i) {
      QPARITY_GEMM_UNROLL
      for (std::size_t v = 0; v < kVecs; ++v) acc[i][v] = Vec::load(c + i * ldc + v * Vec::kLanes);
    }
  } else {
    // Wrapping: col_init[j] + row_init[i] is a VPADDD like every other addition.
    V col[kVecs];
    QPARITY_GEMM_UNROLL
    for (std::size_t v = 0; v < kVecs; ++v) {
      col[v] = p.col_init != nullptr ? Vec::load(p.col_init + v * Vec::kLanes) : Vec::zero();
    }
    QPARITY_GEMM_UNROLL
    for (std::size_t i = 0; i < kMr; ++i) {
      const V row = p.row_init != nullptr ? Vec::set1(p.row_init[i]) : Vec::zero();
      QPARITY_GEMM_UNROLL
      for (std::size_t v = 0; v < kVecs; ++v) acc[i][v] = Vec::add(col[v], row);
    }
  }

  const Product product;
  const auto* a = static_cast<const unsigned char*>(p.a);
  const unsigned char* panel[kPanels];
  QPARITY_GEMM_UNROLL
  for (std::size_t q = 0; q < kPanels; ++q) {
    panel[q] = static_cast<const unsigned char*>(p.b) + q * p.b_panel_stride;
  }
  for (std::size_t g = 0; g < p.kgroups; ++g) {
    const std::size_t group = g * kPanelGroupBytes;
    V b[kVecs];
    QPARITY_GEMM_UNROLL
    for (std::size_t v = 0; v < kVecs; ++v) {
      b[v] = Vec::load(panel[v / kVecsPerPanel] + group + (v % kVecsPerPanel) * kVecBytes);
    }
    QPARITY_GEMM_UNROLL
    for (std::size_t i = 0; i < kMr; ++i) {
      const V ai = broadcast_dword(a + (g * kMr + i) * 4);
      QPARITY_GEMM_UNROLL
      for (std::size_t v = 0; v < kVecs; ++v) acc[i][v] = Vec::add(acc[i][v], product(ai, b[v]));
    }
  }

  if constexpr (!std::is_same<Vectors, NoVectors>::value) {
    // Column vector by column vector, so that its registers are loaded once; a local copy of the
    // epilogue (see BlockVectors).
    const Vectors ep = *epilogue;
    QPARITY_GEMM_UNROLL
    for (std::size_t v = 0; v < kVecs; ++v) {
      if (v * Vec::kLanes >= cols) break;
      const auto regs = ep.regs(v * Vec::kLanes);
      QPARITY_GEMM_UNROLL
      for (std::size_t i = 0; i < kMr; ++i) {
        if (i >= rows) break;
        ep.run(i, v * Vec::kLanes, acc[i][v], regs);
      }
    }
  } else {
    QPARITY_GEMM_UNROLL
    for (std::size_t i = 0; i < kMr; ++i) {
      QPARITY_GEMM_UNROLL
      for (std::size_t v = 0; v < kVecs; ++v) Vec::store(c + i * ldc + v * Vec::kLanes, acc[i][v]);
    }
  }
}

template <class Product, std::size_t kMr, std::size_t kNr>
void madd_ukernel(const UkernelArgs& p) {
  madd_body<Product, kMr, kNr>(p);
}

/// madd_body with an epilogue, for gemm_epilogue_x86.h's fused_fns_for.
template <class Product, std::size_t kMr, std::size_t kNr>
struct MaddFusedKernel {
  template <class Vectors>
  static void run(const UkernelArgs& p, const Vectors* epilogue, std::size_t rows,
                  std::size_t cols) {
    madd_body<Product, kMr, kNr>(p, epilogue, rows, cols);
  }
};

}  // namespace QPARITY_GEMM_ISA_NS
}  // namespace internal
}  // namespace qparity
