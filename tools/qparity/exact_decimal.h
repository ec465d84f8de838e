// Exact dyadic rationals (n / 2^k) for `qparity explain`: every intermediate value of a rounding
// core, and acc * scale for any double scale in the range explain accepts, is one. They are kept
// exactly so that ties are detected exactly and decimals are printed without float error.
#pragma once

#include <cstdint>
#include <string>

namespace qparity::cli {

// GCC/Clang 128-bit integers (the tool is not a public header; __extension__ keeps -Wpedantic
// quiet).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

/// The value floor_part + frac / 2^k with 0 <= frac < 2^k and 0 <= k <= kMaxBits.
class Dyadic {
 public:
  static constexpr int kMaxBits = 120;

  /// num / 2^k. Requires |num / 2^k| < 2^63 and, for k > kMaxBits, that the low bits shifted out
  /// are zero (never the case for the values explain builds). k < 0 multiplies by 2^-k.
  static Dyadic ratio(Int128 num, int k);

  /// Exactly acc * scale for a finite double scale >= 2^-64 with |acc * scale| < 2^63.
  static Dyadic product(std::int64_t acc, double scale);

  /// This value plus an integer.
  Dyadic plus(std::int64_t n) const;

  std::int64_t floor() const { return floor_; }
  bool is_integer() const { return frac_ == 0; }
  /// True if the value is exactly halfway between two integers.
  bool is_tie() const { return k_ > 0 && frac_ == (UInt128{1} << (k_ - 1)); }
  /// The nearest integer; for a tie, the lower neighbour (callers check is_tie()).
  std::int64_t nearest_low() const;
  /// True if `y` is an integer nearest to this value (either neighbour of a tie).
  bool is_nearest(std::int64_t y) const;

  /// Decimal text, exact if it needs at most max_frac_digits fraction digits (not counting the
  /// leading zeros of a value below 1 in magnitude), otherwise truncated toward zero and followed
  /// by "..." (so every printed digit is correct).
  std::string to_string(int max_frac_digits = 12) const;

 private:
  std::int64_t floor_ = 0;
  UInt128 frac_ = 0;
  int k_ = 0;
};

}  // namespace qparity::cli
