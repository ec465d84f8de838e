// INTERNAL: what this CPU and operating system support, read once with CPUID and XGETBV.
#pragma once

namespace qparity {
namespace internal {

struct CpuFeatures {
  bool sse41 = false;
  bool avx2 = false;
  bool bmi2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512vnni = false;
  bool avxvnni = false;
  bool amx_tile = false;
  bool amx_int8 = false;
  bool os_avx = false;     ///< XCR0 enables the YMM state
  bool os_avx512 = false;  ///< XCR0 enables the opmask and ZMM states
};

/// Detected once (thread-safe) and cached.
const CpuFeatures& cpu_features();

}  // namespace internal
}  // namespace qparity
