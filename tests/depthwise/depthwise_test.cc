// The compiled depthwise conv2d (include/qparity/depthwise_conv2d.h) against the header-only
// reference, element by element at tolerance 0: every ISA path this CPU supports x every rounding
// core x accumulator models (int32, int64, sat16, sat24, wrap16, wrap24, wrap40, pairsat16), on an
// edge suite of geometries (1x1 images, kernels larger than the input, stride > kernel, stride 2,
// dilation, asymmetric explicit pads, channel counts around the vector widths and the tile's
// channel group, depth multipliers, zero points at the ends of their ranges, per-channel scales
// from 1e-6 to 2, clamps, every output type, batches, windows 1x1 .. 7x7 and 2x3), on random
// layers (RapidCheck), at the int32-exactness limit of the SIMD kernels and past it, for any split
// into tiles and any thread count, and on bad input.
#include <gtest/gtest.h>

#include "accumulators.h"
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "isa_coverage.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/presets.h"
#include "qparity/qparity.h"
#include "qparity/reference_conv2d.h"
#include "qparity/type_pairs.h"
#include "tile_pool_probe.h"

namespace {

using qparity_test::kAccumulatorModels;
using qparity_test::kInt32Accumulator;
using qparity_test::kInt64Accumulator;
using qparity_test::kPairSat32Accumulator;
using qparity_test::kSat24Accumulator;

using namespace qparity;


/// Parameters for `core` at effective scale `scale`, derived as a deployment would
/// (derive_requant_params); a scale below the core's shift range is raised until it fits (Q15).
RequantParams params_for(RoundingCore core, double scale) {
  const MultiplierDerivation derivation = is_float_core(core) ? MultiplierDerivation::kFloatScale
                                          : core == RoundingCore::kQ15
                                              ? MultiplierDerivation::kQ15FromTfliteQ31
                                              : MultiplierDerivation::kTfliteDoubleBuild;
  for (;; scale *= 4) {
    try {
      return derive_requant_params(core, derivation, EffectiveScale{scale, 1.0f},
                                   core == RoundingCore::kFloat32ZeroPointInside ? 0.75f : 0.0f);
    } catch (const InvalidArgument&) {
      if (scale > 1e3) throw;
    }
  }
}

struct Shape {
  const char* name;
  std::size_t batch, in_h, in_w, in_channels, multiplier;
  std::size_t kh, kw, sh, sw, dh, dw;
  Padding padding;
  std::size_t pt = 0, pb = 0, pl = 0, pr = 0;
};

/// One complete layer: operands and output parameters, owning its data.
template <class AType, class OutType>
struct Layer {
  DepthwiseConv2DGeometry g;
  std::vector<AType> input;
  std::vector<std::int8_t> filter;
  std::vector<std::int32_t> w_zp, bias;
  std::vector<RequantParams> params;
  bool per_channel = true, zp_per_channel = false, has_w_zp = false, has_bias = true;
  std::int32_t za = 0;
  OutputParams out{};

  ConvWeights weights() const {
    ConvWeights w;
    w.filter = filter.data();
    w.filter_zero_points = has_w_zp ? w_zp.data() : nullptr;
    w.filter_zero_point_per_channel = zp_per_channel;
    w.bias = has_bias ? bias.data() : nullptr;
    w.params = params.data();
    w.per_channel = per_channel;
    return w;
  }
  std::size_t out_size() const {
    const ResolvedWindow r = resolve_window(g.window, g.in_h, g.in_w);
    return g.batch * r.out_h * r.out_w * g.out_channels();
  }
  DepthwiseConv2DProblem<AType, OutType> problem(std::vector<OutType>& dst) const {
    dst.assign(out_size(), OutType{0});
    DepthwiseConv2DProblem<AType, OutType> p;
    p.geometry = g;
    p.weights = weights();
    p.call = ConvCall<AType, OutType>{input.data(), za, out, dst.data()};
    return p;
  }
};

DepthwiseConv2DGeometry geometry_of(const Shape& s) {
  DepthwiseConv2DGeometry g;
  g.batch = s.batch;
  g.in_h = s.in_h;
  g.in_w = s.in_w;
  g.in_channels = s.in_channels;
  g.depth_multiplier = s.multiplier;
  g.window.kernel_h = s.kh;
  g.window.kernel_w = s.kw;
  g.window.stride_h = s.sh;
  g.window.stride_w = s.sw;
  g.window.dilation_h = s.dh;
  g.window.dilation_w = s.dw;
  g.window.padding = s.padding;
  g.window.pad_top = s.pt;
  g.window.pad_bottom = s.pb;
  g.window.pad_left = s.pl;
  g.window.pad_right = s.pr;
  return g;
}

/// Random operands. `variant` picks zero points at the ends of their ranges, filter zero points,
/// clamps and per-tensor / per-channel parameters, so the suite covers each over its cases.
template <class AType, class OutType>
Layer<AType, OutType> make_layer(const DepthwiseConv2DGeometry& g, RoundingCore core, unsigned seed,
                                 int variant) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layer<AType, OutType> l;
  l.g = g;
  const std::size_t oc = g.out_channels();
  constexpr int a_lo = std::is_signed<AType>::value ? -128 : 0;
  constexpr int a_hi = std::is_signed<AType>::value ? 127 : 255;
  l.input.resize(g.batch * g.in_h * g.in_w * g.in_channels);
  for (AType& v : l.input) v = static_cast<AType>(pick(a_lo, a_hi));
  l.filter.resize(g.window.kernel_h * g.window.kernel_w * oc);
  for (std::int8_t& v : l.filter) v = static_cast<std::int8_t>(pick(-128, 127));
  switch (variant % 4) {  // zero points: both ends of the range, and ordinary values
    case 0: l.za = a_lo; break;
    case 1: l.za = a_hi; break;
    default: l.za = pick(a_lo, a_hi); break;
  }
  l.has_w_zp = variant % 3 == 1;
  l.zp_per_channel = variant % 2 == 0;
  l.w_zp.resize(oc);
  for (std::int32_t& v : l.w_zp) v = pick(-128, 127);
  if (variant % 5 == 2) std::fill(l.w_zp.begin(), l.w_zp.end(), -128);
  l.has_bias = variant % 7 != 3;
  l.bias.resize(oc);
  for (std::int32_t& v : l.bias) v = pick(-200000, 200000);
  if (variant % 6 == 5) l.bias[0] = std::numeric_limits<std::int32_t>::max();
  // Per-channel scales spanning 1e-6 .. 2 (log-uniform), or one typical per-tensor scale.
  l.per_channel = variant % 3 != 2;
  const std::size_t np = l.per_channel ? oc : 1;
  const double taps = static_cast<double>(g.window.kernel_h * g.window.kernel_w);
  for (std::size_t c = 0; c < np; ++c) {
    const double scale = l.per_channel
                             ? std::pow(10.0, std::uniform_real_distribution<double>(-6.0, 0.3)(rng))
                             : 1.0 / (2000.0 * std::sqrt(taps));
    l.params.push_back(params_for(core, scale));
  }
  if (l.per_channel && oc > 1) l.params[0] = params_for(core, 2.0);
  const OutputType type = detail::output_type_of<OutType>();
  const std::int32_t o_lo = output_type_min(type), o_hi = output_type_max(type);
  const std::int32_t ozp = std::is_same<OutType, std::int32_t>::value ? pick(-1000, 1000) : pick(o_lo, o_hi);
  l.out = full_range_output(type, ozp);
  if (variant % 4 == 3) {  // a clamp inside the range (activation)
    l.out.qmin = std::max(o_lo, ozp - 20);
    l.out.qmax = std::min(o_hi, ozp + 37);
  }
  return l;
}

template <class T>
std::string describe_mismatch(const std::vector<T>& want, const std::vector<T>& got) {
  std::size_t bad = 0, first = want.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      if (first == want.size()) first = i;
      ++bad;
    }
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " of " + std::to_string(want.size()) + " outputs differ; first at " +
         std::to_string(first) + ": reference " + std::to_string(static_cast<long long>(want[first])) +
         ", fast " + std::to_string(static_cast<long long>(got[first]));
}

std::string describe_geometry(const DepthwiseConv2DGeometry& g) {
  const Window2D& w = g.window;
  return "batch " + std::to_string(g.batch) + " in " + std::to_string(g.in_h) + "x" + std::to_string(g.in_w) +
         "x" + std::to_string(g.in_channels) + " mult " + std::to_string(g.depth_multiplier) + " kernel " +
         std::to_string(w.kernel_h) + "x" + std::to_string(w.kernel_w) + " stride " + std::to_string(w.stride_h) +
         "," + std::to_string(w.stride_w) + " dilation " + std::to_string(w.dilation_h) + "," +
         std::to_string(w.dilation_w) + " " + to_string(w.padding) + " pads " + std::to_string(w.pad_top) + "," +
         std::to_string(w.pad_bottom) + "," + std::to_string(w.pad_left) + "," + std::to_string(w.pad_right);
}

/// Reference once, then every supported ISA; returns the number of outputs that vary (so that a
/// suite whose outputs are all equal, e.g. all clamped, is noticed).
template <class AType, class OutType>
std::size_t expect_all_isas_match(const Layer<AType, OutType>& l, RoundingCore core, AccumulatorSpec spec,
                                  const std::string& what) {
  std::vector<OutType> want, got;
  reference::depthwise_conv2d(l.problem(want), core, spec);
  qparity_test::for_each_supported_isa([&](Isa isa) {
    const DepthwiseConv2DProblem<AType, OutType> p = l.problem(got);
    const PackedDepthwiseConv2D conv(isa, p.geometry, p.weights, core, spec);
    depthwise_conv2d(conv, p.call);
    const std::string m = describe_mismatch(want, got);
    EXPECT_TRUE(m.empty()) << what << ": " << to_string(isa) << " (" << conv.kernel_name() << ") "
                           << to_string(core) << " " << to_string(spec) << " za " << l.za << ": " << m
                           << "\n  " << describe_geometry(l.g);
  });
  std::vector<OutType> sorted = want;
  std::sort(sorted.begin(), sorted.end());
  return static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
}

const Shape kEdgeShapes[] = {
    {"1x1 image, 3x3 SAME", 1, 1, 1, 7, 1, 3, 3, 1, 1, 1, 1, Padding::kSame},
    {"kernel larger than the input, SAME", 1, 2, 3, 3, 1, 5, 5, 1, 1, 1, 1, Padding::kSame},
    {"stride > kernel", 1, 9, 10, 17, 1, 2, 2, 3, 3, 1, 1, Padding::kValid},
    {"3x3 stride 2 SAME, 63 channels, batch 2", 2, 9, 21, 63, 1, 3, 3, 2, 2, 1, 1, Padding::kSame},
    {"3x3 stride 1 SAME, 64 channels, 19 columns", 1, 6, 19, 64, 1, 3, 3, 1, 1, 1, 1, Padding::kSame},
    {"3x3 stride 1 VALID, 65 channels", 1, 6, 9, 65, 1, 3, 3, 1, 1, 1, 1, Padding::kValid},
    {"5x5 stride 1 SAME, 17 channels", 1, 7, 11, 17, 1, 5, 5, 1, 1, 1, 1, Padding::kSame},
    {"5x5 stride 2 SAME, 7 channels", 1, 11, 12, 7, 1, 5, 5, 2, 2, 1, 1, Padding::kSame},
    {"7x7 SAME, 3 channels", 1, 9, 9, 3, 1, 7, 7, 1, 1, 1, 1, Padding::kSame},
    {"1x1 window, 17 channels", 1, 4, 5, 17, 1, 1, 1, 1, 1, 1, 1, Padding::kValid},
    {"2x3 window, multiplier 2", 1, 6, 7, 7, 2, 2, 3, 1, 1, 1, 1, Padding::kSame},
    {"3x3 dilation 2,3 SAME", 1, 9, 8, 17, 1, 3, 3, 1, 1, 2, 3, Padding::kSame},
    {"3x3 explicit asymmetric pads", 1, 6, 7, 7, 1, 3, 3, 1, 2, 1, 1, Padding::kExplicit, 2, 0, 1, 3},
    {"3x3 multiplier 2, 3 channels", 1, 5, 6, 3, 2, 3, 3, 1, 1, 1, 1, Padding::kSame},
    {"3x3 stride 2,1 multiplier 3, 1 channel, batch 2", 2, 5, 5, 1, 3, 3, 3, 2, 1, 1, 1, Padding::kSame},
    {"3x3 batch 3, 1 channel", 3, 4, 4, 1, 1, 3, 3, 1, 1, 1, 1, Padding::kSame},
    {"3x3 130 channels (two channel groups)", 1, 3, 5, 130, 1, 3, 3, 1, 1, 1, 1, Padding::kSame},
    {"3x3 40 rows (several bands)", 1, 40, 5, 3, 1, 3, 3, 1, 1, 1, 1, Padding::kSame},
    {"4x1 window stride 2 explicit pads", 1, 9, 6, 9, 1, 4, 1, 2, 1, 1, 1, Padding::kExplicit, 0, 3, 2, 0},
};

class DepthwiseEdge : public ::testing::TestWithParam<RoundingCore> {};

template <class AType, class OutType>
void run_edge_suite(RoundingCore core, unsigned salt) {
  int variant = static_cast<int>(salt);
  std::size_t distinct = 0;
  for (const Shape& s : kEdgeShapes) {
    for (const AccumulatorSpec spec : kAccumulatorModels) {
      const Layer<AType, OutType> l = make_layer<AType, OutType>(
          geometry_of(s), core, static_cast<unsigned>(variant * 7919 + 13), variant);
      distinct += expect_all_isas_match(l, core, spec, s.name);
      ++variant;
    }
  }
  EXPECT_GT(distinct, 100u) << "outputs do not vary: the suite would not detect much";
}

TEST_P(DepthwiseEdge, Int8ToInt8) { run_edge_suite<std::int8_t, std::int8_t>(GetParam(), 0); }
TEST_P(DepthwiseEdge, Uint8ToUint8) { run_edge_suite<std::uint8_t, std::uint8_t>(GetParam(), 1); }
TEST_P(DepthwiseEdge, Int8ToInt16) { run_edge_suite<std::int8_t, std::int16_t>(GetParam(), 2); }
TEST_P(DepthwiseEdge, Uint8ToInt32) { run_edge_suite<std::uint8_t, std::int32_t>(GetParam(), 3); }

INSTANTIATE_TEST_SUITE_P(AllCores, DepthwiseEdge, ::testing::ValuesIn(kAllRoundingCores),
                         [](const ::testing::TestParamInfo<RoundingCore>& i) {
                           std::string n = to_string(i.param);
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

// Every (activation, output) type pair once, on a MobileNet-like 3x3 stride-2 layer.
template <class AType, class OutType>
void run_type_pair() {
  const Shape s{"types", 2, 8, 9, 19, 1, 3, 3, 2, 2, 1, 1, Padding::kSame};
  int variant = 0;
  for (const RoundingCore core : kAllRoundingCores) {
    const Layer<AType, OutType> l = make_layer<AType, OutType>(geometry_of(s), core, 77u + variant, variant);
    expect_all_isas_match(l, core, kAccumulatorModels[variant % std::size(kAccumulatorModels)], "type pair");
    ++variant;
  }
}

TEST(Depthwise, EveryTypePair) {
#define QPARITY_RUN_TYPE_PAIR(A, O) run_type_pair<A, O>();
  QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_RUN_TYPE_PAIR)
#undef QPARITY_RUN_TYPE_PAIR
}

// The SIMD kernels hold exact tap sums for up to 33025 taps: at 32761 taps with every product
// 255 * 255 the sum is 2.13e9 (just below 2^31) and the int32 model then wraps when the bias is
// added; at 33124 taps the driver must follow the reference definition instead.
TEST(Depthwise, LargestKernelsAtAndPastTheExactLimit) {
  for (const std::size_t k : {std::size_t{181}, std::size_t{182}}) {
    DepthwiseConv2DGeometry g = geometry_of({"big", 1, k, k + 1, 2, 1, k, k, 1, 1, 1, 1, Padding::kValid});
    for (const RoundingCore core : {RoundingCore::kSingleRoundingUpward, RoundingCore::kFloat32}) {
      Layer<std::int8_t, std::int32_t> l = make_layer<std::int8_t, std::int32_t>(g, core, 5, 0);
      std::fill(l.input.begin(), l.input.end(), std::int8_t{127});
      for (std::size_t i = 0; i < l.filter.size(); ++i) l.filter[i] = (i % 2 == 0) ? 127 : -128;
      l.za = -128;
      l.has_w_zp = true;
      l.zp_per_channel = true;
      l.w_zp = {-128, 127};  // channel 0: w - wz = 255, channel 1: -255 (every product +-65025)
      l.has_bias = true;
      l.bias = {std::numeric_limits<std::int32_t>::max(), -5};
      for (const AccumulatorSpec spec : kAccumulatorModels) {
        expect_all_isas_match(l, core, spec, "kernel " + std::to_string(k) + "x" + std::to_string(k));
      }
    }
  }
}

// Any partition of the tiles, on any threads, gives the bits of one call.
TEST(Depthwise, TilesAndThreadsGiveTheSameBits) {
  const Shape s{"tiles", 2, 37, 9, 150, 1, 3, 3, 1, 1, 1, 1, Padding::kSame};
  for (const AccumulatorSpec spec : {kInt32Accumulator, kSat24Accumulator, kPairSat32Accumulator}) {
    const Layer<std::int8_t, std::int8_t> l =
        make_layer<std::int8_t, std::int8_t>(geometry_of(s), RoundingCore::kDoubleRoundingAwayFromZero, 9, 4);
    std::vector<std::int8_t> want, got;
    const DepthwiseConv2DProblem<std::int8_t, std::int8_t> p = l.problem(want);
    reference::depthwise_conv2d(p, RoundingCore::kDoubleRoundingAwayFromZero, spec);
    qparity_test::for_each_supported_isa([&](Isa isa) {
      const PackedDepthwiseConv2D conv(isa, p.geometry, p.weights, RoundingCore::kDoubleRoundingAwayFromZero, spec);
      const std::size_t count = depthwise_conv2d_tile_count(conv);
      ASSERT_GE(count, 8u) << "the layer should split into several tiles";
      std::mt19937 rng(count);
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<std::int8_t> out;
        const DepthwiseConv2DProblem<std::int8_t, std::int8_t> q = l.problem(out);
        // Random cut points, run in reverse order (so no tile can rely on a previous one).
        std::vector<std::size_t> cuts{0, count};
        for (int i = 0; i < 4; ++i) cuts.push_back(std::uniform_int_distribution<std::size_t>(0, count)(rng));
        std::sort(cuts.begin(), cuts.end());
        for (std::size_t i = cuts.size() - 1; i > 0; --i) depthwise_conv2d_tiles(conv, q.call, cuts[i - 1], cuts[i]);
        EXPECT_EQ(describe_mismatch(want, out), "") << to_string(isa) << " trial " << trial;
      }
      const qparity_test::ForceTilePool force;  // a small layer: workers must still run tiles
      for (const unsigned threads : {0u, 2u, 3u, 7u}) {
        // threads 0 is hardware_concurrency(), which may be 1.
        const bool parallel = (threads == 0 ? std::thread::hardware_concurrency() : threads) > 1;
        const bool worker_ran = qparity_test::a_worker_ran_during([&] {
          const DepthwiseConv2DProblem<std::int8_t, std::int8_t> q = l.problem(got);
          depthwise_conv2d_threaded(conv, q.call, threads);
          EXPECT_EQ(describe_mismatch(want, got), "") << to_string(isa) << " threads " << threads;
        }, parallel ? 200 : 1);
        EXPECT_EQ(worker_ran, parallel)
            << to_string(isa) << " threads " << threads;
      }
    });
  }
}

// Tiles cut for a number of threads (depthwise_conv2d_tile_count(conv, threads)): every partition
// of them, on one thread or several, gives the bits of depthwise_conv2d(), for 1, 3, 17, 63 and
// 256 output rows (bands cut to other heights, the last one shorter); threads = 1 is the default
// tiles. Under the pool's threshold and with it forced to 0, where every count is cut.
TEST(Depthwise, TilesCutForThreadsGiveTheBitsOfOneCall) {
  bool cut_differs = false;  // some count is not the default one: the cut is exercised
  for (const std::size_t rows : {1u, 3u, 17u, 63u, 256u}) {
    const Shape s{"cut", 1, rows, 5, 40, 1, 3, 3, 1, 1, 1, 1, Padding::kSame};
    const RoundingCore core = rows % 2 ? RoundingCore::kDoubleRoundingAwayFromZero : RoundingCore::kFloat32;
    const Layer<std::int8_t, std::int8_t> l =
        make_layer<std::int8_t, std::int8_t>(geometry_of(s), core, static_cast<unsigned>(rows), 1);
    std::vector<std::int8_t> expect, want, out;
    reference::depthwise_conv2d(l.problem(expect), core, kInt32Accumulator);
    const DepthwiseConv2DProblem<std::int8_t, std::int8_t> p = l.problem(want);
    const ConvCall<std::int8_t, std::int8_t> call = l.problem(out).call;
    qparity_test::for_each_supported_isa([&](Isa isa) {
      const PackedDepthwiseConv2D conv(isa, p.geometry, p.weights, core);
      depthwise_conv2d(conv, p.call);
      EXPECT_EQ(describe_mismatch(expect, want), "") << to_string(isa) << " rows " << rows;
      for (const bool forced : {false, true}) {
        const std::uint64_t previous =
            internal::set_min_parallel_macs(forced ? 0 : internal::kDefaultMinParallelMacs);
        for (const unsigned t : {1u, 2u, 3u, 7u}) {
          const std::string what = std::string(to_string(isa)) + " rows " + std::to_string(rows) +
                                   " threads " + std::to_string(t) + (forced ? " (threshold 0)" : "");
          const std::size_t count = depthwise_conv2d_tile_count(conv, t);
          ASSERT_GE(count, 1u) << what;
          cut_differs = cut_differs || count != depthwise_conv2d_tile_count(conv);
          if (t == 1) {
            EXPECT_EQ(count, depthwise_conv2d_tile_count(conv)) << what;
          }
          std::fill(out.begin(), out.end(), std::int8_t{0});
          for (std::size_t i = count; i > 0; --i) depthwise_conv2d_tiles(conv, call, t, i - 1, i);
          EXPECT_EQ(describe_mismatch(want, out), "") << what << " (one tile at a time, reversed)";
          std::fill(out.begin(), out.end(), std::int8_t{0});
          depthwise_conv2d_tiles(conv, call, t, count / 2, count);
          depthwise_conv2d_tiles(conv, call, t, 0, count / 2);
          EXPECT_EQ(describe_mismatch(want, out), "") << what << " (halves)";
          std::fill(out.begin(), out.end(), std::int8_t{0});
          std::vector<std::thread> pool;
          for (unsigned i = 0; i < t; ++i) {
            pool.emplace_back([&, i] { depthwise_conv2d_tiles(conv, call, t, count * i / t, count * (i + 1) / t); });
          }
          for (std::thread& th : pool) th.join();
          EXPECT_EQ(describe_mismatch(want, out), "") << what << " (" << t << " threads, contiguous shares)";
        }
        internal::set_min_parallel_macs(previous);
      }
    });
  }
  EXPECT_TRUE(cut_differs);
}

TEST(Depthwise, OneShotAndCompileTimeEntriesMatchTheReference) {
  const Shape s{"one-shot", 1, 7, 8, 20, 2, 3, 3, 2, 2, 1, 1, Padding::kSame};
  const Layer<std::uint8_t, std::uint8_t> l =
      make_layer<std::uint8_t, std::uint8_t>(geometry_of(s), RoundingCore::kSingleRoundingUpward, 3, 2);
  std::vector<std::uint8_t> want, got1, got2;
  reference::depthwise_conv2d<SingleRoundingUpward, SaturatingAccumulator<24>>(l.problem(want));
  depthwise_conv2d(l.problem(got1), RoundingCore::kSingleRoundingUpward, SaturatingAccumulator<24>::kSpec);
  depthwise_conv2d<SingleRoundingUpward, SaturatingAccumulator<24>>(l.problem(got2));
  EXPECT_EQ(describe_mismatch(want, got1), "");
  EXPECT_EQ(describe_mismatch(want, got2), "");
}

TEST(Depthwise, KernelNamesTellTheWindow) {
  const Layer<std::int8_t, std::int8_t> l3 = make_layer<std::int8_t, std::int8_t>(
      geometry_of({"", 1, 5, 5, 4, 1, 3, 3, 1, 1, 1, 1, Padding::kSame}), RoundingCore::kFloat32, 1, 0);
  const Layer<std::int8_t, std::int8_t> l5 = make_layer<std::int8_t, std::int8_t>(
      geometry_of({"", 1, 5, 5, 4, 1, 5, 5, 1, 1, 1, 1, Padding::kSame}), RoundingCore::kFloat32, 1, 0);
  const Layer<std::int8_t, std::int8_t> l7 = make_layer<std::int8_t, std::int8_t>(
      geometry_of({"", 1, 5, 5, 4, 1, 7, 7, 1, 1, 1, 1, Padding::kSame}), RoundingCore::kFloat32, 1, 0);
  qparity_test::for_each_supported_isa([&](Isa isa) {
    const std::string prefix = std::string(to_string(isa)) + "-dw";
    // The quad path (VPDPBUSD) runs where the ISA has it and w - wz fits int8 (here wz = 0).
    const bool quad = isa == Isa::kAvx512Vnni || isa == Isa::kAmx;
    EXPECT_EQ(PackedDepthwiseConv2D(isa, l3.g, l3.weights(), RoundingCore::kFloat32).kernel_name(),
              prefix + (quad ? "3x3-quad" : "3x3"));
    EXPECT_EQ(PackedDepthwiseConv2D(isa, l5.g, l5.weights(), RoundingCore::kFloat32).kernel_name(), prefix + "5x5");
    EXPECT_EQ(PackedDepthwiseConv2D(isa, l7.g, l7.weights(), RoundingCore::kFloat32).kernel_name(),
              prefix + "-generic");
  });
}

// The quad path (VPDPBUSD, 3x3, stride_w 1 or 2, fused requantization for the int32 model, raw
// sums otherwise): output widths around its unroll (8 columns, pairs of columns at stride 1),
// channel counts around its 16-lane blocks (32: the back-to-back 32-channel conversion, also
// reached as 16 channels x multiplier 2), both paddings, every output type.
template <class AType, class OutType>
void run_quad_widths(RoundingCore core, unsigned salt) {
  int variant = static_cast<int>(salt);
  for (const std::size_t stride : {std::size_t{1}, std::size_t{2}}) {
    for (const std::size_t out_w : {1, 2, 3, 7, 8, 9, 10, 15, 16, 17, 18, 25}) {
      const std::pair<std::size_t, std::size_t> channel_sets[] = {{1, 1}, {16, 1}, {17, 1}, {32, 1}, {33, 1}, {16, 2}};
      for (const auto& [channels, multiplier] : channel_sets) {
        const bool same = (out_w + channels + multiplier) % 2 == 1;
        const std::size_t in_w = same ? out_w * stride : (out_w - 1) * stride + 3;
        const Shape shape{"quad widths", 1, 4, in_w, channels, multiplier, 3, 3, stride, stride, 1, 1,
                          same ? Padding::kSame : Padding::kValid};
        if (variant % 3 == 1) ++variant;  // no filter zero point: the quad path runs
        const Layer<AType, OutType> l =
            make_layer<AType, OutType>(geometry_of(shape), core, static_cast<unsigned>(variant * 31 + 7), variant);
        const AccumulatorSpec spec = kAccumulatorModels[variant % 3 == 0 ? 0 : variant % std::size(kAccumulatorModels)];
        expect_all_isas_match(l, core, spec, "quad widths, out_w " + std::to_string(out_w));
        ++variant;
      }
    }
  }
}

TEST(Depthwise, QuadPathEdgeWidthsEveryCoreAndType) {
  unsigned salt = 0;
  for (const RoundingCore core : kAllRoundingCores) {
    run_quad_widths<std::int8_t, std::int8_t>(core, salt++);
    run_quad_widths<std::uint8_t, std::uint8_t>(core, salt++);
    run_quad_widths<std::int8_t, std::int16_t>(core, salt++);
    run_quad_widths<std::uint8_t, std::int32_t>(core, salt++);
  }
}

// The quad rows' border columns (a quad reads four pixels, 2q - pad_left .. 2q - pad_left + 3):
// rows 1..6 pixels wide with explicit left and right pads 0..3, so that quads start before the
// row, end past it, or both, and rows narrower than one quad; both strides.
TEST(Depthwise, QuadPathExplicitPadsOnNarrowRows) {
  unsigned variant = 0;
  for (const std::size_t stride : {std::size_t{1}, std::size_t{2}}) {
    for (std::size_t in_w = 1; in_w <= 6; ++in_w) {
      for (std::size_t pl = 0; pl <= 3; ++pl) {
        for (std::size_t pr = 0; pr <= 3; ++pr) {
          if (in_w + pl + pr < 3) continue;  // no output column
          const Shape shape{"quad explicit pads", 1, 3, in_w, 17, 1, 3, 3, 1, stride, 1, 1,
                            Padding::kExplicit, 1, 1, pl, pr};
          const RoundingCore core = kAllRoundingCores[variant % kNumRoundingCores];
          const Layer<std::int8_t, std::int8_t> l = make_layer<std::int8_t, std::int8_t>(
              geometry_of(shape), core, variant * 13 + 5, static_cast<int>(variant % 3 == 1 ? 0 : variant));
          expect_all_isas_match(l, core, kInt32Accumulator,
                                "in_w " + std::to_string(in_w) + " pads " + std::to_string(pl) + "," + std::to_string(pr));
          ++variant;
        }
      }
    }
  }
}

// VPDPBUSD takes int8 weights: with filter zero points the quad path runs when every w - wz fits
// int8 (here the filter lies within 100 of its zero point) and the pair path otherwise.
TEST(Depthwise, QuadPathTakesFilterZeroPointsOnlyWhenTheyFitInt8) {
  const Shape s{"filter zero points", 1, 6, 11, 21, 1, 3, 3, 1, 1, 1, 1, Padding::kSame};
  for (const bool fits : {true, false}) {
    for (const RoundingCore core : {RoundingCore::kDoubleRoundingAwayFromZero, RoundingCore::kFloat32}) {
      Layer<std::int8_t, std::int8_t> l = make_layer<std::int8_t, std::int8_t>(geometry_of(s), core, 11, 0);
      l.has_w_zp = true;
      l.zp_per_channel = true;
      std::mt19937 rng(5);
      for (std::size_t c = 0; c < l.w_zp.size(); ++c) l.w_zp[c] = static_cast<std::int32_t>(c * 12) - 120;
      for (std::size_t i = 0; i < l.filter.size(); ++i) {
        const std::int32_t wz = l.w_zp[i % l.w_zp.size()];
        const std::int32_t lo = fits ? std::max(-128, wz - 100) : -128, hi = fits ? std::min(127, wz + 100) : 127;
        l.filter[i] = static_cast<std::int8_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
      }
      if (!fits) l.filter[0] = static_cast<std::int8_t>(l.w_zp[0] > 0 ? -128 : 127);  // |w - wz| > 128
      for (const AccumulatorSpec spec : {kInt32Accumulator, kInt64Accumulator, kSat24Accumulator}) {
        expect_all_isas_match(l, core, spec, fits ? "zero points that fit" : "zero points that do not fit");
      }
      qparity_test::for_each_supported_isa([&](Isa isa) {
        const bool quad = fits && (isa == Isa::kAvx512Vnni || isa == Isa::kAmx);
        const std::string name = PackedDepthwiseConv2D(isa, l.g, l.weights(), core).kernel_name();
        EXPECT_EQ(name, std::string(to_string(isa)) + "-dw3x3" + (quad ? "-quad" : "")) << fits;
      });
    }
  }
}

// Random layers: any window, stride, dilation, padding, channel count, multiplier, core, model,
// types' zero points, every ISA.
RC_GTEST_PROP(DepthwiseProperty, RandomLayersMatchTheReference, ()) {
  const auto dim = [](int lo, int hi) { return static_cast<std::size_t>(*rc::gen::inRange(lo, hi + 1)); };
  Shape s{"random", dim(1, 2), dim(1, 10), dim(1, 10), dim(1, 40), dim(1, 3), dim(1, 6), dim(1, 6),
          dim(1, 3), dim(1, 3), dim(1, 2), dim(1, 2), Padding::kSame};
  const int pad_kind = *rc::gen::inRange(0, 3);
  s.padding = pad_kind == 0 ? Padding::kSame : pad_kind == 1 ? Padding::kValid : Padding::kExplicit;
  if (s.padding == Padding::kExplicit) {
    s.pt = dim(0, 3), s.pb = dim(0, 3), s.pl = dim(0, 3), s.pr = dim(0, 3);
  }
  const std::size_t ekh = (s.kh - 1) * s.dh + 1, ekw = (s.kw - 1) * s.dw + 1;
  if (s.in_h + s.pt + s.pb < ekh || s.in_w + s.pl + s.pr < ekw) s.padding = Padding::kSame;
  const RoundingCore core = kAllRoundingCores[*rc::gen::inRange(0, kNumRoundingCores)];
  const AccumulatorSpec spec = kAccumulatorModels[*rc::gen::inRange<std::size_t>(0, std::size(kAccumulatorModels))];
  const unsigned seed = *rc::gen::inRange(0, 1 << 30);
  const int variant = *rc::gen::inRange(0, 420);
  const std::string what = "random layer, seed " + std::to_string(seed) + " variant " + std::to_string(variant);
  if (*rc::gen::arbitrary<bool>()) {
    expect_all_isas_match(make_layer<std::int8_t, std::int8_t>(geometry_of(s), core, seed, variant), core, spec, what);
  } else {
    expect_all_isas_match(make_layer<std::uint8_t, std::int16_t>(geometry_of(s), core, seed, variant), core, spec,
                          what);
  }
  RC_ASSERT(!::testing::Test::HasFailure());
}

// ---- Bad input: InvalidArgument naming the parameter ----------------------------------------

template <class F>
void expect_invalid(F&& f, const std::string& name) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << name;
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what() << " does not name " << name;
  }
}

TEST(DepthwiseBadInput, MessagesNameTheParameter) {
  const Layer<std::int8_t, std::int8_t> l = make_layer<std::int8_t, std::int8_t>(
      geometry_of({"", 1, 5, 5, 4, 1, 3, 3, 1, 1, 1, 1, Padding::kSame}), RoundingCore::kFloat32, 1, 1);
  const RoundingCore core = RoundingCore::kFloat32;
  const ConvWeights w = l.weights();
  auto with_geometry = [&](auto edit, const char* name) {
    DepthwiseConv2DGeometry g = l.g;
    edit(g);
    expect_invalid([&] { PackedDepthwiseConv2D conv(g, w, core); }, name);
  };
  with_geometry([](DepthwiseConv2DGeometry& g) { g.depth_multiplier = 0; }, "depth_multiplier");
  with_geometry([](DepthwiseConv2DGeometry& g) { g.in_channels = 0; }, "in_channels");
  with_geometry([](DepthwiseConv2DGeometry& g) { g.batch = 0; }, "batch");
  with_geometry([](DepthwiseConv2DGeometry& g) { g.window.kernel_h = 0; }, "kernel_h");
  with_geometry([](DepthwiseConv2DGeometry& g) { g.window.stride_w = 0; }, "stride_w");
  with_geometry([](DepthwiseConv2DGeometry& g) { g.window.dilation_h = 0; }, "dilation_h");
  with_geometry([](DepthwiseConv2DGeometry& g) { g.window.padding = Padding::kValid; g.window.kernel_w = 9; },
                "horizontal");
  ConvWeights bad = w;
  bad.filter = nullptr;
  expect_invalid([&] { PackedDepthwiseConv2D conv(l.g, bad, core); }, "filter");
  bad = w;
  bad.params = nullptr;
  expect_invalid([&] { PackedDepthwiseConv2D conv(l.g, bad, core); }, "params");
  const std::int32_t zp_bad[1] = {300};
  bad = w;
  bad.filter_zero_points = zp_bad;
  bad.filter_zero_point_per_channel = false;
  expect_invalid([&] { PackedDepthwiseConv2D conv(l.g, bad, core); }, "filter_zero_points");
  expect_invalid([&] { PackedDepthwiseConv2D conv(l.g, w, core, AccumulatorSpec{AccumulatorKind::kSaturating, 60}); },
                 "accumulator.bits");
  if ((supported_isas() & mask_of(Isa::kAmx)) == 0) {
    expect_invalid([&] { PackedDepthwiseConv2D conv(Isa::kAmx, l.g, w, core); }, "isa");
  }

  const PackedDepthwiseConv2D conv(l.g, w, core);
  std::vector<std::int8_t> out(l.out_size());
  const ConvCall<std::int8_t, std::int8_t> good{l.input.data(), 0, full_range_output(OutputType::kInt8), out.data()};
  ConvCall<std::int8_t, std::int8_t> c = good;
  c.input = nullptr;
  expect_invalid([&] { depthwise_conv2d(conv, c); }, "input");
  c = good;
  c.out = nullptr;
  expect_invalid([&] { depthwise_conv2d(conv, c); }, "out");
  c = good;
  c.input_zero_point = 128;
  expect_invalid([&] { depthwise_conv2d(conv, c); }, "input_zero_point");
  c = good;
  c.output.qmin = 10;
  c.output.qmax = 5;
  expect_invalid([&] { depthwise_conv2d_threaded(conv, c, 2); }, "qmax");
  const std::size_t count = depthwise_conv2d_tile_count(conv);
  expect_invalid([&] { depthwise_conv2d_tiles(conv, good, 0, count + 1); }, "tile range");
  expect_invalid([&] { depthwise_conv2d_tiles(conv, good, 1, 0); }, "tile range");
  {
    // Tiles cut for some threads are numbered for those threads only: 112 rows in bands of the
    // packing's height split unevenly over two threads, so the cut for two has other bands.
    const Layer<std::int8_t, std::int8_t> big = make_layer<std::int8_t, std::int8_t>(
        geometry_of({"", 1, 112, 112, 32, 1, 3, 3, 1, 1, 1, 1, Padding::kSame}), core, 2, 1);
    const PackedDepthwiseConv2D bconv(big.g, big.weights(), core);
    std::vector<std::int8_t> bout;
    const ConvCall<std::int8_t, std::int8_t> bcall = big.problem(bout).call;
    const std::size_t two = depthwise_conv2d_tile_count(bconv, 2), one = depthwise_conv2d_tile_count(bconv, 1);
    ASSERT_GT(two, one);
    expect_invalid([&] { depthwise_conv2d_tiles(bconv, bcall, 1, 0, two); }, "threads = 1");
    expect_invalid([&] { depthwise_conv2d_tiles(bconv, bcall, 1, 0, two); }, "<= " + std::to_string(one));
    expect_invalid([&] { depthwise_conv2d_tiles(bconv, bcall, 2, 0, two + 1); }, "threads = 2");
    expect_invalid([&] { depthwise_conv2d_tiles(bconv, bcall, 2, 2, 1); }, "tile range [2, 1)");
    depthwise_conv2d_tiles(bconv, bcall, 2, 0, two);  // the right threads: no error
  }
  std::vector<std::uint8_t> out_u8(l.out_size());
  const std::uint8_t in_u8[1] = {0};
  const ConvCall<std::uint8_t, std::uint8_t> u{in_u8, -1, full_range_output(OutputType::kUint8), out_u8.data()};
  expect_invalid([&] { depthwise_conv2d(conv, u); }, "input_zero_point");
}

}  // namespace
