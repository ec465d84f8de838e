// The one list of rounding cores. Everything that enumerates cores is derived from it: the
// RoundingCore enum, its names and its parameter kinds (requant_params.h), the run-time dispatch to
// the policy types (policies.h), the SIMD plans (rounding/simd_plan.h), the tool's `list` and
// `explain` tables and the test parameter sets. A core added here without a policy type or a SIMD
// plan does not compile; switches over RoundingCore have no `default:`, so -Wswitch names every
// place that must learn about it.
//
// X(Enumerator, "ID", PolicyType, ParamKind)
//   Enumerator  RoundingCore::Enumerator
//   "ID"        the short stable name (docs/semantics.md §1), printed by to_string(RoundingCore)
//   PolicyType  the policy type (policy_*.h): the normative scalar definition, with the formula
//               and tie rule as static members (kFormula, kTieRule)
//   ParamKind   which fields of RequantParams the core reads: kQ31 (multiplier in [0, 2^31 - 1],
//               shift in [-31, 30]), kQ15 (multiplier in [0, 32767], shift in [-47, 13]) or
//               kFloat (scale, bias, post_scale)
//
// The order is stable (append only): it is the enum's numbering, used in tables and file formats.
#pragma once

#define QPARITY_ROUNDING_CORE_LIST(X)                                                   \
  X(kDoubleRoundingAwayFromZero, "DR-AZ", DoubleRoundingAwayFromZero, kQ31)             \
  X(kDoubleRoundingUpward, "DR-UP", DoubleRoundingUpward, kQ31)                         \
  X(kSingleRoundingUpward, "SR-UP", SingleRoundingUpward, kQ31)                         \
  X(kSingleRoundingUpwardNeon, "SR-UP-NEON", SingleRoundingUpwardNeon, kQ31)            \
  X(kSingleRoundingAwayFromZero, "SR-AZ", SingleRoundingAwayFromZero, kQ31)             \
  X(kSingleRoundingToEven, "SR-EVEN", SingleRoundingToEven, kQ31)                       \
  X(kTruncate, "TRUNC", TruncateTowardZero, kQ31)                                       \
  X(kFloor, "FLOOR", FloorRounding, kQ31)                                               \
  X(kFloat32, "F32", Float32Rounding, kFloat)                                           \
  X(kFloat32ZeroPointInside, "F32-ZPF", Float32ZeroPointInside, kFloat)                 \
  X(kQ15, "Q15", Q15Rounding, kQ15)
