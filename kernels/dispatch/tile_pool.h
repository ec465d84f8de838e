// INTERNAL: the process-wide pool of worker threads behind gemm_threaded, conv2d_threaded and
// depthwise_conv2d_threaded (run_tiles_threaded.h is its only user).
//
// Why process-wide and started lazily rather than an object the API exposes: the threaded entry
// points take a thread count, not a pool, and an engine that wants its own threads already has the
// tile API (gemm_tiles & co.) to split work over them. One pool per process keeps the public API
// as it is; workers start at the first call that needs them (a program that never asks for two
// threads never starts one) and are reused by every later call, which is what makes two threads
// pay on small work: starting and joining std::threads per call cost more than an FC layer.
//
// One call at a time owns the pool. A call that finds it owned (another user thread is running a
// threaded call, or a range of the current call calls a threaded entry point: nesting) does not
// wait: run_on_tile_pool returns false and the caller runs its tiles alone. So concurrent callers
// are always correct and never deadlock; only one of them gets the workers at a time, which on a
// machine whose cores the callers already occupy is the cheaper choice anyway.
//
// Work is split into `ranges` contiguous tile ranges (a few per thread) that the caller and the
// workers claim from an atomic counter: the caller always runs ranges itself, a worker that has not
// woken up yet by the time the caller is done leaves its share to the caller instead of making it
// wait, and a worker the OS preempts (a machine busier than its cores) holds up one small range,
// not a thread's whole share.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qparity {
namespace internal {

/// One threaded call: run(ctx, begin, end) over `ranges` contiguous ranges covering [0, count)
/// (range i is [count * i / ranges, count * (i + 1) / ranges)). A function pointer and a context
/// instead of std::function: nothing is allocated per call.
struct TileJob {
  void (*run)(const void* ctx, std::size_t begin, std::size_t end) = nullptr;
  const void* ctx = nullptr;
  std::size_t count = 0;
  std::size_t ranges = 0;   ///< >= 2
  std::size_t workers = 0;  ///< 1..ranges - 1 pool workers join the caller
};

/// Runs `job` on the calling thread and job.workers pool workers (started if the pool has fewer)
/// and returns true when every range has run. Returns false, having run nothing, when
/// the pool is owned by another call (concurrent or nested) or was destroyed (process exit).
/// Throws the std::system_error of a worker that could not start (nothing run; the workers
/// already started are kept), or, after every range has finished, the exception of the
/// lowest-numbered range that threw.
bool run_on_tile_pool(const TileJob& job);

/// The work (multiply-accumulates) from which run_tiles_threaded uses a second thread; below it
/// the calling thread runs the tiles alone (kDefaultMinParallelMacs unless a test changed it).
std::uint64_t min_parallel_macs();

/// Half the smallest split work measured to pay on two threads with a reused pool: on a quiet
/// Zen 4 (bench/ratio_tables/zen4_2026-11-27_quiet.txt, the tiles on gemm_bench's external pool),
/// FC batch 1, 1x1000x1024 (1.02 M multiply-accumulates, two tiles), ran 1.6-1.7x faster than one
/// thread; smaller split work was not measured on a quiet machine (docs/architecture.md, Dispatch).
inline constexpr std::uint64_t kDefaultMinParallelMacs = std::uint64_t{1} << 19;

/// For tests: sets the threshold (0: every call with two or more tiles uses the pool) and returns
/// the previous value.
std::uint64_t set_min_parallel_macs(std::uint64_t macs);

/// How many ranges pool workers (not callers) have run since the process started: tests check
/// that a threaded call really ran tiles on another thread.
std::uint64_t tile_pool_worker_ranges();

}  // namespace internal
}  // namespace qparity
