// The AVX2 GEMM micro-kernels (ISA avx2, include/qparity/isa_list.h): the
// ymm instantiation of kernels/gemm/ukernel_madd_x86.h, in namespace qparity::internal::gemm_avx2.
//
// Tile shapes (16 ymm registers; one 16-column B panel group is two ymm):
//   exact 6x16:  12 accumulators + 2 B vectors + the A broadcast + 1 product temporary = 16.
//                Every VPMADDWD needs its own VPADDD, so the loop is bound by issuing both (plus
//                the broadcasts) rather than by the multiplier; 6x16 has the fewest extra
//                instructions per VPMADDWD that fits without spilling (7x16 spills, and 3x32
//                pays 4 B loads per group instead of 2). Measured fastest on Zen 4.
//   pairsat 4x16: 8 accumulators + 2 B + the ones vector + the A broadcast + temporaries: no spill.
//                Two multiplies (VPMADDUBSW, VPMADDWD) per vector make the multiplier the bound
//                for every shape that fits (4x16 .. 3x32 measure the same); 4 rows keeps the
//                M padding small. 6x16 would need 17 registers.
//   exact_narrow 1x32 (calls with M = 1, e.g. a batch-1 fully connected layer): 4 accumulators.
//                With one row every int16 B element feeds one VPMADDWD lane, so the loop only
//                streams B; 6x16 would spend 5/6 of its multiplies on padding rows. Measured on
//                Zen 4 (1 x 1000 x 1024, kernel only): 6x16 27 GOPS, 1x16 76, 1x32 77-81, 1x64
//                73-84, 2x32 67; 1x32 and 1x64 are equal within noise, 1x32 pads N less. The chains
//                are VPADDD's (1 cycle): no K split needed. nr = 32 is a multiple of 6x16's 16.
//   pairsat_narrow 1x32 (pair_saturate_narrow, calls with M <= 4): as exact_narrow, for the
//                pair-saturating model (4x16 computes 3 padding rows for one).
#define QPARITY_GEMM_ISA_NS gemm_avx2
#include "kernels/gemm/ukernel_madd_x86.h"

namespace qparity {
namespace internal {

namespace {
UkernelSet ukernel_set() {
  using gemm_avx2::madd_ukernel;
  UkernelSet s;
  s.exact = Ukernel{"avx2-pairs16-6x16", PackFormat::kPairs16, Arithmetic::kExact, 6, 16,
                    &madd_ukernel<gemm_avx2::ExactPairs16, 6, 16>, nullptr};
  s.exact_narrow = Ukernel{"avx2-pairs16-1x32", PackFormat::kPairs16, Arithmetic::kExact, 1, 32,
                           &madd_ukernel<gemm_avx2::ExactPairs16, 1, 32>, nullptr};
  s.pair_saturate = Ukernel{"avx2-dot4-pairsat-4x16", PackFormat::kDot4,
                            Arithmetic::kPairSaturate16, 4, 16,
                            &madd_ukernel<gemm_avx2::PairSat16, 4, 16>, nullptr};
  s.pair_saturate_narrow = Ukernel{"avx2-dot4-pairsat-1x32", PackFormat::kDot4,
                                   Arithmetic::kPairSaturate16, 1, 32,
                                   &madd_ukernel<gemm_avx2::PairSat16, 1, 32>, nullptr};
  return s;
}
}  // namespace

}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelFamily) { return qparity::internal::ukernel_set(); }
