// INTERNAL: the thread convenience behind gemm_threaded, conv2d_threaded and
// depthwise_conv2d_threaded. Splits tiles [0, count) into contiguous ranges (a few per thread) and
// runs `run_range(begin, end)` for each on up to `threads` threads (0: hardware_concurrency()): the
// calling thread and the workers of the process-wide tile pool (tile_pool.h), which start once and are
// reused. The calling thread runs the tiles alone when one range suffices, when the work
// (`macs`, the call's multiply-accumulates) is below min_parallel_macs(), where waking a second
// thread costs more than it saves, or when the pool is busy with another call (a concurrent
// caller or a nested call from inside a range). Rethrows the first exception a range raised (or
// the std::system_error of a worker that could not start, before any range ran).
// Any partition gives the same bits, so the split needs no care beyond covering every tile once.
// gemm_threaded and conv2d_threaded choose their own tiles and ranges (kernels/gemm/
// gemm_thread_split.h) and call threads_for_work and run_ranges_threaded directly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "kernels/dispatch/tile_pool.h"

namespace qparity {
namespace internal {

/// Ranges per thread: more than one, so that the thread that finishes first (or the caller, when a
/// worker is slow to wake or preempted) takes over the rest; few, so that each range keeps several
/// consecutive tiles (a GEMM row block's packed A is reused across the tiles of one range).
inline constexpr std::size_t kRangesPerThread = 4;

/// How many threads a call with `macs` multiply-accumulates uses when asked for `threads`
/// (0: hardware_concurrency()): 1 below min_parallel_macs(), where waking a second thread costs
/// more than it saves; each thread past the second needs another half-threshold of work.
inline std::size_t threads_for_work(unsigned threads, std::uint64_t macs) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::size_t t = threads;
  const std::uint64_t threshold = min_parallel_macs();
  if (t >= 2 && threshold > 0) {
    if (macs < threshold) {
      t = 1;
    } else {
      t = static_cast<std::size_t>(std::min<std::uint64_t>(t, std::max<std::uint64_t>(2, 2 * (macs / threshold))));
    }
  }
  return t;
}

/// Runs run_range over `ranges` contiguous ranges of [0, count) on the caller and t - 1 pool
/// workers (t >= 2), or, when the pool is busy or t < 2 or ranges < 2, over [0, count) alone.
template <class RunRange>
void run_ranges_threaded(std::size_t count, std::size_t ranges, std::size_t t, const RunRange& run_range) {
  ranges = std::min(ranges, count);
  t = std::min(t, ranges);
  if (t >= 2) {
    TileJob job;
    job.run = [](const void* ctx, std::size_t begin, std::size_t end) {
      (*static_cast<const RunRange*>(ctx))(begin, end);
    };
    job.ctx = &run_range;
    job.count = count;
    job.ranges = ranges;
    job.workers = t - 1;
    if (run_on_tile_pool(job)) return;
  }
  run_range(std::size_t{0}, count);
}

template <class RunRange>
void run_tiles_threaded(std::size_t count, unsigned threads, std::uint64_t macs, const RunRange& run_range) {
  const std::size_t t = std::min(threads_for_work(threads, macs), count);
  run_ranges_threaded(count, t * kRangesPerThread, t, run_range);
}

}  // namespace internal
}  // namespace qparity
