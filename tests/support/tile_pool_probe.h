// For the threaded tests: makes gemm_threaded & co. use the tile pool's workers whatever the size
// of the work (the pool's threshold keeps small work on the calling thread, and the tests' shapes
// must stay small to stay fast under ThreadSanitizer), and checks that a worker really ran tiles.
#pragma once

#include <cstdint>

#include "kernels/dispatch/tile_pool.h"

namespace qparity_test {

/// While alive: every threaded call of two or more tiles goes to the pool (threshold 0).
class ForceTilePool {
 public:
  ForceTilePool() : previous_(qparity::internal::set_min_parallel_macs(0)) {}
  ~ForceTilePool() { qparity::internal::set_min_parallel_macs(previous_); }
  ForceTilePool(const ForceTilePool&) = delete;
  ForceTilePool& operator=(const ForceTilePool&) = delete;

 private:
  std::uint64_t previous_;
};

/// Calls `call` (one threaded run that checks its own result) until a pool worker has run a range
/// during one of the calls, at most `tries` times; returns whether one did. The caller claims
/// ranges too and takes a sleeping worker's share, so a single call may legitimately run on the
/// caller alone on a loaded machine; a pool whose workers never run anything fails every try.
template <class Call>
bool a_worker_ran_during(const Call& call, int tries = 200) {
  for (int i = 0; i < tries; ++i) {
    const std::uint64_t before = qparity::internal::tile_pool_worker_ranges();
    call();
    if (qparity::internal::tile_pool_worker_ranges() != before) return true;
  }
  return false;
}

}  // namespace qparity_test
