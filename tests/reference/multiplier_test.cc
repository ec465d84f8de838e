// Multiplier derivation (multiplier.h) and scale composition (scale_composition.h):
// TFLite QuantizeMultiplier both builds (§3.1, §11.8), XNNPACK float mantissa (§6.1), Q15 reduce vs
// direct (§3.3, §5.3, §11.6), FBGEMM (§10), compose_scale (§3.1, §6.3, §9, §19.1).
#include <cmath>
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::RcCheck;

// A random positive double with a full 53-bit mantissa and binary exponent in [e_lo, e_hi].
double GenScale(int e_lo, int e_hi) {
  const std::uint64_t frac = qparity_test::Uniform<std::uint64_t>(0, std::uint64_t{1} << 52);
  const int e = qparity_test::Uniform(e_lo, e_hi + 1);
  return std::ldexp(static_cast<double>(frac | (std::uint64_t{1} << 52)), e - 52);
}

// ------------------------------- TFLite QuantizeMultiplier -----------------------------------

TEST(ReferenceMultiplier, TfliteRandomScalesReconstructWithin2PowMinus31) {
  int distinct_shifts = 0, last_shift = 1000;
  RcCheck([&] {
    // m in [2^-32, 2^29): frexp exponent in [-31, 29], where neither build flushes nor saturates
    // (even after the mantissa bump).
    const double m = GenScale(-32, 28);
    for (TfliteBuild build : {TfliteBuild::kDoubleRounding, TfliteBuild::kSingleRounding}) {
      const QuantizedMultiplier q = quantize_multiplier_tflite(m, build);
      RC_ASSERT(q.multiplier >= k2p30);
      RC_ASSERT(q.multiplier <= kMax);
      RC_ASSERT(q.shift >= -31);
      RC_ASSERT(q.shift <= 30);
      const double real = multiplier_to_double(q);
      // HAZ to the nearest Q31 step: error <= half a step = 2^(shift-32), relative <= 2^-31.
      RC_ASSERT(std::fabs(real - m) <= std::ldexp(1.0, q.shift - 32));
      RC_ASSERT(std::fabs(real - m) / m <= std::ldexp(1.0, -31));
      // The mantissa is the frexp mantissa rounded (independent recomputation).
      int e = 0;
      const double fr = std::frexp(m, &e);
      const double rounded = std::round(std::ldexp(fr, 31));
      if (rounded == 2147483648.0) {
        RC_ASSERT(q == (QuantizedMultiplier{k2p30, e + 1}));
      } else {
        RC_ASSERT(q == (QuantizedMultiplier{static_cast<std::int32_t>(rounded), e}));
      }
    }
    if (quantize_multiplier_tflite(m).shift != last_shift) {
      ++distinct_shifts;
      last_shift = quantize_multiplier_tflite(m).shift;
    }
  });
  EXPECT_GT(distinct_shifts, 10);  // the generator really spreads the exponent
}

TEST(ReferenceMultiplier, TfliteTiesRoundHalfAwayFromZero) {
  // (2^30 + 0.5) / 2^31: q * 2^31 = 2^30 + 0.5 exactly -> HAZ 2^30 + 1.
  EXPECT_EQ(quantize_multiplier_tflite(0.5 + 0x1p-32), (QuantizedMultiplier{k2p30 + 1, 0}));
  // (2^30 + 1.5) / 2^31 -> 2^30 + 2.
  EXPECT_EQ(quantize_multiplier_tflite(0.5 + 3 * 0x1p-32), (QuantizedMultiplier{k2p30 + 2, 0}));
  // Just below 1.0 (in the mantissa): 2^31 - 0.5 -> 2^31 -> halved, exponent + 1.
  EXPECT_EQ(quantize_multiplier_tflite(1.0 - 0x1p-32), (QuantizedMultiplier{k2p30, 1}));
  // 2^31 - 0.5 - 2^-21 rounds down to 2^31 - 1.
  EXPECT_EQ(quantize_multiplier_tflite(std::ldexp(2147483647.5 - 0x1p-21, -31)),
            (QuantizedMultiplier{kMax, 0}));
}

TEST(ReferenceMultiplier, TfliteFlushAndSaturationBoundaries) {
  for (TfliteBuild b : {TfliteBuild::kDoubleRounding, TfliteBuild::kSingleRounding}) {
    // 2^-32 = 0.5 * 2^-31: exponent -31 is kept.
    EXPECT_EQ(quantize_multiplier_tflite(0x1p-32, b), (QuantizedMultiplier{k2p30, -31}));
    // Just below 2^-32 the frexp exponent is -32, but the mantissa rounds to 2^31 and the bump
    // brings it back to -31 (the flush test comes after the bump, as in TFLite).
    EXPECT_EQ(quantize_multiplier_tflite(std::nextafter(0x1p-32, 0.0), b),
              (QuantizedMultiplier{k2p30, -31}));
    // Clearly below: flushed to (0, 0).
    EXPECT_EQ(quantize_multiplier_tflite(0x1p-33, b), (QuantizedMultiplier{0, 0}));
    EXPECT_EQ(quantize_multiplier_tflite(0.75 * 0x1p-32, b), (QuantizedMultiplier{0, 0}));
    EXPECT_EQ(quantize_multiplier_tflite(1e-300, b), (QuantizedMultiplier{0, 0}));
    // Largest scale with exponent 30 (2^30 <= m < 2^30 * (1 - 2^-32)): same in both builds.
    EXPECT_EQ(quantize_multiplier_tflite(0x1p29, b), (QuantizedMultiplier{k2p30, 30}));
  }
  // Exponent 31: DR build keeps it, SR build saturates to (2^31 - 1, 30).
  EXPECT_EQ(quantize_multiplier_tflite(0x1p30), (QuantizedMultiplier{k2p30, 31}));
  EXPECT_EQ(quantize_multiplier_tflite(0x1p30, TfliteBuild::kSingleRounding),
            (QuantizedMultiplier{kMax, 30}));
  EXPECT_EQ(quantize_multiplier_tflite(1e300, TfliteBuild::kSingleRounding), (QuantizedMultiplier{kMax, 30}));
  EXPECT_GT(quantize_multiplier_tflite(1e300).shift, 30);
  RcCheck([] {
    const double m = GenScale(30, 200);
    RC_ASSERT(quantize_multiplier_tflite(m, TfliteBuild::kSingleRounding) == (QuantizedMultiplier{kMax, 30}));
    RC_ASSERT(quantize_multiplier_tflite(m, TfliteBuild::kDoubleRounding).shift > 30);
  });
}

// ------------------------------- XNNPACK float mantissa --------------------------------------

// XNNPACK rndnu (§6.1), written from the bits of the float: M24 = mantissa with hidden bit,
// s = 150 - biased_exponent, y = (acc * M24 + 2^(s-1)) >> s.
std::int32_t XnnpackRndnu(std::int32_t acc, float scale) {
  std::uint32_t bits;
  std::memcpy(&bits, &scale, 4);
  const std::int64_t m24 = (bits & 0x7FFFFF) | 0x800000;
  const int s = 150 - static_cast<int>(bits >> 23);
  return static_cast<std::int32_t>((acc * m24 + (std::int64_t{1} << (s - 1))) >> s);
}

TEST(ReferenceMultiplier, FloatMantissaRepresentsTheFloatExactly) {
  RcCheck([] {
    // Any float in [2^-32, 256).
    const std::uint32_t mant = qparity_test::Uniform<std::uint32_t>(0, 1u << 23);
    const int e = qparity_test::Uniform(-32, 8);
    const float scale = std::ldexp(static_cast<float>(mant | (1u << 23)), e - 23);
    RC_PRE(scale >= 0x1p-32f && scale < 256.0f);
    const QuantizedMultiplier q = quantize_multiplier_float_mantissa(scale);
    RC_ASSERT(multiplier_to_double(q) == static_cast<double>(scale));
    RC_ASSERT(q.multiplier % 128 == 0);  // M24 << 7
    RC_ASSERT(q.multiplier >= k2p30);
    RC_ASSERT(q.multiplier <= 0x7FFFFF80);
    RC_ASSERT(q.shift >= -31);
    RC_ASSERT(q.shift <= 8);
    // SR-UP with these parameters is XNNPACK's rndnu formula.
    const std::int32_t acc = *rc::gen::arbitrary<std::int32_t>();
    RequantParams p;
    p.multiplier = q.multiplier;
    p.shift = q.shift;
    RC_ASSERT(SingleRoundingUpward::requantize(acc, p) == XnnpackRndnu(acc, scale));
  });
  EXPECT_EQ(quantize_multiplier_float_mantissa(0x1p-32f), (QuantizedMultiplier{k2p30, -31}));
  EXPECT_EQ(quantize_multiplier_float_mantissa(0.25f), (QuantizedMultiplier{k2p30, -1}));
  EXPECT_EQ(quantize_multiplier_float_mantissa(std::nextafter(256.0f, 0.0f)),
            (QuantizedMultiplier{0x7FFFFF80, 8}));
  // Not the TFLite Q31 multiplier of the same value when the float has more than 24 bits... it
  // never does; but the double 0.1 and the float 0.1f give different multipliers.
  EXPECT_NE(quantize_multiplier_float_mantissa(0.1f), quantize_multiplier_tflite(0.1));
  EXPECT_EQ(quantize_multiplier_float_mantissa(0.1f), quantize_multiplier_tflite(static_cast<double>(0.1f)));
}

// ---------------------------------------- Q15 ------------------------------------------------

TEST(ReferenceMultiplier, Q15ReduceFromQ31) {
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0, 0}), (QuantizedMultiplier{0, 0}));
  EXPECT_EQ(reduce_multiplier_q31_to_q15({k2p30, -3}), (QuantizedMultiplier{1 << 14, -3}));
  // Half-up: 0x40008000 -> 0x4001 (tie up), 0x40007FFF -> 0x4000.
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0x40008000, 0}).multiplier, 0x4001);
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0x40007FFF, 0}).multiplier, 0x4000);
  // Cap: M >= 0x7FFF0000 -> 0x7FFF; just below the cap (M + 2^15) >> 16 is still 0x7FFF.
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0x7FFF0000, 2}), (QuantizedMultiplier{0x7FFF, 2}));
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0x7FFF8000, 2}), (QuantizedMultiplier{0x7FFF, 2}));
  EXPECT_EQ(reduce_multiplier_q31_to_q15({kMax, 2}), (QuantizedMultiplier{0x7FFF, 2}));
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0x7FFEFFFF, 2}), (QuantizedMultiplier{0x7FFF, 2}));
  EXPECT_EQ(reduce_multiplier_q31_to_q15({0x7FFE7FFF, 2}), (QuantizedMultiplier{0x7FFE, 2}));
  RcCheck([] {
    const std::int32_t m = qparity_test::Uniform<std::int32_t>(0, kMax);
    const std::int32_t shift = qparity_test::Uniform(-31, 31);
    const QuantizedMultiplier r = reduce_multiplier_q31_to_q15({m, shift});
    RC_ASSERT(r.shift == shift);
    const std::int64_t expected = m < 0x7FFF0000 ? (std::int64_t{m} + 32768) / 65536 : 0x7FFF;
    RC_ASSERT(r.multiplier == expected);
    RC_ASSERT(r.multiplier <= 0x7FFF);
  });
}

TEST(ReferenceMultiplier, Q15DirectVersusReduced) {
  // §11.6 rows (also in golden_vectors_test): direct rounding differs from reduce-from-Q31.
  EXPECT_EQ(quantize_multiplier_q15_direct(0.0748653411738368).multiplier, 19625);
  EXPECT_EQ(reduce_multiplier_q31_to_q15(quantize_multiplier_tflite(0.0748653411738368)).multiplier, 19626);
  RcCheck([] {
    const double m = GenScale(-31, 20);
    const QuantizedMultiplier d = quantize_multiplier_q15_direct(m);
    RC_ASSERT(d.multiplier >= (1 << 14));
    RC_ASSERT(d.multiplier <= 0x7FFF);
    // Nearest Q15 value: error <= half a step.
    RC_ASSERT(std::fabs(multiplier_to_double(d, 15) - m) <= std::ldexp(1.0, d.shift - 16));
    const QuantizedMultiplier q31 = quantize_multiplier_tflite(m);
    const QuantizedMultiplier r = reduce_multiplier_q31_to_q15(q31);
    // Both encode nearly the same real value: within one Q15 step of each other.
    const double step = std::ldexp(1.0, std::max(d.shift, r.shift) - 15);
    RC_ASSERT(std::fabs(multiplier_to_double(d, 15) - multiplier_to_double(r, 15)) <= step);
  });
  // The exponent bump of the direct rounding.
  EXPECT_EQ(quantize_multiplier_q15_direct(0.031249862618088618), (QuantizedMultiplier{16384, -4}));
  EXPECT_EQ(quantize_multiplier_q15_direct(1.0), (QuantizedMultiplier{16384, 1}));
  // HAZ on the Q15 tie: q * 2^15 = 16384.5.
  EXPECT_EQ(quantize_multiplier_q15_direct(16384.5 / 32768.0), (QuantizedMultiplier{16385, 0}));
}

// --------------------------------------- FBGEMM ----------------------------------------------

TEST(ReferenceMultiplier, Fbgemm) {
  EXPECT_EQ(quantize_multiplier_fbgemm(0.5), (QuantizedMultiplier{k2p30, 0}));
  EXPECT_EQ(quantize_multiplier_fbgemm(1.0), (QuantizedMultiplier{k2p30, 1}));
  EXPECT_EQ(quantize_multiplier_fbgemm(0.75), (QuantizedMultiplier{1610612736, 0}));
  EXPECT_EQ(quantize_multiplier_fbgemm(1.5), (QuantizedMultiplier{1610612736, 1}));
  EXPECT_EQ(quantize_multiplier_fbgemm(0.0037), quantize_multiplier_tflite(0.0037));
  // nearbyint is round-half-EVEN: (2^30 + 0.5) -> 2^30, where TFLite's HAZ gives 2^30 + 1.
  EXPECT_EQ(quantize_multiplier_fbgemm(0.5 + 0x1p-32), (QuantizedMultiplier{k2p30, 0}));
  EXPECT_EQ(quantize_multiplier_tflite(0.5 + 0x1p-32), (QuantizedMultiplier{k2p30 + 1, 0}));
  EXPECT_EQ(quantize_multiplier_fbgemm(0.5 + 3 * 0x1p-32), (QuantizedMultiplier{k2p30 + 2, 0}));
  // No flush and no saturation: tiny and huge scales keep their exponent.
  EXPECT_EQ(quantize_multiplier_fbgemm(0x1p-40), (QuantizedMultiplier{k2p30, -39}));
  EXPECT_EQ(quantize_multiplier_fbgemm(3e9), (QuantizedMultiplier{1500000000, 32}));
  int same = 0;
  RcCheck([&] {
    const double m = GenScale(-31, 29);
    const QuantizedMultiplier f = quantize_multiplier_fbgemm(m);
    const QuantizedMultiplier t = quantize_multiplier_tflite(m);
    // Same except on exact ties of q * 2^31, where RNE and HAZ pick neighbours.
    int e = 0;
    const double scaled = std::ldexp(std::frexp(m, &e), 31);
    if (scaled - std::floor(scaled) != 0.5) {
      RC_ASSERT(f == t);
      ++same;
    } else {
      RC_ASSERT(f.shift == t.shift);
      RC_ASSERT(t.multiplier - f.multiplier == (f.multiplier % 2 == 0 ? 1 : -1));
    }
  });
  EXPECT_GT(same, 0);
}

// ----------------------------------- compose_scale -------------------------------------------

TEST(ReferenceScaleComposition, AllFourCompositionsOnTable11_6Rows) {
  struct Row {
    float s_in, s_w, s_out;
    double double_scale;
    float float_scale;
  };
  const Row rows[] = {
      {0.00140596379f, 0.00894607045f, 0.0273668021f, 0.00045960251669771687, 0.000459602539f},
      {0.0617987774f, 0.00524291256f, 0.218587115f, 0.0014822721186344189, 0.00148227206f},
      {0.0154719995f, 0.000355372089f, 0.0122621255f, 0.00044839834617762305, 0.000448398321f},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.s_in);
    // kDouble: every scale widened first (TFLite int8/int16).
    const EffectiveScale d = compose_scale(ScaleComposition::kDouble, r.s_in, r.s_w, r.s_out);
    EXPECT_EQ(d.scale, r.double_scale);
    EXPECT_EQ(d.post_scale, 1.0f);
    // kFloat: float(float(s_in * s_w) / s_out) (XNNPACK / ORT / PyTorch).
    const EffectiveScale f = compose_scale(ScaleComposition::kFloat, r.s_in, r.s_w, r.s_out);
    EXPECT_EQ(f.scale, static_cast<double>(r.float_scale));
    EXPECT_EQ(f.post_scale, 1.0f);
    // kFloatProductThenDouble: double(float(s_in * s_w)) / double(s_out) (TFLite legacy uint8).
    volatile float product = r.s_in * r.s_w;  // one float rounding
    const EffectiveScale fpd =
        compose_scale(ScaleComposition::kFloatProductThenDouble, r.s_in, r.s_w, r.s_out);
    EXPECT_EQ(fpd.scale, static_cast<double>(product) / static_cast<double>(r.s_out));
    EXPECT_EQ(fpd.post_scale, 1.0f);
    // kFloatTwoStep: scale = float(s_in * s_w), post_scale = 1.f / s_out (oneDNN).
    const EffectiveScale two = compose_scale(ScaleComposition::kFloatTwoStep, r.s_in, r.s_w, r.s_out);
    EXPECT_EQ(two.scale, static_cast<double>(product));
    volatile float inv = 1.0f / r.s_out;
    EXPECT_EQ(two.post_scale, inv);
    // The compositions really give different effective scales on these rows.
    EXPECT_NE(d.scale, f.scale);
    EXPECT_NE(d.scale, fpd.scale);
    EXPECT_NE(fpd.scale, f.scale);
    EXPECT_NE(static_cast<double>(static_cast<float>(two.scale * two.post_scale)), d.scale);
  }
  EXPECT_STREQ(to_string(ScaleComposition::kDouble), "double");
  EXPECT_STREQ(to_string(ScaleComposition::kFloatProductThenDouble), "float-product-then-double");
  EXPECT_STREQ(to_string(ScaleComposition::kFloat), "float");
  EXPECT_STREQ(to_string(ScaleComposition::kFloatTwoStep), "float-two-step");
}

TEST(ReferenceScaleComposition, RandomScalesMatchIndependentFormulas) {
  RcCheck([] {
    auto gen_scale = [] {
      const std::uint32_t mant = qparity_test::Uniform<std::uint32_t>(0, 1u << 23);
      const int e = qparity_test::Uniform(-20, 2);
      return std::ldexp(static_cast<float>(mant | (1u << 23)), e - 23);
    };
    const float a = gen_scale(), b = gen_scale(), c = gen_scale();
    volatile float prod = a * b;
    volatile float q = prod / c;
    RC_ASSERT(compose_scale(ScaleComposition::kDouble, a, b, c).scale ==
              static_cast<double>(a) * static_cast<double>(b) / static_cast<double>(c));
    RC_ASSERT(compose_scale(ScaleComposition::kFloat, a, b, c).scale == static_cast<double>(q));
    RC_ASSERT(compose_scale(ScaleComposition::kFloatProductThenDouble, a, b, c).scale ==
              static_cast<double>(prod) / static_cast<double>(c));
    RC_ASSERT(compose_scale(ScaleComposition::kFloatTwoStep, a, b, c).scale == static_cast<double>(prod));
  });
}

// ------------------------------ derive_requant_params (by core) ------------------------------

TEST(ReferenceMultiplier, DeriveRequantParamsWidensAndReduces) {
  const EffectiveScale eff{0.0123456789, 1.0f};
  // Q31 derivation for a Q31 core: as derived.
  RequantParams p = derive_requant_params(RoundingCore::kSingleRoundingUpward,
                                          MultiplierDerivation::kTfliteDoubleBuild, eff);
  EXPECT_EQ(p.multiplier, 1696777188);
  EXPECT_EQ(p.shift, -6);
  // Q31 derivation for the Q15 core: reduced (TFLite int16x8).
  p = derive_requant_params(RoundingCore::kQ15, MultiplierDerivation::kTfliteDoubleBuild, eff);
  EXPECT_EQ(p.multiplier, 25891);
  EXPECT_EQ(p.shift, -6);
  // Q15 derivation for the Q15 core: unchanged.
  p = derive_requant_params(RoundingCore::kQ15, MultiplierDerivation::kQ15FromTfliteQ31, eff);
  EXPECT_EQ(p.multiplier, 25891);
  // Q15 derivation for a Q31 core: widened by << 16 (the same real value).
  p = derive_requant_params(RoundingCore::kSingleRoundingToEven, MultiplierDerivation::kQ15Direct, eff);
  const QuantizedMultiplier d = quantize_multiplier_q15_direct(0.0123456789);
  EXPECT_EQ(p.multiplier, d.multiplier << 16);
  EXPECT_EQ(p.shift, d.shift);
  EXPECT_EQ(multiplier_to_double({p.multiplier, p.shift}), multiplier_to_double(d, 15));
  // Float core: the scale as a float, whatever integer derivation is named.
  p = derive_requant_params(RoundingCore::kFloat32, MultiplierDerivation::kFloatScale, eff);
  EXPECT_EQ(p.scale, 0.0123456789f);
  EXPECT_EQ(p.multiplier, 0);
  p = derive_requant_params(RoundingCore::kFloat32ZeroPointInside, MultiplierDerivation::kFloatScale,
                            EffectiveScale{0.25, 0.5f}, 1.5f);
  EXPECT_EQ(p.scale, 0.25f);
  EXPECT_EQ(p.post_scale, 0.5f);
  EXPECT_EQ(p.bias, 1.5f);
  // Float mantissa for a Q31 core.
  p = derive_requant_params(RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kFloatMantissa24, eff);
  EXPECT_EQ(multiplier_to_double({p.multiplier, p.shift}), static_cast<double>(0.0123456789f));
  // FBGEMM.
  p = derive_requant_params(RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kFbgemmQ31,
                            EffectiveScale{0.5 + 0x1p-32, 1.0f});
  EXPECT_EQ(p.multiplier, k2p30);
  // Single-rounding build saturation makes a large scale usable by SR cores.
  p = derive_requant_params(RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kTfliteSingleBuild,
                            EffectiveScale{3e9, 1.0f});
  EXPECT_EQ(p.multiplier, kMax);
  EXPECT_EQ(p.shift, 30);
}

TEST(ReferenceMultiplier, MultiplierToDouble) {
  EXPECT_EQ(multiplier_to_double({k2p30, 0}), 0.5);
  EXPECT_EQ(multiplier_to_double({k2p30, 1}), 1.0);
  EXPECT_EQ(multiplier_to_double({1 << 14, 0}, 15), 0.5);
  EXPECT_EQ(multiplier_to_double({kMax, -31}), std::ldexp(2147483647.0, -62));
}

}  // namespace
