// Output stage (output_stage.h): zero point, clamp and saturating cast after the rounding core
// (docs/semantics.md §2.4, §3.5, §6.1, §6.4, §9, §19.4, §19.7).
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::F32;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::kMin;
using qparity_test::Q15;
using qparity_test::Q31;

std::int64_t Clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

RequantParams HalfScaleParams(RoundingCore core) {
  // Scale 0.5 for every core.
  if (core == RoundingCore::kQ15) return Q15(1 << 14, 0);
  if (is_float_core(core)) return F32(0.5f);
  return Q31(k2p30, 0);
}

// requantize_to_output = clamp(core(acc) + zp) for every core but F32-ZPF, whose zero point takes
// part in the rounding; checked at the extreme zero points of int8 and uint8 and across the clamp.
TEST(ReferenceOutputStage, ZeroPointAndClampAtExtremeZeroPoints) {
  struct Case { OutputType type; std::int32_t zp; };
  const Case cases[] = {{OutputType::kInt8, -128}, {OutputType::kInt8, 127}, {OutputType::kInt8, 0},
                        {OutputType::kUint8, 0},   {OutputType::kUint8, 255}, {OutputType::kUint8, 128}};
  for (RoundingCore core : kAllRoundingCores) {
    const RequantParams p = HalfScaleParams(core);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(to_string(core)) + " " + to_string(c.type) + " zp=" + std::to_string(c.zp));
      const OutputParams out = full_range_output(c.type, c.zp);
      EXPECT_EQ(out.qmin, output_type_min(c.type));
      EXPECT_EQ(out.qmax, output_type_max(c.type));
      int clamped_low = 0, clamped_high = 0, inside = 0;
      for (std::int32_t acc = -1200; acc <= 1200; ++acc) {
        const std::int32_t got = visit_rounding_core(core, [&](auto policy) {
          return requantize_to_output<decltype(policy)>(acc, p, out);
        });
        std::int64_t unclamped;
        if (core == RoundingCore::kFloat32ZeroPointInside) {
          unclamped = Float32ZeroPointInside::requantize_with_zero_point(acc, p, c.zp);
        } else {
          unclamped = std::int64_t{requantize(core, acc, p)} + c.zp;
        }
        EXPECT_EQ(got, Clamp(unclamped, out.qmin, out.qmax)) << "acc=" << acc;
        clamped_low += unclamped < out.qmin;
        clamped_high += unclamped > out.qmax;
        inside += unclamped >= out.qmin && unclamped <= out.qmax;
      }
      EXPECT_GT(clamped_low, 0);
      EXPECT_GT(clamped_high, 0);
      EXPECT_GT(inside, 0);
    }
  }
  // Concrete values: scale 0.5, DR-AZ (acc = 3 -> 1.5 -> 2).
  const RequantParams p = Q31(k2p30, 0);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(3, p, full_range_output(OutputType::kInt8, -128)), -126);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(-3, p, full_range_output(OutputType::kInt8, -128)), -128);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(-3, p, full_range_output(OutputType::kInt8, 127)), 126);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(3, p, full_range_output(OutputType::kInt8, 127)), 127);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(-3, p, full_range_output(OutputType::kUint8, 0)), 0);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(600, p, full_range_output(OutputType::kUint8, 0)), 255);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(-511, p, full_range_output(OutputType::kUint8, 255)), 0);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(-509, p, full_range_output(OutputType::kUint8, 255)), 1);
}

TEST(ReferenceOutputStage, ActivationClampInsideTheTypeRange) {
  const OutputParams out{5, -20, 30};
  const RequantParams p = Q31(k2p30, 0);
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(-100, p, out), -20);
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(-50, p, out), -20);  // -25 + 5
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(-49, p, out), -19);  // -24 (HU of -24.5) + 5
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(49, p, out), 30);    // 25 + 5
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(47, p, out), 29);    // 24 + 5
}

TEST(ReferenceOutputStage, ZeroPointAddedInExactArithmetic) {
  // The default OutputParams is the raw int32 result; a zero point pushing past INT32_MAX
  // saturates at the clamp instead of wrapping.
  const RequantParams p = Q31(kMax, 0);
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(kMax, p, OutputParams{}), 2147483646);
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(kMax, p, OutputParams{5, kMin, kMax}), kMax);
  EXPECT_EQ(requantize_to_output<SingleRoundingUpward>(kMin, p, OutputParams{-5, kMin, kMax}), kMin);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(kMin, p, OutputParams{-1, kMin, kMax}), kMin);
  EXPECT_EQ(requantize_to_output<DoubleRoundingAwayFromZero>(kMin, p, OutputParams{1, kMin, kMax}), -2147483646);
}

TEST(ReferenceOutputStage, FullRangeAndTypeLimits) {
  EXPECT_EQ(output_type_min(OutputType::kInt8), -128);
  EXPECT_EQ(output_type_max(OutputType::kInt8), 127);
  EXPECT_EQ(output_type_min(OutputType::kUint8), 0);
  EXPECT_EQ(output_type_max(OutputType::kUint8), 255);
  EXPECT_EQ(output_type_min(OutputType::kInt16), -32768);
  EXPECT_EQ(output_type_max(OutputType::kInt16), 32767);
  EXPECT_EQ(output_type_min(OutputType::kInt32), kMin);
  EXPECT_EQ(output_type_max(OutputType::kInt32), kMax);
  const OutputParams o = full_range_output(OutputType::kUint8, 7);
  EXPECT_EQ(o.zero_point, 7);
  EXPECT_EQ(o.qmin, 0);
  EXPECT_EQ(o.qmax, 255);
  const OutputParams d;
  EXPECT_EQ(d.zero_point, 0);
  EXPECT_EQ(d.qmin, kMin);
  EXPECT_EQ(d.qmax, kMax);
  EXPECT_STREQ(to_string(OutputType::kInt8), "int8");
  EXPECT_STREQ(to_string(OutputType::kUint8), "uint8");
  EXPECT_STREQ(to_string(OutputType::kInt16), "int16");
  EXPECT_STREQ(to_string(OutputType::kInt32), "int32");
  EXPECT_STREQ(to_string(ClampDerivation::kTflite), "tflite");
  EXPECT_STREQ(to_string(ClampDerivation::kXnnpack), "xnnpack");
  EXPECT_STREQ(to_string(ClampDerivation::kOnednn), "onednn");
  // validate accepts every legal combination (the rejections are in bad_input_test.cc).
  EXPECT_NO_THROW(validate(full_range_output(OutputType::kInt8, -128), OutputType::kInt8));
  EXPECT_NO_THROW(validate(full_range_output(OutputType::kUint8, 255), OutputType::kUint8));
  EXPECT_NO_THROW(validate(OutputParams{0, 3, 3}, OutputType::kInt16));
}

// ------------------------------ activation_output_params -------------------------------------

TEST(ReferenceOutputStage, ActivationBoundsEachDerivation) {
  const ClampDerivation all[] = {ClampDerivation::kTflite, ClampDerivation::kXnnpack, ClampDerivation::kOnednn};
  for (ClampDerivation d : all) {
    SCOPED_TRACE(to_string(d));
    // No activation: the whole type range, zero point kept.
    OutputParams o = activation_output_params(Activation::kNone, d, 0.05f, -3, OutputType::kInt8);
    EXPECT_EQ(o.zero_point, -3);
    EXPECT_EQ(o.qmin, -128);
    EXPECT_EQ(o.qmax, 127);
    // RELU: lower bound = zp (0 / scale = 0 exactly for every derivation).
    o = activation_output_params(Activation::kRelu, d, 0.05f, -3, OutputType::kInt8);
    EXPECT_EQ(o.qmin, -3);
    EXPECT_EQ(o.qmax, 127);
    // RELU6 with scale 0.25: 6 / 0.25 = 24 exactly.
    o = activation_output_params(Activation::kRelu6, d, 0.25f, -3, OutputType::kInt8);
    EXPECT_EQ(o.qmin, -3);
    EXPECT_EQ(o.qmax, 21);
    // RELU6 whose upper bound is beyond the type: clamped to the type.
    o = activation_output_params(Activation::kRelu6, d, 0.01f, 10, OutputType::kInt8);
    EXPECT_EQ(o.qmin, 10);
    EXPECT_EQ(o.qmax, 127);
    // RELU_N1_TO_1 with scale 1/64 (exact): [-64, 64] + zp, uint8 with zp 128.
    o = activation_output_params(Activation::kReluN1To1, d, 0.015625f, 128, OutputType::kUint8);
    EXPECT_EQ(o.qmin, 64);
    EXPECT_EQ(o.qmax, 192);
    // ... and the type clamps it for a small scale.
    o = activation_output_params(Activation::kReluN1To1, d, 0.001f, 128, OutputType::kUint8);
    EXPECT_EQ(o.qmin, 0);
    EXPECT_EQ(o.qmax, 255);
    // int16.
    o = activation_output_params(Activation::kRelu6, d, 0.0001f, 0, OutputType::kInt16);
    EXPECT_EQ(o.qmin, 0);
    EXPECT_EQ(o.qmax, 32767);
  }
}

TEST(ReferenceOutputStage, TfliteHazAfterZeroPointVersusXnnpackRneBefore) {
  // RELU6, scale 4: 6 / 4 = 1.5 exactly. TFLite: round_half_away(1.5) + zp = 2 + 1 = 3.
  // XNNPACK: RNE(1.5 + 1) = RNE(2.5) = 2. oneDNN: RNE(6 * (1/4) + 1) = 2 as well.
  OutputParams t = activation_output_params(Activation::kRelu6, ClampDerivation::kTflite, 4.0f, 1, OutputType::kInt8);
  OutputParams x = activation_output_params(Activation::kRelu6, ClampDerivation::kXnnpack, 4.0f, 1, OutputType::kInt8);
  OutputParams o = activation_output_params(Activation::kRelu6, ClampDerivation::kOnednn, 4.0f, 1, OutputType::kInt8);
  EXPECT_EQ(t.qmax, 3);
  EXPECT_EQ(x.qmax, 2);
  EXPECT_EQ(o.qmax, 2);
  EXPECT_EQ(t.qmin, 1);
  EXPECT_EQ(x.qmin, 1);
  // RELU_N1_TO_1, scale 2, zp 0: +-1 / 2 = +-0.5. TFLite: HAZ -> [-1, 1]; XNNPACK / oneDNN: RNE
  // -> [0, 0] (-0.5 -> -0 and 0.5 -> 0).
  t = activation_output_params(Activation::kReluN1To1, ClampDerivation::kTflite, 2.0f, 0, OutputType::kInt8);
  x = activation_output_params(Activation::kReluN1To1, ClampDerivation::kXnnpack, 2.0f, 0, OutputType::kInt8);
  o = activation_output_params(Activation::kReluN1To1, ClampDerivation::kOnednn, 2.0f, 0, OutputType::kInt8);
  EXPECT_EQ(t.qmin, -1);
  EXPECT_EQ(t.qmax, 1);
  EXPECT_EQ(x.qmin, 0);
  EXPECT_EQ(x.qmax, 0);
  EXPECT_EQ(o.qmin, 0);
  EXPECT_EQ(o.qmax, 0);
  // With zp = 3 the XNNPACK tie moves: RNE(-0.5 + 3) = 2 and RNE(0.5 + 3) = 4 (even), TFLite
  // -1 + 3 = 2 and 1 + 3 = 4 -- they agree again on these two.
  x = activation_output_params(Activation::kReluN1To1, ClampDerivation::kXnnpack, 2.0f, 3, OutputType::kInt8);
  EXPECT_EQ(x.qmin, 2);
  EXPECT_EQ(x.qmax, 4);
}

TEST(ReferenceOutputStage, XnnpackDivisionVersusOnednnReciprocal) {
  // scale = 0.48f: 6 / scale = 12.5 exactly in float (XNNPACK: RNE -> 12), but
  // 6 * (1/scale) = 12.500001 (oneDNN: -> 13); TFLite rounds 12.5 away -> 13.
  const float s = 0x1.eb851ep-2f;
  ASSERT_EQ(6.0f / s, 12.5f);
  EXPECT_EQ(activation_output_params(Activation::kRelu6, ClampDerivation::kXnnpack, s, 0, OutputType::kInt8).qmax, 12);
  EXPECT_EQ(activation_output_params(Activation::kRelu6, ClampDerivation::kOnednn, s, 0, OutputType::kInt8).qmax, 13);
  EXPECT_EQ(activation_output_params(Activation::kRelu6, ClampDerivation::kTflite, s, 0, OutputType::kInt8).qmax, 13);
  // scale = 0.631578982f: 6 / scale = 9.49999905 (XNNPACK 9, TFLite 9) but the reciprocal
  // product is exactly 9.5 (oneDNN: RNE -> 10).
  const float s2 = 0x1.435e52p-1f;
  EXPECT_EQ(activation_output_params(Activation::kRelu6, ClampDerivation::kXnnpack, s2, 0, OutputType::kInt8).qmax, 9);
  EXPECT_EQ(activation_output_params(Activation::kRelu6, ClampDerivation::kOnednn, s2, 0, OutputType::kInt8).qmax, 10);
  EXPECT_EQ(activation_output_params(Activation::kRelu6, ClampDerivation::kTflite, s2, 0, OutputType::kInt8).qmax, 9);
}

TEST(ReferenceOutputStage, ActivationBoundsWithExtremeScales) {
  // A tiny scale pushes the bounds far outside the type (no overflow in the derivation).
  for (ClampDerivation d : {ClampDerivation::kTflite, ClampDerivation::kXnnpack, ClampDerivation::kOnednn}) {
    const OutputParams o = activation_output_params(Activation::kReluN1To1, d, 1e-30f, 0, OutputType::kInt32);
    EXPECT_EQ(o.qmin, kMin) << to_string(d);
    EXPECT_EQ(o.qmax, kMax) << to_string(d);
    // A huge scale collapses them onto the zero point.
    const OutputParams h = activation_output_params(Activation::kRelu6, d, 1e30f, -7, OutputType::kInt8);
    EXPECT_EQ(h.qmin, -7) << to_string(d);
    EXPECT_EQ(h.qmax, -7) << to_string(d);
  }
}

TEST(ReferenceOutputStage, SaturatingCast) {
  EXPECT_EQ(saturating_cast<std::int8_t>(200), 127);
  EXPECT_EQ(saturating_cast<std::int8_t>(-200), -128);
  EXPECT_EQ(saturating_cast<std::int8_t>(-128), -128);
  EXPECT_EQ(saturating_cast<std::int8_t>(127), 127);
  EXPECT_EQ(saturating_cast<std::int8_t>(5), 5);
  EXPECT_EQ(saturating_cast<std::uint8_t>(-1), 0);
  EXPECT_EQ(saturating_cast<std::uint8_t>(300), 255);
  EXPECT_EQ(saturating_cast<std::uint8_t>(255), 255);
  EXPECT_EQ(saturating_cast<std::uint8_t>(kMin), 0);
  EXPECT_EQ(saturating_cast<std::int16_t>(40000), 32767);
  EXPECT_EQ(saturating_cast<std::int16_t>(-40000), -32768);
  EXPECT_EQ(saturating_cast<std::int16_t>(-1234), -1234);
  EXPECT_EQ(saturating_cast<std::int32_t>(kMin), kMin);
  EXPECT_EQ(saturating_cast<std::int32_t>(kMax), kMax);
  static_assert(saturating_cast<std::int8_t>(1000) == 127, "constexpr");
}

}  // namespace
