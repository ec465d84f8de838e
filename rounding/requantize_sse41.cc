// The SSE4.1 requantization path (flags: cmake/QparityFlags.cmake, QPARITY_ISA_FLAGS_sse41).
// The code is rounding/requantize_x86.h, compiled here in namespace qparity::internal::sse41.
#define QPARITY_ISA_NS sse41
#define QPARITY_ISA_LEVEL 1
#include "rounding/requantize_x86.h"

namespace qparity {
namespace internal {

RequantizeKernels requantize_kernels_sse41() { return sse41::make_kernels(); }

}  // namespace internal
}  // namespace qparity
