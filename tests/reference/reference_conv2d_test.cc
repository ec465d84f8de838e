// The reference conv2d and depthwise conv2d (include/qparity/reference_conv2d.h) checked against
// models written here independently of them:
//
//   (a) im2col: each convolution rebuilt as GEMMs (one per group, or per input channel for
//       depthwise) over an im2col matrix that this file builds naively, run through
//       reference::gemm, for every rounding core x accumulator model. This pins the accumulation
//       order the header defines ((ky, kx, ic), padding = input zero point), which the
//       non-exact models (satN, wrapN, pairsat16) make observable.
//   (b) TFLite: for the int32 model, a direct loop written the way TFLite's
//       reference_integer_ops::ConvPerChannel and DepthwiseConvPerChannel are
//       (tensorflow/lite/kernels/internal/reference/integer_ops/conv.h, depthwise_conv.h):
//       out-of-image taps are *skipped* (`continue`), not read as the zero point; padding comes
//       from TFLite's ComputePaddingHeightWidth (padding.h), restated here.
//   (c) hand-computed cases: output sizes for VALID / SAME / explicit, SAME's odd extra pixel at
//       the bottom/right, dilation, stride larger than the kernel, the depthwise channel mapping.
//   (d) bad input: the InvalidArgument message names the offending parameter.
#include "qparity/reference_conv2d.h"

#include <gtest/gtest.h>

#include "accumulators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "qparity/accumulator.h"
#include "qparity/conv_geometry.h"
#include "qparity/presets.h"
#include "qparity/reference.h"
#include "qparity/reference_gemm.h"

namespace {

using qparity_test::kAccumulatorModels;

using namespace qparity;

// Every accumulator model, with widths at which 3x3 convolutions over a few channels overflow
// (sat16/wrap16/pairsat16 almost always, sat24/wrap20 sometimes).

/// Parameters of `core` for a real scale, derived the way the presets do (TFLite's Q31 multiplier
/// for the fixed-point cores, reduced to Q15 for Q15; the float scale for F32 / F32-ZPF; F32-ZPF
/// also gets a small f32 bias so that its bias term is exercised).
RequantParams params_for(RoundingCore core, double scale, float f32_bias) {
  const MultiplierDerivation d = is_float_core(core) ? MultiplierDerivation::kFloatScale
                                                     : MultiplierDerivation::kTfliteDoubleBuild;
  RequantParams p =
      derive_requant_params(core, d, EffectiveScale{scale},
                            core == RoundingCore::kFloat32ZeroPointInside ? f32_bias : 0.0f);
  return p;
}

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// A random window: kernel 1..5, stride 1..3, dilation 1..2, any padding mode, explicit pads 0..2.
Window2D random_window(std::mt19937& rng) {
  Window2D w;
  w.kernel_h = static_cast<std::size_t>(pick(rng, 1, 5));
  w.kernel_w = static_cast<std::size_t>(pick(rng, 1, 5));
  w.stride_h = static_cast<std::size_t>(pick(rng, 1, 3));
  w.stride_w = static_cast<std::size_t>(pick(rng, 1, 3));
  w.dilation_h = static_cast<std::size_t>(pick(rng, 1, 2));
  w.dilation_w = static_cast<std::size_t>(pick(rng, 1, 2));
  w.padding = static_cast<Padding>(pick(rng, 0, 2));
  w.pad_top = static_cast<std::size_t>(pick(rng, 0, 2));
  w.pad_bottom = static_cast<std::size_t>(pick(rng, 0, 2));
  w.pad_left = static_cast<std::size_t>(pick(rng, 0, 2));
  w.pad_right = static_cast<std::size_t>(pick(rng, 0, 2));
  return w;
}

/// Input extent large enough for the window's effective kernel with no padding (so VALID works).
std::size_t random_extent(std::mt19937& rng, std::size_t k, std::size_t dilation) {
  return (k - 1) * dilation + 1 + static_cast<std::size_t>(pick(rng, 0, 5));
}

/// The operands shared by both operations: data, zero points, bias, one parameter set per core.
template <class AType, class OutType>
struct RandomOperands {
  std::vector<AType> input;
  std::vector<std::int8_t> filter;
  std::vector<std::int32_t> filter_zp, bias;
  bool filter_zp_per_channel = false, per_channel = false, with_bias = true, with_filter_zp = true;
  std::int32_t input_zp = 0;
  std::vector<float> scales, f32_bias;
  OutputParams output{};

  void fill(std::mt19937& rng, std::size_t input_size, std::size_t filter_size,
            std::size_t channels, std::size_t k) {
    const int amin = std::is_signed<AType>::value ? -128 : 0;
    input.resize(input_size);
    for (auto& v : input) v = static_cast<AType>(pick(rng, amin, amin + 255));
    filter.resize(filter_size);
    for (auto& v : filter) v = static_cast<std::int8_t>(pick(rng, -128, 127));
    // Zero points at the extremes of their ranges half of the time: they make accumulators large.
    input_zp =
        pick(rng, 0, 1) ? (pick(rng, 0, 1) ? amin : amin + 255) : pick(rng, amin, amin + 255);
    with_filter_zp = pick(rng, 0, 2) != 0;
    filter_zp_per_channel = pick(rng, 0, 1);
    filter_zp.resize(channels);
    for (auto& v : filter_zp) v = pick(rng, 0, 3) == 0 ? -128 : pick(rng, -128, 127);
    with_bias = pick(rng, 0, 3) != 0;
    bias.resize(channels);
    for (auto& v : bias) v = pick(rng, -200000, 200000);
    per_channel = pick(rng, 0, 1);
    // Real scales that map accumulators of typical size (sqrt(k) * 74^2) onto a few tens of steps.
    const double typical = std::sqrt(static_cast<double>(k)) * 74.0 * 74.0;
    scales.resize(channels);
    f32_bias.resize(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      scales[c] = static_cast<float>(40.0 / typical * std::exp(pick(rng, -100, 100) / 100.0));
      f32_bias[c] = static_cast<float>(pick(rng, -20, 20)) * 0.25f;
    }
    const OutputType t = detail::output_type_of<OutType>();
    const std::int64_t lo = output_type_min(t), hi = output_type_max(t);
    const std::int64_t zp_lo = std::max<std::int64_t>(lo, -1000),
                       zp_hi = std::min<std::int64_t>(hi, 1000);
    output.zero_point =
        static_cast<std::int32_t>(zp_lo + pick(rng, 0, static_cast<int>(zp_hi - zp_lo)));
    output.qmin = static_cast<std::int32_t>(
        pick(rng, 0, 1) ? lo : std::max<std::int64_t>(lo, output.zero_point - 50));
    output.qmax = static_cast<std::int32_t>(
        pick(rng, 0, 1) ? hi : std::min<std::int64_t>(hi, output.zero_point + 50));
  }

  std::vector<RequantParams> params(RoundingCore core) const {
    std::vector<RequantParams> p;
    for (std::size_t c = 0; c < (per_channel ? scales.size() : 1); ++c) {
      p.push_back(params_for(core, scales[c], f32_bias[c]));
    }
    return p;
  }

  ConvWeights weights(const std::vector<RequantParams>& p) const {
    ConvWeights w;
    w.filter = filter.data();
    w.filter_zero_points = with_filter_zp ? filter_zp.data() : nullptr;
    w.filter_zero_point_per_channel = filter_zp_per_channel;
    w.bias = with_bias ? bias.data() : nullptr;
    w.params = p.data();
    w.per_channel = per_channel;
    return w;
  }
};

template <class AType, class OutType>
struct RandomConv {
  Conv2DGeometry g;
  RandomOperands<AType, OutType> ops;

  explicit RandomConv(std::mt19937& rng) {
    g.window = random_window(rng);
    g.batch = static_cast<std::size_t>(pick(rng, 1, 2));
    g.in_h = random_extent(rng, g.window.kernel_h, g.window.dilation_h);
    g.in_w = random_extent(rng, g.window.kernel_w, g.window.dilation_w);
    g.groups = static_cast<std::size_t>(pick(rng, 0, 1) ? 1 : pick(rng, 2, 3));
    g.in_channels = g.groups * static_cast<std::size_t>(pick(rng, 1, 5));
    g.out_channels = g.groups * static_cast<std::size_t>(pick(rng, 1, 5));
    const std::size_t k = g.window.kernel_h * g.window.kernel_w * (g.in_channels / g.groups);
    ops.fill(rng, g.batch * g.in_h * g.in_w * g.in_channels, g.out_channels * k, g.out_channels, k);
  }

  Conv2DProblem<AType, OutType> problem(const std::vector<RequantParams>& p,
                                        std::vector<OutType>& out) const {
    const ResolvedWindow r = resolve_window(g.window, g.in_h, g.in_w);
    out.assign(g.batch * r.out_h * r.out_w * g.out_channels, OutType{0x5A});
    Conv2DProblem<AType, OutType> c;
    c.geometry = g;
    c.weights = ops.weights(p);
    c.call = ConvCall<AType, OutType>{ops.input.data(), ops.input_zp, ops.output, out.data()};
    return c;
  }
};

template <class AType, class OutType>
struct RandomDepthwise {
  DepthwiseConv2DGeometry g;
  RandomOperands<AType, OutType> ops;

  RandomDepthwise(std::mt19937& rng, std::size_t multiplier) {
    g.window = random_window(rng);
    g.batch = static_cast<std::size_t>(pick(rng, 1, 2));
    g.in_h = random_extent(rng, g.window.kernel_h, g.window.dilation_h);
    g.in_w = random_extent(rng, g.window.kernel_w, g.window.dilation_w);
    g.in_channels = static_cast<std::size_t>(pick(rng, 1, 7));
    g.depth_multiplier = multiplier;
    const std::size_t k = g.window.kernel_h * g.window.kernel_w;
    ops.fill(rng, g.batch * g.in_h * g.in_w * g.in_channels, k * g.out_channels(), g.out_channels(),
             k);
  }

  DepthwiseConv2DProblem<AType, OutType> problem(const std::vector<RequantParams>& p,
                                                 std::vector<OutType>& out) const {
    const ResolvedWindow r = resolve_window(g.window, g.in_h, g.in_w);
    out.assign(g.batch * r.out_h * r.out_w * g.out_channels(), OutType{0x5A});
    DepthwiseConv2DProblem<AType, OutType> c;
    c.geometry = g;
    c.weights = ops.weights(p);
    c.call = ConvCall<AType, OutType>{ops.input.data(), ops.input_zp, ops.output, out.data()};
    return c;
  }
};

// --- (a) im2col ---------------------------------------------------------------------------------

/// Padding of one axis, written from TensorFlow's rules (not from conv_geometry.h).
struct AxisPadding {
  std::size_t out, before;
};
AxisPadding axis_padding(std::size_t in, std::size_t k, std::size_t stride, std::size_t dilation,
                         Padding mode, std::size_t explicit_before, std::size_t explicit_after) {
  const long ek = static_cast<long>((k - 1) * dilation + 1);
  const long n = static_cast<long>(in), s = static_cast<long>(stride);
  switch (mode) {
    case Padding::kValid:
      return {static_cast<std::size_t>((n - ek + s) / s), 0};
    case Padding::kSame: {
      const long out = (n + s - 1) / s;
      const long total = std::max(0L, (out - 1) * s + ek - n);
      return {static_cast<std::size_t>(out), static_cast<std::size_t>(total / 2)};
    }
    case Padding::kExplicit:
      break;
  }
  const long padded = n + static_cast<long>(explicit_before + explicit_after);
  return {static_cast<std::size_t>((padded - ek) / s + 1), explicit_before};
}

struct Geometry2D {
  AxisPadding y, x;
};
Geometry2D geometry_2d(const Window2D& w, std::size_t in_h, std::size_t in_w) {
  return {
      axis_padding(in_h, w.kernel_h, w.stride_h, w.dilation_h, w.padding, w.pad_top, w.pad_bottom),
      axis_padding(in_w, w.kernel_w, w.stride_w, w.dilation_w, w.padding, w.pad_left, w.pad_right)};
}

/// im2col of channels [c0, c0 + cn) of an NHWC input: one row per output pixel (b, oy, ox), columns
/// (ky, kx, c) with c fastest; taps outside the image hold the zero point.
template <class AType>
std::vector<AType> im2col(const AType* in, std::size_t batch, std::size_t h, std::size_t w,
                          std::size_t channels, std::size_t c0, std::size_t cn, const Window2D& win,
                          const Geometry2D& geo, AType zp) {
  std::vector<AType> m;
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t oy = 0; oy < geo.y.out; ++oy) {
      for (std::size_t ox = 0; ox < geo.x.out; ++ox) {
        for (std::size_t ky = 0; ky < win.kernel_h; ++ky) {
          for (std::size_t kx = 0; kx < win.kernel_w; ++kx) {
            const long iy = static_cast<long>(oy * win.stride_h + ky * win.dilation_h) -
                            static_cast<long>(geo.y.before);
            const long ix = static_cast<long>(ox * win.stride_w + kx * win.dilation_w) -
                            static_cast<long>(geo.x.before);
            const bool inside =
                iy >= 0 && ix >= 0 && iy < static_cast<long>(h) && ix < static_cast<long>(w);
            for (std::size_t c = c0; c < c0 + cn; ++c) {
              m.push_back(inside ? in[((b * h + static_cast<std::size_t>(iy)) * w +
                                       static_cast<std::size_t>(ix)) *
                                          channels +
                                      c]
                                 : zp);
            }
          }
        }
      }
    }
  }
  return m;
}

/// conv2d as one GEMM per group over the naive im2col.
template <class AType, class OutType>
std::vector<OutType> conv2d_by_gemm(const Conv2DProblem<AType, OutType>& p, RoundingCore core,
                                    AccumulatorSpec acc) {
  const Conv2DGeometry& g = p.geometry;
  const Geometry2D geo = geometry_2d(g.window, g.in_h, g.in_w);
  const std::size_t icg = g.in_channels / g.groups, ocg = g.out_channels / g.groups;
  const std::size_t k = g.window.kernel_h * g.window.kernel_w * icg;
  const std::size_t pixels = g.batch * geo.y.out * geo.x.out;
  std::vector<OutType> out(pixels * g.out_channels, OutType{0x33});
  for (std::size_t grp = 0; grp < g.groups; ++grp) {
    const std::vector<AType> a =
        im2col(p.call.input, g.batch, g.in_h, g.in_w, g.in_channels, grp * icg, icg, g.window, geo,
               static_cast<AType>(p.call.input_zero_point));
    GemmProblem<AType, OutType> gm;
    gm.m = pixels;
    gm.n = ocg;
    gm.k = k;
    gm.a = a.data();
    gm.a_zero_point = p.call.input_zero_point;
    gm.b = p.weights.filter + grp * ocg * k;  // OHWI: output channel rows of k
    gm.b_layout = WeightLayout::kNxK;
    const auto& w = p.weights;
    gm.b_zero_points = w.filter_zero_points ? w.filter_zero_points +
                                                  (w.filter_zero_point_per_channel ? grp * ocg : 0)
                                            : nullptr;
    gm.b_zero_point_per_channel = w.filter_zero_point_per_channel;
    gm.bias = w.bias ? w.bias + grp * ocg : nullptr;
    gm.params = w.params + (w.per_channel ? grp * ocg : 0);
    gm.per_channel = w.per_channel;
    gm.output = p.call.output;
    gm.c = out.data() + grp * ocg;
    gm.c_row_stride = g.out_channels;
    reference::gemm(gm, core, acc);
  }
  return out;
}

/// Depthwise as one GEMM per input channel: A = that channel's im2col (k = kh * kw), B = the
/// multiplier's filter columns read from 1HWO as a K x N matrix with row stride out_channels.
template <class AType, class OutType>
std::vector<OutType> depthwise_by_gemm(const DepthwiseConv2DProblem<AType, OutType>& p,
                                       RoundingCore core, AccumulatorSpec acc) {
  const DepthwiseConv2DGeometry& g = p.geometry;
  const Geometry2D geo = geometry_2d(g.window, g.in_h, g.in_w);
  const std::size_t mult = g.depth_multiplier, oc = g.in_channels * mult;
  const std::size_t pixels = g.batch * geo.y.out * geo.x.out;
  std::vector<OutType> out(pixels * oc, OutType{0x33});
  const auto& w = p.weights;
  for (std::size_t ic = 0; ic < g.in_channels; ++ic) {
    const std::vector<AType> a = im2col(p.call.input, g.batch, g.in_h, g.in_w, g.in_channels, ic, 1,
                                        g.window, geo, static_cast<AType>(p.call.input_zero_point));
    GemmProblem<AType, OutType> gm;
    gm.m = pixels;
    gm.n = mult;
    gm.k = g.window.kernel_h * g.window.kernel_w;
    gm.a = a.data();
    gm.a_zero_point = p.call.input_zero_point;
    gm.b = w.filter + ic * mult;
    gm.b_layout = WeightLayout::kKxN;
    gm.b_row_stride = oc;
    gm.b_zero_points = w.filter_zero_points ? w.filter_zero_points +
                                                  (w.filter_zero_point_per_channel ? ic * mult : 0)
                                            : nullptr;
    gm.b_zero_point_per_channel = w.filter_zero_point_per_channel;
    gm.bias = w.bias ? w.bias + ic * mult : nullptr;
    gm.params = w.params + (w.per_channel ? ic * mult : 0);
    gm.per_channel = w.per_channel;
    gm.output = p.call.output;
    gm.c = out.data() + ic * mult;
    gm.c_row_stride = oc;
    reference::gemm(gm, core, acc);
  }
  return out;
}

/// The first differing index, or -1.
template <class T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<long>(i);
  }
  return -1;
}

template <class T>
std::string describe(const Window2D& w) {
  return std::string("kernel ") + std::to_string(w.kernel_h) + "x" + std::to_string(w.kernel_w) +
         " stride " + std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + " dilation " +
         std::to_string(w.dilation_h) + "x" + std::to_string(w.dilation_w) + " " +
         to_string(w.padding) + " (" + std::to_string(w.pad_top) + "," +
         std::to_string(w.pad_bottom) + "," + std::to_string(w.pad_left) + "," +
         std::to_string(w.pad_right) + ") " + (std::is_signed<T>::value ? "int8" : "uint8");
}

/// Counts distinct output values, so that a comparison of constant outputs cannot pass silently.
template <class T>
std::size_t distinct(const std::vector<T>& v) {
  std::vector<T> s = v;
  std::sort(s.begin(), s.end());
  return static_cast<std::size_t>(std::unique(s.begin(), s.end()) - s.begin());
}

template <class AType, class OutType>
void check_conv_im2col(unsigned seed, int cases) {
  std::mt19937 rng(seed);
  std::size_t varied = 0, grouped = 0;
  for (int t = 0; t < cases; ++t) {
    const RandomConv<AType, OutType> rc(rng);
    grouped += rc.g.groups > 1;
    for (RoundingCore core : kAllRoundingCores) {
      const std::vector<RequantParams> params = rc.ops.params(core);
      for (AccumulatorSpec acc : kAccumulatorModels) {
        std::vector<OutType> out;
        const auto p = rc.problem(params, out);
        reference::conv2d(p, core, acc);
        const std::vector<OutType> want = conv2d_by_gemm(p, core, acc);
        const long d = first_difference(out, want);
        ASSERT_EQ(d, -1) << "case " << t << " core " << to_string(core) << " acc " << to_string(acc)
                         << " element " << d << ": "
                         << static_cast<long>(out[static_cast<std::size_t>(std::max(d, 0L))])
                         << " vs im2col+gemm "
                         << static_cast<long>(want[static_cast<std::size_t>(std::max(d, 0L))])
                         << "; batch " << rc.g.batch << " " << rc.g.in_h << "x" << rc.g.in_w << "x"
                         << rc.g.in_channels << " -> " << rc.g.out_channels << " groups "
                         << rc.g.groups << " " << describe<AType>(rc.g.window);
        varied += distinct(out) > 2;
      }
    }
  }
  EXPECT_GT(grouped, 0u) << "no grouped case drawn";
  EXPECT_GT(varied, static_cast<std::size_t>(cases) * kNumRoundingCores * 3)
      << "outputs barely vary: the comparison would be vacuous";
}

TEST(ReferenceConv2DIm2col, EveryCoreAndAccumulatorInt8) {
  check_conv_im2col<std::int8_t, std::int8_t>(101, 80);
}
TEST(ReferenceConv2DIm2col, EveryCoreAndAccumulatorUint8) {
  check_conv_im2col<std::uint8_t, std::uint8_t>(102, 40);
}
TEST(ReferenceConv2DIm2col, WideOutputs) {
  check_conv_im2col<std::int8_t, std::int16_t>(103, 8);
  check_conv_im2col<std::uint8_t, std::int32_t>(104, 8);
}

template <class AType, class OutType>
void check_depthwise_im2col(unsigned seed, int cases, std::size_t multiplier) {
  std::mt19937 rng(seed);
  std::size_t varied = 0;
  for (int t = 0; t < cases; ++t) {
    const RandomDepthwise<AType, OutType> rd(rng, multiplier);
    for (RoundingCore core : kAllRoundingCores) {
      const std::vector<RequantParams> params = rd.ops.params(core);
      for (AccumulatorSpec acc : kAccumulatorModels) {
        std::vector<OutType> out;
        const auto p = rd.problem(params, out);
        reference::depthwise_conv2d(p, core, acc);
        const std::vector<OutType> want = depthwise_by_gemm(p, core, acc);
        const long d = first_difference(out, want);
        ASSERT_EQ(d, -1) << "case " << t << " core " << to_string(core) << " acc " << to_string(acc)
                         << " multiplier " << multiplier << " element " << d << "; " << rd.g.in_h
                         << "x" << rd.g.in_w << "x" << rd.g.in_channels << " "
                         << describe<AType>(rd.g.window);
        varied += distinct(out) > 2;
      }
    }
  }
  EXPECT_GT(varied, static_cast<std::size_t>(cases) * kNumRoundingCores * 3)
      << "outputs barely vary: the comparison would be vacuous";
}

TEST(ReferenceDepthwiseIm2col, MultiplierOne) {
  check_depthwise_im2col<std::int8_t, std::int8_t>(201, 60, 1);
}
TEST(ReferenceDepthwiseIm2col, MultiplierThree) {
  check_depthwise_im2col<std::int8_t, std::int8_t>(202, 50, 3);
}
TEST(ReferenceDepthwiseIm2col, Uint8MultiplierTwo) {
  check_depthwise_im2col<std::uint8_t, std::uint8_t>(203, 40, 2);
}

/// With multiplier 1, depthwise is the grouped conv with groups = in_channels, the filter
/// transposed from 1HWO [ky][kx][c] to OHWI [c][ky][kx][1]: a second, structural check that runs
/// the conv2d reference's own loop (not the GEMM) on depthwise problems.
TEST(ReferenceDepthwise, MultiplierOneIsGroupedConvWithGroupsEqualInChannels) {
  std::mt19937 rng(301);
  for (int t = 0; t < 25; ++t) {
    const RandomDepthwise<std::int8_t, std::int8_t> rd(rng, 1);
    const std::size_t kk = rd.g.window.kernel_h * rd.g.window.kernel_w, c = rd.g.in_channels;
    std::vector<std::int8_t> ohwi(kk * c);
    for (std::size_t tap = 0; tap < kk; ++tap) {
      for (std::size_t ch = 0; ch < c; ++ch) ohwi[ch * kk + tap] = rd.ops.filter[tap * c + ch];
    }
    for (RoundingCore core : kAllRoundingCores) {
      const std::vector<RequantParams> params = rd.ops.params(core);
      for (AccumulatorSpec acc : kAccumulatorModels) {
        std::vector<std::int8_t> dw_out, conv_out;
        const auto dw = rd.problem(params, dw_out);
        reference::depthwise_conv2d(dw, core, acc);
        Conv2DProblem<std::int8_t, std::int8_t> cv;
        cv.geometry.batch = rd.g.batch;
        cv.geometry.in_h = rd.g.in_h;
        cv.geometry.in_w = rd.g.in_w;
        cv.geometry.in_channels = c;
        cv.geometry.out_channels = c;
        cv.geometry.groups = c;
        cv.geometry.window = rd.g.window;
        cv.weights = dw.weights;
        cv.weights.filter = ohwi.data();
        conv_out.assign(dw_out.size(), 0x11);
        cv.call = dw.call;
        cv.call.out = conv_out.data();
        reference::conv2d(cv, core, acc);
        ASSERT_EQ(first_difference(dw_out, conv_out), -1)
            << "case " << t << " core " << to_string(core) << " acc " << to_string(acc) << " "
            << describe<std::int8_t>(rd.g.window);
      }
    }
  }
}

/// The compile-time entry points are the run-time ones with the policy and accumulator fixed.
TEST(ReferenceConv2D, TemplatedEntryPointsEqualRunTimeOnes) {
  std::mt19937 rng(401);
  for (int t = 0; t < 10; ++t) {
    const RandomConv<std::int8_t, std::int8_t> rc(rng);
    const RandomDepthwise<std::int8_t, std::int8_t> rd(rng, 2);
    const std::vector<RequantParams> pc = rc.ops.params(RoundingCore::kDoubleRoundingAwayFromZero);
    const std::vector<RequantParams> pd = rd.ops.params(RoundingCore::kSingleRoundingToEven);
    std::vector<std::int8_t> a, b;
    reference::conv2d<DoubleRoundingAwayFromZero, SaturatingAccumulator<20>>(rc.problem(pc, a));
    reference::conv2d(rc.problem(pc, b), RoundingCore::kDoubleRoundingAwayFromZero,
                      AccumulatorSpec{AccumulatorKind::kSaturating, 20});
    EXPECT_EQ(first_difference(a, b), -1) << "conv2d case " << t;
    reference::depthwise_conv2d<SingleRoundingToEven>(rd.problem(pd, a));
    reference::depthwise_conv2d(rd.problem(pd, b), RoundingCore::kSingleRoundingToEven,
                                AccumulatorSpec{});
    EXPECT_EQ(first_difference(a, b), -1) << "depthwise case " << t;
  }
}

// --- (b) TFLite's loops, written literally ------------------------------------------------------

/// TFLite's ComputePaddingHeightWidth / ComputePaddingWithOffset and ComputeOutSize
/// (tensorflow/lite/kernels/padding.h): padding = total / 2 before; the offset (total % 2) goes
/// after, which the loops below never read (they only use the "before" padding).
struct TflitePadding {
  int out_h, out_w, pad_h, pad_w;
};
TflitePadding tflite_padding(const Window2D& w, int in_h, int in_w) {
  const auto out_size = [](Padding p, int in, int k, int stride, int dil) {
    const int ek = (k - 1) * dil + 1;
    return p == Padding::kSame ? (in + stride - 1) / stride : (in + stride - ek) / stride;
  };
  const auto pad = [](int stride, int dil, int in, int k, int out) {
    const int ek = (k - 1) * dil + 1;
    const int total = std::max((out - 1) * stride + ek - in, 0);
    return total / 2;
  };
  TflitePadding t{};
  if (w.padding == Padding::kExplicit) {
    // TFLite has no explicit padding in CONV_2D; StableHLO-style explicit pads feed the same loop.
    t.out_h = (in_h + static_cast<int>(w.pad_top + w.pad_bottom) -
               static_cast<int>((w.kernel_h - 1) * w.dilation_h + 1)) /
                  static_cast<int>(w.stride_h) +
              1;
    t.out_w = (in_w + static_cast<int>(w.pad_left + w.pad_right) -
               static_cast<int>((w.kernel_w - 1) * w.dilation_w + 1)) /
                  static_cast<int>(w.stride_w) +
              1;
    t.pad_h = static_cast<int>(w.pad_top);
    t.pad_w = static_cast<int>(w.pad_left);
    return t;
  }
  t.out_h = out_size(w.padding, in_h, static_cast<int>(w.kernel_h), static_cast<int>(w.stride_h),
                     static_cast<int>(w.dilation_h));
  t.out_w = out_size(w.padding, in_w, static_cast<int>(w.kernel_w), static_cast<int>(w.stride_w),
                     static_cast<int>(w.dilation_w));
  t.pad_h = w.padding == Padding::kSame
                ? pad(static_cast<int>(w.stride_h), static_cast<int>(w.dilation_h), in_h,
                      static_cast<int>(w.kernel_h), t.out_h)
                : 0;
  t.pad_w = w.padding == Padding::kSame
                ? pad(static_cast<int>(w.stride_w), static_cast<int>(w.dilation_w), in_w,
                      static_cast<int>(w.kernel_w), t.out_w)
                : 0;
  return t;
}

/// int32 add with two's-complement wrap (TFLite's `acc +=` on the hardware; UB in C++).
std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

/// The output stage of TFLite's loop for `Policy`: requantize, + output_offset, clamp (for DR-AZ
/// this is MultiplyByQuantizedMultiplier; the other cores replace that one call).
template <class Policy>
std::int32_t tflite_output(std::int32_t acc, const RequantParams& p, const OutputParams& o) {
  return requantize_to_output<Policy>(acc, p, o);
}

/// reference_integer_ops::ConvPerChannel (grouped), with a weight zero point added (TFLite's int8
/// filters are symmetric; the term is (filter - filter_zp) here, which is filter when it is 0).
template <class Policy, class AType, class OutType>
void tflite_conv_per_channel(const Conv2DProblem<AType, OutType>& p, std::vector<OutType>& out) {
  const Conv2DGeometry& g = p.geometry;
  const TflitePadding t =
      tflite_padding(g.window, static_cast<int>(g.in_h), static_cast<int>(g.in_w));
  const int input_offset = -p.call.input_zero_point;
  const int input_depth = static_cast<int>(g.in_channels),
            output_depth = static_cast<int>(g.out_channels);
  const int filter_input_depth = input_depth / static_cast<int>(g.groups);
  const int groups = input_depth / filter_input_depth;
  const int filters_per_group = output_depth / groups;
  const int fh = static_cast<int>(g.window.kernel_h), fw = static_cast<int>(g.window.kernel_w);
  const int in_h = static_cast<int>(g.in_h), in_w = static_cast<int>(g.in_w);
  out.assign(g.batch * static_cast<std::size_t>(t.out_h * t.out_w) * g.out_channels, OutType{0});
  const auto& w = p.weights;
  for (int batch = 0; batch < static_cast<int>(g.batch); ++batch) {
    for (int out_y = 0; out_y < t.out_h; ++out_y) {
      const int in_y_origin = out_y * static_cast<int>(g.window.stride_h) - t.pad_h;
      for (int out_x = 0; out_x < t.out_w; ++out_x) {
        const int in_x_origin = out_x * static_cast<int>(g.window.stride_w) - t.pad_w;
        for (int out_channel = 0; out_channel < output_depth; ++out_channel) {
          const int group = out_channel / filters_per_group;
          const int wzp =
              w.filter_zero_points
                  ? w.filter_zero_points[w.filter_zero_point_per_channel ? out_channel : 0]
                  : 0;
          std::int32_t acc = 0;
          for (int filter_y = 0; filter_y < fh; ++filter_y) {
            const int in_y = in_y_origin + static_cast<int>(g.window.dilation_h) * filter_y;
            for (int filter_x = 0; filter_x < fw; ++filter_x) {
              const int in_x = in_x_origin + static_cast<int>(g.window.dilation_w) * filter_x;
              // Zero padding by omitting the areas outside the image (TFLite's comment).
              const bool is_point_inside_image =
                  in_x >= 0 && in_x < in_w && in_y >= 0 && in_y < in_h;
              if (!is_point_inside_image) continue;
              for (int in_channel = 0; in_channel < filter_input_depth; ++in_channel) {
                const int input_val =
                    p.call.input[((batch * in_h + in_y) * in_w + in_x) * input_depth + in_channel +
                                 group * filter_input_depth];
                const int filter_val =
                    w.filter[((out_channel * fh + filter_y) * fw + filter_x) * filter_input_depth +
                             in_channel];
                acc = wrap_add(acc, (filter_val - wzp) * (input_val + input_offset));
              }
            }
          }
          if (w.bias) acc = wrap_add(acc, w.bias[out_channel]);
          const std::int32_t v =
              tflite_output<Policy>(acc, w.params[w.per_channel ? out_channel : 0], p.call.output);
          out[((static_cast<std::size_t>(batch) * t.out_h + out_y) * t.out_w + out_x) *
                  g.out_channels +
              out_channel] = static_cast<OutType>(v);
        }
      }
    }
  }
}

/// reference_integer_ops::DepthwiseConvPerChannel, with its 32-channel chunks of accumulators.
template <class Policy, class AType, class OutType>
void tflite_depthwise_conv_per_channel(const DepthwiseConv2DProblem<AType, OutType>& p,
                                       std::vector<OutType>& out) {
  const DepthwiseConv2DGeometry& g = p.geometry;
  const TflitePadding t =
      tflite_padding(g.window, static_cast<int>(g.in_h), static_cast<int>(g.in_w));
  const int depth_multiplier = static_cast<int>(g.depth_multiplier);
  const int input_offset = -p.call.input_zero_point;
  const int input_depth = static_cast<int>(g.in_channels),
            output_depth = input_depth * depth_multiplier;
  const int fh = static_cast<int>(g.window.kernel_h), fw = static_cast<int>(g.window.kernel_w);
  const int in_h = static_cast<int>(g.in_h), in_w = static_cast<int>(g.in_w);
  out.assign(g.batch * static_cast<std::size_t>(t.out_h * t.out_w * output_depth), OutType{0});
  const auto& w = p.weights;
  constexpr int channel_step = 32;
  for (int batch = 0; batch < static_cast<int>(g.batch); ++batch) {
    for (int out_y = 0; out_y < t.out_h; ++out_y) {
      for (int out_x = 0; out_x < t.out_w; ++out_x) {
        for (int m = 0; m < depth_multiplier; ++m) {
          const int in_x_origin = out_x * static_cast<int>(g.window.stride_w) - t.pad_w;
          const int in_y_origin = out_y * static_cast<int>(g.window.stride_h) - t.pad_h;
          for (int begin_ch = 0; begin_ch < input_depth; begin_ch += channel_step) {
            std::int32_t acc[channel_step] = {0};
            const int steps = std::min(input_depth, begin_ch + channel_step) - begin_ch;
            for (int filter_y = 0; filter_y < fh; ++filter_y) {
              const int in_y = in_y_origin + static_cast<int>(g.window.dilation_h) * filter_y;
              for (int filter_x = 0; filter_x < fw; ++filter_x) {
                const int in_x = in_x_origin + static_cast<int>(g.window.dilation_w) * filter_x;
                const bool is_point_inside_image =
                    in_x >= 0 && in_x < in_w && in_y >= 0 && in_y < in_h;
                if (!is_point_inside_image) continue;
                for (int offset_ch = 0; offset_ch < steps; ++offset_ch) {
                  const int in_channel = begin_ch + offset_ch;
                  const int output_channel = m + in_channel * depth_multiplier;
                  const int wzp =
                      w.filter_zero_points
                          ? w.filter_zero_points[w.filter_zero_point_per_channel ? output_channel
                                                                                 : 0]
                          : 0;
                  const int input_val =
                      p.call
                          .input[((batch * in_h + in_y) * in_w + in_x) * input_depth + in_channel];
                  const int filter_val =
                      w.filter[(filter_y * fw + filter_x) * output_depth + output_channel];
                  acc[offset_ch] =
                      wrap_add(acc[offset_ch], (filter_val - wzp) * (input_val + input_offset));
                }
              }
            }
            for (int offset_ch = 0; offset_ch < steps; ++offset_ch) {
              const int in_channel = begin_ch + offset_ch;
              const int output_channel = m + in_channel * depth_multiplier;
              std::int32_t value = acc[offset_ch];
              if (w.bias) value = wrap_add(value, w.bias[output_channel]);
              const std::int32_t v = tflite_output<Policy>(
                  value, w.params[w.per_channel ? output_channel : 0], p.call.output);
              out[((static_cast<std::size_t>(batch) * t.out_h + out_y) * t.out_w + out_x) *
                      output_depth +
                  output_channel] = static_cast<OutType>(v);
            }
          }
        }
      }
    }
  }
}

TEST(ReferenceConv2DTflite, Int32ModelEqualsTfliteLoopThatSkipsPadding) {
  std::mt19937 rng(501);
  std::size_t padded_cases = 0;
  for (int t = 0; t < 60; ++t) {
    const RandomConv<std::int8_t, std::int8_t> rc(rng);
    const ResolvedWindow r = resolve_window(rc.g.window, rc.g.in_h, rc.g.in_w);
    padded_cases += r.pad_top + r.pad_bottom + r.pad_left + r.pad_right > 0;
    for (RoundingCore core : kAllRoundingCores) {
      const std::vector<RequantParams> params = rc.ops.params(core);
      std::vector<std::int8_t> out, want;
      const auto p = rc.problem(params, out);
      reference::conv2d(p, core, AccumulatorSpec{});
      visit_rounding_core(core,
                          [&](auto policy) { tflite_conv_per_channel<decltype(policy)>(p, want); });
      const long d = first_difference(out, want);
      ASSERT_EQ(d, -1) << "case " << t << " core " << to_string(core) << " element " << d
                       << " groups " << rc.g.groups << " " << describe<std::int8_t>(rc.g.window);
    }
  }
  EXPECT_GT(padded_cases, 10u)
      << "too few padded cases: the skip-vs-zero-point claim is barely tested";
}

TEST(ReferenceConv2DTflite, Uint8Int32ModelEqualsTfliteLoop) {
  std::mt19937 rng(502);
  for (int t = 0; t < 30; ++t) {
    const RandomConv<std::uint8_t, std::uint8_t> rc(rng);
    const std::vector<RequantParams> params =
        rc.ops.params(RoundingCore::kDoubleRoundingAwayFromZero);
    std::vector<std::uint8_t> out, want;
    const auto p = rc.problem(params, out);
    reference::conv2d<DoubleRoundingAwayFromZero>(p);
    tflite_conv_per_channel<DoubleRoundingAwayFromZero>(p, want);
    ASSERT_EQ(first_difference(out, want), -1)
        << "case " << t << " " << describe<std::uint8_t>(rc.g.window);
  }
}

TEST(ReferenceDepthwiseTflite, Int32ModelEqualsTfliteLoopThatSkipsPadding) {
  std::mt19937 rng(503);
  for (int t = 0; t < 60; ++t) {
    // Some cases with more than one 32-channel chunk of TFLite's accumulators.
    RandomDepthwise<std::int8_t, std::int8_t> rd(rng, static_cast<std::size_t>(pick(rng, 1, 3)));
    if (t % 10 == 0) {
      rd.g.in_channels = 37;
      const std::size_t k = rd.g.window.kernel_h * rd.g.window.kernel_w;
      rd.ops.fill(rng, rd.g.batch * rd.g.in_h * rd.g.in_w * 37, k * rd.g.out_channels(),
                  rd.g.out_channels(), k);
    }
    for (RoundingCore core : kAllRoundingCores) {
      const std::vector<RequantParams> params = rd.ops.params(core);
      std::vector<std::int8_t> out, want;
      const auto p = rd.problem(params, out);
      reference::depthwise_conv2d(p, core, AccumulatorSpec{});
      visit_rounding_core(
          core, [&](auto policy) { tflite_depthwise_conv_per_channel<decltype(policy)>(p, want); });
      const long d = first_difference(out, want);
      ASSERT_EQ(d, -1) << "case " << t << " core " << to_string(core) << " element " << d
                       << " multiplier " << rd.g.depth_multiplier << " "
                       << describe<std::int8_t>(rd.g.window);
    }
  }
}

// --- (c) hand-computed cases --------------------------------------------------------------------

TEST(ConvGeometry, OutputSizesAndPadding) {
  struct Case {
    std::size_t in, k, stride, dilation;
    Padding padding;
    std::size_t explicit_before, explicit_after;
    std::size_t out, before, after;
  };
  const Case cases[] = {
      // VALID: (in - ek) / stride + 1.
      {7, 3, 2, 1, Padding::kValid, 0, 0, 3, 0, 0},
      {7, 3, 1, 1, Padding::kValid, 0, 0, 5, 0, 0},
      {8, 3, 2, 1, Padding::kValid, 0, 0, 3, 0, 0},  // (8 - 3) / 2 + 1 = 3 (floor)
      {3, 3, 1, 1, Padding::kValid, 0, 0, 1, 0, 0},
      // SAME: ceil(in / stride); total = (out - 1) * stride + ek - in, before = total / 2.
      {7, 3, 1, 1, Padding::kSame, 0, 0, 7, 1, 1},
      {7, 3, 2, 1, Padding::kSame, 0, 0, 4, 1, 1},  // total 2
      {6, 3, 2, 1, Padding::kSame, 0, 0, 3, 0, 1},  // total 1: the odd pixel goes after
      {4, 3, 2, 1, Padding::kSame, 0, 0, 2, 0, 1},
      {224, 3, 2, 1, Padding::kSame, 0, 0, 112, 0, 1},  // MobileNet's stem
      {112, 3, 2, 1, Padding::kSame, 0, 0, 56, 0, 1},
      {8, 4, 1, 1, Padding::kSame, 0, 0, 8, 1, 2},  // even kernel, stride 1: total 3
      {5, 5, 1, 1, Padding::kSame, 0, 0, 5, 2, 2},
      {7, 3, 1, 2, Padding::kSame, 0, 0, 7, 2, 2},  // dilation 2: ek 5, total 4
      {7, 1, 3, 1, Padding::kSame, 0, 0, 3, 0, 0},  // stride > kernel: total = 2*3 + 1 - 7 = 0
      {2, 5, 1, 1, Padding::kSame, 0, 0, 2, 2, 2},  // kernel wider than the input
      // Dilation with VALID: ek = (3 - 1) * 2 + 1 = 5.
      {7, 3, 1, 2, Padding::kValid, 0, 0, 3, 0, 0},
      {9, 3, 2, 3, Padding::kValid, 0, 0, 2, 0, 0},  // ek 7: (9 - 7) / 2 + 1 = 2
      // Explicit: (in + before + after - ek) / stride + 1.
      {5, 3, 1, 1, Padding::kExplicit, 1, 2, 6, 1, 2},
      {5, 3, 2, 1, Padding::kExplicit, 0, 1, 2, 0, 1},
      {1, 3, 1, 1, Padding::kExplicit, 1, 1, 1, 1, 1},
  };
  for (const Case& c : cases) {
    Window2D w;
    w.kernel_h = c.k;
    w.kernel_w = 1;
    w.stride_h = c.stride;
    w.dilation_h = c.dilation;
    w.padding = c.padding;
    w.pad_top = c.explicit_before;
    w.pad_bottom = c.explicit_after;
    const std::size_t want_out = c.out;
    const ResolvedWindow r = resolve_window(w, c.in, 1);
    EXPECT_EQ(r.out_h, want_out) << "in " << c.in << " k " << c.k << " s " << c.stride << " d "
                                 << c.dilation << " " << to_string(c.padding);
    EXPECT_EQ(r.pad_top, c.before) << "in " << c.in << " k " << c.k << " " << to_string(c.padding);
    EXPECT_EQ(r.pad_bottom, c.after)
        << "in " << c.in << " k " << c.k << " " << to_string(c.padding);
    // The same axis given as the width.
    std::swap(w.kernel_h, w.kernel_w);
    std::swap(w.stride_h, w.stride_w);
    std::swap(w.dilation_h, w.dilation_w);
    std::swap(w.pad_top, w.pad_left);
    std::swap(w.pad_bottom, w.pad_right);
    const ResolvedWindow rw = resolve_window(w, 1, c.in);
    EXPECT_EQ(rw.out_w, want_out);
    EXPECT_EQ(rw.pad_left, c.before);
    EXPECT_EQ(rw.pad_right, c.after);
  }
}

/// A conv whose requantization is the identity (F32, scale 1: float(acc) * 1 is exact below 2^24)
/// and whose output is int32, so that outputs are the accumulators themselves.
template <class AType = std::int8_t>
std::vector<std::int32_t> raw_conv(const Conv2DGeometry& g, const std::vector<AType>& in,
                                   std::int32_t in_zp, const std::vector<std::int8_t>& filter) {
  const ResolvedWindow r = resolve_window(g.window, g.in_h, g.in_w);
  std::vector<std::int32_t> out(g.batch * r.out_h * r.out_w * g.out_channels, -999);
  RequantParams one;
  one.scale = 1.0f;
  Conv2DProblem<AType, std::int32_t> p;
  p.geometry = g;
  p.weights.filter = filter.data();
  p.weights.params = &one;
  p.call = ConvCall<AType, std::int32_t>{in.data(), in_zp, OutputParams{}, out.data()};
  reference::conv2d<Float32Rounding>(p);
  return out;
}

Conv2DGeometry single_channel(std::size_t h, std::size_t w, Window2D win) {
  Conv2DGeometry g;
  g.in_h = h;
  g.in_w = w;
  g.in_channels = 1;
  g.out_channels = 1;
  g.window = win;
  return g;
}

std::vector<std::int8_t> ramp(std::size_t n, int first = 0) {
  std::vector<std::int8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int8_t>(first + static_cast<int>(i));
  return v;
}

TEST(ReferenceConv2DHand, SameStride2PutsTheOddPixelBottomRight) {
  // 4x4 input 1..16, 3x3 ones, stride 2, SAME: out 2x2, total padding 1 -> top/left 0,
  // bottom/right 1. Windows: rows {0,1,2} / {2,3,(4)}, cols likewise.
  Window2D w;
  w.kernel_h = w.kernel_w = 3;
  w.stride_h = w.stride_w = 2;
  w.padding = Padding::kSame;
  const auto out =
      raw_conv(single_channel(4, 4, w), ramp(16, 1), 0, std::vector<std::int8_t>(9, 1));
  // (0,0): 1+2+3+5+6+7+9+10+11 = 54; (0,1): 3+4+7+8+11+12 = 45; (1,0): 9+10+11+13+14+15 = 72;
  // (1,1): 11+12+15+16 = 54. Padding on top/left instead would give 14 at (0,0).
  EXPECT_EQ(out, (std::vector<std::int32_t>{54, 45, 72, 54}));
}

TEST(ReferenceConv2DHand, PaddingReadsTheInputZeroPoint) {
  // Every input is zp + 1 and the filter is all ones: each output counts its in-image taps.
  // 3x3 SAME stride 1 on 3x3: corners 4, edges 6, centre 9, whatever the zero point.
  Window2D w;
  w.kernel_h = w.kernel_w = 3;
  w.padding = Padding::kSame;
  for (std::int32_t zp : {-128, -7, 0, 126}) {
    const std::vector<std::int8_t> in(9, static_cast<std::int8_t>(zp + 1));
    const auto out = raw_conv(single_channel(3, 3, w), in, zp, std::vector<std::int8_t>(9, 1));
    EXPECT_EQ(out, (std::vector<std::int32_t>{4, 6, 4, 6, 9, 6, 4, 6, 4})) << "zero point " << zp;
  }
}

TEST(ReferenceConv2DHand, Dilation) {
  // 5x5 input v(y,x) = 5y + x, 3x3 filter w(ky,kx) = 3ky + kx + 1, dilation 2, VALID: one output
  // over taps (2ky, 2kx) = 10ky + 2kx:
  //   ky=0: 0*1 + 2*2 + 4*3 = 16;  ky=1: 10*4 + 12*5 + 14*6 = 184;  ky=2: 20*7 + 22*8 + 24*9 = 532.
  Window2D w;
  w.kernel_h = w.kernel_w = 3;
  w.dilation_h = w.dilation_w = 2;
  const auto out = raw_conv(single_channel(5, 5, w), ramp(25), 0, ramp(9, 1));
  EXPECT_EQ(out, (std::vector<std::int32_t>{16 + 184 + 532}));
}

TEST(ReferenceConv2DHand, StrideLargerThanKernel) {
  // 7x7 input v = 7y + x, 1x1 filter 2, stride 3 VALID: out 3x3 = 2 * v(3oy, 3ox); pixels between
  // the strides are never read.
  Window2D w;
  w.stride_h = w.stride_w = 3;
  const auto out = raw_conv(single_channel(7, 7, w), ramp(49), 0, {2});
  std::vector<std::int32_t> want;
  for (int oy = 0; oy < 3; ++oy) {
    for (int ox = 0; ox < 3; ++ox) want.push_back(2 * (7 * 3 * oy + 3 * ox));
  }
  EXPECT_EQ(out, want);
  EXPECT_EQ(out[5], 2 * (21 + 6));  // (1, 2)
}

TEST(ReferenceConv2DHand, AsymmetricExplicitPadding) {
  // 3x3 input 1..9, pads top 2 bottom 0 left 0 right 1, 3x3 ones: out 3x2.
  Window2D w;
  w.kernel_h = w.kernel_w = 3;
  w.padding = Padding::kExplicit;
  w.pad_top = 2;
  w.pad_right = 1;
  const auto out = raw_conv(single_channel(3, 3, w), ramp(9, 1), 5, std::vector<std::int8_t>(9, 1));
  // Zero point 5: each in-image tap contributes v - 5, padding contributes 0.
  // Row 0 windows cover image row 0; row 1: rows 0-1; row 2: rows 0-2. Columns: {0,1,2} /
  // {1,2,(3)}.
  const int r0c0 = (1 + 2 + 3) - 15, r0c1 = (2 + 3) - 10;
  const int r1c0 = (1 + 2 + 3 + 4 + 5 + 6) - 30, r1c1 = (2 + 3 + 5 + 6) - 20;
  const int r2c0 = 45 - 45, r2c1 = (2 + 3 + 5 + 6 + 8 + 9) - 30;
  EXPECT_EQ(out, (std::vector<std::int32_t>{r0c0, r0c1, r1c0, r1c1, r2c0, r2c1}));
}

TEST(ReferenceConv2DHand, GroupsReadTheirOwnChannels) {
  // 1x1 input with 4 channels (1, 2, 3, 4), groups 2, 1x1 kernel, 2 outputs per group with
  // filter rows [1, 10] [100, 1000] (group 0) and [1, -1] [2, 2] (group 1).
  Conv2DGeometry g;
  g.in_h = g.in_w = 1;
  g.in_channels = 4;
  g.out_channels = 4;
  g.groups = 2;
  const auto out =
      raw_conv(g, std::vector<std::int8_t>{1, 2, 3, 4}, 0, {1, 10, 100, -100, 1, -1, 2, 2});
  EXPECT_EQ(out, (std::vector<std::int32_t>{1 + 20, 100 - 200, 3 - 4, 6 + 8}));
}

TEST(ReferenceDepthwiseHand, OutputChannelIsInputChannelTimesMultiplierPlusM) {
  // 3x3x2 input: channel 0 all 1, channel 1 all 2; multiplier 2; 3x3 VALID; filter (1HWO) with
  // output channels 0..3 = 1, -1, 2, 3 at every tap. oc = ic * 2 + m: oc 0, 1 read channel 0,
  // oc 2, 3 read channel 1.
  DepthwiseConv2DProblem<std::int8_t, std::int32_t> p;
  p.geometry.in_h = p.geometry.in_w = 3;
  p.geometry.in_channels = 2;
  p.geometry.depth_multiplier = 2;
  p.geometry.window.kernel_h = p.geometry.window.kernel_w = 3;
  std::vector<std::int8_t> in(18), filter(36);
  for (std::size_t i = 0; i < 9; ++i) {
    in[i * 2] = 1;
    in[i * 2 + 1] = 2;
    filter[i * 4 + 0] = 1;
    filter[i * 4 + 1] = -1;
    filter[i * 4 + 2] = 2;
    filter[i * 4 + 3] = 3;
  }
  std::vector<std::int32_t> out(4, -999);
  const std::int32_t bias[4] = {0, 1000, 0, -1};
  RequantParams one;
  one.scale = 1.0f;
  p.weights.filter = filter.data();
  p.weights.bias = bias;
  p.weights.params = &one;
  p.call = ConvCall<std::int8_t, std::int32_t>{in.data(), 0, OutputParams{}, out.data()};
  reference::depthwise_conv2d<Float32Rounding>(p);
  EXPECT_EQ(out, (std::vector<std::int32_t>{9, -9 + 1000, 36, 54 - 1}));
}

TEST(ReferenceConv2DHand, RequantizationAndClampApplyPerChannel) {
  // acc 10 and -10 at scale 1/4 with DR-AZ give 3 and -3 (README's table); output zero point 2,
  // clamp [0, 4]: 5 -> 4, -1 -> 0 in channels 0 and 1; channel 2 (scale 1/2) gives 5 + 2 -> 4.
  Conv2DProblem<std::int8_t, std::int8_t> p;
  p.geometry.in_h = p.geometry.in_w = 1;
  p.geometry.in_channels = 1;
  p.geometry.out_channels = 3;
  const std::vector<std::int8_t> in{10}, filter{1, -1, 1};
  std::vector<RequantParams> params(3);
  params[0].multiplier = params[1].multiplier = params[2].multiplier = 1 << 30;
  params[0].shift = params[1].shift = -1;  // 2^30 * 2^(-1-31) = 1/4
  params[2].shift = 0;                     // 1/2
  std::vector<std::int8_t> out(3, 99);
  p.weights.filter = filter.data();
  p.weights.params = params.data();
  p.weights.per_channel = true;
  p.call = ConvCall<std::int8_t, std::int8_t>{in.data(), 0, OutputParams{2, 0, 4}, out.data()};
  reference::conv2d<DoubleRoundingAwayFromZero>(p);
  EXPECT_EQ(out, (std::vector<std::int8_t>{4, 0, 4}));
  p.call.output = OutputParams{0, -128, 127};
  reference::conv2d<DoubleRoundingAwayFromZero>(p);
  EXPECT_EQ(out, (std::vector<std::int8_t>{3, -3, 5}));
}

// --- (d) bad input
// --------------------------------------------------------------------------------

/// A valid 1x5x5x4 -> 6 conv (groups 2, 3x3 SAME) to break one field at a time.
struct ValidConv {
  std::vector<std::int8_t> in = std::vector<std::int8_t>(100, 1),
                           filter = std::vector<std::int8_t>(6 * 9 * 2, 1);
  std::vector<std::int8_t> out = std::vector<std::int8_t>(150);
  std::vector<std::int32_t> zps = std::vector<std::int32_t>(6, 0);
  std::vector<RequantParams> params;
  Conv2DProblem<std::int8_t, std::int8_t> p;
  ValidConv() {
    RequantParams rp;
    rp.multiplier = 1 << 30;
    rp.shift = -3;
    params.assign(6, rp);
    p.geometry.in_h = p.geometry.in_w = 5;
    p.geometry.in_channels = 4;
    p.geometry.out_channels = 6;
    p.geometry.groups = 2;
    p.geometry.window.kernel_h = p.geometry.window.kernel_w = 3;
    p.geometry.window.padding = Padding::kSame;
    p.weights.filter = filter.data();
    p.weights.filter_zero_points = zps.data();
    p.weights.filter_zero_point_per_channel = true;
    p.weights.params = params.data();
    p.weights.per_channel = true;
    p.call = ConvCall<std::int8_t, std::int8_t>{in.data(), 0, full_range_output(OutputType::kInt8),
                                                out.data()};
  }
};

/// Runs `f`, expects InvalidArgument whose message contains every one of `words`.
template <class F>
void expect_invalid(F f, std::initializer_list<const char*> words) {
  try {
    f();
    ADD_FAILURE() << "no InvalidArgument; expected a message naming " << *words.begin();
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    for (const char* w : words)
      EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
  }
}

TEST(ReferenceConv2DBadInput, MessagesNameTheParameter) {
  {
    ValidConv v;
    reference::conv2d<DoubleRoundingAwayFromZero>(v.p);  // the unbroken problem is accepted
  }
  const auto run = [](const ValidConv& v) {
    return [&v] { reference::conv2d<DoubleRoundingAwayFromZero>(v.p); };
  };
  {
    ValidConv v;
    v.p.geometry.groups = 3;
    expect_invalid(run(v), {"groups = 3", "divisor"});
  }
  {
    ValidConv v;
    v.p.geometry.groups = 0;
    expect_invalid(run(v), {"groups"});
  }
  {
    ValidConv v;
    v.p.geometry.window.kernel_h = 0;
    expect_invalid(run(v), {"kernel_h"});
  }
  {
    ValidConv v;
    v.p.geometry.window.kernel_w = 0;
    expect_invalid(run(v), {"kernel_w"});
  }
  {
    ValidConv v;
    v.p.geometry.window.stride_w = 0;
    expect_invalid(run(v), {"stride_w"});
  }
  {
    ValidConv v;
    v.p.geometry.window.stride_h = 0;
    expect_invalid(run(v), {"stride_h"});
  }
  {
    ValidConv v;
    v.p.geometry.window.dilation_h = 0;
    expect_invalid(run(v), {"dilation_h"});
  }
  {
    ValidConv v;
    v.p.geometry.in_channels = 0;
    expect_invalid(run(v), {"in_channels"});
  }
  {
    ValidConv v;
    v.p.geometry.batch = 0;
    expect_invalid(run(v), {"batch"});
  }
  {
    ValidConv v;
    v.p.geometry.window.padding = Padding::kExplicit;
    v.p.geometry.window.pad_top = std::size_t{1} << 25;
    expect_invalid(run(v), {"pad_top"});
  }
  {
    ValidConv v;
    v.p.geometry.window.padding = Padding::kExplicit;
    v.p.geometry.window.pad_right = std::size_t{1} << 25;
    expect_invalid(run(v), {"pad_right"});
  }
  {
    // VALID with a kernel larger than the input: the message names the axis and the extents.
    ValidConv v;
    v.p.geometry.window.padding = Padding::kValid;
    v.p.geometry.window.kernel_w = 6;
    expect_invalid(run(v), {"horizontal", "effective kernel", "padded input"});
  }
  {
    ValidConv v;
    v.p.geometry.window.padding = Padding::kValid;
    v.p.geometry.window.kernel_h = 3;
    v.p.geometry.window.dilation_h = 3;  // effective 7 > 5
    expect_invalid(run(v), {"vertical", "effective kernel"});
  }
  {
    ValidConv v;
    v.p.call.input_zero_point = 128;
    expect_invalid(run(v), {"input_zero_point", "128"});
  }
  {
    ValidConv v;
    v.p.call.input_zero_point = -129;
    expect_invalid(run(v), {"input_zero_point"});
  }
  {
    ValidConv v;
    v.zps[4] = 128;
    expect_invalid(run(v), {"filter_zero_points"});
  }
  {
    ValidConv v;
    v.params[5].shift = 31;
    expect_invalid(run(v), {"shift", "params[5]"});
  }
  {
    ValidConv v;
    v.params[0].multiplier = -1;
    expect_invalid(run(v), {"multiplier", "params[0]"});
  }
  {
    ValidConv v;
    v.p.call.output.qmin = -129;
    expect_invalid(run(v), {"qmin"});
  }
  {
    ValidConv v;
    v.p.call.output = OutputParams{0, 10, 5};
    expect_invalid(run(v), {"qmax"});
  }
  {
    ValidConv v;
    v.p.call.output.zero_point = 128;
    expect_invalid(run(v), {"zero_point"});
  }
  {
    ValidConv v;
    v.p.weights.filter = nullptr;
    expect_invalid(run(v), {"filter is null"});
  }
  {
    ValidConv v;
    v.p.weights.params = nullptr;
    expect_invalid(run(v), {"params is null"});
  }
  {
    ValidConv v;
    v.p.call.input = nullptr;
    expect_invalid(run(v), {"input is null"});
  }
  {
    ValidConv v;
    v.p.call.out = nullptr;
    expect_invalid(run(v), {"out is null"});
  }
  {
    // Run-time entry: a bad accumulator model is rejected before anything runs.
    ValidConv v;
    expect_invalid(
        [&v] {
          reference::conv2d(v.p, RoundingCore::kFloor,
                            AccumulatorSpec{AccumulatorKind::kSaturating, 8});
        },
        {"bits"});
  }
  {
    // F32 reads the float scale: the Q31 parameters above carry scale 0, which F32 rejects.
    ValidConv v;
    expect_invalid([&v] { reference::conv2d(v.p, RoundingCore::kFloat32, AccumulatorSpec{}); },
                   {"scale", "params[0]"});
  }
}

TEST(ReferenceDepthwiseBadInput, MessagesNameTheParameter) {
  std::vector<std::uint8_t> in(5 * 5 * 3, 1);
  std::vector<std::int8_t> filter(9 * 6, 1);
  std::vector<std::uint8_t> out(5 * 5 * 6);
  RequantParams rp;
  rp.multiplier = 1 << 30;
  rp.shift = -3;
  DepthwiseConv2DProblem<std::uint8_t, std::uint8_t> p;
  p.geometry.in_h = p.geometry.in_w = 5;
  p.geometry.in_channels = 3;
  p.geometry.depth_multiplier = 2;
  p.geometry.window.kernel_h = p.geometry.window.kernel_w = 3;
  p.geometry.window.padding = Padding::kSame;
  p.weights.filter = filter.data();
  p.weights.params = &rp;
  p.call = ConvCall<std::uint8_t, std::uint8_t>{in.data(), 128,
                                                full_range_output(OutputType::kUint8), out.data()};
  reference::depthwise_conv2d<DoubleRoundingUpward>(p);  // valid as built
  const auto run = [&p] { reference::depthwise_conv2d<DoubleRoundingUpward>(p); };
  {
    auto q = p;
    p.geometry.depth_multiplier = 0;
    expect_invalid(run, {"depth_multiplier"});
    p = q;
  }
  {
    auto q = p;
    p.call.input_zero_point = -1;  // uint8 activations: [0, 255]
    expect_invalid(run, {"input_zero_point", "uint8"});
    p = q;
  }
  {
    auto q = p;
    p.geometry.window.stride_w = std::size_t{1} << 25;
    expect_invalid(run, {"stride_w"});
    p = q;
  }
  {
    auto q = p;
    p.call.output.qmax = 256;
    expect_invalid(run, {"qmax"});
    p = q;
  }
  {
    auto q = p;
    p.weights.filter = nullptr;
    expect_invalid(run, {"filter is null"});
    p = q;
  }
}

}  // namespace
