// The pthreadpool an XNNPACK peer runs on, owned: none for one thread (XNNPACK then runs on the
// calling thread), else a pool of that many threads kept for every later run, as an engine keeps
// its pool.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace qparity_peers {

class XnnpackThreadPool {
 public:
  XnnpackThreadPool() = default;
  ~XnnpackThreadPool() { reset(nullptr); }
  XnnpackThreadPool(const XnnpackThreadPool&) = delete;
  XnnpackThreadPool& operator=(const XnnpackThreadPool&) = delete;

  /// Replaces the pool with one of `threads` threads (1: no pool). Throws std::runtime_error if
  /// pthreadpool cannot make it; the old pool is kept then.
  void set_threads(std::size_t threads) {
    pthreadpool_t pool = nullptr;
    if (threads > 1) {
      pool = pthreadpool_create(threads);
      if (pool == nullptr) throw std::runtime_error("pthreadpool_create(" + std::to_string(threads) + ") failed");
    }
    reset(pool);
  }

  /// What xnn_setup_* and xnn_run_operator take: null for the calling thread only.
  pthreadpool_t get() const { return pool_; }

 private:
  void reset(pthreadpool_t pool) {
    if (pool_ != nullptr) pthreadpool_destroy(pool_);
    pool_ = pool;
  }
  pthreadpool_t pool_ = nullptr;
};

}  // namespace qparity_peers
