#include "model/ops/op_variants.h"

#include <fmt/format.h>

namespace qparity::model {

TfliteBuild tflite_build_of(const Preset& preset) {
  return preset.core == RoundingCore::kSingleRoundingUpward ? TfliteBuild::kSingleRounding
                                                            : TfliteBuild::kDoubleRounding;
}

const char* to_string(TfliteBuild build) {
  return build == TfliteBuild::kDoubleRounding ? "double-rounding build (DR-AZ)"
                                               : "TFLITE_SINGLE_ROUNDING build (SR-UP)";
}

reference::NpuHypothesis npu_hypothesis_of(const Preset& preset) {
  reference::NpuHypothesis h;
  switch (preset.core) {
    case RoundingCore::kSingleRoundingUpward: h.tie = TieRule::kHalfUp; break;
    case RoundingCore::kSingleRoundingAwayFromZero: h.tie = TieRule::kHalfAwayFromZero; break;
    case RoundingCore::kTruncate: h.tie = TieRule::kTowardZero; break;
    case RoundingCore::kFloor: h.tie = TieRule::kFloor; break;
    default: h.tie = TieRule::kHalfToEven; break;
  }
  switch (preset.derivation) {
    case MultiplierDerivation::kQ15Direct: h.precision = NpuMultiplierPrecision::kQ15; break;
    case MultiplierDerivation::kFloatMantissa24: h.precision = NpuMultiplierPrecision::kFloat24; break;
    default: h.precision = NpuMultiplierPrecision::kQ31; break;
  }
  return h;
}

std::string npu_text(const reference::NpuHypothesis& h) {
  const char* tie = "?";
  switch (h.tie) {
    case TieRule::kHalfUp: tie = "ties up"; break;
    case TieRule::kHalfAwayFromZero: tie = "ties away from zero"; break;
    case TieRule::kHalfToEven: tie = "ties to even"; break;
    case TieRule::kTowardZero: tie = "truncation"; break;
    case TieRule::kFloor: tie = "floor"; break;
  }
  const char* prec = h.precision == NpuMultiplierPrecision::kQ31   ? "Q31"
                     : h.precision == NpuMultiplierPrecision::kQ15 ? "Q15"
                                                                   : "24-bit float mantissa";
  return fmt::format("one rounding, {}, {} multiplier", tie, prec);
}

reference::TensorQuant tensor_quant(const TensorDef& t) {
  reference::TensorQuant q;
  q.scale = t.quant.scales.empty() ? 1.0f : t.quant.scales[0];
  q.zero_point = static_cast<std::int32_t>(t.quant.zero_point());
  return q;
}

AxisQuant axis_quant(const TensorDef& t) {
  AxisQuant a;
  if (!t.quant.per_axis()) {
    a.channels = {tensor_quant(t)};
    for (const std::size_t d : t.shape) a.inner *= d;
    return a;
  }
  for (std::size_t c = 0; c < t.quant.scales.size(); ++c) {
    a.channels.push_back({t.quant.scales[c], static_cast<std::int32_t>(t.quant.zero_point(c))});
  }
  for (std::size_t d = 0; d < t.quant.axis; ++d) a.outer *= t.shape[d];
  for (std::size_t d = t.quant.axis + 1; d < t.shape.size(); ++d) a.inner *= t.shape[d];
  return a;
}

bool xnnpack_per_tensor_8bit(const TensorDef& t) {
  return (t.dtype == DType::kInt8 || t.dtype == DType::kUint8) && t.quant.scales.size() == 1 &&
         t.quant.zero_points.size() <= 1 && t.quant.axis == 0;
}

bool is_onnxruntime_system(const System& sys) {
  return !sys.float_precision && sys.preset.name.compare(0, 11, "onnxruntime") == 0;
}

std::string quant_text(const TensorDef& t) {
  return fmt::format("{} scale {} zero point {}", cli::to_string(t.dtype), t.quant.scales.empty() ? 1.0f : t.quant.scales[0],
                     t.quant.zero_point());
}

}  // namespace qparity::model
