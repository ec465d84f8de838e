// ISA bookkeeping: what is compiled, what the CPU supports, and the overrides.
#include "qparity/isa.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "kernels/dispatch/amx_permission.h"
#include "kernels/dispatch/cpu_features.h"
#include "kernels/dispatch/isa_levels.h"
#include "qparity/error.h"

namespace qparity {
namespace {

// Set by CMake for each ISA translation unit that is part of this build.
constexpr IsaMask kCompiled = mask_of(Isa::kScalar)
#ifdef QPARITY_HAVE_SSE41
                              | mask_of(Isa::kSse41)
#endif
#ifdef QPARITY_HAVE_AVX2
                              | mask_of(Isa::kAvx2)
#endif
#ifdef QPARITY_HAVE_AVXVNNI
                              | mask_of(Isa::kAvxVnni)
#endif
#ifdef QPARITY_HAVE_AVX512
                              | mask_of(Isa::kAvx512)
#endif
#ifdef QPARITY_HAVE_AVX512VNNI
                              | mask_of(Isa::kAvx512Vnni)
#endif
#ifdef QPARITY_HAVE_AMX
                              | mask_of(Isa::kAmx)
#endif
    ;

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
  static const std::vector<Isa> v = {Isa::kScalar,  Isa::kSse41,       Isa::kAvx2, Isa::kAvxVnni,
                                     Isa::kAvx512, Isa::kAvx512Vnni, Isa::kAmx};
  return v;
}

const char* to_string(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return "scalar";
    case Isa::kSse41: return "sse41";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvxVnni: return "avxvnni";
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx512Vnni: return "avx512vnni";
    case Isa::kAmx: return "amx";
  }
  return "?";
}

Isa isa_from_string(const std::string& name) {
  std::string allowed;
  for (Isa isa : all_isas()) {
    if (name == to_string(isa)) return isa;
    allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(isa));
  }
  throw InvalidArgument("qparity: ISA '" + name + "' is unknown; allowed: " + allowed);
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
