// Accumulator models (accumulator.h) on crafted cases (docs/semantics.md §9, §17).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/accumulator.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::i128;
using qparity_test::kMax;
using qparity_test::kMin;
using qparity_test::RcCheck;
using qparity_test::Uniform;

template <class T>
std::vector<T> Fill(std::size_t k, T v) {
  return std::vector<T>(k, v);
}

std::int64_t Exact(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b, std::int32_t azp,
                   std::int32_t bzp, std::int64_t bias) {
  std::int64_t s = bias;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::int64_t{a[i] - azp} * (b[i] - bzp);
  return s;
}

TEST(ReferenceAccumulator, Names) {
  EXPECT_EQ(Int32Accumulator::name(), "int32");
  EXPECT_EQ(Int64Accumulator::name(), "int64");
  EXPECT_EQ(SaturatingAccumulator<24>::name(), "sat24");
  EXPECT_EQ(WrappingAccumulator<24>::name(), "wrap24");
  EXPECT_EQ(Int16PairSaturatingAccumulator<true>::name(), "pairsat16-s8");
  EXPECT_EQ(Int16PairSaturatingAccumulator<false>::name(), "pairsat16-u8");
  EXPECT_EQ(Int32Accumulator::kBits, 32);
  EXPECT_EQ(Int64Accumulator::kBits, 64);
  EXPECT_EQ(SaturatingAccumulator<48>::kBits, 48);
  EXPECT_EQ(WrappingAccumulator<16>::kBits, 16);
}

TEST(ReferenceAccumulator, Int32WrapsAtLargeK) {
  // (-128) * (-128) = 2^14 per term; 2^17 terms = 2^31, which wraps to INT32_MIN.
  const std::size_t k = std::size_t{1} << 17;
  const auto a = Fill<std::int8_t>(k, -128), b = Fill<std::int8_t>(k, -128);
  EXPECT_EQ(Int64Accumulator::dot(a.data(), b.data(), k, 0, 0, 0), std::int64_t{1} << 31);
  EXPECT_EQ(Int32Accumulator::dot(a.data(), b.data(), k, 0, 0, 0), kMin);
  EXPECT_EQ(WrappingAccumulator<32>::dot(a.data(), b.data(), k, 0, 0, 0), kMin);
  // One term fewer fits exactly.
  EXPECT_EQ(Int32Accumulator::dot(a.data(), b.data(), k - 1, 0, 0, 0), (std::int64_t{1} << 31) - 16384);
  // 127 * (-128) = -16256 per term: 132105 terms = -2147452... below INT32_MIN: wraps positive.
  const std::size_t k2 = 132105;
  const auto c = Fill<std::int8_t>(k2, 127), d = Fill<std::int8_t>(k2, -128);
  const std::int64_t exact = -16256LL * static_cast<std::int64_t>(k2);
  ASSERT_LT(exact, kMin);
  EXPECT_EQ(Int64Accumulator::dot(c.data(), d.data(), k2, 0, 0, 0), exact);
  EXPECT_EQ(Int32Accumulator::dot(c.data(), d.data(), k2, 0, 0, 0), qparity_test::Wrap32(exact));
  EXPECT_GT(Int32Accumulator::dot(c.data(), d.data(), k2, 0, 0, 0), 0);
  // With zero points (uint8 activations 255 with zp 0, int8 weights -128 with zp 0; and a
  // negative activation zero point): terms (a - azp) * (b - bzp).
  const std::size_t k3 = 70000;
  const auto u = Fill<std::uint8_t>(k3, 255);
  const auto w = Fill<std::int8_t>(k3, -128);
  const std::int64_t exact3 = static_cast<std::int64_t>(k3) * (255 - (-3)) * (-128 - 2) + 1000;
  EXPECT_EQ(Int64Accumulator::dot(u.data(), w.data(), k3, -3, 2, 1000), exact3);
  EXPECT_EQ(Int32Accumulator::dot(u.data(), w.data(), k3, -3, 2, 1000), qparity_test::Wrap32(exact3));
  // The bias wraps too.
  const auto one = Fill<std::int8_t>(1, 1);
  EXPECT_EQ(Int32Accumulator::dot(one.data(), one.data(), 1, 0, 0, kMax), kMin);
  EXPECT_EQ(Int64Accumulator::dot(one.data(), one.data(), 1, 0, 0, kMax), std::int64_t{kMax} + 1);
}

TEST(ReferenceAccumulator, SaturatingAccumulator24) {
  constexpr std::int64_t kSatMax = (1 << 23) - 1, kSatMin = -(1 << 23);
  EXPECT_EQ(SaturatingAccumulator<24>::kMax, kSatMax);
  EXPECT_EQ(SaturatingAccumulator<24>::kMin, kSatMin);
  // 600 * 127 * 127 = 9677400 > 2^23 - 1: saturates.
  const auto a = Fill<std::int8_t>(600, 127);
  EXPECT_EQ(SaturatingAccumulator<24>::dot(a.data(), a.data(), 600, 0, 0, 0), kSatMax);
  EXPECT_EQ(Int32Accumulator::dot(a.data(), a.data(), 600, 0, 0, 0), 9677400);
  // Saturation after every addition makes the result order-dependent: +9677400 then -9677400
  // ends at 2^23 - 1 - 9677400, not 0.
  std::vector<std::int8_t> x(1200, 127), y(1200, 127);
  for (std::size_t i = 600; i < 1200; ++i) y[i] = -127;
  EXPECT_EQ(Int64Accumulator::dot(x.data(), y.data(), 1200, 0, 0, 0), 0);
  EXPECT_EQ(SaturatingAccumulator<24>::dot(x.data(), y.data(), 1200, 0, 0, 0), kSatMax - 9677400);
  // The bias is added to the finished (saturated) sum: -9677400 -> -2^23, then + 100.
  std::vector<std::int8_t> neg(600, -127);
  EXPECT_EQ(SaturatingAccumulator<24>::dot(a.data(), neg.data(), 600, 0, 0, 100), kSatMin + 100);
  // A bias outside the range is clamped first.
  EXPECT_EQ(SaturatingAccumulator<24>::dot(a.data(), a.data(), 1, 0, 0, std::int64_t{1} << 40), kSatMax);
  EXPECT_EQ(SaturatingAccumulator<24>::dot(a.data(), a.data(), 0, 0, 0, -(std::int64_t{1} << 40)), kSatMin);
  // Below the limits it is exact, with zero points.
  const std::vector<std::uint8_t> u = {0, 17, 255, 128};
  const std::vector<std::int8_t> w = {-128, 5, 127, -1};
  const std::int64_t exact = (0 - 100) * (-128 - 3) + (17 - 100) * (5 - 3) + (255 - 100) * (127 - 3) +
                             (128 - 100) * (-1 - 3) + 77;
  EXPECT_EQ(SaturatingAccumulator<24>::dot(u.data(), w.data(), 4, 100, 3, 77), exact);
  EXPECT_EQ(SaturatingAccumulator<48>::dot(u.data(), w.data(), 4, 100, 3, 77), exact);
}

TEST(ReferenceAccumulator, WrappingAccumulator24) {
  const auto a = Fill<std::int8_t>(600, 127);
  // 9677400 mod 2^24, sign-extended: 9677400 - 2^24.
  EXPECT_EQ(WrappingAccumulator<24>::dot(a.data(), a.data(), 600, 0, 0, 0), 9677400 - (1 << 24));
  // Order-independent: +9677400 - 9677400 = 0 exactly (unlike saturation).
  std::vector<std::int8_t> y(1200, 127);
  std::vector<std::int8_t> x(1200, 127);
  for (std::size_t i = 600; i < 1200; ++i) y[i] = -127;
  EXPECT_EQ(WrappingAccumulator<24>::dot(x.data(), y.data(), 1200, 0, 0, 0), 0);
  // Bias participates in the wrap: 2^23 - 1 + 1 -> -2^23.
  const auto one = Fill<std::int8_t>(1, 1);
  EXPECT_EQ(WrappingAccumulator<24>::dot(one.data(), one.data(), 1, 0, 0, (1 << 23) - 1), -(1 << 23));
  EXPECT_EQ(WrappingAccumulator<16>::dot(one.data(), one.data(), 1, 0, 0, 32767), -32768);
  // N = 64 is exact; N = 32 equals Int32Accumulator.
  RcCheck([] {
    const std::size_t k = Uniform<std::size_t>(0, 200);
    std::vector<std::int8_t> p(k), q(k);
    for (std::size_t i = 0; i < k; ++i) {
      p[i] = static_cast<std::int8_t>(Uniform(-128, 128));
      q[i] = static_cast<std::int8_t>(Uniform(-128, 128));
    }
    const std::int32_t azp = Uniform(-128, 128), bzp = Uniform(-128, 128);
    const std::int64_t bias = Uniform<std::int64_t>(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
    const std::int64_t exact = Int64Accumulator::dot(p.data(), q.data(), k, azp, bzp, bias);
    RC_ASSERT(WrappingAccumulator<64>::dot(p.data(), q.data(), k, azp, bzp, bias) == exact);
    RC_ASSERT(WrappingAccumulator<32>::dot(p.data(), q.data(), k, azp, bzp, bias) ==
              Int32Accumulator::dot(p.data(), q.data(), k, azp, bzp, bias));
    RC_ASSERT(WrappingAccumulator<32>::dot(p.data(), q.data(), k, azp, bzp, bias) == qparity_test::Wrap32(exact));
    // wrap24 = exact mod 2^24, sign-extended.
    const std::int64_t m24 = ((exact % (1 << 24)) + (1 << 24)) % (1 << 24);
    RC_ASSERT(WrappingAccumulator<24>::dot(p.data(), q.data(), k, azp, bzp, bias) ==
              (m24 >= (1 << 23) ? m24 - (1 << 24) : m24));
  });
}

TEST(ReferenceAccumulator, Int16PairSaturationOneDnnDocExamples) {
  // oneDNN int8_computations.md: u8 x s8 with VPMADDUBSW, 255*127 + 255*127 = 64770 -> 32767.
  const std::vector<std::uint8_t> a = {255, 255};
  const std::vector<std::int8_t> b = {127, 127};
  EXPECT_EQ(Int16PairSaturatingAccumulator<false>::dot(a.data(), b.data(), 2, 0, 0, 0), 32767);
  EXPECT_EQ(Int64Accumulator::dot(a.data(), b.data(), 2, 0, 0, 0), 64770);
  // s8 x s8: the +128 shift turns 127 into 255; 255*127*2 saturates to 32767, minus the
  // compensation 128 * (127 + 127) = 32512 gives 255 instead of 127*127*2 = 32258.
  const std::vector<std::int8_t> s = {127, 127};
  EXPECT_EQ(Int16PairSaturatingAccumulator<true>::dot(s.data(), b.data(), 2, 0, 0, 0), 255);
  EXPECT_EQ(Int64Accumulator::dot(s.data(), b.data(), 2, 0, 0, 0), 32258);
  // Negative saturation: 255 * -128 * 2 = -65280 -> -32768.
  const std::vector<std::int8_t> m = {-128, -128};
  EXPECT_EQ(Int16PairSaturatingAccumulator<false>::dot(a.data(), m.data(), 2, 0, 0, 0), -32768);
  // Odd k: the last pair has a zero partner. (255*127 + 255*127 -> 32767) + 255*127.
  const std::vector<std::uint8_t> a3 = {255, 255, 255};
  const std::vector<std::int8_t> b3 = {127, 127, 127};
  EXPECT_EQ(Int16PairSaturatingAccumulator<false>::dot(a3.data(), b3.data(), 3, 0, 0, 0), 32767 + 255 * 127);
  // Only pairs saturate, not the running sum: many unsaturated pairs add up exactly in int32.
  const auto big_a = Fill<std::uint8_t>(1000, 100);
  const auto big_b = Fill<std::int8_t>(1000, 100);
  EXPECT_EQ(Int16PairSaturatingAccumulator<false>::dot(big_a.data(), big_b.data(), 1000, 0, 0, 5), 10000005);
}

template <bool kSigned>
void CheckPairAccumulatorExactWithoutPairSaturation() {
  std::uint64_t checked = 0, nonzero_zp = 0, saturated_seen = 0;
  RcCheck([&] {
    const std::size_t k = Uniform<std::size_t>(0, 64);
    std::vector<std::int32_t> a(k), b(k);
    for (std::size_t i = 0; i < k; ++i) {
      // 7-bit activations (u8) or 6-bit weights (s8 activations are shifted by +128): no pair
      // can leave int16: 127 * 128 * 2 = 32512 and 255 * 64 * 2 = 32640.
      a[i] = kSigned ? Uniform(-128, 128) : Uniform(0, 128);
      b[i] = kSigned ? Uniform(-64, 64) : Uniform(-128, 128);
    }
    const std::int32_t azp = kSigned ? Uniform(-128, 128) : Uniform(0, 256);
    const std::int32_t bzp = Uniform(-5, 6);
    const std::int64_t bias = Uniform<std::int64_t>(-1000000, 1000000);
    const std::int64_t exact = Exact(a, b, azp, bzp, bias);
    std::vector<std::int8_t> b8(b.begin(), b.end());
    std::int64_t got;
    if (kSigned) {
      std::vector<std::int8_t> a8(a.begin(), a.end());
      got = Int16PairSaturatingAccumulator<true>::dot(a8.data(), b8.data(), k, azp, bzp, bias);
      RC_ASSERT(got == Int32Accumulator::dot(a8.data(), b8.data(), k, azp, bzp, bias));
    } else {
      std::vector<std::uint8_t> a8(a.begin(), a.end());
      got = Int16PairSaturatingAccumulator<false>::dot(a8.data(), b8.data(), k, azp, bzp, bias);
      RC_ASSERT(got == Int32Accumulator::dot(a8.data(), b8.data(), k, azp, bzp, bias));
    }
    RC_ASSERT(got == exact);
    ++checked;
    nonzero_zp += azp != 0 && bzp != 0 && k > 0;
  });
  // ... and with full-range operands pairs do saturate and the result differs.
  RcCheck([&] {
    const std::size_t k = Uniform<std::size_t>(2, 64);
    std::vector<std::int32_t> a(k), b(k);
    for (std::size_t i = 0; i < k; ++i) {
      a[i] = kSigned ? Uniform(64, 128) : Uniform(192, 256);
      b[i] = Uniform(100, 128);
    }
    std::vector<std::int8_t> b8(b.begin(), b.end());
    std::int64_t got;
    if (kSigned) {
      std::vector<std::int8_t> a8(a.begin(), a.end());
      got = Int16PairSaturatingAccumulator<true>::dot(a8.data(), b8.data(), k, 0, 0, 0);
    } else {
      std::vector<std::uint8_t> a8(a.begin(), a.end());
      got = Int16PairSaturatingAccumulator<false>::dot(a8.data(), b8.data(), k, 0, 0, 0);
    }
    RC_ASSERT(got < Exact(a, b, 0, 0, 0));  // every full pair saturated downwards
    ++saturated_seen;
  });
  EXPECT_GT(checked, 50u);
  EXPECT_GT(nonzero_zp, 10u);
  EXPECT_GT(saturated_seen, 50u);
}

TEST(ReferenceAccumulator, Int16PairExactWhenNoPairSaturatesU8) { CheckPairAccumulatorExactWithoutPairSaturation<false>(); }
TEST(ReferenceAccumulator, Int16PairExactWhenNoPairSaturatesS8) { CheckPairAccumulatorExactWithoutPairSaturation<true>(); }

TEST(ReferenceAccumulator, AllModelsAgreeWithoutOverflow) {
  RcCheck([] {
    const std::size_t k = Uniform<std::size_t>(0, 100);
    std::vector<std::int8_t> a(k), b(k);
    for (std::size_t i = 0; i < k; ++i) {
      a[i] = static_cast<std::int8_t>(Uniform(-128, 128));
      b[i] = static_cast<std::int8_t>(Uniform(-127, 128));
    }
    const std::int32_t azp = Uniform(-128, 128);
    const std::int64_t bias = Uniform(-100000, 100000);
    const std::int64_t exact = Int64Accumulator::dot(a.data(), b.data(), k, azp, 0, bias);
    // |exact| <= 100 * 255 * 128 + 1e5 < 2^22: every width >= 24 is exact.
    RC_ASSERT(Int32Accumulator::dot(a.data(), b.data(), k, azp, 0, bias) == exact);
    RC_ASSERT(SaturatingAccumulator<24>::dot(a.data(), b.data(), k, azp, 0, bias) == exact);
    RC_ASSERT(SaturatingAccumulator<32>::dot(a.data(), b.data(), k, azp, 0, bias) == exact);
    RC_ASSERT(WrappingAccumulator<24>::dot(a.data(), b.data(), k, azp, 0, bias) == exact);
    RC_ASSERT(WrappingAccumulator<48>::dot(a.data(), b.data(), k, azp, 0, bias) == exact);
  });
}

}  // namespace
