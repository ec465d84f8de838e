// A thread pool of the kind an inference engine owns, for the benchmarks' two-thread rows that split
// qparity's tile API (gemm_tiles, conv2d_tiles, depthwise_conv2d_tiles) over threads qparity did not
// create: the workers start once and are reused by every run (as those of the library's own tile
// pool behind gemm_threaded & co. are: the two rows compare the split, not thread start-up). A
// worker spins briefly for the next task (as OpenMP and
// pthreadpool do), then sleeps on a condition variable, so an idle pool does not take a core from
// the other jobs of a shared machine.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qparity_bench {

class ExternalThreadPool {
 public:
  /// `threads` >= 1 threads in all: the caller of run() and threads - 1 workers.
  explicit ExternalThreadPool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~ExternalThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  ExternalThreadPool(const ExternalThreadPool&) = delete;
  ExternalThreadPool& operator=(const ExternalThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Runs task(i) for every i in [0, threads()): i = 0 on the calling thread, the others on the
  /// workers; returns when all have finished. `task` must not throw (a benchmark's task is a
  /// validated qparity call).
  void run(const std::function<void(unsigned)>& task) {
    task_ = &task;
    pending_.store(workers_.size(), std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    task(0);
    for (std::uint32_t spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin > kSpins) std::this_thread::yield();
    }
  }

 private:
  /// Polls before sleeping: about 10-50 microseconds, the gap between two runs of a benchmark loop.
  static constexpr std::uint32_t kSpins = 1u << 14;

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
      (*task_)(index);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> generation_{0};  ///< one more per run(); published task_ and stop_
  std::atomic<std::size_t> pending_{0};       ///< workers still running the current task
  std::atomic<bool> stop_{false};
  const std::function<void(unsigned)>* task_ = nullptr;
};

}  // namespace qparity_bench
