// AVX-VNNI GEMM micro-kernels: the VEX-encoded 256-bit VPDPBUSD over the kDot4 format (exact),
// for CPUs with AVX-VNNI but no AVX-512 (Alder Lake and later client cores, Sierra Forest). The
// pair-saturating arithmetic has no VNNI form: the driver uses the AVX2 kernel for it.
//
// Both kernels (6x16, and 1x32 for calls with one row) are the template of
// kernels/gemm/ukernel_dot4_ymm.h, which is also tested through its EVEX instantiation on AVX-512
// VNNI CPUs without AVX-VNNI (Zen 4, Ice Lake), where this file's code cannot run.
#define QPARITY_GEMM_ISA_NS gemm_avxvnni

#include <immintrin.h>

#include "kernels/gemm/gemm_ukernel.h"
#include "kernels/gemm/ukernel_dot4_ymm.h"

#if !defined(__AVXVNNI__)
#error "ukernel_avxvnni.cc must be compiled with -mavxvnni"
#endif

namespace qparity {
namespace internal {
namespace gemm_avxvnni {
namespace {

/// The VEX encoding of the 256-bit VPDPBUSD.
struct VexDpbusd {
  static __m256i dpbusd(__m256i acc, __m256i a_u8, __m256i b_s8) {
    return _mm256_dpbusd_avx_epi32(acc, a_u8, b_s8);
  }
};

}  // namespace
}  // namespace gemm_avxvnni

namespace {
UkernelSet ukernel_set() {
  using namespace gemm_avxvnni;
  static_assert(kDot4YmmMr == 6 && kDot4YmmPanels == 1, "update the kernel name");
  static_assert(kDot4YmmNarrowMr == 1 && kDot4YmmNarrowPanels == 2, "update the kernel name");
  UkernelSet s;
  s.exact = Ukernel{"avxvnni-dot4-6x16", PackFormat::kDot4, Arithmetic::kExact, kDot4YmmMr,
                    kDot4YmmPanels * kPanelCols,
                    &dot4_exact_ymm<VexDpbusd, kDot4YmmMr, kDot4YmmPanels, 1>, nullptr};
  s.exact_narrow = Ukernel{"avxvnni-dot4-1x32", PackFormat::kDot4, Arithmetic::kExact,
                           kDot4YmmNarrowMr, kDot4YmmNarrowPanels * kPanelCols,
                           &dot4_exact_ymm<VexDpbusd, kDot4YmmNarrowMr, kDot4YmmNarrowPanels,
                                           kDot4YmmNarrowKSplit>,
                           nullptr};
  return s;  // pair_saturate absent: VPDPBUSD cannot saturate pairs (use the AVX2 kernel)
}
}  // namespace

}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelFamily) { return qparity::internal::ukernel_set(); }
