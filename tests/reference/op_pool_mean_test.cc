// AVERAGE_POOL_2D / MAX_POOL_2D and MEAN references (include/qparity/reference/pooling.h,
// mean.h; docs/semantics.md §21.3, §21.4): golden vectors with ties of both signs, windows partly
// outside the image, odd sizes (1, 3, 7, 17), zero points -128 / 127, and inputs that separate the
// variants.
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference/mean.h"
#include "qparity/reference/pooling.h"

namespace {

using namespace qparity;
using namespace qparity::reference;

template <class T>
std::vector<int> AsInts(const std::vector<T>& v) { return std::vector<int>(v.begin(), v.end()); }

// ------------------------------------------------------------------ AVERAGE_POOL_2D

TEST(ReferenceAveragePool, RawMeanHalfAwayFromZeroOnBothSigns) {
  // 1x1x2x4: each channel averages two values; sums 5, -5, 3, -3 (means 2.5, -2.5, 1.5, -1.5).
  const std::vector<std::int8_t> x = {2, -2, 1, -1, 3, -3, 2, -2};
  const Shape4 s{1, 1, 2, 4};
  const PoolWindow w{1, 2, 1, 1, Padding::kValid};
  const TensorQuant q{0.5f, 0};
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(x, s, w, q, q, Activation::kNone, AveragePoolVariant::kTflite)),
            (std::vector<int>{3, -3, 2, -2}));
  // Ties to even in the float32 style; the NPU hypothesis (he) too.
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(x, s, w, q, q, Activation::kNone, AveragePoolVariant::kFloat32)),
            (std::vector<int>{2, -2, 2, -2}));
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(x, s, w, q, q, Activation::kNone, AveragePoolVariant::kNpuSingleRounding)),
            (std::vector<int>{2, -2, 2, -2}));
}

TEST(ReferenceAveragePool, RoundsTheRawMeanNotTheCenteredOne) {
  // zp = 1: raw values 0 and 1 have raw mean 0.5 -> 1 (TFLite); centered mean -0.5 rounds to 0 in
  // the float32 style (RNE) -> 0 + 1 = 1, and HAZ on the centered mean would give -1 + 1 = 0.
  const std::vector<std::int8_t> x = {0, -1, 1, -2};  // channel 0: 0, 1; channel 1: -1, -2
  const Shape4 s{1, 1, 2, 2};
  const PoolWindow w{1, 2, 1, 1, Padding::kValid};
  const TensorQuant q{1.0f, 1};
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(x, s, w, q, q, Activation::kNone, AveragePoolVariant::kTflite)),
            (std::vector<int>{1, -2}));
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(x, s, w, q, q, Activation::kNone,
                                             AveragePoolVariant::kNpuSingleRounding, {TieRule::kHalfAwayFromZero, NpuMultiplierPrecision::kQ31})),
            (std::vector<int>{0, -2}));
}

TEST(ReferenceAveragePool, SamePaddingCountsOnlyInImageTaps) {
  // 1x3x3x1 values 1..9, 3x3 window, stride 1, SAME: corners average 4 taps, edges 6, centre 9.
  std::vector<std::int8_t> x(9);
  std::iota(x.begin(), x.end(), 1);
  const Shape4 s{1, 3, 3, 1};
  const PoolWindow w{3, 3, 1, 1, Padding::kSame};
  const TensorQuant q{1.0f, 0};
  // (1+2+4+5)/4 = 3, (1+2+3+4+5+6)/6 = 3.5 -> 4, (2+3+5+6)/4 = 4, (1+2+4+5+7+8)/6 = 4.5 -> 5, 45/9 = 5,
  // (2+3+5+6+8+9)/6 = 5.5 -> 6, (4+5+7+8)/4 = 6, (4+..+9)/6 = 6.5 -> 7, (5+6+8+9)/4 = 7.
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(x, s, w, q, q, Activation::kNone, AveragePoolVariant::kTflite)),
            (std::vector<int>{3, 4, 4, 5, 5, 6, 6, 7, 7}));
  EXPECT_EQ(pool_output_shape(Shape4{1, 7, 7, 3}, PoolWindow{3, 3, 2, 2, Padding::kSame}).h, 4u);
  EXPECT_EQ(pool_output_shape(Shape4{1, 17, 17, 5}, PoolWindow{5, 5, 3, 3, Padding::kValid}).w, 5u);
}

TEST(ReferenceAveragePool, ExtremeZeroPointsAndActivation) {
  // zp -128, every value -128: mean -128; RELU keeps it (bound = zp).
  const std::vector<std::int8_t> lo(7 * 7, -128), hi(7 * 7, 127);
  const Shape4 s{1, 7, 7, 1};
  const PoolWindow w{7, 7, 1, 1, Padding::kValid};
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(lo, s, w, {0.25f, -128}, {0.25f, -128}, Activation::kRelu,
                                             AveragePoolVariant::kTflite)), (std::vector<int>{-128}));
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(hi, s, w, {0.25f, 127}, {0.25f, 127}, Activation::kNone,
                                             AveragePoolVariant::kTflite)), (std::vector<int>{127}));
  // RELU6 at scale 4, zp 1: TFLite's bound is 1 + round_half_away(1.5) = 3.
  const std::vector<std::int8_t> big = {100, 100};
  EXPECT_EQ(AsInts(average_pool<std::int8_t>(big, Shape4{1, 1, 2, 1}, PoolWindow{1, 2, 1, 1, Padding::kValid},
                                             {4.0f, 1}, {4.0f, 1}, Activation::kRelu6, AveragePoolVariant::kTflite)),
            (std::vector<int>{3}));
  // uint8 zp 255 and 0.
  const std::vector<std::uint8_t> u = {254, 255, 0, 1};
  EXPECT_EQ(AsInts(average_pool<std::uint8_t>(u, Shape4{1, 1, 2, 2}, PoolWindow{1, 2, 1, 1, Padding::kValid},
                                              {1.0f, 255}, {1.0f, 255}, Activation::kNone, AveragePoolVariant::kTflite)),
            (std::vector<int>{127, 128}));
}

TEST(ReferenceAveragePool, RejectsBadInput) {
  const std::vector<std::int8_t> x(4);
  EXPECT_THROW(average_pool<std::int8_t>(x, Shape4{1, 2, 2, 2}, PoolWindow{}, {1, 0}, {1, 0}, Activation::kNone,
                                         AveragePoolVariant::kTflite), InvalidArgument);
  EXPECT_THROW(average_pool<std::int8_t>(x, Shape4{1, 2, 2, 1}, PoolWindow{3, 3, 1, 1, Padding::kValid}, {1, 0}, {1, 0},
                                         Activation::kNone, AveragePoolVariant::kTflite), InvalidArgument);
}

TEST(ReferenceAveragePool, OddSizesAgainstAnIndependentLoop) {
  // Sizes 1, 3, 7, 17 with 3x3 / 5x5 windows, strides 1 and 2, SAME and VALID, zero points -128 and
  // 127: every output equals the exact raw mean over in-image taps rounded half away from zero
  // (computed here with a rational comparison, not the reference's C division).
  long ties = 0;
  for (std::size_t n : {1u, 3u, 7u, 17u}) {
    for (std::size_t k : {1u, 3u, 5u}) {
      for (std::size_t stride : {1u, 2u}) {
        for (Padding pad : {Padding::kSame, Padding::kValid}) {
          if (pad == Padding::kValid && k > n) continue;
          for (std::int32_t zp : {-128, 127}) {
            SCOPED_TRACE(std::to_string(n) + " k" + std::to_string(k) + " s" + std::to_string(stride) + " zp" +
                         std::to_string(zp));
            const Shape4 s{1, n, n, 2};
            std::vector<std::int8_t> x(s.size());
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(static_cast<int>((i * 91 + (i / 5) * 13 + 7) % 256) - 128);
            const PoolWindow w{k, k, stride, stride, pad};
            const auto y = average_pool<std::int8_t>(x, s, w, {0.5f, zp}, {0.5f, zp}, Activation::kNone, AveragePoolVariant::kTflite);
            const Shape4 o = pool_output_shape(s, w);
            ASSERT_EQ(y.size(), o.size());
            const std::size_t total_h = (o.h - 1) * stride + k > n ? (o.h - 1) * stride + k - n : 0;
            const std::int64_t top = pad == Padding::kSame ? static_cast<std::int64_t>(total_h / 2) : 0;
            for (std::size_t oy = 0; oy < o.h; ++oy)
              for (std::size_t ox = 0; ox < o.w; ++ox)
                for (std::size_t c = 0; c < 2; ++c) {
                  long sum = 0, cnt = 0;
                  for (std::int64_t dy = 0; dy < static_cast<std::int64_t>(k); ++dy)
                    for (std::int64_t dx = 0; dx < static_cast<std::int64_t>(k); ++dx) {
                      const std::int64_t iy = static_cast<std::int64_t>(oy * stride) - top + dy;
                      const std::int64_t ix = static_cast<std::int64_t>(ox * stride) - top + dx;
                      if (iy < 0 || ix < 0 || iy >= static_cast<std::int64_t>(n) || ix >= static_cast<std::int64_t>(n)) continue;
                      sum += x[(static_cast<std::size_t>(iy) * n + static_cast<std::size_t>(ix)) * 2 + c];
                      ++cnt;
                    }
                  // q = round_half_away(sum / cnt): the integer q with |2*sum - 2*q*cnt| <= cnt,
                  // ties (== cnt) resolved away from zero.
                  long q = sum / cnt;
                  for (long cand = q - 1; cand <= q + 1; ++cand) {
                    const long d = 2 * sum - 2 * cand * cnt;
                    if (d < cnt && d > -cnt) q = cand;
                    // d == -cnt: the mean is cand - 1/2 (away from zero is cand when positive);
                    // d == cnt: the mean is cand + 1/2 (cand when negative).
                    if (d == -cnt && sum > 0) q = cand;
                    if (d == cnt && sum < 0) q = cand;
                    if ((d == cnt || d == -cnt) && cand == q) ++ties;
                  }
                  EXPECT_EQ(y[(oy * o.w + ox) * 2 + c], q);
                }
          }
        }
      }
    }
  }
  EXPECT_GT(ties, 20);  // the data does reach exact ties of both signs
}

// ------------------------------------------------------------------ MAX_POOL_2D

TEST(ReferenceMaxPool, PaddingNeverWinsAndClampBoundsDiffer) {
  // All-negative image, SAME padding: the maximum is over in-image taps only (padding is not 0).
  const std::vector<std::int8_t> x = {-5, -7, -9, -3};
  const Shape4 s{1, 2, 2, 1};
  const PoolWindow w{3, 3, 2, 2, Padding::kSame};
  EXPECT_EQ(AsInts(max_pool<std::int8_t>(x, s, w, {1.0f, 0}, Activation::kNone, MaxPoolVariant::kTflite)),
            (std::vector<int>{-3}));
  // RELU6 at scale 4, zp 1: 6 / 4 = 1.5. TFLite's bound 1 + 2 = 3, XNNPACK's RNE(2.5) = 2.
  const std::vector<std::int8_t> y = {10, 10, 10, 10};
  EXPECT_EQ(AsInts(max_pool<std::int8_t>(y, s, w, {4.0f, 1}, Activation::kRelu6, MaxPoolVariant::kTflite)),
            (std::vector<int>{3}));
  EXPECT_EQ(AsInts(max_pool<std::int8_t>(y, s, w, {4.0f, 1}, Activation::kRelu6, MaxPoolVariant::kXnnpack)),
            (std::vector<int>{2}));
  // zp -128 with RELU: bound -128, nothing changes; zp 127 with RELU: everything becomes 127.
  EXPECT_EQ(AsInts(max_pool<std::int8_t>(x, s, w, {1.0f, -128}, Activation::kRelu, MaxPoolVariant::kTflite)),
            (std::vector<int>{-3}));
  EXPECT_EQ(AsInts(max_pool<std::int8_t>(x, s, w, {1.0f, 127}, Activation::kRelu, MaxPoolVariant::kXnnpack)),
            (std::vector<int>{127}));
}

// ------------------------------------------------------------------ MEAN

std::vector<std::size_t> Hw(std::size_t h, std::size_t w, std::size_t c) { return {1, h, w, c}; }

TEST(ReferenceMean, TiesOfBothSignsPerVariant) {
  // 1x1x2x4 over H, W (n = 2), same scale 1 and zp 0: sums 5, -5, 3, -3.
  const std::vector<std::int8_t> x = {2, -2, 1, -1, 3, -3, 2, -2};
  const std::vector<std::size_t> d = {1, 1, 2, 4};
  const MeanSpec hw{{1, 2}, true};
  const TensorQuant q{1.0f, 0};
  auto run = [&](MeanVariant v, TfliteBuild b = TfliteBuild::kDoubleRounding) {
    return AsInts(mean<std::int8_t>(x, d, hw, q, q, v, b));
  };
  // Optimized: real = 0.5 -> (2^30, 0): SRDHM alone, half up.
  EXPECT_EQ(run(MeanVariant::kTfliteOptimizedHW), (std::vector<int>{3, -2, 2, -1}));
  // Reference: M = 2^30, shift 1, k = 1: M' = 2^30, shift 0: half up too.
  EXPECT_EQ(run(MeanVariant::kTfliteReference), (std::vector<int>{3, -2, 2, -1}));
  // TFLM: multiplier 1 exact, then the C division rounds half away from zero.
  EXPECT_EQ(run(MeanVariant::kTflmHW), (std::vector<int>{3, -3, 2, -2}));
  EXPECT_EQ(run(MeanVariant::kTflmSameQuantTruncate), (std::vector<int>{2, -2, 1, -1}));
  EXPECT_EQ(run(MeanVariant::kXnnpack), (std::vector<int>{2, -2, 2, -2}));
  EXPECT_EQ(run(MeanVariant::kNpuSingleRounding), (std::vector<int>{2, -2, 2, -2}));
  EXPECT_EQ(run(MeanVariant::kFloat32), (std::vector<int>{2, -2, 2, -2}));
}

TEST(ReferenceMean, OptimizedFloatBiasDiffersFromReference) {
  // in (0.25, zp 1) -> out (0.1, zp 3), 1x7x7x1: the optimized kernel rounds the zero-point term
  // on its own in float (t = 1 * 0.25 / 0.1 = 2.5 -> 3, bias = 3 - 3 = 0) and rescales the raw sum;
  // the reference rescales the centered sum exactly.
  std::vector<std::int8_t> x(49, -43);
  x[0] = 106;  // raw sum -1958, centered -2007; real mean * 2.5 = -102.398
  const std::vector<std::size_t> d = Hw(7, 7, 1);
  const MeanSpec hw{{1, 2}, true};
  const TensorQuant in{0.25f, 1}, out{0.1f, 3};
  EXPECT_EQ(AsInts(mean<std::int8_t>(x, d, hw, in, out, MeanVariant::kTfliteReference)), (std::vector<int>{-99}));
  EXPECT_EQ(AsInts(mean<std::int8_t>(x, d, hw, in, out, MeanVariant::kXnnpack)), (std::vector<int>{-99}));
  EXPECT_EQ(AsInts(mean<std::int8_t>(x, d, hw, in, out, MeanVariant::kTfliteOptimizedHW)), (std::vector<int>{-100}));
}

TEST(ReferenceMean, OddSizesAndGeneralAxes) {
  for (std::size_t n : {1u, 3u, 7u, 17u}) {
    SCOPED_TRACE(n);
    std::vector<std::int8_t> x(n * n * 3);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>((i * 37) % 256 - 128);
    const auto y = mean<std::int8_t>(x, Hw(n, n, 3), MeanSpec{{1, 2}, true}, {0.5f, -128}, {0.5f, -128},
                                     MeanVariant::kTfliteReference);
    ASSERT_EQ(y.size(), 3u);
    // Same quantization: the reference is the raw mean rounded once (M' * 2^(e'-31) = 1/n^...).
    for (std::size_t c = 0; c < 3; ++c) {
      long sum = 0;
      for (std::size_t k = 0; k < n * n; ++k) sum += x[k * 3 + c];
      const double m = static_cast<double>(sum) / static_cast<double>(n * n);
      EXPECT_NEAR(y[c], m, 0.5 + 1e-6);
    }
  }
  // General axes: [2, 3] over axis 1 without keep_dims -> [2].
  const std::vector<std::int8_t> x = {1, 2, 4, -1, -2, -5};
  const auto y = mean<std::int8_t>(x, {2, 3}, MeanSpec{{-1}, false}, {1.0f, 0}, {1.0f, 0}, MeanVariant::kTfliteReference);
  EXPECT_EQ(AsInts(y), (std::vector<int>{2, -3}));  // 7/3 = 2.33, -8/3 = -2.67
  EXPECT_EQ(AsInts(mean<std::int8_t>(x, {2, 3}, MeanSpec{{1}, false}, {1.0f, 0}, {1.0f, 0}, MeanVariant::kTflmSameQuantTruncate)),
            (std::vector<int>{2, -2}));
  EXPECT_THROW(mean<std::int8_t>(x, {2, 3}, MeanSpec{{1}, false}, {1.0f, 0}, {1.0f, 0}, MeanVariant::kTfliteOptimizedHW),
               InvalidArgument);
  EXPECT_THROW(mean<std::int8_t>(x, {2, 3}, MeanSpec{{2}, false}, {1.0f, 0}, {1.0f, 0}, MeanVariant::kTfliteReference),
               InvalidArgument);
}

TEST(ReferenceMean, NeonBlocksRoundNegativeTiesUp) {
  // 16 channels: the NEON variant's first 16 use DR-UP. Quarter scale (n = 4, same quantization):
  // raw sums -10 (mean -2.5) in every channel; scalar DR-AZ gives -3, DR-UP -2.
  const std::vector<std::int8_t> x = [] {
    std::vector<std::int8_t> v(4 * 17);
    for (std::size_t p = 0; p < 4; ++p)
      for (std::size_t c = 0; c < 17; ++c) v[p * 17 + c] = static_cast<std::int8_t>(p < 2 ? -2 : -3);
    return v;
  }();
  const auto neon = mean<std::int8_t>(x, Hw(2, 2, 17), MeanSpec{{1, 2}, true}, {1.0f, 0}, {1.0f, 0},
                                      MeanVariant::kTfliteOptimizedHWNeon);
  const auto scalar = mean<std::int8_t>(x, Hw(2, 2, 17), MeanSpec{{1, 2}, true}, {1.0f, 0}, {1.0f, 0},
                                        MeanVariant::kTfliteOptimizedHW);
  EXPECT_EQ(neon[0], -2);
  EXPECT_EQ(neon[15], -2);
  EXPECT_EQ(neon[16], -3);  // the 17th channel is a scalar leftover
  EXPECT_EQ(scalar[0], -3);
}

}  // namespace
