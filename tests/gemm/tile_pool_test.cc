// The tile pool behind gemm_threaded & co. (kernels/dispatch/tile_pool.h): a worker really runs
// ranges, concurrent callers and nested calls finish with the right bits, an exception from any
// range reaches the caller and leaves the pool usable, many small calls in a row, and the
// threshold that keeps small work on the caller. Part of the ThreadSanitizer stage (.ci/test 3b).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/dispatch/tile_pool.h"
#include "qparity/gemm.h"
#include "tile_pool_probe.h"

namespace {

using namespace qparity;
using internal::TileJob;

/// A GEMM small enough for many calls under TSan, with several tiles; its one-thread result.
struct SmallGemm {
  std::size_t m, n, k;
  std::vector<std::int8_t> a, b;
  RequantParams params;
  PackedGemm packed;
  std::vector<std::int8_t> want;

  SmallGemm(std::size_t m_, std::size_t n_, std::size_t k_, std::uint32_t seed)
      : m(m_), n(n_), k(k_), a(m_ * k_), b(n_ * k_), params(requant()), packed(pack(n_, k_, b, params, seed, a)) {
    want.resize(m * n);
    gemm(packed, call(want.data()));
  }

  GemmCall<std::int8_t, std::int8_t> call(std::int8_t* c) const {
    GemmCall<std::int8_t, std::int8_t> g;
    g.m = m;
    g.a = a.data();
    g.a_zero_point = 3;
    g.output = full_range_output(OutputType::kInt8, -2);
    g.c = c;
    return g;
  }

 private:
  static RequantParams requant() {
    RequantParams p;
    p.multiplier = 1 << 30;
    p.shift = -9;
    return p;
  }
  static PackedGemm pack(std::size_t n, std::size_t k, std::vector<std::int8_t>& b, const RequantParams& p,
                         std::uint32_t seed, std::vector<std::int8_t>& a) {
    std::mt19937 rng(seed);
    for (auto& x : a) x = static_cast<std::int8_t>(rng());
    for (auto& x : b) x = static_cast<std::int8_t>(rng());
    GemmWeights w;
    w.n = n;
    w.k = k;
    w.b = b.data();
    w.params = &p;
    return PackedGemm(w, RoundingCore::kDoubleRoundingAwayFromZero);
  }
};

/// Waits (up to 10 s) until `flag` reaches `value`; false on timeout.
bool wait_for(const std::atomic<int>& flag, int value) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (flag.load() < value) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Each of the two ranges waits for the other to start: the call can only finish if a worker runs
// one of them while the caller runs the other.
TEST(TilePool, AWorkerRunsARangeWhileTheCallerRunsTheOther) {
  struct Ctx {
    std::atomic<int> started{0};
    std::thread::id ids[2];
    bool met[2] = {false, false};
  } ctx;
  TileJob job;
  job.run = [](const void* p, std::size_t begin, std::size_t end) {
    Ctx& c = *static_cast<Ctx*>(const_cast<void*>(p));
    ASSERT_EQ(end, begin + 1);
    c.ids[begin] = std::this_thread::get_id();
    c.started.fetch_add(1);
    c.met[begin] = wait_for(c.started, 2);
  };
  job.ctx = &ctx;
  job.count = 2;
  job.ranges = 2;
  job.workers = 1;
  const std::uint64_t before = internal::tile_pool_worker_ranges();
  ASSERT_TRUE(internal::run_on_tile_pool(job));
  EXPECT_TRUE(ctx.met[0] && ctx.met[1]) << "the two ranges did not run at the same time";
  EXPECT_NE(ctx.ids[0], ctx.ids[1]);
  EXPECT_TRUE(ctx.ids[0] == std::this_thread::get_id() || ctx.ids[1] == std::this_thread::get_id())
      << "the caller takes a share";
  EXPECT_EQ(internal::tile_pool_worker_ranges(), before + 1);
}

// Four user threads call gemm_threaded on one PackedGemm at once: one of them gets the pool at a
// time, the others run alone; every result has the one-thread bits.
TEST(TilePool, ConcurrentCallersGetTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  const SmallGemm g(64, 600, 48, 1);
  ASSERT_GE(gemm_tile_count(g.packed, g.m), 2u);
  std::atomic<int> wrong{0};
  std::vector<std::thread> users;
  for (int u = 0; u < 4; ++u) {
    users.emplace_back([&, u] {
      std::vector<std::int8_t> c(g.m * g.n);
      for (int i = 0; i < 50; ++i) {
        gemm_threaded(g.packed, g.call(c.data()), 2 + static_cast<unsigned>(u % 2));
        if (c != g.want) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& t : users) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A range that calls a threaded entry point (on a worker or on the caller) runs it alone instead
// of waiting for the pool it is part of.
TEST(TilePool, NestedCallsRunAloneAndFinish) {
  const qparity_test::ForceTilePool force;
  const SmallGemm g(64, 600, 48, 2);
  struct Ctx {
    const SmallGemm* g;
    std::vector<std::int8_t> out[4];
    bool pool_refused[4] = {false, false, false, false};
  } ctx;
  ctx.g = &g;
  for (auto& o : ctx.out) o.assign(g.m * g.n, 0);
  TileJob job;
  job.run = [](const void* p, std::size_t begin, std::size_t end) {
    Ctx& c = *static_cast<Ctx*>(const_cast<void*>(p));
    for (std::size_t r = begin; r < end; ++r) {
      TileJob inner;
      inner.run = [](const void*, std::size_t, std::size_t) {};
      inner.count = 2;
      inner.ranges = 2;
      inner.workers = 1;
      c.pool_refused[r] = !internal::run_on_tile_pool(inner);
      gemm_threaded(c.g->packed, c.g->call(c.out[r].data()), 2);
    }
  };
  job.ctx = &ctx;
  job.count = 4;
  job.ranges = 2;
  job.workers = 1;
  ASSERT_TRUE(internal::run_on_tile_pool(job));
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(ctx.pool_refused[r]) << "range " << r;
    EXPECT_EQ(ctx.out[r], g.want) << "range " << r;
  }
}

// The exception of the lowest-numbered range that threw reaches the caller, after every range has
// run; the pool then runs the next call normally.
TEST(TilePool, AnExceptionFromARangeReachesTheCaller) {
  struct Ctx {
    std::atomic<int> ran{0};
  } ctx;
  TileJob job;
  job.run = [](const void* p, std::size_t begin, std::size_t) {
    static_cast<Ctx*>(const_cast<void*>(p))->ran.fetch_add(1);
    if (begin == 1 || begin == 3) throw std::runtime_error("range " + std::to_string(begin));
  };
  job.ctx = &ctx;
  job.count = 4;
  job.ranges = 4;
  job.workers = 3;
  for (int round = 0; round < 20; ++round) {
    ctx.ran = 0;
    try {
      internal::run_on_tile_pool(job);
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "range 1");
    }
    EXPECT_EQ(ctx.ran.load(), 4);
  }
  const qparity_test::ForceTilePool force;
  const SmallGemm g(64, 600, 48, 3);
  std::vector<std::int8_t> c(g.m * g.n);
  gemm_threaded(g.packed, g.call(c.data()), 2);
  EXPECT_EQ(c, g.want);
}

// Many small calls in a row (the graph runner's pattern): right bits every time, and the workers
// take part.
TEST(TilePool, ManySmallCallsInARow) {
  const qparity_test::ForceTilePool force;
  const SmallGemm g(32, 600, 32, 4);
  ASSERT_GE(gemm_tile_count(g.packed, g.m), 2u);
  std::vector<std::int8_t> c(g.m * g.n);
  const std::uint64_t before = internal::tile_pool_worker_ranges();
  int wrong = 0;
  for (int i = 0; i < 2000; ++i) {
    std::fill(c.begin(), c.end(), std::int8_t{0});
    gemm_threaded(g.packed, g.call(c.data()), 2);
    wrong += c != g.want;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(internal::tile_pool_worker_ranges(), before);
}

// Below the threshold the caller runs alone: no worker runs a range, however many calls.
TEST(TilePool, WorkBelowTheThresholdStaysOnTheCaller) {
  ASSERT_EQ(internal::min_parallel_macs(), internal::kDefaultMinParallelMacs);
  const SmallGemm g(2, 600, 64, 5);  // 76800 multiply-accumulates
  ASSERT_LT(std::uint64_t{g.m} * g.n * g.k, internal::kDefaultMinParallelMacs);
  ASSERT_GE(gemm_tile_count(g.packed, g.m), 2u);
  std::vector<std::int8_t> c(g.m * g.n);
  const std::uint64_t before = internal::tile_pool_worker_ranges();
  for (int i = 0; i < 200; ++i) {
    gemm_threaded(g.packed, g.call(c.data()), 2);
    ASSERT_EQ(c, g.want);
  }
  EXPECT_EQ(internal::tile_pool_worker_ranges(), before);
}

}  // namespace
