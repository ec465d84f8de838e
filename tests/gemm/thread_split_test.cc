// The row blocks gemm_threaded and conv2d_threaded cut for their threads
// (kernels/gemm/gemm_thread_split.h, RowBlocks in kernels/gemm/gemm_driver.h): on every ISA path,
// for the cut the chooser makes for 2, 3 and 7 threads and for every cut it may make on small
// shapes, the blocks cover the rows once, each tile run alone writes its own elements and no
// other's, every element is written by exactly one tile, and together they give the one-thread
// bits; gemm_threaded with the pool forced gives them too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "isa_coverage.h"
#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/gemm_thread_split.h"
#include "kernels/support/packed_access.h"
#include "qparity/gemm.h"
#include "tile_pool_probe.h"

namespace {

using namespace qparity;
using internal::RowBlocks;

struct Shape {
  std::size_t m, n, k;
};

struct Problem {
  Shape s;
  std::vector<std::int8_t> a, b;
  RequantParams params;
  PackedGemm packed;
  std::vector<std::int8_t> want;

  Problem(Isa isa, Shape shape, std::uint32_t seed)
      : s(shape), a(shape.m * shape.k), b(shape.n * shape.k), params(requant()),
        packed(pack(isa, shape, seed, a, b, params)) {
    want.assign(s.m * s.n, 0);
    gemm(packed, call(want.data()));
  }

  GemmCall<std::int8_t, std::int8_t> call(std::int8_t* c) const {
    GemmCall<std::int8_t, std::int8_t> g;
    g.m = s.m;
    g.a = a.data();
    g.a_zero_point = -5;
    g.output = full_range_output(OutputType::kInt8, 1);
    g.c = c;
    return g;
  }

  /// Runs tiles [begin, end) of `rb` into c (the driver's own entry, as gemm_threaded calls it).
  void run(RowBlocks rb, std::size_t begin, std::size_t end, std::int8_t* c) const {
    internal::AOperand<std::int8_t> op;
    op.a = a.data();
    op.lda = s.k;
    const GemmCall<std::int8_t, std::int8_t> g = call(c);
    internal::gemm_run_tiles(internal::packed_data(packed), op, s.m, g.a_zero_point, g.output, c, s.n,
                             begin, end, rb);
  }

 private:
  static RequantParams requant() {
    RequantParams p;
    p.multiplier = 1 << 30;
    p.shift = -8;
    return p;
  }
  static PackedGemm pack(Isa isa, Shape s, std::uint32_t seed, std::vector<std::int8_t>& a,
                         std::vector<std::int8_t>& b, const RequantParams& p) {
    std::mt19937 rng(seed);
    for (auto& x : a) x = static_cast<std::int8_t>(rng());
    for (auto& x : b) x = static_cast<std::int8_t>(rng());
    GemmWeights w;
    w.n = s.n;
    w.k = s.k;
    w.b = b.data();
    w.params = &p;
    return PackedGemm(isa, w, RoundingCore::kSingleRoundingUpward);
  }
};

/// Checks one cut: the row spans, then every tile alone (into buffers filled with two different
/// bytes, so that an element is "written" when it differs from the fill in either), then the
/// assembled result against the one-thread bits. Empty string when all hold.
std::string check_cut(const Problem& p, RowBlocks rb) {
  const internal::PackedGemmData& d = internal::packed_data(p.packed);
  const internal::Blocking bk = internal::blocking_for(d, p.s.m);
  std::string where = "m " + std::to_string(p.s.m) + " n " + std::to_string(p.s.n) + " k " +
                      std::to_string(p.s.k) + " blocks " + std::to_string(rb.blocks);
  const std::size_t blocks = internal::row_block_count(bk, p.s.m, rb);
  std::size_t next_row = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const internal::RowSpan span = internal::row_block_span(bk, p.s.m, rb, b);
    if (span.begin != next_row || span.end <= span.begin || span.end - span.begin > bk.mc) {
      return where + ": row block " + std::to_string(b) + " is [" + std::to_string(span.begin) + ", " +
             std::to_string(span.end) + "), expected to start at " + std::to_string(next_row);
    }
    next_row = span.end;
  }
  if (next_row != p.s.m) return where + ": the row blocks end at " + std::to_string(next_row);

  const std::size_t count = internal::gemm_tile_count(d, p.s.m, rb);
  std::vector<int> writes(p.s.m * p.s.n, 0);
  std::vector<std::int8_t> assembled(p.s.m * p.s.n, 0), fill_a, fill_b;
  for (std::size_t t = 0; t < count; ++t) {
    fill_a.assign(p.s.m * p.s.n, static_cast<std::int8_t>(0x55));
    fill_b.assign(p.s.m * p.s.n, static_cast<std::int8_t>(-86));  // 0xAA
    p.run(rb, t, t + 1, fill_a.data());
    p.run(rb, t, t + 1, fill_b.data());
    for (std::size_t i = 0; i < fill_a.size(); ++i) {
      const bool written = fill_a[i] != 0x55 || fill_b[i] != static_cast<std::int8_t>(-86);
      if (!written) continue;
      if (fill_a[i] != fill_b[i]) return where + ": tile " + std::to_string(t) + " wrote element " +
                                         std::to_string(i) + " in one buffer only";
      ++writes[i];
      assembled[i] = fill_a[i];
    }
  }
  for (std::size_t i = 0; i < writes.size(); ++i) {
    if (writes[i] != 1) {
      return where + ": element " + std::to_string(i) + " written by " + std::to_string(writes[i]) +
             " tiles";
    }
  }
  if (assembled != p.want) return where + ": the tiles' elements differ from one gemm() call";
  return "";
}

const Shape kShapes[] = {
    {256, 256, 256},  // three default row blocks: the case the cut is for
    {3136, 64, 64},   // short K, tall tiles
    {1, 64, 64},      // the few-row kernel: default tiles (column blocks)
    {5, 40, 33},      // just past the few-row kernel, K not a multiple of 4
    {17, 40, 33},     // three 8-row groups, the last one partial
    {200, 600, 77},   // several column blocks
};

// The chooser's cut for 2, 3 and 7 threads.
TEST(GemmThreadSplit, ChosenCutsRunEveryTileOnceWithTheOneThreadBits) {
  for (Isa isa : qparity_test::supported_isa_list()) {
    std::uint32_t seed = 1;
    for (const Shape& s : kShapes) {
      const Problem p(isa, s, seed++);
      for (const std::size_t t : {2u, 3u, 7u}) {
        const RowBlocks rb = internal::thread_row_blocks(internal::packed_data(p.packed), s.m, s.k, 1, t);
        EXPECT_EQ(check_cut(p, rb), "") << to_string(isa) << " threads " << t;
      }
    }
    qparity_test::note_isa_exercised(isa);
  }
}

// Every cut the chooser may make (from the tile API's row block count to one MR-row group per
// block) on shapes small enough to try them all.
TEST(GemmThreadSplit, EveryAllowedCutRunsEveryTileOnceWithTheOneThreadBits) {
  for (Isa isa : qparity_test::supported_isa_list()) {
    std::uint32_t seed = 100;
    for (const Shape s : {Shape{17, 40, 33}, Shape{61, 300, 64}, Shape{200, 48, 20}}) {
      const Problem p(isa, s, seed++);
      const internal::PackedGemmData& d = internal::packed_data(p.packed);
      const internal::Blocking bk = internal::blocking_for(d, s.m);
      ASSERT_EQ(bk.kernel, &d.kernel);
      const std::size_t first = internal::ceil_div(s.m, bk.mc);
      const std::size_t last = internal::ceil_div(s.m, bk.kernel->mr);
      for (std::size_t blocks = first; blocks <= last; ++blocks) {
        ASSERT_EQ(check_cut(p, RowBlocks{blocks}), "") << to_string(isa);
      }
    }
    qparity_test::note_isa_exercised(isa);
  }
}

// gemm_threaded itself (pool forced) on the chooser's cuts.
TEST(GemmThreadSplit, GemmThreadedGivesTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  for (Isa isa : qparity_test::supported_isa_list()) {
    std::uint32_t seed = 200;
    for (const Shape& s : kShapes) {
      const Problem p(isa, s, seed++);
      for (const unsigned t : {2u, 3u, 7u}) {
        std::vector<std::int8_t> got(s.m * s.n, 0);
        gemm_threaded(p.packed, p.call(got.data()), t);
        EXPECT_EQ(got, p.want) << to_string(isa) << " m " << s.m << " n " << s.n << " k " << s.k
                               << " threads " << t;
      }
    }
    qparity_test::note_isa_exercised(isa);
  }
}

}  // namespace
