// INTERNAL, for tests: the 256-bit VPDPBUSD kernel (kernels/gemm/ukernel_dot4_ymm.h) instantiated
// with the EVEX encoding (AVX512-VNNI + VL). The driver never uses it (the zmm kernel of
// gemm_ukernels_avx512vnni() is faster); it exists so that the code shared with the AVX-VNNI
// kernel, which cannot run on the many AVX-512 VNNI CPUs without AVX-VNNI (Zen 4, Ice Lake), is
// tested on those CPUs too. Not installed.
#pragma once

#include "kernels/gemm/gemm_ukernel.h"

namespace qparity {
namespace internal {

/// exact, exact_narrow: the EVEX-ymm kDot4 kernels, same shapes as gemm_ukernels_avxvnni()'s;
/// pair_saturate: absent. Call only when the CPU has AVX512-F/BW/DQ/VL and AVX512-VNNI.
UkernelSet gemm_ukernels_avx512vnni_ymm_for_testing();

}  // namespace internal
}  // namespace qparity
