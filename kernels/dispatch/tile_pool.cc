// The process-wide tile pool (tile_pool.h). Protocol, in short:
//   - busy_ (compare-exchange) gives one call at a time the pool; the others run alone.
//   - The owner publishes the job, opens it (open_), bumps generation_ under mutex_ and wakes the
//     workers. Workers spin on generation_ for a short while (the gap between two layers of a
//     model), then sleep on wake_, so an idle pool takes no core from other processes.
//   - A worker announces itself in entered_ before it looks at open_, and reads the job only if it
//     is open; the owner closes the job and then waits for entered_ to drop to 0 before returning.
//     Both sides use sequentially consistent operations, so either the worker sees the job closed
//     or the owner sees the worker and waits for it: no worker touches a job (or the caller's
//     range function, which lives on the caller's stack) after its call has returned.
//   - Ranges are claimed from next_; finished_ counts ranges done (each range's exception, if any,
//     is stored in errors_[range] before the count is released).
#include "kernels/dispatch/tile_pool.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace qparity {
namespace internal {
namespace {

std::atomic<std::uint64_t> g_min_parallel_macs{kDefaultMinParallelMacs};
std::atomic<std::uint64_t> g_worker_ranges{0};
/// Set by the pool's destructor (process exit): calls after it run alone. A plain atomic, so it is
/// still valid while other static objects are destroyed after the pool.
std::atomic<bool> g_pool_destroyed{false};

class TilePool {
 public:
  TilePool() = default;
  ~TilePool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    g_pool_destroyed.store(true, std::memory_order_release);
  }
  TilePool(const TilePool&) = delete;
  TilePool& operator=(const TilePool&) = delete;

  bool run(const TileJob& job) {
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy.store(false, std::memory_order_release); }
    } release{busy_};

    // Start the workers this call needs (the pool only grows). A failure leaves the pool with the
    // workers that did start and reports the error before any range has run.
    while (workers_.size() < job.workers) {
      const unsigned index = static_cast<unsigned>(workers_.size());
      workers_.emplace_back([this, index] { work(index); });
    }
    if (errors_.size() < job.ranges) errors_.resize(job.ranges);
    for (std::size_t i = 0; i < job.ranges; ++i) errors_[i] = nullptr;
    job_ = job;
    next_.store(0, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    open_.store(true, std::memory_order_seq_cst);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();

    run_ranges(/*worker=*/false);
    for (std::uint32_t spin = 0; finished_.load(std::memory_order_acquire) != job.ranges; ++spin) {
      if (spin > kSpins) std::this_thread::yield();
    }
    open_.store(false, std::memory_order_seq_cst);
    for (std::uint32_t spin = 0; entered_.load(std::memory_order_seq_cst) != 0; ++spin) {
      if (spin > kSpins) std::this_thread::yield();
    }
    for (std::size_t i = 0; i < job.ranges; ++i) {
      if (errors_[i]) {
        const std::exception_ptr e = errors_[i];
        errors_[i] = nullptr;
        std::rethrow_exception(e);  // `release` frees the pool on the way out
      }
    }
    return true;
  }

 private:
  /// Polls before sleeping (or, for the caller, before yielding): 10-50 microseconds.
  static constexpr std::uint32_t kSpins = 1u << 14;

  /// Claims and runs ranges of the open job until none is left.
  void run_ranges(bool worker) {
    for (;;) {
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= job_.ranges) return;
      try {
        job_.run(job_.ctx, job_.count * i / job_.ranges, job_.count * (i + 1) / job_.ranges);
      } catch (...) {
        errors_[i] = std::current_exception();
      }
      if (worker) g_worker_ranges.fetch_add(1, std::memory_order_relaxed);
      finished_.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  void work(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t g = generation_.load(std::memory_order_acquire);
      for (std::uint32_t spin = 0; g == seen && spin < kSpins; ++spin) {
        g = generation_.load(std::memory_order_acquire);
      }
      if (g == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        g = generation_.load(std::memory_order_acquire);
      }
      seen = g;
      if (stop_.load(std::memory_order_relaxed)) return;
      entered_.fetch_add(1, std::memory_order_seq_cst);
      // A job opened after this worker's wake-up is as good as the one that woke it: it is open,
      // and its owner waits for entered_ before returning.
      if (open_.load(std::memory_order_seq_cst) && index < job_.workers) run_ranges(/*worker=*/true);
      entered_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

  std::atomic<bool> busy_{false};
  std::vector<std::thread> workers_;  ///< touched only by the owner of busy_ (and the destructor)
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> generation_{0};  ///< one more per job (and at stop)
  std::atomic<bool> stop_{false};

  // The current job: written by the owner while it is closed, read by workers while it is open.
  TileJob job_{};
  std::vector<std::exception_ptr> errors_;  ///< per range; written by whoever ran the range
  std::atomic<bool> open_{false};
  std::atomic<unsigned> entered_{0};
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> finished_{0};
};

TilePool* pool() {
  if (g_pool_destroyed.load(std::memory_order_acquire)) return nullptr;
  static TilePool p;
  return &p;
}

}  // namespace

bool run_on_tile_pool(const TileJob& job) {
  TilePool* p = pool();
  return p != nullptr && p->run(job);
}

std::uint64_t min_parallel_macs() { return g_min_parallel_macs.load(std::memory_order_relaxed); }

std::uint64_t set_min_parallel_macs(std::uint64_t macs) {
  return g_min_parallel_macs.exchange(macs, std::memory_order_relaxed);
}

std::uint64_t tile_pool_worker_ranges() { return g_worker_ranges.load(std::memory_order_relaxed); }

}  // namespace internal
}  // namespace qparity
