// The SSE4.1 requantization path (its flags: include/qparity/isa_list.h).
// The code is rounding/requantize_x86.h, compiled here in namespace qparity::internal::sse41.
#define QPARITY_ISA_NS sse41
#include "rounding/requantize_x86.h"

QPARITY_DEFINE_KERNELS(qparity::internal::RequantizeFamily) {
  return qparity::internal::sse41::requantize_kernel_table();
}
