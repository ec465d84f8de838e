// The SSE4.1 element-wise kernels (ISA sse41, include/qparity/isa_list.h):
// kernels/elementwise/elementwise_kernel_x86.h in namespace qparity::internal::ew_sse41.
#define QPARITY_ISA_NS ew_sse41
#include "kernels/elementwise/elementwise_kernel_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::ElementwiseFamily) {
  return qparity::internal::ew_sse41::kernel_set("sse41");
}
