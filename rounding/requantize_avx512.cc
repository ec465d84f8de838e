// The AVX-512 requantization path (flags: cmake/QparityFlags.cmake, QPARITY_ISA_FLAGS_avx512).
// The code is rounding/requantize_x86.h, compiled here in namespace qparity::internal::avx512.
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_ISA_NS avx512
#define QPARITY_ISA_LEVEL 3
#include "rounding/requantize_x86.h"

namespace qparity {
namespace internal {

RequantizeKernels requantize_kernels_avx512() { return avx512::make_kernels(); }

}  // namespace internal
}  // namespace qparity
