// Presets (presets.h): every named preset resolves and has the axes docs/semantics.md §19.9 assigns
// it; the NPU family parses and rejects names; derive_requant_params per preset equals the explicit
// composition + derivation written out in the test.
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;

struct ExpectedPreset {
  const char* name;
  RoundingCore core;
  MultiplierDerivation derivation;
  ScaleComposition composition;
  ClampDerivation clamp;
  AccumulatorKind acc;
  int bits;
};

// Written from docs/semantics.md §19.9 ("Presets that the sources above pin down exactly") and
// §3-§10, §14 (npu-verisilicon hypothesis as documented in presets.h).
const ExpectedPreset kExpected[] = {
    {"tflite-reference", RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"tflite-single", RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kTfliteSingleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"gemmlowp", RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"ruy-x86", RoundingCore::kDoubleRoundingUpward, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"ruy-arm", RoundingCore::kSingleRoundingUpwardNeon, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"cmsis-nn", RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"cmsis-nn-single", RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kTfliteSingleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"tosa-double", RoundingCore::kDoubleRoundingAwayFromZero, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"tosa-single", RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kTfliteDoubleBuild,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
    {"xnnpack-fp32", RoundingCore::kFloat32, MultiplierDerivation::kFloatScale, ScaleComposition::kFloat,
     ClampDerivation::kXnnpack, AccumulatorKind::kInt32, 32},
    {"xnnpack-rndnu", RoundingCore::kSingleRoundingUpward, MultiplierDerivation::kFloatMantissa24,
     ScaleComposition::kFloat, ClampDerivation::kXnnpack, AccumulatorKind::kInt32, 32},
    {"onnxruntime", RoundingCore::kFloat32, MultiplierDerivation::kFloatScale, ScaleComposition::kFloat,
     ClampDerivation::kXnnpack, AccumulatorKind::kInt32, 32},
    {"fbgemm", RoundingCore::kFloat32, MultiplierDerivation::kFloatScale, ScaleComposition::kFloat,
     ClampDerivation::kXnnpack, AccumulatorKind::kInt32, 32},
    {"onednn", RoundingCore::kFloat32ZeroPointInside, MultiplierDerivation::kFloatScale,
     ScaleComposition::kFloatTwoStep, ClampDerivation::kOnednn, AccumulatorKind::kInt32, 32},
    {"tflite-16x8", RoundingCore::kQ15, MultiplierDerivation::kQ15FromTfliteQ31, ScaleComposition::kDouble,
     ClampDerivation::kTflite, AccumulatorKind::kInt64, 64},
    {"npu-verisilicon", RoundingCore::kSingleRoundingToEven, MultiplierDerivation::kQ15Direct,
     ScaleComposition::kDouble, ClampDerivation::kTflite, AccumulatorKind::kInt32, 32},
};

void ExpectAxes(const Preset& p, const ExpectedPreset& e) {
  EXPECT_EQ(p.core, e.core) << e.name << ": " << to_string(p.core);
  EXPECT_EQ(p.derivation, e.derivation) << e.name << ": " << to_string(p.derivation);
  EXPECT_EQ(p.composition, e.composition) << e.name << ": " << to_string(p.composition);
  EXPECT_EQ(p.clamp, e.clamp) << e.name << ": " << to_string(p.clamp);
  EXPECT_EQ(p.accumulator.kind, e.acc) << e.name << ": " << to_string(p.accumulator);
  EXPECT_EQ(p.accumulator.bits, e.bits) << e.name;
}

TEST(ReferencePresets, EveryNamedPresetResolvesWithTheDocumentedAxes) {
  const std::vector<Preset>& all = named_presets();
  ASSERT_EQ(all.size(), sizeof(kExpected) / sizeof(kExpected[0]));
  std::set<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(kExpected[i].name);
    EXPECT_EQ(all[i].name, kExpected[i].name) << "documentation order";
    names.insert(all[i].name);
    EXPECT_FALSE(all[i].description.empty());
    EXPECT_FALSE(all[i].source.empty());
    ExpectAxes(all[i], kExpected[i]);
    const Preset found = find_preset(kExpected[i].name);
    EXPECT_EQ(found.name, kExpected[i].name);
    EXPECT_EQ(found.description, all[i].description);
    EXPECT_EQ(found.source, all[i].source);
    ExpectAxes(found, kExpected[i]);
  }
  EXPECT_EQ(names.size(), all.size()) << "duplicate preset names";
  EXPECT_EQ(all.back().name, "npu-verisilicon");
}

// The compile-time preset types agree with the run-time table.
TEST(ReferencePresets, CompileTimeTypesMatchRunTimeTable) {
#define QPARITY_CHECK_PRESET_TYPE(Type, Name, PolicyType, Deriv, Comp, Clamp, AccKind, AccBits, Desc, Src) \
  {                                                                                                  \
    const Preset p = find_preset(presets::Type::kName);                                              \
    EXPECT_EQ(p.core, presets::Type::Policy::kCore) << Name;                                         \
    EXPECT_EQ(p.derivation, presets::Type::kDerivation) << Name;                                     \
    EXPECT_EQ(p.composition, presets::Type::kComposition) << Name;                                   \
    EXPECT_EQ(p.clamp, presets::Type::kClamp) << Name;                                               \
    EXPECT_EQ(p.accumulator.kind, presets::Type::kAccumulatorKind) << Name;                          \
    EXPECT_EQ(p.accumulator.bits, presets::Type::kAccumulatorBits) << Name;                          \
    ++count;                                                                                         \
  }
  int count = 0;
  QPARITY_PRESET_LIST(QPARITY_CHECK_PRESET_TYPE)
#undef QPARITY_CHECK_PRESET_TYPE
  EXPECT_EQ(count, 15);
  EXPECT_EQ(presets::TfliteReference::Policy::kCore, RoundingCore::kDoubleRoundingAwayFromZero);
  EXPECT_EQ(presets::Onednn::Policy::kCore, RoundingCore::kFloat32ZeroPointInside);
  EXPECT_TRUE(presets::Onednn::Policy::kZeroPointInside);
  EXPECT_EQ(presets::Tflite16x8::Policy::kCore, RoundingCore::kQ15);
}

TEST(ReferencePresets, NpuVerisiliconIsTheDocumentedHypothesis) {
  const Preset v = find_preset("npu-verisilicon");
  EXPECT_STREQ(kNpuVerisiliconName, "npu-verisilicon");
  EXPECT_STREQ(kNpuVerisiliconExpansion, "npu-he-q15-int32");
  const Preset e = find_preset(kNpuVerisiliconExpansion);
  EXPECT_EQ(e.name, "npu-he-q15-int32");
  EXPECT_EQ(v.core, e.core);
  EXPECT_EQ(v.derivation, e.derivation);
  EXPECT_EQ(v.composition, e.composition);
  EXPECT_EQ(v.clamp, e.clamp);
  EXPECT_EQ(v.accumulator.kind, e.accumulator.kind);
  EXPECT_EQ(v.accumulator.bits, e.accumulator.bits);
  EXPECT_NE(v.description.find("UNVERIFIED"), std::string::npos);
}

TEST(ReferencePresets, NpuFamilyParsesEveryMember) {
  struct Tie { const char* s; RoundingCore core; };
  const Tie ties[] = {{"hu", RoundingCore::kSingleRoundingUpward},
                      {"haz", RoundingCore::kSingleRoundingAwayFromZero},
                      {"he", RoundingCore::kSingleRoundingToEven},
                      {"tz", RoundingCore::kTruncate},
                      {"fl", RoundingCore::kFloor}};
  struct Prec { const char* s; MultiplierDerivation d; };
  const Prec precs[] = {{"q31", MultiplierDerivation::kTfliteDoubleBuild},
                        {"q15", MultiplierDerivation::kQ15Direct},
                        {"f24", MultiplierDerivation::kFloatMantissa24}};
  struct Acc { const char* s; AccumulatorKind k; int bits; };
  const Acc accs[] = {{"int32", AccumulatorKind::kInt32, 32}, {"int64", AccumulatorKind::kInt64, 64},
                      {"sat16", AccumulatorKind::kSaturating, 16}, {"sat24", AccumulatorKind::kSaturating, 24},
                      {"sat48", AccumulatorKind::kSaturating, 48}, {"wrap16", AccumulatorKind::kWrapping, 16},
                      {"wrap24", AccumulatorKind::kWrapping, 24}, {"wrap64", AccumulatorKind::kWrapping, 64}};
  int n = 0;
  for (const Tie& t : ties) {
    for (const Prec& p : precs) {
      for (const Acc& a : accs) {
        const std::string name = std::string("npu-") + t.s + "-" + p.s + "-" + a.s;
        SCOPED_TRACE(name);
        const Preset preset = find_preset(name);
        EXPECT_EQ(preset.name, name);
        EXPECT_EQ(preset.core, t.core);
        EXPECT_EQ(preset.derivation, p.d);
        EXPECT_EQ(preset.composition, ScaleComposition::kDouble);
        EXPECT_EQ(preset.clamp, ClampDerivation::kTflite);
        EXPECT_EQ(preset.accumulator.kind, a.k);
        EXPECT_EQ(preset.accumulator.bits, a.bits);
        EXPECT_FALSE(preset.description.empty());
        EXPECT_FALSE(preset.source.empty());
        ++n;
      }
    }
  }
  EXPECT_EQ(n, 5 * 3 * 8);
}

TEST(ReferencePresets, NpuFamilyList) {
  const std::vector<Preset> fam = npu_family();
  EXPECT_EQ(fam.size(), 15u);  // {hu, haz, he, tz, fl} x {q31, q15, f24}
  std::set<std::string> names;
  for (const Preset& p : fam) {
    names.insert(p.name);
    EXPECT_EQ(p.accumulator.kind, AccumulatorKind::kInt32) << p.name;
    const Preset again = find_preset(p.name);
    EXPECT_EQ(again.core, p.core);
    EXPECT_EQ(again.derivation, p.derivation);
  }
  EXPECT_EQ(names.size(), 15u);
  EXPECT_TRUE(names.count("npu-he-q15-int32"));
  EXPECT_TRUE(names.count("npu-fl-f24-int32"));
  const std::vector<Preset> sat = npu_family(AccumulatorSpec{AccumulatorKind::kSaturating, 24});
  EXPECT_EQ(sat.size(), 15u);
  EXPECT_EQ(sat.front().name, "npu-hu-q31-sat24");
}

TEST(ReferencePresets, FindPresetRejectsBadNamesListingValidOnes) {
  const char* bad[] = {"", "tflite", "TFLite-reference", " tflite-reference", "tflite-reference ",
                       "npu-", "npu-he", "npu-he-q15", "npu-xx-q31-int32", "npu-he-q16-int32",
                       "npu-he-q15-int16", "npu-he-q15-sat15", "npu-he-q15-sat49", "npu-he-q15-wrap15",
                       "npu-he-q15-wrap65", "npu-he-q15-sat", "npu-he-q15-sat024", "npu-he-q15-sat2x",
                       "npu-he-q15-int32-extra", "NPU-he-q15-int32", "npu-HE-q15-int32", "npu-he--int32"};
  for (const char* name : bad) {
    SCOPED_TRACE(name);
    try {
      find_preset(name);
      ADD_FAILURE() << "no exception for '" << name << "'";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("preset '") + name + "' is unknown"), std::string::npos) << what;
      EXPECT_NE(what.find("allowed:"), std::string::npos) << what;
      for (const ExpectedPreset& p : kExpected) {
        EXPECT_NE(what.find(p.name), std::string::npos) << p.name << " missing from: " << what;
      }
      EXPECT_NE(what.find("npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN}"), std::string::npos)
          << what;
    }
  }
}

TEST(ReferencePresets, ToStringOfAxes) {
  EXPECT_STREQ(to_string(MultiplierDerivation::kTfliteDoubleBuild), "tflite-q31");
  EXPECT_STREQ(to_string(MultiplierDerivation::kTfliteSingleBuild), "tflite-q31-single-build");
  EXPECT_STREQ(to_string(MultiplierDerivation::kFloatMantissa24), "float-mantissa-24");
  EXPECT_STREQ(to_string(MultiplierDerivation::kQ15FromTfliteQ31), "q15-from-tflite-q31");
  EXPECT_STREQ(to_string(MultiplierDerivation::kQ15Direct), "q15-direct");
  EXPECT_STREQ(to_string(MultiplierDerivation::kFbgemmQ31), "fbgemm-q31");
  EXPECT_STREQ(to_string(MultiplierDerivation::kFloatScale), "float-scale");
  EXPECT_EQ(to_string(AccumulatorSpec{AccumulatorKind::kInt32, 32}), "int32");
  EXPECT_EQ(to_string(AccumulatorSpec{AccumulatorKind::kInt64, 64}), "int64");
  EXPECT_EQ(to_string(AccumulatorSpec{AccumulatorKind::kSaturating, 24}), "sat24");
  EXPECT_EQ(to_string(AccumulatorSpec{AccumulatorKind::kWrapping, 40}), "wrap40");
  EXPECT_EQ(to_string(AccumulatorSpec{AccumulatorKind::kPairSaturating, 32}), "pairsat16");
  // Rounding core names round-trip.
  for (RoundingCore c : kAllRoundingCores) EXPECT_EQ(rounding_core_from_string(to_string(c)), c);
}

// derive_requant_params(preset, s_in, s_w, s_out) = the preset's composition + derivation,
// written out explicitly here, on the three §11.6 scale triples.
TEST(ReferencePresets, DeriveRequantParamsPerPreset) {
  struct Scales { float in, w, out; };
  const Scales rows[] = {{0.00140596379f, 0.00894607045f, 0.0273668021f},
                         {0.0617987774f, 0.00524291256f, 0.218587115f},
                         {0.0154719995f, 0.000355372089f, 0.0122621255f}};
  for (const Scales& s : rows) {
    const double dbl = static_cast<double>(s.in) * static_cast<double>(s.w) / static_cast<double>(s.out);
    volatile float prod = s.in * s.w;
    volatile float flt = prod / s.out;
    volatile float inv = 1.0f / s.out;
    for (const ExpectedPreset& e : kExpected) {
      SCOPED_TRACE(std::string(e.name) + " s_in=" + std::to_string(s.in));
      const RequantParams p = derive_requant_params(find_preset(e.name), s.in, s.w, s.out, 0.25f);
      const double eff = e.composition == ScaleComposition::kDouble ? dbl
                         : e.composition == ScaleComposition::kFloat ? static_cast<double>(flt)
                                                                     : static_cast<double>(prod);
      QuantizedMultiplier m{0, 0};
      switch (e.derivation) {
        case MultiplierDerivation::kTfliteDoubleBuild: m = quantize_multiplier_tflite(eff); break;
        case MultiplierDerivation::kTfliteSingleBuild:
          m = quantize_multiplier_tflite(eff, TfliteBuild::kSingleRounding);
          break;
        case MultiplierDerivation::kFloatMantissa24:
          m = quantize_multiplier_float_mantissa(static_cast<float>(eff));
          break;
        case MultiplierDerivation::kQ15FromTfliteQ31:
          m = reduce_multiplier_q31_to_q15(quantize_multiplier_tflite(eff));
          break;
        case MultiplierDerivation::kQ15Direct: m = quantize_multiplier_q15_direct(eff); break;
        case MultiplierDerivation::kFbgemmQ31: m = quantize_multiplier_fbgemm(eff); break;
        case MultiplierDerivation::kFloatScale: break;
      }
      if (is_float_core(e.core)) {
        EXPECT_EQ(p.scale, static_cast<float>(eff));
        EXPECT_EQ(p.bias, 0.25f);
        EXPECT_EQ(p.post_scale, e.composition == ScaleComposition::kFloatTwoStep ? static_cast<float>(inv) : 1.0f);
      } else if (e.core == RoundingCore::kQ15) {
        EXPECT_EQ(p.multiplier, m.multiplier);
        EXPECT_EQ(p.shift, m.shift);
        EXPECT_LE(p.multiplier, 32767);
      } else {
        const bool q15 = e.derivation == MultiplierDerivation::kQ15Direct ||
                         e.derivation == MultiplierDerivation::kQ15FromTfliteQ31;
        EXPECT_EQ(p.multiplier, q15 ? m.multiplier << 16 : m.multiplier);
        EXPECT_EQ(p.shift, m.shift);
        EXPECT_GE(p.multiplier, 1 << 30);
      }
      EXPECT_NO_THROW(validate(e.core, p));
    }
  }
}

// oneDNN end to end: F32-ZPF with the two-step composition and the f32 bias reproduces
// ((float(acc) * float(s_in * s_w) + bias) * (1.f / s_out) + zp), rounded half to even.
TEST(ReferencePresets, OnednnTwoStepEndToEnd) {
  const float s_in = 0.0617987774f, s_w = 0.00524291256f, s_out = 0.218587115f, bias = -0.37f;
  const RequantParams p = derive_requant_params(find_preset("onednn"), s_in, s_w, s_out, bias);
  // The same preset without bias, against the single-step float scale (XNNPACK's composition)
  // with the zero point also inside: the two-step product rounds differently on some inputs.
  const RequantParams p0 = derive_requant_params(find_preset("onednn"), s_in, s_w, s_out);
  RequantParams single;
  single.scale = static_cast<float>(compose_scale(ScaleComposition::kFloat, s_in, s_w, s_out).scale);
  int differs_from_single_step = 0;
  for (std::int32_t acc = -200000; acc <= 200000; acc += 7) {
    for (std::int32_t zp : {-3, 0, 4}) {
      volatile float v = static_cast<float>(acc) * (s_in * s_w);
      v = v + bias;
      v = v * (1.0f / s_out);
      v = v + static_cast<float>(zp);
      const float r = std::nearbyint(v);  // default rounding mode: to nearest even
      const std::int32_t expected = static_cast<std::int32_t>(r);
      EXPECT_EQ(requantize_to_output<Float32ZeroPointInside>(acc, p, full_range_output(OutputType::kInt32, zp)),
                expected)
          << acc << " " << zp;
      differs_from_single_step += Float32ZeroPointInside::requantize_with_zero_point(acc, p0, zp) !=
                                  Float32ZeroPointInside::requantize_with_zero_point(acc, single, zp);
    }
  }
  EXPECT_GT(differs_from_single_step, 0);
}

}  // namespace
