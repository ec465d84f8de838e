// SOFTMAX reference (include/qparity/reference/softmax.h; docs/semantics.md §21.5): golden vectors
// for the float-table kernel of TFLite's optimized SOFTMAX and the float32 style, including the
// saturation of a certain class (p = 1 is 256 / 256: one above the int8 / uint8 range).
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference/softmax.h"

namespace {

using namespace qparity;
using namespace qparity::reference;

template <class T>
std::vector<int> AsInts(const std::vector<T>& v) { return std::vector<int>(v.begin(), v.end()); }

const TensorQuant kOutI8{1.0f / 256, -128}, kOutU8{1.0f / 256, 0};

TEST(ReferenceSoftmax, CertainClassSaturatesAndEqualValuesSplitExactly) {
  for (SoftmaxVariant v : {SoftmaxVariant::kTfliteOptimizedFloatTable, SoftmaxVariant::kFloat32}) {
    SCOPED_TRACE(static_cast<int>(v));
    // One element per row: p = 1 -> 256 + zp saturates to 127 / 255.
    EXPECT_EQ(AsInts(softmax<std::int8_t, std::int8_t>({5, -128, 127}, 1, {0.1f, 0}, kOutI8, 1.0f, v)),
              (std::vector<int>{127, 127, 127}));
    EXPECT_EQ(AsInts(softmax<std::uint8_t, std::uint8_t>({0, 255}, 1, {0.1f, 128}, kOutU8, 1.0f, v)),
              (std::vector<int>{255, 255}));
    // Two and four equal values: 128 and 64 exactly.
    EXPECT_EQ(AsInts(softmax<std::int8_t, std::int8_t>({3, 3, -7, -7, -7, -7}, 2, {0.25f, 0}, kOutI8, 1.0f, v)),
              (std::vector<int>{0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(AsInts(softmax<std::uint8_t, std::uint8_t>({9, 9, 9, 9}, 4, {0.25f, 0}, kOutU8, 1.0f, v)),
              (std::vector<int>{64, 64, 64, 64}));
  }
}

TEST(ReferenceSoftmax, TableValuesAndRounding) {
  // s_in = 1/16, beta = 1: x = {0, -16} differ by 1.0 in real units: p = 1 / (1 + e^-1) = 0.7311 ->
  // 187.16 -> 187, and 0.2689 -> 68.84 -> 69; int8 subtracts 128.
  EXPECT_EQ(AsInts(softmax<std::int8_t, std::int8_t>({0, -16}, 2, {0.0625f, 0}, kOutI8, 1.0f,
                                                     SoftmaxVariant::kTfliteOptimizedFloatTable)),
            (std::vector<int>{59, -59}));
  // beta = 0.5 halves the difference: 1 / (1 + e^-0.5) = 0.6225 -> 159.36 -> 159; 96.64 -> 97.
  EXPECT_EQ(AsInts(softmax<std::uint8_t, std::uint8_t>({16, 0}, 2, {0.0625f, 0}, kOutU8, 0.5f,
                                                       SoftmaxVariant::kTfliteOptimizedFloatTable)),
            (std::vector<int>{159, 97}));
  // Differences beyond 255 steps cannot occur (8-bit input); the extreme -255 steps at s_in = 1/16
  // is e^-15.9 ~ 1.2e-7 of the maximum: 0 after rounding.
  EXPECT_EQ(AsInts(softmax<std::uint8_t, std::uint8_t>({255, 0}, 2, {0.0625f, 0}, kOutU8, 1.0f,
                                                       SoftmaxVariant::kTfliteOptimizedFloatTable)),
            (std::vector<int>{255, 0}));
}

TEST(ReferenceSoftmax, RejectsBadInput) {
  EXPECT_THROW((softmax<std::int8_t, std::int8_t>({1, 2, 3}, 2, {0.1f, 0}, kOutI8, 1.0f,
                                                  SoftmaxVariant::kFloat32)), InvalidArgument);
  EXPECT_THROW((softmax<std::int8_t, std::int8_t>({1}, 1, {0.1f, 0}, kOutI8, 0.0f, SoftmaxVariant::kFloat32)),
               InvalidArgument);
}

}  // namespace

// ------------------------------------------------------------------ fixed point against gemmlowp

#include <fixedpoint/fixedpoint.h>

namespace {

using namespace qparity;
using namespace qparity::reference;

TEST(ReferenceSoftmaxFixedPoint, ExpOnNegativeValuesMatchesGemmlowp) {
  // Every 97th raw value of Q5.26 in [-2^31, 0], plus the ends and the quarter boundaries.
  using F5 = gemmlowp::FixedPoint<std::int32_t, 5>;
  auto check = [](std::int32_t a) {
    const std::int32_t want = gemmlowp::exp_on_negative_values(F5::FromRaw(a)).raw();
    ASSERT_EQ(reference::detail::exp_on_negative_values(a, 5), want) << "a = " << a;
  };
  for (std::int64_t a = 0; a >= std::numeric_limits<std::int32_t>::min(); a -= 97 * 1031) check(static_cast<std::int32_t>(a));
  for (std::int32_t a : {0, -1, -(1 << 24), -(1 << 24) - 1, -(1 << 24) + 1, -(1 << 26), -(31 << 26),
                         std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::min() + 1}) {
    check(a);
  }
}

TEST(ReferenceSoftmaxFixedPoint, OneOverOnePlusXMatchesGemmlowp) {
  using F0 = gemmlowp::FixedPoint<std::int32_t, 0>;
  for (std::int64_t a = 0; a <= std::numeric_limits<std::int32_t>::max(); a += 65537 * 3) {
    const std::int32_t want = gemmlowp::one_over_one_plus_x_for_x_in_0_1(F0::FromRaw(static_cast<std::int32_t>(a))).raw();
    ASSERT_EQ(reference::detail::one_over_one_plus_x(static_cast<std::int32_t>(a)), want) << "a = " << a;
  }
  EXPECT_EQ(reference::detail::one_over_one_plus_x(0),
            gemmlowp::one_over_one_plus_x_for_x_in_0_1(F0::FromRaw(0)).raw());
}

TEST(ReferenceSoftmaxFixedPoint, ReferenceKernelGoldenAndVariantsDiffer) {
  // s_in = 1/16: {0, -16} is a difference of 1.0: 0.7311 -> 187.16, 0.2689 -> 68.84 in 1/256
  // units, 59 and -59 after the -128 offset, in both kernels.
  const std::vector<std::int8_t> x = {0, -16};
  const TensorQuant in{0.0625f, 0};
  EXPECT_EQ(AsInts(softmax<std::int8_t, std::int8_t>(x, 2, in, kOutI8, 1.0f, SoftmaxVariant::kTfliteReference)),
            (std::vector<int>{59, -59}));
  // A near-tie the kernels resolve differently (found by a search over random rows: 24 of 2.1M
  // elements differ): element 2 is exactly -97.500007 in 1/256 units; the fixed point gives -97,
  // the float table -98 (its float sum lands just below the tie). The uint16 table agrees with
  // the float table here.
  const std::vector<std::int8_t> row = {-77, -74, 83, -12, 100, -14, -93, 79, -58, -107, 104, -44};
  const auto fx = softmax<std::int8_t, std::int8_t>(row, row.size(), in, kOutI8, 1.0f, SoftmaxVariant::kTfliteReference);
  const auto fl = softmax<std::int8_t, std::int8_t>(row, row.size(), in, kOutI8, 1.0f, SoftmaxVariant::kTfliteOptimizedFloatTable);
  EXPECT_EQ(fx[2], -97);
  EXPECT_EQ(fl[2], -98);
  // The uint16 table rounds each exp to 1/65535 first: {8, -14, 1, 6, 31, 19, 14, 8} at s_in = 0.1
  // gives -116 for element 3 where the float table gives -117.
  const std::vector<std::int8_t> r2 = {8, -14, 1, 6, 31, 19, 14, 8};
  EXPECT_EQ((softmax<std::int8_t, std::int8_t>(r2, r2.size(), {0.1f, 0}, kOutI8, 1.0f, SoftmaxVariant::kTfliteOptimizedUint16Table)[3]), -116);
  EXPECT_EQ((softmax<std::int8_t, std::int8_t>(r2, r2.size(), {0.1f, 0}, kOutI8, 1.0f, SoftmaxVariant::kTfliteOptimizedFloatTable)[3]), -117);
  // A single element: the fixed point gives 255 (not 256): 127 after the -128 offset.
  EXPECT_EQ(AsInts(softmax<std::int8_t, std::int8_t>({7}, 1, in, kOutI8, 1.0f, SoftmaxVariant::kTfliteReference)),
            (std::vector<int>{127}));
  // Differences below diff_min give the type minimum; uint8 output has offset 0.
  EXPECT_EQ(AsInts(softmax<std::int8_t, std::int8_t>({127, -128}, 2, {1.0f, 0}, kOutI8, 1.0f, SoftmaxVariant::kTfliteReference)),
            (std::vector<int>{127, -128}));
  EXPECT_EQ(AsInts(softmax<std::uint8_t, std::uint8_t>({255, 0}, 2, {1.0f, 0}, kOutU8, 1.0f, SoftmaxVariant::kTfliteReference)),
            (std::vector<int>{255, 0}));
}

}  // namespace
