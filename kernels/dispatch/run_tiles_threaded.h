// INTERNAL: the std::thread convenience behind gemm_threaded, conv2d_threaded and
// depthwise_conv2d_threaded. Splits tiles [0, count) into `threads` contiguous ranges (0 threads:
// hardware_concurrency()), runs `run_range(begin, end)` for each on its own thread (the calling
// thread alone when one range suffices), joins, and rethrows the first exception a range raised
// (or the std::system_error of a thread that could not start, after joining the others).
// Any partition gives the same bits, so the split needs no care beyond covering every tile once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace qparity {
namespace internal {

template <class RunRange>
void run_tiles_threaded(std::size_t count, unsigned threads, const RunRange& run_range) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t t = std::min<std::size_t>(threads, count);
  if (t <= 1) {
    run_range(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(t);
  std::vector<std::exception_ptr> errors(t);
  try {
    for (std::size_t i = 0; i < t; ++i) {
      pool.emplace_back([&, i] {
        try {
          run_range(count * i / t, count * (i + 1) / t);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
  } catch (...) {
    // A thread that could not start (std::system_error): destroying the joinable ones would call
    // std::terminate, so wait for them and report the failure instead.
    for (std::thread& th : pool) th.join();
    throw;
  }
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace internal
}  // namespace qparity
