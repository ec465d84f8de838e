// The AVX-512F + FMA unfused-QDQ float32 kernel (ISA avx512, include/qparity/isa_list.h): the
// instantiation of kernels/qdq_fma/qdq_fma_kernel_body.h in namespace
// qparity::internal::qdq_fma::fma_avx512.
#define QPARITY_QDQ_FMA_NS fma_avx512
#include "kernels/qdq_fma/qdq_fma_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::QdqFmaFamily) {
  return qparity::internal::QdqFmaKernelSet{"avx512", &qparity::internal::qdq_fma::fma_avx512::run_block};
}
