// No AMX GEMM micro-kernels yet: the driver falls back to the AVX-512 VNNI kernels on AMX CPUs.
#include "kernels/gemm/gemm_ukernel.h"

namespace qparity {
namespace internal {

UkernelSet gemm_ukernels_amx() { return UkernelSet{}; }

}  // namespace internal
}  // namespace qparity
