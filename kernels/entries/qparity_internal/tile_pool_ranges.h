// INTERNAL, not installed: the library's tile pool as the tools library (tools/model) may use it,
// for work split over outputs outside the library's own ops (the float32 QDQ kernels of qdq_fma.h,
// ONNX Runtime's QLinearAdd of mlas_qladd.h). Defined in kernels/dispatch/tile_pool_ranges.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qparity {
namespace internal {

/// Runs run(ctx, begin, end) over contiguous ranges covering [0, count) on up to `threads` threads
/// (the calling thread and the library's tile pool, kernels/dispatch/run_tiles_threaded.h), or on
/// the calling thread alone when `work` (in multiply-accumulates, the unit of the pool's threshold)
/// is too small to pay, when threads <= 1 or when the pool is busy. Any partition must give the
/// same bits: the caller splits over outputs, never over a sum.
void run_ranges_on_tile_pool(std::size_t count, unsigned threads, std::uint64_t work,
                             void (*run)(const void* ctx, std::size_t begin, std::size_t end),
                             const void* ctx);

}  // namespace internal
}  // namespace qparity
