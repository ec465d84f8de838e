// INTERNAL: what this CPU and operating system support, read once with CPUID and XGETBV.
#pragma once

namespace qparity {
namespace internal {

/// Each CPU flag is true only when the OS also saves the register state it needs (XCR0), except
/// the AMX flags: whether AMX is usable also depends on os_amx and on the per-process permission
/// (amx_permission.h), which the ISA bookkeeping (isa.cc) combines.
struct CpuFeatures {
  bool sse41 = false;
  bool avx2 = false;
  bool bmi2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512vnni = false;  ///< CPUID.(EAX=7,ECX=0):ECX[11]
  bool avxvnni = false;     ///< CPUID.(EAX=7,ECX=1):EAX[4]
  bool amx_tile = false;    ///< CPUID.(EAX=7,ECX=0):EDX[24]
  bool amx_int8 = false;    ///< CPUID.(EAX=7,ECX=0):EDX[25]
  bool os_avx = false;      ///< XCR0 enables the SSE and YMM states (bits 1, 2)
  bool os_avx512 = false;   ///< ... and the opmask and ZMM states (bits 5, 6, 7)
  bool os_amx = false;      ///< XCR0 enables XTILECFG and XTILEDATA (bits 17, 18)
};

/// Detected once (thread-safe) and cached.
const CpuFeatures& cpu_features();

}  // namespace internal
}  // namespace qparity
