// The AVX-512BW GEMM micro-kernels without VNNI (ISA avx512, include/qparity/isa_list.h): the zmm instantiation of kernels/gemm/ukernel_madd_x86.h, in
// namespace qparity::internal::gemm_avx512.
//
// Tile shape 12x32 for both (32 zmm registers; one 16-column B panel group is one zmm):
//   24 accumulators + 2 B vectors + the A broadcast + temporaries (+ the ones vector for
//   pair-saturate) fit without spilling. Each B load then feeds 12 rows, which keeps the loop
//   bound by the vector pipes even when the B panels stream from L2 (large K blocks): measured on
//   Zen 4, 12x32 is the fastest exact shape (8x32 is a few percent behind, 16- and 64-column
//   tiles clearly slower); the pair-saturating kernel, bound by its two multiplies per vector,
//   measures the same for every shape that fits.
//
// Narrow exact tile 1x64 (exact_narrow, calls with M = 1, e.g. a batch-1 fully connected layer):
//   with one row every int16 B element feeds one VPMADDWD lane, so the loop only streams B (2
//   bytes per product); 12x32 would spend 11/12 of its multiplies on padding rows. Measured on
//   Zen 4 (1 x 1000 x 1024, kernel only): 12x32 15 GOPS, 1x16 78, 1x32 83, 1x64 86, 1x128 84,
//   2x64 75 (so 2 rows, which would also serve M = 2, cost M = 1 ~13%). The dependency chains are
//   VPADDD's (1 cycle), so 4 accumulators need no K split. nr = 64 is a multiple of 12x32's 32.
// Narrow pair-saturating tile 1x64 (pair_saturate_narrow, calls with M <= 4): the same reason as
//   exact_narrow; 12x32 computes 11 padding rows for one. Measured on Zen 4 (1 x 1000 x 1024,
//   DR-AZ, the whole call): 12x32 18 GOPS; the avx2 set's 4x16 48.
// One-panel exact tile 12x16 (exact_one_panel): the exact tile's 12 rows over the last column
//   block of a tile when it has at most 16 valid columns (N = 16, the last 16 of N = 144), where
//   12x32 would spend half its multiplies on a padding panel.
#define QPARITY_GEMM_ISA_NS gemm_avx512
#include "kernels/gemm/ukernel_madd_x86.h"

namespace qparity {
namespace internal {

namespace {
UkernelSet ukernel_set() {
  using gemm_avx512::madd_ukernel;
  UkernelSet s;
  s.exact = Ukernel{"avx512-pairs16-12x32", PackFormat::kPairs16, Arithmetic::kExact, 12, 32,
                    &madd_ukernel<gemm_avx512::ExactPairs16, 12, 32>, nullptr};
  s.exact_narrow = Ukernel{"avx512-pairs16-1x64", PackFormat::kPairs16, Arithmetic::kExact, 1, 64,
                           &madd_ukernel<gemm_avx512::ExactPairs16, 1, 64>, nullptr};
  s.exact_one_panel = Ukernel{"avx512-pairs16-12x16", PackFormat::kPairs16, Arithmetic::kExact,
                              12, 16, &madd_ukernel<gemm_avx512::ExactPairs16, 12, 16>, nullptr};
  s.pair_saturate = Ukernel{"avx512-dot4-pairsat-12x32", PackFormat::kDot4,
                            Arithmetic::kPairSaturate16, 12, 32,
                            &madd_ukernel<gemm_avx512::PairSat16, 12, 32>, nullptr};
  s.pair_saturate_narrow = Ukernel{"avx512-dot4-pairsat-1x64", PackFormat::kDot4,
                                   Arithmetic::kPairSaturate16, 1, 64,
                                   &madd_ukernel<gemm_avx512::PairSat16, 1, 64>, nullptr};
  return s;
}
}  // namespace

}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelFamily) { return qparity::internal::ukernel_set(); }
