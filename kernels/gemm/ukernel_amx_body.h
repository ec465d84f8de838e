// INTERNAL: the AMX micro-kernel of the kRows64 format (gemm_ukernel.h), written once against a
// "tile ops" policy so that the same code runs on two machines. Not installed.
//
//   real AMX (LDTILECFG, TILELOADD, TDPBUSD, ...):   kernels/gemm/ukernel_amx.cc
//   a software model of those instructions:          tests/gemm/amx_kernel_test.cc
//
// Most CPUs (every AMD one, Intel before Sapphire Rapids) cannot execute AMX, so the kernel's
// tests (tests/gemm/ukernel_test.cc, gemm_test.cc) only run it on AMX machines; the model
// instantiation proves everything but the instructions themselves (tile shapes, addresses,
// strides, the K tail, init, stores) on any machine.
//
// ODR: the including translation units are built with different -m flags, so everything lives in
// qparity::internal::QPARITY_GEMM_ISA_NS, which each includer names differently (as in
// ukernel_madd_x86.h), and the Ops policies are internal-linkage types. Nothing of the standard
// library is instantiated here (only memcpy / memset are called).
//
// ---- The policy --------------------------------------------------------------------------------
// An `Ops` type supplies, as static functions (T, C, A, B: tile numbers 0..7):
//   load_config(const AmxTileConfig&)    LDTILECFG
//   release()                            TILERELEASE
//   zero<T>()                            TILEZERO tmmT
//   load<T>(const void* p, size_t s)     TILELOADD tmmT, [p + s * row]
//   store<T>(void* p, size_t s)          TILESTORED [p + s * row], tmmT
//   dpbusd<C, A, B>()                    TDPBUSD tmmC, tmmA, tmmB (uint8 A x int8 B)
//   dpbssd<C, A, B>()                    TDPBSSD tmmC, tmmA, tmmB (int8 A x int8 B)
//
// ---- The kernel ----------------------------------------------------------------------------------
// MR = 32 rows x NR = 32 columns of C = 2 x 2 accumulator tiles of 16 rows x 16 int32. Per K step
// of 16 groups (64 bytes of K): two A tiles (rows 0-15 and 16-31, 16 rows x 64 bytes: 1 KiB in
// order in kRows64's tile-major packing, stride 64, or rows lda apart when A is read in place)
// and two B tiles (panel 0 and panel 1, 16 groups x 64 bytes: the kDot4 panel layout is exactly
// AMX's B layout, stride 64), each loaded once and used by two TDP*, which is the most reuse 8
// tile registers allow (4 accumulators + 2 + 2). Packed tile by tile, a call's A is two
// sequential streams instead of 32 rows each advancing a line per step.
//
// A read in place (UkernelArgs::a_stride, Ukernel::direct_a) saves the packing copy (16 % of
// 3136x64x64 F32, perf) and, for a convolution, the second copy of its gathered rows. The two
// together, against row-major packing, measured on Xeon family 6 model 207 (one thread, best of
// 4 interleaved runs, GOPS, DR-AZ / F32): 784x128x1152 1458 -> 1989 / 1563 -> 2124, 256^3
// 1180 -> 1304 / 1375 -> 1575, 3136x64x64 366 -> 389 / 451 -> 543, 1024^3 within noise;
// 56x56x64->64 3x3 convolution 764 -> 914 / 769 -> 1021. The two steps whose
// tiles could reach past A are staged through a 2 KiB buffer (amx_stage_a): every step of a
// partial row block (rows past a_rows may not exist) and the K tail (bytes past the block's
// groups may not exist), so the kernel reads exactly what the kDot4 kernels read in place.
//
// One configuration for every call (all 8 tiles 16 rows x 64 bytes). The K tail (kgroups not a
// multiple of 16) is not given a narrower configuration because LDTILECFG zeroes every tile: a
// second configuration in the middle of a call would cost storing and reloading the 4
// accumulators. Instead the tail's B rows are copied into a zeroed 16-group buffer: the groups
// past the block are never read (they belong to the next K block, or lie past the end of the
// packed weights), and the A tile of the last step is read whole (kRows64 has ceil(kgroups / 16)
// steps), its bytes past kgroups * 4 meeting zero B rows, so whatever they hold (zeros, from the
// driver) cannot change the sums.
//
// The configuration and the release are not the kernel's: LDTILECFG before every call was 21 % of
// the kernel's time on 1024^3 (Xeon family 6 model 207, perf). amx_enter / amx_leave are the
// Ukernel's enter / leave (gemm_ukernel.h), which the driver calls once per tile, around all of
// the tile's calls; between them only this kernel and the AVX-512 epilogues run, so the
// configuration cannot go stale (other code on the thread, oneDNN say, may load its own
// configuration or release the tiles, but not inside our tile loop), and the tiles are released
// when the tile ends (left in use, they would add 8 KiB to every context switch of the thread).
// The configuration itself is a constant, so nothing is built per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/gemm/amx_tile_config.h"
#include "kernels/gemm/gemm_ukernel.h"

#if !defined(QPARITY_GEMM_ISA_NS)
#error "define QPARITY_GEMM_ISA_NS before including kernels/gemm/ukernel_amx_body.h"
#endif

namespace qparity {
namespace internal {
namespace QPARITY_GEMM_ISA_NS {

/// LDTILECFG's operand (kernels/gemm/amx_tile_config.h, shared with bench/peak_bench.cc): plain
/// data, the same in every ISA namespace.
using ::qparity::internal::AmxTileConfig;

inline constexpr std::size_t kAmxMr = 32;
inline constexpr std::size_t kAmxNr = 32;
inline constexpr std::size_t kAmxTileRows = 16;       ///< rows of every tile (palette 1 maximum)
inline constexpr std::size_t kAmxTileRowBytes = 64;   ///< bytes per tile row (palette 1 maximum)
inline constexpr std::size_t kAmxStepGroups = 16;     ///< K groups per TDP (B tile rows)
inline constexpr std::size_t kAmxStepBytes = kAmxStepGroups * kPanelGroupBytes;  ///< B per step
inline constexpr std::size_t kAmxTileBytes = kAmxTileRows * kAmxTileRowBytes;    ///< A per step
static_assert(kAmxTileRows == kRows64TileRows && kAmxTileRowBytes == kRows64TileRowBytes,
              "kRows64's tiles are the kernel's A tiles");
static_assert(kAmxMr == 2 * kAmxTileRows && kAmxNr == 2 * kPanelCols, "2 x 2 accumulator tiles");
static_assert(kAmxTileRowBytes == kPanelCols * sizeof(std::int32_t) &&
                  kAmxTileRowBytes == kPanelGroupBytes && kAmxTileRowBytes == kAmxStepGroups * 4,
              "one tile row = one panel group = 16 int32 columns = 16 groups of A bytes");

/// Tile numbers: C[r][q] is rows 16r.. x panel q; A[r] rows 16r..; B[q] panel q.
enum AmxTile : int { kC00 = 0, kC01 = 1, kC10 = 2, kC11 = 3, kA0 = 4, kA1 = 5, kB0 = 6, kB1 = 7 };

/// In .rodata (internal linkage: a namespace-scope constexpr variable), read by LDTILECFG.
constexpr AmxTileConfig kAmxTileConfig = uniform_amx_tile_config(
    static_cast<std::uint8_t>(kAmxTileRows), static_cast<std::uint16_t>(kAmxTileRowBytes));

/// C tiles := the initial values of the contract: the current C (accumulate), or
/// col_init[j] + row_init[i] wrapping mod 2^32 (null meaning 0).
template <class Ops>
void amx_init_accumulators(const UkernelArgs& p) {
  std::int32_t* const c = p.c;
  const std::size_t ldc_bytes = p.ldc * sizeof(std::int32_t);
  const std::size_t half = kAmxTileRows * p.ldc;  // elements from row 0 to row 16
  if (p.accumulate) {
    Ops::template load<kC00>(c, ldc_bytes);
    Ops::template load<kC01>(c + kPanelCols, ldc_bytes);
    Ops::template load<kC10>(c + half, ldc_bytes);
    Ops::template load<kC11>(c + half + kPanelCols, ldc_bytes);
  } else if (p.row_init == nullptr && p.col_init == nullptr) {
    Ops::template zero<kC00>();
    Ops::template zero<kC01>();
    Ops::template zero<kC10>();
    Ops::template zero<kC11>();
  } else if (p.row_init == nullptr) {
    // Every row is col_init: a stride of 0 loads the same 64 bytes into all 16 rows (the SDM's
    // row address is base + row * stride), no buffer needed. The usual case of the int32 plan.
    Ops::template load<kC00>(p.col_init, 0);
    Ops::template load<kC01>(p.col_init + kPanelCols, 0);
    Ops::template load<kC10>(p.col_init, 0);
    Ops::template load<kC11>(p.col_init + kPanelCols, 0);
  } else {
    alignas(64) std::uint32_t init[kAmxMr][kAmxNr];
    for (std::size_t i = 0; i < kAmxMr; ++i) {
      const std::uint32_t r = static_cast<std::uint32_t>(p.row_init[i]);
      for (std::size_t j = 0; j < kAmxNr; ++j) {
        init[i][j] = r + (p.col_init != nullptr ? static_cast<std::uint32_t>(p.col_init[j]) : 0u);
      }
    }
    constexpr std::size_t kStride = kAmxNr * sizeof(std::uint32_t);
    Ops::template load<kC00>(&init[0][0], kStride);
    Ops::template load<kC01>(&init[0][kPanelCols], kStride);
    Ops::template load<kC10>(&init[kAmxTileRows][0], kStride);
    Ops::template load<kC11>(&init[kAmxTileRows][kPanelCols], kStride);
  }
}

/// One K step of 16 groups: C[r][q] += A[r] * B[q], each A and B tile loaded once, used twice.
/// B tiles are 1 KiB in order (kDot4's panels: stride 64); A tiles rows a_stride apart (64 for
/// kRows64's tile-major packing and the staging buffer, lda for A read in place).
template <class Ops, bool kSignedA>
inline void amx_k_step(const unsigned char* a0, std::size_t a0_stride, const unsigned char* a1,
                       std::size_t a1_stride, const unsigned char* b0, const unsigned char* b1) {
  Ops::template load<kA0>(a0, a0_stride);
  Ops::template load<kB0>(b0, kPanelGroupBytes);
  Ops::template load<kB1>(b1, kPanelGroupBytes);
  if constexpr (kSignedA) {
    Ops::template dpbssd<kC00, kA0, kB0>();
    Ops::template dpbssd<kC01, kA0, kB1>();
  } else {
    Ops::template dpbusd<kC00, kA0, kB0>();
    Ops::template dpbusd<kC01, kA0, kB1>();
  }
  Ops::template load<kA1>(a1, a1_stride);
  if constexpr (kSignedA) {
    Ops::template dpbssd<kC10, kA1, kB0>();
    Ops::template dpbssd<kC11, kA1, kB1>();
  } else {
    Ops::template dpbusd<kC10, kA1, kB0>();
    Ops::template dpbusd<kC11, kA1, kB1>();
  }
}

/// One A tile of a K step read through segment pointers (UkernelArgs::a_segments): rows[r] + off
/// for its 16 rows. Where they are equally spaced (16 pixels of one output row with every tap
/// inside the image, or all of them on the pad buffer), the tile is loaded in place with that
/// spacing as its stride; otherwise its 16 x 64 bytes are copied into stage (stride 64), on
/// every call (the driver reads through segments only where most tiles are even:
/// Ukernel::a_segment_tile_rows). Returns the stride; *tile the address.
inline std::size_t amx_segment_tile(const std::uint8_t* const* rows, std::size_t off,
                                    unsigned char* stage, const unsigned char** tile) {
  if (segments_evenly_spaced(rows, kAmxTileRows)) {
    *tile = rows[0] + off;
    // (0: every row the same 64 bytes, which a stride of 0 loads)
    return static_cast<std::size_t>(rows[1] - rows[0]);
  }
  for (std::size_t r = 0; r < kAmxTileRows; ++r) {
    std::memcpy(stage + r * kAmxTileRowBytes, rows[r] + off, kAmxTileRowBytes);
  }
  *tile = stage;
  return kAmxTileRowBytes;
}

/// One step of an A read in place, staged: bytes [off, off + bytes) of rows [0, rows) (rows
/// `stride` apart from a) into the 32 x 64 bytes of stage (its two A tiles, stride 64), zero
/// elsewhere. For the steps the kernel cannot load in place: a partial row block (the rows past
/// a_rows may not exist) and the K tail (the bytes past the block's groups may not exist).
inline void amx_stage_a(const unsigned char* a, std::size_t stride, std::size_t rows,
                        std::size_t off, std::size_t bytes, unsigned char* stage) {
  for (std::size_t r = 0; r < kAmxMr; ++r) {
    unsigned char* const d = stage + r * kAmxTileRowBytes;
    if (r >= rows) {
      std::memset(d, 0, kAmxTileRowBytes);
    } else if (bytes == kAmxTileRowBytes) {
      std::memcpy(d, a + r * stride + off, kAmxTileRowBytes);
    } else {
      std::memcpy(d, a + r * stride + off, bytes);
      std::memset(d + bytes, 0, kAmxTileRowBytes - bytes);
    }
  }
}

/// The kernel's enter(): every tile 16 rows x 64 bytes (also zeroes them all).
template <class Ops>
void amx_enter() {
  Ops::load_config(kAmxTileConfig);
}

/// The kernel's leave(): the tile state back to its initial (unused) state.
template <class Ops>
void amx_leave() {
  Ops::release();
}

/// C[0:32][0:32] (+)= init + A * B over the K block (gemm_ukernel.h, kRows64): TDPBSSD for int8
/// activations (kSignedA), TDPBUSD for uint8 ones. Only between amx_enter and amx_leave.
template <class Ops, bool kSignedA>
void amx_rows64_kernel(const UkernelArgs& p) {
  amx_init_accumulators<Ops>(p);

  // A packed (kRows64, gemm_ukernel.h: rows 16.. start 16 row shares later, K step s's tiles
  // s KiB in, stride 64) or read in place (a_stride != 0: row i at a + i * a_stride, step s's
  // tiles 64 s bytes in, stride a_stride), the steps that would read rows past a_rows or bytes
  // past the block's groups staged (amx_stage_a), or read through segment pointers (a_segments:
  // amx_segment_tile). a_flip is never set for kRows64 (no offset).
  const auto* a0 = static_cast<const unsigned char*>(p.a);
  const bool direct = p.a_stride != 0;
  const std::size_t a_stride = direct ? p.a_stride : kAmxTileRowBytes;
  const std::size_t a_step = direct ? kAmxTileRowBytes : kAmxTileBytes;
  const unsigned char* a1 = a0 + kAmxTileRows * (direct ? p.a_stride : p.a_row_bytes);
  const bool stage_every_step = direct && p.a_rows < kAmxMr;
  alignas(64) unsigned char a_stage[kAmxMr * kAmxTileRowBytes];
  unsigned char* const stage1 = a_stage + kAmxTileBytes;

  const auto* b0 = static_cast<const unsigned char*>(p.b);
  const unsigned char* b1 = b0 + p.b_panel_stride;
  const std::size_t steps = p.kgroups / kAmxStepGroups;
  const std::size_t tail = p.kgroups % kAmxStepGroups;
  if (p.a_segments != nullptr) {
    // Segments of a_seg_groups groups, a multiple of 16 (Ukernel::a_segment_bytes), and blocks of
    // whole segments: each K step lies in one segment, there is no K tail (tail == 0), and no
    // partial row block (rows past the valid ones point at valid segments, gemm_ukernel.h).
    for (std::size_t s = 0; s < steps; ++s) {
      const std::size_t g = s * kAmxStepGroups;
      const std::uint8_t* const* seg = p.a_segments + g / p.a_seg_groups * kAmxMr;
      const std::size_t off = g % p.a_seg_groups * 4;
      const unsigned char *t0, *t1;
      const std::size_t s0 = amx_segment_tile(seg, off, a_stage, &t0);
      const std::size_t s1 = amx_segment_tile(seg + kAmxTileRows, off, stage1, &t1);
      amx_k_step<Ops, kSignedA>(t0, s0, t1, s1, b0 + s * kAmxStepBytes, b1 + s * kAmxStepBytes);
    }
  } else {
    for (std::size_t s = 0; s < steps; ++s) {
      if (stage_every_step) {
        amx_stage_a(a0, p.a_stride, p.a_rows, s * kAmxTileRowBytes, kAmxTileRowBytes, a_stage);
        amx_k_step<Ops, kSignedA>(a_stage, kAmxTileRowBytes, stage1, kAmxTileRowBytes,
                                  b0 + s * kAmxStepBytes, b1 + s * kAmxStepBytes);
      } else {
        amx_k_step<Ops, kSignedA>(a0 + s * a_step, a_stride, a1 + s * a_step, a_stride,
                                  b0 + s * kAmxStepBytes, b1 + s * kAmxStepBytes);
      }
    }
    if (tail != 0) {
      // The block's last `tail` groups of each panel, then zero rows (see the file comment).
      alignas(64) unsigned char b_tail[2][kAmxStepBytes];
      const std::size_t real = tail * kPanelGroupBytes;
      std::memcpy(b_tail[0], b0 + steps * kAmxStepBytes, real);
      std::memcpy(b_tail[1], b1 + steps * kAmxStepBytes, real);
      std::memset(b_tail[0] + real, 0, kAmxStepBytes - real);
      std::memset(b_tail[1] + real, 0, kAmxStepBytes - real);
      if (direct) {
        amx_stage_a(a0, p.a_stride, p.a_rows, steps * kAmxTileRowBytes, tail * 4, a_stage);
        amx_k_step<Ops, kSignedA>(a_stage, kAmxTileRowBytes, stage1, kAmxTileRowBytes, b_tail[0],
                                  b_tail[1]);
      } else {
        amx_k_step<Ops, kSignedA>(a0 + steps * a_step, a_stride, a1 + steps * a_step, a_stride,
                                  b_tail[0], b_tail[1]);
      }
    }
  }

  std::int32_t* const c = p.c;
  const std::size_t ldc_bytes = p.ldc * sizeof(std::int32_t);
  const std::size_t half = kAmxTileRows * p.ldc;
  Ops::template store<kC00>(c, ldc_bytes);
  Ops::template store<kC01>(c + kPanelCols, ldc_bytes);
  Ops::template store<kC10>(c + half, ldc_bytes);
  Ops::template store<kC11>(c + half + kPanelCols, ldc_bytes);
}

}  // namespace QPARITY_GEMM_ISA_NS
}  // namespace internal
}  // namespace qparity
