// The entry of kernels/entries/qparity_internal/qdq_fma.h: the qdq_fma family's registry lookup
// and the tile-pool split the tools library cannot reach itself (it does not include kernels/).
#include <string>

#include "kernels/qdq_fma/qdq_fma_kernel.h"
#include "qparity/error.h"

namespace qparity {
namespace internal {
namespace qdq_fma {

RunFn kernel(Isa isa) {
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw InvalidArgument(std::string("qparity: isa = ") + to_string(isa) +
                          " is not supported on this CPU or not compiled in (qdq_fma kernels)");
  }
  const QdqFmaKernelSet* set = kernels_for<QdqFmaFamily>(isa);
  if (set == nullptr || set->run == nullptr) {
    throw InvalidArgument("qparity: no qdq_fma kernels for this ISA (the build lacks the scalar file)");
  }
  return set->run;
}

Isa kernel_isa(Isa isa) {
  Isa served = Isa::kScalar;
  serving_isa<QdqFmaFamily>(isa, &served);
  return served;
}

}  // namespace qdq_fma
}  // namespace internal
}  // namespace qparity
