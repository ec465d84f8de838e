#include "kernels/dispatch/cpu_features.h"

#include <cstdint>
#include <sstream>

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
  const bool osxsave = (c >> 27) & 1;
  const bool avx = (c >> 28) & 1;
  if (osxsave) {
    const std::uint64_t xcr0 = read_xcr0();
    f.os_avx = avx && (xcr0 & 0x6) == 0x6;                  // SSE + AVX state
    f.os_avx512 = f.os_avx && (xcr0 & 0xE0) == 0xE0;       // opmask, ZMM_Hi256, Hi16_ZMM
    f.os_amx = (xcr0 & 0x60000) == 0x60000;                // XTILECFG, XTILEDATA
  }
  f.fma = f.os_avx && ((c >> 12) & 1);
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

// The /proc/cpuinfo name of each flag. AMX's flags also need the tile state and the permission.
struct NamedFeature {
  const char* name;
  bool CpuFeatures::*flag;
  bool needs_amx_state;
};
constexpr NamedFeature kNamedFeatures[] = {
    {"sse4_1", &CpuFeatures::sse41, false},        {"avx2", &CpuFeatures::avx2, false},
    {"bmi2", &CpuFeatures::bmi2, false},           {"fma", &CpuFeatures::fma, false},
    {"avx512f", &CpuFeatures::avx512f, false},
    {"avx512bw", &CpuFeatures::avx512bw, false},   {"avx512dq", &CpuFeatures::avx512dq, false},
    {"avx512vl", &CpuFeatures::avx512vl, false},   {"avx512_vnni", &CpuFeatures::avx512vnni, false},
    {"avx_vnni", &CpuFeatures::avxvnni, false},    {"amx_tile", &CpuFeatures::amx_tile, true},
    {"amx_int8", &CpuFeatures::amx_int8, true},
};

const NamedFeature* find_feature(const std::string& name) {
  for (const NamedFeature& f : kNamedFeatures) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

bool CpuFeatures::has_all(const std::string& names, bool amx_permitted) const {
  std::istringstream words(names);
  std::string name;
  while (words >> name) {
    const NamedFeature* f = find_feature(name);
    if (f == nullptr || !(this->*(f->flag))) return false;
    if (f->needs_amx_state && !(os_amx && amx_permitted)) return false;
  }
  return true;
}

bool is_known_cpu_feature(const std::string& name) { return find_feature(name) != nullptr; }

}  // namespace internal
}  // namespace qparity
