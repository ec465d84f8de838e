// Properties of the rounding policies (policies.h), RapidCheck + closed forms:
//  * every policy is monotonic non-decreasing in acc where no pre-shift wraps and no result is
//    narrowed;
//  * |DR-AZ - SR-UP| <= 1 and |DR-UP - SR-UP| <= 1 on that domain;
//  * exact results for power-of-two scales (M = 2^30), and the tie rule of each policy at, just
//    below and just above half-way, for every shift and every output zero point (closed forms in
//    the style of XNNPACK's old requantization tester);
//  * SR-AZ, SR-EVEN, TRUNC (and F32) are odd-symmetric; DR-AZ is not (pinned counterexamples);
//  * the wide (int64) single-rounding path equals the int32 path on int32 values and an exact
//    __int128 model on random int64 values.
// Each property counts what it saw, and the test fails if the interesting cases never occurred.
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::F32;
using qparity_test::i128;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::kMin;
using qparity_test::Q31;
using qparity_test::RcCheck;
using qparity_test::RoundDivPow2;
using qparity_test::Tie;

// ---------------------------------- generators and domain ------------------------------------

// A multiplier: usually normalised [2^30, 2^31), sometimes any value, sometimes with many low zero
// bits (such multipliers produce exact ties, e.g. float-derived 24-bit ones).
std::int32_t GenQ31Multiplier() {
  const int kind = qparity_test::Uniform(0, 4);
  if (kind == 0) return qparity_test::Uniform<std::int32_t>(0, kMax);
  std::int32_t m = qparity_test::Uniform<std::int32_t>(k2p30, kMax);
  if (kind == 2) m &= ~0x7F;  // 24-bit mantissa, as XNNPACK's
  if (kind == 3) m &= ~0xFFFFF;
  return m;
}

// A random accumulator whose magnitude has a random number of bits (so small values are common).
std::int32_t GenAcc(int max_bits = 31) {
  const int bits = qparity_test::Uniform(0, max_bits + 1);
  const std::int64_t mag = qparity_test::Uniform<std::int64_t>(0, std::int64_t{1} << bits);
  return static_cast<std::int32_t>(qparity_test::Coin() ? -mag : (mag == (std::int64_t{1} << 31) ? mag - 1 : mag));
}

RequantParams GenParams(RoundingCore core) {
  RequantParams p;
  if (core == RoundingCore::kQ15) {
    // Usually a normalised multiplier and a shift that keeps int32 outputs varied; sometimes the
    // whole legal range ([0, 32767] x [-47, 13]).
    const bool wide = qparity_test::Uniform(0, 4) == 0;
    p.multiplier = wide ? qparity_test::Uniform<std::int32_t>(0, 32768) : qparity_test::Uniform<std::int32_t>(16384, 32768);
    p.shift = wide ? qparity_test::Uniform(-47, 14) : qparity_test::Uniform(-20, 14);
  } else if (is_float_core(core)) {
    const std::uint32_t mant = qparity_test::Uniform<std::uint32_t>(0, 1u << 23);
    const int e = qparity_test::Uniform(-32, 8);
    p.scale = std::ldexp(static_cast<float>(mant | (1u << 23)), e - 23);
    if (core == RoundingCore::kFloat32ZeroPointInside && qparity_test::Coin()) {
      p.post_scale = std::ldexp(static_cast<float>(qparity_test::Uniform(1, 256)), -4);
      p.bias = static_cast<float>(qparity_test::Uniform(-1000, 1000)) / 8.0f;
    }
  } else {
    p.multiplier = GenQ31Multiplier();
    p.shift = qparity_test::Uniform(-31, 31);
  }
  return p;
}

bool FitsAfterLeftShift(std::int32_t acc, int left) {
  return qparity_test::FitsInt32(static_cast<i128>(acc) * (i128{1} << left));
}

// True where `core` neither wraps a pre-shift nor narrows an out-of-range result.
bool InDomain(RoundingCore core, std::int32_t acc, const RequantParams& p) {
  switch (core) {
    case RoundingCore::kDoubleRoundingAwayFromZero:
    case RoundingCore::kDoubleRoundingUpward:
      return FitsAfterLeftShift(acc, p.shift > 0 ? p.shift : 0);
    case RoundingCore::kSingleRoundingUpwardNeon:
      return FitsAfterLeftShift(acc, p.shift >= -1 ? p.shift + 1 : 0);
    case RoundingCore::kSingleRoundingUpward:
    case RoundingCore::kSingleRoundingAwayFromZero:
    case RoundingCore::kSingleRoundingToEven:
    case RoundingCore::kTruncate:
    case RoundingCore::kFloor: {
      const i128 f = qparity_test::FloorDivPow2(static_cast<i128>(acc) * p.multiplier, 31 - p.shift);
      return qparity_test::FitsInt32(f) && qparity_test::FitsInt32(f + 1);
    }
    case RoundingCore::kQ15: {
      const i128 f = qparity_test::FloorDivPow2(static_cast<i128>(acc) * p.multiplier, 15 - p.shift);
      return qparity_test::FitsInt32(f) && qparity_test::FitsInt32(f + 1);
    }
    case RoundingCore::kFloat32:
    case RoundingCore::kFloat32ZeroPointInside:
      return true;  // the float-to-int conversion saturates, which is monotonic
  }
  return false;
}

std::string Name(RoundingCore c) { return to_string(c); }

// ---------------------------------------- monotonicity ---------------------------------------

class PolicyPropertiesByCore : public ::testing::TestWithParam<RoundingCore> {};

TEST_P(PolicyPropertiesByCore, MonotonicNonDecreasingInAcc) {
  const RoundingCore core = GetParam();
  std::uint64_t steps = 0, increases = 0;
  RcCheck([&] {
    const RequantParams p = GenParams(core);
    const std::int32_t acc0 = GenAcc();
    // A window of consecutive accumulators ...
    for (std::int64_t a = acc0; a < std::int64_t{acc0} + 256 && a < kMax; ++a) {
      const auto x = static_cast<std::int32_t>(a);
      if (!InDomain(core, x, p) || !InDomain(core, x + 1, p)) continue;
      const std::int32_t y0 = requantize(core, x, p), y1 = requantize(core, x + 1, p);
      RC_ASSERT(y0 <= y1);
      ++steps;
      increases += y1 > y0;
    }
    // ... and a random pair.
    const std::int32_t a = GenAcc(), b = GenAcc();
    const std::int32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (InDomain(core, lo, p) && InDomain(core, hi, p)) {
      RC_ASSERT(requantize(core, lo, p) <= requantize(core, hi, p));
    }
  });
  EXPECT_GT(steps, 1000u) << Name(core);
  EXPECT_GT(increases, 100u) << Name(core) << ": the outputs hardly varied";
}

// The monotonic property needs its domain: outside it, pre-shift wrap breaks monotonicity
// (this shows the domain restriction is not vacuous).
TEST(ReferencePolicyPropertiesDomain, WrapBreaksMonotonicityOutsideTheDomain) {
  const RequantParams p = Q31(k2p30, 30);
  EXPECT_GT(DoubleRoundingAwayFromZero::requantize(1, p), DoubleRoundingAwayFromZero::requantize(3, p));
  EXPECT_FALSE(InDomain(RoundingCore::kDoubleRoundingAwayFromZero, 3, p));
  EXPECT_GT(SingleRoundingUpward::requantize(3, p), SingleRoundingUpward::requantize(4, p));
  EXPECT_FALSE(InDomain(RoundingCore::kSingleRoundingUpward, 4, p));
  const RequantParams p0 = Q31(k2p30, 0);
  EXPECT_GT(SingleRoundingUpwardNeon::requantize(k2p30 - 1, p0), SingleRoundingUpwardNeon::requantize(k2p30, p0));
  EXPECT_FALSE(InDomain(RoundingCore::kSingleRoundingUpwardNeon, k2p30, p0));
}

// ------------------------------------- |DR - SR| <= 1 ----------------------------------------

TEST(ReferencePolicyPropertiesDoubleVsSingle, DoubleRoundingWithinOneOfSingleRounding) {
  std::uint64_t checked = 0, az_differs = 0, up_differs = 0;
  RcCheck([&] {
    const RequantParams p = Q31(GenQ31Multiplier(), qparity_test::Uniform(-31, 31));
    const std::int32_t acc0 = GenAcc();
    for (std::int64_t a = acc0; a < std::int64_t{acc0} + 256 && a <= kMax; ++a) {
      const auto x = static_cast<std::int32_t>(a);
      if (!InDomain(RoundingCore::kDoubleRoundingAwayFromZero, x, p) ||
          !InDomain(RoundingCore::kSingleRoundingUpward, x, p))
        continue;
      const std::int64_t sr = SingleRoundingUpward::requantize(x, p);
      const std::int64_t az = DoubleRoundingAwayFromZero::requantize(x, p);
      const std::int64_t up = DoubleRoundingUpward::requantize(x, p);
      RC_ASSERT(az - sr <= 1);
      RC_ASSERT(sr - az <= 1);
      RC_ASSERT(up - sr <= 1);
      RC_ASSERT(sr - up <= 1);
      ++checked;
      az_differs += az != sr;
      up_differs += up != sr;
    }
  });
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(az_differs, 0u) << "DR-AZ never differed from SR-UP: the property was vacuous";
  EXPECT_GT(up_differs, 0u) << "DR-UP never differed from SR-UP: the property was vacuous";
}

// ------------------------- power-of-two scales: exact values and ties ------------------------

// The value each core returns (before the zero point) for acc = v * 2^s + 2^(s-1) + d, i.e. the
// real value v + 1/2 + d / 2^s with scale 2^-s (M = 2^30, shift = 1 - s), for d in {-1, 0, +1}.
// Closed forms, derived in the comments.
std::int64_t ExpectedNearTie(RoundingCore core, std::int64_t v, int s, int d) {
  const bool v_even = v % 2 == 0;
  switch (core) {
    case RoundingCore::kDoubleRoundingAwayFromZero:
      // SRDHM(acc, 2^30) = floor((acc + 1) / 2). s = 1 (no second step): the tie v + 0.5 goes up
      // (HU). s >= 2: at the tie SRDHM is exact and RDBPOT sees v + 1/2 -> HAZ; just below, SRDHM
      // rounds (acc + 1)/2 up onto the tie, which RDBPOT rounds away (v + 1 for v >= 0, v for
      // v < 0) -- the double-rounding error; just above -> v + 1.
      if (s == 1) return v + 1;
      if (d == 1) return v + 1;
      return v >= 0 ? v + 1 : v;
    case RoundingCore::kDoubleRoundingUpward:
      // Both steps half up; just below the first step creates a tie that goes up as well.
      if (s == 1) return v + 1;
      return v + 1;
    case RoundingCore::kSingleRoundingUpward:
    case RoundingCore::kSingleRoundingUpwardNeon:
    case RoundingCore::kQ15:
      return d < 0 ? v : v + 1;  // HU
    case RoundingCore::kSingleRoundingAwayFromZero:
      if (d != 0) return d < 0 ? v : v + 1;
      return v >= 0 ? v + 1 : v;  // HAZ: v + 1/2 with v <= -1 is negative -> v
    case RoundingCore::kSingleRoundingToEven:
    case RoundingCore::kFloat32:  // exact in float for |acc| <= 2^24 (checked by the caller)
      if (d != 0) return d < 0 ? v : v + 1;
      return v_even ? v : v + 1;
    case RoundingCore::kTruncate:
      return v >= 0 ? v : v + 1;  // toward zero; the value stays strictly between v and v + 1
    case RoundingCore::kFloor:
      return v;
    case RoundingCore::kFloat32ZeroPointInside:
      break;  // handled by the caller (the zero point takes part in the rounding)
  }
  return 0;
}

RequantParams PowerOfTwoParams(RoundingCore core, int shift) {
  RequantParams p;
  if (core == RoundingCore::kQ15) {
    p.multiplier = 1 << 14;  // 0.5 in Q15
  } else {
    p.multiplier = k2p30;  // 0.5 in Q31
  }
  p.shift = shift;
  p.scale = std::ldexp(1.0f, shift - 1);
  return p;
}

std::int64_t Clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

TEST_P(PolicyPropertiesByCore, PowerOfTwoExactAndTieClosedFormsEveryShiftAndZeroPoint) {
  {
    const RoundingCore core = GetParam();
    std::uint64_t exact_checked = 0, tie_checked = 0, near_checked = 0;
    for (OutputType type : {OutputType::kInt8, OutputType::kUint8}) {
      const std::int32_t qmin = output_type_min(type), qmax = output_type_max(type);
      // Scale 2^-s, s = 1..32: shift = 1 - s in [-31, 0].
      for (int s = 1; s <= 32; ++s) {
        const RequantParams p = PowerOfTwoParams(core, 1 - s);
        validate(core, p);
        for (std::int32_t zp = qmin; zp <= qmax; ++zp) {
          const OutputParams out = full_range_output(type, zp);
          auto run = [&](std::int64_t acc) {
            return visit_rounding_core(core, [&](auto policy) {
              return requantize_to_output<decltype(policy)>(static_cast<std::int32_t>(acc), p, out);
            });
          };
          auto in_domain = [&](std::int64_t acc) {
            if (acc < kMin || acc > kMax) return false;
            if (is_float_core(core) && (acc > (1 << 24) || acc < -(1 << 24))) return false;
            return InDomain(core, static_cast<std::int32_t>(acc), p);
          };
          for (std::int32_t q = qmin; q <= qmax; ++q) {
            const std::int64_t v = std::int64_t{q} - zp;
            const std::int64_t base = v * (std::int64_t{1} << s);
            // Exactly representable value v: every core returns q.
            if (in_domain(base)) {
              EXPECT_EQ(run(base), q) << "exact: s=" << s << " zp=" << zp << " q=" << q;
              ++exact_checked;
            }
            // Half-way v + 1/2 (d = 0), and for s >= 2 just below (d = -1) / above (d = +1).
            for (int d = -1; d <= 1; ++d) {
              if (s == 1 && d != 0) continue;  // with s = 1, +-1 lands on integers
              const std::int64_t acc = base + (std::int64_t{1} << (s - 1)) + d;
              if (!in_domain(acc)) continue;
              std::int64_t expected;
              // F32-ZPF adds zp in float: v + 1/2 + d/2^s + zp is exact only while it fits the
              // 24-bit significand (|q| < 2^8 needs s <= 15 for the d/2^s part).
              if (core == RoundingCore::kFloat32ZeroPointInside && d != 0 && s > 15) continue;
              if (core == RoundingCore::kFloat32ZeroPointInside) {
                // RNE(v + 1/2 + d/2^s + zp) = RNE(q + 1/2 + d/2^s): q even -> q at the tie.
                expected = d < 0 ? q : d > 0 ? q + 1 : (q % 2 == 0 ? q : q + 1);
              } else {
                expected = ExpectedNearTie(core, v, s, d) + zp;
              }
              EXPECT_EQ(run(acc), Clamp(expected, qmin, qmax))
                  << "s=" << s << " zp=" << zp << " q=" << q << " d=" << d;
              ++(d == 0 ? tie_checked : near_checked);
            }
          }
        }
      }
      // Scales >= 1 (shift = 1..30, scale 2^(shift-1)): every integer acc gives an exact
      // integer; check it and the clamp.
      for (int shift = 1; shift <= 30; ++shift) {
        if (core == RoundingCore::kQ15 && shift > kQ15ShiftMax) continue;  // Q15 shift <= 13
        const RequantParams p = PowerOfTwoParams(core, shift);
        validate(core, p);
        for (std::int32_t zp : {qmin, 0, 1, qmax}) {
          if (zp < qmin || zp > qmax) continue;
          const OutputParams out = full_range_output(type, zp);
          for (std::int64_t acc = -300; acc <= 300; ++acc) {
            const std::int64_t exact = acc * (std::int64_t{1} << (shift - 1));
            if (!InDomain(core, static_cast<std::int32_t>(acc), p)) continue;
            if (is_float_core(core) && (exact > (1 << 24) || exact < -(1 << 24))) continue;
            const std::int32_t got = visit_rounding_core(core, [&](auto policy) {
              return requantize_to_output<decltype(policy)>(static_cast<std::int32_t>(acc), p, out);
            });
            EXPECT_EQ(got, Clamp(exact + zp, qmin, qmax)) << "shift=" << shift << " acc=" << acc;
            ++exact_checked;
          }
        }
      }
    }
    EXPECT_GT(exact_checked, 100000u);
    EXPECT_GT(tie_checked, 50000u);
    EXPECT_GT(near_checked, 50000u);
  }
}

// --------------------------------------- odd symmetry ----------------------------------------

TEST(ReferencePolicyPropertiesSymmetry, SrAzSrEvenTruncAndF32AreOddSymmetric) {
  const RoundingCore symmetric[] = {RoundingCore::kSingleRoundingAwayFromZero,
                                    RoundingCore::kSingleRoundingToEven, RoundingCore::kTruncate,
                                    RoundingCore::kFloat32};
  for (RoundingCore core : symmetric) {
    SCOPED_TRACE(Name(core));
    std::uint64_t ties = 0, nonzero = 0;  // ties are counted for the integer cores
    RcCheck([&] {
      RequantParams p = GenParams(core);
      std::int32_t x0 = GenAcc();
      if (qparity_test::Uniform(0, 3) == 0) {
        // Aim at exact ties: scale 2^-(R+1) (M = 2^30, shift = -R; float scale likewise) and
        // x0 = (2k + 1) * 2^R, value k + 1/2.
        const int r = qparity_test::Uniform(0, 23);
        p.multiplier = k2p30;
        p.shift = -r;
        p.scale = std::ldexp(1.0f, -r - 1);
        const std::int32_t k = qparity_test::Uniform(-200, 200);
        x0 = (2 * k + 1) * (1 << r);
      }
      for (std::int64_t a = x0; a < std::int64_t{x0} + 64 && a <= kMax; ++a) {
        const auto x = static_cast<std::int32_t>(a);
        if (x == kMin || !InDomain(core, x, p) || !InDomain(core, -x, p)) continue;
        const std::int32_t pos = requantize(core, x, p), neg = requantize(core, -x, p);
        // F32 saturates to [INT32_MIN, INT32_MAX], which is not symmetric: skip saturated values.
        if (is_float_core(core) && (pos == kMax || pos == kMin || neg == kMax || neg == kMin)) continue;
        RC_ASSERT(neg == -pos);
        nonzero += pos != 0;
        if (!is_float_core(core)) {
          const i128 prod = static_cast<i128>(x) * p.multiplier;
          const int k = 31 - p.shift;
          ties += (prod - qparity_test::FloorDivPow2(prod, k) * (i128{1} << k)) == (i128{1} << (k - 1));
        }
      }
    });
    EXPECT_GT(nonzero, 100u);
    if (!is_float_core(core)) {
      EXPECT_GT(ties, 0u) << "no exact tie was exercised";
    }
  }
}

TEST(ReferencePolicyPropertiesSymmetry, DrAzIsNotOddSymmetric) {
  // §11.1: +2.5 -> 3 but -2.5 -> -2 (SRDHM alone, half up).
  EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(5, Q31(k2p30, 0)), 3);
  EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(-5, Q31(k2p30, 0)), -2);
  // For every right shift R = 1..31: x = 2^R - 1, M = 2^30 (exact value 1/2 - 2^-(R+1), just
  // below a tie). SRDHM rounds x/2 = 2^(R-1) - 1/2 up onto the tie 2^(R-1), which RDBPOT rounds
  // away to 1; for -x SRDHM rounds -2^(R-1) + 1/2 up to -(2^(R-1) - 1), which rounds to 0.
  // So DR-AZ(x) = 1 but DR-AZ(-x) = 0, whereas the correct (and SR-AZ / SR-EVEN / TRUNC) values
  // are 0 and 0.
  for (int r = 1; r <= 31; ++r) {
    SCOPED_TRACE(r);
    const std::int32_t x = static_cast<std::int32_t>((std::int64_t{1} << r) - 1);
    const RequantParams p = Q31(k2p30, -r);
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(x, p), 1);
    EXPECT_EQ(DoubleRoundingAwayFromZero::requantize(-x, p), 0);
    EXPECT_EQ(SingleRoundingAwayFromZero::requantize(x, p), 0);
    EXPECT_EQ(SingleRoundingAwayFromZero::requantize(-x, p), 0);
    EXPECT_EQ(SingleRoundingToEven::requantize(x, p), 0);
    EXPECT_EQ(TruncateTowardZero::requantize(-x, p), 0);
  }
  // SR-UP and FLOOR are not odd-symmetric either (ties up; floor).
  EXPECT_EQ(SingleRoundingUpward::requantize(5, Q31(k2p30, 0)), 3);
  EXPECT_EQ(SingleRoundingUpward::requantize(-5, Q31(k2p30, 0)), -2);
  EXPECT_EQ(FloorRounding::requantize(3, Q31(k2p30, -1)), 0);
  EXPECT_EQ(FloorRounding::requantize(-3, Q31(k2p30, -1)), -1);
}

// -------------------------------- wide (int64) accumulators ----------------------------------

Tie TieOf(RoundingCore core) {
  switch (core) {
    case RoundingCore::kSingleRoundingUpward: return Tie::HU;
    case RoundingCore::kSingleRoundingAwayFromZero: return Tie::HAZ;
    case RoundingCore::kSingleRoundingToEven: return Tie::HE;
    case RoundingCore::kTruncate: return Tie::TZ;
    default: return Tie::FL;
  }
}

template <class Policy>
void CheckWideSingleRounding() {
  const RoundingCore core = Policy::kCore;
  SCOPED_TRACE(Name(core));
  std::uint64_t fits = 0, wraps = 0, nonzero = 0;
  RcCheck([&] {
    const RequantParams p = Q31(GenQ31Multiplier(), qparity_test::Uniform(-31, 31));
    // On int32 values the wide path equals the int32 path.
    const std::int32_t a32 = GenAcc();
    RC_ASSERT(Policy::requantize_wide(a32, p) == Policy::requantize(a32, p));
    // On random int64 values it equals the exact model (narrowed modulo 2^32, as documented).
    const int bits = qparity_test::Uniform(0, 64);
    const std::uint64_t mag = qparity_test::Uniform<std::uint64_t>(0, bits == 63 ? ~std::uint64_t{0} >> 1 : std::uint64_t{1} << bits);
    const std::int64_t a = qparity_test::Coin() ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
    const i128 exact = RoundDivPow2(static_cast<i128>(a) * p.multiplier, 31 - p.shift, TieOf(core));
    RC_ASSERT(Policy::requantize_wide(a, p) == qparity_test::Wrap32(exact));
    fits += qparity_test::FitsInt32(exact);
    wraps += !qparity_test::FitsInt32(exact);
    nonzero += exact != 0;
  });
  EXPECT_GT(fits, 0u);
  EXPECT_GT(wraps, 0u);
  EXPECT_GT(nonzero, 0u);
}

TEST(ReferencePolicyPropertiesWide, SingleRoundingWideMatchesInt32PathAndExactModel) {
  CheckWideSingleRounding<SingleRoundingUpward>();
  CheckWideSingleRounding<SingleRoundingAwayFromZero>();
  CheckWideSingleRounding<SingleRoundingToEven>();
  CheckWideSingleRounding<TruncateTowardZero>();
  CheckWideSingleRounding<FloorRounding>();
}

TEST(ReferencePolicyPropertiesWide, WideTiesAtLargeMagnitude) {
  // Scale 2^-32 (M = 2^30, shift = -31); acc = 2561 * 2^31 (about 5.5e12, beyond int32) gives the
  // exact tie 1280.5.
  const RequantParams p = Q31(k2p30, -31);
  const std::int64_t tie = 2561 * (std::int64_t{1} << 31);
  EXPECT_EQ(SingleRoundingUpward::requantize_wide(tie, p), 1281);
  EXPECT_EQ(SingleRoundingAwayFromZero::requantize_wide(tie, p), 1281);
  EXPECT_EQ(SingleRoundingToEven::requantize_wide(tie, p), 1280);
  EXPECT_EQ(TruncateTowardZero::requantize_wide(tie, p), 1280);
  EXPECT_EQ(FloorRounding::requantize_wide(tie, p), 1280);
  EXPECT_EQ(SingleRoundingUpward::requantize_wide(-tie, p), -1280);
  EXPECT_EQ(SingleRoundingAwayFromZero::requantize_wide(-tie, p), -1281);
  EXPECT_EQ(SingleRoundingToEven::requantize_wide(-tie, p), -1280);
  EXPECT_EQ(TruncateTowardZero::requantize_wide(-tie, p), -1280);
  EXPECT_EQ(FloorRounding::requantize_wide(-tie, p), -1281);
  // The int64 extremes: INT64_MIN * 2^-32 = -2^31 exactly (fits); INT64_MAX * 2^-32 =
  // 2^31 - 2^-32, which rounds to 2^31 (wraps to INT32_MIN) but floors/truncates to 2^31 - 1.
  EXPECT_EQ(SingleRoundingUpward::requantize_wide(INT64_MIN, p), kMin);
  EXPECT_EQ(FloorRounding::requantize_wide(INT64_MIN, p), kMin);
  EXPECT_EQ(SingleRoundingUpward::requantize_wide(INT64_MAX, p), kMin);
  EXPECT_EQ(SingleRoundingToEven::requantize_wide(INT64_MAX, p), kMin);
  EXPECT_EQ(FloorRounding::requantize_wide(INT64_MAX, p), kMax);
  EXPECT_EQ(TruncateTowardZero::requantize_wide(INT64_MAX, p), kMax);
}

TEST(ReferencePolicyPropertiesWide, Q15AndFloatWideEqualInt32PathOnInt32Values) {
  RcCheck([] {
    const std::int32_t a = GenAcc();
    const RequantParams q = GenParams(RoundingCore::kQ15);
    RC_ASSERT(Q15Rounding::requantize_wide(a, q) == Q15Rounding::requantize(a, q));
    const RequantParams f = GenParams(RoundingCore::kFloat32);
    RC_ASSERT(Float32Rounding::requantize_wide(a, f) == Float32Rounding::requantize(a, f));
    const RequantParams z = GenParams(RoundingCore::kFloat32ZeroPointInside);
    const std::int32_t zp = qparity_test::Uniform(-128, 128);
    RC_ASSERT(Float32ZeroPointInside::requantize_wide(a, z) == Float32ZeroPointInside::requantize(a, z));
    RC_ASSERT(Float32ZeroPointInside::requantize_wide_with_zero_point(a, z, zp) ==
              Float32ZeroPointInside::requantize_with_zero_point(a, z, zp));
  });
}

INSTANTIATE_TEST_SUITE_P(Reference, PolicyPropertiesByCore, ::testing::ValuesIn(kAllRoundingCores),
                         [](const ::testing::TestParamInfo<RoundingCore>& info) {
                           std::string n = to_string(info.param);
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

}  // namespace
