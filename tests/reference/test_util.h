// Test-only helpers for the reference (oracle) tests: parameter builders and small, independent
// models written from docs/semantics.md (never from the headers under test).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qparity/reference.h"

namespace qparity_test {

using qparity::RequantParams;

/// Q31 parameters {M, shift} (TFLite convention).
inline RequantParams Q31(std::int32_t multiplier, std::int32_t shift) {
  RequantParams p;
  p.multiplier = multiplier;
  p.shift = shift;
  return p;
}

/// Q15 parameters {m15, shift}.
inline RequantParams Q15(std::int32_t multiplier, std::int32_t shift) { return Q31(multiplier, shift); }

/// F32 parameters with the given float scale.
inline RequantParams F32(float scale) {
  RequantParams p;
  p.scale = scale;
  return p;
}

/// The F32 column of docs/semantics.md §11: scale = float(M * 2^(shift - 31)) (M * 2^k is exact in
/// double, then one RNE to float).
inline RequantParams F32FromQ31(std::int32_t multiplier, std::int32_t shift) {
  return F32(static_cast<float>(std::ldexp(static_cast<double>(multiplier), shift - 31)));
}

inline constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int32_t k2p30 = 1073741824;  // 2^30

// ---- An independent exact model (uses __int128; test code only) -------------------------------

__extension__ typedef __int128 i128;  // __extension__: silences -Wpedantic

/// floor(n / 2^k) for k >= 0 (arithmetic shift of a 128-bit value).
inline i128 FloorDivPow2(i128 n, int k) { return k == 0 ? n : (n >> k); }

/// Rounds n / 2^k (k >= 1) to an integer with the named tie rule; the rule names follow
/// docs/semantics.md §0 (HU, HAZ, HE, TZ, FL). Written from the definitions, by comparing twice the
/// remainder with the divisor.
enum class Tie { HU, HAZ, HE, TZ, FL };
inline i128 RoundDivPow2(i128 n, int k, Tie tie) {
  const i128 d = static_cast<i128>(1) << k;
  const i128 q = FloorDivPow2(n, k);  // floor
  const i128 r = n - q * d;           // in [0, d)
  if (r == 0) return q;
  const i128 twice = 2 * r;
  switch (tie) {
    case Tie::FL: return q;
    case Tie::TZ: return n < 0 ? q + 1 : q;
    case Tie::HU: return twice >= d ? q + 1 : q;
    case Tie::HAZ:
      if (twice > d) return q + 1;
      if (twice < d) return q;
      return n < 0 ? q : q + 1;
    case Tie::HE:
      if (twice > d) return q + 1;
      if (twice < d) return q;
      return (q % 2 == 0) ? q : q + 1;
  }
  return 0;
}

inline bool FitsInt32(i128 v) { return v >= kMin && v <= kMax; }
inline std::int32_t Wrap32(i128 v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}

// ---- TOSA helpers, written from docs/semantics.md §5.1 (scale_helpers.tosac) --------------------

/// apply_scale_32(value, multiplier, shift, double_round). REQUIRE: multiplier >= 0,
/// 2 <= shift <= 62, -2^(shift-1) <= value < 2^(shift-1). Returns the int64 result of the
/// arithmetic shift (which fits int32 on the REQUIRE domain).
inline std::int64_t TosaApplyScale32(std::int32_t value, std::int32_t multiplier, int shift,
                                     bool double_round) {
  std::int64_t round = std::int64_t{1} << (shift - 1);
  if (double_round && shift > 31) {
    if (value >= 0) round += std::int64_t{1} << 30;
    else round -= std::int64_t{1} << 30;
  }
  const std::int64_t result = static_cast<std::int64_t>(value) * multiplier + round;
  return result >> shift;
}

inline bool TosaApplyScale32Requires(std::int32_t value, std::int32_t multiplier, int shift) {
  if (multiplier < 0 || shift < 2 || shift > 62) return false;
  const std::int64_t lim = std::int64_t{1} << (shift - 1);
  return value >= -lim && value < lim;
}

/// apply_scale_16(value: int48, multiplier: int16, shift): REQUIRE multiplier >= 0,
/// 2 <= shift <= 62; (value * multiplier + 2^(shift-1)) >> shift; REQUIRE result in int32.
/// Computed in 128 bits; the caller checks the result REQUIRE with FitsInt32.
inline i128 TosaApplyScale16(std::int64_t value48, std::int16_t multiplier, int shift) {
  const i128 round = static_cast<i128>(1) << (shift - 1);
  return (static_cast<i128>(value48) * multiplier + round) >> shift;
}

// ---- RapidCheck helpers ---------------------------------------------------------------------

/// A uniform value in [lo, hi). rc::gen::inRange scales its range with RapidCheck's size (small
/// sizes give values near lo), so the generator is resized to the nominal size: uniform always.
template <class T>
T Uniform(T lo, T hi) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

/// A fair coin (rc::gen::arbitrary<bool> is size-dependent too).
inline bool Coin() { return Uniform(0, 2) == 1; }

// RapidCheck inside a plain TEST, so that a test can also count what it saw.

template <class F>
void RcCheck(F&& f) {
  ::rc::detail::checkGTest(std::forward<F>(f));
}

}  // namespace qparity_test
