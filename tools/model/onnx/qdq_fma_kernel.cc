// The dispatch of qdq_fma_kernel.h: the per-ISA paths exist on x86 builds (QPARITY_QDQ_FMA_X86,
// tools/model/CMakeLists.txt); __builtin_cpu_supports also checks that the OS saves the vector state.
#include "model/onnx/qdq_fma_kernel.h"

namespace qparity::model::qdq_fma {

#if defined(QPARITY_QDQ_FMA_X86)
void run_avx512(const Block& block);
void run_avx2(const Block& block);

bool isa_available(Isa isa) {
  switch (isa) {
    case Isa::kNone:
      return true;
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }
  return false;
}

void run(Isa isa, const Block& block) {
  if (isa == Isa::kAvx512) {
    run_avx512(block);
  } else if (isa == Isa::kAvx2) {
    run_avx2(block);
  }
}
#else
bool isa_available(Isa isa) { return isa == Isa::kNone; }
void run(Isa, const Block&) {}
#endif

Isa best_isa() {
  static const Isa best = isa_available(Isa::kAvx512) ? Isa::kAvx512
                          : isa_available(Isa::kAvx2) ? Isa::kAvx2
                                                      : Isa::kNone;
  return best;
}

}  // namespace qparity::model::qdq_fma
