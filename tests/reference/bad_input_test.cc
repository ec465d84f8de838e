// Bad input: every validating function of the reference throws qparity::InvalidArgument whose
// what() names the parameter, the allowed range and the value received (error.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::F32;
using qparity_test::k2p30;
using qparity_test::kMax;
using qparity_test::kMin;
using qparity_test::Q31;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
const float kNaNf = std::numeric_limits<float>::quiet_NaN();
const float kInff = std::numeric_limits<float>::infinity();

// Runs f, expects qparity::InvalidArgument (also a std::invalid_argument) whose message starts
// with "qparity: " and contains every fragment.
template <class F>
void ExpectInvalid(F&& f, const std::vector<std::string>& fragments) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragments.front() << "'";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("qparity: ", 0), 0u) << what;
    for (const std::string& frag : fragments) {
      EXPECT_NE(what.find(frag), std::string::npos) << "'" << frag << "' not in: " << what;
    }
    const std::invalid_argument& base = e;  // the documented base class
    EXPECT_STREQ(base.what(), e.what());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

constexpr RoundingCore kQ31Cores[] = {
    RoundingCore::kDoubleRoundingAwayFromZero, RoundingCore::kDoubleRoundingUpward,
    RoundingCore::kSingleRoundingUpward,       RoundingCore::kSingleRoundingUpwardNeon,
    RoundingCore::kSingleRoundingAwayFromZero, RoundingCore::kSingleRoundingToEven,
    RoundingCore::kTruncate,                   RoundingCore::kFloor};

// ----------------------------------- policy validate -----------------------------------------

TEST(ReferenceBadInput, Q31CoresValidateMultiplierAndShift) {
  for (RoundingCore core : kQ31Cores) {
    SCOPED_TRACE(to_string(core));
    // Legal boundaries pass.
    EXPECT_NO_THROW(validate(core, Q31(0, -31)));
    EXPECT_NO_THROW(validate(core, Q31(kMax, 30)));
    const std::string q31_range = "allowed: [0, 2147483647] (Q31 mantissa)";
    const std::string shift_range = "allowed: [-31, 30] (TFLite convention, > 0 = left)";
    ExpectInvalid([&] { validate(core, Q31(-1, 0)); }, {"multiplier = -1 is out of range", q31_range});
    ExpectInvalid([&] { validate(core, Q31(kMin, 0)); }, {"multiplier = -2147483648", q31_range});
    ExpectInvalid([&] { validate(core, Q31(k2p30, 31)); }, {"shift = 31 is out of range", shift_range});
    ExpectInvalid([&] { validate(core, Q31(k2p30, -32)); }, {"shift = -32 is out of range", shift_range});
    // The policy type's own validate says the same.
    visit_rounding_core(core, [&](auto policy) {
      ExpectInvalid([&] { decltype(policy)::validate(Q31(k2p30, 40)); }, {"shift = 40", shift_range});
      ExpectInvalid([&] { decltype(policy)::validate(Q31(-7, 0)); }, {"multiplier = -7", q31_range});
    });
  }
}

TEST(ReferenceBadInput, Q15ValidatesMultiplierAndShift) {
  EXPECT_NO_THROW(validate(RoundingCore::kQ15, Q31(32767, 13)));
  EXPECT_NO_THROW(validate(RoundingCore::kQ15, Q31(0, -47)));
  const std::string m_range = "allowed: [0, 32767] (Q15 mantissa)";
  const std::string s_range = "allowed: [-47, 13] (TFLite convention; TOSA apply_scale_16 shift 15 - shift in [2, 62])";
  ExpectInvalid([] { validate(RoundingCore::kQ15, Q31(32768, 0)); }, {"multiplier = 32768 is out of range", m_range});
  ExpectInvalid([] { validate(RoundingCore::kQ15, Q31(-1, 0)); }, {"multiplier = -1", m_range});
  // A Q31 multiplier handed to the Q15 core is rejected, not silently used.
  ExpectInvalid([] { Q15Rounding::validate(Q31(k2p30, 0)); }, {"multiplier = 1073741824", m_range});
  ExpectInvalid([] { validate(RoundingCore::kQ15, Q31(1 << 14, 14)); }, {"shift = 14 is out of range", s_range});
  ExpectInvalid([] { validate(RoundingCore::kQ15, Q31(1 << 14, -48)); }, {"shift = -48 is out of range", s_range});
}

TEST(ReferenceBadInput, FloatCoresValidateScales) {
  for (RoundingCore core : {RoundingCore::kFloat32, RoundingCore::kFloat32ZeroPointInside}) {
    SCOPED_TRACE(to_string(core));
    EXPECT_NO_THROW(validate(core, F32(0.5f)));
    EXPECT_NO_THROW(validate(core, F32(1e-45f)));  // any finite positive float
    const std::string range = "allowed: a finite value > 0";
    ExpectInvalid([&] { validate(core, F32(0.0f)); }, {"scale = 0 is out of range", range});
    ExpectInvalid([&] { validate(core, F32(-0.0f)); }, {"scale = -0 is out of range", range});
    ExpectInvalid([&] { validate(core, F32(-1.5f)); }, {"scale = -1.5 is out of range", range});
    ExpectInvalid([&] { validate(core, F32(kNaNf)); }, {"scale = nan is out of range", range});
    ExpectInvalid([&] { validate(core, F32(kInff)); }, {"scale = inf is out of range", range});
    ExpectInvalid([&] { validate(core, F32(-kInff)); }, {"scale = -inf is out of range", range});
    // The default RequantParams (scale 0) is not a valid float parameter set.
    ExpectInvalid([&] { validate(core, RequantParams{}); }, {"scale = 0", range});
  }
  // F32-ZPF also checks post_scale and bias.
  RequantParams p = F32(0.5f);
  p.post_scale = 0.0f;
  ExpectInvalid([&] { validate(RoundingCore::kFloat32ZeroPointInside, p); },
                {"post_scale = 0 is out of range", "allowed: a finite value > 0"});
  p.post_scale = kNaNf;
  ExpectInvalid([&] { validate(RoundingCore::kFloat32ZeroPointInside, p); }, {"post_scale = nan"});
  p.post_scale = 1.0f;
  p.bias = kInff;
  ExpectInvalid([&] { validate(RoundingCore::kFloat32ZeroPointInside, p); },
                {"bias = inf is out of range", "allowed: a finite value"});
  p.bias = kNaNf;
  ExpectInvalid([&] { validate(RoundingCore::kFloat32ZeroPointInside, p); }, {"bias = nan"});
  p.bias = -3.0f;
  EXPECT_NO_THROW(validate(RoundingCore::kFloat32ZeroPointInside, p));
  // F32 ignores post_scale and bias (they are F32-ZPF fields).
  EXPECT_NO_THROW(validate(RoundingCore::kFloat32, p));
}

TEST(ReferenceBadInput, InvalidRoundingCoreValue) {
  ExpectInvalid([] { validate(static_cast<RoundingCore>(200), Q31(k2p30, 0)); },
                {"rounding core 200 is not a valid RoundingCore"});
  ExpectInvalid([] { requantize(static_cast<RoundingCore>(11), 5, Q31(k2p30, 0)); },
                {"rounding core 11 is not a valid RoundingCore"});
}

// --------------------------------- multiplier derivation -------------------------------------

TEST(ReferenceBadInput, QuantizeMultiplierRejectsNonPositiveAndNonFiniteScales) {
  const std::string range = "allowed: a finite value > 0";
  struct Bad { double v; const char* text; };
  const Bad bad[] = {{-1.0, "= -1 is"}, {0.0, "= 0 is"}, {-0.0, "= -0 is"}, {kNaN, "= nan is"},
                     {kInf, "= inf is"}, {-kInf, "= -inf is"}, {-1e-300, "= -1e-300 is"}};
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    for (TfliteBuild build : {TfliteBuild::kDoubleRounding, TfliteBuild::kSingleRounding}) {
      ExpectInvalid([&] { quantize_multiplier_tflite(b.v, build); },
                    {std::string("real_multiplier ") + b.text, range});
    }
    ExpectInvalid([&] { quantize_multiplier_q15_direct(b.v); }, {std::string("real_multiplier ") + b.text, range});
    ExpectInvalid([&] { quantize_multiplier_fbgemm(b.v); }, {std::string("real_multiplier ") + b.text, range});
  }
}

TEST(ReferenceBadInput, FloatMantissaRange) {
  const std::string pos = "allowed: a finite value > 0";
  ExpectInvalid([] { quantize_multiplier_float_mantissa(0.0f); }, {"scale = 0 is out of range", pos});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(-2.0f); }, {"scale = -2 is out of range", pos});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(kNaNf); }, {"scale = nan", pos});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(kInff); }, {"scale = inf", pos});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(-kInff); }, {"scale = -inf", pos});
  const std::string range = "allowed: [2^-32, 256) (XNNPACK rndnu range)";
  ExpectInvalid([] { quantize_multiplier_float_mantissa(256.0f); }, {"scale = 256 is out of range", range});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(1000.0f); }, {"scale = 1000", range});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(0x1p-33f); }, {"scale = 1.16415321826934", range});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(std::nextafter(0x1p-32f, 0.0f)); }, {"scale = ", range});
  ExpectInvalid([] { quantize_multiplier_float_mantissa(1e-45f); }, {"scale = ", range});  // subnormal
  EXPECT_NO_THROW(quantize_multiplier_float_mantissa(0x1p-32f));
  EXPECT_NO_THROW(quantize_multiplier_float_mantissa(std::nextafter(256.0f, 0.0f)));
}

TEST(ReferenceBadInput, ReduceMultiplierRejectsNegativeQ31) {
  ExpectInvalid([] { reduce_multiplier_q31_to_q15({-5, 0}); },
                {"multiplier = -5 is out of range", "allowed: [0, 2147483647] (Q31 mantissa)"});
  ExpectInvalid([] { reduce_multiplier_q31_to_q15({kMin, 3}); }, {"multiplier = -2147483648"});
}

TEST(ReferenceBadInput, ComposeScaleNamesTheBadScale) {
  const ScaleComposition all[] = {ScaleComposition::kDouble, ScaleComposition::kFloatProductThenDouble,
                                  ScaleComposition::kFloat, ScaleComposition::kFloatTwoStep};
  const std::string range = "allowed: a finite value > 0";
  for (ScaleComposition c : all) {
    SCOPED_TRACE(to_string(c));
    ExpectInvalid([&] { compose_scale(c, 0.0f, 0.5f, 0.5f); }, {"input_scale = 0 is out of range", range});
    ExpectInvalid([&] { compose_scale(c, -1.0f, 0.5f, 0.5f); }, {"input_scale = -1", range});
    ExpectInvalid([&] { compose_scale(c, 0.5f, kNaNf, 0.5f); }, {"filter_scale = nan", range});
    ExpectInvalid([&] { compose_scale(c, 0.5f, -kInff, 0.5f); }, {"filter_scale = -inf", range});
    ExpectInvalid([&] { compose_scale(c, 0.5f, 0.5f, 0.0f); }, {"output_scale = 0", range});
    ExpectInvalid([&] { compose_scale(c, 0.5f, 0.5f, kInff); }, {"output_scale = inf", range});
    EXPECT_NO_THROW(compose_scale(c, 0.5f, 0.5f, 0.5f));
  }
}

// ------------------------------------- output stage ------------------------------------------

TEST(ReferenceBadInput, OutputParamsValidation) {
  ExpectInvalid([] { validate(OutputParams{128, -128, 127}, OutputType::kInt8); },
                {"zero_point = 128 is out of range", "allowed: [-128, 127] (int8)"});
  ExpectInvalid([] { validate(OutputParams{-129, -128, 127}, OutputType::kInt8); }, {"zero_point = -129"});
  ExpectInvalid([] { validate(OutputParams{-1, 0, 255}, OutputType::kUint8); },
                {"zero_point = -1 is out of range", "allowed: [0, 255] (uint8)"});
  ExpectInvalid([] { validate(OutputParams{0, -129, 127}, OutputType::kInt8); },
                {"qmin = -129 is out of range", "allowed: [-128, 127] (int8)"});
  ExpectInvalid([] { validate(OutputParams{0, 0, 300}, OutputType::kUint8); },
                {"qmax = 300 is out of range", "allowed: [0, 255] (qmin..type max)"});
  ExpectInvalid([] { validate(OutputParams{0, 10, 5}, OutputType::kInt8); },
                {"qmax = 5 is out of range", "allowed: [10, 127] (qmin..type max)"});
  ExpectInvalid([] { validate(OutputParams{0, -40000, 0}, OutputType::kInt16); },
                {"qmin = -40000", "allowed: [-32768, 32767] (int16)"});
  // The default OutputParams (full int32) is only valid for int32 output.
  EXPECT_NO_THROW(validate(OutputParams{}, OutputType::kInt32));
  ExpectInvalid([] { validate(OutputParams{}, OutputType::kInt8); }, {"qmin = -2147483648"});
}

TEST(ReferenceBadInput, ActivationOutputParams) {
  const std::string range = "allowed: a finite value > 0";
  for (ClampDerivation d : {ClampDerivation::kTflite, ClampDerivation::kXnnpack, ClampDerivation::kOnednn}) {
    SCOPED_TRACE(to_string(d));
    ExpectInvalid([&] { activation_output_params(Activation::kRelu, d, 0.0f, 0, OutputType::kInt8); },
                  {"output_scale = 0 is out of range", range});
    ExpectInvalid([&] { activation_output_params(Activation::kRelu6, d, -0.5f, 0, OutputType::kInt8); },
                  {"output_scale = -0.5", range});
    ExpectInvalid([&] { activation_output_params(Activation::kNone, d, kNaNf, 0, OutputType::kInt8); },
                  {"output_scale = nan", range});
    ExpectInvalid([&] { activation_output_params(Activation::kReluN1To1, d, kInff, 0, OutputType::kInt8); },
                  {"output_scale = inf", range});
    ExpectInvalid([&] { activation_output_params(Activation::kRelu, d, 0.5f, 300, OutputType::kUint8); },
                  {"zero_point = 300 is out of range", "allowed: [0, 255] (uint8)"});
    ExpectInvalid([&] { activation_output_params(Activation::kRelu, d, 0.5f, -129, OutputType::kInt8); },
                  {"zero_point = -129 is out of range", "allowed: [-128, 127] (int8)"});
  }
}

// ------------------------------------ names and presets --------------------------------------

TEST(ReferenceBadInput, RoundingCoreFromString) {
  const std::string allowed = "allowed: DR-AZ, DR-UP, SR-UP, SR-UP-NEON, SR-AZ, SR-EVEN, TRUNC, FLOOR, F32, F32-ZPF, Q15";
  for (const char* name : {"dr-az", "", "SR_UP", "F32 ", "DRAZ", "q15"}) {
    SCOPED_TRACE(name);
    ExpectInvalid([&] { rounding_core_from_string(name); },
                  {std::string("rounding core '") + name + "' is unknown", allowed});
  }
}

TEST(ReferenceBadInput, FindPreset) {
  ExpectInvalid([] { find_preset("tflite"); },
                {"preset 'tflite' is unknown", "allowed: tflite-reference, tflite-single", "npu-verisilicon",
                 "npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN}"});
  ExpectInvalid([] { find_preset("npu-he-q15-sat64"); }, {"preset 'npu-he-q15-sat64' is unknown"});
}

// ------------------------------------ derive_requant_params ----------------------------------

TEST(ReferenceBadInput, DeriveRequantParamsShiftOutOfRange) {
  // 3e9 -> TFLite DR build (1500000000, 32): shift 32 is beyond the Q31 cores' [-31, 30].
  for (RoundingCore core : kQ31Cores) {
    SCOPED_TRACE(to_string(core));
    ExpectInvalid([&] {
      derive_requant_params(core, MultiplierDerivation::kTfliteDoubleBuild, EffectiveScale{3e9, 1.0f});
    }, {"scale = 3000000000 cannot be used with " + std::string(to_string(core)), "(derivation tflite-q31)",
        "shift = 32 is out of range", "allowed: [-31, 30]"});
  }
  // The single-rounding build saturates instead: accepted.
  EXPECT_NO_THROW(derive_requant_params(RoundingCore::kSingleRoundingUpward,
                                        MultiplierDerivation::kTfliteSingleBuild, EffectiveScale{3e9, 1.0f}));
  // Q15: 1e5 -> Q31 shift 17 -> Q15 shift 17 > 13.
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kQ15, MultiplierDerivation::kQ15FromTfliteQ31, EffectiveScale{1e5, 1.0f});
  }, {"scale = 100000 cannot be used with Q15", "(derivation q15-from-tflite-q31)", "shift = 17 is out of range",
      "allowed: [-47, 13]"});
  // FBGEMM never flushes: 2^-40 -> shift -39 < -31.
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kFbgemmQ31,
                          EffectiveScale{0x1p-40, 1.0f});
  }, {"scale = 9.0949470177292824e-13 cannot be used with SR-UP", "(derivation fbgemm-q31)", "shift = -39"});
  // Q15 direct for a Q31 core: 2^31 -> shift 32.
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kSingleRoundingToEven, MultiplierDerivation::kQ15Direct,
                          EffectiveScale{0x1p31, 1.0f});
  }, {"scale = 2147483648 cannot be used with SR-EVEN", "(derivation q15-direct)", "shift = 32"});
  // The float mantissa range is reported by its own check.
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kFloatMantissa24,
                          EffectiveScale{300.0, 1.0f});
  }, {"scale = 300 is out of range", "allowed: [2^-32, 256) (XNNPACK rndnu range)"});
  // And through a preset.
  ExpectInvalid([] { derive_requant_params(find_preset("tflite-reference"), 1e5f, 1e5f, 1.0f); },
                {"cannot be used with DR-AZ", "shift = 34 is out of range"});
}

TEST(ReferenceBadInput, DeriveRequantParamsOtherErrors) {
  const std::string range = "allowed: a finite value > 0";
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kTfliteDoubleBuild,
                          EffectiveScale{kNaN, 1.0f});
  }, {"scale = nan is out of range", range});
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kTfliteDoubleBuild,
                          EffectiveScale{0.0, 1.0f});
  }, {"scale = 0 is out of range", range});
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kFloatScale,
                          EffectiveScale{0.5, 1.0f});
  }, {"multiplier derivation float-scale needs a float rounding core (F32, F32-ZPF), not DR-AZ"});
  // Bad F32-ZPF fields are reported with the scale context.
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kFloat32ZeroPointInside, MultiplierDerivation::kFloatScale,
                          EffectiveScale{0.5, 1.0f}, kNaNf);
  }, {"cannot be used with F32-ZPF", "bias = nan"});
  // Preset-level: each scale is named.
  ExpectInvalid([] { derive_requant_params(find_preset("onednn"), 0.5f, 0.5f, -1.0f); },
                {"output_scale = -1 is out of range", range});
  ExpectInvalid([] { derive_requant_params(find_preset("xnnpack-fp32"), kNaNf, 0.5f, 1.0f); },
                {"input_scale = nan", range});
  // A float scale that overflows float: the double composition is finite, the float core's
  // scale becomes inf and is rejected.
  ExpectInvalid([] {
    derive_requant_params(RoundingCore::kFloat32, MultiplierDerivation::kFloatScale, EffectiveScale{1e300, 1.0f});
  }, {"cannot be used with F32", "scale = inf"});
}

}  // namespace
