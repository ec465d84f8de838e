// The AVX2 depthwise kernels (ISA avx2, include/qparity/isa_list.h): the instantiation of
// kernels/depthwise/depthwise_kernel_body.h in namespace qparity::internal::dw_avx2.
#define QPARITY_DW_ISA_NS dw_avx2
#include "kernels/depthwise/depthwise_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::DepthwiseFamily) {
  return qparity::internal::dw_avx2::kernel_set("avx2");
}
