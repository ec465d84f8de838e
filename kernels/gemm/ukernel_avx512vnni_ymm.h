// INTERNAL, for tests: the 256-bit VPDPBUSD kernel (kernels/gemm/ukernel_dot4_ymm.h) instantiated
// with the EVEX encoding (AVX512-VNNI + VL). The driver never uses it (the zmm kernel of
// main avx512vnni set is faster); it exists so that the code shared with the AVX-VNNI
// kernel, which cannot run on the many AVX-512 VNNI CPUs without AVX-VNNI (Zen 4, Ice Lake), is
// tested on those CPUs too. Not installed.
#pragma once

#include "kernels/gemm/gemm_ukernel.h"

namespace qparity {
namespace internal {

/// exact, exact_narrow: the EVEX-ymm kDot4 kernels, same shapes as the AVX-VNNI set's;
/// pair_saturate: absent. A kernel family of its own (kernel_registry.h) so that the tests find it
/// where avx512vnni is compiled; use only on a CPU with AVX512-F/BW/DQ/VL and AVX512-VNNI.
struct GemmUkernelEvexYmmFamily {
  using Kernels = UkernelSet;
  static constexpr const char* kName = "gemm ukernel (EVEX ymm, for tests)";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_GemmUkernelEvexYmmFamily;
};

}  // namespace internal
}  // namespace qparity
