#include "memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "tool_error.h"

namespace qparity::cli {
namespace {

std::atomic<std::uint64_t> g_limit{0};  // 0: not set, use the default

}  // namespace

std::uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::uint64_t{8} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 2;
}

std::uint64_t memory_limit() {
  const std::uint64_t set = g_limit.load(std::memory_order_relaxed);
  return set != 0 ? set : default_memory_limit();
}

void set_memory_limit(std::uint64_t bytes) { g_limit.store(bytes, std::memory_order_relaxed); }

bool parse_memory_size(const std::string& text, std::uint64_t* bytes) {
  if (text.empty() || text.size() > 32) return false;
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return false;
  const std::string number = text.substr(0, digits);
  std::string unit = text.substr(digits);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();  // "8GB", "8GiB" -> "8G"
  if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I')) unit.pop_back();
  double scale = 1;
  if (unit.empty()) {
    scale = 1;
  } else if (unit == "K" || unit == "k") {
    scale = 1024.0;
  } else if (unit == "M" || unit == "m") {
    scale = 1024.0 * 1024;
  } else if (unit == "G" || unit == "g") {
    scale = 1024.0 * 1024 * 1024;
  } else if (unit == "T" || unit == "t") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return false;
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end == nullptr || *end != '\0' || errno == ERANGE || !(v > 0)) return false;
  const double b = std::floor(v * scale);
  if (!(b >= 1) || b > 4.6e18) return false;
  *bytes = static_cast<std::uint64_t>(b);
  return true;
}

std::string memory_size_text(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.3g} {}", v, units[u]);
}

void check_memory(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t limit = memory_limit();
  if (bytes <= limit) return;
  throw ToolError(fmt::format("{} needs {}, more than the memory limit of {} (--max-memory SIZE raises it; the "
                              "default is half of this machine's physical memory)",
                              what, memory_size_text(bytes), memory_size_text(limit)));
}

}  // namespace qparity::cli
