// The fused GEMM epilogue on AVX-512 (ISA avx512, include/qparity/isa_list.h):
// kernels/gemm/gemm_epilogue_x86.h in namespace qparity::internal::gemm_epi_avx512. Serves the
// avx512, avx512vnni and amx paths (whose requantization kernels are the AVX-512 ones).
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_ISA_NS gemm_epi_avx512
#include "kernels/gemm/gemm_epilogue_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::GemmEpilogueFamily) {
  return qparity::internal::gemm_epi_avx512::make_epilogue_isa();
}
