// How gemm_bench measures oneDNN both with its own ISA choice and capped at AVX512_CORE_VNNI.
//
// oneDNN fixes its ISA once per process: dnnl::set_max_cpu_isa (like ONEDNN_MAX_CPU_ISA) is only
// honoured before the first kernel is generated or the ISA is queried. So gemm_bench runs its own
// rows first (oneDNN uncapped: onednn/<shape>), then executes itself again with
// --onednn_vnni_child and the same arguments; that child caps oneDNN at avx512_core_vnni before
// touching it and registers only the onednn_vnni/<shape> rows. Both reports go to the same
// stdout, one after the other, on the same machine state: compare ratios within one run.
#pragma once

#include <string>
#include <vector>

namespace qparity_bench {

inline constexpr const char* kOnednnVnniChildFlag = "--onednn_vnni_child";
/// Skips the second process (no onednn_vnni rows).
inline constexpr const char* kNoOnednnVnniFlag = "--no_onednn_vnni";
/// The cap, as a oneDNN ISA name (bench/peers/onednn_matmul.h, onednn_cap_isa).
inline constexpr const char* kOnednnVnniCap = "avx512_core_vnni";

/// Removes `flag` from argv (adjusting *argc); true if it was there.
bool take_flag(int* argc, char** argv, const char* flag);

/// True if Google Benchmark's --benchmark_filter value `filter` (a POSIX extended regex searched
/// in the name; a leading '-' negates it; "" or "all" selects everything) selects any of `names`.
bool filter_selects_any(const std::string& filter, const std::vector<std::string>& names);

/// The value of --benchmark_filter=... in `args`, or "" (every row).
std::string benchmark_filter(const std::vector<std::string>& args);

/// Runs this executable (/proc/self/exe) with `args` (without argv[0]) and kOnednnVnniChildFlag,
/// waits for it and returns its exit status, or -1 with *error. A --benchmark_out=<file> argument
/// (or BENCHMARK_OUT) becomes <file> with ".onednn_vnni" inserted before the extension, so the
/// child's report does not overwrite the parent's.
int rerun_for_onednn_vnni(const std::vector<std::string>& args, std::string* error);

}  // namespace qparity_bench
