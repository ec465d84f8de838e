// INTERNAL: the one place that maps (ISA, operation) to kernels. Not installed.
//
// A *kernel family* is an operation's set of per-ISA kernels behind one contract (a struct of
// function pointers and shapes): the requantization kernels, the GEMM micro-kernels, the fused
// GEMM epilogue, the depthwise kernels... A family is a tag type with its contract and the ISAs
// that have a file for it:
//             struct MyFamily {
//               using Kernels = MyKernels;
//               static constexpr const char* kName = "my family";
//               static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_MyFamily;
//             };
// and each per-ISA file defines its kernels by specializing make_kernels for its own ISA, on a line
// of its own at global scope:
//             QPARITY_DEFINE_KERNELS(qparity::internal::MyFamily) { return MyKernels{...}; }
// CMake compiles the per-ISA files of a path pattern (qparity_kernel_files("kernels/my/my_@ISA@.cc"),
// cmake/QparityIsas.cmake) with their ISA's flags, finds those lines and generates
// QPARITY_KERNEL_ISAS_<Family> (qparity_build_isas.h); QPARITY_TARGET_ISA comes from CMake too, so
// the same file body can serve several ISAs.
//
// Lookups walk the ISA list's parent chain (isa_list.h): an ISA without a file of its own for a
// family is served by its parent's kernels, and so on up to scalar. Adding an ISA therefore needs
// no edit here, and adding a family needs no edit to the ISAs.
//
// The getters are compiled with their ISA's flags and may use its instructions even to build the
// returned struct: the registry calls one only for an ISA the caller has checked is supported.
#pragma once

#include "qparity/isa.h"
#include "qparity_build_isas.h"

namespace qparity {
namespace internal {

/// The kernels of `Family` for ISA `I`, defined (specialized) in the family's file for I.
template <class Family, Isa I>
typename Family::Kernels make_kernels();

/// Defines the current ISA translation unit's kernels of `Family` (a function body follows).
#define QPARITY_DEFINE_KERNELS(Family)                                            \
  template <>                                                                     \
  typename Family::Kernels qparity::internal::make_kernels<Family, ::qparity::Isa::QPARITY_TARGET_ISA>()

namespace registry_detail {

template <class Family, Isa I>
const typename Family::Kernels* cached() {
  if constexpr ((Family::kIsas & mask_of(I)) != 0) {
    static const typename Family::Kernels kernels = make_kernels<Family, I>();
    return &kernels;
  } else {
    return nullptr;
  }
}

}  // namespace registry_detail

/// The kernels `isa` itself provides for `Family` (its own file), or null. `isa` must be supported
/// by the CPU when it has a file.
template <class Family>
const typename Family::Kernels* own_kernels(Isa isa) {
  switch (isa) {
#define QPARITY_REGISTRY_CASE(Id, name, bit, Parent, arch, flags, features, description) \
  case Isa::k##Id: return registry_detail::cached<Family, Isa::k##Id>();
    QPARITY_ISA_LIST(QPARITY_REGISTRY_CASE)
#undef QPARITY_REGISTRY_CASE
  }
  return nullptr;
}

/// Whether `isa` has its own file for `Family`.
template <class Family>
constexpr bool has_own_kernels(Isa isa) {
  return (Family::kIsas & mask_of(isa)) != 0;
}

/// The ISA whose kernels serve `isa` for `Family`: `isa` itself if it has a file, else the nearest
/// ancestor that has one. Returns false (and leaves *out alone) if no ancestor, not even scalar,
/// has one (a family without a portable kernel, e.g. an epilogue that only SIMD paths fuse).
template <class Family>
bool serving_isa(Isa isa, Isa* out) {
  for (Isa i = isa;; i = parent_of(i)) {
    if (has_own_kernels<Family>(i)) {
      *out = i;
      return true;
    }
    if (i == Isa::kScalar) return false;
  }
}

/// The kernels that serve `isa` for `Family` (see serving_isa), or null.
template <class Family>
const typename Family::Kernels* kernels_for(Isa isa) {
  Isa served{};
  return serving_isa<Family>(isa, &served) ? own_kernels<Family>(served) : nullptr;
}

}  // namespace internal
}  // namespace qparity
