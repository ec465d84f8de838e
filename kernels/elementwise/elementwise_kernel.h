// INTERNAL: the contract between the element-wise driver (kernels/elementwise/elementwise_driver.cc)
// and the per-ISA element-wise kernels (kernels/elementwise/elementwise_<isa>.cc). Not installed.
//
// The driver turns reference::ElementwiseParams (include/qparity/reference/elementwise.h) into an
// EwPlan, splits the broadcast into contiguous rows, and asks the ISA's kernel set for the row
// function of the plan. A row function computes
//   out[i] = f(a[i], b[i])   for i < n,   a, b, out: contiguous int8 or uint8 elements,
// where f is one of the kernels below, each bit-exact with the reference function named:
//
//   kernel          per element (v_i = x_i - z_i; fin(y) = clamp(y + zo, qmin, qmax))      reference
//   kTfliteAddSub   fin(R(R(v1 2^ls; m1) +- R(v2 2^ls; m2); mo)), R the integer core       tflite_add_sub
//                   `core` (DR-AZ: default build, SR-UP: TFLITE_SINGLE_ROUNDING)
//   kXnnpackAddSub  fin(floor((v1 A + v2 B + 2^(s-1)) / 2^s)), exact in int32               xnnpack_add_sub
//   kIntMul         fin(R(v1 v2; mo)) with any integer core `core` (pre-shift where the     tflite_mul,
//                   core has one, e.g. DR-AZ with a positive shift)                        xnnpack_mul_rndnu,
//                                                                                           npu_mul
//   kFloatMul       fin(RNE(float(v1 v2) * scale))                                          xnnpack_mul_fp32
//   kNpuAddSub      fin(T(v1 2^d1 M1 +- v2 2^d2 M2; k)), T the single rounding by 2^k of     npu_add_sub
//                   the exact 64-bit sum with the tie rule's core (SR-UP, SR-AZ, SR-EVEN,
//                   TRUNC, FLOOR); the driver uses it when the terms fit (d_i <= 22, so
//                   v 2^d fits int32 and each product 2^61) and |result| < 2^30
//
// R(x; m) is the rounding core's requantization of an int32 x by a Q31 multiplier
// (RequantParams{multiplier, shift}; include/qparity/policy_*.h define each core), the same
// function the SIMD requantization path computes (rounding/requant_plan.h, requantize_x86.h).
// Arithmetics without a vector kernel (TFLite's NEON blocks, NPU ADD / SUB outside the bounds above,
// int16) run the scalar set's per-element row, which calls reference::elementwise_element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/registry/kernel_registry.h"
#include "qparity/output_stage.h"
#include "qparity/requant_params.h"

namespace qparity {
namespace reference {
struct ElementwiseParams;
}

namespace internal {

enum class EwKernel : std::uint8_t {
  kTfliteAddSub,
  kXnnpackAddSub,
  kIntMul,
  kFloatMul,
  kNpuAddSub,
  kPerElement,  ///< the scalar set's reference loop (any arithmetic)
};

/// Everything a row function reads; the driver fills it from the reference parameters.
struct EwPlan {
  EwKernel kernel = EwKernel::kPerElement;
  RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;  ///< kTfliteAddSub, kIntMul, kNpuAddSub
  bool sub = false;         ///< kTfliteAddSub, kNpuAddSub: the second term subtracted
  bool pre_shift = false;   ///< kIntMul: the core's plan has a pre-shift (L > 0)
  std::int32_t z1 = 0, z2 = 0;
  std::int32_t left_shift = 20;  ///< kTfliteAddSub: 20 for 8-bit types
  RequantParams m1{}, m2{};      ///< kTfliteAddSub input multipliers
  RequantParams mo{};            ///< kTfliteAddSub output multiplier; kIntMul's multiplier
  std::int32_t xnn_a = 0, xnn_b = 0, xnn_shift = 12;  ///< kXnnpackAddSub
  float scale = 1.0f;            ///< kFloatMul
  std::int32_t npu_m1 = 0, npu_m2 = 0;  ///< kNpuAddSub multipliers (>= 0)
  std::int32_t npu_d1 = 0, npu_d2 = 0;  ///< kNpuAddSub left shifts of v1, v2 (one is 0; <= 22)
  std::int32_t npu_k = 1;               ///< kNpuAddSub right shift, in [1, 62]
  OutputParams output{};         ///< output zero point and clamp
  const reference::ElementwiseParams* reference = nullptr;  ///< kPerElement
};

/// One contiguous row of n elements (see the top of this file).
using EwRowFn = void (*)(const EwPlan& plan, const void* a, const void* b, void* out, std::size_t n);

/// What one ISA translation unit provides.
struct ElementwiseKernelSet {
  const char* isa_name = nullptr;
  std::size_t lanes = 1;  ///< elements per vector
  /// The row function for `plan` on `u8` (uint8) or int8 elements, or null when this ISA has no
  /// kernel for it (the driver then runs the scalar set's per-element row).
  EwRowFn (*select)(const EwPlan& plan, bool u8) = nullptr;
};

/// The element-wise kernel family (kernels/registry/kernel_registry.h): one file per ISA,
/// kernels/elementwise/elementwise_<isa>.cc. scalar: the reference formulas element by element
/// (every plan); sse41, avx2, avx512: the vector kernels of rounding/simd_x86.h's widths (4, 8, 16
/// int32 lanes). AVX-VNNI, AVX-512 VNNI and AMX add nothing here and run their parents' kernels.
struct ElementwiseFamily {
  using Kernels = ElementwiseKernelSet;
  static constexpr const char* kName = "elementwise";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_ElementwiseFamily;
};

}  // namespace internal
}  // namespace qparity
