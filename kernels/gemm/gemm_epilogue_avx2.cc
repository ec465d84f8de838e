// The fused GEMM epilogue on AVX2 (ISA avx2, include/qparity/isa_list.h):
// kernels/gemm/gemm_epilogue_x86.h in namespace qparity::internal::gemm_epi_avx2. Serves the avx2
// and avxvnni paths (whose requantization kernels are the AVX2 ones).
#define QPARITY_ISA_NS gemm_epi_avx2
#include "kernels/gemm/gemm_epilogue_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::GemmEpilogueFamily) {
  return qparity::internal::gemm_epi_avx2::make_epilogue_isa();
}
