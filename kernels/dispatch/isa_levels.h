// INTERNAL: which ISA paths of include/qparity/isa.h a CPU supports, i.e. the definition of each
// path in CPUID/XCR0 terms and the order of the AMX permission request. Pure functions of their
// inputs so that the tests can check them on feature sets this machine does not have (an AMX CPU
// whose kernel refuses the permission, an AVX-VNNI CPU without AVX-512, ...).
#pragma once

#include "kernels/dispatch/cpu_features.h"
#include "qparity/isa.h"

namespace qparity {
namespace internal {

/// Every path `f` supports (scalar always), not restricted to compiled_isas(). The CpuFeatures
/// flags already include the OS state for YMM and ZMM; the AMX tile state is f.os_amx, and
/// `amx_permitted` is the outcome of amx_permission_granted() (amx_permission.h).
inline IsaMask isa_levels(const CpuFeatures& f, bool amx_permitted) {
  const bool avx2 = f.avx2 && f.bmi2;
  const bool avxvnni = avx2 && f.avxvnni;
  const bool avx512 = avx2 && f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl;
  const bool avx512vnni = avx512 && f.avx512vnni;
  const bool amx = avx512vnni && f.amx_tile && f.amx_int8 && f.os_amx && amx_permitted;
  IsaMask m = mask_of(Isa::kScalar);
  if (f.sse41) m |= mask_of(Isa::kSse41);
  if (avx2) m |= mask_of(Isa::kAvx2);
  if (avxvnni) m |= mask_of(Isa::kAvxVnni);
  if (avx512) m |= mask_of(Isa::kAvx512);
  if (avx512vnni) m |= mask_of(Isa::kAvx512Vnni);
  if (amx) m |= mask_of(Isa::kAmx);
  return m;
}

/// supported_isas() from its inputs: the paths of `compiled` that `f` supports, kAmx only if
/// request_amx_permission() returns true. It is called only when the permission is the one thing
/// kAmx still lacks (AMX compiled, CPUID and XCR0 report it), because the request has
/// process-wide effects (amx_permission.h).
template <class RequestAmxPermission>
IsaMask supported_isa_levels(const CpuFeatures& f, IsaMask compiled,
                             RequestAmxPermission&& request_amx_permission) {
  const IsaMask without_amx = isa_levels(f, /*amx_permitted=*/false) & compiled;
  const IsaMask with_amx = isa_levels(f, /*amx_permitted=*/true) & compiled;
  if (with_amx != without_amx && request_amx_permission()) return with_amx;
  return without_amx;
}

}  // namespace internal
}  // namespace qparity
