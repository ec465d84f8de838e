// The AVX-512 element-wise kernels (ISA avx512, include/qparity/isa_list.h):
// kernels/elementwise/elementwise_kernel_x86.h in namespace qparity::internal::ew_avx512.
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_ISA_NS ew_avx512
#include "kernels/elementwise/elementwise_kernel_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::ElementwiseFamily) {
  return qparity::internal::ew_avx512::kernel_set("avx512");
}
