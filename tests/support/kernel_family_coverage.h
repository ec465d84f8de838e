// The ISA-coverage checks every kernel family's test repeats (kernels/registry/kernel_registry.h:
// one translation unit per ISA, a forced-ISA entry, the run-time dispatch with its test override),
// written once. A family's test describes its dispatch in a KernelFamilyDispatch and calls
//   * check_family_covers_the_simd_levels(): the scalar file is built, and every compiled ISA is
//     served by a vector kernel except those the family serves with its scalar one;
//   * check_unsupported_isa_is_an_error(): the forced-ISA entry of every variant refuses every ISA
//     outside supported_isas() with InvalidArgument;
//   * for_each_forced_isa(): the dispatch forced to each supported ISA (set_isa_mask_for_testing)
//     lands on it, the entry hands out the kernel the registry holds for the ISA that serves it,
//     and the test body runs on it; the sweep fails unless it reached every supported ISA.
// Tried once by breaking things on purpose: avx2 dropped from a family's kIsas fails the first
// check (avx2 and avxvnni served by scalar), an entry that no longer checks the ISA the second, an
// entry handing out the wrong variant or a sweep that skips an ISA the third. (A skipped ISA is
// the case isa_coverage.h's guard cannot see: for_each_supported_isa records an ISA before the
// body runs.) See docs/architecture.md, "A kernel family".
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <vector>

#include "isa_coverage.h"
#include "kernels/registry/kernel_registry.h"
#include "qparity/isa.h"

namespace qparity_test {

/// One kernel of a family's per-ISA set (a family with u8 and s8 kernels has two).
template <class Family, class Fn>
struct KernelVariant {
  const char* name;             ///< for messages, e.g. "run_s8"
  Fn Family::Kernels::*member;  ///< where an ISA's own set holds it
  Fn (*forced)(qparity::Isa);   ///< the entry's forced-ISA lookup (throws unless supported)
};

/// What a kernel family's dispatch exposes to its test.
template <class Family, class Fn>
struct KernelFamilyDispatch {
  std::vector<KernelVariant<Family, Fn>> variants;
  /// The entry's answer to "whose kernels serve this ISA" (the registry's parent chain).
  qparity::Isa (*kernel_isa)(qparity::Isa);
  /// The compiled ISAs this family serves with its scalar kernels (none of their instructions
  /// helps it); every other compiled ISA must be served by a vector kernel.
  qparity::IsaMask scalar_served;
};

/// The mask of a list of ISAs.
qparity::IsaMask mask_of_isas(std::initializer_list<qparity::Isa> isas);

/// Forces the dispatch to `isa` (set_isa_mask_for_testing(isas_up_to(isa))), reads active_isa()
/// and lifts the override again; returns what the dispatch chose.
qparity::Isa active_isa_when_forced_to(qparity::Isa isa);

/// Every compiled ISA outside `scalar_served` is served (kernel_isa) by an ISA other than scalar,
/// and every one inside it by scalar.
void check_serving_levels(const char* family, const std::function<qparity::Isa(qparity::Isa)>& kernel_isa,
                          qparity::IsaMask scalar_served);

/// `forced(isa)` throws qparity::InvalidArgument for every ISA outside supported_isas().
void check_refuses_unsupported(const char* family, const char* variant,
                               const std::function<void(qparity::Isa)>& forced);

/// A forced-ISA sweep reached every supported ISA: `forced` holds the ISAs whose body ran.
void check_every_supported_isa_forced(const char* family, const char* variant, qparity::IsaMask forced);

template <class Family, class Fn>
void check_family_covers_the_simd_levels(const KernelFamilyDispatch<Family, Fn>& d) {
  ASSERT_FALSE(d.variants.empty()) << Family::kName;
  const typename Family::Kernels* scalar = qparity::internal::own_kernels<Family>(qparity::Isa::kScalar);
  ASSERT_NE(scalar, nullptr) << "the build lacks the " << Family::kName << " family's scalar file";
  for (const KernelVariant<Family, Fn>& v : d.variants) {
    EXPECT_NE(scalar->*v.member, nullptr) << Family::kName << ": the scalar set lacks " << v.name;
  }
  check_serving_levels(Family::kName, d.kernel_isa, d.scalar_served);
}

template <class Family, class Fn>
void check_unsupported_isa_is_an_error(const KernelFamilyDispatch<Family, Fn>& d) {
  ASSERT_FALSE(d.variants.empty()) << Family::kName;
  for (const KernelVariant<Family, Fn>& v : d.variants) {
    check_refuses_unsupported(Family::kName, v.name, [&](qparity::Isa isa) { v.forced(isa); });
  }
}

/// Calls f(isa, kernel) for every supported ISA, lowest first, with the dispatch forced to it: the
/// kernel is the entry's forced(active_isa()) under set_isa_mask_for_testing(isas_up_to(isa)),
/// checked to be `variant`'s member of the own set of the ISA that serves isa. Fails if the
/// dispatch lands elsewhere, the entry hands out another kernel, or some supported ISA was
/// skipped. Each ISA is recorded for the coverage guard (isa_coverage.h).
template <class Family, class Fn, class F>
void for_each_forced_isa(const KernelFamilyDispatch<Family, Fn>& d, std::size_t variant, F&& f) {
  ASSERT_LT(variant, d.variants.size()) << Family::kName;
  const KernelVariant<Family, Fn>& v = d.variants[variant];
  qparity::IsaMask forced = 0;
  for_each_supported_isa([&](qparity::Isa isa) {
    const qparity::Isa active = active_isa_when_forced_to(isa);
    // isas_up_to(isa) also allows unsupported ISAs below isa (avxvnni under avx512 on a Zen 4),
    // never one above it: the dispatch lands on isa itself.
    ASSERT_EQ(active, isa) << Family::kName << " " << v.name << ": forced to " << qparity::to_string(isa)
                           << ", the dispatch chose " << qparity::to_string(active) << " (QPARITY_ISA set?)";
    const Fn kernel = v.forced(active);
    const qparity::Isa served = d.kernel_isa(isa);
    const typename Family::Kernels* own = qparity::internal::own_kernels<Family>(served);
    ASSERT_NE(own, nullptr) << Family::kName << ": " << qparity::to_string(isa) << " served by "
                            << qparity::to_string(served) << ", which has no kernels";
    ASSERT_NE(kernel, nullptr) << Family::kName << " " << v.name << ": " << qparity::to_string(isa);
    ASSERT_EQ(kernel, own->*v.member) << Family::kName << " " << v.name << ": " << qparity::to_string(isa);
    forced |= qparity::mask_of(isa);
    f(isa, kernel);
  });
  check_every_supported_isa_forced(Family::kName, v.name, forced);
}

}  // namespace qparity_test
