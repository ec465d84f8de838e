// The AVX2 pooling kernels (ISA avx2, include/qparity/isa_list.h): the instantiation of
// kernels/pooling/pooling_kernel_body.h in namespace qparity::internal::pool_avx2.
#define QPARITY_POOL_ISA_NS pool_avx2
#include "kernels/pooling/pooling_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::PoolingFamily) {
  return qparity::internal::pool_avx2::kernel_set("avx2");
}
