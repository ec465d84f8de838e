// The AVX-512 pooling kernels (ISA avx512, include/qparity/isa_list.h): the instantiation of
// kernels/pooling/pooling_kernel_body.h in namespace qparity::internal::pool_avx512.
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_POOL_ISA_NS pool_avx512
#include "kernels/pooling/pooling_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::PoolingFamily) {
  return qparity::internal::pool_avx512::kernel_set("avx512");
}
