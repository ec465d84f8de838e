// The CPU this process runs on, as the HTML report names it ("what was compared"): the processor's
// marketing name from Linux's /proc/cpuinfo ("model name" on x86, "Model" or "Hardware" on ARM).
#pragma once

#include <string>

namespace qparity::cli {

/// The first "model name" (else "Model", else "Hardware") line of /proc/cpuinfo, or "unknown CPU"
/// when the file is missing or names none (not Linux, a sandbox).
std::string host_cpu_name();

}  // namespace qparity::cli
