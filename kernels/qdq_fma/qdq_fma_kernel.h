// INTERNAL: the unfused-QDQ float32 kernel family (the contract and the block are
// kernels/entries/qparity_internal/qdq_fma.h, the tools' entry). Not installed.
//
// One file per ISA, kernels/qdq_fma/qdq_fma_<isa>.cc, built with that ISA's flags
// (include/qparity/isa_list.h; every x86 SIMD level from avx2 up includes FMA):
//   scalar   the contract's loops with std::fma, lane by lane (the portable kernel and the form the
//            SIMD kernels are tested against, tests/onnx/qdq_fma_kernel_test.cc)
//   avx2     qdq_fma_kernel_body.h on 8-lane ymm vectors, up to 4 pixels x 2 vectors per tile
//   avx512   qdq_fma_kernel_body.h on 16-lane zmm vectors, up to 6 pixels x 4 vectors per tile
// sse41 runs the scalar kernel, avxvnni the AVX2 one and avx512vnni / amx the AVX-512 one
// (kernel_registry.h's parent chain): none of their instructions helps a float FMA. An aarch64
// NEON kernel would be one more file, qdq_fma_neon.cc, with no edit here.
#pragma once

#include "kernels/registry/kernel_registry.h"
#include "qparity_internal/qdq_fma.h"

namespace qparity {
namespace internal {

/// What one ISA translation unit provides.
struct QdqFmaKernelSet {
  const char* isa_name = nullptr;
  qdq_fma::RunFn run = nullptr;
};

/// The unfused-QDQ float32 kernel family (kernels/registry/kernel_registry.h).
struct QdqFmaFamily {
  using Kernels = QdqFmaKernelSet;
  static constexpr const char* kName = "qdq_fma";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_QdqFmaFamily;
};

}  // namespace internal
}  // namespace qparity
