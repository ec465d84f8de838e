// How much memory one run of the tool may allocate for tensors (`--max-memory`), checked before
// the allocation so that a valid but huge layer or model ends in an error that names it, its
// size and the limit, instead of the kernel's OOM killer or a bare std::bad_alloc.
//
// The default is half of the machine's physical memory: enough for any model a device runs, and
// small enough that a typo in a shape (a 17 GB output) stops before it swaps the machine to a halt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace qparity::cli {

/// The limit in bytes (the default until set_memory_limit is called).
std::uint64_t memory_limit();

/// Half of the physical memory (sysconf), or 8 GiB if the system does not say.
std::uint64_t default_memory_limit();

void set_memory_limit(std::uint64_t bytes);

/// Parses "512M", "8G", "1.5G", "100000" (bytes), "64K" (binary units: K = 1024); false on
/// anything else, zero, or a value beyond 2^62.
bool parse_memory_size(const std::string& text, std::uint64_t* bytes);

/// "1.5 GiB", "512 MiB", "300 bytes".
std::string memory_size_text(std::uint64_t bytes);

/// Throws ToolError (exit 2) "<what> needs <size>, more than the memory limit of <limit>
/// (--max-memory; ...)" when `bytes` exceeds the limit.
void check_memory(std::uint64_t bytes, const std::string& what);

}  // namespace qparity::cli
