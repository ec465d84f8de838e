#include "exact_decimal.h"

#include <cmath>

#include <fmt/format.h>

namespace qparity::cli {

Dyadic Dyadic::ratio(Int128 num, int k) {
  if (k < 0) {
    num = static_cast<Int128>(static_cast<UInt128>(num) << -k);
    k = 0;
  }
  // Strip trailing zero bits so that k stays small (and within kMaxBits for every value explain
  // builds).
  while (k > 0 && (num & 1) == 0) {
    num /= 2;  // exact: num is even
    --k;
  }
  while (k > kMaxBits) {  // not reached for explain's values; keeps the class total
    num >>= 1;
    --k;
  }
  Dyadic d;
  d.k_ = k;
  d.floor_ = static_cast<std::int64_t>(num >> k);  // arithmetic shift: floor
  const UInt128 mask = (UInt128{1} << k) - 1;      // k <= 120
  d.frac_ = static_cast<UInt128>(num) & mask;      // num mod 2^k, in [0, 2^k)
  return d;
}

Dyadic Dyadic::product(std::int64_t acc, double scale) {
  int e = 0;
  const double q = std::frexp(scale, &e);                       // scale = q * 2^e, q in [0.5, 1)
  const auto m = static_cast<std::int64_t>(std::ldexp(q, 53));  // exact 53-bit integer
  return ratio(static_cast<Int128>(acc) * m, 53 - e);
}

Dyadic Dyadic::plus(std::int64_t n) const {
  Dyadic d = *this;
  d.floor_ += n;
  return d;
}

std::int64_t Dyadic::nearest_low() const {
  if (k_ == 0) return floor_;
  const UInt128 half = UInt128{1} << (k_ - 1);
  return frac_ > half ? floor_ + 1 : floor_;
}

bool Dyadic::is_nearest(std::int64_t y) const {
  if (is_tie()) return y == floor_ || y == floor_ + 1;
  return y == nearest_low();
}

std::string Dyadic::to_string(int max_frac_digits) const {
  if (frac_ == 0) return fmt::format("{}", floor_);
  const bool negative = floor_ < 0;
  // |value| = int_part + f / 2^k.
  const std::uint64_t int_part =
      negative ? static_cast<std::uint64_t>(-(floor_ + 1)) : static_cast<std::uint64_t>(floor_);
  UInt128 f = negative ? (UInt128{1} << k_) - frac_ : frac_;
  const UInt128 mask = (UInt128{1} << k_) - 1;
  // For |value| < 1 the leading zeros of the fraction do not count toward max_frac_digits, so
  // that tiny values still show their significant digits.
  std::string digits;
  bool significant = int_part != 0;
  for (int shown = 0; shown < max_frac_digits && f != 0;) {
    f *= 10;  // < 10 * 2^120 < 2^124
    const int d = static_cast<int>(f >> k_);
    digits.push_back(static_cast<char>('0' + d));
    f &= mask;
    significant = significant || d != 0;
    if (significant) ++shown;
  }
  return fmt::format("{}{}.{}{}", negative ? "-" : "", int_part, digits, f != 0 ? "..." : "");
}

}  // namespace qparity::cli
