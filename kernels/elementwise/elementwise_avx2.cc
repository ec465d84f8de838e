// The AVX2 element-wise kernels (ISA avx2, include/qparity/isa_list.h):
// kernels/elementwise/elementwise_kernel_x86.h in namespace qparity::internal::ew_avx2.
#define QPARITY_ISA_NS ew_avx2
#include "kernels/elementwise/elementwise_kernel_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::ElementwiseFamily) {
  return qparity::internal::ew_avx2::kernel_set("avx2");
}
