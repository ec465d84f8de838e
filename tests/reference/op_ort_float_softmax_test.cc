// ONNX Runtime's unfused QDQ Softmax (include/qparity/reference/ort_float_softmax.h, docs/semantics.md
// §22.8): properties of MLAS's exponential and of the two kernels' summation orders that the oracle
// test (tests/onnx/oracle_onnx_lookup_test.cc, UnfusedQdqSoftmaxBitExact) relies on.
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference/ort_float_softmax.h"

namespace {

using qparity::reference::MlasSoftmaxIsa;
namespace ref = qparity::reference;

TEST(ReferenceOrtFloatSoftmax, MlasExpIsFaithfulAndTheKernelsAgreeOnNormalResults) {
  EXPECT_EQ(ref::mlas_sum_exp_lane(2.5f, -2.5f, MlasSoftmaxIsa::kAvx512F), 1.0f);
  EXPECT_EQ(ref::mlas_sum_exp_lane(2.5f, -2.5f, MlasSoftmaxIsa::kFma3), 1.0f);
  double worst = 0.0;
  for (float x = -87.0f; x <= 0.0f; x += 0.000731f) {
    const float a = ref::mlas_sum_exp_lane(x, 0.0f, MlasSoftmaxIsa::kAvx512F);
    ASSERT_EQ(a, ref::mlas_sum_exp_lane(x, 0.0f, MlasSoftmaxIsa::kFma3)) << x;
    worst = std::max(worst, std::fabs(a / std::exp(static_cast<double>(x)) - 1.0));
  }
  EXPECT_LT(worst, 2.5e-7);  // about two float32 ulps
  // Below the FMA3 kernel's clamp (-88.376) it returns 0; VSCALEFPS underflows gradually.
  EXPECT_EQ(ref::mlas_sum_exp_lane(-100.0f, 0.0f, MlasSoftmaxIsa::kFma3), 0.0f);
  const float tiny = ref::mlas_sum_exp_lane(-100.0f, 0.0f, MlasSoftmaxIsa::kAvx512F);
  EXPECT_GT(tiny, 0.0f);
  EXPECT_LT(tiny, std::numeric_limits<float>::min());
  EXPECT_LE(std::fabs(static_cast<double>(tiny) - std::exp(-100.0)), std::numeric_limits<float>::denorm_min());
}

TEST(ReferenceOrtFloatSoftmax, KernelsSumInTheSameOrderOnlyUpTo16Elements) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-6.0f, 0.0f);
  for (std::size_t d : {1, 5, 8, 9, 16, 17, 40, 63, 100}) {
    std::size_t differ = 0;
    std::vector<float> v(d), e(d);
    for (int r = 0; r < 300; ++r) {
      for (float& x : v) x = u(rng);
      const float a = ref::mlas_sum_exp_row(v.data(), d, 0.0f, MlasSoftmaxIsa::kAvx512F, e.data());
      const float b = ref::mlas_sum_exp_row(v.data(), d, 0.0f, MlasSoftmaxIsa::kFma3, e.data());
      if (a != b) ++differ;
    }
    if (d <= 16) {
      EXPECT_EQ(differ, 0u) << d;
    } else {
      EXPECT_GT(differ, 0u) << d;
    }
  }
}

TEST(ReferenceOrtFloatSoftmax, RowsOfOneSaturateAndEqualValuesSplitEvenly) {
  std::vector<float> scratch(8);
  const ref::TensorQuant in{0.1f, 0}, out_s8{1.0f / 256.0f, -128}, out_u8{1.0f / 256.0f, 0};
  const std::int8_t one = 5;
  std::int8_t y8 = 0;
  ref::ort_float_softmax_row<std::int8_t>(&one, &y8, 1, in, out_s8, MlasSoftmaxIsa::kAvx512F, scratch.data());
  EXPECT_EQ(y8, 127);  // probability 1 is 256 / 256, beyond the type
  const std::uint8_t four[4] = {9, 9, 9, 9};
  std::uint8_t yu[4] = {};
  ref::ort_float_softmax_row<std::uint8_t>(four, yu, 4, in, out_u8, MlasSoftmaxIsa::kFma3, scratch.data());
  for (std::uint8_t q : yu) EXPECT_EQ(q, 64);
}

}  // namespace
