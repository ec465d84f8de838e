// qparity version: the single source of truth (CMakeLists.txt parses these lines).
#pragma once

#define QPARITY_VERSION_MAJOR 0
#define QPARITY_VERSION_MINOR 1
#define QPARITY_VERSION_PATCH 0

namespace qparity {
inline constexpr int kVersionMajor = QPARITY_VERSION_MAJOR;
inline constexpr int kVersionMinor = QPARITY_VERSION_MINOR;
inline constexpr int kVersionPatch = QPARITY_VERSION_PATCH;
}  // namespace qparity
