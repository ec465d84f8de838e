// Instruction-set paths of the compiled library (qparity::qparity), run-time detection, and the
// overrides tests and users need.
//
// enabled = compiled & supported-by-this-CPU & (QPARITY_ISA environment cap) & (test mask).
// The scalar path is always compiled and always enabled. Dispatching entry points use the highest
// enabled ISA; the forced-ISA overloads run exactly the ISA they are given (or throw).
//
// QPARITY_ISA: the name of the highest ISA allowed ("scalar", "sse41", "avx2", "avxvnni", "avx512",
// "avx512vnni", "amx"), read once at first use, like ONEDNN_MAX_CPU_ISA; every ISA up to and
// including the named one in the order of Isa stays allowed. An unknown name is an error reported
// on first use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qparity/isa_list.h"

namespace qparity {

/// One bit per path (QPARITY_ISA_LIST, isa_list.h), ordered by capability (a higher bit is a more
/// capable path). The order is total, but a CPU may support a path without the lower ones:
/// AVX-VNNI (VEX-encoded VPDPBUSD, Alder Lake) sits between AVX2 and AVX-512, and a Zen 4 has
/// AVX-512 VNNI without AVX-VNNI. Each path includes its parent's (isa_list.h), not every lower bit.
enum class Isa : std::uint32_t {
#define QPARITY_ISA_ENUMERATOR(Id, name, bit, Parent, arch, flags, features, description) \
  k##Id = 1u << bit,
  QPARITY_ISA_LIST(QPARITY_ISA_ENUMERATOR)
#undef QPARITY_ISA_ENUMERATOR
};

using IsaMask = std::uint32_t;

inline constexpr IsaMask mask_of(Isa isa) { return static_cast<IsaMask>(isa); }

/// Every ISA up to and including `isa` in the order of Isa: what QPARITY_ISA=<isa> allows.
inline constexpr IsaMask isas_up_to(Isa isa) { return (mask_of(isa) << 1) - 1; }

/// Every Isa value, lowest first.
const std::vector<Isa>& all_isas();

/// The name of the list ("scalar", "sse41", "avx2", "avxvnni", "avx512", "avx512vnni", "amx").
const char* to_string(Isa isa);

/// The path `isa` extends (isa_list.h); kScalar for kScalar.
Isa parent_of(Isa isa);

/// "AVX2 + BMI2" etc.
const char* description(Isa isa);

/// The names of the ISAs in `mask`, lowest first, joined by `separator` ("scalar, avx2").
std::string isa_names(IsaMask mask, const char* separator = ", ");

/// Parses a name printed by to_string; throws qparity::InvalidArgument listing the names otherwise.
Isa isa_from_string(const std::string& name);

/// ISAs compiled into this build of the library.
IsaMask compiled_isas();

/// compiled_isas() restricted to what this CPU and OS support (CPUID + XGETBV). kAmx also needs
/// the Linux per-process permission for the AMX tile data state, which the first call requests
/// (only on a CPU whose CPUID and XCR0 report AMX); if the kernel lacks or refuses it, kAmx is
/// simply not supported.
IsaMask supported_isas();

/// supported_isas() restricted by QPARITY_ISA and by set_isa_mask_for_testing().
IsaMask enabled_isas();

/// The ISA the dispatching entry points use: the highest bit of enabled_isas().
Isa active_isa();

/// Restricts enabled_isas() to `mask` (scalar stays enabled); 0 removes the restriction.
/// For tests and benchmarks; not thread-safe with concurrent dispatching calls.
void set_isa_mask_for_testing(IsaMask mask);

}  // namespace qparity
