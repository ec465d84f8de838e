// INTERNAL, not installed: the entry of the library's MlasQLinearAdd kernels (kernels/mlas_qladd/)
// that the tools library (tools/model/ops/elementwise.cc, ADD under the onnxruntime presets) calls.
//
// The kernels compute, element by element, the formula of ONNX Runtime's AVX2 QLinearAdd kernel
// (MlasQLinearAddKernelAvx2Helper, onnxruntime/core/mlas/lib/intrinsics/avx2/qladd_avx2.cpp;
// docs/semantics.md §22.2) from parameters the caller derived once:
//
//   v    = fma(float(x1[i]), r1, fma(float(x2[i]), r2, fixed))   (x2 != null)
//   v    = fma(float(x1[i]), r1, fixed)                           (x2 == null: a one-element x2
//                                                                  already folded into fixed)
//   y[i] = clamp(cvtps2dq(v), type's range)   cvtps2dq: round half to even, INT32_MIN outside int32
//                                             or NaN; the clamp is MLAS's two saturating packs
//
// Every operation is one float32 rounding (the FMAs fused), so the bits depend on no ISA: every
// kernel gives the scalar one's (tests/model/mlas_qladd_kernel_test.cc, all 256 x 256 pairs). The
// elements are independent, so any split of [0, n) gives the same bits.
//
// A kernel family of the ISA registry (kernels/mlas_qladd/mlas_qladd_kernel.h): one file per ISA,
// chosen by the same dispatch (active_isa(), QPARITY_ISA, set_isa_mask_for_testing) as the rest.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qparity/isa.h"

namespace qparity {
namespace internal {
namespace mlas_qladd {

/// The per-call constants of the formula above.
struct Params {
  float r1 = 0.0f;
  float r2 = 0.0f;
  float fixed = 0.0f;
};

/// y[0, n) from x1[0, n) and x2[0, n) (x2 null: the one-element form). Signed: int8 tensors, else
/// uint8. y may alias neither input.
using RunFn = void (*)(const void* x1, const void* x2, std::size_t n, const Params& p, void* y);

/// The kernel that serves `isa` for int8 (is_signed) or uint8 (its own file, else the nearest
/// ancestor's: scalar at worst). Throws qparity::InvalidArgument when this CPU does not support
/// `isa` or the build lacks it.
RunFn kernel(Isa isa, bool is_signed);

/// The ISA whose file kernel(isa, ...) runs.
Isa kernel_isa(Isa isa);

}  // namespace mlas_qladd
}  // namespace internal
}  // namespace qparity
