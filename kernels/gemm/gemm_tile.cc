// The GEMM driver's tile loop: splits C into independent mc x nc tiles, packs A per (tile, K block)
// into the micro-kernel's format, runs the micro-kernel over the tile, then forms the exact
// accumulator of the chosen model and requantizes. Under the int32-folded plan with an
// EpiloguePlan (the common case, kernels/gemm/gemm_epilogue.h) each MR x NR block is requantized
// right after its last K block, from L1, with parameters prepared at packing time (on AVX-512 VNNI
// by the micro-kernel itself, from registers: FusedFn); otherwise the whole tile is requantized by
// a separate pass with the SIMD rounding-core kernels while it is still in cache.
//
// The identity everything rests on (all terms exact in int64, or modulo 2^32 for the int32 model):
//   sum_k (a - za)(b - zb) = raw - (c + za) * colsum_b - zb * rowsum_a + K * za * zb
// where raw = sum_k (a + c) * b is what the micro-kernel computes and c is the format's activation
// offset (128 for int8 activations on the VPDPBUSD / VPMADDUBSW formats, else 0). For the
// pairsat16 model, raw is the pair-saturated sum and the same correction is exactly how
// Int16PairSaturatingAccumulator defines the result.
//
// A is a strided matrix (gemm) or an indirection source (implicit-GEMM convolution,
// gemm_driver.h): an indirect row block is gathered once per row block into a dense rows x K
// buffer (kernels/gemm/gemm_indirect_a.h), which then serves packing, the row statistics and the
// saturating fallback exactly as a strided A does; or, when its segments are whole K groups, it
// is packed or read in place through a table of segment pointers.
//
// run_tile's steps, in order: plan_tile (the tile's shape and how A reaches the kernel),
// strided_rows (the rows as a strided matrix, gathered if need be), prepare_row_block (row
// statistics and packed A, once per row block), fold_initial_values (the int32 model's
// compensation terms), run_kernels (the K blocks and the fused epilogue) and, without a fused
// epilogue, requantize_tile (the accumulator model's last steps and a separate requantization).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_indirect_a.h"
#include "kernels/gemm/gemm_pack_a.h"
#include "kernels/gemm/gemm_scratch.h"
#include "kernels/gemm/packed_gemm_data.h"
#include "qparity/policies.h"
#include "qparity/type_pairs.h"
#include "rounding/output_stage_plan.h"
#include "rounding/requantize_kernel.h"

namespace qparity {
namespace internal {
namespace {

/// How one tile runs. Derived from the call's shape and the operand's kind only, so that every
/// tile of a row block agrees on what the first one prepared (rows_ready).
struct TilePlan {
  const Ukernel* kernel;
  std::size_t i0, j0, rows, cols;   ///< the tile's place in C
  std::size_t MR, NR, rows_pad, cols_pad;
  std::size_t ld;                   ///< row stride of the int32 (and int64) accumulators
  bool folded;                      ///< AccumulationPlan::kFoldedInt32
  bool wide_chunks;                 ///< wide model, K > kMaxKBlock: int64 sums of K blocks
  bool rows64;                      ///< PackFormat::kRows64
  /// An indirect A whose segments are whole K groups of the kDot4 format, under a model that
  /// needs no whole-row statistic (int32-folded, no weight zero point: no row sums, no
  /// saturation), is packed straight from its segments; any other indirect A is first gathered
  /// into a rows x K copy that then serves packing, row sums and the saturating fallback like a
  /// strided A.
  bool pack_from_segments;
  /// A strided A whose rows are whole K groups is read in place by a kernel that can (no
  /// packing: the kDot4 kernels broadcast each row's 4 bytes straight from A, XORing the +128 of
  /// int8 activations; the AMX kernel loads its A tiles with a stride of lda); so is the gathered
  /// copy of an indirect A, its rows padded to whole groups (B is zero past K, so the padding bytes
  /// add nothing). Measured on MobileNet v2's 224x224x3 -> 32 3x3 stride 2 layer (K = 27): packing
  /// was 16 % of it. So is a strided A whose K is not a multiple of 4, in every tile whose last
  /// group reads stay inside A: the 1-3 bytes a row's last group reads past K belong to the next
  /// rows (or the stride's gap) and meet B's zeros, like the padding of the gathered copy; only the
  /// tile that ends at A's last row, whose reads would pass A's end, is packed. Measured on the
  /// same shape as a GEMM (mnv1_l1_3x3s2, 12544 x 32 x 27, Zen 4): pack_a was 36 % of the time.
  bool direct_a;
  /// So is an indirect A whose segments are whole K groups, through a table of segment pointers,
  /// with K blocks of whole segments. Packing costs in proportion to 1 / N (a packed row block
  /// serves every column block): measured, 56x56x64->64 3x3 +7 %, the 128..512-channel 3x3
  /// layers unchanged.
  bool direct_segments;
  std::size_t seg_groups;           ///< K groups per segment of an indirect A (else 0)
  std::size_t kc;                   ///< K groups per block
  std::size_t full_block_bytes;     ///< packed A bytes of a block of kc groups
};

template <class AType>
TilePlan plan_tile(const PackedGemmData& d, const AOperand<AType>& src, std::size_t m,
                   std::size_t tile, RowBlocks row_blocks) {
  TilePlan p;
  const Blocking bk = blocking_for(d, m);
  const Ukernel& kernel = *bk.kernel;
  p.kernel = &kernel;
  const std::size_t tiles_n = ceil_div(d.n, bk.nc);
  const RowSpan span = row_block_span(bk, m, row_blocks, tile / tiles_n);
  p.i0 = span.begin;
  p.j0 = (tile % tiles_n) * bk.nc;
  p.rows = span.end - span.begin;
  p.cols = std::min(bk.nc, d.n - p.j0);
  p.MR = kernel.mr;
  p.NR = kernel.nr;
  p.rows_pad = ceil_div(p.rows, p.MR) * p.MR;
  p.cols_pad = ceil_div(p.cols, p.NR) * p.NR;
  p.ld = p.cols_pad;
  p.folded = d.plan == AccumulationPlan::kFoldedInt32;
  p.wide_chunks = !p.folded && d.k > kMaxKBlock;
  p.rows64 = kernel.format == PackFormat::kRows64;
  // (Segments serve only a model that needs no whole-row statistic: see pack_from_segments.)
  const bool segments_suffice = src.indirect() && p.folded && !d.has_b_zero_point;
  p.pack_from_segments = segments_suffice && kernel.format == PackFormat::kDot4 && src.seg % 4 == 0;
  // Bytes the last group of a row reads past K; they are inside A when at least that many bytes of
  // A follow the tile's last row's K values: (rows after the tile) x lda >= the overhang (the rows
  // of a strided A are lda >= K bytes apart).
  const std::size_t overhang = ceil_div(d.k, std::size_t{4}) * 4 - d.k;
  const bool tail_inside_a = overhang == 0 || (m - p.i0 - p.rows) * src.lda >= overhang;
  p.seg_groups = src.indirect() ? src.seg / 4 : 0;
  // A kernel that loads runs of rows with one stride copies the uneven runs on every call
  // (Ukernel::a_segment_tile_rows): through segments only where most runs lie in one output row.
  const bool runs_mostly_even =
      kernel.a_segment_tile_rows == 0 ||
      (src.indirect() && src.window->out_w >= 2 * kernel.a_segment_tile_rows);
  p.direct_segments = kernel.direct_a && segments_suffice &&
                      src.seg % kernel.a_segment_bytes == 0 && runs_mostly_even &&
                      p.seg_groups <= bk.kc;
  p.direct_a = kernel.direct_a &&
               (src.indirect() ? !p.pack_from_segments && !p.direct_segments : tail_inside_a);
  p.kc = p.direct_segments ? bk.kc / p.seg_groups * p.seg_groups : bk.kc;
  p.full_block_bytes =
      p.rows64 ? p.rows_pad * rows64_row_bytes(p.kc) : p.rows_pad * p.kc * 4;
  return p;
}

/// The tile's rows as a strided matrix (null when A is packed from its segments).
template <class AType>
struct StridedRows {
  const AType* a;
  std::size_t lda;
};

/// A itself, or the gathered copy of an indirect row block, made by the first tile of the row
/// block (!rows_ready) and reused by the next ones.
template <class AType>
StridedRows<AType> strided_rows(const TilePlan& p, const PackedGemmData& d,
                                const AOperand<AType>& src, bool rows_ready, Scratch& s) {
  if (!src.indirect()) return {src.a + p.i0 * src.lda, src.lda};
  if (p.pack_from_segments || p.direct_segments) return {nullptr, 0};
  // Rows padded to whole K groups for a kernel that reads A in place (direct_a, which holds for
  // every gathered A when the kernel can).
  const std::size_t lda = p.kernel->direct_a ? ceil_div(d.k, 4) * 4 : d.k;
  if (!rows_ready) {
    s.a_gathered.resize(p.rows * lda);
    gather_rows(src, p.i0, p.rows, reinterpret_cast<AType*>(s.a_gathered.data()), lda);
  }
  return {reinterpret_cast<const AType*>(s.a_gathered.data()), lda};
}

/// Everything that depends only on the tile's rows, prepared by the first tile of a row block and
/// reused by the following tiles of the same rows: the row statistics (sums for the weight zero
/// point / wide correction, maximum |a - za| for the saturation bound) and A packed for the whole
/// K, K block after K block (or the segment table a kernel reads A through).
template <class AType>
void prepare_row_block(const TilePlan& p, const PackedGemmData& d, const AOperand<AType>& src,
                       const StridedRows<AType>& strided, std::int32_t za, Scratch& s) {
  const bool need_row_sum = d.has_b_zero_point || !p.folded;
  const bool is_sat = d.accumulator.kind == AccumulatorKind::kSaturating;
  if (need_row_sum || is_sat) {  // (the only readers of row_sum / row_max_abs)
    s.row_sum.assign(p.rows, 0);
    s.row_max_abs.assign(p.rows, 0);
    for (std::size_t r = 0; r < p.rows; ++r) {
      std::int64_t sum = 0, mx = 0;
      const AType* row = strided.a + r * strided.lda;
      for (std::size_t k = 0; k < d.k; ++k) {
        sum += row[k];
        const std::int64_t v = static_cast<std::int64_t>(row[k]) - za;
        mx = std::max(mx, v < 0 ? -v : v);
      }
      s.row_sum[r] = sum;
      s.row_max_abs[r] = mx;
    }
  }
  const std::size_t blocks = (p.direct_a || p.direct_segments) ? 0 : ceil_div(d.kgroups, p.kc);
  s.a_packed.resize(p.full_block_bytes * blocks);
  if (p.direct_segments) {
    build_segment_table(p.MR, src, p.i0, p.rows, s.segments);
    return;
  }
  if (p.pack_from_segments) {
    pack_a_from_segments(d, *p.kernel, src, p.i0, p.rows, p.kc, p.full_block_bytes,
                         s.a_packed.data(), s.segments);
    return;
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t g0 = b * p.kc, kg = std::min(p.kc, d.kgroups - g0);
    std::size_t row_bytes = 0;
    pack_a(d, *p.kernel, strided.a, strided.lda, p.rows, g0 * d.group, kg,
           s.a_packed.data() + b * p.full_block_bytes, &row_bytes);
  }
}

/// The int32 model's initial values, folded into the micro-kernel: everything but the products.
struct InitialValues {
  const std::int32_t* col_init = nullptr;  ///< per column of the tile (cols_pad)
  const std::int32_t* row_init = nullptr;  ///< per row (rows_pad); a per-tensor weight zero point
};

InitialValues fold_initial_values(const TilePlan& p, const PackedGemmData& d, std::int32_t za,
                                  std::int64_t c_off, Scratch& s) {
  InitialValues v;
  if (!p.folded) return v;
  s.col_init.resize(p.cols_pad);
  const std::int32_t* base =
      (c_off != 0 ? d.col_base_signed.data() : d.col_base_unsigned.data()) + p.j0;
  const std::int32_t* coef = d.col_coef.data() + p.j0;
  const std::uint32_t uza = static_cast<std::uint32_t>(za);
  for (std::size_t jj = 0; jj < p.cols; ++jj) {
    s.col_init[jj] = static_cast<std::int32_t>(static_cast<std::uint32_t>(base[jj]) +
                                               uza * static_cast<std::uint32_t>(coef[jj]));
  }
  for (std::size_t jj = p.cols; jj < p.cols_pad; ++jj) s.col_init[jj] = 0;
  v.col_init = s.col_init.data();
  if (d.has_b_zero_point && !d.b_zero_point_per_channel) {
    s.row_init.assign(p.rows_pad, 0);
    for (std::size_t r = 0; r < p.rows; ++r) {
      s.row_init[r] = wrap_to_int32(-static_cast<std::int64_t>(d.b_zero_point[0]) * s.row_sum[r]);
    }
    v.row_init = s.row_init.data();
  }
  return v;
}

/// The fused epilogue's output stage constants (rounding/output_stage_plan.h, as the SIMD
/// requantization kernels use them).
void epilogue_output_stage(const OutputParams& o, bool zero_point_inside, EpilogueArgs& e) {
  const OutputStagePlan plan = plan_output_stage(o, zero_point_inside);
  e.lo = plan.lo;
  e.hi = plan.hi;
  e.add = plan.add;
  e.zero_point = static_cast<float>(o.zero_point);
}

/// The saturating output stage's function when the call clamps to Out's whole range and the
/// plan has one (saturated), else the clamping one (plain); Fns: EpilogueFns or FusedFns.
template <class Out, class Fns>
auto output_stage_fn(bool whole_range, const Fns& saturated, const Fns& plain) {
  const auto f = whole_range ? saturated.template get<Out>() : nullptr;
  return f != nullptr ? f : plain.template get<Out>();
}

/// The micro-kernel over the tile, K block after K block, into s.acc32 (and, for wide_chunks,
/// the int64 sums of the blocks into s.acc64). With a fused epilogue (gemm_epilogue.h) each
/// MR x NR block is requantized into dst right after its last K block, from L1; with a single K
/// block the blocks need not outlive their epilogue, so they all use the first MR x NR of the
/// buffer (ldc = NR) and stay in L1.
template <class AType, class Out>
void run_kernels(const TilePlan& p, const PackedGemmData& d, const AOperand<AType>& src,
                 const StridedRows<AType>& strided, std::int64_t c_off, const InitialValues& init,
                 const OutputParams& output, Out* dst, std::size_t ldc, Scratch& s) {
  // Locals: the kernel calls are indirect, so fields read through references would be reloaded
  // after each.
  const Ukernel& kernel = *p.kernel;
  const std::size_t MR = p.MR, NR = p.NR, rows_pad = p.rows_pad, cols_pad = p.cols_pad;
  const std::size_t rows = p.rows, cols = p.cols, j0 = p.j0, ld = p.ld, kc = p.kc;
  const bool wide_chunks = p.wide_chunks, rows64 = p.rows64, direct_a = p.direct_a;
  const bool direct_segments = p.direct_segments;
  const std::size_t seg_groups = p.seg_groups, full_block_bytes = p.full_block_bytes;
  const AType* const a = strided.a;
  const std::size_t lda = strided.lda;
  const std::int32_t* const col_init = init.col_init;
  const std::int32_t* const row_init = init.row_init;

  s.acc32.resize(rows_pad * ld);
  std::int32_t* const acc = s.acc32.data();
  if (wide_chunks) {
    s.acc64.resize(rows_pad * ld);
    std::memset(s.acc64.data(), 0, s.acc64.size() * sizeof(std::int64_t));
  }
  std::int64_t* const acc64 = s.acc64.data();

  const EpiloguePlan& ep = d.epilogue;
  const bool fused = ep.enabled;
  const bool single_block = d.kgroups <= kc;
  EpilogueFn<Out> epilogue_fn = nullptr;
  EpilogueArgs ea;
  // With a clamp to Out's whole range, the saturating output stage where the plan has one (for
  // the separate epilogue and the fused kernels alike).
  const bool whole_range = clamps_to_whole_range<Out>(output);
  if (fused) {
    epilogue_fn = output_stage_fn<Out>(whole_range, ep.fns_saturated, ep.fns);
    epilogue_output_stage(output, d.core == RoundingCore::kFloat32ZeroPointInside, ea);
    ea.chan_stride = ep.per_channel ? ep.vec_bytes : 0;
    ea.ld = single_block ? NR : ld;
  }
  const UkernelFn fn = (kernel.fn_signed_a && std::is_signed<AType>::value)
                           ? kernel.fn_signed_a : kernel.fn;
  // A kernel fused with the epilogue (gemm_epilogue.h FusedFn) requantizes each block of the last
  // K block from registers; otherwise the kernel stores the block and epilogue_fn reads it back.
  FusedFn<Out> fused_fn = nullptr;
  if (fused && &kernel == &d.kernel) {
    fused_fn = output_stage_fn<Out>(whole_range, ep.fused_saturated, ep.fused);
  }
  // The last column block of the tile, when at most one panel of it is valid, runs the one-panel
  // variant of the main kernel (PackedGemmData::one_panel): the same sums, without the padding
  // panels' products. Decided by the column block alone, so every K block of it agrees.
  const bool has_one_panel = &kernel == &d.kernel && d.one_panel.fn != nullptr;
  const UkernelFn one_panel_fn = has_one_panel ? d.one_panel.fn : nullptr;
  FusedFn<Out> one_panel_fused_fn = nullptr;
  if (has_one_panel && fused_fn != nullptr) {
    one_panel_fused_fn =
        output_stage_fn<Out>(whole_range, ep.fused_saturated_one_panel, ep.fused_one_panel);
  }

  // A row block with at most kRowTailMaxRows valid rows runs the row-tail kernel once per row
  // (PackedGemmData::row_tail), then, on the last K block, the block's separate epilogue. A read
  // in place only (a packed block's layout is the 8-row kernel's).
  const UkernelFn row_tail_fn =
      (&kernel == &d.kernel && direct_a && d.row_tail.fn != nullptr) ? d.row_tail.fn : nullptr;

  // A kernel that starts faster from zero (Ukernel::col_init_in_epilogue) leaves the column
  // initial values to the separate epilogue, where the block is one K block and has no row
  // initial values (a per-tensor weight zero point's row term stays in the kernel's init).
  const bool defer_col_init = kernel.col_init_in_epilogue && fused && single_block &&
                              fused_fn == nullptr && row_init == nullptr && col_init != nullptr;

  // One argument block for every kernel call of the tile, each call setting the fields it
  // uses: value-initialising it per call was a `rep stos` of 112 bytes, ~15 % of a short-K
  // 1x1 convolution (112x112x16 -> 96).
  UkernelArgs args;
  // The kernel's per-thread state (AMX tiles) for the whole tile; only this loop's kernels and
  // epilogues run while it is held.
  const UkernelSession session(kernel);
  for (std::size_t g0 = 0; g0 < d.kgroups; g0 += kc) {
    const std::size_t kg = std::min(kc, d.kgroups - g0);
    const std::size_t a_row_bytes = rows64 ? rows64_row_bytes(kg) : 0;
    const std::uint8_t* a_block = (direct_a || direct_segments)
                                      ? nullptr
                                      : s.a_packed.data() + (g0 / kc) * full_block_bytes;
    const bool accumulate = g0 > 0 && !wide_chunks;
    const bool last = g0 + kc >= d.kgroups;
    for (std::size_t jj = 0; jj < cols_pad; jj += NR) {
      const std::uint8_t* b = d.b_packed.data() + ((j0 + jj) / kPanelCols) * d.panel_stride +
                              g0 * kPanelGroupBytes;
      if (fused && last) {
        ea.cols = std::min(NR, cols - jj);
        ea.chan = ep.chan.data() + (ep.per_channel ? (j0 + jj) / ep.lanes * ep.vec_bytes : 0);
      }
      const bool one_panel = one_panel_fn != nullptr && cols - jj <= kPanelCols;
      const UkernelFn block_fn = one_panel ? one_panel_fn : fn;
      // (A null one-panel fused function: the kernel, then the block's separate epilogue.)
      const FusedFn<Out> block_fused_fn = one_panel ? one_panel_fused_fn : fused_fn;
      for (std::size_t ii = 0; ii < rows_pad; ii += MR) {
        args.kgroups = kg;
        const std::size_t valid_rows = std::min(MR, rows - ii);
        if (row_tail_fn != nullptr && valid_rows <= kRowTailMaxRows) {
          std::int32_t* const c = (fused && single_block) ? acc : acc + ii * ld + jj;
          const std::size_t c_ld = (fused && single_block) ? NR : ld;
          for (std::size_t r = 0; r < valid_rows; ++r) {
            args.a = reinterpret_cast<const std::uint8_t*>(a + (ii + r) * lda) + g0 * 4;
            args.a_stride = lda;
            args.a_rows = 1;
            args.a_flip = c_off != 0;
            args.b = b;
            args.b_panel_stride = d.panel_stride;
            args.c = c + r * c_ld;
            args.ldc = c_ld;
            args.col_init = (col_init && g0 == 0) ? col_init + jj : nullptr;
            args.row_init = (row_init && g0 == 0) ? row_init + ii + r : nullptr;
            args.accumulate = accumulate;
            row_tail_fn(args);
          }
          if (fused && last) {
            ea.acc = c;
            ea.rows = valid_rows;
            ea.col_add = nullptr;
            epilogue_fn(ea, dst + ii * ldc + jj, ldc);
          }
          continue;
        }
        if (direct_segments) {
          args.a_segments =
              s.segments.entries.data() + (ii / MR) * src.taps * MR + (g0 / seg_groups) * MR;
          args.a_seg_groups = seg_groups;
          args.a_flip = c_off != 0;
        } else if (direct_a) {
          args.a = reinterpret_cast<const std::uint8_t*>(a + ii * lda) + g0 * 4;
          args.a_stride = lda;
          args.a_rows = std::min(MR, rows - ii);
          args.a_flip = c_off != 0;
        } else {
          args.a = rows64 ? a_block + ii * a_row_bytes : a_block + ii * kg * 4;
          args.a_row_bytes = a_row_bytes;
        }
        args.b = b;
        args.b_panel_stride = d.panel_stride;
        args.c = (fused && single_block) ? acc : acc + ii * ld + jj;
        args.ldc = (fused && single_block) ? NR : ld;
        args.col_init = (col_init && g0 == 0) ? col_init + jj : nullptr;
        args.row_init = (row_init && g0 == 0) ? row_init + ii : nullptr;
        args.accumulate = accumulate;
        if (fused && last) {
          ea.acc = args.c;
          ea.rows = std::min(MR, rows - ii);
          ea.col_add = nullptr;
          if (defer_col_init && !one_panel) {
            ea.col_add = args.col_init;
            args.col_init = nullptr;
          }
          if (block_fused_fn) {
            block_fused_fn(args, ea, dst + ii * ldc + jj, ldc);
          } else {
            block_fn(args);
            epilogue_fn(ea, dst + ii * ldc + jj, ldc);
          }
        } else {
          block_fn(args);
        }
      }
    }
    if (wide_chunks) {
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) acc64[r * ld + c] += acc[r * ld + c];
      }
    }
  }
}

std::int8_t packed_b_at(const PackedGemmData& d, std::size_t k, std::size_t j) {
  const std::uint8_t* panel = d.b_packed.data() + (j / kPanelCols) * d.panel_stride;
  const std::size_t slot = ((k / d.group) * kPanelCols + j % kPanelCols) * d.group + k % d.group;
  if (d.kernel.format == PackFormat::kPairs16) {
    std::int16_t v;
    std::memcpy(&v, panel + slot * 2, 2);
    return static_cast<std::int8_t>(v);
  }
  return static_cast<std::int8_t>(panel[slot]);
}

/// The SaturatingAccumulator definition for one element whose partial sums may leave the range:
/// products in index order, each addition clamped (accumulator.h, detail::saturating_dot).
template <class AType>
std::int64_t saturating_element(const PackedGemmData& d, const AType* a_row, std::int32_t za,
                                std::size_t j) {
  struct Column {
    const PackedGemmData* d;
    std::size_t j;
    std::int8_t operator[](std::size_t k) const { return packed_b_at(*d, k, j); }
  };
  return detail::saturating_dot(d.accumulator.bits, a_row, Column{&d, j}, d.k, za,
                                d.b_zero_point[j], d.bias[j]);
}

/// The reference's requantization of a wide (> int32) accumulator (reference_gemm.h gemm_loop).
template <class Out>
Out requantize_wide_element(const PackedGemmData& d, std::int64_t v, std::size_t j,
                            const OutputParams& o) {
  const RequantParams& p = d.params[d.per_channel ? j : 0];
  return visit_rounding_core(d.core, [&](auto policy) -> Out {
    using Policy = decltype(policy);
    std::int64_t r;
    if constexpr (!Policy::kAcceptsWideInput) {
      return saturating_cast<Out>(requantize_to_output<Policy>(wrap_to_int32(v), p, o));
    } else if constexpr (Policy::kZeroPointInside) {
      r = Policy::requantize_wide_with_zero_point(v, p, o.zero_point);
    } else {
      r = static_cast<std::int64_t>(Policy::requantize_wide(v, p)) + o.zero_point;
    }
    return saturating_cast<Out>(static_cast<std::int32_t>(clamp_i64(r, o.qmin, o.qmax)));
  });
}

/// The int32 model's last steps on the accumulators (in place): a per-channel weight zero point's
/// row term, then wrapN's narrowing.
void finish_folded(const TilePlan& p, const PackedGemmData& d, Scratch& s) {
  std::int32_t* const acc = s.acc32.data();
  const std::size_t ld = p.ld;
  if (d.b_zero_point_per_channel && d.has_b_zero_point) {
    for (std::size_t r = 0; r < p.rows; ++r) {
      for (std::size_t c = 0; c < p.cols; ++c) {
        const std::uint32_t t = static_cast<std::uint32_t>(static_cast<std::uint64_t>(
            static_cast<std::int64_t>(d.b_zero_point[p.j0 + c]) * s.row_sum[r]));
        acc[r * ld + c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[r * ld + c]) - t);
      }
    }
  }
  if (d.accumulator.kind == AccumulatorKind::kWrapping && d.accumulator.bits < 32) {
    const int sh = 32 - d.accumulator.bits;
    for (std::size_t r = 0; r < p.rows; ++r) {
      for (std::size_t c = 0; c < p.cols; ++c) {
        const std::uint32_t u = static_cast<std::uint32_t>(acc[r * ld + c]) << sh;
        acc[r * ld + c] = static_cast<std::int32_t>(u) >> sh;
      }
    }
  }
}

/// The exact wide models: exact dot products in int64, then the model (satN, wrapN, int64), staged
/// as int32 for the SIMD requantizer into s.staged; elements a wide-input policy must see whole go
/// to s.exceptions instead.
template <class AType>
void stage_exact_wide(const TilePlan& p, const PackedGemmData& d, const StridedRows<AType>& strided,
                      std::int32_t za, std::int64_t c_off, Scratch& s) {
  const std::size_t ld = p.ld, j0 = p.j0;
  const std::int32_t* const acc = s.acc32.data();
  const std::int64_t* const acc64 = s.acc64.data();
  s.staged.resize(p.rows_pad * ld);
  std::int32_t* const staged = s.staged.data();
  const int bits = d.accumulator.bits;
  const bool policy_wide = visit_rounding_core(d.core, [](auto policy) {
    return decltype(policy)::kAcceptsWideInput;
  }) && bits > 32;
  const std::int64_t sat_hi = bits >= 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1;
  const std::int64_t sat_lo = -sat_hi - 1;
  const std::int64_t kza = static_cast<std::int64_t>(d.k) * za;
  for (std::size_t r = 0; r < p.rows; ++r) {
    for (std::size_t c = 0; c < p.cols; ++c) {
      const std::size_t j = j0 + c;
      const std::int64_t raw = p.wide_chunks ? acc64[r * ld + c] : acc[r * ld + c];
      const std::int64_t zb = d.b_zero_point[j];
      const std::int64_t exact = raw - (c_off + za) * d.col_sum[j] - zb * s.row_sum[r] + kza * zb;
      std::int64_t v;
      switch (d.accumulator.kind) {
        case AccumulatorKind::kSaturating:
          if (s.row_max_abs[r] * d.col_abs_sum[j] <= sat_hi) {  // no partial sum can saturate
            v = clamp_i64(exact + clamp_i64(d.bias[j], sat_lo, sat_hi), sat_lo, sat_hi);
          } else {
            v = saturating_element(d, strided.a + r * strided.lda, za, j);
          }
          break;
        case AccumulatorKind::kWrapping:
          v = wrap_to_bits(static_cast<std::uint64_t>(exact + d.bias[j]), bits);
          break;
        default:  // kInt64
          v = exact + d.bias[j];
          break;
      }
      if (policy_wide && (v < kInt32Min || v > kInt32Max)) {
        s.exceptions.push_back({r, c, v});
        staged[r * ld + c] = 0;
      } else {
        staged[r * ld + c] = wrap_to_int32(v);
      }
    }
  }
}

/// Without a fused epilogue: the accumulator model's last steps, then the whole tile requantized
/// by the SIMD rounding-core kernels while it is still in cache, and the wide exceptions one by
/// one.
template <class AType, class Out>
void requantize_tile(const TilePlan& p, const PackedGemmData& d, const StridedRows<AType>& strided,
                     std::int32_t za, std::int64_t c_off, const OutputParams& output, Out* dst,
                     std::size_t ldc, Scratch& s) {
  s.exceptions.clear();
  const std::int32_t* to_requantize;
  if (p.folded) {
    finish_folded(p, d, s);
    to_requantize = s.acc32.data();
  } else {
    stage_exact_wide(p, d, strided, za, c_off, s);
    to_requantize = s.staged.data();
  }

  RequantizeArgs rq;
  rq.core = d.core;
  rq.params = d.params.data() + (d.per_channel ? p.j0 : 0);
  rq.per_channel = d.per_channel;
  rq.output = output;
  rq.rows = p.rows;
  rq.channels = p.cols;
  rq.acc = to_requantize;
  rq.acc_row_stride = p.ld;
  rq.dst_row_stride = ldc;
  requantize_kernels(d.isa).get<Out>()(rq, dst);
  for (const Scratch::Wide& e : s.exceptions) {
    dst[e.i * ldc + e.j] = requantize_wide_element<Out>(d, e.v, p.j0 + e.j, output);
  }
}

template <class AType, class Out>
void run_tile(const PackedGemmData& d, const AOperand<AType>& src, std::size_t m, std::int32_t za,
              const OutputParams& output, Out* c_base, std::size_t ldc, std::size_t tile,
              bool rows_ready, RowBlocks row_blocks) {
  static_assert(sizeof(AType) == 1, "gather_rows and pack_a copy bytes");
  Scratch& s = scratch();
  const TilePlan p = plan_tile(d, src, m, tile, row_blocks);
  const StridedRows<AType> strided = strided_rows(p, d, src, rows_ready, s);
  if (!rows_ready) prepare_row_block(p, d, src, strided, za, s);
  const std::int64_t c_off = activation_offset<AType>(*p.kernel);
  const InitialValues init = fold_initial_values(p, d, za, c_off, s);
  Out* const dst = c_base + p.i0 * ldc + p.j0;
  run_kernels(p, d, src, strided, c_off, init, output, dst, ldc, s);
  if (!d.epilogue.enabled) requantize_tile(p, d, strided, za, c_off, output, dst, ldc, s);
}

}  // namespace

std::size_t gemm_tile_count(const PackedGemmData& d, std::size_t m, RowBlocks row_blocks) {
  const Blocking bk = blocking_for(d, m);
  return row_block_count(bk, m, row_blocks) * ceil_div(d.n, bk.nc);
}

template <class AType, class Out>
void gemm_run_tiles(const PackedGemmData& d, const AOperand<AType>& a, std::size_t m,
                    std::int32_t a_zero_point, const OutputParams& output, Out* c, std::size_t ldc,
                    std::size_t begin, std::size_t end, RowBlocks row_blocks) {
  // Tiles are numbered row block by row block: consecutive tiles of one row block reuse its
  // packed A (valid only within this call: the caller may change A between calls).
  const std::size_t tiles_n = ceil_div(d.n, blocking_for(d, m).nc);
  for (std::size_t t = begin; t < end; ++t) {
    const bool rows_ready = t > begin && t / tiles_n == (t - 1) / tiles_n;
    run_tile(d, a, m, a_zero_point, output, c, ldc, t, rows_ready, row_blocks);
  }
}

#define QPARITY_GEMM_RUN_TILES_INSTANTIATE(A, O)                                                 \
  template void gemm_run_tiles<A, O>(const PackedGemmData&, const AOperand<A>&, std::size_t,    \
                                     std::int32_t, const OutputParams&, O*, std::size_t,        \
                                     std::size_t, std::size_t, RowBlocks);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_GEMM_RUN_TILES_INSTANTIATE)
#undef QPARITY_GEMM_RUN_TILES_INSTANTIATE

}  // namespace internal
}  // namespace qparity
