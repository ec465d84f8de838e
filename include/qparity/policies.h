// All rounding policies, and run-time dispatch over them by RoundingCore.
//
// A policy type P provides:
//   P::kCore                    its RoundingCore (and a row in QPARITY_ROUNDING_CORE_LIST)
//   P::kFormula, P::kTieRuleText its formula in one line and its tie rule(s) in words, as printed
//                               by `qparity list --cores` and `qparity explain`
//   P::kZeroPointInside         true if the output zero point takes part in rounding (F32-ZPF)
//   P::kAcceptsWideInput        true if P::requantize_wide(int64_t, params) exists
//   P::validate(params)         throws InvalidArgument naming the bad field and its range
//   P::is_valid(params)         what validate accepts, without an exception (fast array checks)
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

/// Calls f(Policy{}) with the policy type of `core` (QPARITY_ROUNDING_CORE_LIST) and returns its
/// result.
template <class F>
QPARITY_MAY_THROW
decltype(auto) visit_rounding_core(RoundingCore core, F&& f) {
  switch (core) {
#define QPARITY_VISIT_CORE(E, Name, Policy, Kind) \
  case RoundingCore::E: return f(Policy{});
    QPARITY_ROUNDING_CORE_LIST(QPARITY_VISIT_CORE)
#undef QPARITY_VISIT_CORE
  }
  QPARITY_THROW(InvalidArgument("qparity: rounding core " + std::to_string(static_cast<int>(core)) +
                                " is not a valid RoundingCore"));
}

// Every entry of the list names a policy whose kCore is that entry: a list row pointing at the
// wrong type fails here.
#define QPARITY_CHECK_CORE_POLICY(E, Name, Policy, Kind)                        \
  static_assert(Policy::kCore == RoundingCore::E, "core list: " Name " has a policy of another core");
QPARITY_ROUNDING_CORE_LIST(QPARITY_CHECK_CORE_POLICY)
#undef QPARITY_CHECK_CORE_POLICY

/// The formula of `core` in one line, as its policy's doc comment states it (Policy::kFormula).
QPARITY_MAY_THROW
inline const char* formula_text(RoundingCore core) {
  return visit_rounding_core(core, [](auto policy) -> const char* { return decltype(policy)::kFormula; });
}

/// The tie rule(s) of `core` in words (Policy::kTieRuleText).
QPARITY_MAY_THROW
inline const char* tie_rule_text(RoundingCore core) {
  return visit_rounding_core(core,
                             [](auto policy) -> const char* { return decltype(policy)::kTieRuleText; });
}

/// Validates `params` for `core`; throws InvalidArgument naming the field and its range.
QPARITY_MAY_THROW
inline void validate(RoundingCore core, const RequantParams& params) {
  visit_rounding_core(core, [&](auto policy) { decltype(policy)::validate(params); });
}

/// Scalar requantization by run-time core (the oracle the SIMD paths are tested against).
/// Assumes validated parameters.
QPARITY_MAY_THROW
inline std::int32_t requantize(RoundingCore core, std::int32_t acc, const RequantParams& params) {
  return visit_rounding_core(core, [&](auto policy) {
    return decltype(policy)::requantize(acc, params);
  });
}

}  // namespace qparity
