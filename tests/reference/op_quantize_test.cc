// QUANTIZE / DEQUANTIZE / requantization and RELU / RELU6 references
// (include/qparity/reference/quantize.h, activation.h; docs/semantics.md §21.10, §21.14): golden
// vectors with ties of both signs, saturation at zero points -128 / 127 (and 0 / 255 for uint8),
// and for each pair of variants that should differ an input showing it.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference/activation.h"
#include "qparity/reference/quantize.h"

namespace {

using namespace qparity;
using namespace qparity::reference;

std::vector<int> AsInts(const std::vector<std::int8_t>& v) { return std::vector<int>(v.begin(), v.end()); }
std::vector<int> AsInts(const std::vector<std::uint8_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// ------------------------------------------------------------------ float -> int8

TEST(ReferenceQuantize, TiesOfBothSignsTfliteAwayXnnpackEven) {
  // x / 0.5 = 0.5, 1.5, -0.5, -1.5, 2.5, -2.5, 3.5, -3.5
  const std::vector<float> x = {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, -1.25f, 1.75f, -1.75f};
  const TensorQuant q{0.5f, 0};
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, q, QuantizeFloatVariant::kTfliteFloatDivide)),
            (std::vector<int>{1, 2, -1, -2, 3, -3, 4, -4}));
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, q, QuantizeFloatVariant::kXnnpack)),
            (std::vector<int>{0, 2, 0, -2, 2, -2, 4, -4}));
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, q, QuantizeFloatVariant::kFloat32DivideHalfEven)),
            (std::vector<int>{0, 2, 0, -2, 2, -2, 4, -4}));
}

TEST(ReferenceQuantize, ZeroPointAddedAfterRoundingAndSaturation) {
  // zp 127: +0.5 rounds to 1 (TFLite) and saturates; -0.5 gives 126 (TFLite) or 127 (XNNPACK).
  const std::vector<float> x = {0.5f, -0.5f, 1000.0f, -1000.0f, -255.0f, -255.5f};
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, {1.0f, 127}, QuantizeFloatVariant::kTfliteFloatDivide)),
            (std::vector<int>{127, 126, 127, -128, -128, -128}));
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, {1.0f, 127}, QuantizeFloatVariant::kXnnpack)),
            (std::vector<int>{127, 127, 127, -128, -128, -128}));
  // zp -128: -0.5 -> -129 saturates (TFLite) or -128 (XNNPACK); +0.5 -> -127 / -128.
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, {1.0f, -128}, QuantizeFloatVariant::kTfliteFloatDivide)),
            (std::vector<int>{-127, -128, 127, -128, -128, -128}));
  EXPECT_EQ(AsInts(quantize<std::int8_t>(x, {1.0f, -128}, QuantizeFloatVariant::kXnnpack)),
            (std::vector<int>{-128, -128, 127, -128, -128, -128}));
}

TEST(ReferenceQuantize, Uint8ZeroPoint128) {
  const std::vector<float> x = {-0.25f, 0.25f, -64.0f, 63.75f, 64.0f, -64.25f};
  const TensorQuant q{0.5f, 128};
  EXPECT_EQ(AsInts(quantize<std::uint8_t>(x, q, QuantizeFloatVariant::kTfliteFloatDivide)),
            (std::vector<int>{127, 129, 0, 255, 255, 0}));
  EXPECT_EQ(AsInts(quantize<std::uint8_t>(x, q, QuantizeFloatVariant::kXnnpack)),
            (std::vector<int>{128, 128, 0, 255, 255, 0}));
}

TEST(ReferenceQuantize, XnnpackMultipliesByTheReciprocalOffTies) {
  // s = 0.1f, x = float(-12.15): x / s = -121.49999 (TFLite: -121), x * float(1 / s) = -121.5
  // exactly (XNNPACK: ties to even, -122); an ONNX-style division rounds to -121.
  const float x = -12.15f;
  const TensorQuant q{0.1f, 0};
  EXPECT_EQ(quantize_float<std::int8_t>(x, q, QuantizeFloatVariant::kTfliteFloatDivide), -121);
  EXPECT_EQ(quantize_float<std::int8_t>(x, q, QuantizeFloatVariant::kXnnpack), -122);
  EXPECT_EQ(quantize_float<std::int8_t>(x, q, QuantizeFloatVariant::kFloat32DivideHalfEven), -121);
}

TEST(ReferenceQuantize, FloatVersusDoubleDivision) {
  // s = 0.1f (0.100000001490116), x = 0.25: x / s in float is 2.5 exactly (a tie: the float
  // division of TFLite's reference gives 3), the exact quotient is 2.49999996 -> 2 for the double
  // division LiteRT.js's kernel uses (measured, docs/semantics.md §21.10); XNNPACK's x * float(1/s)
  // is 2.5 too and ties to even: 2.
  const TensorQuant q{0.1f, 0};
  EXPECT_EQ(0.25f / 0.1f, 2.5f);
  EXPECT_EQ(quantize_float<std::int8_t>(0.25f, q, QuantizeFloatVariant::kTfliteFloatDivide), 3);
  EXPECT_EQ(quantize_float<std::int8_t>(0.25f, q, QuantizeFloatVariant::kTfliteDoubleDivide), 2);
  EXPECT_EQ(quantize_float<std::int8_t>(-0.25f, q, QuantizeFloatVariant::kTfliteFloatDivide), -3);
  EXPECT_EQ(quantize_float<std::int8_t>(-0.25f, q, QuantizeFloatVariant::kTfliteDoubleDivide), -2);
  EXPECT_EQ(quantize_float<std::int8_t>(0.25f, q, QuantizeFloatVariant::kXnnpack), 2);
}

TEST(ReferenceQuantize, RejectsBadParameters) {
  EXPECT_THROW(quantize<std::int8_t>({1.0f}, {0.0f, 0}, QuantizeFloatVariant::kTfliteFloatDivide), InvalidArgument);
  EXPECT_THROW(quantize<std::int8_t>({1.0f}, {1.0f, 128}, QuantizeFloatVariant::kTfliteFloatDivide), InvalidArgument);
  EXPECT_THROW(quantize<std::uint8_t>({1.0f}, {1.0f, -1}, QuantizeFloatVariant::kTfliteFloatDivide), InvalidArgument);
}

// ------------------------------------------------------------------ dequantize

TEST(ReferenceDequantize, OneRoundingOfTheExactProduct) {
  const std::vector<std::int8_t> q = {-128, -1, 0, 1, 127};
  EXPECT_EQ(dequantize<std::int8_t>(q, {0.25f, -128}), (std::vector<float>{0.0f, 31.75f, 32.0f, 32.25f, 63.75f}));
  EXPECT_EQ(dequantize<std::int8_t>(q, {0.5f, 127}), (std::vector<float>{-127.5f, -64.0f, -63.5f, -63.0f, 0.0f}));
  // 0.1f * 255 is not representable; the double product rounds once, as float(255) * 0.1f does.
  const std::vector<std::uint8_t> u = {255, 0};
  const float got = dequantize_value<std::uint8_t>(255, {0.1f, 0});
  EXPECT_EQ(got, 255.0f * 0.1f);
  EXPECT_EQ(dequantize<std::uint8_t>(u, {0.1f, 255})[1], -255.0f * 0.1f);
}

// ------------------------------------------------------------------ requantization

TEST(ReferenceRequantize, HalfScaleTiesEveryVariant) {
  // eff = 0.5 (M = 2^30, shift = 0): the values x - zp_in = 1, 3, -1, -3, 5, -5 are all ties.
  const std::vector<std::int8_t> x = {1, 3, -1, -3, 5, -5};
  const TensorQuant in{1.0f, 0}, out{2.0f, 0};
  auto run = [&](RequantizeVariant v, NpuHypothesis h = {}) {
    return AsInts(requantize<std::int8_t, std::int8_t>(x, make_requantize_params<std::int8_t, std::int8_t>(in, out, v, h)));
  };
  // With shift 0 TFLite's double rounding is SRDHM alone: half up, like single rounding.
  EXPECT_EQ(run(RequantizeVariant::kTfliteDoubleRounding), (std::vector<int>{1, 2, 0, -1, 3, -2}));
  EXPECT_EQ(run(RequantizeVariant::kTfliteSingleRounding), (std::vector<int>{1, 2, 0, -1, 3, -2}));
  EXPECT_EQ(run(RequantizeVariant::kXnnpack), (std::vector<int>{1, 2, 0, -1, 3, -2}));
  EXPECT_EQ(run(RequantizeVariant::kNpuSingleRounding), (std::vector<int>{0, 2, 0, -2, 2, -2}));
  EXPECT_EQ(run(RequantizeVariant::kNpuSingleRounding, {TieRule::kHalfAwayFromZero, NpuMultiplierPrecision::kQ31}),
            (std::vector<int>{1, 2, -1, -2, 3, -3}));
  EXPECT_EQ(run(RequantizeVariant::kFloat32), (std::vector<int>{0, 2, 0, -2, 2, -2}));
}

TEST(ReferenceRequantize, QuarterScaleDoubleVersusSingleRounding) {
  // eff = 0.25 (M = 2^30, shift = -1): -10/4 = -2.5 and -6/4 = -1.5 (docs/semantics.md §11.1).
  const std::vector<std::int8_t> x = {-10, -6, 10, 6, -2, 2};
  const TensorQuant in{1.0f, 0}, out{4.0f, 0};
  auto run = [&](RequantizeVariant v) {
    return AsInts(requantize<std::int8_t, std::int8_t>(x, make_requantize_params<std::int8_t, std::int8_t>(in, out, v)));
  };
  EXPECT_EQ(run(RequantizeVariant::kTfliteDoubleRounding), (std::vector<int>{-3, -2, 3, 2, -1, 1}));
  EXPECT_EQ(run(RequantizeVariant::kTfliteSingleRounding), (std::vector<int>{-2, -1, 3, 2, 0, 1}));
  EXPECT_EQ(run(RequantizeVariant::kXnnpack), (std::vector<int>{-2, -1, 3, 2, 0, 1}));
}

TEST(ReferenceRequantize, XnnpackEightBitMultiplierOffTies) {
  // eff = 1/3: XNNPACK's multiplier is lrintf(256 * float(1/3)) = 85, i.e. 0.33203; x - zp_in = 200
  // gives 66 (exact 66.67 -> 67 in TFLite). zp_in = -100 keeps x = 100 in int8.
  const TensorQuant in{1.0f, -100}, out{3.0f, 5};
  const auto pt = make_requantize_params<std::int8_t, std::int8_t>(in, out, RequantizeVariant::kTfliteDoubleRounding);
  const auto px = make_requantize_params<std::int8_t, std::int8_t>(in, out, RequantizeVariant::kXnnpack);
  EXPECT_EQ(px.xnn_multiplier, 85);
  EXPECT_EQ((requantize_value<std::int8_t, std::int8_t>(100, pt)), 67 + 5);
  EXPECT_EQ((requantize_value<std::int8_t, std::int8_t>(100, px)), 66 + 5);
  // Outside XNNPACK's ratio range [2^-8, 2^7] the variant throws.
  EXPECT_THROW((make_requantize_params<std::int8_t, std::int8_t>({1.0f, 0}, {512.0f, 0}, RequantizeVariant::kXnnpack)),
               InvalidArgument);
}

TEST(ReferenceRequantize, Int8ToUint8AndSaturation) {
  // Same scale, zero points -128 -> 0: the XOR-0x80 fast path, equal to the formula.
  const std::vector<std::int8_t> x = {-128, -1, 0, 127};
  const auto p = make_requantize_params<std::int8_t, std::uint8_t>({0.5f, -128}, {0.5f, 0},
                                                                   RequantizeVariant::kTfliteDoubleRounding);
  EXPECT_EQ(AsInts(requantize<std::int8_t, std::uint8_t>(x, p)), (std::vector<int>{0, 127, 128, 255}));
  // Scale doubled, output zp 127: everything above the zero point saturates at 127.
  const auto q = make_requantize_params<std::int8_t, std::int8_t>({1.0f, 0}, {0.5f, 127},
                                                                  RequantizeVariant::kTfliteDoubleRounding);
  EXPECT_EQ(AsInts(requantize<std::int8_t, std::int8_t>(x, q)), (std::vector<int>{-128, 125, 127, 127}));
}

// ------------------------------------------------------------------ RELU / RELU6

TEST(ReferenceRelu, SameQuantizationIsAClamp) {
  const std::vector<std::int8_t> x = {-128, -127, -1, 0, 127};
  for (ReluVariant v : {ReluVariant::kTfliteDoubleRounding, ReluVariant::kTfliteSingleRounding,
                        ReluVariant::kTflm, ReluVariant::kXnnpackClamp, ReluVariant::kNpuSingleRounding,
                        ReluVariant::kFloat32}) {
    SCOPED_TRACE(static_cast<int>(v));
    const auto p = make_relu_params<std::int8_t>(ReluKind::kRelu, {0.5f, -1}, {0.5f, -1}, v);
    EXPECT_EQ(AsInts(relu<std::int8_t>(x, p)), (std::vector<int>{-1, -1, -1, 0, 127}));
    // RELU6 at scale 0.5, zp -128: upper bound -128 + 12 = -116.
    const auto p6 = make_relu_params<std::int8_t>(ReluKind::kRelu6, {0.5f, -128}, {0.5f, -128}, v);
    EXPECT_EQ(AsInts(relu<std::int8_t>(x, p6)), (std::vector<int>{-128, -127, -116, -116, -116}));
  }
}

TEST(ReferenceRelu, Relu6BoundTieTfliteAwayXnnpackEven) {
  // s = 4: 6 / 4 = 1.5. TFLite: zp + round_half_away(1.5) = 1 + 2 = 3; XNNPACK: RNE(1.5 + 1) = 2.
  const auto pt = make_relu_params<std::int8_t>(ReluKind::kRelu6, {4.0f, 1}, {4.0f, 1}, ReluVariant::kTfliteDoubleRounding);
  const auto px = make_relu_params<std::int8_t>(ReluKind::kRelu6, {4.0f, 1}, {4.0f, 1}, ReluVariant::kXnnpackClamp);
  EXPECT_EQ(pt.hi, 3);
  EXPECT_EQ(px.hi, 2);
  EXPECT_EQ(relu_value<std::int8_t>(5, pt), 3);
  EXPECT_EQ(relu_value<std::int8_t>(5, px), 2);
  // zp 127: the RELU6 bound saturates at the type maximum.
  const auto ps = make_relu_params<std::int8_t>(ReluKind::kRelu6, {0.01f, 127}, {0.01f, 127}, ReluVariant::kTfliteDoubleRounding);
  EXPECT_EQ(ps.lo, 127);
  EXPECT_EQ(ps.hi, 127);
}

TEST(ReferenceRelu, RequantizingReluTiesAndTflmRelu6) {
  // s_in = 1, s_out = 4 (eff 0.25): x = 2, 6, 10 are ties +0.5, +1.5, +2.5 above the zero point.
  const std::vector<std::int8_t> x = {2, 6, 10, -6, 127};
  const TensorQuant in{1.0f, 0}, out{4.0f, 0};
  auto run = [&](ReluKind k, ReluVariant v) {
    return AsInts(relu<std::int8_t>(x, make_relu_params<std::int8_t>(k, in, out, v)));
  };
  EXPECT_EQ(run(ReluKind::kRelu, ReluVariant::kTfliteDoubleRounding), (std::vector<int>{1, 2, 3, 0, 32}));
  EXPECT_EQ(run(ReluKind::kRelu, ReluVariant::kNpuSingleRounding), (std::vector<int>{0, 2, 2, 0, 32}));
  EXPECT_EQ(run(ReluKind::kRelu, ReluVariant::kFloat32), (std::vector<int>{0, 2, 2, 0, 32}));
  // RELU6 at output scale 4: bound round(1.5) = 2 (TFLite).
  EXPECT_EQ(run(ReluKind::kRelu6, ReluVariant::kTfliteDoubleRounding), (std::vector<int>{1, 2, 2, 0, 2}));
  // TFLM's RELU6 clamps the raw input to [zp_in, zp_in + round(6 / s_in)] = [0, 6]; output
  // quantization ignored.
  EXPECT_EQ(run(ReluKind::kRelu6, ReluVariant::kTflm), (std::vector<int>{2, 6, 6, 0, 6}));
  // Negative ties below the output zero point are clamped away: zp_out = -3, x = -10 -> -2.5 -> -3.
  const auto pn = make_relu_params<std::int8_t>(ReluKind::kRelu, {1.0f, 0}, {4.0f, -3}, ReluVariant::kTfliteDoubleRounding);
  EXPECT_EQ(relu_value<std::int8_t>(-10, pn), -3);
  EXPECT_EQ(relu_value<std::int8_t>(-128, pn), -3);
}

TEST(ReferenceRelu, Uint8ZeroPoint255) {
  const std::vector<std::uint8_t> x = {0, 254, 255};
  const auto p = make_relu_params<std::uint8_t>(ReluKind::kRelu, {0.5f, 255}, {0.5f, 255}, ReluVariant::kTfliteDoubleRounding);
  EXPECT_EQ(AsInts(relu<std::uint8_t>(x, p)), (std::vector<int>{255, 255, 255}));
  EXPECT_THROW(make_relu_params<std::uint8_t>(ReluKind::kRelu, {0.5f, 0}, {0.25f, 0}, ReluVariant::kXnnpackClamp),
               InvalidArgument);
}

}  // namespace
