// The compiled GEMM (include/qparity/gemm.h) against the header-only reference, element by
// element at tolerance 0: every ISA path this CPU supports x every rounding core x every
// accumulator model, on a tile-relative edge suite (K below / at / above the K block and the
// int32-exactness limit, partial MR / NR / mc / nc tiles, strides, zero points at the ends of
// their ranges, extreme weights at large K, clamps), on property-based random problems, and for
// any split into tiles and any thread count.
#include <gtest/gtest.h>

#include "accumulators.h"
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "isa_coverage.h"
#include "qparity/fully_connected.h"
#include "qparity/gemm.h"
#include "qparity/reference_gemm.h"
#include "tile_pool_probe.h"

namespace {

using qparity_test::kAccumulatorModels;
using qparity_test::kInt32Accumulator;
using qparity_test::kInt64Accumulator;
using qparity_test::kPairSat32Accumulator;

using namespace qparity;


/// Valid parameters for `core` with a scale around 2^target_log2 (so that outputs are neither all
/// saturated nor all zero for the accumulators the problem produces).
RequantParams random_params(RoundingCore core, std::mt19937& rng, int target_log2) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RequantParams p;
  const int jitter = pick(-2, 2);
  if (core == RoundingCore::kQ15) {
    p.multiplier = pick(0, 9) == 0 ? 16384 : pick(16384, 32767);
    p.shift = std::clamp(target_log2 + jitter, kQ15ShiftMin, kQ15ShiftMax);
  } else {
    p.multiplier = pick(0, 9) == 0 ? (1 << 30) : pick(1 << 30, 2147483647);
    p.shift = std::clamp(target_log2 + jitter, kQ31ShiftMin, kQ31ShiftMax);
  }
  p.scale = static_cast<float>(std::ldexp(pick(1 << 23, (1 << 24) - 1), target_log2 + jitter - 24));
  if (core == RoundingCore::kFloat32ZeroPointInside) {
    p.bias = static_cast<float>(pick(-50, 50)) * 0.25f;
    p.post_scale = pick(0, 1) ? 1.0f : 0.5f + static_cast<float>(pick(0, 100)) / 100.0f;
  }
  return p;
}

template <class AType, class OutType>
struct Case {
  std::size_t m = 1, n = 1, k = 1, lda = 0, ldb = 0, ldc = 0;
  WeightLayout layout = WeightLayout::kNxK;
  std::vector<AType> a;
  std::vector<std::int8_t> b;
  std::vector<std::int32_t> b_zp, bias;
  std::vector<RequantParams> params;
  bool per_channel = false, zp_per_channel = false, has_b_zp = false, has_bias = true;
  std::int32_t a_zp = 0;
  OutputParams out{};

  GemmProblem<AType, OutType> problem(std::vector<OutType>& c) const {
    GemmProblem<AType, OutType> g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a.data();
    g.a_row_stride = lda;
    g.a_zero_point = a_zp;
    g.b = b.data();
    g.b_layout = layout;
    g.b_row_stride = ldb;
    g.b_zero_points = has_b_zp ? b_zp.data() : nullptr;
    g.b_zero_point_per_channel = zp_per_channel;
    g.bias = has_bias ? bias.data() : nullptr;
    g.params = params.data();
    g.per_channel = per_channel;
    g.output = out;
    c.assign(m * (ldc ? ldc : n), OutType{0x5a});
    g.c = c.data();
    g.c_row_stride = ldc;
    return g;
  }
};

enum class Fill { kRandom, kMaxMagnitude, kPairSaturating };

template <class AType, class OutType>
Case<AType, OutType> make_case(std::mt19937& rng, RoundingCore core, std::size_t m, std::size_t n,
                               std::size_t k, Fill fill) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case<AType, OutType> c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.layout = pick(0, 1) ? WeightLayout::kKxN : WeightLayout::kNxK;
  c.lda = pick(0, 2) == 0 ? 0 : k + static_cast<std::size_t>(pick(0, 9));
  c.ldb = pick(0, 2) == 0 ? 0 : (c.layout == WeightLayout::kKxN ? n : k) + static_cast<std::size_t>(pick(0, 9));
  c.ldc = pick(0, 2) == 0 ? 0 : n + static_cast<std::size_t>(pick(0, 9));
  const int amin = std::is_signed<AType>::value ? -128 : 0, amax = amin + 255;
  c.a.resize(m * (c.lda ? c.lda : k));
  c.b.resize((c.layout == WeightLayout::kKxN ? k : n) * (c.ldb ? c.ldb : (c.layout == WeightLayout::kKxN ? n : k)));
  c.b_zp.resize(n);
  c.bias.resize(n);
  switch (fill) {
    case Fill::kRandom:
      for (auto& v : c.a) v = static_cast<AType>(pick(amin, amax));
      for (auto& v : c.b) v = static_cast<std::int8_t>(pick(-128, 127));
      c.a_zp = pick(0, 3) == 0 ? (pick(0, 1) ? amin : amax) : pick(amin, amax);
      for (auto& v : c.b_zp) v = pick(0, 3) == 0 ? (pick(0, 1) ? -128 : 127) : pick(-128, 127);
      break;
    case Fill::kMaxMagnitude:  // every term (a - za)(b - zb) = -255 * 255 or +255 * 255
      for (auto& v : c.a) v = static_cast<AType>(amin);
      for (auto& v : c.b) v = 127;
      c.a_zp = amax;
      for (auto& v : c.b_zp) v = -128;
      break;
    case Fill::kPairSaturating:  // a + 128 (or a) = 255 times +-127/-128: every pair saturates
      for (auto& v : c.a) v = static_cast<AType>(amax);
      for (std::size_t i = 0; i < c.b.size(); ++i) c.b[i] = pick(0, 1) ? 127 : -128;
      c.a_zp = pick(amin, amax);
      for (auto& v : c.b_zp) v = pick(-3, 3);
      break;
  }
  c.has_b_zp = pick(0, 2) != 0;
  c.zp_per_channel = pick(0, 1);
  c.has_bias = pick(0, 4) != 0;
  for (auto& v : c.bias) v = pick(0, 9) == 0 ? (pick(0, 1) ? INT32_MIN / 2 : INT32_MAX / 2) : pick(-300000, 300000);
  c.per_channel = pick(0, 1);
  // Accumulators are of order sqrt(k) * 255 * 74 (random) or k * 65025 (extreme): aim the scale
  // at an output of a few tens.
  const double typical = fill == Fill::kRandom ? std::sqrt(static_cast<double>(k)) * 255.0 * 74.0
                                               : static_cast<double>(k) * 65025.0;
  const int target = static_cast<int>(std::lround(std::log2(40.0 / typical)));
  c.params.resize(c.per_channel ? n : 1);
  for (auto& p : c.params) p = random_params(core, rng, target + 1);  // every core: scale ~ 2^(shift - 1)
  const OutputType ot = detail::output_type_of<OutType>();
  const std::int32_t lo = output_type_min(ot), hi = output_type_max(ot);
  const std::int32_t zp_lo = std::max(lo, -1000), zp_hi = std::min(hi, 1000);
  c.out.zero_point = pick(0, 3) == 0 ? (pick(0, 1) ? zp_lo : zp_hi) : pick(zp_lo, zp_hi);
  if (pick(0, 1)) {
    c.out.qmin = lo;
    c.out.qmax = hi;
  } else {
    c.out.qmin = std::max<std::int64_t>(lo, static_cast<std::int64_t>(c.out.zero_point) - pick(0, 60));
    c.out.qmax = std::min<std::int64_t>(hi, static_cast<std::int64_t>(c.out.zero_point) + pick(0, 60));
  }
  return c;
}

std::string describe(Isa isa, RoundingCore core, AccumulatorSpec acc, std::size_t m, std::size_t n,
                     std::size_t k) {
  return std::string(to_string(isa)) + " " + to_string(core) + " " + to_string(acc) + " m=" +
         std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
}

/// Runs the case on `isa` and through the reference; returns the first mismatch or "".
template <class AType, class OutType>
std::string compare(Isa isa, RoundingCore core, AccumulatorSpec acc, const Case<AType, OutType>& c) {
  std::vector<OutType> expect, got;
  const GemmProblem<AType, OutType> ge = c.problem(expect);
  reference::gemm(ge, core, acc);
  const GemmProblem<AType, OutType> gg = c.problem(got);
  const PackedGemm w(isa, weights_of(gg), core, acc);
  gemm(w, call_of(gg));
  qparity_test::note_isa_exercised(isa);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expect[i]) {
      const std::size_t ld = c.ldc ? c.ldc : c.n;
      return describe(isa, core, acc, c.m, c.n, c.k) + " kernel " + w.kernel_name() +
             ": C[" + std::to_string(i / ld) + "][" + std::to_string(i % ld) + "] = " +
             std::to_string(static_cast<long long>(got[i])) + ", reference " +
             std::to_string(static_cast<long long>(expect[i]));
    }
  }
  return "";
}

// Shapes relative to the blocking: MR in {4..32}, NR in {16, 32, 64}, mc ~ 96, nc ~ 256, K block
// up to 1024 groups (4096 elements for 4-byte groups, 2048 for pairs; 512 / 256 on AMX), kMaxKBlock
// 65536.
struct Shape {
  std::size_t m, n, k;
};
const Shape kEdgeShapes[] = {
    {1, 1, 1},   {1, 3, 7},     {3, 17, 63},  {7, 1, 17},    {17, 63, 3},   {2, 16, 4},
    {5, 33, 64}, {9, 31, 65},   {13, 47, 255}, {4, 48, 256}, {8, 64, 257},  {3, 15, 511},
    {6, 17, 512}, {2, 20, 513}, {33, 5, 1023}, {1, 100, 2},  {97, 7, 9},    {12, 257, 5},
    {100, 260, 31}, {5, 18, 2047}, {6, 17, 2048}, {2, 20, 2049}, {3, 33, 4095}, {4, 19, 4096},
    {9, 16, 4097},
    // One row (the few-row kernel with the main K blocks): one block, two blocks, past a strip.
    {1, 129, 1025}, {1, 70, 4097},
};

template <class AType, class OutType>
void edge_suite(RoundingCore core, AccumulatorSpec acc, std::uint32_t seed) {
  std::mt19937 rng(seed);
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (const Shape& s : kEdgeShapes) {
      const auto c = make_case<AType, OutType>(rng, core, s.m, s.n, s.k, Fill::kRandom);
      const std::string err = compare(isa, core, acc, c);
      ASSERT_EQ(err, "");
    }
  }
}

class GemmEdge : public ::testing::TestWithParam<RoundingCore> {};

TEST_P(GemmEdge, EveryIsaEveryAccumulatorInt8ToInt8) {
  for (const AccumulatorSpec& acc : kAccumulatorModels) edge_suite<std::int8_t, std::int8_t>(GetParam(), acc, 1);
}

TEST_P(GemmEdge, EveryIsaEveryAccumulatorUint8ToUint8) {
  for (const AccumulatorSpec& acc : kAccumulatorModels) edge_suite<std::uint8_t, std::uint8_t>(GetParam(), acc, 2);
}

TEST_P(GemmEdge, Int16AndInt32Outputs) {
  edge_suite<std::int8_t, std::int16_t>(GetParam(), kInt32Accumulator, 3);
  edge_suite<std::uint8_t, std::int32_t>(GetParam(), kInt64Accumulator, 4);
  edge_suite<std::int8_t, std::int32_t>(GetParam(), kPairSat32Accumulator, 5);
}

// Extreme operands at large K: int32 wrap-around, int64 results far outside int32 (the wide
// requantization path), saturating accumulators that do saturate, wrapping ones that wrap, and
// the pair saturation of VPMADDUBSW.
TEST_P(GemmEdge, ExtremeOperandsAtLargeK) {
  std::mt19937 rng(6);
  const std::size_t ks[] = {33026, 65536, 65537, 70001};  // 33026 * 65025 > 2^31
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (std::size_t k : ks) {
      for (const AccumulatorSpec& acc : kAccumulatorModels) {
        const auto c8 = make_case<std::int8_t, std::int8_t>(rng, GetParam(), 2, 3, k, Fill::kMaxMagnitude);
        ASSERT_EQ(compare(isa, GetParam(), acc, c8), "");
        const auto cu = make_case<std::uint8_t, std::int32_t>(rng, GetParam(), 1, 17, k, Fill::kMaxMagnitude);
        ASSERT_EQ(compare(isa, GetParam(), acc, cu), "");
      }
    }
  }
}

TEST_P(GemmEdge, PairSaturation) {
  std::mt19937 rng(7);
  const AccumulatorSpec pairsat{AccumulatorKind::kPairSaturating, 32};
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (std::size_t k : {1, 2, 3, 5, 64, 129, 1001}) {
      const auto c8 = make_case<std::int8_t, std::int32_t>(rng, GetParam(), 3, 19, k, Fill::kPairSaturating);
      ASSERT_EQ(compare(isa, GetParam(), pairsat, c8), "");
      const auto cu = make_case<std::uint8_t, std::int16_t>(rng, GetParam(), 5, 33, k, Fill::kPairSaturating);
      ASSERT_EQ(compare(isa, GetParam(), pairsat, cu), "");
    }
  }
}

// Weights in [-64, 64] without a weight zero point (ONNX Runtime's reduce_range, oneDNN's halved
// filter): the exact int32 model runs on the pair-saturating kernel where the exact one multiplies
// int16 pairs (AVX2, AVX-512BW; packed_gemm.cc pairs_cannot_saturate), and must give the int32
// reference's bits: the largest pairs (255 or -128 / 127 activations against +-64, both signs, the
// zero point at either end) and random ones, every shape of kEdgeShapes, both activation types.
// A weight of 65 or -65, or a nonzero weight zero point, keeps the exact kernel.
TEST_P(GemmEdge, SmallWeightsRunOnThePairKernelWithTheExactBits) {
  const RoundingCore core = GetParam();
  std::mt19937 rng(9);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::size_t pair_runs = 0;
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (const Shape& s : kEdgeShapes) {
      for (int variant = 0; variant < 5; ++variant) {
        auto c8 = make_case<std::int8_t, std::int8_t>(rng, core, s.m, s.n, s.k, Fill::kRandom);
        auto cu = make_case<std::uint8_t, std::uint8_t>(rng, core, s.m, s.n, s.k, Fill::kRandom);
        const bool extreme = variant % 2 == 1;
        for (auto& v : c8.b) v = static_cast<std::int8_t>(extreme ? (pick(0, 1) ? 64 : -64) : pick(-64, 64));
        for (auto& v : c8.a) v = static_cast<std::int8_t>(extreme ? (pick(0, 1) ? 127 : -128) : pick(-128, 127));
        for (auto& v : cu.b) v = static_cast<std::int8_t>(extreme ? (pick(0, 1) ? 64 : -64) : pick(-64, 64));
        for (auto& v : cu.a) v = static_cast<std::uint8_t>(extreme ? 255 : pick(0, 255));
        const bool stay_exact = variant >= 3;  // 3: one weight just outside; 4: see below
        if (variant == 3) {
          c8.b[0] = pick(0, 1) ? 65 : -65;  // element 0 is a weight in both layouts
          cu.b[0] = pick(0, 1) ? 65 : -65;
        }
        c8.has_b_zp = cu.has_b_zp = false;
        if (variant == 4) {  // small weights, but a weight zero point: the exact kernel
          c8.has_b_zp = true;
          c8.zp_per_channel = false;
          c8.b_zp.assign(c8.b_zp.size(), 3);
        }
        const bool pair_isa = isa == Isa::kAvx2 || isa == Isa::kAvx512;
        if (pair_isa && !stay_exact) {  // (the other ISAs and the exact kernel: the suites above)
          ASSERT_EQ(compare(isa, core, kInt32Accumulator, c8), "");
          ASSERT_EQ(compare(isa, core, kInt32Accumulator, cu), "");
        }
        std::vector<std::int8_t> out;
        const auto g = c8.problem(out);
        const PackedGemm w(isa, weights_of(g), core, kInt32Accumulator);
        const bool on_pairs = w.kernel_name().find("pairsat") != std::string::npos;
        if (pair_isa) {
          EXPECT_EQ(on_pairs, !stay_exact) << to_string(isa) << " " << w.kernel_name();
        } else {
          EXPECT_FALSE(on_pairs) << to_string(isa) << " " << w.kernel_name();
        }
        pair_runs += on_pairs;
        qparity_test::note_isa_exercised(isa);  // packed and checked on every ISA (kernel choice)
      }
    }
  }
  const bool has_pair_isa = (supported_isas() & (mask_of(Isa::kAvx2) | mask_of(Isa::kAvx512))) != 0;
  EXPECT_EQ(pair_runs > 0, has_pair_isa) << "the pair kernel path was never taken";
}

INSTANTIATE_TEST_SUITE_P(AllCores, GemmEdge, ::testing::ValuesIn(kAllRoundingCores),
                         [](const ::testing::TestParamInfo<RoundingCore>& info) {
                           std::string s = to_string(info.param);
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// The fused epilogue (kernels/gemm/gemm_epilogue.h: int32-folded models, each MR x NR block
// requantized after its last K block with parameters prepared at packing time; on AVX-512 VNNI by
// the micro-kernel from registers): every column count 1..65 (partial vectors, 1..NR columns of a
// block), 1..20 rows, N across the 256-channel parameter blocks, one and several K blocks, every output type, per-channel parameters whose shifts span the whole
// range (pre-shifted and not, high-half and direct shift modes in one plan), every core.
template <class AType, class OutType>
void epilogue_suite(RoundingCore core, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::size_t> ns;
  for (std::size_t n = 1; n <= 65; ++n) ns.push_back(n);
  for (std::size_t n : {95u, 257u, 300u, 520u}) ns.push_back(n);
  const AccumulatorSpec accs[] = {{AccumulatorKind::kInt32, 32}, {AccumulatorKind::kPairSaturating, 32}};
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (std::size_t n : ns) {
      // Up to 3 row blocks of the 8-row kernels, so that blocks follow each other in a tile.
      const std::size_t m = n > 65 ? 11 : static_cast<std::size_t>(pick(1, 20));
      const std::size_t k = pick(0, 3) == 0 ? 4200 : static_cast<std::size_t>(pick(1, 40));
      auto c = make_case<AType, OutType>(rng, core, m, n, k, Fill::kRandom);
      c.has_b_zp = c.has_b_zp && !c.zp_per_channel;  // the fused path's models
      if (c.per_channel && pick(0, 1)) {  // shifts over the whole range, channel by channel
        const double typical = std::sqrt(static_cast<double>(k)) * 255.0 * 74.0;
        const int target = static_cast<int>(std::lround(std::log2(40.0 / typical)));
        for (auto& p : c.params) p = random_params(core, rng, pick(0, 3) == 0 ? pick(-25, 6) : target);
      }
      const AccumulatorSpec acc = accs[pick(0, 1)];
      const std::string err = compare(isa, core, acc, c);
      ASSERT_EQ(err, "") << (c.per_channel ? "per-channel" : "per-tensor");
    }
  }
}

TEST_P(GemmEdge, FusedEpilogueEveryColumnCountAndOutputType) {
  const RoundingCore core = GetParam();
  epilogue_suite<std::int8_t, std::int8_t>(core, 101);
  epilogue_suite<std::uint8_t, std::uint8_t>(core, 102);
  epilogue_suite<std::int8_t, std::int16_t>(core, 103);
  epilogue_suite<std::uint8_t, std::int32_t>(core, 104);
  epilogue_suite<std::int8_t, std::int32_t>(core, 105);
}

// F32-ZPF's fused epilogue for 8- and 16-bit outputs clamps in float before rounding
// (requantize_x86.h float_core_clamped): values at the clamp bounds and half a unit either side
// of them (ties of both signs), values past +-2^24 and past +-2^31 (where the unclamped core
// saturates), with narrowed and full clamps, per tensor and per channel, every output type. K = 1
// and a per-column int32 bias set each accumulator: acc = a_i + bias_j, a_i in [-8, 7].
template <class OutType>
void zpf_clamp_suite(bool per_channel, bool narrowed) {
  const OutputType ot = detail::output_type_of<OutType>();
  Case<std::int8_t, OutType> c;
  c.m = 16;
  c.k = 1;
  c.out.zero_point = std::is_same<OutType, std::uint8_t>::value ? 7 : -3;
  c.out.qmin = narrowed ? output_type_min(ot) / 2 + 5 : output_type_min(ot);
  c.out.qmax = narrowed ? output_type_max(ot) / 2 - 4 : output_type_max(ot);
  // Each column's bias centres the column's 16 accumulators on a target value of the float.
  std::vector<std::int64_t> centres = {0, -1, 1};
  for (std::int64_t b : {std::int64_t{c.out.qmin}, std::int64_t{c.out.qmax}, std::int64_t{output_type_min(ot)},
                         std::int64_t{output_type_max(ot)}}) {
    centres.push_back(b - c.out.zero_point);
  }
  for (std::int64_t v : {std::int64_t{1} << 24, (std::int64_t{1} << 24) + 9, std::int64_t{1} << 30,
                         std::int64_t{INT32_MAX} - 8}) {
    centres.push_back(v);
    centres.push_back(-v);
  }
  for (auto& v : centres) v = std::clamp<std::int64_t>(v, std::int64_t{INT32_MIN} + 8, std::int64_t{INT32_MAX} - 8);
  c.n = centres.size();
  c.a.resize(c.m);
  for (std::size_t i = 0; i < c.m; ++i) c.a[i] = static_cast<std::int8_t>(static_cast<int>(i) - 8);
  c.b.assign(c.n, 1);
  c.bias.resize(c.n);
  c.b_zp.assign(c.n, 0);
  for (std::size_t j = 0; j < c.n; ++j) c.bias[j] = static_cast<std::int32_t>(centres[j]);
  c.has_b_zp = false;
  c.per_channel = per_channel;
  // scale 1, bias 0.5 (every value a tie), post_scale 1; per channel, every third column scaled by
  // 4 (past 2^31 for the 2^30 and INT32_MAX columns) and every third by 0.5 with bias -0.25.
  RequantParams base;
  base.scale = 1.0f;
  base.bias = 0.5f;
  base.post_scale = 1.0f;
  c.params.assign(per_channel ? c.n : 1, base);
  if (per_channel) {
    for (std::size_t j = 0; j < c.n; ++j) {
      if (j % 3 == 1) c.params[j].scale = 4.0f;
      if (j % 3 == 2) c.params[j].scale = 0.5f, c.params[j].bias = -0.25f;
    }
  }
  for (Isa isa : qparity_test::supported_isa_list()) {
    const std::string err =
        compare(isa, RoundingCore::kFloat32ZeroPointInside, AccumulatorSpec{AccumulatorKind::kInt32, 32}, c);
    ASSERT_EQ(err, "") << (per_channel ? "per-channel" : "per-tensor") << (narrowed ? " narrowed" : " full");
  }
}

TEST(GemmFusedEpilogue, ZeroPointInsideClampBoundsTiesAndSaturation) {
  for (bool per_channel : {false, true}) {
    for (bool narrowed : {false, true}) {
      zpf_clamp_suite<std::int8_t>(per_channel, narrowed);
      zpf_clamp_suite<std::uint8_t>(per_channel, narrowed);
      zpf_clamp_suite<std::int16_t>(per_channel, narrowed);
      zpf_clamp_suite<std::int32_t>(per_channel, narrowed);
    }
  }
}

// A strided A whose K is not a multiple of 4 is read in place by the kernels that can (TilePlan::
// direct_a, kernels/gemm/gemm_tile.cc) in every row tile but the one that ends at A's last row: a
// row's last K group reads 1-3 bytes past K, which belong to the next rows (or the stride's gap)
// and meet zero weights. 300 rows are several row tiles (mc ~ 96), the last one partial; a dense
// A is allocated to exactly M x K bytes, so a read past its end fails the ASan build; K = 1 and 2
// read past several rows. K >= 64 reaches the AMX kernel, which loads whole 64-byte steps of 16
// rows in place and stages its K tail and a partial row block (ukernel_amx_body.h): K = 65, 100
// and 130 end inside a step, 192 does not.
TEST(GemmDirectA, KNotMultipleOfFourMatchesTheReference) {
  std::mt19937 rng(12);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (const RoundingCore core : {RoundingCore::kDoubleRoundingAwayFromZero, RoundingCore::kFloat32}) {
      for (const std::size_t k : {1u, 2u, 3u, 5u, 7u, 27u, 31u, 65u, 100u, 130u, 192u}) {
        for (const std::size_t lda : {std::size_t{0}, k + 1}) {
          auto c = make_case<std::int8_t, std::int8_t>(rng, core, 300, 40, k, Fill::kRandom);
          c.lda = lda;
          std::vector<std::int8_t> a(c.m * (lda ? lda : k));  // a new allocation of exactly this size
          for (auto& v : a) v = static_cast<std::int8_t>(pick(-128, 127));
          c.a = std::move(a);
          ASSERT_EQ(compare(isa, core, kInt32Accumulator, c), "");
        }
      }
    }
  }
}

// A tile's last column block with at most 16 valid columns runs the one-panel variant of the main
// kernel where the ISA has one (UkernelSet::exact_one_panel: AVX-512 VNNI 8x16, fused with the
// epilogue; AVX-512BW 12x16): N = 8, 16 and 17 (one panel alone, and one full block then a
// one-column block), 48 and 144 (blocks of 32, then 16), K odd, short, a multiple of 4 and over
// one K block (4200 > 1024 groups: accumulated blocks), A dense and strided, int8 and uint8
// activations, every core; with the int32 model (fused epilogue) and int64 (separate pass).
TEST(GemmOnePanel, NarrowLastColumnBlockMatchesTheReference) {
  std::mt19937 rng(19);
  const AccumulatorSpec int64_acc{AccumulatorKind::kInt64, 64};
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (const RoundingCore core : kAllRoundingCores) {
      for (const std::size_t n : {8u, 16u, 17u, 48u, 144u}) {
        for (const std::size_t k : {3u, 7u, 32u, 33u, 4200u}) {
          if (k == 4200 && n > 17) continue;  // (time: the long-K blocks are the same code)
          const std::size_t m = 37;  // several 8- and 12-row blocks, the last one partial
          const AccumulatorSpec acc = k == 7 ? int64_acc : kInt32Accumulator;
          const auto c8 = make_case<std::int8_t, std::int8_t>(rng, core, m, n, k, Fill::kRandom);
          ASSERT_EQ(compare(isa, core, acc, c8), "");
          const auto cu = make_case<std::uint8_t, std::uint8_t>(rng, core, m, n, k, Fill::kRandom);
          ASSERT_EQ(compare(isa, core, acc, cu), "");
        }
      }
    }
  }
}

// A row block with 1-3 valid rows runs the one-row kernel once per row where the ISA has one
// (UkernelSet::exact_row_tail: AVX-512 VNNI 1x32, A read in place, then the block's separate
// epilogue), and with 4-7 the main kernel: M = 9..15 and 49 (one tile, its last block partial),
// 97..99 (a second row tile of 1-3 rows; mc = 96 at K >= 128), 17 and 63; K a multiple of 4 (A
// read in place) and not (the last tile packed), short and over one K block (4200 > 1024 groups:
// accumulated blocks); N = 16, 17, 64 (one-panel and partial column blocks); int8 activations
// with the zero point at -128 and 127, uint8 at 0 and 255; every core; with the int32 model
// (fused epilogue) and int64 (separate pass).
TEST(GemmRowTail, FewValidRowsInABlockMatchTheReference) {
  std::mt19937 rng(23);
  const AccumulatorSpec int64_acc{AccumulatorKind::kInt64, 64};
  int round = 0;
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (const RoundingCore core : kAllRoundingCores) {
      for (const std::size_t m : {9u, 10u, 11u, 12u, 15u, 17u, 49u, 63u, 97u, 99u}) {
        for (const std::size_t k : {4u, 60u, 64u, 68u, 129u, 4200u}) {
          if (k == 4200 && m > 17) continue;  // (time: the long-K blocks are the same code)
          const std::size_t n = std::size_t{16} + (round % 3 == 1 ? 1 : 0) + (round % 3 == 2 ? 48 : 0);
          const AccumulatorSpec acc = round % 5 == 4 ? int64_acc : kInt32Accumulator;
          ++round;
          auto c8 = make_case<std::int8_t, std::int8_t>(rng, core, m, n, k, Fill::kRandom);
          c8.a_zp = round % 2 ? -128 : 127;
          ASSERT_EQ(compare(isa, core, acc, c8), "") << "m " << m << " k " << k << " n " << n;
          auto cu = make_case<std::uint8_t, std::uint8_t>(rng, core, m, n, k, Fill::kRandom);
          cu.a_zp = round % 2 ? 0 : 255;
          ASSERT_EQ(compare(isa, core, acc, cu), "") << "m " << m << " k " << k << " n " << n;
        }
      }
    }
    qparity_test::note_isa_exercised(isa);
  }
}

// Every split of the tiles, on any threads, gives the bits of one call.
TEST(GemmTiles, AnySplitAndThreadCountGivesTheSameBits) {
  std::mt19937 rng(8);
  for (Isa isa : qparity_test::supported_isa_list()) {
    const auto c = make_case<std::int8_t, std::int8_t>(rng, RoundingCore::kSingleRoundingUpward, 300, 600, 77, Fill::kRandom);
    std::vector<std::int8_t> whole, split, threaded;
    const auto g1 = c.problem(whole);
    const PackedGemm w(isa, weights_of(g1), RoundingCore::kSingleRoundingUpward);
    gemm(w, call_of(g1));
    const std::size_t tiles = gemm_tile_count(w, c.m);
    ASSERT_GT(tiles, 4u);
    const auto g2 = c.problem(split);
    std::vector<std::size_t> cuts = {0, tiles};
    for (int i = 0; i < 3; ++i) cuts.push_back(std::uniform_int_distribution<std::size_t>(0, tiles)(rng));
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) gemm_tiles(w, call_of(g2), cuts[i], cuts[i + 1]);
    EXPECT_EQ(split, whole) << to_string(isa);
    // The pool forced (this shape is small enough for TSan, and may be under the pool's
    // threshold): every thread count must run tiles on a worker at least once, with the same bits.
    const qparity_test::ForceTilePool force;
    for (unsigned t : {1u, 2u, 3u, 7u}) {
      const bool worker_ran = qparity_test::a_worker_ran_during([&] {
        const auto g3 = c.problem(threaded);
        gemm_threaded(w, call_of(g3), t);
        EXPECT_EQ(threaded, whole) << to_string(isa) << " threads " << t;
      }, t > 1 ? 200 : 1);
      EXPECT_EQ(worker_ran, t > 1) << to_string(isa) << " threads " << t;
    }
    qparity_test::note_isa_exercised(isa);
  }
}

// Tiles cut for a number of threads (gemm_tile_count(w, m, threads)): every partition of them, on
// one thread or several, gives the bits of gemm(), for row counts on the few-row kernel (1, 3), a
// partial last MR block (17, 63) and several row blocks (256); threads = 1 is the default tiles.
// Under the pool's threshold (small work) and with it forced to 0, where every count is cut.
TEST(GemmTiles, CutForThreadsGivesTheBitsOfGemm) {
  std::mt19937 rng(19);
  for (Isa isa : qparity_test::supported_isa_list()) {
    bool cut_differs = false;  // some count is not the default one: the cut is exercised
    for (const std::size_t m : {1u, 3u, 17u, 63u, 256u}) {
      const RoundingCore core = m % 2 ? RoundingCore::kDoubleRoundingAwayFromZero : RoundingCore::kFloat32;
      const auto c = make_case<std::int8_t, std::int8_t>(rng, core, m, 80, 70, Fill::kRandom);
      std::vector<std::int8_t> whole, out;
      const auto g = c.problem(whole);
      const PackedGemm w(isa, weights_of(g), core);
      gemm(w, call_of(g));
      const auto call = call_of(c.problem(out));
      for (const bool forced : {false, true}) {
        const std::uint64_t previous = internal::set_min_parallel_macs(forced ? 0 : internal::kDefaultMinParallelMacs);
        for (const unsigned t : {1u, 2u, 3u, 7u}) {
          const std::string what = std::string(to_string(isa)) + " m " + std::to_string(m) + " threads " +
                                   std::to_string(t) + (forced ? " (threshold 0)" : "");
          const std::size_t count = gemm_tile_count(w, m, t);
          ASSERT_GE(count, 1u) << what;
          cut_differs = cut_differs || count != gemm_tile_count(w, m);
          if (t == 1) {
            EXPECT_EQ(count, gemm_tile_count(w, m)) << what;
          }
          // One tile at a time in reverse order: no tile relies on another.
          std::fill(out.begin(), out.end(), std::int8_t{0x5a});  // as problem() leaves it
          for (std::size_t i = count; i > 0; --i) gemm_tiles(w, call, t, i - 1, i);
          EXPECT_EQ(out, whole) << what << " (one tile at a time, reversed)";
          // Halves, the second first.
          std::fill(out.begin(), out.end(), std::int8_t{0x5a});  // as problem() leaves it
          gemm_tiles(w, call, t, count / 2, count);
          gemm_tiles(w, call, t, 0, count / 2);
          EXPECT_EQ(out, whole) << what << " (halves)";
          // An engine's pool: t threads, each a contiguous share (as gemm_bench's external pool).
          std::fill(out.begin(), out.end(), std::int8_t{0x5a});  // as problem() leaves it
          std::vector<std::thread> pool;
          for (unsigned i = 0; i < t; ++i) {
            pool.emplace_back([&, i] { gemm_tiles(w, call, t, count * i / t, count * (i + 1) / t); });
          }
          for (std::thread& th : pool) th.join();
          EXPECT_EQ(out, whole) << what << " (" << t << " threads, contiguous shares)";
        }
        internal::set_min_parallel_macs(previous);
      }
    }
    EXPECT_TRUE(cut_differs) << to_string(isa);
    qparity_test::note_isa_exercised(isa);
  }
}

TEST(GemmProperty, RandomProblemsEqualTheReference) {
  rc::check([] {
    const RoundingCore core = kAllRoundingCores[*rc::gen::inRange(0, kNumRoundingCores)];
    const AccumulatorSpec acc = kAccumulatorModels[*rc::gen::inRange<std::size_t>(0, std::size(kAccumulatorModels))];
    const std::size_t m = *rc::gen::inRange<std::size_t>(1, 40);
    const std::size_t n = *rc::gen::inRange<std::size_t>(1, 80);
    const std::size_t k = *rc::gen::inRange<std::size_t>(1, 700);
    std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>());
    const bool extreme = *rc::gen::inRange(0, 4) == 0;
    const Fill fill = extreme ? Fill::kMaxMagnitude : Fill::kRandom;
    if (*rc::gen::arbitrary<bool>()) {
      const auto c = make_case<std::int8_t, std::int8_t>(rng, core, m, n, k, fill);
      // Every ISA on every generated case: each test runs in its own process under ctest, and
      // isa_coverage.cc fails the process if a supported path was never exercised.
      for (Isa isa : qparity_test::supported_isa_list()) {
        RC_ASSERT(compare(isa, core, acc, c) == "");
        qparity_test::note_isa_exercised(isa);
      }
    } else {
      const auto c = make_case<std::uint8_t, std::uint8_t>(rng, core, m, n, k, fill);
      for (Isa isa : qparity_test::supported_isa_list()) {
        RC_ASSERT(compare(isa, core, acc, c) == "");
        qparity_test::note_isa_exercised(isa);
      }
    }
  });
}

// TFLite FULLY_CONNECTED over gemm: per-tensor and per-channel filters, batch 1 and more, against
// the reference fully connected layer.
TEST(FullyConnected, EqualsTheReferenceLayer) {
  std::mt19937 rng(9);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (Isa isa : qparity_test::supported_isa_list()) {
    for (std::size_t batch : {1, 2, 5, 33}) {
      for (bool per_channel : {false, true}) {
        const std::size_t out_depth = 1000, in_depth = 1024;
        std::vector<std::int8_t> filter(out_depth * in_depth), input(batch * in_depth);
        for (auto& v : filter) v = static_cast<std::int8_t>(pick(-127, 127));
        for (auto& v : input) v = static_cast<std::int8_t>(pick(-128, 127));
        std::vector<std::int32_t> bias(out_depth);
        for (auto& v : bias) v = pick(-20000, 20000);
        std::vector<RequantParams> params(per_channel ? out_depth : 1);
        for (auto& p : params) p = RequantParams{pick(1 << 30, 2147483647), pick(-13, -9)};
        FullyConnectedWeights f;
        f.output_depth = out_depth;
        f.input_depth = in_depth;
        f.filter = filter.data();
        f.bias = bias.data();
        f.params = params.data();
        f.per_channel = per_channel;
        std::vector<std::int8_t> want(batch * out_depth), got(batch * out_depth);
        FullyConnectedCall<std::int8_t, std::int8_t> call{batch, input.data(), pick(-128, 127),
                                                          OutputParams{-3, -128, 100}, want.data()};
        reference::fully_connected<DoubleRoundingAwayFromZero>(f, call);
        const PackedGemm packed(isa, gemm_weights_of(f), RoundingCore::kDoubleRoundingAwayFromZero);
        call.out = got.data();
        fully_connected(packed, call);
        ASSERT_EQ(got, want) << to_string(isa) << " batch " << batch << " kernel " << packed.kernel_name(batch);
        qparity_test::note_isa_exercised(isa);
      }
    }
  }
}

// ---- bad input ----------------------------------------------------------------------------------

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GemmBadInput, NamesTheParameter) {
  std::vector<std::int8_t> b(12, 1);
  RequantParams p{1 << 30, -3};
  GemmWeights w;
  w.n = 3;
  w.k = 4;
  w.b = b.data();
  w.params = &p;
  const RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;
  EXPECT_NE(error_of([&] { GemmWeights x = w; x.n = 0; PackedGemm(x, core); }).find("n = 0"), std::string::npos);
  EXPECT_NE(error_of([&] { GemmWeights x = w; x.b = nullptr; PackedGemm(x, core); }).find("b is null"), std::string::npos);
  EXPECT_NE(error_of([&] { GemmWeights x = w; x.row_stride = 2; PackedGemm(x, core); }).find("b_row_stride"), std::string::npos);
  std::int32_t zp = 200;
  EXPECT_NE(error_of([&] { GemmWeights x = w; x.zero_points = &zp; PackedGemm(x, core); }).find("b_zero_points"), std::string::npos);
  RequantParams bad{1 << 30, 31};
  EXPECT_NE(error_of([&] { GemmWeights x = w; x.params = &bad; PackedGemm(x, core); }).find("shift"), std::string::npos);
  EXPECT_NE(error_of([&] { PackedGemm(w, core, AccumulatorSpec{AccumulatorKind::kSaturating, 50}); }).find("accumulator.bits"), std::string::npos);

  const PackedGemm packed(w, core);
  std::vector<std::int8_t> a(8, 0), c(6, 0);
  GemmCall<std::int8_t, std::int8_t> call{2, a.data(), 0, 0, full_range_output(OutputType::kInt8), c.data(), 0};
  EXPECT_NE(error_of([&] { auto x = call; x.m = 0; gemm(packed, x); }).find("m"), std::string::npos);
  EXPECT_NE(error_of([&] { auto x = call; x.a = nullptr; gemm(packed, x); }).find("a is null"), std::string::npos);
  EXPECT_NE(error_of([&] { auto x = call; x.a_row_stride = 3; gemm(packed, x); }).find("a_row_stride"), std::string::npos);
  EXPECT_NE(error_of([&] { auto x = call; x.a_zero_point = 128; gemm(packed, x); }).find("a_zero_point"), std::string::npos);
  EXPECT_NE(error_of([&] { auto x = call; x.output.qmax = 300; gemm(packed, x); }).find("qmax"), std::string::npos);
  EXPECT_NE(error_of([&] { gemm_tiles(packed, call, 0, 99); }).find("tile range"), std::string::npos);
  // Tiles cut for some threads are numbered for those threads (and that m) only.
  EXPECT_NE(error_of([&] { gemm_tiles(packed, call, 2, 0, 99); }).find("threads = 2"), std::string::npos);
  EXPECT_NE(error_of([&] { gemm_tiles(packed, call, 2, 1, 0); }).find("tile range [1, 0)"), std::string::npos);
  EXPECT_NE(error_of([&] { auto x = call; x.m = 0; gemm_tiles(packed, x, 2, 0, 0); }).find("m"), std::string::npos);
  {
    // 256 x 256 x 256: the cut for two threads has more tiles than the default (one thread's:
    // three row blocks, of which one of two threads would run two).
    std::vector<std::int8_t> big_b(256 * 256, 1), big_a(256 * 256, 0), big_c(256 * 256, 0);
    GemmWeights bw = w;
    bw.n = bw.k = 256;
    bw.b = big_b.data();
    const PackedGemm big(bw, core);
    const GemmCall<std::int8_t, std::int8_t> bc{256, big_a.data(), 0, 0, full_range_output(OutputType::kInt8), big_c.data(), 0};
    const std::size_t two = gemm_tile_count(big, 256, 2), one = gemm_tile_count(big, 256, 1);
    ASSERT_GT(two, one);
    const std::string e = error_of([&] { gemm_tiles(big, bc, 1, 0, two); });
    EXPECT_NE(e.find("threads = 1"), std::string::npos) << e;
    EXPECT_NE(e.find("m = 256"), std::string::npos) << e;
    EXPECT_NE(e.find("<= " + std::to_string(one)), std::string::npos) << e;
    const std::string e2 = error_of([&] { auto x = bc; x.m = 20; gemm_tiles(big, x, 2, 0, two); });
    EXPECT_NE(e2.find("m = 20"), std::string::npos) << e2;
    EXPECT_EQ(error_of([&] { gemm_tiles(big, bc, 2, 0, two); }), "(no error)");
  }
  EXPECT_EQ(error_of([&] { gemm(packed, call); }), "(no error)");
  EXPECT_EQ(gemm_tile_count(packed, 0), 0u);  // no rows, no tiles (and no division by zero)
  for (Isa isa : all_isas()) {
    if (supported_isas() & mask_of(isa)) continue;
    EXPECT_NE(error_of([&] { PackedGemm(isa, w, core); }).find("not supported"), std::string::npos);
  }
}

// Each ISA that has GEMM kernels of its own must run them when forced (no silent fallback). K = 64:
// AMX's kernels serve K >= 64 only (UkernelSet::exact_min_k; kernel_choice_test.cc checks what
// shorter K runs).
TEST(GemmIsa, ForcedIsaRunsItsOwnKernels) {
  std::vector<std::int8_t> b(16 * 64, 1);
  RequantParams p{1 << 30, -3};
  GemmWeights w;
  w.n = 16;
  w.k = 64;
  w.b = b.data();
  w.params = &p;
  for (Isa isa : qparity_test::supported_isa_list()) {
    const PackedGemm packed(isa, w, RoundingCore::kSingleRoundingUpward);
    const std::string name = packed.kernel_name();
    const std::string expect = isa == Isa::kSse41 ? "scalar" : to_string(isa);
    EXPECT_EQ(name.compare(0, expect.size() + 1, expect + "-"), 0) << to_string(isa) << " ran " << name;
    qparity_test::note_isa_exercised(isa);
  }
}

}  // namespace
