// Scalar fixed-point primitives (fixed_point.h) against independent models written from
// docs/semantics.md §2 (SRDHM §2.1, RDBPOT §2.2, SRSHL/SQDMULH §2.3) using __int128 arithmetic.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/fixed_point.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::i128;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::kMin;
using qparity_test::RcCheck;
using qparity_test::RoundDivPow2;
using qparity_test::Tie;

const std::vector<std::int32_t>& Edges() {
  static const std::vector<std::int32_t> e = {
      0, 1, -1, 2, -2, 3, -3, 5, -5, 1 << 29, -(1 << 29), 3 * (1 << 29), -3 * (1 << 29),
      k2p30 - 1, k2p30, k2p30 + 1, -k2p30 + 1, -k2p30, -k2p30 - 1, kMax - 1, kMax, kMin, kMin + 1,
      2034096511, 1288490189, 1471026299, 0x55555555, -0x55555555};
  return e;
}

// Model (§2.1): floor((a*b + 2^30) / 2^31), except INT32_MIN^2 -> INT32_MAX.
std::int32_t SrdhmModel(std::int32_t a, std::int32_t b) {
  if (a == kMin && b == kMin) return kMax;
  return static_cast<std::int32_t>(qparity_test::FloorDivPow2(static_cast<i128>(a) * b + (i128{1} << 30), 31));
}
// Model (§2.3 SQDMULH): floor(2ab / 2^32), saturating INT32_MIN^2.
std::int32_t SqdmulhModel(std::int32_t a, std::int32_t b) {
  if (a == kMin && b == kMin) return kMax;
  return static_cast<std::int32_t>(qparity_test::FloorDivPow2(static_cast<i128>(a) * b * 2, 32));
}
// Model (§2.2): x / 2^e, HAZ; e = 0 is the identity.
std::int32_t RdbpotModel(std::int32_t x, int e) {
  return e == 0 ? x : static_cast<std::int32_t>(RoundDivPow2(x, e, Tie::HAZ));
}
// Model (§2.3 SRSHL by -e): floor((x + 2^(e-1)) / 2^e) in unbounded precision.
std::int32_t SrshlModel(std::int32_t x, int e) {
  return e == 0 ? x : static_cast<std::int32_t>(RoundDivPow2(x, e, Tie::HU));
}

Tie ModelTie(TieRule r) {
  switch (r) {
    case TieRule::kHalfUp: return Tie::HU;
    case TieRule::kHalfAwayFromZero: return Tie::HAZ;
    case TieRule::kHalfToEven: return Tie::HE;
    case TieRule::kTowardZero: return Tie::TZ;
    case TieRule::kFloor: return Tie::FL;
  }
  return Tie::HU;
}
constexpr TieRule kAllRules[] = {TieRule::kHalfUp, TieRule::kHalfAwayFromZero, TieRule::kHalfToEven,
                                 TieRule::kTowardZero, TieRule::kFloor};

// ---- compile-time: the primitives are constexpr -------------------------------------------
static_assert(saturating_rounding_doubling_high_mul(k2p30, 1) == 1, "");
static_assert(saturating_rounding_doubling_high_mul(-k2p30, 1) == 0, "");
static_assert(rounding_divide_by_pot(-5, 1) == -3, "");
static_assert(rounding_shift_right_half_up(-5, 1) == -2, "");
static_assert(round_shift_right(std::int64_t{-5}, 1, TieRule::kHalfToEven) == -2, "");

TEST(ReferenceFixedPoint, SrdhmEdgePairsMatchModel) {
  int nonzero = 0;
  for (std::int32_t a : Edges()) {
    for (std::int32_t b : Edges()) {
      const std::int32_t got = saturating_rounding_doubling_high_mul(a, b);
      EXPECT_EQ(got, SrdhmModel(a, b)) << "a=" << a << " b=" << b;
      nonzero += got != 0;
    }
  }
  EXPECT_GT(nonzero, 100);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kMin, kMin), kMax);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kMin, kMax), -kMax);  // -(2^31-1): exact
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kMin, 1), -1);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kMin, -1), 1);
}

TEST(ReferenceFixedPoint, SrdhmRandomMatchesModel) {
  RcCheck([](std::int32_t a, std::int32_t b) {
    RC_ASSERT(saturating_rounding_doubling_high_mul(a, b) == SrdhmModel(a, b));
    // Commutative.
    RC_ASSERT(saturating_rounding_doubling_high_mul(a, b) == saturating_rounding_doubling_high_mul(b, a));
  });
}

TEST(ReferenceFixedPoint, SqdmulhMatchesModel) {
  for (std::int32_t a : Edges())
    for (std::int32_t b : Edges())
      EXPECT_EQ(saturating_doubling_high_mul(a, b), SqdmulhModel(a, b)) << a << " " << b;
  RcCheck([](std::int32_t a, std::int32_t b) {
    RC_ASSERT(saturating_doubling_high_mul(a, b) == SqdmulhModel(a, b));
  });
  // No rounding: 0.5 -> 0 and -0.5 -> -1.
  EXPECT_EQ(saturating_doubling_high_mul(k2p30, 1), 0);
  EXPECT_EQ(saturating_doubling_high_mul(-k2p30, 1), -1);
}

TEST(ReferenceFixedPoint, RdbpotAllExponentsMatchModel) {
  for (int e = 0; e <= 31; ++e) {
    for (std::int32_t x : Edges()) EXPECT_EQ(rounding_divide_by_pot(x, e), RdbpotModel(x, e)) << x << " " << e;
  }
  RcCheck([](std::int32_t x) {
    const int e = qparity_test::Uniform(0, 32);
    RC_ASSERT(rounding_divide_by_pot(x, e) == RdbpotModel(x, e));
  });
  // HAZ on ties of both signs.
  EXPECT_EQ(rounding_divide_by_pot(5, 1), 3);
  EXPECT_EQ(rounding_divide_by_pot(-5, 1), -3);
  EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);
  EXPECT_EQ(rounding_divide_by_pot(6, 2), 2);
  EXPECT_EQ(rounding_divide_by_pot(kMin, 31), -1);
  EXPECT_EQ(rounding_divide_by_pot(kMin, 0), kMin);
}

TEST(ReferenceFixedPoint, RoundingShiftRightHalfUpMatchesModel) {
  for (int e = 0; e <= 31; ++e) {
    for (std::int32_t x : Edges())
      EXPECT_EQ(rounding_shift_right_half_up(x, e), SrshlModel(x, e)) << x << " " << e;
  }
  RcCheck([](std::int32_t x) {
    const int e = qparity_test::Uniform(0, 32);
    RC_ASSERT(rounding_shift_right_half_up(x, e) == SrshlModel(x, e));
  });
  EXPECT_EQ(rounding_shift_right_half_up(kMax, 1), 1 << 30);  // no overflow
  EXPECT_EQ(rounding_shift_right_half_up(-5, 1), -2);
  EXPECT_EQ(rounding_shift_right_half_up(5, 1), 3);
  EXPECT_EQ(rounding_shift_right_half_up(kMax, 31), 1);
  EXPECT_EQ(rounding_shift_right_half_up(kMin, 31), -1);
}

TEST(ReferenceFixedPoint, GemmlowpNudgeFormEqualsHalfUpClosedForm) {
  // §2.1: gemmlowp's truncating form with nudge 1 - 2^30 for negative products equals
  // floor((p + 2^30) / 2^31). Checked on products straddling the tie points.
  for (std::int64_t p : {std::int64_t{1} << 30, -(std::int64_t{1} << 30), 3 * (std::int64_t{1} << 30),
                         -3 * (std::int64_t{1} << 30), (std::int64_t{1} << 30) - 1,
                         -(std::int64_t{1} << 30) - 1, -(std::int64_t{1} << 30) + 1}) {
    const std::int64_t nudge = p >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
    const std::int64_t truncating = (p + nudge) / (std::int64_t{1} << 31);
    const std::int64_t closed = static_cast<std::int64_t>(
        qparity_test::FloorDivPow2(static_cast<i128>(p) + (i128{1} << 30), 31));
    EXPECT_EQ(truncating, closed) << p;
  }
}

TEST(ReferenceFixedPoint, RoundShiftRightInt64AllRulesMatchModel) {
  // The tie-rule table of fixed_point.h in units of 2^-1.
  struct Row { std::int64_t p; std::int64_t hu, haz, he, tz, fl; };
  const Row rows[] = {{5, 3, 3, 2, 2, 2}, {-5, -2, -3, -2, -2, -3}, {-3, -1, -2, -2, -1, -2},
                      {7, 4, 4, 4, 3, 3}, {1, 1, 1, 0, 0, 0}, {-1, 0, -1, 0, 0, -1}};
  for (const Row& r : rows) {
    EXPECT_EQ(round_shift_right(r.p, 1, TieRule::kHalfUp), r.hu) << r.p;
    EXPECT_EQ(round_shift_right(r.p, 1, TieRule::kHalfAwayFromZero), r.haz) << r.p;
    EXPECT_EQ(round_shift_right(r.p, 1, TieRule::kHalfToEven), r.he) << r.p;
    EXPECT_EQ(round_shift_right(r.p, 1, TieRule::kTowardZero), r.tz) << r.p;
    EXPECT_EQ(round_shift_right(r.p, 1, TieRule::kFloor), r.fl) << r.p;
  }
  RcCheck([] {
    // |p| < 2^62 (the documented precondition), k in [1, 62].
    const int bits = qparity_test::Uniform(0, 62);
    const std::int64_t mag = qparity_test::Uniform<std::int64_t>(0, std::int64_t{1} << bits);
    const bool neg = qparity_test::Coin();
    const int k = qparity_test::Uniform(1, 63);
    // Bias towards exact ties and their neighbours.
    const int mode = qparity_test::Uniform(0, 4);
    std::int64_t p = neg ? -mag : mag;
    if (mode > 0 && k <= 60) {
      const std::int64_t q = p >> k;  // keep the magnitude below 2^62
      p = q * (std::int64_t{1} << k) + (std::int64_t{1} << (k - 1)) + (mode - 2);
    }
    for (TieRule rule : kAllRules) {
      RC_ASSERT(round_shift_right(p, k, rule) == static_cast<std::int64_t>(RoundDivPow2(p, k, ModelTie(rule))));
    }
  });
}

TEST(ReferenceFixedPoint, Int128ProductIsExact) {
  const std::int64_t as[] = {0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1, std::int64_t{1} << 47,
                             -(std::int64_t{1} << 47), 0x123456789abcdefLL, -0x123456789abcdefLL};
  const std::int32_t bs[] = {0, 1, -1, kMax, kMin, k2p30, 25891};
  auto as_i128 = [](Int128 v) { return static_cast<i128>(v.hi) * (i128{1} << 64) + static_cast<i128>(v.lo); };
  for (std::int64_t a : as)
    for (std::int32_t b : bs)
      EXPECT_TRUE(as_i128(mul_i64_i32(a, b)) == static_cast<i128>(a) * b) << a << " * " << b;
  RcCheck([&](std::int64_t a, std::int32_t b, std::int64_t c) {
    const Int128 p = mul_i64_i32(a, b);
    RC_ASSERT(as_i128(p) == static_cast<i128>(a) * b);
    RC_ASSERT(as_i128(add_i128(p, c)) == static_cast<i128>(a) * b + c);
  });
}

TEST(ReferenceFixedPoint, RoundShiftRightInt128AllRulesMatchModel) {
  RcCheck([] {
    const std::int64_t a = *rc::gen::arbitrary<std::int64_t>();
    const std::int32_t b = qparity_test::Uniform<std::int32_t>(0, kMax);
    const int k = qparity_test::Uniform(1, 64);
    const i128 exact = static_cast<i128>(a) * b;
    // Precondition: the result fits in int64.
    RC_PRE(qparity_test::FloorDivPow2(exact, k) >= INT64_MIN + 1 &&
           qparity_test::FloorDivPow2(exact, k) < INT64_MAX);
    const Int128 p = mul_i64_i32(a, b);
    RC_ASSERT(static_cast<i128>(floor_shift_i128(p, k)) == qparity_test::FloorDivPow2(exact, k));
    for (TieRule rule : kAllRules) {
      RC_ASSERT(static_cast<i128>(round_shift_right(p, k, rule)) == RoundDivPow2(exact, k, ModelTie(rule)));
    }
  });
  // Exact ties at k = 63 and k = 1 with negative values.
  const Int128 neg_tie = mul_i64_i32(-3, 1);  // -1.5 at k = 1
  EXPECT_EQ(round_shift_right(neg_tie, 1, TieRule::kHalfUp), -1);
  EXPECT_EQ(round_shift_right(neg_tie, 1, TieRule::kHalfAwayFromZero), -2);
  EXPECT_EQ(round_shift_right(neg_tie, 1, TieRule::kHalfToEven), -2);
  EXPECT_EQ(round_shift_right(neg_tie, 1, TieRule::kTowardZero), -1);
  EXPECT_EQ(round_shift_right(neg_tie, 1, TieRule::kFloor), -2);
  const Int128 big = mul_i64_i32(INT64_MIN, 1);  // -2^63 / 2^63 = -1 exactly
  EXPECT_EQ(round_shift_right(big, 63, TieRule::kHalfToEven), -1);
  const Int128 half = mul_i64_i32(std::int64_t{1} << 62, 1);  // 2^62 / 2^63 = 0.5
  EXPECT_EQ(round_shift_right(half, 63, TieRule::kHalfUp), 1);
  EXPECT_EQ(round_shift_right(half, 63, TieRule::kHalfToEven), 0);
  EXPECT_EQ(round_shift_right(half, 63, TieRule::kHalfAwayFromZero), 1);
}

TEST(ReferenceFixedPoint, WrappingShiftAndNarrowing) {
  EXPECT_EQ(shift_left_wrapping(3, 30), -k2p30);
  EXPECT_EQ(shift_left_wrapping(-4, 30), 0);
  EXPECT_EQ(shift_left_wrapping(1, 31), kMin);
  EXPECT_EQ(shift_left_wrapping(kMax, 1), -2);
  EXPECT_EQ(shift_left_wrapping(-1, 31), kMin);
  RcCheck([](std::int32_t x) {
    const int left = qparity_test::Uniform(0, 32);
    const i128 exact = static_cast<i128>(x) * (i128{1} << left);
    RC_ASSERT(shift_left_wrapping(x, left) == qparity_test::Wrap32(exact));
  });
  EXPECT_EQ(wrap_to_int32(std::int64_t{1} << 31), kMin);
  EXPECT_EQ(wrap_to_int32(-(std::int64_t{1} << 31) - 1), kMax);
  EXPECT_EQ(wrap_to_int32(std::int64_t{1} << 32), 0);
  EXPECT_EQ(wrap_to_int32(-5), -5);
  EXPECT_EQ(clamp_i64(5, -2, 3), 3);
  EXPECT_EQ(clamp_i64(-5, -2, 3), -2);
  EXPECT_EQ(clamp_i64(1, -2, 3), 1);
}

}  // namespace
