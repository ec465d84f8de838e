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
//
// R(x; m) is the rounding core's requantization of an int32 x by a Q31 multiplier
// (RequantParams{multiplier, shift}; include/qparity/policy_*.h define each core), the same
// function the SIMD requantization path computes (rounding/requant_plan.h, requantize_x86.h).
// Arithmetics without a vector kernel (TFLite's NEON blocks, the NPU hypothesis's ADD / SUB, int16)
// run the scalar set's per-element row, which calls reference::elementwise_element.
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
  kPerElement,  ///< the scalar set's reference loop (any arithmetic)
};

/// Everything a row function reads; the driver fills it from the reference parameters.
struct EwPlan {
  EwKernel kernel = EwKernel::kPerElement;
  RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;  ///< kTfliteAddSub, kIntMul
  bool sub = false;         ///< kTfliteAddSub: b1 - b2
  bool pre_shift = false;   ///< kIntMul: the core's plan has a pre-shift (L > 0)
  std::int32_t z1 = 0, z2 = 0;
  std::int32_t left_shift = 20;  ///< kTfliteAddSub: 20 for 8-bit types
  RequantParams m1{}, m2{};      ///< kTfliteAddSub input multipliers
  RequantParams mo{};            ///< kTfliteAddSub output multiplier; kIntMul's multiplier
  std::int32_t xnn_a = 0, xnn_b = 0, xnn_shift = 12;  ///< kXnnpackAddSub
  float scale = 1.0f;            ///< kFloatMul
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
