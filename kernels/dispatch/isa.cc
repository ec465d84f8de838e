// ISA bookkeeping: what is compiled, what the CPU supports, and the overrides.
#include "qparity/isa.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "kernels/dispatch/cpu_features.h"
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
#ifdef QPARITY_HAVE_AVX512
                              | mask_of(Isa::kAvx512)
#endif
    ;

std::atomic<IsaMask> g_test_mask{0};

IsaMask detect_supported() {
  const internal::CpuFeatures& f = internal::cpu_features();
  IsaMask m = mask_of(Isa::kScalar);
  if (f.sse41) m |= mask_of(Isa::kSse41);
  if (f.avx2 && f.bmi2) m |= mask_of(Isa::kAvx2);
  if (f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl && f.avx2 && f.bmi2) {
    m |= mask_of(Isa::kAvx512);
  }
  return m & kCompiled;
}

// Every ISA up to and including the one named by QPARITY_ISA (all of them when unset).
IsaMask environment_cap() {
  const char* env = std::getenv("QPARITY_ISA");
  if (env == nullptr || *env == '\0') return ~IsaMask{0};
  const Isa cap = isa_from_string(env);  // throws InvalidArgument for an unknown name
  return (mask_of(cap) << 1) - 1;
}

IsaMask highest_bit(IsaMask m) {
  IsaMask h = 1;
  while (m >>= 1) h <<= 1;
  return h;
}

}  // namespace

const std::vector<Isa>& all_isas() {
  static const std::vector<Isa> v = {Isa::kScalar, Isa::kSse41, Isa::kAvx2, Isa::kAvx512};
  return v;
}

const char* to_string(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return "scalar";
    case Isa::kSse41: return "sse41";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
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
