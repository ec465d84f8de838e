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
//
// The exact and the pair-saturating main kernels also come fused with their block's epilogue
// (gemm_epilogue.h, FusedFn; kernels/gemm/gemm_epilogue_x86.h compiled here at the AVX2 level in
// its own namespace) for every core but F32-ZPF (see fused_fns): the accumulators are
// requantized from registers instead of stored and read back by the separate epilogue.
#define QPARITY_GEMM_ISA_NS gemm_avx2
#define QPARITY_ISA_NS gemm_avx2_epi
#include "kernels/gemm/gemm_epilogue_x86.h"
#include "kernels/gemm/ukernel_madd_x86.h"

namespace qparity {
namespace internal {

namespace {
/// Kernel's fused forms, except F32-ZPF's: the fused 4x16 pair kernel lost to the separate
/// epilogue for it (its 8 vectors of bounds and zero point are copied through the stack on every
/// call by madd_body's local copy of the BlockVectors; read through a reference instead it won
/// 1.06-1.10, but clang then refused to unroll the fused loops under -Werror, so it is not in) (Xeon family 6 model 207 capped at AVX2, conv_bench best of 7, GOPS:
/// 112x112x32->64 1x1 64.5 -> 56.9, the halved-filter row 77.7 -> 63.4; 3x3 layers within
/// noise). The integer cores and F32 gain (DR-AZ 1x1 65.6 -> 70.0, 56x56x64->64 3x3 104 -> 112;
/// gemm_bench 3136x64x64 84.5 -> 90.9, pair-saturating 107.8 -> 113.7).
template <class Kernel>
FusedFns fused_fns(const EpilogueVariant& variant, bool saturated) {
  if (variant.is_float && variant.zero_point_inside) return FusedFns{};
  return gemm_avx2_epi::fused_fns_for<Kernel>(variant, saturated);
}

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
QPARITY_DEFINE_KERNELS(qparity::internal::GemmFusedFamily) {
  using namespace qparity::internal;
  GemmFusedKernels k;
  k.get = &fused_fns<gemm_avx2::MaddFusedKernel<gemm_avx2::ExactPairs16, 6, 16>>;
  k.get_pair_saturate = &fused_fns<gemm_avx2::MaddFusedKernel<gemm_avx2::PairSat16, 4, 16>>;
  k.lanes = 8;
  return k;
}
