// The public GEMM entry points (qparity/gemm.h): validation, the tile range, threads. The work
// is done by the driver's tile loop (kernels/gemm/gemm_tile.cc, gemm_run_tiles).
#include <string>
#include <type_traits>

#include "kernels/support/packed_access.h"
#include "kernels/dispatch/run_tiles_threaded.h"
#include "kernels/dispatch/tile_range.h"
#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_thread_split.h"
#include "kernels/gemm/packed_gemm_data.h"
#include "qparity/error.h"
#include "qparity/gemm.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace internal {
namespace {

template <class AType, class Out>
void validate_call(const PackedGemmData& d, const GemmCall<AType, Out>& call) {
  if (call.m == 0) detail::throw_out_of_range("m", 0, ">= 1");
  detail::require_pointer(call.a, "a");
  detail::require_pointer(call.c, "c");
  detail::require_stride("a_row_stride", call.a_row_stride, d.k);
  detail::require_stride("c_row_stride", call.c_row_stride, d.n);
  const bool a_signed = std::is_signed<AType>::value;
  detail::require_in_range("a_zero_point", call.a_zero_point, a_signed ? -128 : 0,
                           a_signed ? 127 : 255, a_signed ? "int8 activations" : "uint8 activations");
  validate(call.output, detail::output_type_of<Out>());
}

}  // namespace
}  // namespace internal

std::size_t gemm_tile_count(const PackedGemm& w, std::size_t m) {
  return internal::gemm_tile_count(internal::packed_data(w), m);
}

std::size_t gemm_tile_count(const PackedGemm& w, std::size_t m, unsigned threads) {
  const internal::PackedGemmData& d = internal::packed_data(w);
  return internal::gemm_tile_count(d, m, internal::thread_cut(d, m, d.k, 1, threads).row_blocks);
}

namespace internal {
namespace {

/// Runs tiles [begin, end) of a validated call, the tiles of `rb`.
template <class AType, class OutType>
void run_call_tiles(const PackedGemmData& d, const GemmCall<AType, OutType>& call,
                    std::size_t begin, std::size_t end, RowBlocks rb) {
  AOperand<AType> a;
  a.a = call.a;
  a.lda = call.a_row_stride ? call.a_row_stride : d.k;
  const std::size_t ldc = call.c_row_stride ? call.c_row_stride : d.n;
  gemm_run_tiles(d, a, call.m, call.a_zero_point, call.output, call.c, ldc, begin, end, rb);
}

}  // namespace
}  // namespace internal

template <class AType, class OutType>
void gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, std::size_t begin,
                std::size_t end) {
  const internal::PackedGemmData& d = internal::packed_data(w);
  internal::validate_call(d, call);
  const std::size_t count = gemm_tile_count(w, call.m);
  internal::check_tile_range(begin, end, count, "gemm_tile_count");
  internal::run_call_tiles(d, call, begin, end, internal::RowBlocks{});
}

template <class AType, class OutType>
void gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads,
                std::size_t begin, std::size_t end) {
  const internal::PackedGemmData& d = internal::packed_data(w);
  internal::validate_call(d, call);
  // The cut depends on (w, call.m, threads) alone, so it is the one gemm_tile_count(w, m, threads)
  // counted; a range past its end most likely comes from a count taken with other threads or m.
  const internal::RowBlocks rb = internal::thread_cut(d, call.m, d.k, 1, threads).row_blocks;
  const std::size_t count = internal::gemm_tile_count(d, call.m, rb);
  internal::check_tile_range(
      begin, end, count, "gemm_tile_count(w, m, threads) with the same m and threads", [&] {
        return " for m = " + std::to_string(call.m) + ", threads = " + std::to_string(threads);
      });
  internal::run_call_tiles(d, call, begin, end, rb);
}

template <class AType, class OutType>
void gemm(const PackedGemm& w, const GemmCall<AType, OutType>& call) {
  gemm_tiles(w, call, 0, gemm_tile_count(w, call.m));
}

template <class AType, class OutType>
void gemm_threaded(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads) {
  const internal::PackedGemmData& d = internal::packed_data(w);
  internal::validate_call(d, call);
  // Two or more threads: row blocks cut for them (gemm_thread_split.h), one tile per range.
  const internal::ThreadCut cut = internal::thread_cut(d, call.m, d.k, 1, threads);
  const auto run_range = [&](std::size_t begin, std::size_t end) {
    internal::run_call_tiles(d, call, begin, end, cut.row_blocks);
  };
  const std::size_t count = internal::gemm_tile_count(d, call.m, cut.row_blocks);
  internal::run_ranges_threaded(count, count, cut.threads, run_range);
}

template <class AType, class OutType>
void gemm(const GemmProblem<AType, OutType>& g, RoundingCore core, AccumulatorSpec accumulator) {
  validate(accumulator);
  validate_gemm(g, core);
  const PackedGemm w(weights_of(g), core, accumulator);
  gemm(w, call_of(g));
}

#define QPARITY_GEMM_INSTANTIATE(A, O)                                                         \
  template void gemm<A, O>(const PackedGemm&, const GemmCall<A, O>&);                          \
  template void gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, std::size_t,         \
                                 std::size_t);                                                  \
  template void gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned, std::size_t, \
                                 std::size_t);                                                  \
  template void gemm_threaded<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned);        \
  template void gemm<A, O>(const GemmProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_GEMM_INSTANTIATE)
#undef QPARITY_GEMM_INSTANTIATE

}  // namespace qparity
