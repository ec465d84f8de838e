// INTERNAL: the GEMM driver's per-thread working memory (kernels/gemm/gemm_tile.cc). Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/gemm/gemm_indirect_a.h"
#include "kernels/support/aligned_buffer.h"

namespace qparity {
namespace internal {

/// Buffers of one tile, reused across tiles and calls (no allocation in steady state). The
/// row-block entries (a_packed, a_gathered, segments, row_sum, row_max_abs) stay valid for the
/// following tiles of the same row block within one call (gemm_run_tiles' rows_ready).
struct Scratch {
  AlignedBuffer<std::uint8_t> a_packed;    ///< A packed for the micro-kernel, every K block
  AlignedBuffer<std::uint8_t> a_gathered;  ///< rows x K of an indirect A (the current row block)
  SegmentTable segments;                   ///< an indirect A's segment pointers
  AlignedBuffer<std::int32_t> acc32;       ///< mc x nc int32
  AlignedBuffer<std::int64_t> acc64;       ///< mc x nc int64 (wide model with K > kMaxKBlock)
  AlignedBuffer<std::int32_t> staged;      ///< mc x nc int32 for the requantizer (wide models)
  std::vector<std::int64_t> row_sum;
  std::vector<std::int64_t> row_max_abs;
  std::vector<std::int32_t> col_init;
  std::vector<std::int32_t> row_init;
  /// An element of a wide model whose accumulator leaves int32, requantized on its own.
  struct Wide {
    std::size_t i, j;
    std::int64_t v;
  };
  std::vector<Wide> exceptions;
};

/// The calling thread's Scratch.
inline Scratch& scratch() {
  static thread_local Scratch s;
  return s;
}

}  // namespace internal
}  // namespace qparity
