// Accumulator models: how a dot product sum_i (a_i - a_zp) * (b_i - b_zp) + bias is formed.
//
// Integer systems agree on the exact value and differ only when an intermediate overflows or
// saturates (docs/semantics.md §17): TFLite/gemmlowp/ruy/XNNPACK/CMSIS-NN wrap an int32; TOSA and
// TFLite 16x8 use 48/64-bit accumulators; NPUs have accumulators of implementation-defined depth
// that saturate or wrap; x86 without VNNI sums u8*s8 pairs with int16 saturation (VPMADDUBSW).
// Each model is a type with
//   name() (e.g. "int32", "sat48", "wrap24", "pairsat16-s8"), and
//   static std::int64_t dot(A a, B b, std::size_t k, std::int32_t a_zero_point,
//                           std::int32_t b_zero_point, std::int64_t bias)
// where a[i], b[i] (i < k) give the raw stored operand values (int8 / uint8 / int16 widened), and
// the result is the accumulator the rounding core receives (in int32 range for 32-bit models).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "qparity/error.h"
#include "qparity/fixed_point.h"

namespace qparity {

/// Run-time identity of an accumulator model (the types below give the semantics). Presets and the
/// compiled kernels take an AccumulatorSpec; the reference takes the type.
enum class AccumulatorKind : std::uint8_t {
  kInt32,           ///< Int32Accumulator
  kInt64,           ///< Int64Accumulator
  kSaturating,      ///< SaturatingAccumulator<bits>
  kWrapping,        ///< WrappingAccumulator<bits>
  kPairSaturating,  ///< Int16PairSaturatingAccumulator (x86 VPMADDUBSW)
};

struct AccumulatorSpec {
  AccumulatorKind kind = AccumulatorKind::kInt32;
  int bits = 32;  ///< kSaturating: [16, 48]; kWrapping: [16, 64]; otherwise 32 (64 for kInt64)
};

inline std::string to_string(AccumulatorSpec a) {
  switch (a.kind) {
    case AccumulatorKind::kInt32: return "int32";
    case AccumulatorKind::kInt64: return "int64";
    case AccumulatorKind::kSaturating: return "sat" + std::to_string(a.bits);
    case AccumulatorKind::kWrapping: return "wrap" + std::to_string(a.bits);
    case AccumulatorKind::kPairSaturating: return "pairsat16";
  }
  return "?";
}


/// Exact int32 accumulation with two's-complement wrap-around: every term and the bias are added
/// modulo 2^32. What TFLite, gemmlowp, ruy, XNNPACK, CMSIS-NN and VNNI (VPDPBUSD) hardware compute
/// (C signed overflow is UB in TFLite's reference; the hardware wraps).
struct Int32Accumulator {
  static std::string name() { return "int32"; }
  static constexpr int kBits = 32;
  static constexpr AccumulatorSpec kSpec{AccumulatorKind::kInt32, 32};
  template <class A, class B>
  static std::int64_t dot(A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                          std::int64_t bias) {
    std::uint32_t acc = static_cast<std::uint32_t>(static_cast<std::uint64_t>(bias));
    for (std::size_t i = 0; i < k; ++i) {
      const std::int32_t term = (static_cast<std::int32_t>(a[i]) - a_zp) *
                                (static_cast<std::int32_t>(b[i]) - b_zp);  // |term| <= 2^17
      acc += static_cast<std::uint32_t>(term);
    }
    return static_cast<std::int32_t>(acc);
  }
};

/// Exact accumulation in int64 (TOSA i48 for 16x8 within its REQUIRE, TFLite 16x8 with int64
/// bias). Exact for every k below 2^46.
struct Int64Accumulator {
  static std::string name() { return "int64"; }
  static constexpr int kBits = 64;
  static constexpr AccumulatorSpec kSpec{AccumulatorKind::kInt64, 64};
  template <class A, class B>
  static std::int64_t dot(A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                          std::int64_t bias) {
    std::int64_t acc = 0;
    for (std::size_t i = 0; i < k; ++i) {
      acc += static_cast<std::int64_t>(static_cast<std::int32_t>(a[i]) - a_zp) *
             (static_cast<std::int32_t>(b[i]) - b_zp);
    }
    return acc + bias;
  }
};

namespace detail {

/// SaturatingAccumulator<bits>::dot with the depth as a run-time value (bits in [16, 48]).
template <class A, class B>
std::int64_t saturating_dot(int bits, A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                            std::int64_t bias) {
  const std::int64_t lo = -(std::int64_t{1} << (bits - 1));
  const std::int64_t hi = (std::int64_t{1} << (bits - 1)) - 1;
  std::int64_t acc = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const std::int64_t term = static_cast<std::int64_t>(static_cast<std::int32_t>(a[i]) - a_zp) *
                              (static_cast<std::int32_t>(b[i]) - b_zp);
    acc = clamp_i64(acc + term, lo, hi);
  }
  return clamp_i64(acc + clamp_i64(bias, lo, hi), lo, hi);
}

/// WrappingAccumulator<bits>::dot with the width as a run-time value (bits in [16, 64]).
template <class A, class B>
std::int64_t wrapping_dot(int bits, A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                          std::int64_t bias) {
  std::uint64_t acc = static_cast<std::uint64_t>(bias);
  for (std::size_t i = 0; i < k; ++i) {
    const std::int64_t term = static_cast<std::int64_t>(static_cast<std::int32_t>(a[i]) - a_zp) *
                              (static_cast<std::int32_t>(b[i]) - b_zp);
    acc += static_cast<std::uint64_t>(term);
  }
  return wrap_to_bits(acc, bits);
}

}  // namespace detail

/// An N-bit accumulator (16 <= N <= 48) that SATURATES after every addition: products are added in
/// index order, then the bias (TOSA CONV2D order: the bias is added to the finished sum), each
/// addition clamped to [-2^(N-1), 2^(N-1) - 1]. Models NPU accumulation buffers with a saturating
/// overflow policy (OpenVX VX_CONVERT_POLICY_SATURATE); the depth is a hypothesis to test.
template <int N>
struct SaturatingAccumulator {
  static_assert(N >= 16 && N <= 48, "SaturatingAccumulator<N>: N must be in [16, 48]");
  static constexpr int kBits = N;
  static constexpr AccumulatorSpec kSpec{AccumulatorKind::kSaturating, N};
  static std::string name() { return "sat" + std::to_string(N); }
  static constexpr std::int64_t kMin = -(std::int64_t{1} << (N - 1));
  static constexpr std::int64_t kMax = (std::int64_t{1} << (N - 1)) - 1;
  template <class A, class B>
  static std::int64_t dot(A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                          std::int64_t bias) {
    return detail::saturating_dot(N, a, b, k, a_zp, b_zp, bias);
  }
};

/// An N-bit accumulator (16 <= N <= 64) that WRAPS: the exact sum plus bias modulo 2^N,
/// sign-extended (order-independent). N = 32 equals Int32Accumulator.
template <int N>
struct WrappingAccumulator {
  static_assert(N >= 16 && N <= 64, "WrappingAccumulator<N>: N must be in [16, 64]");
  static std::string name() { return "wrap" + std::to_string(N); }
  static constexpr int kBits = N;
  static constexpr AccumulatorSpec kSpec{AccumulatorKind::kWrapping, N};
  template <class A, class B>
  static std::int64_t dot(A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                          std::int64_t bias) {
    return detail::wrapping_dot(N, a, b, k, a_zp, b_zp, bias);
  }
};

/// x86 VPMADDUBSW accumulation (AVX2 / AVX-512BW without VNNI), as oneDNN uses it
/// (doc/advanced/int8_computations.md; docs/semantics.md §9, §17):
///   ua_i = a_i + 128 if the activations are int8 (oneDNN's s8 -> u8 shift), else a_i;
///   pairs  p_j = saturate_int16(ua_{2j} * b_{2j} + ua_{2j+1} * b_{2j+1})   (b raw int8; an odd
///          k is padded with a zero pair element);
///   S = sum_j p_j + bias, in int32 with wrap-around (VPMADDWD by ones, VPADDD);
///   result = S - (c + a_zp) * sum_i b_i - b_zp * sum_i a_i + k * a_zp * b_zp (int32, wrapping),
///          with c = 128 for int8 activations, 0 for uint8.
/// Exact unless a pair saturates: 255 * 127 * 2 = 64770 -> 32767.
/// The activation signedness is a template parameter because the +128 shift depends on it.
template <bool SignedActivations>
struct Int16PairSaturatingAccumulator {
  static std::string name() { return SignedActivations ? "pairsat16-s8" : "pairsat16-u8"; }
  static constexpr int kBits = 32;
  static constexpr AccumulatorSpec kSpec{AccumulatorKind::kPairSaturating, 32};
  template <class A, class B>
  static std::int64_t dot(A a, B b, std::size_t k, std::int32_t a_zp, std::int32_t b_zp,
                          std::int64_t bias) {
    constexpr std::int32_t c = SignedActivations ? 128 : 0;
    std::uint32_t s = static_cast<std::uint32_t>(static_cast<std::uint64_t>(bias));
    std::uint32_t sum_b = 0, sum_a = 0;
    for (std::size_t i = 0; i < k; i += 2) {
      const std::int32_t ua0 = static_cast<std::int32_t>(a[i]) + c;
      const std::int32_t b0 = static_cast<std::int32_t>(b[i]);
      std::int32_t pair = ua0 * b0;
      sum_b += static_cast<std::uint32_t>(b0);
      sum_a += static_cast<std::uint32_t>(static_cast<std::int32_t>(a[i]));
      if (i + 1 < k) {
        const std::int32_t ua1 = static_cast<std::int32_t>(a[i + 1]) + c;
        const std::int32_t b1 = static_cast<std::int32_t>(b[i + 1]);
        pair += ua1 * b1;
        sum_b += static_cast<std::uint32_t>(b1);
        sum_a += static_cast<std::uint32_t>(static_cast<std::int32_t>(a[i + 1]));
      }
      pair = pair > 32767 ? 32767 : (pair < -32768 ? -32768 : pair);
      s += static_cast<std::uint32_t>(pair);
    }
    s -= static_cast<std::uint32_t>(c + a_zp) * sum_b;
    s -= static_cast<std::uint32_t>(b_zp) * sum_a;
    s += static_cast<std::uint32_t>(k) * static_cast<std::uint32_t>(a_zp) *
         static_cast<std::uint32_t>(b_zp);
    return static_cast<std::int32_t>(s);
  }
};

/// Validates a run-time accumulator description; throws InvalidArgument naming `accumulator.bits`
/// and its allowed range.
QPARITY_MAY_THROW
inline void validate(AccumulatorSpec a) {
  switch (a.kind) {
    case AccumulatorKind::kInt32:
    case AccumulatorKind::kPairSaturating:
      detail::require_in_range("accumulator.bits", a.bits, 32, 32, "int32 / pairsat16 accumulators");
      return;
    case AccumulatorKind::kInt64:
      detail::require_in_range("accumulator.bits", a.bits, 64, 64, "int64 accumulator");
      return;
    case AccumulatorKind::kSaturating:
      detail::require_in_range("accumulator.bits", a.bits, 16, 48, "saturating accumulator depth");
      return;
    case AccumulatorKind::kWrapping:
      detail::require_in_range("accumulator.bits", a.bits, 16, 64, "wrapping accumulator width");
      return;
  }
  QPARITY_THROW(InvalidArgument("qparity: accumulator.kind " +
                                std::to_string(static_cast<int>(a.kind)) +
                                " is not a valid AccumulatorKind"));
}

/// The accumulator model of `spec` applied to one dot product (the run-time form of Accum::dot).
/// `signed_activations` selects the pairsat16 variant (the +128 shift). Assumes a validated spec.
template <class A, class B>
std::int64_t accumulate(AccumulatorSpec spec, bool signed_activations, A a, B b, std::size_t k,
                        std::int32_t a_zp, std::int32_t b_zp, std::int64_t bias) {
  switch (spec.kind) {
    case AccumulatorKind::kInt32: return Int32Accumulator::dot(a, b, k, a_zp, b_zp, bias);
    case AccumulatorKind::kInt64: return Int64Accumulator::dot(a, b, k, a_zp, b_zp, bias);
    case AccumulatorKind::kSaturating: return detail::saturating_dot(spec.bits, a, b, k, a_zp, b_zp, bias);
    case AccumulatorKind::kWrapping: return detail::wrapping_dot(spec.bits, a, b, k, a_zp, b_zp, bias);
    case AccumulatorKind::kPairSaturating:
      return signed_activations ? Int16PairSaturatingAccumulator<true>::dot(a, b, k, a_zp, b_zp, bias)
                                : Int16PairSaturatingAccumulator<false>::dot(a, b, k, a_zp, b_zp, bias);
  }
  return 0;
}

}  // namespace qparity
