// INTERNAL: which ISA paths of include/qparity/isa_list.h a CPU supports, from each path's CPU
// features, and the order of the AMX permission request. Pure functions of their
// inputs so that the tests can check them on feature sets this machine does not have (an AMX CPU
// whose kernel refuses the permission, an AVX-VNNI CPU without AVX-512, ...).
#pragma once

#include "kernels/dispatch/cpu_features.h"
#include "qparity/isa.h"

namespace qparity {
namespace internal {

/// The CPU features an ISA adds to its parent's (the "cpu features" column of isa_list.h).
inline const char* isa_own_cpu_features(Isa isa) {
  switch (isa) {
#define QPARITY_ISA_FEATURES(Id, name, bit, Parent, arch, flags, features, description) \
  case Isa::k##Id: return features;
    QPARITY_ISA_LIST(QPARITY_ISA_FEATURES)
#undef QPARITY_ISA_FEATURES
  }
  return "";
}

/// Every path `f` supports (scalar always), not restricted to compiled_isas(): a path is supported
/// when its parent is and `f` has the features it adds (isa_list.h). The CpuFeatures flags already
/// include the OS state for YMM and ZMM; the AMX tile state is f.os_amx, and `amx_permitted` is
/// the outcome of amx_permission_granted() (amx_permission.h).
inline IsaMask isa_levels(const CpuFeatures& f, bool amx_permitted) {
  IsaMask m = mask_of(Isa::kScalar);
  for (Isa isa : all_isas()) {  // parents come first: a parent's bit is lower (isa.cc checks)
    if (isa == Isa::kScalar || (m & mask_of(parent_of(isa))) == 0) continue;
    if (f.has_all(isa_own_cpu_features(isa), amx_permitted)) m |= mask_of(isa);
  }
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
