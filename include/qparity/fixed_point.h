// Scalar fixed-point primitives: the building blocks every rounding policy is written from.
//
// Each function is the normative definition of one hardware or library operation, written from
// its specification (sources cited per function; see also docs/semantics.md §2). They are
// constexpr, standard C++17, free of undefined behaviour for every argument in their stated
// domain, and independent of the compiler's choice for signed overflow: wrapping steps go through
// unsigned arithmetic explicitly.
//
// Conventions: "floor" below is mathematical floor; `x >> k` on a negative signed integer is an
// arithmetic shift (floor division by 2^k). C++17 leaves that implementation-defined; every
// compiler we support defines it as arithmetic, and the static_assert below checks it.
#pragma once

#include <cstdint>
#include <limits>

namespace qparity {

static_assert((-5 >> 1) == -3, "qparity requires arithmetic right shift of negative integers");
static_assert(static_cast<std::int32_t>(0x80000000u) == std::numeric_limits<std::int32_t>::min(),
              "qparity requires two's complement narrowing");

inline constexpr std::int32_t kInt32Min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();

/// Tie rules of a rounding division by 2^k. Names follow docs/semantics.md §0.
enum class TieRule : std::uint8_t {
  kHalfUp,             ///< HU: ties toward +infinity, floor(v + 1/2).  2.5 -> 3, -2.5 -> -2
  kHalfAwayFromZero,   ///< HAZ: ties away from zero.                     2.5 -> 3, -2.5 -> -3
  kHalfToEven,         ///< HE (RNE): ties to the even neighbour.         2.5 -> 2, -2.5 -> -2
  kTowardZero,         ///< TZ: truncation, no rounding.                  2.7 -> 2, -2.7 -> -2
  kFloor,              ///< FL: toward -infinity.                         2.7 -> 2, -2.7 -> -3
};

/// Wrapping int32 left shift: (x * 2^left) mod 2^32, as `vshl`, `vpsllvd` and TFLite's
/// `x * (1 << left_shift)` (which TFLite marks no-sanitize) produce. left in [0, 31].
constexpr std::int32_t shift_left_wrapping(std::int32_t x, int left) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << left);
}

/// Narrows an int64 to int32 modulo 2^32: what TFLite's release build does to a single-rounding
/// result that does not fit (its DCHECK is compiled out), and what any int32 register does.
constexpr std::int32_t wrap_to_int32(std::int64_t v) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}

/// The two's-complement value of the low `bits` bits of v (1 <= bits <= 64): v modulo 2^bits,
/// sign-extended, as a `bits`-wide register holding v would read.
constexpr std::int64_t wrap_to_bits(std::uint64_t v, int bits) noexcept {
  if (bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t m = std::uint64_t{1} << bits;
  const std::uint64_t low = v & (m - 1);
  return low >= (m >> 1) ? static_cast<std::int64_t>(low) - static_cast<std::int64_t>(m)
                         : static_cast<std::int64_t>(low);
}

/// Saturates an int64 to [lo, hi].
constexpr std::int64_t clamp_i64(std::int64_t v, std::int64_t lo, std::int64_t hi) noexcept {
  return v < lo ? lo : (v > hi ? hi : v);
}

/// gemmlowp `SaturatingRoundingDoublingHighMul` (fixedpoint/fixedpoint.h, scalar int32
/// specialisation), bit-identical to Arm SQRDMULH / `vqrdmulhq_s32`.
///
/// Written as gemmlowp writes it: p = a*b exactly; nudge = 2^30 if p >= 0 else 1 - 2^30;
/// result = (p + nudge) / 2^31 with C's truncating division; the single overflowing case
/// a == b == INT32_MIN saturates to INT32_MAX.
/// Closed form (docs/semantics.md §2.1, tested exhaustively): floor((a*b + 2^30) / 2^31), i.e. ties
/// go toward +infinity (HU), NOT away from zero: srdhm(2^30, 1) = 1 but srdhm(-2^30, 1) = 0.
constexpr std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a,
                                                             std::int32_t b) noexcept {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  const std::int64_t ab = static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b);
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : (1 - (std::int64_t{1} << 30));
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

/// Arm SQDMULH / `vqdmulhq_s32`: floor(2*a*b / 2^32) = floor(a*b / 2^31), no rounding;
/// saturates only a == b == INT32_MIN to INT32_MAX.
constexpr std::int32_t saturating_doubling_high_mul(std::int32_t a, std::int32_t b) noexcept {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  return static_cast<std::int32_t>((static_cast<std::int64_t>(a) * b) >> 31);
}

/// gemmlowp `RoundingDivideByPOT(x, exponent)` (fixedpoint/fixedpoint.h), exponent in [0, 31]:
/// x / 2^exponent rounded half AWAY from zero (HAZ), exact for every int32 x.
/// mask = 2^e - 1; remainder = x & mask; threshold = (mask >> 1) + (x < 0);
/// result = (x >> e) + (remainder > threshold).  rdbpot(INT32_MIN, 31) = -1, rdbpot(-5, 1) = -3.
constexpr std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) noexcept {
  const std::int32_t mask = static_cast<std::int32_t>((std::uint32_t{1} << exponent) - 1u);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/// Arm SRSHL/VRSHL by a negative amount (`vrshlq_s32(x, -e)`), e in [0, 31]: floor((x + 2^(e-1))
/// / 2^e) computed in unbounded precision, i.e. ties toward +infinity and no overflow
/// (rounding_shift_right_half_up(INT32_MAX, 1) = 2^30; a C int32 `(x + 2^(e-1)) >> e` would
/// overflow there). Also ruy's x86 second step, whose explicit overflow branch yields the same.
constexpr std::int32_t rounding_shift_right_half_up(std::int32_t x, int e) noexcept {
  if (e == 0) return x;
  return static_cast<std::int32_t>((static_cast<std::int64_t>(x) + (std::int64_t{1} << (e - 1))) >> e);
}

/// Exact division of an int64 by 2^k (k in [1, 62]) rounded by `rule`. The caller guarantees
/// |p| < 2^62 so that adding the rounding term cannot overflow (true for every int32 x Q31
/// product and every 48-bit x Q15 product).
constexpr std::int64_t round_shift_right(std::int64_t p, int k, TieRule rule) noexcept {
  const std::int64_t half = std::int64_t{1} << (k - 1);
  switch (rule) {
    case TieRule::kHalfUp:
      return (p + half) >> k;
    case TieRule::kHalfAwayFromZero:
      // For p < 0, subtracting 1 turns an exact tie into "just below" before the half-up step.
      return (p + half - (p < 0 ? 1 : 0)) >> k;
    case TieRule::kHalfToEven: {
      const std::int64_t q = p >> k;
      const std::int64_t r = p - q * (std::int64_t{1} << k);  // in [0, 2^k)
      return (r > half || (r == half && (q & 1) != 0)) ? q + 1 : q;
    }
    case TieRule::kTowardZero:
      return p >= 0 ? (p >> k) : -((-p) >> k);
    case TieRule::kFloor:
      return p >> k;
  }
  return 0;  // unreachable
}

/// A signed 128-bit integer as two halves, for exact products of wide (int64) accumulators with
/// Q31 multipliers. Portable standard C++ (no __int128 in public headers).
struct Int128 {
  std::int64_t hi;
  std::uint64_t lo;
};

/// Exact product of an int64 and an int32.
constexpr Int128 mul_i64_i32(std::int64_t a, std::int32_t b) noexcept {
  // a = ah * 2^32 + al with al in [0, 2^32); both partial products fit in int64.
  const std::int64_t ah = a >> 32;
  const std::int64_t al = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) & 0xffffffffu);
  const std::int64_t high = ah * b;   // |.| <= 2^31 * 2^31
  const std::int64_t low = al * b;    // |.| <  2^32 * 2^31
  // result = high * 2^32 + low
  const std::uint64_t high_lo = static_cast<std::uint64_t>(high) << 32;
  const std::int64_t high_hi = high >> 32;
  const std::uint64_t lo = high_lo + static_cast<std::uint64_t>(low);
  const std::int64_t carry = lo < high_lo ? 1 : 0;
  const std::int64_t low_hi = low < 0 ? -1 : 0;
  return Int128{high_hi + low_hi + carry, lo};
}

constexpr Int128 add_i128(Int128 a, std::int64_t b) noexcept {
  const std::uint64_t lo = a.lo + static_cast<std::uint64_t>(b);
  const std::int64_t carry = lo < a.lo ? 1 : 0;
  return Int128{a.hi + (b < 0 ? -1 : 0) + carry, lo};
}

/// floor(v / 2^k) for k in [1, 63]; the caller guarantees the result fits in int64.
constexpr std::int64_t floor_shift_i128(Int128 v, int k) noexcept {
  const std::uint64_t low = (v.lo >> k) | (static_cast<std::uint64_t>(v.hi) << (64 - k));
  return static_cast<std::int64_t>(low);
}

/// Exact division of a 128-bit value by 2^k (k in [1, 63]) rounded by `rule`; the caller
/// guarantees |v| < 2^126 and that the result fits in int64.
constexpr std::int64_t round_shift_right(Int128 v, int k, TieRule rule) noexcept {
  const bool negative = v.hi < 0;
  const std::uint64_t rem_mask = (std::uint64_t{1} << k) - 1;  // k <= 63
  const std::uint64_t r = v.lo & rem_mask;                     // v - floor(v/2^k)*2^k
  const std::uint64_t half = std::uint64_t{1} << (k - 1);
  const std::int64_t q = floor_shift_i128(v, k);
  switch (rule) {
    case TieRule::kHalfUp:
      return r >= half ? q + 1 : q;
    case TieRule::kHalfAwayFromZero:
      return (r > half || (r == half && !negative)) ? q + 1 : q;
    case TieRule::kHalfToEven:
      return (r > half || (r == half && (q & 1) != 0)) ? q + 1 : q;
    case TieRule::kTowardZero:
      return (negative && r != 0) ? q + 1 : q;
    case TieRule::kFloor:
      return q;
  }
  return 0;  // unreachable
}

}  // namespace qparity
