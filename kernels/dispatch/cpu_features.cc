#include "kernels/dispatch/cpu_features.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace qparity {
namespace internal {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// XGETBV without requiring -mxsave on this (baseline) translation unit.
std::uint64_t read_xcr0() {
  std::uint32_t eax = 0, edx = 0;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
  const unsigned max_leaf = a;
  __get_cpuid(1, &a, &b, &c, &d);
  f.sse41 = (c >> 19) & 1;
  f.fma = (c >> 12) & 1;
  const bool osxsave = (c >> 27) & 1;
  const bool avx = (c >> 28) & 1;
  if (osxsave) {
    const std::uint64_t xcr0 = read_xcr0();
    f.os_avx = avx && (xcr0 & 0x6) == 0x6;                  // SSE + AVX state
    f.os_avx512 = f.os_avx && (xcr0 & 0xE0) == 0xE0;       // opmask, ZMM_Hi256, Hi16_ZMM
    f.os_amx = (xcr0 & 0x60000) == 0x60000;                // XTILECFG, XTILEDATA
  }
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned max_subleaf_7 = a;
    f.avx2 = f.os_avx && ((b >> 5) & 1);
    f.bmi2 = (b >> 8) & 1;
    f.avx512f = f.os_avx512 && ((b >> 16) & 1);
    f.avx512dq = f.os_avx512 && ((b >> 17) & 1);
    f.avx512bw = f.os_avx512 && ((b >> 30) & 1);
    f.avx512vl = f.os_avx512 && ((b >> 31) & 1);
    f.avx512vnni = f.os_avx512 && ((c >> 11) & 1);
    f.amx_tile = (d >> 24) & 1;
    f.amx_int8 = (d >> 25) & 1;
    // Sub-leaf 1 exists only when sub-leaf 0 reports it in EAX; reading a sub-leaf beyond that is
    // not guaranteed to return zeros on every vendor or hypervisor.
    if (max_subleaf_7 >= 1) {
      __cpuid_count(7, 1, a, b, c, d);
      f.avxvnni = f.os_avx && ((a >> 4) & 1);
    }
  }
  return f;
}
#else
CpuFeatures detect() { return CpuFeatures{}; }
#endif

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace internal
}  // namespace qparity
