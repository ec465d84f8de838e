// The AVX-512 requantization path (its flags: include/qparity/isa_list.h).
// The code is rounding/requantize_x86.h, compiled here in namespace qparity::internal::avx512.
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_ISA_NS avx512
#include "rounding/requantize_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::RequantizeFamily) {
  return qparity::internal::avx512::requantize_kernel_table();
}
