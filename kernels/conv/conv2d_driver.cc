// conv2d entry points: validation of a call, the tiling (group by group, each group's GEMM tiles
// in the GEMM driver's order) and the A operand of each group, a strided view of the NHWC input
// (1x1) or the indirection source over the convolution window (implicit GEMM).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/support/packed_access.h"
#include "kernels/conv/packed_conv2d_data.h"
#include "kernels/dispatch/run_tiles_threaded.h"
#include "kernels/dispatch/tile_range.h"
#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_thread_split.h"
#include "qparity/conv2d.h"
#include "qparity/error.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace internal {
namespace {

/// Group gg's A operand: its input channel slice, strided or through the window.
template <class AType>
AOperand<AType> group_operand(const PackedConv2DData& d, const AType* input, std::int32_t zp,
                              std::size_t gg) {
  AOperand<AType> a;
  a.a = input + gg * d.icg;
  if (d.plan == Conv2DPlan::kDirectGemm) {
    a.lda = d.geometry.in_channels;
  } else {
    a.taps = d.taps;
    a.seg = d.icg;
    a.rows_per_image = d.rows_per_image;
    a.image_stride = d.image_elems;
    a.pad = static_cast<AType>(zp);  // a padded tap holds the input zero point
    a.window = &d.implicit_window;
  }
  return a;
}

/// Runs conv tiles [begin, end) of a validated call.
template <class AType, class OutType>
void run_conv_tiles(const PackedConv2DData& d, const ConvCall<AType, OutType>& call,
                    std::size_t begin, std::size_t end, RowBlocks rb = {}) {
  const std::size_t per = rb.blocks ? gemm_tile_count(packed_data(d.gemms.front()), d.m, rb)
                                    : d.tiles_per_group;
  while (begin < end) {
    const std::size_t gg = begin / per;
    const std::size_t local_end = std::min(end - gg * per, per);
    const AOperand<AType> a = group_operand(d, call.input, call.input_zero_point, gg);
    gemm_run_tiles(internal::packed_data(d.gemms[gg]), a, d.m, call.input_zero_point, call.output,
                   call.out + gg * d.ocg, d.geometry.out_channels, begin - gg * per, local_end, rb);
    begin = gg * per + local_end;
  }
}

/// The cut of a run asked for `threads` threads (gemm_thread_split.h, thread_cut): conv2d_threaded
/// and the tile API's threaded forms share it.
ThreadCut conv_thread_cut(const PackedConv2DData& d, unsigned threads) {
  return thread_cut(packed_data(d.gemms.front()), d.m, std::uint64_t{d.taps} * d.icg,
                    d.geometry.groups, threads);
}

std::size_t conv_tile_count(const PackedConv2DData& d, RowBlocks rb) {
  return gemm_tile_count(packed_data(d.gemms.front()), d.m, rb) * d.geometry.groups;
}

}  // namespace
}  // namespace internal

std::size_t conv2d_tile_count(const PackedConv2D& conv) {
  return internal::packed_data(conv).tiles_per_group * internal::packed_data(conv).geometry.groups;
}

std::size_t conv2d_tile_count(const PackedConv2D& conv, unsigned threads) {
  const internal::PackedConv2DData& d = internal::packed_data(conv);
  return internal::conv_tile_count(d, internal::conv_thread_cut(d, threads).row_blocks);
}

template <class AType, class OutType>
void conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call, std::size_t begin,
                  std::size_t end) {
  validate_conv_call(call);
  const std::size_t count = conv2d_tile_count(conv);
  internal::check_tile_range(begin, end, count, "conv2d_tile_count");
  internal::run_conv_tiles(internal::packed_data(conv), call, begin, end);
}

template <class AType, class OutType>
void conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call, unsigned threads,
                  std::size_t begin, std::size_t end) {
  validate_conv_call(call);
  const internal::PackedConv2DData& d = internal::packed_data(conv);
  // The cut depends on (conv, threads) alone: the one conv2d_tile_count(conv, threads) counted.
  const internal::RowBlocks rb = internal::conv_thread_cut(d, threads).row_blocks;
  const std::size_t count = internal::conv_tile_count(d, rb);
  internal::check_tile_range(begin, end, count,
                             "conv2d_tile_count(conv, threads) with the same threads",
                             [&] { return " for threads = " + std::to_string(threads); });
  internal::run_conv_tiles(d, call, begin, end, rb);
}

template <class AType, class OutType>
void conv2d(const PackedConv2D& conv, const ConvCall<AType, OutType>& call) {
  conv2d_tiles(conv, call, 0, conv2d_tile_count(conv));
}

template <class AType, class OutType>
void conv2d_threaded(const PackedConv2D& conv, const ConvCall<AType, OutType>& call, unsigned threads) {
  validate_conv_call(call);
  const internal::PackedConv2DData& d = internal::packed_data(conv);
  // Two or more threads: row blocks cut for them (gemm_thread_split.h), one tile per range.
  const internal::ThreadCut cut = internal::conv_thread_cut(d, threads);
  const auto run_range = [&](std::size_t begin, std::size_t end) {
    internal::run_conv_tiles(d, call, begin, end, cut.row_blocks);
  };
  const std::size_t count = internal::conv_tile_count(d, cut.row_blocks);
  internal::run_ranges_threaded(count, count, cut.threads, run_range);
}

template <class AType, class OutType>
void conv2d(const Conv2DProblem<AType, OutType>& p, RoundingCore core, AccumulatorSpec accumulator) {
  validate(accumulator);
  validate_conv2d(p, core);
  const PackedConv2D conv(p.geometry, p.weights, core, accumulator);
  conv2d(conv, p.call);
}

#define QPARITY_CONV2D_INSTANTIATE(A, O)                                                          \
  template void conv2d<A, O>(const PackedConv2D&, const ConvCall<A, O>&);                         \
  template void conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, std::size_t,       \
                                   std::size_t);                                                  \
  template void conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, unsigned,          \
                                   std::size_t, std::size_t);                                     \
  template void conv2d_threaded<A, O>(const PackedConv2D&, const ConvCall<A, O>&, unsigned);      \
  template void conv2d<A, O>(const Conv2DProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_CONV2D_INSTANTIATE)
#undef QPARITY_CONV2D_INSTANTIATE

}  // namespace qparity
