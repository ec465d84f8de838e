// Per-core traces for `qparity explain`: the intermediate values of a rounding core on one
// accumulator, its result, and which rule decided that result.
//
// The result is always computed by the library's own policy (policies.h), never re-derived here;
// the intermediate values and the rule are recomputed alongside it, exactly (128-bit integers,
// dyadic decimals), from the formulas in the policy headers and docs/semantics.md §1-§3.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qparity/reference.h"

namespace qparity::cli {

struct TraceStep {
  std::string name;   ///< e.g. "x'", "t=SRDHM(x',M)", "p/2^s"
  std::string value;  ///< exact value as decimal text
};

struct Trace {
  std::vector<TraceStep> steps;
  std::int64_t result = 0;  ///< the core's result plus the zero point (F32-ZPF: zero point inside)
  std::string rule;         ///< which rule decided the result, e.g. "tie, half to even"
};

/// Traces `core` on `acc` with validated parameters `p`. The zero point is added to the result
/// (after rounding; inside the rounding for F32-ZPF).
///
/// Rules reported (first that applies):
///  DR-AZ / DR-UP: "pre-shift wrapped (...)", "stage-2 tie[ made by stage-1 rounding], half away
///    from zero | half up", "stage-1 tie, half up" (when rounding that tie down would change the
///    result), "exact (no rounding)", "no tie (nearest)".
///  SR-UP / SR-AZ / SR-EVEN / Q15: "int32 wrap of result (...)", "exact (no rounding)",
///    "tie, half up | half away from zero | half to even", "no tie (nearest)".
///  TRUNC / FLOOR: "int32 wrap of result (...)", "exact (no rounding)", "truncated (toward zero)",
///    "floored (toward -infinity)".
///  SR-UP-NEON: "pre-shift wrapped (...)", then as SR-UP.
///  F32 / F32-ZPF: "int32 saturation", "float product landed on a tie (exact value is not); half
///    to even", "tie, half to even", "float(acc) rounding moved it off nearest", "no tie in float
///    (exact value is a tie)", "exact (no rounding)", "no tie (nearest)".
Trace trace_rounding(RoundingCore core, const RequantParams& p, std::int32_t acc,
                     std::int32_t zero_point);

// Each core's formula and tie rule in one line are its policy's kFormula and kTieRuleText
// (qparity::formula_text / qparity::tie_rule_text, policies.h).

}  // namespace qparity::cli
