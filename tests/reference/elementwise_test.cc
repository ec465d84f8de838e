// Tests of include/qparity/reference/elementwise.h (docs/semantics.md §21.1, §21.2).
//
// Expected values are computed by hand from the definitions in docs/semantics.md (tie tables
// §0.2, the primitives of §2), never by calling the function under test with other arguments; the
// broadcasting test uses its own index arithmetic. The "Distinguish" tests find, for every pair of
// arithmetics that should differ, an input on which they do; the "Equivalence" tests check the
// pairs that should agree on the whole int8 / uint8 grid.
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qparity/reference/elementwise.h"

namespace {

using qparity::Activation;
using qparity::InvalidArgument;
using qparity::NpuMultiplierPrecision;
using qparity::OutputType;
using qparity::QuantizedMultiplier;
using qparity::TieRule;
using namespace qparity::reference;
using A = ElementwiseArithmetic;
using Op = ElementwiseOp;

constexpr std::int32_t k2p30 = 1 << 30;

ElementwiseParams P(Op op, A a, OutputType t, TensorQuantization q1, TensorQuantization q2,
                    TensorQuantization qo, Activation act = Activation::kNone,
                    NpuElementwiseOptions npu = {}) {
  return derive_elementwise_params(op, a, t, q1, q2, qo, act, npu);
}

std::int32_t type_lo(OutputType t) { return qparity::output_type_min(t); }

/// Calls f(x1, x2) for every pair of values of an 8-bit type.
void for_grid(OutputType t, const std::function<void(int, int)>& f) {
  const int lo = type_lo(t);
  for (int x1 = lo; x1 < lo + 256; ++x1) {
    for (int x2 = lo; x2 < lo + 256; ++x2) f(x1, x2);
  }
}

// ------------------------------------------------------------------------------------------------
// Names
// ------------------------------------------------------------------------------------------------

TEST(ElementwiseNames, RoundTripAndUnknown) {
  for (A a : kAllElementwiseArithmetics) {
    EXPECT_EQ(elementwise_arithmetic_from_string(to_string(a)), a);
  }
  EXPECT_THROW(elementwise_arithmetic_from_string("tflite"), InvalidArgument);
  EXPECT_STREQ(to_string(Op::kSub), "sub");
}

// ------------------------------------------------------------------------------------------------
// Parameter derivation
// ------------------------------------------------------------------------------------------------

TEST(ElementwiseDerivation, TfliteAddUnitScales) {
  // T = 2, m_i = 1/2 -> (2^30, 0); m_o = 2 / 2^20 = 2^-19 = 0.5 * 2^-18 -> (2^30, -18).
  const ElementwiseParams p = P(Op::kAdd, A::kTfliteDouble, OutputType::kInt8, {1, 0}, {1, 0}, {1, 0});
  EXPECT_EQ(p.left_shift, 20);
  EXPECT_EQ(p.input1_multiplier, (QuantizedMultiplier{k2p30, 0}));
  EXPECT_EQ(p.input2_multiplier, (QuantizedMultiplier{k2p30, 0}));
  EXPECT_EQ(p.output_multiplier, (QuantizedMultiplier{k2p30, -18}));
  // int16: left shift 15, m_o = 2 / 2^15 = 0.5 * 2^-13.
  const ElementwiseParams q = P(Op::kAdd, A::kTfliteDouble, OutputType::kInt16, {1, 0}, {1, 0}, {1, 0});
  EXPECT_EQ(q.left_shift, 15);
  EXPECT_EQ(q.output_multiplier, (QuantizedMultiplier{k2p30, -13}));
}

TEST(ElementwiseDerivation, TfliteAddQuarterScales) {
  // s1 = 0.5, s2 = 0.25, so = 1: T = 1; m1 = 0.5 -> (2^30, 0), m2 = 0.25 -> (2^30, -1),
  // m_o = 2^-20 -> (2^30, -19).
  const ElementwiseParams p = P(Op::kAdd, A::kTfliteSingle, OutputType::kInt8, {0.5f, 0}, {0.25f, 0}, {1, 0});
  EXPECT_EQ(p.input1_multiplier, (QuantizedMultiplier{k2p30, 0}));
  EXPECT_EQ(p.input2_multiplier, (QuantizedMultiplier{k2p30, -1}));
  EXPECT_EQ(p.output_multiplier, (QuantizedMultiplier{k2p30, -19}));
}

TEST(ElementwiseDerivation, SubQuotientsDoubleInTfliteFloatInMicro) {
  // Scales found by searching (docs/semantics.md §21.1): the float32 quotients of TFLM's SUB give
  // other multipliers than the double ones of TFLite's SUB (= TFLite's and TFLM's ADD).
  const TensorQuantization q1{0.0447777696f, 0}, q2{0.0112708304f, 0}, qo{0.0489690192f, 0};
  const ElementwiseParams tfl = P(Op::kSub, A::kTfliteDouble, OutputType::kInt8, q1, q2, qo);
  const ElementwiseParams add = P(Op::kAdd, A::kTfliteDouble, OutputType::kInt8, q1, q2, qo);
  const ElementwiseParams addm = P(Op::kAdd, A::kTfliteMicroDouble, OutputType::kInt8, q1, q2, qo);
  const ElementwiseParams tflm = P(Op::kSub, A::kTfliteMicroDouble, OutputType::kInt8, q1, q2, qo);
  EXPECT_EQ(tfl.input2_multiplier, add.input2_multiplier);
  EXPECT_EQ(tfl.output_multiplier, add.output_multiplier);
  EXPECT_EQ(addm.input2_multiplier, add.input2_multiplier);
  // m2 = s2 / (2 s1), once in double, once in float32.
  const double m2_double = 0.0112708304f / (2.0 * 0.0447777696f);
  const double m2_float = static_cast<double>(0.0112708304f / (2.0f * 0.0447777696f));
  EXPECT_EQ(tfl.input2_multiplier, qparity::quantize_multiplier_tflite(m2_double));
  EXPECT_EQ(tflm.input2_multiplier, qparity::quantize_multiplier_tflite(m2_float));
  EXPECT_TRUE(tfl.input2_multiplier != tflm.input2_multiplier ||
              tfl.output_multiplier != tflm.output_multiplier);
}

TEST(ElementwiseDerivation, MulProductFloatInTfliteDoubleInMicro) {
  const TensorQuantization q1{0.00744313281f, 0}, q2{0.0453751907f, 0}, qo{0.0053128181f, 0};
  const ElementwiseParams tfl = P(Op::kMul, A::kTfliteDouble, OutputType::kInt8, q1, q2, qo);
  const ElementwiseParams tflm = P(Op::kMul, A::kTfliteMicroDouble, OutputType::kInt8, q1, q2, qo);
  const float f = (0.00744313281f * 0.0453751907f) / 0.0053128181f;
  const double d = static_cast<double>(0.00744313281f) * static_cast<double>(0.0453751907f) /
                   static_cast<double>(0.0053128181f);
  EXPECT_EQ(tfl.output_multiplier, qparity::quantize_multiplier_tflite(static_cast<double>(f)));
  EXPECT_EQ(tflm.output_multiplier, qparity::quantize_multiplier_tflite(d));
  EXPECT_NE(tfl.output_multiplier, tflm.output_multiplier);
  // s1 = s2 = 1, so = 4: 0.25 = 0.5 * 2^-1.
  EXPECT_EQ(P(Op::kMul, A::kTfliteDouble, OutputType::kInt8, {1, 0}, {1, 0}, {4, 0}).output_multiplier,
            (QuantizedMultiplier{k2p30, -1}));
}

TEST(ElementwiseDerivation, XnnpackAdd) {
  // ratios 1/2, 1/2: exponent -1, shift 21, M = 2^20.
  ElementwiseParams p = P(Op::kAdd, A::kXnnpackWasm, OutputType::kInt8, {1, 0}, {1, 0}, {2, 0});
  EXPECT_EQ(p.xnn_shift, 21);
  EXPECT_EQ(p.xnn_a_multiplier, 1 << 20);
  EXPECT_EQ(p.xnn_b_multiplier, 1 << 20);
  // ratios 1 and 0.001f: shift 20; 0.001f 2^20 = 1048.576... -> 1049; SUB negates the second.
  p = P(Op::kAdd, A::kXnnpackX86, OutputType::kInt8, {1, 0}, {0.001f, 0}, {1, 0});
  EXPECT_EQ(p.xnn_shift, 20);
  EXPECT_EQ(p.xnn_a_multiplier, 1 << 20);
  EXPECT_EQ(p.xnn_b_multiplier, 1049);
  p = P(Op::kSub, A::kXnnpackArm, OutputType::kInt8, {1, 0}, {0.001f, 0}, {1, 0});
  EXPECT_EQ(p.xnn_b_multiplier, -1049);
  // lrintf rounds half to even: 2049 2^-21 2^20 = 1024.5 -> 1024, 2051 2^-21 2^20 = 1025.5 -> 1026.
  p = P(Op::kAdd, A::kXnnpackX86, OutputType::kInt8, {1, 0}, {std::ldexp(2049.0f, -21), 0}, {1, 0});
  EXPECT_EQ(p.xnn_b_multiplier, 1024);
  p = P(Op::kAdd, A::kXnnpackX86, OutputType::kInt8, {1, 0}, {std::ldexp(2051.0f, -21), 0}, {1, 0});
  EXPECT_EQ(p.xnn_b_multiplier, 1026);
  // The ends of the shift range: max ratio just below 2^8 -> shift 13; 2^-10 -> shift 30.
  p = P(Op::kAdd, A::kXnnpackX86, OutputType::kInt8, {255.5f, 0}, {1, 0}, {1, 0});
  EXPECT_EQ(p.xnn_shift, 13);
  p = P(Op::kAdd, A::kXnnpackX86, OutputType::kUint8, {1, 0}, {1, 0}, {1024, 0});
  EXPECT_EQ(p.xnn_shift, 30);
  EXPECT_EQ(p.xnn_a_multiplier, 1 << 20);
}

TEST(ElementwiseDerivation, XnnpackMul) {
  const ElementwiseParams p =
      P(Op::kMul, A::kXnnpackArm, OutputType::kInt8, {0.0137f, 1}, {0.0291f, 2}, {0.00431f, 3});
  const float scale = (0.0137f * 0.0291f) / 0.00431f;
  EXPECT_EQ(p.xnn_scale, scale);
  EXPECT_EQ(p.xnn_rndnu, qparity::quantize_multiplier_float_mantissa(scale));
}

TEST(ElementwiseDerivation, ActivationClamps) {
  // RELU_N1_TO_1 at so = 2, zo = 0: TFLite round_half_away(+-0.5) = +-1; XNNPACK RNE(+-0.5) = 0.
  ElementwiseParams t = P(Op::kAdd, A::kTfliteDouble, OutputType::kInt8, {1, 0}, {1, 0}, {2, 0},
                          Activation::kReluN1To1);
  ElementwiseParams x = P(Op::kAdd, A::kXnnpackWasm, OutputType::kInt8, {1, 0}, {1, 0}, {2, 0},
                          Activation::kReluN1To1);
  EXPECT_EQ(t.output.qmin, -1);
  EXPECT_EQ(t.output.qmax, 1);
  EXPECT_EQ(x.output.qmin, 0);
  EXPECT_EQ(x.output.qmax, 0);
  // RELU6 at so = 4, zo = 1: 6 / 4 = 1.5: TFLite 2 + 1 = 3, XNNPACK RNE(1.5 + 1) = 2.
  t = P(Op::kMul, A::kTfliteDouble, OutputType::kInt8, {1, 0}, {1, 0}, {4, 1}, Activation::kRelu6);
  x = P(Op::kMul, A::kXnnpackX86, OutputType::kInt8, {1, 0}, {1, 0}, {4, 1}, Activation::kRelu6);
  EXPECT_EQ(t.output.qmin, 1);
  EXPECT_EQ(t.output.qmax, 3);
  EXPECT_EQ(x.output.qmin, 1);
  EXPECT_EQ(x.output.qmax, 2);
  // NPU hypothesis: TFLite's derivation.
  const ElementwiseParams n = P(Op::kAdd, A::kNpuSingleRounding, OutputType::kUint8, {1, 0}, {1, 0},
                                {1, 125}, Activation::kRelu);
  EXPECT_EQ(n.output.qmin, 125);
  EXPECT_EQ(n.output.qmax, 255);
}

TEST(ElementwiseDerivation, Errors) {
  const auto i8 = OutputType::kInt8;
  // XNNPACK ratio limits [2^-10, 2^8) and MUL scale limits [2^-16, 2^8).
  EXPECT_THROW(P(Op::kAdd, A::kXnnpackX86, i8, {300, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kSub, A::kXnnpackX86, i8, {1, 0}, {std::ldexp(1.0f, -11), 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kMul, A::kXnnpackArm, i8, {std::ldexp(1.0f, -17), 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_NO_THROW(P(Op::kMul, A::kXnnpackArm, i8, {std::ldexp(1.0f, -16), 0}, {1, 0}, {1, 0}));
  // TFLite ADD: 2 max / (2^20 so) must stay below 1 (s = 1, so = 1e-7 gives ~19).
  EXPECT_THROW(P(Op::kAdd, A::kTfliteDouble, i8, {1, 0}, {1, 0}, {1e-7f, 0}), InvalidArgument);
  // SUB switches to QuantizeMultiplierGreaterThanOne; defined only in the single-rounding build.
  EXPECT_THROW(P(Op::kSub, A::kTfliteDouble, i8, {1, 0}, {1, 0}, {1e-7f, 0}), InvalidArgument);
  EXPECT_GT(P(Op::kSub, A::kTfliteSingle, i8, {1, 0}, {1, 0}, {1e-7f, 0}).output_multiplier.shift, 0);
  // Types and zero points.
  EXPECT_THROW(P(Op::kAdd, A::kTfliteMicroDouble, OutputType::kUint8, {1, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kAdd, A::kXnnpackX86, OutputType::kInt16, {1, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kAdd, A::kTfliteNeon, OutputType::kInt16, {1, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kSub, A::kTfliteNeon, i8, {1, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kAdd, A::kTfliteDouble, OutputType::kInt16, {1, 3}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kMul, A::kTfliteDouble, OutputType::kInt16, {1, 0}, {1, 0}, {1, 1}), InvalidArgument);
  EXPECT_NO_THROW(P(Op::kSub, A::kTfliteDouble, OutputType::kInt16, {1, 3}, {1, -4}, {1, 5}));
  EXPECT_THROW(P(Op::kAdd, A::kTfliteDouble, i8, {1, 128}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kAdd, A::kTfliteDouble, OutputType::kUint8, {1, 0}, {1, -1}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kAdd, A::kTfliteDouble, i8, {0, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kAdd, A::kTfliteDouble, OutputType::kInt32, {1, 0}, {1, 0}, {1, 0}), InvalidArgument);
  EXPECT_THROW(P(Op::kMul, A::kTfliteDouble, i8, {1e6f, 0}, {1e6f, 0}, {1e-6f, 0}), InvalidArgument);
}

// ------------------------------------------------------------------------------------------------
// Golden vectors
// ------------------------------------------------------------------------------------------------

// Tie tables for the values -2.5, -2, ..., 2.5 (x = -5 ... 5, value x / 2), docs/semantics.md §0.2.
const std::vector<int> kHaz = {-3, -2, -2, -1, -1, 0, 1, 1, 2, 2, 3};
const std::vector<int> kHu = {-2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3};
const std::vector<int> kHe = {-2, -2, -2, -1, 0, 0, 0, 1, 2, 2, 2};
const std::vector<int> kTz = {-2, -2, -1, -1, 0, 0, 0, 1, 1, 2, 2};
const std::vector<int> kFl = {-3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2};

std::vector<int> halves(const ElementwiseParams& p, bool first_varies, int other = 0) {
  std::vector<int> out;
  for (int x = -5; x <= 5; ++x) {
    out.push_back(first_varies ? elementwise_element(p, x, other) : elementwise_element(p, other, x));
  }
  return out;
}

TEST(ElementwiseGolden, AddTiesBothSigns) {
  // s1 = s2 = 1, so = 2: y = round(x / 2) with each arithmetic's tie rule. TFLite's three steps are
  // exact until the last RDBPOT, so the default build ties away from zero, the single build up;
  // XNNPACK's one shift ties up.
  const auto i8 = OutputType::kInt8;
  for (A a : {A::kTfliteDouble, A::kTfliteMicroDouble, A::kTfliteNeon, A::kTfliteNeonScalarBroadcast}) {
    EXPECT_EQ(halves(P(Op::kAdd, a, i8, {1, 0}, {1, 0}, {2, 0}), true), kHaz) << to_string(a);
  }
  for (A a : {A::kTfliteSingle, A::kTfliteMicroSingle, A::kXnnpackX86, A::kXnnpackArm, A::kXnnpackWasm}) {
    EXPECT_EQ(halves(P(Op::kAdd, a, i8, {1, 0}, {1, 0}, {2, 0}), true), kHu) << to_string(a);
  }
  const auto npu = [&](TieRule t, NpuMultiplierPrecision pr) {
    return halves(P(Op::kAdd, A::kNpuSingleRounding, i8, {1, 0}, {1, 0}, {2, 0}, Activation::kNone, {t, pr}), true);
  };
  EXPECT_EQ(npu(TieRule::kHalfToEven, NpuMultiplierPrecision::kQ15), kHe);
  EXPECT_EQ(npu(TieRule::kHalfUp, NpuMultiplierPrecision::kQ31), kHu);
  EXPECT_EQ(npu(TieRule::kHalfAwayFromZero, NpuMultiplierPrecision::kFloat24), kHaz);
  EXPECT_EQ(npu(TieRule::kTowardZero, NpuMultiplierPrecision::kQ31), kTz);
  EXPECT_EQ(npu(TieRule::kFloor, NpuMultiplierPrecision::kQ15), kFl);
  // int16 (TFLite only; left shift 15): the same values.
  EXPECT_EQ(halves(P(Op::kAdd, A::kTfliteDouble, OutputType::kInt16, {1, 0}, {1, 0}, {2, 0}), true), kHaz);
  EXPECT_EQ(halves(P(Op::kAdd, A::kTfliteSingle, OutputType::kInt16, {1, 0}, {1, 0}, {2, 0}), true), kHu);
}

TEST(ElementwiseGolden, SubTiesBothSigns) {
  // y = round((0 - x) / 2) for x = 5 ... -5 in that order, i.e. the tables reversed in x.
  const auto i8 = OutputType::kInt8;
  const auto rev = [](std::vector<int> v) { return std::vector<int>(v.rbegin(), v.rend()); };
  std::vector<int> haz_neg = rev(halves(P(Op::kSub, A::kTfliteDouble, i8, {1, 0}, {1, 0}, {2, 0}), false));
  EXPECT_EQ(haz_neg, kHaz);
  for (A a : {A::kTfliteSingle, A::kTfliteMicroSingle, A::kXnnpackX86, A::kXnnpackArm, A::kXnnpackWasm}) {
    EXPECT_EQ(rev(halves(P(Op::kSub, a, i8, {1, 0}, {1, 0}, {2, 0}), false)), kHu) << to_string(a);
  }
  EXPECT_EQ(rev(halves(P(Op::kSub, A::kNpuSingleRounding, i8, {1, 0}, {1, 0}, {2, 0}), false)), kHe);
  EXPECT_EQ(rev(halves(P(Op::kSub, A::kTfliteMicroDouble, OutputType::kInt16, {1, 0}, {1, 0}, {2, 0}), false)),
            kHaz);
}

TEST(ElementwiseGolden, MulTiesBothSigns) {
  // s1 = s2 = 1, so = 4, x2 = 2: y = round(2 x / 4) = round(x / 2).
  const auto i8 = OutputType::kInt8;
  EXPECT_EQ(halves(P(Op::kMul, A::kTfliteDouble, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHaz);
  EXPECT_EQ(halves(P(Op::kMul, A::kTfliteNeon, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHaz);
  EXPECT_EQ(halves(P(Op::kMul, A::kTfliteSingle, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHu);
  EXPECT_EQ(halves(P(Op::kMul, A::kXnnpackArm, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHu);
  EXPECT_EQ(halves(P(Op::kMul, A::kXnnpackX86, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHe);
  EXPECT_EQ(halves(P(Op::kMul, A::kXnnpackWasm, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHe);
  EXPECT_EQ(halves(P(Op::kMul, A::kNpuSingleRounding, i8, {1, 0}, {1, 0}, {4, 0}), true, 2), kHe);
}

TEST(ElementwiseGolden, MulDoubleRoundingQuarters) {
  // x2 = 1, so = 4: y = round(x / 4) for x = -6, -5, -3, -2, -1, 1, 3, 5, 6
  // (exact -1.5, -1.25, -0.75, -0.5, -0.25, 0.25, 0.75, 1.25, 1.5). TFLite's default build: SRDHM
  // rounds x / 2 half up, RDBPOT then rounds half away: 0.25 -> 0.5 -> 1 and 1.25 -> 1.5 -> 2
  // (double rounding), -1.5 -> -3/2 -> -2 but -1.25 -> -2/2 -> -1.
  const std::vector<int> xs = {-6, -5, -3, -2, -1, 1, 3, 5, 6};
  const auto run = [&](A a) {
    const ElementwiseParams p = P(Op::kMul, a, OutputType::kInt8, {1, 0}, {1, 0}, {4, 0});
    std::vector<int> out;
    for (int x : xs) out.push_back(elementwise_element(p, x, 1));
    return out;
  };
  EXPECT_EQ(run(A::kTfliteDouble), (std::vector<int>{-2, -1, -1, -1, 0, 1, 1, 2, 2}));
  EXPECT_EQ(run(A::kTfliteSingle), (std::vector<int>{-1, -1, -1, 0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(run(A::kXnnpackArm), (std::vector<int>{-1, -1, -1, 0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(run(A::kXnnpackWasm), (std::vector<int>{-2, -1, -1, 0, 0, 0, 1, 1, 2}));
}

TEST(ElementwiseGolden, ZeroPointsAtTheEnds) {
  // int8: s = 1, 1, so = 2, z1 = -128, z2 = 127, zo = 127.
  const TensorQuantization q1{1, -128}, q2{1, 127}, qo{2, 127};
  const auto i8 = OutputType::kInt8;
  struct Row { int x1, x2, haz, hu; };
  // (v1, v2): (255, -255) -> 0; (0, -255) -> -127.5; (255, 0) -> 127.5 (clamped);
  // (1, -255) -> -127; (0, -1) -> -0.5.
  const Row rows[] = {{127, -128, 127, 127}, {-128, -128, -1, 0}, {127, 127, 127, 127},
                      {-127, -128, 0, 0},    {-128, 126, 126, 127}};
  for (const Row& r : rows) {
    EXPECT_EQ(elementwise_element(P(Op::kAdd, A::kTfliteDouble, i8, q1, q2, qo), r.x1, r.x2), r.haz);
    EXPECT_EQ(elementwise_element(P(Op::kAdd, A::kTfliteSingle, i8, q1, q2, qo), r.x1, r.x2), r.hu);
    EXPECT_EQ(elementwise_element(P(Op::kAdd, A::kXnnpackWasm, i8, q1, q2, qo), r.x1, r.x2), r.hu);
  }
  // uint8: z1 = 0, z2 = 255, zo = 255.
  const TensorQuantization u1{1, 0}, u2{1, 255}, uo{2, 255};
  const auto u8 = OutputType::kUint8;
  const Row urows[] = {{0, 0, 127, 128}, {255, 255, 255, 255}, {0, 254, 254, 255}, {255, 0, 255, 255}};
  for (const Row& r : urows) {
    EXPECT_EQ(elementwise_element(P(Op::kAdd, A::kTfliteDouble, u8, u1, u2, uo), r.x1, r.x2), r.haz);
    EXPECT_EQ(elementwise_element(P(Op::kAdd, A::kXnnpackArm, u8, u1, u2, uo), r.x1, r.x2), r.hu);
  }
  // MUL: v1 v2 at so = 1: (-128 - (-128)) * x = 0 -> zo.
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kXnnpackX86, i8, {0.5f, -128}, {0.5f, 127}, {1, 127}), -128, 5), 127);
  // v1 v2 / 128: (255)(-255) / 128 = -508.0 -> clamped; (1)(-255) / 128 = -1.99 -> -2.
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kTfliteDouble, i8, {1, -128}, {1, 127}, {128, 127}), 127, -128), -128);
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kTfliteDouble, i8, {1, -128}, {1, 127}, {128, 127}), -127, -128), 125);
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kXnnpackWasm, i8, {1, -128}, {1, 127}, {128, 127}), -127, -128), 125);
}

TEST(ElementwiseGolden, Saturation) {
  const auto i8 = OutputType::kInt8;
  for (A a : kAllElementwiseArithmetics) {
    if (a == A::kTfliteNeon || a == A::kTfliteNeonScalarBroadcast) continue;  // SUB refused
    for (Op op : {Op::kAdd, Op::kSub}) {
      const ElementwiseParams p = P(op, a, i8, {1, 0}, {1, 0}, {0.5f, 0});
      EXPECT_EQ(elementwise_element(p, 100, op == Op::kAdd ? 100 : -100), 127) << to_string(a);
      EXPECT_EQ(elementwise_element(p, -100, op == Op::kAdd ? -100 : 100), -128) << to_string(a);
    }
    const ElementwiseParams m = P(Op::kMul, a, i8, {1, 0}, {1, 0}, {1, 0});
    EXPECT_EQ(elementwise_element(m, 127, 127), 127) << to_string(a);
    EXPECT_EQ(elementwise_element(m, -128, 127), -128) << to_string(a);
    EXPECT_EQ(elementwise_element(m, -128, -128), 127) << to_string(a);
  }
}

TEST(ElementwiseGolden, NeonInt16StageWraps) {
  // ADD int8, s = 1, 1, so = 1/256: r = 256 (v1 + v2). (127, 127): r = 65024 -> int16 -512 -> -128;
  // (64, 64): 32768 -> -32768 -> -128. The reference saturates to 127.
  const auto i8 = OutputType::kInt8;
  const TensorQuantization q{1, 0}, qo{1.0f / 256, 0};
  for (A a : {A::kTfliteNeon, A::kTfliteNeonScalarBroadcast}) {
    EXPECT_EQ(elementwise_element(P(Op::kAdd, a, i8, q, q, qo), 127, 127), -128);
    EXPECT_EQ(elementwise_element(P(Op::kAdd, a, i8, q, q, qo), 64, 64), -128);
    EXPECT_EQ(elementwise_element(P(Op::kAdd, a, i8, q, q, qo), 60, 60), 127);  // 30720: no wrap
  }
  EXPECT_EQ(elementwise_element(P(Op::kAdd, A::kTfliteDouble, i8, q, q, qo), 127, 127), 127);
  // MUL int8, scale 256, zo = 5: r = 4129024 -> saturated to 32767 -> + 5 wraps to -32764 -> -128.
  const TensorQuantization mo{1.0f / 256, 5};
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kTfliteNeon, i8, q, q, mo), 127, 127), -128);
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kTfliteDouble, i8, q, q, mo), 127, 127), 127);
  // uint8 MulSimpleBroadcast narrows with a wrap: r = 256 * 200 * 100 = 5120000 = 0x4E2000 ->
  // 0x2000 = 8192 -> +0 -> 255; MulElementwise saturates: 32767 -> 255; both 255 here, but
  // r = 256 * 255 * 255 = 0xFE0100 -> 0x0100 = 256 -> 255 and r = 256 * 128 * 128 = 0x400000 -> 0.
  const TensorQuantization uq{1, 0}, uo{1.0f / 256, 0};
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kTfliteNeonScalarBroadcast, OutputType::kUint8, uq, uq, uo), 128, 128), 0);
  EXPECT_EQ(elementwise_element(P(Op::kMul, A::kTfliteNeon, OutputType::kUint8, uq, uq, uo), 128, 128), 255);
}

TEST(ElementwiseGolden, NeonSimdElements) {
  EXPECT_EQ(tflite_neon_simd_elements(Op::kAdd, OutputType::kInt8, false, 37), 32u);
  EXPECT_EQ(tflite_neon_simd_elements(Op::kAdd, OutputType::kInt8, true, 37), 32u);
  EXPECT_EQ(tflite_neon_simd_elements(Op::kAdd, OutputType::kInt8, true, 31), 24u);
  EXPECT_EQ(tflite_neon_simd_elements(Op::kAdd, OutputType::kUint8, false, 31), 24u);
  EXPECT_EQ(tflite_neon_simd_elements(Op::kMul, OutputType::kInt8, true, 31), 16u);
  EXPECT_EQ(tflite_neon_simd_elements(Op::kMul, OutputType::kUint8, false, 15), 8u);
  EXPECT_EQ(tflite_neon_simd_elements(Op::kSub, OutputType::kInt8, false, 64), 0u);
}

// ------------------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------------------

TEST(ElementwiseProperty, EqualScalesGiveTheExactSum) {
  // s1 = s2 = so: every arithmetic's rescales are exact: y = clamp(v1 +- v2 + zo).
  for (OutputType t : {OutputType::kInt8, OutputType::kUint8}) {
    const int lo = type_lo(t);
    for (float s : {1.0f, 0.0137f, 0.3f}) {
      for (int zs : {0, 77, 255}) {
        const int z1 = lo + zs, z2 = lo + (zs * 7) % 256, zo = lo + (zs * 3) % 256;
        for (A a : kAllElementwiseArithmetics) {
          for (Op op : {Op::kAdd, Op::kSub}) {
            ElementwiseParams p;
            try {
              p = P(op, a, t, {s, z1}, {s, z2}, {s, zo});
            } catch (const InvalidArgument&) {
              continue;  // TFLM uint8, NEON SUB
            }
            for_grid(t, [&](int x1, int x2) {
              const long v = op == Op::kAdd ? (x1 - z1) + (x2 - z2) : (x1 - z1) - (x2 - z2);
              const long want = std::min<long>(std::max<long>(v + zo, lo), lo + 255);
              ASSERT_EQ(elementwise_element(p, x1, x2), want) << to_string(a) << " " << to_string(op);
            });
          }
        }
      }
    }
  }
}

TEST(ElementwiseProperty, MulByAPowerOfTwoIsExact) {
  // s1 = so, s2 = 2^-6, x2 - z2 = 64: y = v1 + zo exactly in every arithmetic.
  for (A a : kAllElementwiseArithmetics) {
    const ElementwiseParams p = P(Op::kMul, a, OutputType::kInt8, {0.0371f, -5}, {1.0f / 64, -70}, {0.0371f, 9});
    for (int x1 = -128; x1 < 128; ++x1) {
      const int want = std::min(std::max(x1 + 5 + 9, -128), 127);
      ASSERT_EQ(elementwise_element(p, x1, -6), want) << to_string(a);
    }
  }
}

/// Random quantization parameters within every runtime's limits (ratios in [1/16, 4]).
struct Config {
  float s1, s2, so;
  int z1, z2, zo;
};

rc::Gen<Config> gen_config(OutputType t, Op op) {
  const int lo = type_lo(t);
  return rc::gen::exec([=] {
    Config c;
    const auto scale = [] { return std::ldexp(1.0f + *rc::gen::inRange(0, 1 << 20) / float(1 << 20), *rc::gen::inRange(-9, -2)); };
    c.s1 = scale();
    c.s2 = scale();
    const float ref = op == Op::kMul ? c.s1 * c.s2 * 64.0f : std::max(c.s1, c.s2);
    c.so = ref * std::ldexp(1.0f + *rc::gen::inRange(0, 1 << 20) / float(1 << 20), *rc::gen::inRange(-2, 3));
    c.z1 = lo + *rc::gen::inRange(0, 256);
    c.z2 = lo + *rc::gen::inRange(0, 256);
    c.zo = lo + *rc::gen::inRange(0, 256);
    return c;
  });
}

RC_GTEST_PROP(ElementwiseProperty, AddAndMulAreCommutative, ()) {
  const OutputType t = *rc::gen::element(OutputType::kInt8, OutputType::kUint8);
  const Op op = *rc::gen::element(Op::kAdd, Op::kMul);
  const Config c = *gen_config(t, op);
  const int lo = type_lo(t);
  for (A a : kAllElementwiseArithmetics) {
    ElementwiseParams p, q;
    try {
      p = P(op, a, t, {c.s1, c.z1}, {c.s2, c.z2}, {c.so, c.zo});
      q = P(op, a, t, {c.s2, c.z2}, {c.s1, c.z1}, {c.so, c.zo});
    } catch (const InvalidArgument&) {
      continue;
    }
    for (int i = 0; i < 64; ++i) {
      const int x1 = lo + *rc::gen::inRange(0, 256), x2 = lo + *rc::gen::inRange(0, 256);
      RC_ASSERT(elementwise_element(p, x1, x2) == elementwise_element(q, x2, x1));
    }
  }
}

RC_GTEST_PROP(ElementwiseProperty, SubSwappedSumsToAtMostOne, ()) {
  // sub(a, b) + sub(b, a) = round(t) + round(-t) is in {-1, 0, 1} (zo = 0, no clamping).
  Config c = *gen_config(OutputType::kInt8, Op::kSub);
  c.zo = 0;
  for (A a : kAllElementwiseArithmetics) {
    ElementwiseParams p, q;
    try {
      p = P(Op::kSub, a, OutputType::kInt8, {c.s1, c.z1}, {c.s2, c.z2}, {c.so, 0});
      q = P(Op::kSub, a, OutputType::kInt8, {c.s2, c.z2}, {c.s1, c.z1}, {c.so, 0});
    } catch (const InvalidArgument&) {
      continue;
    }
    for (int i = 0; i < 64; ++i) {
      const int x1 = *rc::gen::inRange(-128, 128), x2 = *rc::gen::inRange(-128, 128);
      const int y = elementwise_element(p, x1, x2), z = elementwise_element(q, x2, x1);
      if (y == -128 || y == 127 || z == -128 || z == 127) continue;
      RC_ASSERT(std::abs(y + z) <= 1);
    }
  }
}

RC_GTEST_PROP(ElementwiseProperty, WithinOneOfTheRealResultAndMonotonic, ()) {
  const OutputType t = *rc::gen::element(OutputType::kInt8, OutputType::kUint8);
  const Op op = *rc::gen::element(Op::kAdd, Op::kSub, Op::kMul);
  const Config c = *gen_config(t, op);
  const int lo = type_lo(t);
  const int x2 = lo + *rc::gen::inRange(0, 256);
  for (A a : kAllElementwiseArithmetics) {
    ElementwiseParams p;
    try {
      p = P(op, a, t, {c.s1, c.z1}, {c.s2, c.z2}, {c.so, c.zo});
    } catch (const InvalidArgument&) {
      continue;
    }
    int previous = std::numeric_limits<int>::min();
    for (int x1 = lo; x1 < lo + 256; ++x1) {
      const double v1 = x1 - c.z1, v2 = x2 - c.z2;
      const double real = (op == Op::kAdd   ? (v1 * c.s1 + v2 * c.s2) / c.so
                           : op == Op::kSub ? (v1 * c.s1 - v2 * c.s2) / c.so
                                            : v1 * v2 * static_cast<double>(c.s1) * c.s2 / c.so) + c.zo;
      const int y = elementwise_element(p, x1, x2);
      if (real > lo + 1 && real < lo + 254) RC_ASSERT(std::fabs(y - real) < 1.0);
      // Non-decreasing in x1 (for MUL when v2 >= 0): every step is monotonic.
      if (op != Op::kMul || v2 >= 0) RC_ASSERT(y >= previous);
      previous = y;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Equivalences and distinguishing inputs
// ------------------------------------------------------------------------------------------------

/// Scales that expose the differences: ties, quarter steps, irregular scales, the TFLite/TFLM
/// scales of the oracle, very different inputs, a tiny output scale (NEON's int16 stage).
const Config kConfigs[] = {
    {1.0f, 1.0f, 2.0f, 0, 0, 0},
    {0.5f, 0.25f, 1.0f, 3, -7, -1},
    {1.0f, 1.0f, 4.0f, 0, 0, 1},
    {0.0137f, 0.0291f, 0.0431f, -3, 5, 2},
    {0.0137f, 0.0291f, 0.00431f, -3, 5, 2},
    {0.00744313281f, 0.0453751907f, 0.0053128181f, 0, 0, 0},
    {0.0447777696f, 0.0112708304f, 0.0489690192f, 0, 0, 0},
    {0.377612233f, 0.155411854f, 0.00597191975f, 0, 0, 0},
    {0.015441604f, 0.00657576835f, 0.00453157304f, 0, 0, 0},
    {0.7f, 0.0009f, 0.71f, 1, -2, 0},
    {1.0f, 1.0f, 1.0f / 256, 0, 0, 5},
    // s2 / (2 s1) = 2^-21: TFLite's input rescale rounds v2 / 2 (a tie for odd v2), so
    // (x1, x2) = (-1, -1) is exactly -0.5 after it (single build: 0) but -0.5 - 2^-21 exactly (-1).
    {1.0f, 0x1p-20f, 2.0f, 0, 0, 0},
    // 0.05 * 0.04 / 1: v1 v2 * 0.002 has exact ties in the reals (v1 v2 = 250 (2k + 1)); the float32
    // product lands on one side of them and the double product on the other (the oracle's
    // mul_zp_ends_int8: 562 elements where TFLM's single-rounding MUL parts from TFLite's).
    {0.05f, 0.04f, 1.0f, -128, 127, 127},
};

/// Number of (config, x1, x2) on the int8 (or uint8, zero points shifted) grid where a and b
/// differ, over the configurations both accept; -1 if no configuration is accepted by both.
long count_differences(Op op, OutputType t, A a, NpuElementwiseOptions na, A b, NpuElementwiseOptions nb) {
  long n = -1;
  const int shift = t == OutputType::kUint8 ? 128 : 0;
  for (const Config& c : kConfigs) {
    ElementwiseParams pa, pb;
    try {
      pa = P(op, a, t, {c.s1, c.z1 + shift}, {c.s2, c.z2 + shift}, {c.so, c.zo + shift}, Activation::kNone, na);
      pb = P(op, b, t, {c.s1, c.z1 + shift}, {c.s2, c.z2 + shift}, {c.so, c.zo + shift}, Activation::kNone, nb);
    } catch (const InvalidArgument&) {
      continue;
    }
    if (n < 0) n = 0;
    for_grid(t, [&](int x1, int x2) { n += elementwise_element(pa, x1, x2) != elementwise_element(pb, x1, x2); });
  }
  return n;
}

struct Pair {
  Op op;
  OutputType type;
  A a;
  A b;
  NpuElementwiseOptions npu_b = {};
};

TEST(ElementwiseDistinguish, PairsThatShouldDifferDo) {
  const auto i8 = OutputType::kInt8, u8 = OutputType::kUint8;
  const NpuElementwiseOptions he15{TieRule::kHalfToEven, NpuMultiplierPrecision::kQ15};
  const NpuElementwiseOptions hu31{TieRule::kHalfUp, NpuMultiplierPrecision::kQ31};
  const NpuElementwiseOptions hu15{TieRule::kHalfUp, NpuMultiplierPrecision::kQ15};
  const NpuElementwiseOptions hu24{TieRule::kHalfUp, NpuMultiplierPrecision::kFloat24};
  const Pair pairs[] = {
      // The two TFLite builds (ties of the last rounding; double rounding off ties).
      {Op::kAdd, i8, A::kTfliteDouble, A::kTfliteSingle},
      {Op::kSub, u8, A::kTfliteDouble, A::kTfliteSingle},
      {Op::kMul, i8, A::kTfliteDouble, A::kTfliteSingle},
      {Op::kAdd, i8, A::kTfliteMicroDouble, A::kTfliteMicroSingle},
      // TFLite vs TFLM: SUB's quotients, MUL's product.
      {Op::kSub, i8, A::kTfliteDouble, A::kTfliteMicroDouble},
      {Op::kSub, i8, A::kTfliteSingle, A::kTfliteMicroSingle},
      {Op::kMul, i8, A::kTfliteDouble, A::kTfliteMicroDouble},
      {Op::kMul, i8, A::kTfliteSingle, A::kTfliteMicroSingle},
      // TFLite NEON blocks vs the reference and vs each other.
      {Op::kAdd, i8, A::kTfliteDouble, A::kTfliteNeon},
      {Op::kAdd, i8, A::kTfliteSingle, A::kTfliteNeon},
      {Op::kAdd, u8, A::kTfliteDouble, A::kTfliteNeon},
      {Op::kAdd, i8, A::kTfliteDouble, A::kTfliteNeonScalarBroadcast},
      {Op::kAdd, i8, A::kTfliteNeon, A::kTfliteNeonScalarBroadcast},
      {Op::kMul, i8, A::kTfliteDouble, A::kTfliteNeon},
      {Op::kMul, u8, A::kTfliteNeon, A::kTfliteNeonScalarBroadcast},
      // TFLite vs XNNPACK.
      {Op::kAdd, i8, A::kTfliteDouble, A::kXnnpackX86},
      {Op::kAdd, i8, A::kTfliteSingle, A::kXnnpackX86},
      {Op::kSub, u8, A::kTfliteSingle, A::kXnnpackWasm},
      {Op::kMul, i8, A::kTfliteDouble, A::kXnnpackWasm},
      {Op::kMul, i8, A::kTfliteSingle, A::kXnnpackX86},
      {Op::kMul, u8, A::kTfliteDouble, A::kXnnpackArm},
      // XNNPACK across ISAs: MUL only.
      {Op::kMul, i8, A::kXnnpackX86, A::kXnnpackArm},
      {Op::kMul, u8, A::kXnnpackWasm, A::kXnnpackArm},
      // NPU hypothesis vs the runtimes and across its own axes.
      {Op::kAdd, i8, A::kTfliteDouble, A::kNpuSingleRounding, he15},
      {Op::kAdd, i8, A::kXnnpackX86, A::kNpuSingleRounding, hu31},
      {Op::kAdd, i8, A::kTfliteSingle, A::kNpuSingleRounding, hu31},
      {Op::kSub, i8, A::kXnnpackArm, A::kNpuSingleRounding, hu15},
      {Op::kMul, i8, A::kXnnpackWasm, A::kNpuSingleRounding, he15},
      {Op::kMul, i8, A::kXnnpackArm, A::kNpuSingleRounding, hu31},
      {Op::kMul, i8, A::kTfliteSingle, A::kNpuSingleRounding, hu31},
      {Op::kMul, i8, A::kXnnpackArm, A::kNpuSingleRounding, hu15},
      {Op::kAdd, i8, A::kXnnpackX86, A::kNpuSingleRounding, hu24},
  };
  for (const Pair& p : pairs) {
    const long n = count_differences(p.op, p.type, p.a, {}, p.b, p.npu_b);
    EXPECT_GT(n, 0) << to_string(p.op) << " " << qparity::to_string(p.type) << ": " << to_string(p.a)
                    << " vs " << to_string(p.b) << (n < 0 ? " (no common configuration)" : " agree everywhere");
  }
}

TEST(ElementwiseEquivalence, PairsThatShouldAgreeDo) {
  const auto i8 = OutputType::kInt8, u8 = OutputType::kUint8;
  const NpuElementwiseOptions hu31{TieRule::kHalfUp, NpuMultiplierPrecision::kQ31};
  struct Same { Op op; OutputType type; A a; A b; NpuElementwiseOptions nb; };
  const Same same[] = {
      // ADD derives its multipliers in double in both TFLite and TFLM.
      {Op::kAdd, i8, A::kTfliteDouble, A::kTfliteMicroDouble, {}},
      {Op::kAdd, i8, A::kTfliteSingle, A::kTfliteMicroSingle, {}},
      // XNNPACK: x86 and wasm are one arithmetic; ADD/SUB are one arithmetic on every ISA.
      {Op::kAdd, i8, A::kXnnpackX86, A::kXnnpackWasm, {}},
      {Op::kSub, u8, A::kXnnpackX86, A::kXnnpackWasm, {}},
      {Op::kMul, i8, A::kXnnpackX86, A::kXnnpackWasm, {}},
      {Op::kMul, u8, A::kXnnpackX86, A::kXnnpackWasm, {}},
      {Op::kAdd, u8, A::kXnnpackX86, A::kXnnpackArm, {}},
      {Op::kSub, i8, A::kXnnpackArm, A::kXnnpackWasm, {}},
      // TFLite's single-rounding MUL quantizes the float32 scale to Q31 exactly (its mantissa
      // shifted by 7): it is XNNPACK's ARM rndnu MUL, and the NPU family's hu-f24 MUL uses the
      // same multiplier from the double composition.
      {Op::kMul, i8, A::kTfliteSingle, A::kXnnpackArm, {}},
      {Op::kMul, u8, A::kTfliteSingle, A::kXnnpackArm, {}},
      // The NPU family's hu-q31 MUL is TFLM's single-rounding MUL (double product, Q31, SR-UP).
      {Op::kMul, i8, A::kTfliteMicroSingle, A::kNpuSingleRounding, hu31},
  };
  for (const Same& s : same) {
    const long n = count_differences(s.op, s.type, s.a, {}, s.b, s.nb);
    EXPECT_EQ(n, 0) << to_string(s.op) << " " << qparity::to_string(s.type) << ": " << to_string(s.a)
                    << " vs " << to_string(s.b);
  }
}

RC_GTEST_PROP(ElementwiseEquivalence, TfliteSingleMulIsXnnpackArmMul, ()) {
  const OutputType t = *rc::gen::element(OutputType::kInt8, OutputType::kUint8);
  const Config c = *gen_config(t, Op::kMul);
  ElementwiseParams p, q;
  try {
    p = P(Op::kMul, A::kTfliteSingle, t, {c.s1, c.z1}, {c.s2, c.z2}, {c.so, c.zo});
    q = P(Op::kMul, A::kXnnpackArm, t, {c.s1, c.z1}, {c.s2, c.z2}, {c.so, c.zo});
  } catch (const InvalidArgument&) {
    RC_DISCARD("outside XNNPACK's scale range");
  }
  RC_ASSERT(p.output_multiplier == q.xnn_rndnu);
  for_grid(t, [&](int x1, int x2) { RC_ASSERT(elementwise_element(p, x1, x2) == elementwise_element(q, x1, x2)); });
}

// ------------------------------------------------------------------------------------------------
// Broadcasting
// ------------------------------------------------------------------------------------------------

TEST(ElementwiseBroadcast, Shapes) {
  using S = std::vector<std::size_t>;
  EXPECT_EQ(broadcast_shape(S{2, 3, 4, 5}, S{5}), (S{2, 3, 4, 5}));
  EXPECT_EQ(broadcast_shape(S{}, S{3, 7}), (S{3, 7}));
  EXPECT_EQ(broadcast_shape(S{1}, S{}), (S{1}));
  EXPECT_EQ(broadcast_shape(S{1, 3, 1, 5}, S{2, 1, 4, 1}), (S{2, 3, 4, 5}));
  EXPECT_EQ(broadcast_shape(S{2, 1, 3, 1, 2, 3}, S{1, 2, 3, 4, 1, 3}), (S{2, 2, 3, 4, 2, 3}));
  EXPECT_EQ(broadcast_shape(S{4, 0}, S{1}), (S{4, 0}));
  EXPECT_EQ(broadcast_shape(S{0}, S{1}), (S{0}));
  EXPECT_THROW(broadcast_shape(S{2, 3}, S{4}), InvalidArgument);
  EXPECT_THROW(broadcast_shape(S{0}, S{2}), InvalidArgument);
  EXPECT_THROW(broadcast_shape(S{1, 1, 1, 1, 1, 1, 1}, S{1}), InvalidArgument);
}

/// Independent model: out[i] with i decomposed into the output multi-index, each input indexed by
/// the same multi-index with its broadcast dimensions at 0.
template <class T>
std::vector<T> naive(const ElementwiseParams& p, const std::vector<std::size_t>& s1, const std::vector<T>& a,
                     const std::vector<std::size_t>& s2, const std::vector<T>& b, const std::vector<std::size_t>& so) {
  std::size_t n = 1;
  for (std::size_t d : so) n *= d;
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::size_t> idx(so.size());
    std::size_t rest = i;
    for (std::size_t k = so.size(); k-- > 0;) {
      idx[k] = rest % so[k];
      rest /= so[k];
    }
    const auto flat = [&](const std::vector<std::size_t>& s) {
      std::size_t f = 0;
      for (std::size_t k = 0; k < s.size(); ++k) {
        const std::size_t d = s[k];
        const std::size_t j = idx[k + so.size() - s.size()];
        f = f * d + (d == 1 ? 0 : j);
      }
      return f;
    };
    out[i] = static_cast<T>(elementwise_element(p, a[flat(s1)], b[flat(s2)]));
  }
  return out;
}

template <class T>
void check_broadcast(const ElementwiseParams& p, const std::vector<std::size_t>& s1, const std::vector<std::size_t>& s2,
                     unsigned seed) {
  const auto fill = [&](const std::vector<std::size_t>& s, unsigned k) {
    std::size_t n = 1;
    for (std::size_t d : s) n *= d;
    std::vector<T> v(n);
    unsigned x = seed * 2654435761u + k;
    for (auto& e : v) {
      x = x * 1664525u + 1013904223u;
      e = static_cast<T>(static_cast<int>(std::numeric_limits<T>::min()) + static_cast<int>((x >> 8) % 256));
    }
    return v;
  };
  const std::vector<T> a = fill(s1, 1), b = fill(s2, 2);
  std::vector<std::size_t> so;
  const std::vector<T> got = elementwise(p, s1, a, s2, b, &so);
  EXPECT_EQ(so, broadcast_shape(s1, s2));
  EXPECT_EQ(got, naive(p, s1, a, s2, b, so));
}

TEST(ElementwiseBroadcast, MatchesAnIndependentIndexModel) {
  using S = std::vector<std::size_t>;
  const std::vector<std::pair<S, S>> shapes = {
      {{2, 3, 4, 5}, {1}},          {{}, {3, 7}},          {{3, 5, 7}, {7}},
      {{2, 4, 4, 3}, {1, 1, 1, 3}}, {{2, 1, 1, 1}, {2, 4, 4, 3}}, {{1, 3, 1, 5}, {2, 1, 4, 1}},
      {{2, 1, 3, 1, 2, 3}, {1, 2, 3, 4, 1, 3}}, {{37}, {37}}, {{3, 5, 7}, {3, 5, 7}},
      {{4, 1}, {1, 6}},             {{5}, {3, 1}},         {{4, 0}, {1}},
      {{1, 1}, {1, 1, 1, 1, 1, 1}},
  };
  unsigned seed = 1;
  for (const auto& sh : shapes) {
    for (A a : {A::kTfliteDouble, A::kXnnpackX86, A::kNpuSingleRounding}) {
      check_broadcast<std::int8_t>(P(Op::kAdd, a, OutputType::kInt8, {0.0137f, -3}, {0.0291f, 5}, {0.0431f, 2}),
                                   sh.first, sh.second, seed++);
      check_broadcast<std::uint8_t>(P(Op::kMul, a, OutputType::kUint8, {0.0137f, 120}, {0.0291f, 131}, {0.00431f, 126}),
                                    sh.first, sh.second, seed++);
    }
    check_broadcast<std::int16_t>(P(Op::kSub, A::kTfliteSingle, OutputType::kInt16, {0.37f, 0}, {0.51f, 0}, {0.93f, 0}),
                                  sh.first, sh.second, seed++);
  }
}

TEST(ElementwiseBroadcast, BadCalls) {
  const ElementwiseParams p = P(Op::kAdd, A::kTfliteDouble, OutputType::kInt8, {1, 0}, {1, 0}, {1, 0});
  const std::vector<std::int8_t> a(6, 1), b(3, 2);
  const std::vector<std::uint8_t> u(6, 1);
  EXPECT_THROW(elementwise(p, {2, 3}, u, {6}, u), InvalidArgument);  // uint8 data, int8 params
  EXPECT_THROW(elementwise(p, {2, 2}, a, {3}, b), InvalidArgument);  // size != shape
  EXPECT_THROW(elementwise(p, {6}, a, {3}, b), InvalidArgument);     // does not broadcast
  EXPECT_EQ(elementwise(p, {2, 3}, a, {3}, b), std::vector<std::int8_t>(6, 3));
}

}  // namespace
