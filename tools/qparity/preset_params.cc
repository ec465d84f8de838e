#include "preset_params.h"

#include <cmath>

#include <fmt/format.h>

namespace qparity::cli {

RequantParams params_from_multiplier(RoundingCore core, std::int32_t multiplier,
                                     std::int32_t shift) {
  RequantParams q31;
  q31.multiplier = multiplier;
  q31.shift = shift;
  detail::validate_q31_params(q31);  // the user's input is always TFLite Q31
  RequantParams p;
  if (core == RoundingCore::kQ15) {
    const QuantizedMultiplier r = reduce_multiplier_q31_to_q15({multiplier, shift});
    p.multiplier = r.multiplier;
    p.shift = r.shift;
  } else if (is_float_core(core)) {
    if (multiplier == 0) {
      throw InvalidArgument(fmt::format(
          "qparity: multiplier = 0 is out of range for {} (its scale float(M*2^(shift-31)) would "
          "be 0); allowed: [1, {}]",
          to_string(core), kQ31MultiplierMax));
    }
    p.scale = static_cast<float>(std::ldexp(static_cast<double>(multiplier), shift - 31));
  } else {
    p = q31;
  }
  validate(core, p);
  return p;
}

RequantParams params_from_scale(const Preset& preset, double scale) {
  return derive_requant_params(preset.core, preset.derivation, EffectiveScale{scale, 1.0f});
}

std::string params_text(RoundingCore core, const RequantParams& p) {
  // %.9g identifies a float32 uniquely and, unlike the shortest form, never shows a rounded
  // integer (536870912 stays 536870912, not 536870900).
  if (is_float_core(core)) return fmt::format("scale={:.9g} (f32)", p.scale);
  if (core == RoundingCore::kQ15) return fmt::format("m15={} shift={}", p.multiplier, p.shift);
  return fmt::format("M={} shift={}", p.multiplier, p.shift);
}

std::string without_library_prefix(const std::string& message) {
  static const std::string prefix = "qparity: ";
  std::string out =
      message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
  // Nested library messages ("...: qparity: shift = 32 ...") lose their prefix too.
  static const std::string nested = ": qparity: ";
  for (std::size_t pos; (pos = out.find(nested)) != std::string::npos;)
    out.replace(pos, nested.size(), ": ");
  return out;
}

}  // namespace qparity::cli
