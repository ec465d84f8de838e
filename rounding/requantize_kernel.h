// INTERNAL: the interface between the dispatcher (kernels/dispatch/requantize.cc) and the per-ISA
// requantization translation units (rounding/requantize_<isa>.cc), a kernel family of the
// registry. Not installed.
#pragma once

#include <cstdint>
#include <limits>

#include "kernels/registry/kernel_registry.h"
#include "qparity/requantize.h"

namespace qparity {
namespace internal {

/// A requantization kernel. Receives validated arguments with strides already resolved
/// (acc_row_stride and dst_row_stride non-zero) and rows * channels > 0.
template <class Out>
using RequantizeKernel = void (*)(const RequantizeArgs& args, Out* dst);

struct RequantizeKernels {
  RequantizeKernel<std::int8_t> to_int8 = nullptr;
  RequantizeKernel<std::uint8_t> to_uint8 = nullptr;
  RequantizeKernel<std::int16_t> to_int16 = nullptr;
  RequantizeKernel<std::int32_t> to_int32 = nullptr;

  template <class Out>
  RequantizeKernel<Out> get() const;
};

template <>
inline RequantizeKernel<std::int8_t> RequantizeKernels::get<std::int8_t>() const { return to_int8; }
template <>
inline RequantizeKernel<std::uint8_t> RequantizeKernels::get<std::uint8_t>() const { return to_uint8; }
template <>
inline RequantizeKernel<std::int16_t> RequantizeKernels::get<std::int16_t>() const { return to_int16; }
template <>
inline RequantizeKernel<std::int32_t> RequantizeKernels::get<std::int32_t>() const { return to_int32; }

/// The kernels that requantize for `isa` (requantize_kernel_isa(isa)'s set, the registry's
/// serving ISA), built on first use.
/// `isa` must be supported: each set's getter may use its ISA's instructions.
/// Defined in kernels/dispatch/requantize.cc; the GEMM epilogue uses it too.
const RequantizeKernels& requantize_kernels(Isa isa);

/// Whether `o` clamps to Out's whole range: the fused kernels (GEMM and depthwise quad) then take
/// their saturating output stage where their plan has one.
template <class Out>
bool clamps_to_whole_range(const OutputParams& o) {
  return o.qmin == std::numeric_limits<Out>::min() && o.qmax == std::numeric_limits<Out>::max();
}

/// The requantization kernel family (kernels/registry/kernel_registry.h): one file per ISA,
/// rounding/requantize_<isa>.cc, each built with that ISA's flags.
struct RequantizeFamily {
  using Kernels = RequantizeKernels;
  static constexpr const char* kName = "requantize";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_RequantizeFamily;
};

}  // namespace internal
}  // namespace qparity
