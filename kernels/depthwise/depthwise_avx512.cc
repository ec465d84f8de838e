// The AVX-512BW depthwise kernels (ISA avx512, include/qparity/isa_list.h): the instantiation of
// kernels/depthwise/depthwise_kernel_body.h in namespace qparity::internal::dw_avx512.
#define QPARITY_DW_ISA_NS dw_avx512
#include "kernels/depthwise/depthwise_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::DepthwiseFamily) {
  return qparity::internal::dw_avx512::kernel_set("avx512");
}
