// All rounding policies, and run-time dispatch over them by RoundingCore.
//
// A policy type P provides:
//   P::kCore                    its RoundingCore
//   P::kZeroPointInside         true if the output zero point takes part in rounding (F32-ZPF)
//   P::kAcceptsWideInput        true if P::requantize_wide(int64_t, params) exists
//   P::validate(params)         throws InvalidArgument naming the bad field and its range
//   P::requantize(int32, params) -> int32   the normative scalar definition (value before the
//                                            output zero point, or with zero point 0 for F32-ZPF)
#pragma once

#include <cstdint>
#include <utility>

#include "qparity/policy_double_rounding.h"
#include "qparity/policy_float.h"
#include "qparity/policy_q15.h"
#include "qparity/policy_single_rounding.h"
#include "qparity/requant_params.h"

namespace qparity {

/// Calls f(Policy{}) with the policy type of `core` and returns its result.
template <class F>
decltype(auto) visit_rounding_core(RoundingCore core, F&& f) {
  switch (core) {
    case RoundingCore::kDoubleRoundingAwayFromZero: return f(DoubleRoundingAwayFromZero{});
    case RoundingCore::kDoubleRoundingUpward: return f(DoubleRoundingUpward{});
    case RoundingCore::kSingleRoundingUpward: return f(SingleRoundingUpward{});
    case RoundingCore::kSingleRoundingUpwardNeon: return f(SingleRoundingUpwardNeon{});
    case RoundingCore::kSingleRoundingAwayFromZero: return f(SingleRoundingAwayFromZero{});
    case RoundingCore::kSingleRoundingToEven: return f(SingleRoundingToEven{});
    case RoundingCore::kTruncate: return f(TruncateTowardZero{});
    case RoundingCore::kFloor: return f(FloorRounding{});
    case RoundingCore::kFloat32: return f(Float32Rounding{});
    case RoundingCore::kFloat32ZeroPointInside: return f(Float32ZeroPointInside{});
    case RoundingCore::kQ15: return f(Q15Rounding{});
  }
  throw InvalidArgument("qparity: rounding core " + std::to_string(static_cast<int>(core)) +
                        " is not a valid RoundingCore");
}

/// Validates `params` for `core`; throws InvalidArgument naming the field and its range.
inline void validate(RoundingCore core, const RequantParams& params) {
  visit_rounding_core(core, [&](auto policy) { decltype(policy)::validate(params); });
}

/// Scalar requantization by run-time core (the oracle the SIMD paths are tested against).
/// Assumes validated parameters.
inline std::int32_t requantize(RoundingCore core, std::int32_t acc, const RequantParams& params) {
  return visit_rounding_core(core, [&](auto policy) {
    return decltype(policy)::requantize(acc, params);
  });
}

}  // namespace qparity
