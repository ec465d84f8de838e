// INTERNAL: the MlasQLinearAdd kernel family (the contract is
// kernels/entries/qparity_internal/mlas_qladd.h, the tools' entry). Not installed.
//
// One file per ISA, kernels/mlas_qladd/mlas_qladd_<isa>.cc, built with that ISA's flags
// (include/qparity/isa_list.h; every x86 SIMD level from avx2 up includes FMA):
//   scalar   the contract's formula with std::fma, element by element (the portable kernel)
//   avx2     8 elements per ymm vector: vfmadd231ps twice, vcvtps2dq, packssdw + packuswb/packsswb
//   avx512   16 elements per zmm vector: the same FMAs and vcvtps2dq, then a clamp at 0 (uint8) and
//            vpmovusdb / vpmovsdb (saturating narrowing: the packs' clamp in one step)
// sse41 runs the scalar kernel (no FMA), avxvnni the AVX2 one and avx512vnni / amx the AVX-512 one
// (kernel_registry.h's parent chain).
#pragma once

#include "kernels/registry/kernel_registry.h"
#include "qparity_internal/mlas_qladd.h"

namespace qparity {
namespace internal {

/// What one ISA translation unit provides.
struct MlasQladdKernelSet {
  const char* isa_name = nullptr;
  mlas_qladd::RunFn run_u8 = nullptr;
  mlas_qladd::RunFn run_s8 = nullptr;
};

/// The MlasQLinearAdd kernel family (kernels/registry/kernel_registry.h).
struct MlasQladdFamily {
  using Kernels = MlasQladdKernelSet;
  static constexpr const char* kName = "mlas_qladd";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_MlasQladdFamily;
};

}  // namespace internal
}  // namespace qparity
