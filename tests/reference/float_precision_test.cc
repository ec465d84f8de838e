// The float precisions (include/qparity/float_precision.h, docs/semantics.md §24) against an
// independent model: every operation computed exactly in double and rounded once to the target
// format by a rounding written here from the formats' definitions (frexp / ldexp / nearbyint,
// not float_formats.h), in the stated order (taps in OHWI / HW / depth order, padding skipped, bias
// last, clamp, store). Bit for bit, for conv2d (grouped, strided, dilated, SAME), depthwise (depth
// multiplier 2) and fully connected, at three magnitudes: ordinary values, values whose float16
// products overflow, and values whose float16 products are subnormal. fp32 is also checked against
// a plain float loop in the same order (this test is compiled with -ffp-contract=off like the
// library). Softmax likewise, its exp being std::exp(float) in both (the one step that is not an
// IEEE operation), and fp32 softmax against TFLite's float reference loop restated.
#include "qparity/float_precision.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using qparity::Conv2DGeometry;
using qparity::DepthwiseConv2DGeometry;
using qparity::FloatClamp;
using qparity::FloatFormat;
using qparity::FloatPrecision;
using qparity::Padding;

// A binary format: p significand bits (implicit bit included), the smallest normal exponent and
// the largest finite value.
struct Format {
  int p;
  int emin;
  double max;
};

Format format_of(FloatFormat f) {
  switch (f) {
    case FloatFormat::kFloat32: return {24, -126, std::ldexp(2.0 - std::ldexp(1.0, -23), 127)};
    case FloatFormat::kFloat16: return {11, -14, 65504.0};
    case FloatFormat::kBfloat16: return {8, -126, std::ldexp(2.0 - std::ldexp(1.0, -7), 127)};
  }
  return {24, -126, 0};
}

// x (exact in double) rounded to nearest, ties to even, in format f: the quantum is 2^(e - p + 1)
// for x in [2^e, 2^(e+1)), at least 2^(emin - p + 1) (gradual underflow); past the largest finite
// value after rounding, infinity.
double round_exact(double x, FloatFormat f) {
  if (x == 0 || std::isinf(x) || std::isnan(x)) return x;
  const Format fmt = format_of(f);
  int k = 0;
  std::frexp(x, &k);  // |x| in [2^(k-1), 2^k)
  const int e = std::max(k - 1, fmt.emin);
  const int quantum = e - fmt.p + 1;
  const double r = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);  // FE_TONEAREST
  if (std::fabs(r) > fmt.max) return std::copysign(INFINITY, x);
  return r;
}

// The stated order with exact double steps and one rounding each.
struct Model {
  FloatFormat storage, acc;
  double sum = 0;
  void add(double x, double w) {
    const double product = round_exact(x * w, acc);  // exact product of two stored values
    sum = round_exact(sum + product, acc);           // see below for why the double sum suffices
  }
  float finish(double bias, const FloatClamp& c) const {
    const double s = round_exact(sum + bias, acc);
    return static_cast<float>(round_exact(std::min(std::max(s, double{c.min}), double{c.max}), storage));
  }
};
// The double sum of two float32 values may itself be rounded (their exponents can be more than 29
// apart), but 53 >= 2 * 24 + 2, so rounding it again to float32 gives the correctly rounded sum
// (Figueroa 1995); two float16 values always sum exactly in double.

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

std::vector<float> random_values(std::mt19937& rng, std::size_t n, float scale) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng) * scale;
  return v;
}

std::vector<float> stored(const std::vector<float>& v, FloatFormat f) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(round_exact(v[i], f));
  return out;
}

struct Magnitude {
  const char* name;
  float input, weight;
};
// ordinary; float16 products beyond 65504 (infinity in fp16-acc16); products below 2^-14
// (float16 subnormals).
const Magnitude kMagnitudes[] = {{"ordinary", 4.0f, 1.0f}, {"overflow", 400.0f, 300.0f}, {"subnormal", 0.02f, 0.004f}};

void expect_same(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    ASSERT_EQ(bits(got[i]), bits(want[i])) << what << " element " << i << ": " << got[i] << " vs " << want[i];
  }
}

// The independent conv2d (grouped OHWI) in the stated order.
std::vector<float> model_conv2d(const Conv2DGeometry& g, const qparity::ResolvedWindow& r, const FloatPrecision& p,
                                const std::vector<float>& input, const std::vector<float>& filter,
                                const std::vector<float>& bias, const FloatClamp& c) {
  const std::vector<float> in = stored(input, p.storage), w = stored(filter, p.storage), b = stored(bias, p.storage);
  const std::size_t icg = g.in_channels / g.groups, ocg = g.out_channels / g.groups;
  const std::size_t kh = g.window.kernel_h, kw = g.window.kernel_w;
  std::vector<float> out;
  for (std::size_t n = 0; n < g.batch; ++n)
    for (std::size_t oy = 0; oy < r.out_h; ++oy)
      for (std::size_t ox = 0; ox < r.out_w; ++ox)
        for (std::size_t oc = 0; oc < g.out_channels; ++oc) {
          Model m{p.storage, p.accumulator};
          for (std::size_t ky = 0; ky < kh; ++ky)
            for (std::size_t kx = 0; kx < kw; ++kx) {
              const long iy = static_cast<long>(oy * g.window.stride_h + ky * g.window.dilation_h) -
                              static_cast<long>(r.pad_top);
              const long ix = static_cast<long>(ox * g.window.stride_w + kx * g.window.dilation_w) -
                              static_cast<long>(r.pad_left);
              if (iy < 0 || ix < 0 || iy >= static_cast<long>(g.in_h) || ix >= static_cast<long>(g.in_w)) continue;
              for (std::size_t ic = 0; ic < icg; ++ic) {
                const std::size_t c_in = (oc / ocg) * icg + ic;
                m.add(in[((n * g.in_h + static_cast<std::size_t>(iy)) * g.in_w + static_cast<std::size_t>(ix)) *
                             g.in_channels + c_in],
                      w[((oc * kh + ky) * kw + kx) * icg + ic]);
              }
            }
          out.push_back(m.finish(b[oc], c));
        }
  return out;
}

TEST(FloatPrecision, ListAndLookup) {
  ASSERT_EQ(qparity::float_precisions().size(), 4u);
  EXPECT_EQ(qparity::float_precision_names(), "fp32, fp16, fp16-acc16, bf16");
  const FloatPrecision* p = qparity::find_float_precision("fp16-acc16");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->storage, FloatFormat::kFloat16);
  EXPECT_EQ(p->accumulator, FloatFormat::kFloat16);
  EXPECT_EQ(qparity::find_float_precision("bf16")->accumulator, FloatFormat::kFloat32);
  EXPECT_EQ(qparity::find_float_precision("fp8"), nullptr);
}

TEST(FloatPrecision, RoundingMatchesTheIndependentRounding) {
  // The stores: round_to against round_exact on values across every binade of both formats.
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t b = any(rng);
    if ((b & 0x7F800000u) == 0x7F800000u) continue;  // inf / NaN: float_formats_test covers them
    float f;
    std::memcpy(&f, &b, sizeof f);
    for (FloatFormat fmt : {FloatFormat::kFloat16, FloatFormat::kBfloat16}) {
      ASSERT_EQ(bits(qparity::round_to(fmt, f)), bits(static_cast<float>(round_exact(f, fmt)))) << f;
    }
  }
}

TEST(FloatPrecision, Conv2DMatchesTheExactModel) {
  Conv2DGeometry g;
  g.batch = 2;
  g.in_h = 7;
  g.in_w = 6;
  g.in_channels = 6;
  g.out_channels = 4;
  g.groups = 2;
  g.window.kernel_h = 3;
  g.window.kernel_w = 2;
  g.window.stride_h = 2;
  g.window.dilation_w = 2;
  g.window.padding = Padding::kSame;
  const qparity::ResolvedWindow r = qparity::validate(g);
  const std::size_t k = 3 * 2 * 3;
  std::mt19937 rng(11);
  std::size_t differing = 0;
  for (const Magnitude& mag : kMagnitudes) {
    const std::vector<float> input = random_values(rng, 2 * 7 * 6 * 6, mag.input);
    const std::vector<float> filter = random_values(rng, 4 * k, mag.weight);
    const std::vector<float> bias = random_values(rng, 4, mag.input * mag.weight);
    for (const FloatClamp clamp : {FloatClamp{}, FloatClamp{0.0f, 6.0f}}) {
      std::vector<float> fp32_out;
      for (const FloatPrecision& p : qparity::float_precisions()) {
        std::vector<float> out(2 * r.out_h * r.out_w * 4);
        qparity::reference::float_conv2d(g, p, input.data(), filter.data(), bias.data(), clamp, out.data());
        expect_same(out, model_conv2d(g, r, p, input, filter, bias, clamp), p.name + " conv2d " + mag.name);
        if (p.name == "fp32") fp32_out = out;
        for (std::size_t i = 0; i < out.size(); ++i) differing += bits(out[i]) != bits(fp32_out[i]);
      }
    }
  }
  EXPECT_GT(differing, 0u);  // the precisions are not all the same arithmetic on these values
}

TEST(FloatPrecision, DepthwiseMatchesTheExactModel) {
  DepthwiseConv2DGeometry g;
  g.batch = 1;
  g.in_h = 5;
  g.in_w = 6;
  g.in_channels = 3;
  g.depth_multiplier = 2;
  g.window.kernel_h = 3;
  g.window.kernel_w = 3;
  g.window.stride_w = 2;
  g.window.padding = Padding::kSame;
  const qparity::ResolvedWindow r = qparity::validate(g);
  const std::size_t oc = 6;
  std::mt19937 rng(12);
  for (const Magnitude& mag : kMagnitudes) {
    const std::vector<float> input = random_values(rng, 5 * 6 * 3, mag.input);
    const std::vector<float> filter = random_values(rng, 9 * oc, mag.weight);
    for (const FloatPrecision& p : qparity::float_precisions()) {
      std::vector<float> out(r.out_h * r.out_w * oc);
      qparity::reference::float_depthwise_conv2d(g, p, input.data(), filter.data(), nullptr, FloatClamp{}, out.data());
      const std::vector<float> in = stored(input, p.storage), w = stored(filter, p.storage);
      std::vector<float> want;
      for (std::size_t oy = 0; oy < r.out_h; ++oy)
        for (std::size_t ox = 0; ox < r.out_w; ++ox)
          for (std::size_t c = 0; c < oc; ++c) {
            Model m{p.storage, p.accumulator};
            for (std::size_t ky = 0; ky < 3; ++ky)
              for (std::size_t kx = 0; kx < 3; ++kx) {
                const long iy = static_cast<long>(oy + ky) - static_cast<long>(r.pad_top);
                const long ix = static_cast<long>(ox * 2 + kx) - static_cast<long>(r.pad_left);
                if (iy < 0 || ix < 0 || iy >= 5 || ix >= 6) continue;
                m.add(in[(static_cast<std::size_t>(iy) * 6 + static_cast<std::size_t>(ix)) * 3 + c / 2],
                      w[(ky * 3 + kx) * oc + c]);
              }
            want.push_back(m.finish(0.0, FloatClamp{}));
          }
      expect_same(out, want, p.name + " depthwise " + mag.name);
    }
  }
}

TEST(FloatPrecision, FullyConnectedMatchesTheExactModelAndFp32IsAPlainFloatLoop) {
  const std::size_t batch = 3, depth = 300, out_depth = 5;
  std::mt19937 rng(13);
  for (const Magnitude& mag : kMagnitudes) {
    const std::vector<float> input = random_values(rng, batch * depth, mag.input);
    const std::vector<float> filter = random_values(rng, out_depth * depth, mag.weight);
    const std::vector<float> bias = random_values(rng, out_depth, mag.input);
    const FloatClamp relu{0.0f, INFINITY};
    for (const FloatPrecision& p : qparity::float_precisions()) {
      std::vector<float> out(batch * out_depth);
      qparity::reference::float_fully_connected(batch, depth, out_depth, p, input.data(), filter.data(), bias.data(),
                                                relu, out.data());
      const std::vector<float> in = stored(input, p.storage), w = stored(filter, p.storage), b = stored(bias, p.storage);
      std::vector<float> want, plain;
      for (std::size_t n = 0; n < batch; ++n)
        for (std::size_t o = 0; o < out_depth; ++o) {
          Model m{p.storage, p.accumulator};
          float acc = 0.0f;  // what a float32 loop computes, product and sum each rounded
          for (std::size_t i = 0; i < depth; ++i) {
            m.add(in[n * depth + i], w[o * depth + i]);
            acc += input[n * depth + i] * filter[o * depth + i];
          }
          want.push_back(m.finish(b[o], relu));
          plain.push_back(std::min(std::max(acc + bias[o], 0.0f), INFINITY));
        }
      expect_same(out, want, p.name + " fully_connected " + mag.name);
      if (p.name == "fp32") expect_same(out, plain, std::string("fp32 vs the plain float loop, ") + mag.name);
    }
  }
}

TEST(FloatPrecision, Fp16Acc16DiffersFromFp16OnALongSum) {
  // 2048 products of 1 * 1: float16 sums stop at 2048 (2048 + 1 ties to even, 2048), float32
  // sums reach the exact 2049 when one more is added; stored in float16, 2049 ties to 2048 too,
  // so the sum is taken to 3000 terms: fp16-acc16 stays at 2048, fp16 stores 3000.
  const std::size_t depth = 3000;
  const std::vector<float> ones(depth, 1.0f);
  float acc16 = 0, acc32 = 0;
  qparity::reference::float_fully_connected(1, depth, 1, *qparity::find_float_precision("fp16-acc16"), ones.data(),
                                            ones.data(), nullptr, FloatClamp{}, &acc16);
  qparity::reference::float_fully_connected(1, depth, 1, *qparity::find_float_precision("fp16"), ones.data(),
                                            ones.data(), nullptr, FloatClamp{}, &acc32);
  EXPECT_EQ(acc16, 2048.0f);
  EXPECT_EQ(acc32, 3000.0f);
}

// SOFTMAX's stated steps, each in double and rounded once: t = float32(float32(x - m) * beta),
// e = round_acc(expf(t)), s = round_acc(s + e) in index order, y = round_storage(round_acc(e / s)).
// A double quotient of two float32 values rounded again to float32 is correctly rounded
// (53 >= 2 * 24 + 2), as for the sums.
std::vector<float> model_softmax(std::size_t rows, std::size_t depth, double beta, const FloatPrecision& p,
                                 const std::vector<float>& input) {
  const std::vector<float> in = stored(input, p.storage);
  std::vector<float> out;
  for (std::size_t r = 0; r < rows; ++r) {
    double m = -INFINITY;
    for (std::size_t j = 0; j < depth; ++j) m = std::max(m, double{in[r * depth + j]});
    std::vector<double> e(depth);
    double s = 0;
    for (std::size_t j = 0; j < depth; ++j) {
      const double d = round_exact(in[r * depth + j] - m, FloatFormat::kFloat32);
      const double t = round_exact(d * beta, FloatFormat::kFloat32);
      e[j] = round_exact(std::exp(static_cast<float>(t)), p.accumulator);
      s = round_exact(s + e[j], p.accumulator);
    }
    for (std::size_t j = 0; j < depth; ++j) {
      out.push_back(static_cast<float>(round_exact(round_exact(e[j] / s, p.accumulator), p.storage)));
    }
  }
  return out;
}

TEST(FloatPrecision, SoftmaxMatchesTheExactModelAndFp32IsTfliteReferenceLoop) {
  std::mt19937 rng(17);
  struct Case {
    const char* name;
    std::size_t rows, depth;
    float spread, beta;
  };
  // Logits of a classifier; a wide spread (exps below float16's normal range); beta 0.5; one long
  // row (1000 classes: the binary16 sum loses the small terms).
  const Case cases[] = {{"ordinary", 4, 10, 6.0f, 1.0f},
                        {"wide spread", 3, 16, 40.0f, 1.0f},
                        {"beta 0.5", 2, 12, 8.0f, 0.5f},
                        {"1000 classes", 1, 1000, 5.0f, 1.0f}};
  for (const Case& c : cases) {
    const std::vector<float> input = random_values(rng, c.rows * c.depth, c.spread);
    std::vector<float> fp32;
    for (const FloatPrecision& p : qparity::float_precisions()) {
      std::vector<float> out(input.size());
      qparity::reference::float_softmax(c.rows, c.depth, c.beta, p, input.data(), out.data());
      expect_same(out, model_softmax(c.rows, c.depth, c.beta, p, input), p.name + " softmax " + c.name);
      if (p.name == "fp32") {
        // reference_ops::Softmax (tflite/kernels/internal/reference/softmax.h), float.
        std::vector<float> plain(input.size());
        for (std::size_t r = 0; r < c.rows; ++r) {
          const float* x = input.data() + r * c.depth;
          float* y = plain.data() + r * c.depth;
          float max = std::numeric_limits<float>::lowest();
          for (std::size_t j = 0; j < c.depth; ++j) max = std::max(max, x[j]);
          float sum = 0.f;
          for (std::size_t j = 0; j < c.depth; ++j) {
            y[j] = std::exp((x[j] - max) * c.beta);
            sum += y[j];
          }
          for (std::size_t j = 0; j < c.depth; ++j) y[j] = y[j] / sum;
        }
        expect_same(out, plain, std::string("fp32 softmax vs TFLite's loop, ") + c.name);
        fp32 = out;
      } else {
        EXPECT_NE(out, fp32) << p.name << " softmax " << c.name << " computes like fp32";
      }
    }
  }
}

}  // namespace
