// The AVX2 requantization path (its flags: include/qparity/isa_list.h).
// The code is rounding/requantize_x86.h, compiled here in namespace qparity::internal::avx2.
#define QPARITY_ISA_NS avx2
#include "rounding/requantize_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::RequantizeFamily) {
  return qparity::internal::avx2::requantize_kernel_table();
}
