// INTERNAL: what this CPU and operating system support, read once with CPUID and XGETBV.
#pragma once

#include <string>

namespace qparity {
namespace internal {

/// Each CPU flag is true only when the OS also saves the register state it needs (XCR0), except
/// the AMX flags: whether AMX is usable also depends on os_amx and on the per-process permission
/// (amx_permission.h), which has() combines.
struct CpuFeatures {
  bool sse41 = false;       ///< "sse4_1"
  bool avx2 = false;        ///< "avx2"
  bool bmi2 = false;        ///< "bmi2"
  bool fma = false;         ///< "fma": CPUID.1:ECX[12] (FMA3, on YMM registers: needs os_avx)
  bool avx512f = false;     ///< "avx512f"
  bool avx512bw = false;    ///< "avx512bw"
  bool avx512dq = false;    ///< "avx512dq"
  bool avx512vl = false;    ///< "avx512vl"
  bool avx512vnni = false;  ///< "avx512_vnni": CPUID.(EAX=7,ECX=0):ECX[11]
  bool avxvnni = false;     ///< "avx_vnni": CPUID.(EAX=7,ECX=1):EAX[4]
  bool amx_tile = false;    ///< "amx_tile": CPUID.(EAX=7,ECX=0):EDX[24]
  bool amx_int8 = false;    ///< "amx_int8": CPUID.(EAX=7,ECX=0):EDX[25]
  bool os_avx = false;      ///< XCR0 enables the SSE and YMM states (bits 1, 2)
  bool os_avx512 = false;   ///< ... and the opmask and ZMM states (bits 5, 6, 7)
  bool os_amx = false;      ///< XCR0 enables XTILECFG and XTILEDATA (bits 17, 18)

  /// Whether every feature of `names` (space-separated Linux /proc/cpuinfo names, the "cpu
  /// features" column of include/qparity/isa_list.h) is present. The AMX features count only with
  /// the tile state enabled (os_amx) and the process's permission (`amx_permitted`). A name this
  /// file does not know (another architecture's) is absent.
  bool has_all(const std::string& names, bool amx_permitted) const;
};

/// Whether `name` is a feature name CpuFeatures knows (for the tests of the ISA list).
bool is_known_cpu_feature(const std::string& name);

/// Detected once (thread-safe) and cached.
const CpuFeatures& cpu_features();

}  // namespace internal
}  // namespace qparity
