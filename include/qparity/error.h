// The one exception type qparity throws for bad input, and the helpers that build its message.
//
// Public entry points validate their arguments and throw qparity::InvalidArgument with a message
// that names the parameter, its allowed range and the value received, e.g.
//   "qparity: shift = 31 is out of range; allowed: [-31, 30] (TFLite convention, >0 = left)".
// Inner loops assume validated input and never throw.
//
// Builds without exceptions (-fno-exceptions): every header of include/qparity/ compiles in such a
// translation unit. Every error an inline function of these headers reports goes through
// QPARITY_THROW (below), which throws when the translation unit has exceptions and otherwise calls
// the no-exceptions handler: by default it prints the same message to stderr and calls
// std::abort(). The header-only reference (qparity::reference) has no other way to report bad input
// there: its functions return values, not statuses. Validate inputs before calling it, or use the
// compiled library's non-throwing entry points (qparity/nothrow.h, qparity/status.h), which return
// the error code and this same message instead.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

/// 1 when this translation unit is compiled with C++ exceptions, 0 under -fno-exceptions.
#if defined(__cpp_exceptions) || defined(_CPPUNWIND)
#define QPARITY_HAS_EXCEPTIONS 1
#else
#define QPARITY_HAS_EXCEPTIONS 0
#endif

/// The no-exceptions handler: what QPARITY_THROW does in a translation unit compiled without
/// exceptions, given the error's message (const char*, e.g. "qparity: shift = 31 is out of range;
/// allowed: [-31, 30] (...)"). Default: qparity::detail::print_and_abort (message and a newline to
/// stderr, then std::abort()). An engine with its own fatal-error path may define
/// QPARITY_NO_EXCEPTIONS_HANDLER(message) before including any qparity header, to a call that does
/// not return; it must be the same in every translation unit of the program, and if it returns,
/// std::abort() is called anyway.
#ifndef QPARITY_NO_EXCEPTIONS_HANDLER
#define QPARITY_NO_EXCEPTIONS_HANDLER(message) ::qparity::detail::print_and_abort(message)
#endif

/// Marks an inline function of these headers that can report an error (calls QPARITY_THROW,
/// directly or through a callee). Without exceptions such a function compiles to other code (it
/// calls the no-exceptions handler instead of throwing), so there it also gets another mangled name
/// (GCC/Clang abi_tag "qparity_noexcept"): the linker then never merges a no-exceptions copy with
/// the compiled library's throwing one, which would make the library abort where it throws (and
/// its non-throwing entry points abort instead of returning a Status). Empty with exceptions, and
/// on compilers without abi_tag (where mixing the two modes in one program is unsupported).
/// tests/package/no_exceptions_abi_test.cmake checks that every such function carries it.
#if !QPARITY_HAS_EXCEPTIONS && (defined(__GNUC__) || defined(__clang__))
#define QPARITY_MAY_THROW [[gnu::abi_tag("qparity_noexcept")]]
#else
#define QPARITY_MAY_THROW
#endif

/// Reports `error` (a qparity::InvalidArgument): throws it when exceptions are enabled, otherwise
/// calls QPARITY_NO_EXCEPTIONS_HANDLER with its message. Either way the message is extended by the
/// active detail::ErrorContext scopes first, and control does not return.
#define QPARITY_THROW(error) ::qparity::detail::raise(error)

namespace qparity {

class InvalidArgument : public std::invalid_argument {
 public:
  explicit InvalidArgument(const std::string& what) : std::invalid_argument(what) {}
};

namespace detail {

/// The default no-exceptions handler: writes `message` and a newline to stderr, then aborts.
[[noreturn]] inline void print_and_abort(const char* message) noexcept {
  std::fputs(message, stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

/// A scope that extends the message of every error raised through QPARITY_THROW on this thread
/// while it lives: wrap(data, message) returns the new message. It is how a validation that calls
/// another one adds context (" (params[3])", "scale = ... cannot be used with ...") without
/// catching and rethrowing, so that the message reads the same with and without exceptions.
/// Scopes nest; the innermost wraps first. wrap runs only when an error is raised.
class ErrorContext {
 public:
  using Wrap = std::string (*)(const void* data, const std::string& message);
  ErrorContext(Wrap wrap, const void* data) noexcept : wrap_(wrap), data_(data), outer_(top()) {
    top() = this;
  }
  ~ErrorContext() { top() = outer_; }
  ErrorContext(const ErrorContext&) = delete;
  ErrorContext& operator=(const ErrorContext&) = delete;

  /// `message` as the active scopes extend it, innermost first.
  static std::string apply(std::string message) {
    for (const ErrorContext* c = top(); c != nullptr; c = c->outer_) {
      message = c->wrap_(c->data_, message);
    }
    return message;
  }
  static bool active() noexcept { return top() != nullptr; }

 private:
  static const ErrorContext*& top() noexcept {
    static thread_local const ErrorContext* innermost = nullptr;
    return innermost;
  }

  Wrap wrap_;
  const void* data_;
  const ErrorContext* outer_;
};

/// QPARITY_THROW's implementation (see there).
QPARITY_MAY_THROW
[[noreturn]] inline void raise(const InvalidArgument& error) {
#if QPARITY_HAS_EXCEPTIONS
  if (ErrorContext::active()) throw InvalidArgument(ErrorContext::apply(error.what()));
  throw error;
#else
  if (ErrorContext::active()) {
    const std::string message = ErrorContext::apply(error.what());
    QPARITY_NO_EXCEPTIONS_HANDLER(message.c_str());
  } else {
    QPARITY_NO_EXCEPTIONS_HANDLER(error.what());
  }
  std::abort();  // a handler that returned
#endif
}

/// An ErrorContext's wrap that appends " (<name>[<index>])": data points to an
/// IndexedErrorSuffix, whose index the caller advances as it walks an array.
struct IndexedErrorSuffix {
  const char* name;
  std::size_t index;
  static std::string wrap(const void* data, const std::string& message) {
    const auto* s = static_cast<const IndexedErrorSuffix*>(data);
    return message + " (" + s->name + "[" + std::to_string(s->index) + "])";
  }
};

template <class T>
std::string to_text(T value) {
  std::ostringstream os;
  os.precision(17);
  os << value;
  return os.str();
}

// Raises InvalidArgument("qparity: <param> = <value> is out of range; allowed: <allowed>").
template <class T>
QPARITY_MAY_THROW
[[noreturn]] void throw_out_of_range(const char* param, T value, const std::string& allowed) {
  QPARITY_THROW(InvalidArgument(std::string("qparity: ") + param + " = " + to_text(value) +
                        " is out of range; allowed: " + allowed));
}

QPARITY_MAY_THROW
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
QPARITY_MAY_THROW
inline void require_positive_finite(const char* param, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    throw_out_of_range(param, value, "a finite value > 0");
  }
}

}  // namespace detail
}  // namespace qparity
