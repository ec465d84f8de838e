// The AVX2 requantization path (flags: cmake/QparityFlags.cmake, QPARITY_ISA_FLAGS_avx2).
// The code is rounding/requantize_x86.h, compiled here in namespace qparity::internal::avx2.
#define QPARITY_ISA_NS avx2
#define QPARITY_ISA_LEVEL 2
#include "rounding/requantize_x86.h"

namespace qparity {
namespace internal {

RequantizeKernels requantize_kernels_avx2() { return avx2::make_kernels(); }

}  // namespace internal
}  // namespace qparity
