// INTERNAL: how gemm_threaded and conv2d_threaded cut a run into tiles for t threads, and the
// tile API's threaded forms (gemm_tile_count(w, m, threads) & co.) with them. Not installed.
//
// Why the threaded entry points do not take the tile API's tiles (row blocks of mc rows): with few
// row blocks the shares are unequal. 256 x 256 x 256 has three (96, 96, 64 rows): one thread runs
// two of them, 160 of the 256 rows, so two threads can be at best 1.6x one; 784 x 128 x 1152 has
// nine. Cutting the rows into more blocks of nearly equal whole MR-row groups (RowBlocks) evens the
// shares out; each tile is then one range of the pool (claimed in order, dynamically), so a thread
// is never more than one tile behind the other.
//
// How many blocks: the count, from the tile API's up to about 8 tiles per thread, whose
// tiles, handed out in order to whichever thread is free, finish first (a small simulation of the
// pool's claiming, judged by split_cost), each tile costing its multiply-accumulates plus
// kTileOverheadMacs (what a tile's set-up and its claim cost: see the constant). Any cut gives
// the same bits (gemm_driver.h, RowBlocks).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/dispatch/run_tiles_threaded.h"
#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/packed_gemm_data.h"

namespace qparity {
namespace internal {

/// A tile's fixed cost in multiply-accumulates: plan, initial values, epilogue set-up, the range's
/// claim and the call into the tile loop. Measured on one Zen 4 core (AVX-512 VNNI, SR-UP, loaded
/// machine): cutting into more tiles cost 0.06-0.11 us per added tile (3136x64x64 17 -> 392 tiles,
/// 12544x64x32 33 -> 1568, 256^3 3 -> 32), about 2^14 multiply-accumulates at the kernel's
/// ~200 G/s; the claim, a cache line moving between cores, comes on top: 2^15.
inline constexpr std::uint64_t kTileOverheadMacs = std::uint64_t{1} << 15;

/// Tiles per thread beyond which finer cuts are not tried: one tile is then at most 1/8 of a
/// thread's share, and the expected idle time at the end (split_cost) at most 1/16 of it.
inline constexpr std::size_t kMaxTilesPerThread = 8;

/// A row block's rows as the kernel runs them: whole MR-row blocks (the padding rows cost as
/// much as real ones).
inline std::uint64_t padded_rows(const Blocking& bk, RowSpan span) {
  return ceil_div(span.end - span.begin, bk.kernel->mr) * bk.kernel->mr;
}

/// The time (in multiply-accumulates) t threads that start together take to run the tiles of
/// `blocks` row blocks x col_blocks column blocks (x `groups` independent GEMMs: convolution
/// groups), claimed in tile order by whichever thread is free first.
inline std::uint64_t split_makespan(const Blocking& bk, std::size_t m, std::size_t n,
                                    std::uint64_t k, std::size_t groups, RowBlocks rb,
                                    std::size_t t, std::vector<std::uint64_t>& free_at) {
  free_at.assign(t, 0);
  const std::size_t col_blocks = ceil_div(n, bk.nc), blocks = row_block_count(bk, m, rb);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t b = 0; b < blocks; ++b) {
      const RowSpan span = row_block_span(bk, m, rb, b);
      for (std::size_t j = 0; j < col_blocks; ++j) {
        const std::uint64_t cols = std::min(bk.nc, n - j * bk.nc);
        auto next = std::min_element(free_at.begin(), free_at.end());
        *next += padded_rows(bk, span) * cols * k + kTileOverheadMacs;
      }
    }
  }
  return *std::max_element(free_at.begin(), free_at.end());
}

/// What a cut is judged by: its makespan plus half its largest tile, the expected idle time at
/// the end when the threads do not run exactly as fast as the model says (a late wake-up, a
/// preemption, uneven memory speed): the last tile a thread takes is then finished half a tile
/// after the other thread's, on average.
inline std::uint64_t split_cost(const Blocking& bk, std::size_t m, std::size_t n, std::uint64_t k,
                                std::size_t groups, RowBlocks rb, std::size_t t,
                                std::vector<std::uint64_t>& free_at) {
  std::uint64_t largest = 0;
  const std::size_t blocks = row_block_count(bk, m, rb);
  for (std::size_t b = 0; b < blocks; ++b) {
    const RowSpan span = row_block_span(bk, m, rb, b);
    largest = std::max<std::uint64_t>(largest, padded_rows(bk, span) * std::min(bk.nc, n) * k);
  }
  return split_makespan(bk, m, n, k, groups, rb, t, free_at) + (largest + kTileOverheadMacs) / 2;
}

/// The row blocks of a threaded run of m rows x d.n columns with K = k (per group; `groups`
/// GEMMs of the same shape one after the other) on t >= 2 threads. The default blocks (0) when
/// the run uses the few-row kernel (its tiles are column blocks) or no finer cut costs less.
inline RowBlocks choose_thread_row_blocks(const Blocking& bk, std::size_t m, std::size_t n,
                                          std::uint64_t k, std::size_t groups, std::size_t t) {
  const std::size_t col_tiles = ceil_div(n, bk.nc) * groups;
  const std::size_t first = ceil_div(m, bk.mc), most_blocks = ceil_div(m, bk.kernel->mr);
  const std::size_t last =
      std::min(most_blocks, std::max(first, ceil_div(kMaxTilesPerThread * t, col_tiles)));
  std::vector<std::uint64_t> free_at;
  RowBlocks best{};
  std::uint64_t best_cost = split_cost(bk, m, n, k, groups, best, t, free_at);
  for (std::size_t blocks = first; blocks <= last; ++blocks) {
    const RowBlocks rb{blocks};
    const std::uint64_t cost = split_cost(bk, m, n, k, groups, rb, t, free_at);
    if (cost < best_cost) {
      best_cost = cost;
      best = rb;
    }
  }
  return best;
}

/// choose_thread_row_blocks, remembered: the choice simulates up to about a hundred tiles
/// (0.1-1 us measured on one Zen 4 core), which a model's every layer would pay on every call.
/// The last 16 choices are kept per thread, keyed by everything the choice depends on, so a hit
/// is always right.
inline RowBlocks thread_row_blocks(const PackedGemmData& d, std::size_t m, std::uint64_t k,
                                   std::size_t groups, std::size_t t) {
  const Blocking bk = blocking_for(d, m);
  if (bk.kernel != &d.kernel || m == 0 || t < 2) return {};
  struct Entry {
    std::size_t m, n, groups, t, mr, mc, nc;
    std::uint64_t k;
    RowBlocks rb;
  };
  static thread_local Entry cache[16] = {};
  static thread_local unsigned next = 0;
  for (const Entry& e : cache) {
    if (e.t == t && e.m == m && e.n == d.n && e.k == k && e.groups == groups &&
        e.mr == bk.kernel->mr && e.mc == bk.mc && e.nc == bk.nc) {
      return e.rb;
    }
  }
  const RowBlocks rb = choose_thread_row_blocks(bk, m, d.n, k, groups, t);
  cache[next++ % 16] = Entry{m, d.n, groups, t, bk.kernel->mr, bk.mc, bk.nc, k, rb};
  return rb;
}

/// A run cut for the threads it was asked for: how many threads it uses and its row blocks.
struct ThreadCut {
  std::size_t threads = 1;
  RowBlocks row_blocks;
};

/// The cut of a run of m rows x d.n columns with K = k (x `groups` GEMMs of that shape) asked for
/// `threads` threads (0: hardware_concurrency()): threads_for_work's count (1 for work too small
/// to split), then thread_row_blocks for it. gemm_threaded, conv2d_threaded and the tile API's
/// threaded forms all take it from here, so that an engine's own pool of T threads gets tile for
/// tile the partition the built-in entry point runs with T.
inline ThreadCut thread_cut(const PackedGemmData& d, std::size_t m, std::uint64_t k,
                            std::size_t groups, unsigned threads) {
  ThreadCut cut;
  cut.threads = threads_for_work(threads, std::uint64_t{m} * d.n * k * groups);
  cut.row_blocks = thread_row_blocks(d, m, k, groups, cut.threads);
  return cut;
}

}  // namespace internal
}  // namespace qparity
