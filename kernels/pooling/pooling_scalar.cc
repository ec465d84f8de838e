// The portable pooling kernels (ISA scalar, include/qparity/isa_list.h): the instantiation of
// kernels/pooling/pooling_kernel_body.h in namespace qparity::internal::pool_scalar.
#define QPARITY_POOL_ISA_NS pool_scalar
#include "kernels/pooling/pooling_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::PoolingFamily) {
  return qparity::internal::pool_scalar::kernel_set("scalar");
}
