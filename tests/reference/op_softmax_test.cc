// SOFTMAX reference (include/qparity/reference/softmax.h; docs/semantics.md §21.5): golden vectors
// for the float-table kernel of TFLite's optimized SOFTMAX and the float32 style, including the
// saturation of a certain class (p = 1 is 256 / 256: one above the int8 / uint8 range).
#include <cstdint>
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
