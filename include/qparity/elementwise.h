// Fast element-wise ADD / SUB / MUL with selectable, bit-exact arithmetic (compiled library,
// qparity::qparity).
//
// Exactly reference::elementwise (include/qparity/reference/elementwise.h) for every arithmetic,
// on every ISA path, with NumPy / TFLite broadcasting of up to 6 dimensions:
//
//   const auto p = qparity::reference::derive_elementwise_params(
//       qparity::reference::ElementwiseOp::kAdd, qparity::reference::ElementwiseArithmetic::kTfliteDouble,
//       qparity::OutputType::kInt8, {s1, z1}, {s2, z2}, {so, zo}, qparity::Activation::kRelu);
//   qparity::elementwise(p, shape1, in1, shape2, in2, out);   // out: broadcast_shape elements
//
// Vector kernels (SSE4.1, AVX2, AVX-512; kernels/elementwise/) cover TFLite's reference ADD / SUB /
// MUL in both rounding builds and TFLite Micro's, XNNPACK's ADD / SUB and MUL (fp32 and rndnu),
// and the NPU hypothesis's MUL and ADD / SUB (input scales at most 2^22 apart), on int8 and uint8.
// TFLite's NEON variants, NPU ADD / SUB with scales farther apart and int16 run the reference
// formulas element by element (elementwise_kernel_name says which). Broadcasting is split into contiguous rows: equal shapes are one row, a scalar operand
// is expanded in blocks, a row broadcast along the outer dimensions (per-channel operands) is
// tiled so that short rows run as long ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qparity/isa.h"
#include "qparity/reference/elementwise.h"

namespace qparity {

/// out[i] = reference::elementwise_element(p, in1[j1(i)], in2[j2(i)]) over the broadcast shape of
/// shape1 and shape2 (reference::elementwise's definition), on active_isa(). `out` must hold
/// shape_elements(broadcast_shape(shape1, shape2)) elements and may not overlap the inputs unless it
/// is one of them with the output's shape. T must match p.type (int8_t, uint8_t or int16_t).
/// Throws InvalidArgument as reference::elementwise does (type mismatch, shapes that do not
/// broadcast, more than 6 dimensions).
template <class T>
void elementwise(const reference::ElementwiseParams& p, const std::vector<std::size_t>& shape1, const T* in1,
                 const std::vector<std::size_t>& shape2, const T* in2, T* out);

/// The same on exactly `isa` (tests, benchmarks); throws InvalidArgument if `isa` is not in
/// supported_isas().
template <class T>
void elementwise(Isa isa, const reference::ElementwiseParams& p, const std::vector<std::size_t>& shape1,
                 const T* in1, const std::vector<std::size_t>& shape2, const T* in2, T* out);

/// The kernel that computes `p` on `isa`: "<isa> <kernel>", e.g. "avx512 tflite-add-sub DR-AZ",
/// "avx2 xnnpack-add-sub", "scalar per-element" (logs, benchmarks, tests).
std::string elementwise_kernel_name(const reference::ElementwiseParams& p, Isa isa);

#define QPARITY_ELEMENTWISE_EXTERN(T)                                                                   \
  extern template void elementwise<T>(const reference::ElementwiseParams&, const std::vector<std::size_t>&, \
                                      const T*, const std::vector<std::size_t>&, const T*, T*);            \
  extern template void elementwise<T>(Isa, const reference::ElementwiseParams&,                         \
                                      const std::vector<std::size_t>&, const T*,                        \
                                      const std::vector<std::size_t>&, const T*, T*);
QPARITY_ELEMENTWISE_EXTERN(std::int8_t)
QPARITY_ELEMENTWISE_EXTERN(std::uint8_t)
QPARITY_ELEMENTWISE_EXTERN(std::int16_t)
#undef QPARITY_ELEMENTWISE_EXTERN

}  // namespace qparity
