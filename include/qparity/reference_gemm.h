// Header-only reference GEMM / fully-connected: the oracle for every GEMM kernel.
//
//   C[i][j] = cast<Out>(clamp(requantize_core(Accum::dot(A[i][:] - a_zp, B[:][j] - b_zp[j]) + bias[j])
//                              + c_zp, qmin, qmax))
// with every step defined by the chosen rounding policy (policies.h), accumulator model
// (accumulator.h) and output stage (output_stage.h). Nothing here is optimised: it is the
// definition the fast paths are tested against, element by element, at tolerance 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "qparity/accumulator.h"
#include "qparity/error.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/requant_params.h"

namespace qparity {

/// How the weight matrix B is stored.
enum class WeightLayout : std::uint8_t {
  kKxN,  ///< row-major K x N: B(k, j) = b[k * b_row_stride + j]
  kNxK,  ///< row-major N x K, TFLite's "OI" filter layout: B(k, j) = b[j * b_row_stride + k]
};

/// A quantized GEMM problem. A is M x K (int8 or uint8, row-major with a row stride), B is K x N
/// int8 in either layout, C is M x N row-major. Strides are in elements; 0 means dense.
template <class AType, class OutType>
struct GemmProblem {
  static_assert(std::is_same<AType, std::int8_t>::value || std::is_same<AType, std::uint8_t>::value,
                "GemmProblem: activations must be int8_t or uint8_t");
  static_assert(std::is_same<OutType, std::int8_t>::value ||
                    std::is_same<OutType, std::uint8_t>::value ||
                    std::is_same<OutType, std::int16_t>::value ||
                    std::is_same<OutType, std::int32_t>::value,
                "GemmProblem: output must be int8_t, uint8_t, int16_t or int32_t");
  std::size_t m = 0, n = 0, k = 0;
  const AType* a = nullptr;
  std::size_t a_row_stride = 0;
  std::int32_t a_zero_point = 0;
  const std::int8_t* b = nullptr;
  WeightLayout b_layout = WeightLayout::kNxK;
  std::size_t b_row_stride = 0;
  /// Weight zero points: null (all 0, TFLite's symmetric weights), one value, or N values.
  const std::int32_t* b_zero_points = nullptr;
  bool b_zero_point_per_channel = false;
  /// int32 bias in the accumulator's scale, N values, or null. (oneDNN's f32 bias goes into
  /// RequantParams::bias instead.)
  const std::int32_t* bias = nullptr;
  /// Requantization parameters: one (per-tensor) or N (per-channel, per_channel = true).
  const RequantParams* params = nullptr;
  bool per_channel = false;
  OutputParams output{};
  OutType* c = nullptr;
  std::size_t c_row_stride = 0;
};

namespace detail {

template <class T>
constexpr OutputType output_type_of() {
  return std::is_same<T, std::int8_t>::value    ? OutputType::kInt8
         : std::is_same<T, std::uint8_t>::value ? OutputType::kUint8
         : std::is_same<T, std::int16_t>::value ? OutputType::kInt16
                                                : OutputType::kInt32;
}

/// Element i of a strided vector (a column of a row-major matrix).
template <class T>
struct StridedView {
  const T* data;
  std::size_t stride;
  T operator[](std::size_t i) const { return data[i * stride]; }
};

QPARITY_MAY_THROW
inline void require_pointer(const void* p, const char* name) {
  if (p == nullptr) {
    QPARITY_THROW(InvalidArgument(std::string("qparity: ") + name +
                                  " is null; allowed: a non-null pointer"));
  }
}

QPARITY_MAY_THROW
inline void require_stride(const char* name, std::size_t stride, std::size_t min) {
  if (stride != 0 && stride < min) {
    throw_out_of_range(name, stride, ">= " + std::to_string(min) + ", or 0 for dense");
  }
}

}  // namespace detail

/// Validates a GEMM problem for `core`: sizes, pointers, strides, zero points (A's within its
/// type, B's within int8), every RequantParams entry, and the output clamp against OutType.
template <class AType, class OutType>
QPARITY_MAY_THROW
void validate_gemm(const GemmProblem<AType, OutType>& g, RoundingCore core) {
  if (g.m == 0 || g.n == 0 || g.k == 0) {
    QPARITY_THROW(InvalidArgument("qparity: gemm sizes m = " + std::to_string(g.m) + ", n = " +
                                  std::to_string(g.n) + ", k = " + std::to_string(g.k) +
                                  " are out of range; allowed: each >= 1"));
  }
  detail::require_pointer(g.a, "a");
  detail::require_pointer(g.b, "b");
  detail::require_pointer(g.c, "c");
  detail::require_pointer(g.params, "params");
  detail::require_stride("a_row_stride", g.a_row_stride, g.k);
  detail::require_stride("b_row_stride", g.b_row_stride, g.b_layout == WeightLayout::kKxN ? g.n : g.k);
  detail::require_stride("c_row_stride", g.c_row_stride, g.n);
  const bool a_signed = std::is_signed<AType>::value;
  detail::require_in_range("a_zero_point", g.a_zero_point, a_signed ? -128 : 0, a_signed ? 127 : 255,
                           a_signed ? "int8 activations" : "uint8 activations");
  if (g.b_zero_points != nullptr) {
    const std::size_t nz = g.b_zero_point_per_channel ? g.n : 1;
    for (std::size_t j = 0; j < nz; ++j) {
      detail::require_in_range("b_zero_points[j]", g.b_zero_points[j], -128, 127, "int8 weights");
    }
  }
  const std::size_t np = g.per_channel ? g.n : 1;
  detail::IndexedErrorSuffix entry{"params", 0};  // errors end with " (params[j])"
  const detail::ErrorContext context(&detail::IndexedErrorSuffix::wrap, &entry);
  for (; entry.index < np; ++entry.index) validate(core, g.params[entry.index]);
  validate(g.output, detail::output_type_of<OutType>());
}

namespace reference {
namespace detail {

/// One accumulator (as the accumulator model returned it) through the rounding core and the
/// output stage: shared by every reference kernel. `wide` tells whether the model is wider than
/// 32 bits; then policies with a wide form (SR-*, Q15, F32*) read all of it, and the int32-defined
/// ones (DR-*, SR-UP-NEON) read it reduced modulo 2^32, as an int32 register would hold it.
template <class Policy>
std::int32_t requantize_accumulator(std::int64_t acc, bool wide, const RequantParams& p,
                                    const OutputParams& o) {
  if constexpr (Policy::kAcceptsWideInput) {
    if (wide) {
      std::int64_t v;
      if constexpr (Policy::kZeroPointInside) {
        v = Policy::requantize_wide_with_zero_point(acc, p, o.zero_point);
      } else {
        v = static_cast<std::int64_t>(Policy::requantize_wide(acc, p)) + o.zero_point;
      }
      return static_cast<std::int32_t>(clamp_i64(v, o.qmin, o.qmax));
    }
  }
  return requantize_to_output<Policy>(wrap_to_int32(acc), p, o);
}

/// The reference loop; `dot(a_row, b_column, k, a_zp, b_zp, bias)` is the accumulator model and
/// `wide` tells whether it is wider than 32 bits.
template <class Policy, class Dot, class AType, class OutType>
void gemm_loop(const GemmProblem<AType, OutType>& g, const Dot& dot, bool wide) {
  const std::size_t lda = g.a_row_stride ? g.a_row_stride : g.k;
  const std::size_t ldb = g.b_row_stride ? g.b_row_stride : (g.b_layout == WeightLayout::kKxN ? g.n : g.k);
  const std::size_t ldc = g.c_row_stride ? g.c_row_stride : g.n;
  for (std::size_t i = 0; i < g.m; ++i) {
    const AType* a_row = g.a + i * lda;
    for (std::size_t j = 0; j < g.n; ++j) {
      const std::int32_t b_zp =
          g.b_zero_points ? g.b_zero_points[g.b_zero_point_per_channel ? j : 0] : 0;
      const std::int64_t bias = g.bias ? g.bias[j] : 0;
      std::int64_t acc;
      if (g.b_layout == WeightLayout::kNxK) {
        acc = dot(a_row, g.b + j * ldb, g.k, g.a_zero_point, b_zp, bias);
      } else {
        acc = dot(a_row, qparity::detail::StridedView<std::int8_t>{g.b + j, ldb}, g.k,
                  g.a_zero_point, b_zp, bias);
      }
      const RequantParams& p = g.params[g.per_channel ? j : 0];
      const std::int32_t y = requantize_accumulator<Policy>(acc, wide, p, g.output);
      g.c[i * ldc + j] = saturating_cast<OutType>(y);
    }
  }
}

}  // namespace detail

/// The reference GEMM for rounding policy `Policy` and accumulator model `Accum` (default: exact
/// int32 with wrap-around). Validates the problem (throws InvalidArgument).
///
/// Accumulators wider than 32 bits are passed to the policy's requantize_wide when it has one
/// (SR-*, Q15, F32*); for the int32-defined policies (DR-*, SR-UP-NEON) a wide accumulator is
/// first reduced modulo 2^32, as storing it in an int32 register would.
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
QPARITY_MAY_THROW
void gemm(const GemmProblem<AType, OutType>& g) {
  validate_gemm(g, Policy::kCore);
  detail::gemm_loop<Policy>(
      g, [](auto a, auto b, std::size_t k, std::int32_t za, std::int32_t zb, std::int64_t bias) {
        return Accum::dot(a, b, k, za, zb, bias);
      },
      Accum::kBits > 32);
}

/// The reference GEMM with the rounding core and accumulator model chosen at run time. For the
/// pairsat16 model the activation type picks the variant (int8: +128 shift). Validates.
template <class AType, class OutType>
QPARITY_MAY_THROW
void gemm(const GemmProblem<AType, OutType>& g, RoundingCore core, AccumulatorSpec accumulator) {
  validate(accumulator);
  validate_gemm(g, core);
  constexpr bool kSignedA = std::is_signed<AType>::value;
  visit_rounding_core(core, [&](auto policy) {
    using Policy = decltype(policy);
    detail::gemm_loop<Policy>(
        g, [&](auto a, auto b, std::size_t k, std::int32_t za, std::int32_t zb, std::int64_t bias) {
          return accumulate(accumulator, kSignedA, a, b, k, za, zb, bias);
        },
        accumulator.bits > 32);
  });
}

}  // namespace reference
}  // namespace qparity
