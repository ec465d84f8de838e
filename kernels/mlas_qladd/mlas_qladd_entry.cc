// The entry of kernels/entries/qparity_internal/mlas_qladd.h: the mlas_qladd family's registry
// lookup and the tile-pool split the tools library cannot reach itself (it does not include
// kernels/).
#include <string>

#include "kernels/mlas_qladd/mlas_qladd_kernel.h"
#include "qparity/error.h"

namespace qparity {
namespace internal {
namespace mlas_qladd {

RunFn kernel(Isa isa, bool is_signed) {
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw InvalidArgument(std::string("qparity: isa = ") + to_string(isa) +
                          " is not supported on this CPU or not compiled in (mlas_qladd kernels)");
  }
  const MlasQladdKernelSet* set = kernels_for<MlasQladdFamily>(isa);
  if (set == nullptr || set->run_u8 == nullptr || set->run_s8 == nullptr) {
    throw InvalidArgument(
        "qparity: no mlas_qladd kernels for this ISA (the build lacks the scalar file)");
  }
  return is_signed ? set->run_s8 : set->run_u8;
}

Isa kernel_isa(Isa isa) {
  Isa served = Isa::kScalar;
  serving_isa<MlasQladdFamily>(isa, &served);
  return served;
}

}  // namespace mlas_qladd
}  // namespace internal
}  // namespace qparity
