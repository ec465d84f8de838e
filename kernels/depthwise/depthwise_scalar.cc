// The portable depthwise kernels (ISA scalar, include/qparity/isa_list.h): the instantiation of
// kernels/depthwise/depthwise_kernel_body.h in namespace qparity::internal::dw_scalar.
#define QPARITY_DW_ISA_NS dw_scalar
#include "kernels/depthwise/depthwise_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::DepthwiseFamily) {
  return qparity::internal::dw_scalar::kernel_set("scalar");
}
