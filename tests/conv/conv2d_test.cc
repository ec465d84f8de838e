// The compiled conv2d (include/qparity/conv2d.h) against the header-only reference::conv2d,
// element by element at tolerance 0: every ISA path this CPU supports x every rounding core x the
// accumulator models, on an edge suite of geometries (1x1 images, kernels larger than the input,
// stride > kernel, dilation, asymmetric explicit padding, odd channel counts, groups, several row
// and column blocks, batch > 1), with zero points at the ends of their ranges, per-channel scales
// from 1e-6 to 2 derived with derive_requant_params, clamps, every output type, a large K with
// extreme operands for the saturating / wrapping models, property-based random layers, any tile
// split or thread count, and the messages of bad input.
#include <gtest/gtest.h>

#include "accumulators.h"
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "isa_coverage.h"
#include "qparity/conv2d.h"
#include "qparity/presets.h"
#include "qparity/reference_conv2d.h"
#include "tile_pool_probe.h"

namespace {

using qparity_test::kAccumulatorModels;
using qparity_test::kInt32Accumulator;
using qparity_test::kInt64Accumulator;
using qparity_test::kPairSat32Accumulator;
using qparity_test::kSat24Accumulator;
using qparity_test::kSat32Accumulator;
using qparity_test::kWrap40Accumulator;

using namespace qparity;


/// A derivation that `core` accepts (float cores read the float scale, Q15 a Q15 multiplier).
MultiplierDerivation derivation_for(RoundingCore core) {
  if (is_float_core(core)) return MultiplierDerivation::kFloatScale;
  if (core == RoundingCore::kQ15) return MultiplierDerivation::kQ15FromTfliteQ31;
  return MultiplierDerivation::kTfliteDoubleBuild;
}

Window2D window(std::size_t kh, std::size_t kw, std::size_t sh, std::size_t sw, std::size_t dh,
                std::size_t dw, Padding padding, std::size_t pt = 0, std::size_t pb = 0,
                std::size_t pl = 0, std::size_t pr = 0) {
  Window2D w;
  w.kernel_h = kh;
  w.kernel_w = kw;
  w.stride_h = sh;
  w.stride_w = sw;
  w.dilation_h = dh;
  w.dilation_w = dw;
  w.padding = padding;
  w.pad_top = pt;
  w.pad_bottom = pb;
  w.pad_left = pl;
  w.pad_right = pr;
  return w;
}

Conv2DGeometry geometry(std::size_t batch, std::size_t h, std::size_t w, std::size_t ic,
                        std::size_t oc, std::size_t groups, const Window2D& win) {
  Conv2DGeometry g;
  g.batch = batch;
  g.in_h = h;
  g.in_w = w;
  g.in_channels = ic;
  g.out_channels = oc;
  g.groups = groups;
  g.window = win;
  return g;
}

enum class Fill { kRandom, kMaxMagnitude };

/// One conv2d problem with owned buffers.
template <class AType, class OutType>
struct Case {
  Conv2DGeometry geo{};
  std::vector<AType> input;
  std::vector<std::int8_t> filter;
  std::vector<std::int32_t> filter_zp, bias;
  std::vector<RequantParams> params;
  bool per_channel = false, zp_per_channel = false, has_zp = false, has_bias = true;
  std::int32_t input_zp = 0;
  OutputParams out{};

  std::size_t out_elems() const {
    const ResolvedWindow r = validate(geo);
    return geo.batch * r.out_h * r.out_w * geo.out_channels;
  }
  ConvWeights weights() const {
    ConvWeights w;
    w.filter = filter.data();
    w.filter_zero_points = has_zp ? filter_zp.data() : nullptr;
    w.filter_zero_point_per_channel = zp_per_channel;
    w.bias = has_bias ? bias.data() : nullptr;
    w.params = params.data();
    w.per_channel = per_channel;
    return w;
  }
  ConvCall<AType, OutType> call(std::vector<OutType>& dst) const {
    dst.assign(out_elems(), OutType{0x5a});
    return ConvCall<AType, OutType>{input.data(), input_zp, out, dst.data()};
  }
  Conv2DProblem<AType, OutType> problem(std::vector<OutType>& dst) const {
    return Conv2DProblem<AType, OutType>{geo, weights(), call(dst)};
  }
};

template <class AType, class OutType>
Case<AType, OutType> make_case(std::mt19937& rng, RoundingCore core, const Conv2DGeometry& geo,
                               Fill fill) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case<AType, OutType> c;
  c.geo = geo;
  const std::size_t k = geo.window.kernel_h * geo.window.kernel_w * (geo.in_channels / geo.groups);
  const std::size_t n = geo.out_channels;
  const int amin = std::is_signed<AType>::value ? -128 : 0, amax = amin + 255;
  c.input.resize(geo.batch * geo.in_h * geo.in_w * geo.in_channels);
  c.filter.resize(n * k);
  c.filter_zp.resize(n);
  c.bias.resize(n);
  if (fill == Fill::kRandom) {
    // A fifth of the values at the ends of the range (the exactness limits of the formats).
    for (auto& v : c.input) v = static_cast<AType>(pick(0, 4) == 0 ? (pick(0, 1) ? amin : amax) : pick(amin, amax));
    for (auto& v : c.filter) v = static_cast<std::int8_t>(pick(0, 4) == 0 ? (pick(0, 1) ? -128 : 127) : pick(-128, 127));
    c.input_zp = pick(0, 2) == 0 ? (pick(0, 1) ? amin : amax) : pick(amin, amax);
    for (auto& v : c.filter_zp) v = pick(0, 3) == 0 ? (pick(0, 1) ? -128 : 127) : pick(-128, 127);
  } else {  // every unpadded term (a - za)(w - zw) = 255 * 255 in magnitude
    for (auto& v : c.input) v = static_cast<AType>(amin);
    for (auto& v : c.filter) v = 127;
    c.input_zp = amax;
    for (auto& v : c.filter_zp) v = -128;
  }
  c.has_zp = fill == Fill::kMaxMagnitude || pick(0, 2) != 0;
  c.zp_per_channel = pick(0, 1);
  c.has_bias = pick(0, 4) != 0;
  for (auto& v : c.bias) v = pick(0, 9) == 0 ? (pick(0, 1) ? INT32_MIN / 2 : INT32_MAX / 2) : pick(-300000, 300000);
  c.per_channel = pick(0, 1);
  // Accumulators are of order sqrt(k) * 255 * 74 (random) or k * 65025 (extreme): most channels
  // aim at outputs of a few tens, a quarter span the whole 1e-6..2 range (all zero point .. all
  // clamped), and a tenth sit at the ends.
  const double typical = fill == Fill::kRandom ? std::sqrt(static_cast<double>(k)) * 255.0 * 74.0
                                               : static_cast<double>(k) * 65025.0;
  const double target = std::clamp(40.0 / typical, 1e-6, 2.0);
  c.params.resize(c.per_channel ? n : 1);
  for (auto& p : c.params) {
    double scale = target * std::exp2(std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
    const int kind = pick(0, 19);
    if (kind < 2) scale = kind == 0 ? 1e-6 : 2.0;
    else if (kind < 7) scale = std::exp(std::uniform_real_distribution<double>(std::log(1e-6), std::log(2.0))(rng));
    scale = std::clamp(scale, 1e-6, 2.0);
    const float post = core == RoundingCore::kFloat32ZeroPointInside && pick(0, 1) ? 0.5f : 1.0f;
    const float fbias = core == RoundingCore::kFloat32ZeroPointInside ? static_cast<float>(pick(-50, 50)) * 0.25f : 0.0f;
    p = derive_requant_params(core, derivation_for(core), EffectiveScale{scale, post}, fbias);
  }
  const OutputType ot = detail::output_type_of<OutType>();
  const std::int32_t lo = output_type_min(ot), hi = output_type_max(ot);
  const std::int32_t zp_lo = std::max(lo, -1000), zp_hi = std::min(hi, 1000);
  c.out.zero_point = pick(0, 3) == 0 ? (pick(0, 1) ? zp_lo : zp_hi) : pick(zp_lo, zp_hi);
  if (pick(0, 1)) {
    c.out.qmin = lo;
    c.out.qmax = hi;
  } else {  // an activation clamp around the zero point
    c.out.qmin = std::max<std::int64_t>(lo, static_cast<std::int64_t>(c.out.zero_point) - pick(0, 60));
    c.out.qmax = std::min<std::int64_t>(hi, static_cast<std::int64_t>(c.out.zero_point) + pick(0, 60));
  }
  return c;
}

std::string describe(const Conv2DGeometry& g) {
  const Window2D& w = g.window;
  return "batch=" + std::to_string(g.batch) + " in=" + std::to_string(g.in_h) + "x" +
         std::to_string(g.in_w) + "x" + std::to_string(g.in_channels) + " out_channels=" +
         std::to_string(g.out_channels) + " groups=" + std::to_string(g.groups) + " kernel=" +
         std::to_string(w.kernel_h) + "x" + std::to_string(w.kernel_w) + " stride=" +
         std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + " dilation=" +
         std::to_string(w.dilation_h) + "x" + std::to_string(w.dilation_w) + " padding=" +
         to_string(w.padding) + "(" + std::to_string(w.pad_top) + "," + std::to_string(w.pad_bottom) +
         "," + std::to_string(w.pad_left) + "," + std::to_string(w.pad_right) + ")";
}

/// Outputs compared so far, and those strictly inside the clamp and off the zero point: a suite
/// whose outputs were all clamped or all the zero point would prove nothing.
struct OutputStats {
  std::size_t total = 0, informative = 0;
};
OutputStats g_stats;

/// Runs the case on `isa` and through the reference; returns the first mismatch or "".
template <class AType, class OutType>
std::string compare(Isa isa, RoundingCore core, AccumulatorSpec acc, const Case<AType, OutType>& c) {
  std::vector<OutType> expect, got;
  reference::conv2d(c.problem(expect), core, acc);
  for (const OutType v : expect) {
    ++g_stats.total;
    g_stats.informative += v > c.out.qmin && v < c.out.qmax && v != c.out.zero_point;
  }
  const PackedConv2D conv(isa, c.geo, c.weights(), core, acc);
  conv2d(conv, c.call(got));
  qparity_test::note_isa_exercised(isa);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expect[i]) {
      return std::string(to_string(isa)) + " " + to_string(core) + " " + to_string(acc) + " " +
             describe(c.geo) + " kernel " + conv.kernel_name() + ": out[" + std::to_string(i) +
             "] (pixel " + std::to_string(i / c.geo.out_channels) + ", channel " +
             std::to_string(i % c.geo.out_channels) + ") = " +
             std::to_string(static_cast<long long>(got[i])) + ", reference " +
             std::to_string(static_cast<long long>(expect[i]));
    }
  }
  return "";
}

// Geometries relative to the conv plans (1x1 GEMM / implicit GEMM) and to the GEMM blocking
// (MR 4..32, NR 16..64, mc ~ 96 rows, nc ~ 256 columns).
std::vector<Conv2DGeometry> edge_geometries() {
  return {
      geometry(1, 1, 1, 3, 5, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)),   // 1x1 image, 1x1 GEMM
      geometry(1, 1, 1, 7, 4, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),    // 1x1 image, 3x3 SAME
      geometry(1, 2, 3, 3, 17, 1, window(5, 5, 1, 1, 1, 1, Padding::kSame)),   // kernel > input
      geometry(1, 7, 7, 17, 9, 1, window(1, 1, 2, 2, 1, 1, Padding::kValid)),  // strided 1x1
      geometry(1, 9, 8, 7, 3, 1, window(2, 2, 3, 3, 1, 1, Padding::kValid)),   // stride > kernel
      geometry(2, 8, 9, 3, 7, 1, window(3, 3, 1, 1, 2, 2, Padding::kSame)),    // dilation, SAME
      geometry(1, 6, 7, 63, 5, 1, window(3, 2, 2, 1, 1, 1, Padding::kExplicit, 2, 0, 1, 3)),
      geometry(1, 5, 5, 6, 4, 2, window(3, 3, 1, 1, 1, 1, Padding::kSame)),    // groups 2
      geometry(1, 4, 6, 9, 6, 3, window(2, 3, 1, 2, 1, 2, Padding::kExplicit, 1, 2, 0, 1)),  // groups 3
      geometry(2, 3, 4, 9, 12, 3, window(1, 1, 1, 1, 1, 1, Padding::kValid)),  // grouped 1x1 GEMM
      geometry(1, 5, 5, 4, 8, 4, window(3, 3, 1, 1, 1, 1, Padding::kSame)),    // one channel per group
      geometry(3, 5, 4, 17, 33, 1, window(3, 3, 1, 1, 1, 1, Padding::kValid)), // batch 3
      geometry(2, 5, 5, 64, 40, 1, window(3, 3, 2, 2, 1, 1, Padding::kSame)),  // channels % 4 == 0
      geometry(1, 10, 10, 1, 1, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),  // one channel
      geometry(1, 12, 12, 8, 20, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)), // 144 rows: 2 row blocks
      geometry(1, 4, 5, 5, 300, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)), // 300 columns: 2 col blocks
      geometry(2, 11, 13, 3, 19, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)), // 1x1 GEMM, 286 rows
      // 480-channel segments (120 K groups, 1080 in all): the in-place indirect A's K blocks hold
      // whole segments (480 + 480 + 120 groups here), padded taps read the pad buffer.
      geometry(1, 4, 5, 480, 5, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
      // Channels a multiple of 64 and output rows of 32 pixels or more: the AMX kernel reads the
      // input through the segment table, a 16-pixel tile in place where its rows are evenly
      // spaced (inside one output row, stride and dilation included), staged where the tile
      // crosses an output row or meets padding; 222 and 200 rows end in a partial row block;
      // 128 channels are two K steps per tap.
      geometry(1, 6, 37, 64, 40, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
      geometry(1, 9, 80, 128, 33, 1, window(3, 3, 2, 2, 2, 2, Padding::kSame)),
  };
}

template <class AType, class OutType>
void edge_suite(RoundingCore core, const std::vector<AccumulatorSpec>& accs, std::uint32_t seed) {
  std::mt19937 rng(seed);
  g_stats = OutputStats{};
  const std::vector<Conv2DGeometry> geos = edge_geometries();
  qparity_test::for_each_supported_isa([&](Isa isa) {
    for (const AccumulatorSpec& acc : accs) {
      for (const Conv2DGeometry& g : geos) {
        const auto c = make_case<AType, OutType>(rng, core, g, Fill::kRandom);
        ASSERT_EQ(compare(isa, core, acc, c), "");
      }
    }
  });
  EXPECT_GT(g_stats.informative * 10, g_stats.total) << g_stats.informative << " of " << g_stats.total;
}

const std::vector<AccumulatorSpec> kAllAccumulators(std::begin(kAccumulatorModels), std::end(kAccumulatorModels));

class Conv2DEdge : public ::testing::TestWithParam<RoundingCore> {};

TEST_P(Conv2DEdge, EveryIsaEveryAccumulatorInt8ToInt8) {
  edge_suite<std::int8_t, std::int8_t>(GetParam(), kAllAccumulators, 1);
}

TEST_P(Conv2DEdge, EveryIsaEveryAccumulatorUint8ToUint8) {
  edge_suite<std::uint8_t, std::uint8_t>(GetParam(), kAllAccumulators, 2);
}

TEST_P(Conv2DEdge, OtherOutputTypes) {
  edge_suite<std::int8_t, std::uint8_t>(GetParam(), {kInt32Accumulator}, 3);
  edge_suite<std::int8_t, std::int16_t>(GetParam(), {kInt64Accumulator}, 4);
  edge_suite<std::int8_t, std::int32_t>(GetParam(), {kPairSat32Accumulator}, 5);
  edge_suite<std::uint8_t, std::int8_t>(GetParam(), {kSat24Accumulator}, 6);
  edge_suite<std::uint8_t, std::int16_t>(GetParam(), {kPairSat32Accumulator}, 7);
  edge_suite<std::uint8_t, std::int32_t>(GetParam(), {kWrap40Accumulator}, 8);
}

// K = 3 x 3 x 4096 = 36864 with every term +-255 * 255: int32 wraps (36864 * 65025 > 2^31),
// int64 results leave int32 (the wide requantization path), sat16..32 saturate (the sequential
// fallback on the gathered rows), wrapN wraps; SAME padding on a 3x3 input mixes padded taps
// (zero terms) into every row. Also a 3x3x4096 conv over a 1x1 image (8 of 9 taps padded).
TEST_P(Conv2DEdge, ExtremeOperandsAtLargeK) {
  std::mt19937 rng(9);
  const Conv2DGeometry geos[] = {
      geometry(1, 3, 3, 4096, 2, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
      geometry(1, 1, 1, 4096, 3, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
  };
  qparity_test::for_each_supported_isa([&](Isa isa) {
    for (const AccumulatorSpec& acc : kAccumulatorModels) {
      for (const Conv2DGeometry& g : geos) {
        ASSERT_EQ(compare(isa, GetParam(), acc, make_case<std::int8_t, std::int8_t>(rng, GetParam(), g, Fill::kMaxMagnitude)), "");
        ASSERT_EQ(compare(isa, GetParam(), acc, make_case<std::uint8_t, std::int32_t>(rng, GetParam(), g, Fill::kMaxMagnitude)), "");
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(AllCores, Conv2DEdge, ::testing::ValuesIn(kAllRoundingCores),
                         [](const ::testing::TestParamInfo<RoundingCore>& info) {
                           std::string s = to_string(info.param);
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// Output channel counts whose last column block has at most 16 valid columns run the GEMM's
// one-panel kernel where the ISA has one (UkernelSet::exact_one_panel): 16 (MobileNet v2's
// 112x112x32 -> 16 projection, in small), 8, 17 and 48, through the 1x1 plan (A read in place,
// K = 32 short, K = 3 odd) and the implicit GEMM (3x3: A through segment pointers when the input
// channels are a multiple of 4, else gathered), every core, int8 and uint8 activations.
TEST(Conv2DOnePanel, NarrowOutputChannelCountsMatchTheReference) {
  std::mt19937 rng(16);
  for (const RoundingCore core : kAllRoundingCores) {
    qparity_test::for_each_supported_isa([&](Isa isa) {
      for (const std::size_t oc : {16u, 8u, 17u, 48u}) {
        const Conv2DGeometry geos[] = {
            geometry(1, 7, 9, 32, oc, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)),
            geometry(1, 6, 5, 3, oc, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)),
            geometry(1, 6, 7, 8, oc, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
            geometry(1, 5, 6, 3, oc, 1, window(3, 3, 2, 2, 1, 1, Padding::kSame)),
        };
        for (const Conv2DGeometry& g : geos) {
          ASSERT_EQ(compare(isa, core, kInt32Accumulator,
                            make_case<std::int8_t, std::int8_t>(rng, core, g, Fill::kRandom)), "");
          ASSERT_EQ(compare(isa, core, kInt32Accumulator,
                            make_case<std::uint8_t, std::uint8_t>(rng, core, g, Fill::kRandom)), "");
        }
      }
    });
  }
}

// The plan each geometry runs with, and each ISA's own GEMM kernels underneath (no silent
// fallback to another path). 16 output pixels and 64 input channels: AMX's own kernels serve
// neither calls of at most kNarrowMaxRows rows nor K < 64 (they run AVX-512 VNNI's, and say so).
TEST(Conv2DPlan, KernelNameSaysThePlanAndTheIsa) {
  std::mt19937 rng(10);
  const auto unit = make_case<std::int8_t, std::int8_t>(
      rng, RoundingCore::kSingleRoundingUpward, geometry(1, 4, 4, 64, 16, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)), Fill::kRandom);
  const auto strided = make_case<std::int8_t, std::int8_t>(
      rng, RoundingCore::kSingleRoundingUpward, geometry(1, 8, 8, 64, 16, 1, window(1, 1, 2, 2, 1, 1, Padding::kValid)), Fill::kRandom);
  qparity_test::for_each_supported_isa([&](Isa isa) {
    const std::string expect_isa = isa == Isa::kSse41 ? "scalar" : to_string(isa);
    const PackedConv2D a(isa, unit.geo, unit.weights(), RoundingCore::kSingleRoundingUpward);
    EXPECT_EQ(a.kernel_name().rfind("1x1-gemm " + expect_isa + "-", 0), 0u) << a.kernel_name();
    const PackedConv2D b(isa, strided.geo, strided.weights(), RoundingCore::kSingleRoundingUpward);
    EXPECT_EQ(b.kernel_name().rfind("implicit-gemm " + expect_isa + "-", 0), 0u) << b.kernel_name();
    EXPECT_EQ(b.isa(), isa);
    EXPECT_GT(b.packed_bytes(), 16u * 8u);
  });
}

// Every split of the tiles, on any threads, gives the bits of one call: an implicit GEMM with
// groups (tiles cross group boundaries) and a 1x1 GEMM, both with several row and column blocks.
TEST(Conv2DTiles, AnySplitAndThreadCountGivesTheSameBits) {
  std::mt19937 rng(11);
  const RoundingCore core = RoundingCore::kSingleRoundingToEven;
  const Conv2DGeometry geos[] = {
      geometry(2, 13, 11, 16, 600, 2, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
      geometry(1, 30, 20, 16, 520, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)),
  };
  qparity_test::for_each_supported_isa([&](Isa isa) {
    for (const Conv2DGeometry& g : geos) {
      for (const AccumulatorSpec acc : {kInt32Accumulator, kSat24Accumulator}) {
        const auto c = make_case<std::int8_t, std::int8_t>(rng, core, g, Fill::kRandom);
        const PackedConv2D conv(isa, c.geo, c.weights(), core, acc);
        std::vector<std::int8_t> whole, split, threaded;
        conv2d(conv, c.call(whole));
        const std::size_t tiles = conv2d_tile_count(conv);
        ASSERT_GT(tiles, 4u);
        const auto call = c.call(split);
        std::vector<std::size_t> cuts = {0, tiles, tiles / 2};  // tiles / 2: the group boundary
        for (int i = 0; i < 4; ++i) cuts.push_back(std::uniform_int_distribution<std::size_t>(0, tiles)(rng));
        std::sort(cuts.begin(), cuts.end());
        for (std::size_t i = 0; i + 1 < cuts.size(); ++i) conv2d_tiles(conv, call, cuts[i], cuts[i + 1]);
        EXPECT_EQ(split, whole) << to_string(isa) << " " << describe(g);
        const qparity_test::ForceTilePool force;  // as GemmTiles: workers must run tiles
        for (unsigned t : {1u, 2u, 3u, 7u}) {
          const bool worker_ran = qparity_test::a_worker_ran_during([&] {
            conv2d_threaded(conv, c.call(threaded), t);
            EXPECT_EQ(threaded, whole) << to_string(isa) << " threads " << t;
          }, t > 1 ? 200 : 1);
          EXPECT_EQ(worker_ran, t > 1) << to_string(isa) << " threads " << t;
        }
        // And all of them equal the reference.
        std::vector<std::int8_t> expect;
        reference::conv2d(c.problem(expect), core, acc);
        EXPECT_EQ(whole, expect) << to_string(isa) << " " << describe(g);
      }
    }
  });
}

// Tiles cut for a number of threads (conv2d_tile_count(conv, threads)): every partition of them,
// on one thread or several, gives the bits of conv2d(), for 1, 3, 17, 63 and 256 output pixels, on
// a 1x1 GEMM and a grouped implicit GEMM (tiles cross the group boundary); threads = 1 is the
// default tiles. Under the pool's threshold and with it forced to 0, where every count is cut.
TEST(Conv2DTiles, CutForThreadsGivesTheBitsOfConv2D) {
  std::mt19937 rng(19);
  qparity_test::for_each_supported_isa([&](Isa isa) {
    bool cut_differs = false;  // some count is not the default one: the cut is exercised
    for (const std::size_t m : {1u, 3u, 17u, 63u, 256u}) {
      const std::size_t h = m == 256 ? 16 : m, w = m == 256 ? 16 : 1;
      const Conv2DGeometry geos[] = {
          geometry(1, h, w, 24, 80, 1, window(1, 1, 1, 1, 1, 1, Padding::kValid)),
          geometry(1, h, w, 16, 96, 2, window(3, 3, 1, 1, 1, 1, Padding::kSame)),
      };
      for (const Conv2DGeometry& g : geos) {
        const RoundingCore core = m % 2 ? RoundingCore::kDoubleRoundingAwayFromZero : RoundingCore::kFloat32;
        const auto c = make_case<std::int8_t, std::int8_t>(rng, core, g, Fill::kRandom);
        const PackedConv2D conv(isa, c.geo, c.weights(), core);
        std::vector<std::int8_t> whole, out;
        conv2d(conv, c.call(whole));
        const auto call = c.call(out);
        for (const bool forced : {false, true}) {
          const std::uint64_t previous =
              internal::set_min_parallel_macs(forced ? 0 : internal::kDefaultMinParallelMacs);
          for (const unsigned t : {1u, 2u, 3u, 7u}) {
            const std::string what = std::string(to_string(isa)) + " " + describe(g) + " threads " +
                                     std::to_string(t) + (forced ? " (threshold 0)" : "");
            const std::size_t count = conv2d_tile_count(conv, t);
            ASSERT_GE(count, 1u) << what;
            cut_differs = cut_differs || count != conv2d_tile_count(conv);
            if (t == 1) {
              EXPECT_EQ(count, conv2d_tile_count(conv)) << what;
            }
            std::fill(out.begin(), out.end(), std::int8_t{0});
            for (std::size_t i = count; i > 0; --i) conv2d_tiles(conv, call, t, i - 1, i);
            EXPECT_EQ(out, whole) << what << " (one tile at a time, reversed)";
            std::fill(out.begin(), out.end(), std::int8_t{0});
            conv2d_tiles(conv, call, t, count / 2, count);
            conv2d_tiles(conv, call, t, 0, count / 2);
            EXPECT_EQ(out, whole) << what << " (halves)";
            std::fill(out.begin(), out.end(), std::int8_t{0});
            std::vector<std::thread> pool;
            for (unsigned i = 0; i < t; ++i) {
              pool.emplace_back([&, i] { conv2d_tiles(conv, call, t, count * i / t, count * (i + 1) / t); });
            }
            for (std::thread& th : pool) th.join();
            EXPECT_EQ(out, whole) << what << " (" << t << " threads, contiguous shares)";
          }
          internal::set_min_parallel_macs(previous);
        }
      }
    }
    EXPECT_TRUE(cut_differs) << to_string(isa);
  });
}

// The one-shot entries (active ISA) and the compile-time selection.
TEST(Conv2DOneShot, EqualsTheReference) {
  std::mt19937 rng(12);
  const Conv2DGeometry g = geometry(2, 6, 5, 10, 7, 1, window(3, 2, 2, 1, 1, 1, Padding::kSame));
  for (RoundingCore core : kAllRoundingCores) {
    const auto c = make_case<std::uint8_t, std::uint8_t>(rng, core, g, Fill::kRandom);
    std::vector<std::uint8_t> expect, got;
    reference::conv2d(c.problem(expect), core, kSat32Accumulator);
    conv2d(c.problem(got), core, kSat32Accumulator);
    EXPECT_EQ(got, expect) << to_string(core);
  }
  const auto c = make_case<std::int8_t, std::int8_t>(rng, RoundingCore::kDoubleRoundingAwayFromZero, g, Fill::kRandom);
  std::vector<std::int8_t> expect, got;
  reference::conv2d<DoubleRoundingAwayFromZero, SaturatingAccumulator<24>>(c.problem(expect));
  conv2d<DoubleRoundingAwayFromZero, SaturatingAccumulator<24>>(c.problem(got));
  EXPECT_EQ(got, expect);
}

TEST(Conv2DProperty, RandomLayersEqualTheReference) {
  rc::check([] {
    const RoundingCore core = kAllRoundingCores[*rc::gen::inRange(0, kNumRoundingCores)];
    const AccumulatorSpec acc = kAccumulatorModels[*rc::gen::inRange<std::size_t>(0, std::size(kAccumulatorModels))];
    const std::size_t groups = *rc::gen::element<std::size_t>(1, 1, 1, 2, 3);
    const std::size_t icg = *rc::gen::inRange<std::size_t>(1, 20);
    const std::size_t ocg = *rc::gen::inRange<std::size_t>(1, 40);
    Window2D w;
    w.kernel_h = *rc::gen::inRange<std::size_t>(1, 6);
    w.kernel_w = *rc::gen::inRange<std::size_t>(1, 6);
    w.stride_h = *rc::gen::inRange<std::size_t>(1, 4);
    w.stride_w = *rc::gen::inRange<std::size_t>(1, 4);
    w.dilation_h = *rc::gen::inRange<std::size_t>(1, 3);
    w.dilation_w = *rc::gen::inRange<std::size_t>(1, 3);
    w.padding = static_cast<Padding>(*rc::gen::inRange(0, 3));
    w.pad_top = *rc::gen::inRange<std::size_t>(0, 4);
    w.pad_bottom = *rc::gen::inRange<std::size_t>(0, 4);
    w.pad_left = *rc::gen::inRange<std::size_t>(0, 4);
    w.pad_right = *rc::gen::inRange<std::size_t>(0, 4);
    const Conv2DGeometry g = geometry(*rc::gen::inRange<std::size_t>(1, 3), *rc::gen::inRange<std::size_t>(1, 12),
                                      *rc::gen::inRange<std::size_t>(1, 12), icg * groups, ocg * groups, groups, w);
    // A VALID / EXPLICIT window larger than the padded input is invalid input, not a layer.
    RC_PRE(w.padding == Padding::kSame ||
           ((w.kernel_h - 1) * w.dilation_h + 1 <= g.in_h + (w.padding == Padding::kExplicit ? w.pad_top + w.pad_bottom : 0) &&
            (w.kernel_w - 1) * w.dilation_w + 1 <= g.in_w + (w.padding == Padding::kExplicit ? w.pad_left + w.pad_right : 0)));
    std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>());
    const Fill fill = *rc::gen::inRange(0, 4) == 0 ? Fill::kMaxMagnitude : Fill::kRandom;
    if (*rc::gen::arbitrary<bool>()) {
      const auto c = make_case<std::int8_t, std::int8_t>(rng, core, g, fill);
      // Every ISA on every generated case: each test runs in its own process under ctest, and
      // isa_coverage.cc fails the process if a supported path was never exercised.
      for (Isa isa : qparity_test::supported_isa_list()) RC_ASSERT(compare(isa, core, acc, c) == "");
    } else {
      const auto c = make_case<std::uint8_t, std::uint8_t>(rng, core, g, fill);
      for (Isa isa : qparity_test::supported_isa_list()) RC_ASSERT(compare(isa, core, acc, c) == "");
    }
  });
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

#define EXPECT_ERROR_NAMES(statement, name)                                             \
  do {                                                                                  \
    EXPECT_THROW(statement, InvalidArgument);                                           \
    const std::string message_ = error_of([&] { statement; });                          \
    EXPECT_NE(message_.find(name), std::string::npos) << "message: " << message_;       \
  } while (0)

TEST(Conv2DBadInput, NamesTheParameter) {
  std::mt19937 rng(13);
  const RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;
  const auto c = make_case<std::int8_t, std::int8_t>(
      rng, core, geometry(1, 4, 4, 6, 4, 2, window(3, 3, 1, 1, 1, 1, Padding::kSame)), Fill::kRandom);
  const ConvWeights w = c.weights();
  auto with = [&](auto change) {
    Conv2DGeometry g = c.geo;
    change(g);
    return g;
  };
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.in_channels = 0; }), w, core), "in_channels");
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.batch = 0; }), w, core), "batch");
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.groups = 4; }), w, core), "groups");
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.window.stride_h = 0; }), w, core), "stride_h");
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.window.dilation_w = 0; }), w, core), "dilation_w");
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.window.kernel_h = 9; g.window.padding = Padding::kValid; }), w, core),
                     "effective kernel");
  EXPECT_ERROR_NAMES(PackedConv2D(with([](Conv2DGeometry& g) { g.in_h = 0; }), w, core), "input_height");
  ConvWeights bad = w;
  bad.filter = nullptr;
  EXPECT_ERROR_NAMES(PackedConv2D(c.geo, bad, core), "filter");
  bad = w;
  bad.params = nullptr;
  EXPECT_ERROR_NAMES(PackedConv2D(c.geo, bad, core), "params");
  const std::int32_t zp = 200;
  bad = w;
  bad.filter_zero_points = &zp;
  bad.filter_zero_point_per_channel = false;
  EXPECT_ERROR_NAMES(PackedConv2D(c.geo, bad, core), "filter_zero_points");
  const RequantParams bad_params{1 << 30, 31};
  bad = w;
  bad.params = &bad_params;
  bad.per_channel = false;
  EXPECT_ERROR_NAMES(PackedConv2D(c.geo, bad, core), "shift");
  EXPECT_ERROR_NAMES(PackedConv2D(c.geo, w, core, AccumulatorSpec{AccumulatorKind::kSaturating, 50}), "accumulator.bits");
  for (Isa isa : all_isas()) {
    if (supported_isas() & mask_of(isa)) continue;
    EXPECT_ERROR_NAMES(PackedConv2D(isa, c.geo, w, core), "not supported");
  }

  const PackedConv2D conv(c.geo, w, core);
  std::vector<std::int8_t> out;
  const auto call = c.call(out);
  EXPECT_ERROR_NAMES(conv2d(conv, (ConvCall<std::int8_t, std::int8_t>{nullptr, 0, call.output, call.out})), "input");
  EXPECT_ERROR_NAMES(conv2d(conv, (ConvCall<std::int8_t, std::int8_t>{call.input, 0, call.output, nullptr})), "out");
  EXPECT_ERROR_NAMES(conv2d(conv, (ConvCall<std::int8_t, std::int8_t>{call.input, 128, call.output, call.out})), "input_zero_point");
  const std::vector<std::uint8_t> u8(c.input.size());
  std::vector<std::uint8_t> u8_out(out.size());
  EXPECT_ERROR_NAMES(conv2d(conv, (ConvCall<std::uint8_t, std::uint8_t>{u8.data(), -1, full_range_output(OutputType::kUint8), u8_out.data()})),
                     "input_zero_point");
  EXPECT_ERROR_NAMES(conv2d(conv, (ConvCall<std::int8_t, std::int8_t>{call.input, 0, OutputParams{0, -128, 300}, call.out})), "qmax");
  EXPECT_ERROR_NAMES(conv2d_tiles(conv, call, 0, conv2d_tile_count(conv) + 1), "tile range");
  EXPECT_ERROR_NAMES(conv2d_tiles(conv, call, 2, 1), "tile range");
  // Tiles cut for some threads are numbered for those threads only: 16 x 16 x 64 -> 64 with a 3x3
  // window has three default row blocks, and more cut for two threads.
  {
    const auto big = make_case<std::int8_t, std::int8_t>(
        rng, core, geometry(1, 16, 16, 64, 64, 1, window(3, 3, 1, 1, 1, 1, Padding::kSame)), Fill::kRandom);
    const PackedConv2D bconv(big.geo, big.weights(), core);
    std::vector<std::int8_t> bout;
    const auto bcall = big.call(bout);
    const std::size_t two = conv2d_tile_count(bconv, 2), one = conv2d_tile_count(bconv, 1);
    ASSERT_GT(two, one);
    EXPECT_ERROR_NAMES(conv2d_tiles(bconv, bcall, 1, 0, two), "threads = 1");
    EXPECT_ERROR_NAMES(conv2d_tiles(bconv, bcall, 1, 0, two), "<= " + std::to_string(one));
    EXPECT_ERROR_NAMES(conv2d_tiles(bconv, bcall, 2, 0, two + 1), "threads = 2");
    EXPECT_ERROR_NAMES(conv2d_tiles(bconv, bcall, 2, 2, 1), "tile range [2, 1)");
    EXPECT_EQ(error_of([&] { conv2d_tiles(bconv, bcall, 2, 0, two); }), "(no error)");
  }
  EXPECT_ERROR_NAMES(conv2d_threaded(conv, (ConvCall<std::int8_t, std::int8_t>{nullptr, 0, call.output, call.out}), 2), "input");
  Conv2DProblem<std::int8_t, std::int8_t> p = c.problem(out);
  p.geometry.out_channels = 5;
  EXPECT_ERROR_NAMES(conv2d(p, core), "groups");
  EXPECT_EQ(error_of([&] { conv2d(conv, call); }), "(no error)");
}

}  // namespace
