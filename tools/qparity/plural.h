// Counts in messages: "1 layer", "3 layers", "0 ops".
#pragma once

#include <cstddef>
#include <string>

#include <fmt/format.h>

namespace qparity::cli {

/// "<n> <noun>", with an "s" unless n is 1 (the tool's nouns all take a plain "s").
inline std::string count_of(std::size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace qparity::cli
