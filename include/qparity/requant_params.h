// The rounding cores qparity reproduces, and the one parameter record they all read.
//
// A *rounding core* maps an accumulator (int32, or int64 for wide accumulators) to an int32
// "requantized value before the output zero point". It is the part of requantization that
// differs between systems given the same integer parameters (docs/semantics.md §1). Each core is a
// policy type (policy_*.h) whose static `requantize` is the normative scalar definition; this
// header gives the run-time names and the shared parameter record.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "qparity/error.h"
#include "qparity/rounding_core_list.h"

namespace qparity {

/// Run-time identity of a rounding core, one enumerator per entry of QPARITY_ROUNDING_CORE_LIST
/// (rounding_core_list.h), in its order. The order is stable (it is used in file formats and
/// tables); append only.
enum class RoundingCore : std::uint8_t {
#define QPARITY_CORE_ENUMERATOR(E, Name, Policy, Kind) E,
  QPARITY_ROUNDING_CORE_LIST(QPARITY_CORE_ENUMERATOR)
#undef QPARITY_CORE_ENUMERATOR
};

#define QPARITY_CORE_COUNT(E, Name, Policy, Kind) +1
inline constexpr int kNumRoundingCores = 0 QPARITY_ROUNDING_CORE_LIST(QPARITY_CORE_COUNT);
#undef QPARITY_CORE_COUNT

inline constexpr RoundingCore kAllRoundingCores[kNumRoundingCores] = {
#define QPARITY_CORE_VALUE(E, Name, Policy, Kind) RoundingCore::E,
    QPARITY_ROUNDING_CORE_LIST(QPARITY_CORE_VALUE)
#undef QPARITY_CORE_VALUE
};

/// Short, stable names used by the CLI, test names and benchmark names (docs/semantics.md §1 IDs).
inline const char* to_string(RoundingCore core) {
  switch (core) {
#define QPARITY_CORE_NAME(E, Name, Policy, Kind) \
  case RoundingCore::E: return Name;
    QPARITY_ROUNDING_CORE_LIST(QPARITY_CORE_NAME)
#undef QPARITY_CORE_NAME
  }
  return "?";
}

/// Parses a core name as printed by to_string (exact match). Throws InvalidArgument otherwise.
QPARITY_MAY_THROW
inline RoundingCore rounding_core_from_string(const std::string& name) {
  for (RoundingCore c : kAllRoundingCores) {
    if (name == to_string(c)) return c;
  }
  std::string allowed;
  for (RoundingCore c : kAllRoundingCores) {
    if (!allowed.empty()) allowed += ", ";
    allowed += to_string(c);
  }
  QPARITY_THROW(
      InvalidArgument("qparity: rounding core '" + name + "' is unknown; allowed: " + allowed));
}

/// Which fields of RequantParams a core reads (the ParamKind column of the core list).
enum class ParamKind : std::uint8_t {
  kQ31,    ///< multiplier (Q31 mantissa) and shift in [-31, 30]
  kQ15,    ///< multiplier (Q15 mantissa) and shift in [-47, 13]
  kFloat,  ///< scale, bias, post_scale
};

constexpr ParamKind param_kind(RoundingCore core) {
  switch (core) {
#define QPARITY_CORE_KIND(E, Name, Policy, Kind) \
  case RoundingCore::E: return ParamKind::Kind;
    QPARITY_ROUNDING_CORE_LIST(QPARITY_CORE_KIND)
#undef QPARITY_CORE_KIND
  }
  return ParamKind::kQ31;
}

/// True for the cores whose parameters are a float scale rather than an integer multiplier.
constexpr bool is_float_core(RoundingCore core) { return param_kind(core) == ParamKind::kFloat; }

/// Parameters of one channel (or of the whole tensor) for any rounding core. Each core reads only
/// its own fields and validates them (Policy::validate); the others are ignored.
///
/// Fixed-point cores (DR-*, SR-*, TRUNC, FLOOR): `multiplier` is a Q31 mantissa in [0, 2^31-1],
///   `shift` follows TFLite's sign convention (> 0 left), in [-31, 30]; the real scale is
///   multiplier * 2^(shift - 31). TOSA's shift attribute is 31 - shift.
/// Q15: `multiplier` in [0, 32767], `shift` in [-47, 13]; real scale multiplier * 2^(shift - 15).
/// F32: `scale` (finite, > 0).
/// F32-ZPF: v = (float(acc) * scale + bias) * post_scale + float(zero_point); the single-step
///   form (XNNPACK's activation-bound quantization) has bias = 0 and post_scale = 1; oneDNN's
///   two-step form has scale = float(s_in * s_w[c]), bias = the f32 bias, post_scale = 1.f / s_out.
struct RequantParams {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
  float scale = 0.0f;
  float bias = 0.0f;
  float post_scale = 1.0f;

  friend bool operator==(const RequantParams& a, const RequantParams& b) {
    return a.multiplier == b.multiplier && a.shift == b.shift &&
           std::memcmp(&a.scale, &b.scale, sizeof(float)) == 0 &&
           std::memcmp(&a.bias, &b.bias, sizeof(float)) == 0 &&
           std::memcmp(&a.post_scale, &b.post_scale, sizeof(float)) == 0;
  }
  friend bool operator!=(const RequantParams& a, const RequantParams& b) { return !(a == b); }
};

/// Legal ranges, shared by validation, tests and documentation.
inline constexpr std::int32_t kQ31MultiplierMax = 2147483647;
inline constexpr std::int32_t kQ31ShiftMin = -31;
inline constexpr std::int32_t kQ31ShiftMax = 30;
inline constexpr std::int32_t kQ15MultiplierMax = 32767;
inline constexpr std::int32_t kQ15ShiftMin = -47;
inline constexpr std::int32_t kQ15ShiftMax = 13;

namespace detail {

/// What validate_q31_params / validate_q15_params accept, without an exception (the fast check of
/// per-channel parameter arrays).
constexpr bool q31_params_valid(const RequantParams& p) noexcept {
  return p.multiplier >= 0 && p.shift >= kQ31ShiftMin && p.shift <= kQ31ShiftMax;
}
constexpr bool q15_params_valid(const RequantParams& p) noexcept {
  return p.multiplier >= 0 && p.multiplier <= kQ15MultiplierMax && p.shift >= kQ15ShiftMin &&
         p.shift <= kQ15ShiftMax;
}

QPARITY_MAY_THROW
inline void validate_q31_params(const RequantParams& p) {
  require_in_range("multiplier", p.multiplier, 0, kQ31MultiplierMax, "Q31 mantissa");
  require_in_range("shift", p.shift, kQ31ShiftMin, kQ31ShiftMax, "TFLite convention, > 0 = left");
}

QPARITY_MAY_THROW
inline void validate_q15_params(const RequantParams& p) {
  require_in_range("multiplier", p.multiplier, 0, kQ15MultiplierMax, "Q15 mantissa");
  require_in_range("shift", p.shift, kQ15ShiftMin, kQ15ShiftMax,
                   "TFLite convention; TOSA apply_scale_16 shift 15 - shift in [2, 62]");
}

}  // namespace detail
}  // namespace qparity
