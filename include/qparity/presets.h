// Presets: named configurations that reproduce real systems (docs/semantics.md §19.9, "Presets").
//
// A preset fixes every axis that changes output bits: the rounding core, how the multiplier is
// derived from the real scale, how scales are composed, how activation bounds are quantized, and
// the accumulator model. Select one at run time by name (find_preset("tflite-reference")) or at
// compile time by type (presets::TfliteReference::Policy).
//
// The NPU family ("npu-<tie>-<precision>-<accumulator>", e.g. npu-he-q15-int32) covers single
// rounding with a chosen tie rule (hu, haz, he, tz, fl), multiplier precision (q31, q15, f24 =
// float32 mantissa) and accumulator (int32, int64, satN, wrapN). `npu-verisilicon` is an alias of the best
// current hypothesis for the VeriSilicon VIPNano NPU (docs/semantics.md §14): it is NOT verified.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qparity/accumulator.h"
#include "qparity/error.h"
#include "qparity/fixed_point.h"
#include "qparity/multiplier.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/requant_params.h"
#include "qparity/scale_composition.h"

namespace qparity {

/// How the integer (or float) parameters of the rounding core are derived from the real scale.
enum class MultiplierDerivation : std::uint8_t {
  kTfliteDoubleBuild,  ///< quantize_multiplier_tflite(scale, kDoubleRounding)
  kTfliteSingleBuild,  ///< quantize_multiplier_tflite(scale, kSingleRounding)
  kFloatMantissa24,    ///< quantize_multiplier_float_mantissa(float(scale)) (XNNPACK rndnu)
  kQ15FromTfliteQ31,   ///< reduce_multiplier_q31_to_q15(quantize_multiplier_tflite(scale))
  kQ15Direct,          ///< quantize_multiplier_q15_direct(scale) (MLIR-TOSA 16-bit)
  kFbgemmQ31,          ///< quantize_multiplier_fbgemm(scale)
  kFloatScale,         ///< no integer multiplier: scale = float(scale)
};

inline const char* to_string(MultiplierDerivation d) {
  switch (d) {
    case MultiplierDerivation::kTfliteDoubleBuild: return "tflite-q31";
    case MultiplierDerivation::kTfliteSingleBuild: return "tflite-q31-single-build";
    case MultiplierDerivation::kFloatMantissa24: return "float-mantissa-24";
    case MultiplierDerivation::kQ15FromTfliteQ31: return "q15-from-tflite-q31";
    case MultiplierDerivation::kQ15Direct: return "q15-direct";
    case MultiplierDerivation::kFbgemmQ31: return "fbgemm-q31";
    case MultiplierDerivation::kFloatScale: return "float-scale";
  }
  return "?";
}

struct Preset {
  std::string name;
  std::string description;  ///< one line
  std::string source;       ///< repository and path the behaviour was read from
  RoundingCore core;
  MultiplierDerivation derivation;
  ScaleComposition composition;
  ClampDerivation clamp;
  AccumulatorSpec accumulator;
};

// The compile-time presets. Each is a type with Policy (the rounding policy type) and the
// static constexpr axes; the run-time table below is generated from the same list.
#define QPARITY_PRESET_LIST(X)                                                                    \
  X(TfliteReference, "tflite-reference", DoubleRoundingAwayFromZero, kTfliteDoubleBuild, kDouble,  \
    kTflite, kInt32, 32,                                                                          \
    "TFLite reference/TFLM kernels, default double-rounding build (DR-AZ)",                       \
    "google-ai-edge/LiteRT tflite/kernels/internal/common.cc MultiplyByQuantizedMultiplier; "     \
    "quantization_util.cc QuantizeMultiplier")                                                    \
  X(TfliteSingle, "tflite-single", SingleRoundingUpward, kTfliteSingleBuild, kDouble, kTflite,     \
    kInt32, 32, "TFLite built with TFLITE_SINGLE_ROUNDING=1 (SR-UP)",                             \
    "google-ai-edge/LiteRT tflite/kernels/internal/common.cc (TFLITE_SINGLE_ROUNDING branch)")    \
  X(Gemmlowp, "gemmlowp", DoubleRoundingAwayFromZero, kTfliteDoubleBuild, kDouble, kTflite,        \
    kInt32, 32, "gemmlowp fixed-point output stage (SRDHM + RoundingDivideByPOT, DR-AZ)",         \
    "google/gemmlowp public/output_stages.h OutputStageScaleInt32ByFixedPointAndExponent")        \
  X(RuyX86, "ruy-x86", DoubleRoundingUpward, kTfliteDoubleBuild, kDouble, kTflite, kInt32, 32,     \
    "ruy AVX/AVX2/AVX-512 kernels, used by TFLite int8 GEMM on x86 (DR-UP)",                      \
    "google/ruy ruy/kernel_avx2_fma.cc, kernel_avx512.cc")                                        \
  X(RuyArm, "ruy-arm", SingleRoundingUpwardNeon, kTfliteDoubleBuild, kDouble, kTflite, kInt32, 32, \
    "ruy ARM kernels since 2021-02 (SQDMULH + SRSHL, pre-shift by shift+1: SR-UP-NEON)",          \
    "google/ruy ruy/kernel_arm64.cc, ruy/apply_multiplier.cc (PR #227)")                          \
  X(CmsisNn, "cmsis-nn", DoubleRoundingAwayFromZero, kTfliteDoubleBuild, kDouble, kTflite, kInt32, \
    32, "CMSIS-NN arm_nn_requantize, default build (DR-AZ)",                                      \
    "ARM-software/CMSIS-NN Include/arm_nnsupportfunctions.h")                                     \
  X(CmsisNnSingle, "cmsis-nn-single", SingleRoundingUpward, kTfliteSingleBuild, kDouble, kTflite,  \
    kInt32, 32, "CMSIS-NN with CMSIS_NN_USE_SINGLE_ROUNDING (SR-UP)",                             \
    "ARM-software/CMSIS-NN Include/arm_nnsupportfunctions.h, README.md")                          \
  X(TosaDouble, "tosa-double", DoubleRoundingAwayFromZero, kTfliteDoubleBuild, kDouble, kTflite,   \
    kInt32, 32, "TOSA RESCALE rounding_mode DOUBLE_ROUND, i32 accumulator (DR-AZ on TOSA's domain)",\
    "arm/tosa-specification pseudocode/library/scale_helpers.tosac apply_scale_32")               \
  X(TosaSingle, "tosa-single", SingleRoundingUpward, kTfliteDoubleBuild, kDouble, kTflite, kInt32, \
    32, "TOSA RESCALE rounding_mode SINGLE_ROUND, i32 accumulator (SR-UP)",                       \
    "arm/tosa-specification pseudocode/library/scale_helpers.tosac apply_scale_32")               \
  X(XnnpackFp32, "xnnpack-fp32", Float32Rounding, kFloatScale, kFloat, kXnnpack, kInt32, 32,       \
    "XNNPACK fp32 requantization: all qc8w (per-channel) kernels, TFLite XNNPACK delegate (F32)",  \
    "google/XNNPACK src/xnnpack/requantization.h xnn_qs8_requantize_fp32; "                       \
    "src/operators/convolution-nhwc.c")                                                           \
  X(XnnpackRndnu, "xnnpack-rndnu", SingleRoundingUpward, kFloatMantissa24, kFloat, kXnnpack,       \
    kInt32, 32, "XNNPACK rndnu: SR-UP with the float32 scale's 24-bit mantissa",                  \
    "google/XNNPACK src/xnnpack/requantization.h xnn_qs8_requantize_rndnu; src/microparams-init.c")\
  X(Onnxruntime, "onnxruntime", Float32Rounding, kFloatScale, kFloat, kXnnpack, kInt32, 32,        \
    "ONNX Runtime MLAS MlasRequantizeOutput (F32, zero point after rounding)",                    \
    "microsoft/onnxruntime onnxruntime/core/mlas/lib/quantize.cpp")                               \
  X(Fbgemm, "fbgemm", Float32Rounding, kFloatScale, kFloat, kXnnpack, kInt32, 32,                  \
    "FBGEMM/PyTorch requantizeOutputProcessingAvx2 (F32)",                                        \
    "pytorch/FBGEMM src/QuantUtilsAvx2.cc; include/fbgemm/QuantUtils.h")                          \
  X(Onednn, "onednn", Float32ZeroPointInside, kFloatScale, kFloatTwoStep, kOnednn, kInt32, 32,     \
    "oneDNN int8 conv/matmul: two-step f32 scales, f32 bias, zero point added before RNE (F32-ZPF)",\
    "oneapi-src/oneDNN src/cpu/ref_convolution_int8.cpp, src/cpu/simple_q10n.hpp")               \
  X(Tflite16x8, "tflite-16x8", Q15Rounding, kQ15FromTfliteQ31, kDouble, kTflite, kInt64, 64,       \
    "TFLite int16x8 ops with int64 bias: Q15 multiplier on a 48-bit accumulator",                  \
    "google-ai-edge/LiteRT tflite/kernels/internal/common.cc MultiplyByQuantizedMultiplier(int64)")

namespace presets {
#define QPARITY_DEFINE_PRESET_TYPE(Type, Name, PolicyType, Deriv, Comp, Clamp, AccKind, AccBits, \
                                   Desc, Src)                                                     \
  struct Type {                                                                                   \
    using Policy = PolicyType;                                                                    \
    static constexpr const char* kName = Name;                                                    \
    static constexpr MultiplierDerivation kDerivation = MultiplierDerivation::Deriv;              \
    static constexpr ScaleComposition kComposition = ScaleComposition::Comp;                      \
    static constexpr ClampDerivation kClamp = ClampDerivation::Clamp;                             \
    static constexpr AccumulatorKind kAccumulatorKind = AccumulatorKind::AccKind;                 \
    static constexpr int kAccumulatorBits = AccBits;                                              \
  };
QPARITY_PRESET_LIST(QPARITY_DEFINE_PRESET_TYPE)
#undef QPARITY_DEFINE_PRESET_TYPE
}  // namespace presets

/// Multiplier precision of the NPU family.
enum class NpuMultiplierPrecision : std::uint8_t { kQ31, kQ15, kFloat24 };

/// The name of the best current hypothesis for the VeriSilicon NPU, and what it expands to.
/// Hypothesis (docs/semantics.md §14, UNVERIFIED): one rounding and a 16-bit multiplier with a
/// 48-bit intermediate (the vendor's explanation in tflite-vx-delegate issue #210, as quoted in the
/// project brief; docs/semantics.md §14.2 could retrieve only its first lines), ties to even
/// (TIM-VX's default RoundingPolicy RTNE, never overridden by the VX delegate), the Q15 multiplier
/// rounded directly from the scale, and an int32 accumulator. Use `qparity identify` (probe set of
/// §14.3) to measure it.
inline constexpr const char* kNpuVerisiliconName = "npu-verisilicon";
inline constexpr const char* kNpuVerisiliconExpansion = "npu-he-q15-int32";

namespace detail {

inline Preset make_npu_preset(TieRule tie, NpuMultiplierPrecision precision, AccumulatorSpec acc) {
  Preset p;
  const char* tie_name = "hu";
  switch (tie) {
    case TieRule::kHalfUp: p.core = RoundingCore::kSingleRoundingUpward; tie_name = "hu"; break;
    case TieRule::kHalfAwayFromZero:
      p.core = RoundingCore::kSingleRoundingAwayFromZero; tie_name = "haz"; break;
    case TieRule::kHalfToEven: p.core = RoundingCore::kSingleRoundingToEven; tie_name = "he"; break;
    case TieRule::kTowardZero: p.core = RoundingCore::kTruncate; tie_name = "tz"; break;
    case TieRule::kFloor: p.core = RoundingCore::kFloor; tie_name = "fl"; break;
  }
  const char* prec_name = "q31";
  switch (precision) {
    case NpuMultiplierPrecision::kQ31:
      p.derivation = MultiplierDerivation::kTfliteDoubleBuild; prec_name = "q31"; break;
    case NpuMultiplierPrecision::kQ15:
      p.derivation = MultiplierDerivation::kQ15Direct; prec_name = "q15"; break;
    case NpuMultiplierPrecision::kFloat24:
      p.derivation = MultiplierDerivation::kFloatMantissa24; prec_name = "f24"; break;
  }
  p.accumulator = acc;
  p.composition = ScaleComposition::kDouble;
  p.clamp = ClampDerivation::kTflite;
  p.name = std::string("npu-") + tie_name + "-" + prec_name + "-" + to_string(acc);
  p.description = std::string("NPU family: single rounding, ties ") + tie_name + ", " + prec_name +
                  " multiplier, " + to_string(acc) + " accumulator";
  p.source = "hypothesis family, docs/semantics.md §14 (OpenVX vx_khr_nn.h round policies, TIM-VX "
             "include/tim/vx/types.h)";
  return p;
}

inline bool parse_npu_accumulator(const std::string& s, AccumulatorSpec* out) {
  if (s == "int32") { *out = {AccumulatorKind::kInt32, 32}; return true; }
  if (s == "int64") { *out = {AccumulatorKind::kInt64, 64}; return true; }
  auto parse_bits = [&](const char* prefix, AccumulatorKind kind, int lo, int hi) {
    const std::string pre(prefix);
    if (s.compare(0, pre.size(), pre) != 0 || s.size() == pre.size() || s.size() > pre.size() + 2)
      return false;
    int bits = 0;
    for (std::size_t i = pre.size(); i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      bits = bits * 10 + (s[i] - '0');
    }
    if (bits < lo || bits > hi) return false;
    *out = {kind, bits};
    return true;
  };
  return parse_bits("sat", AccumulatorKind::kSaturating, 16, 48) ||
         parse_bits("wrap", AccumulatorKind::kWrapping, 16, 64);
}

}  // namespace detail

/// The named presets (not the NPU family, which is generated on demand), in documentation order,
/// followed by npu-verisilicon.
inline const std::vector<Preset>& named_presets() {
  static const std::vector<Preset> table = [] {
    std::vector<Preset> t;
#define QPARITY_PRESET_ROW(Type, Name, PolicyType, Deriv, Comp, Clamp, AccKind, AccBits, Desc, Src) \
  t.push_back(Preset{Name, Desc, Src, PolicyType::kCore, MultiplierDerivation::Deriv,                 \
                     ScaleComposition::Comp, ClampDerivation::Clamp,                                  \
                     AccumulatorSpec{AccumulatorKind::AccKind, AccBits}});
    QPARITY_PRESET_LIST(QPARITY_PRESET_ROW)
#undef QPARITY_PRESET_ROW
    Preset npu = detail::make_npu_preset(TieRule::kHalfToEven, NpuMultiplierPrecision::kQ15,
                                         AccumulatorSpec{AccumulatorKind::kInt32, 32});
    npu.name = kNpuVerisiliconName;
    npu.description = std::string("VeriSilicon NPU, best current hypothesis (UNVERIFIED) = ") +
                      kNpuVerisiliconExpansion + ": one rounding, ties to even, Q15 multiplier";
    npu.source = "VeriSilicon/tflite-vx-delegate issue #210; VeriSilicon/TIM-VX "
                 "include/tim/vx/operation.h (RTNE default); docs/semantics.md §14";
    t.push_back(npu);
    return t;
  }();
  return table;
}

/// Looks a preset up by name: a named preset, or an NPU family member
/// "npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|sat16..sat48|wrap16..wrap64}".
/// Throws InvalidArgument listing the valid names otherwise.
QPARITY_MAY_THROW
inline Preset find_preset(const std::string& name) {
  for (const Preset& p : named_presets()) {
    if (p.name == name) return p;
  }
  if (name.compare(0, 4, "npu-") == 0) {
    const std::string rest = name.substr(4);
    const auto d1 = rest.find('-');
    const auto d2 = d1 == std::string::npos ? d1 : rest.find('-', d1 + 1);
    if (d2 != std::string::npos) {
      const std::string tie = rest.substr(0, d1), prec = rest.substr(d1 + 1, d2 - d1 - 1),
                        acc = rest.substr(d2 + 1);
      TieRule rule{};
      bool ok = true;
      if (tie == "hu") rule = TieRule::kHalfUp;
      else if (tie == "haz") rule = TieRule::kHalfAwayFromZero;
      else if (tie == "he") rule = TieRule::kHalfToEven;
      else if (tie == "tz") rule = TieRule::kTowardZero;
      else if (tie == "fl") rule = TieRule::kFloor;
      else ok = false;
      NpuMultiplierPrecision precision{};
      if (prec == "q31") precision = NpuMultiplierPrecision::kQ31;
      else if (prec == "q15") precision = NpuMultiplierPrecision::kQ15;
      else if (prec == "f24") precision = NpuMultiplierPrecision::kFloat24;
      else ok = false;
      AccumulatorSpec spec;
      if (ok && detail::parse_npu_accumulator(acc, &spec)) {
        return detail::make_npu_preset(rule, precision, spec);
      }
    }
  }
  std::string allowed;
  for (const Preset& p : named_presets()) allowed += (allowed.empty() ? "" : ", ") + p.name;
  QPARITY_THROW(InvalidArgument(
      "qparity: preset '" + name + "' is unknown; allowed: " + allowed +
      ", or npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN} with N in 16..48 for satN and 16..64 "
      "for wrapN"));
}

/// Every tie rule x multiplier precision of the NPU family, with accumulator `acc` (what
/// `identify` ranks; the accumulator does not affect requantization of a given accumulator value).
inline std::vector<Preset> npu_family(AccumulatorSpec acc = {}) {
  std::vector<Preset> out;
  for (TieRule t : {TieRule::kHalfUp, TieRule::kHalfAwayFromZero, TieRule::kHalfToEven,
                    TieRule::kTowardZero, TieRule::kFloor}) {
    for (NpuMultiplierPrecision p : {NpuMultiplierPrecision::kQ31, NpuMultiplierPrecision::kQ15,
                                     NpuMultiplierPrecision::kFloat24}) {
      out.push_back(detail::make_npu_preset(t, p, acc));
    }
  }
  return out;
}

/// Derives the rounding core's parameters from an effective scale the way `derivation` does, in
/// the representation `core` reads (Q15 multipliers are widened to Q31 for Q31 cores). Validates
/// the result against the core: a scale whose shift falls outside the core's range throws
/// InvalidArgument naming the scale. Faithful to TFLite, the TFLite derivations flush scales below
/// 2^-32 to multiplier 0 (every output becomes the zero point) instead of rejecting them.
QPARITY_MAY_THROW
inline RequantParams derive_requant_params(RoundingCore core, MultiplierDerivation derivation,
                                           const EffectiveScale& eff, float bias = 0.0f) {
  detail::require_positive_finite("scale", eff.scale);
  RequantParams p;
  QuantizedMultiplier m;
  bool q15 = false;
  switch (derivation) {
    case MultiplierDerivation::kTfliteDoubleBuild:
      m = quantize_multiplier_tflite(eff.scale, TfliteBuild::kDoubleRounding); break;
    case MultiplierDerivation::kTfliteSingleBuild:
      m = quantize_multiplier_tflite(eff.scale, TfliteBuild::kSingleRounding); break;
    case MultiplierDerivation::kFloatMantissa24:
      m = quantize_multiplier_float_mantissa(static_cast<float>(eff.scale)); break;
    case MultiplierDerivation::kQ15FromTfliteQ31:
      m = reduce_multiplier_q31_to_q15(quantize_multiplier_tflite(eff.scale)); q15 = true; break;
    case MultiplierDerivation::kQ15Direct:
      m = quantize_multiplier_q15_direct(eff.scale); q15 = true; break;
    case MultiplierDerivation::kFbgemmQ31:
      m = quantize_multiplier_fbgemm(eff.scale); break;
    case MultiplierDerivation::kFloatScale:
      break;
  }
  if (derivation == MultiplierDerivation::kFloatScale || is_float_core(core)) {
    if (!is_float_core(core)) {
      QPARITY_THROW(InvalidArgument(std::string("qparity: multiplier derivation float-scale needs a "
                                                "float rounding core (F32, F32-ZPF), not ") +
                                    to_string(core)));
    }
    p.scale = static_cast<float>(eff.scale);
    p.post_scale = eff.post_scale;
    p.bias = bias;
  } else if (core == RoundingCore::kQ15) {
    if (!q15) m = reduce_multiplier_q31_to_q15(m);
    p.multiplier = m.multiplier;
    p.shift = m.shift;
  } else {
    p.multiplier = q15 ? m.multiplier << 16 : m.multiplier;
    p.shift = m.shift;
  }
  // A rejected result names the scale: "qparity: scale = ... cannot be used with ...: <why>".
  struct Derived {
    double scale;
    RoundingCore core;
    MultiplierDerivation derivation;
    static std::string wrap(const void* data, const std::string& message) {
      const auto* d = static_cast<const Derived*>(data);
      return "qparity: scale = " + detail::to_text(d->scale) + " cannot be used with " +
             to_string(d->core) + " (derivation " + to_string(d->derivation) + "): " + message;
    }
  };
  const Derived derived{eff.scale, core, derivation};
  const detail::ErrorContext context(&Derived::wrap, &derived);
  validate(core, p);
  return p;
}

/// Preset convenience: composes (s_in, s_w, s_out) and derives the core parameters.
QPARITY_MAY_THROW
inline RequantParams derive_requant_params(const Preset& preset, float input_scale,
                                           float filter_scale, float output_scale,
                                           float bias = 0.0f) {
  return derive_requant_params(preset.core, preset.derivation,
                               compose_scale(preset.composition, input_scale, filter_scale,
                                             output_scale),
                               bias);
}

}  // namespace qparity
