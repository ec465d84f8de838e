// ISA bookkeeping: what is compiled, what the CPU supports, and the overrides.
#include "qparity/isa.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "kernels/dispatch/amx_permission.h"
#include "kernels/dispatch/cpu_features.h"
#include "kernels/dispatch/isa_levels.h"
#include "qparity/error.h"
#include "qparity_build_isas.h"

namespace qparity {
namespace {

// The ISAs this build compiles (cmake/QparityIsas.cmake: the list's entries for this processor,
// restricted by the QPARITY_ISAS option).
constexpr IsaMask kCompiled = QPARITY_COMPILED_ISA_MASK | mask_of(Isa::kScalar);

// isa_levels() visits ISAs lowest bit first and relies on each parent being visited before its
// children.
#define QPARITY_CHECK_PARENT(Id, name, bit, Parent, arch, flags, features, description) \
  static_assert(Isa::k##Id == Isa::kScalar || mask_of(Isa::k##Parent) < mask_of(Isa::k##Id), \
                "isa_list.h: the parent of " #name " must have a lower bit");
QPARITY_ISA_LIST(QPARITY_CHECK_PARENT)
#undef QPARITY_CHECK_PARENT

std::atomic<IsaMask> g_test_mask{0};

IsaMask detect_supported() {
  return internal::supported_isa_levels(internal::cpu_features(), kCompiled,
                                        internal::amx_permission_granted);
}

// Every ISA up to and including the one named by QPARITY_ISA (all of them when unset).
IsaMask environment_cap() {
  const char* env = std::getenv("QPARITY_ISA");
  if (env == nullptr || *env == '\0') return ~IsaMask{0};
  return isas_up_to(isa_from_string(env));  // throws InvalidArgument for an unknown name
}

IsaMask highest_bit(IsaMask m) {
  IsaMask h = 1;
  while (m >>= 1) h <<= 1;
  return h;
}

}  // namespace

const std::vector<Isa>& all_isas() {
  static const std::vector<Isa> v = {
#define QPARITY_ISA_VALUE(Id, name, bit, Parent, arch, flags, features, description) Isa::k##Id,
      QPARITY_ISA_LIST(QPARITY_ISA_VALUE)
#undef QPARITY_ISA_VALUE
  };
  return v;
}

const char* to_string(Isa isa) {
  switch (isa) {
#define QPARITY_ISA_NAME(Id, name, bit, Parent, arch, flags, features, description) \
  case Isa::k##Id: return #name;
    QPARITY_ISA_LIST(QPARITY_ISA_NAME)
#undef QPARITY_ISA_NAME
  }
  return "?";
}

Isa parent_of(Isa isa) {
  switch (isa) {
#define QPARITY_ISA_PARENT(Id, name, bit, Parent, arch, flags, features, description) \
  case Isa::k##Id: return Isa::k##Parent;
    QPARITY_ISA_LIST(QPARITY_ISA_PARENT)
#undef QPARITY_ISA_PARENT
  }
  return Isa::kScalar;
}

const char* description(Isa isa) {
  switch (isa) {
#define QPARITY_ISA_DESCRIPTION(Id, name, bit, Parent, arch, flags, features, text) \
  case Isa::k##Id: return text;
    QPARITY_ISA_LIST(QPARITY_ISA_DESCRIPTION)
#undef QPARITY_ISA_DESCRIPTION
  }
  return "?";
}

std::string isa_names(IsaMask mask, const char* separator) {
  std::string out;
  for (Isa isa : all_isas()) {
    if ((mask & mask_of(isa)) == 0) continue;
    if (!out.empty()) out += separator;
    out += to_string(isa);
  }
  return out;
}

Isa isa_from_string(const std::string& name) {
  for (Isa isa : all_isas()) {
    if (name == to_string(isa)) return isa;
  }
  throw InvalidArgument("qparity: ISA '" + name + "' is unknown; allowed: " +
                        isa_names(~IsaMask{0}));
}

IsaMask compiled_isas() { return kCompiled; }

IsaMask supported_isas() {
  static const IsaMask supported = detect_supported();
  return supported;
}

IsaMask enabled_isas() {
  static const IsaMask cap = environment_cap();
  IsaMask m = supported_isas() & cap;
  const IsaMask test = g_test_mask.load(std::memory_order_relaxed);
  if (test != 0) m &= test;
  return m | mask_of(Isa::kScalar);
}

Isa active_isa() { return static_cast<Isa>(highest_bit(enabled_isas())); }

void set_isa_mask_for_testing(IsaMask mask) { g_test_mask.store(mask, std::memory_order_relaxed); }

}  // namespace qparity
