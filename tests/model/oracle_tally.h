// The oracle tests' tally: elements compared and mismatches per (op, path, profile), printed as a
// table when the test binary ends, so a run shows what was checked, not only that it passed.
#pragma once

#include <cstddef>
#include <string>

namespace qparity_test {

/// Adds `elements` compared and `mismatches` found to the row (op, path, profile).
void tally(const std::string& op, const std::string& path, const std::string& profile, std::size_t elements,
           std::size_t mismatches);

/// A row's totals so far (all zero if the row has none).
struct TallyRow {
  std::size_t elements = 0, mismatches = 0, runs = 0;
};
TallyRow tally_row(const std::string& op, const std::string& path, const std::string& profile);

}  // namespace qparity_test
