// Status and Result<T>: how the non-throwing entry points of the compiled library
// (qparity/nothrow.h) report errors, for engines compiled with -fno-exceptions.
//
//   const qparity::Status s = qparity::nothrow::gemm(packed, call);
//   if (!s.ok()) {
//     // s.code() == qparity::StatusCode::kInvalidArgument, and s.message() is the text the
//     // throwing API's qparity::InvalidArgument would carry, e.g.
//     // "qparity: a_zero_point = 300 is out of range; allowed: [-128, 127] (int8 activations)"
//   }
//
//   qparity::Result<qparity::PackedGemm> packed = qparity::nothrow::pack_gemm(weights, core);
//   if (!packed.ok()) return packed.status();
//   use(*packed);
//
// This header compiles with and without exceptions and has no dependency but the standard library.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace qparity {

/// What a non-throwing entry point reports: kOk, or the kind of failure.
enum class StatusCode : std::uint8_t {
  kOk = 0,
  /// Bad input: what the throwing API reports as qparity::InvalidArgument. The message names the
  /// parameter, its allowed range and the value received.
  kInvalidArgument = 1,
  /// A forced ISA (the overloads taking an Isa) that is not in supported_isas(): not compiled into
  /// this build, or not supported by this CPU or OS. The throwing API reports it as
  /// qparity::InvalidArgument with the same message.
  kUnsupportedIsa = 2,
  /// An allocation failed (std::bad_alloc: packed weights, scratch buffers).
  kOutOfMemory = 3,
  /// Anything else (e.g. std::system_error when a std::thread cannot start): not the caller's
  /// input; the message is the exception's what().
  kInternal = 4,
};

/// "ok", "invalid argument", "unsupported ISA", "out of memory", "internal".
constexpr const char* to_string(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kUnsupportedIsa: return "unsupported ISA";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown status code";
}

/// The outcome of a non-throwing call: a code and, on failure, a message. Success is the default
/// state and costs nothing to build, copy or return (no allocation: an empty std::string).
class [[nodiscard]] Status {
 public:
  /// Success.
  Status() noexcept = default;
  /// A failure with its message (for kOk the message is ignored: the result is success).
  Status(StatusCode code, std::string message) noexcept
      : code_(code), message_(code == StatusCode::kOk ? std::string() : std::move(message)) {}
  /// A failure without a message of its own: message() is "qparity: " + to_string(code) (what the
  /// library returns when it cannot allocate the message either).
  explicit Status(StatusCode code) noexcept : code_(code) {}

  bool ok() const noexcept { return code_ == StatusCode::kOk; }
  StatusCode code() const noexcept { return code_; }
  /// "" on success; otherwise the message (never null).
  const char* message() const noexcept {
    if (!message_.empty() || ok()) return message_.c_str();
    switch (code_) {
      case StatusCode::kInvalidArgument: return "qparity: invalid argument";
      case StatusCode::kUnsupportedIsa: return "qparity: unsupported ISA";
      case StatusCode::kOutOfMemory: return "qparity: out of memory";
      default: return "qparity: internal error";
    }
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

/// A value or the Status of the failure that prevented it (the non-throwing factories, e.g.
/// nothrow::pack_gemm). value(), operator* and operator-> require ok(): on a failed Result they
/// print the status message to stderr and call std::abort() (a programming error, as
/// std::optional::operator* on an empty optional is).
template <class T>
class [[nodiscard]] Result {
 public:
  // Both constructors are implicit, so that a factory can `return value;` or `return status;`.
  /// Success, holding `value`.
  Result(T value) noexcept(std::is_nothrow_move_constructible<T>::value)
      : value_(std::move(value)) {}
  /// Failure. `status` must not be ok; an ok status without a value becomes kInternal.
  Result(Status status) noexcept : status_(std::move(status)) {
    if (status_.ok()) status_ = Status(StatusCode::kInternal);
  }

  bool ok() const noexcept { return status_.ok(); }
  /// Success, or why there is no value.
  const Status& status() const noexcept { return status_; }

  T& value() & noexcept {
    require_value();
    return *value_;
  }
  const T& value() const& noexcept {
    require_value();
    return *value_;
  }
  T&& value() && noexcept {
    require_value();
    return std::move(*value_);
  }
  T& operator*() & noexcept { return value(); }
  const T& operator*() const& noexcept { return value(); }
  T&& operator*() && noexcept { return std::move(*this).value(); }
  T* operator->() noexcept { return &value(); }
  const T* operator->() const noexcept { return &value(); }

 private:
  void require_value() const noexcept {
    if (value_.has_value()) return;
    std::fprintf(stderr, "qparity: the value of a failed Result was used: %s\n", status_.message());
    std::abort();
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace qparity
