// How the CLI turns user-given parameters into a preset's RequantParams (shared by `explain` and
// `requant`, so that both commands always agree).
//
//  * TFLite-convention (multiplier, shift), real scale M * 2^(shift - 31):
//      Q31 cores (DR-*, SR-*, TRUNC, FLOOR) use them directly;
//      Q15 uses reduce_multiplier_q31_to_q15 (TFLite's int16x8 reduction; the shift is kept);
//      F32 / F32-ZPF use scale = float(M * 2^(shift - 31)) (bias 0, post_scale 1).
//  * A real scale S: derive_requant_params(core, preset derivation, EffectiveScale{S}), i.e. each
//    preset derives its own parameters the way the system it reproduces would.
#pragma once

#include <cstdint>
#include <string>

#include "qparity/reference.h"

namespace qparity::cli {

/// Parameters of `core` from a TFLite-convention (multiplier, shift). Throws
/// qparity::InvalidArgument (message without context) if they are out of the core's range.
RequantParams params_from_multiplier(RoundingCore core, std::int32_t multiplier,
                                     std::int32_t shift);

/// Parameters of `preset` derived from the real effective scale. Throws qparity::InvalidArgument
/// if the preset cannot represent it.
RequantParams params_from_scale(const Preset& preset, double scale);

/// Short text of the parameters a core reads: "M=2034096511 shift=-8", "m15=31038 shift=-8",
/// "scale=0.0037 (f32)".
std::string params_text(RoundingCore core, const RequantParams& p);

/// A library exception message without its "qparity: " prefixes (callers add their own context).
std::string without_library_prefix(const std::string& message);

}  // namespace qparity::cli
