// INTERNAL: the GEMM driver's entry for other operators (kernels/conv). Not installed.
//
// The driver multiplies an M x K activation operand by a PackedGemm's weights. The operand is
// either a strided matrix (gemm(), a 1x1 convolution over NHWC) or an *indirection* source (an
// implicit-GEMM convolution): row i is the concatenation of `taps` segments of `seg` contiguous
// values, one per filter tap, each the input pixel the tap reads or, for a tap in the padding,
// "seg copies of the pad value" (a padded tap holds the input zero point). Everything the driver
// derives from A (packing, row sums, the saturation bound, the sequential saturating fallback)
// reads rows through this one description, so both kinds of operand give exactly reference::gemm
// on the im2col matrix.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/gemm/packed_gemm_data.h"
#include "qparity/output_stage.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace internal {

/// The convolution window of an indirect A: tap t = ky * kernel_w + kx of output pixel (oy, ox)
/// reads input pixel (iy, ix) = (oy * stride_h + ky * dilation_h - pad_top,
/// ox * stride_w + kx * dilation_w - pad_left), at element offset (iy * in_w + ix) * pixel_stride
/// of its image, or is padding when (iy, ix) is outside in_h x in_w. The offsets are computed
/// where they are used rather than stored: a table of them (8 bytes per tap and output pixel,
/// 903 KB for MobileNet v2's first layer, six times its input) was read on every call, and those
/// loads were the largest cost of gathering that layer's rows.
struct ImplicitWindow {
  std::size_t in_h = 0, in_w = 0, pixel_stride = 0, out_w = 0;
  std::size_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0;
  std::size_t dilation_h = 0, dilation_w = 0, pad_top = 0, pad_left = 0;
};

/// The A operand of one GEMM run. Rows are numbered 0..m-1 of the run.
template <class AType>
struct AOperand {
  /// Strided: row i is a[i * lda + k], k < K. Indirect: the base every offset is relative to.
  const AType* a = nullptr;
  std::size_t lda = 0;

  /// Indirect (window != nullptr): row i is output pixel r = i % rows_per_image (oy = r / out_w,
  /// ox = r % out_w) of image i / rows_per_image, whose elements start at a + image * image_stride;
  /// segment t (K values [t * seg, (t + 1) * seg)) is tap t of *window, or `seg` copies of `pad`.
  /// taps == kernel_h * kernel_w, taps * seg == K.
  const ImplicitWindow* window = nullptr;
  std::size_t taps = 0, seg = 0, rows_per_image = 1, image_stride = 0;
  AType pad{};

  bool indirect() const { return window != nullptr; }
};

/// How a run's rows are cut into row blocks (a tile is a row block x a column block).
/// blocks == 0: the PackedGemm's mc rows each, the last one shorter: the tile API's tiles
/// (gemm_tile_count). blocks > 0 (the threaded entry points, gemm_thread_split.h): that many
/// blocks of nearly equal whole MR-row groups (block b: groups [R * b / blocks,
/// R * (b + 1) / blocks) of the R = ceil(m / MR)), so that tiles of equal cost split evenly over
/// threads. Valid for the main kernel only (m > kNarrowMaxRows), with
/// ceil(m / mc) <= blocks <= R, so that no block is taller than mc. Any cut gives the same bits:
/// each output is computed in the same order whatever tile it falls in.
struct RowBlocks {
  std::size_t blocks = 0;
};

struct RowSpan {
  std::size_t begin, end;
};

inline std::size_t row_block_count(const Blocking& bk, std::size_t m, RowBlocks rb) {
  return rb.blocks != 0 ? rb.blocks : ceil_div(m, bk.mc);
}

/// Rows [begin, end) of row block `b`.
inline RowSpan row_block_span(const Blocking& bk, std::size_t m, RowBlocks rb, std::size_t b) {
  if (rb.blocks == 0) return {b * bk.mc, std::min(m, (b + 1) * bk.mc)};
  const std::size_t mr = bk.kernel->mr, groups = ceil_div(m, mr);
  return {std::min(m, mr * (groups * b / rb.blocks)), std::min(m, mr * (groups * (b + 1) / rb.blocks))};
}

/// Number of independent tiles of a run with m rows (gemm_tile_count with the default blocks).
std::size_t gemm_tile_count(const PackedGemmData& d, std::size_t m, RowBlocks row_blocks = {});

/// Runs tiles [begin, end) of C = requant(A x B): C row i, column j at c[i * ldc + j], the tiles
/// of `row_blocks`. Assumes a validated call (public entry points validate; this does not).
template <class AType, class Out>
void gemm_run_tiles(const PackedGemmData& d, const AOperand<AType>& a, std::size_t m,
                    std::int32_t a_zero_point, const OutputParams& output, Out* c, std::size_t ldc,
                    std::size_t begin, std::size_t end, RowBlocks row_blocks = {});

#define QPARITY_GEMM_RUN_TILES_EXTERN(A, O)                                                      \
  extern template void gemm_run_tiles<A, O>(const PackedGemmData&, const AOperand<A>&, std::size_t, \
                                            std::int32_t, const OutputParams&, O*, std::size_t,  \
                                            std::size_t, std::size_t, RowBlocks);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_GEMM_RUN_TILES_EXTERN)
#undef QPARITY_GEMM_RUN_TILES_EXTERN

}  // namespace internal
}  // namespace qparity
