// The one exception type qparity throws for bad input, and the helpers that build its message.
//
// Public entry points validate their arguments and throw qparity::InvalidArgument with a message
// that names the parameter, its allowed range and the value received, e.g.
//   "qparity: shift = 31 is out of range; allowed: [-31, 30] (TFLite convention, >0 = left)".
// Inner loops assume validated input and never throw.
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace qparity {

class InvalidArgument : public std::invalid_argument {
 public:
  explicit InvalidArgument(const std::string& what) : std::invalid_argument(what) {}
};

namespace detail {

template <class T>
std::string to_text(T value) {
  std::ostringstream os;
  os.precision(17);
  os << value;
  return os.str();
}

// Throws InvalidArgument("qparity: <param> = <value> is out of range; allowed: <allowed>").
template <class T>
[[noreturn]] void throw_out_of_range(const char* param, T value, const std::string& allowed) {
  throw InvalidArgument(std::string("qparity: ") + param + " = " + to_text(value) +
                        " is out of range; allowed: " + allowed);
}

inline void require_in_range(const char* param, std::int64_t value, std::int64_t lo,
                             std::int64_t hi, const char* note = nullptr) {
  if (value < lo || value > hi) {
    std::string allowed = "[" + to_text(lo) + ", " + to_text(hi) + "]";
    if (note) allowed += std::string(" (") + note + ")";
    throw_out_of_range(param, value, allowed);
  }
}

// Scales must be finite and strictly positive: a zero, negative, NaN or infinite scale is never a
// meaningful quantization parameter and would otherwise produce silent garbage.
inline void require_positive_finite(const char* param, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    throw_out_of_range(param, value, "a finite value > 0");
  }
}

}  // namespace detail
}  // namespace qparity
