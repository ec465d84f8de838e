// Natural order of file names: runs of digits compare as numbers, so that layer2.npy comes before
// layer10.npy (dump directories written by other tools rarely zero-pad their indices).
#pragma once

#include <cstddef>
#include <string>

namespace qparity::cli {

/// a before b in natural order: digit runs by value (then by length, so "07" sorts before "7"),
/// everything else byte by byte.
inline bool natural_less(const std::string& a, const std::string& b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Compare the values without converting: skip leading zeros, then the longer run is larger,
      // then digit by digit.
      std::size_t iz = i, jz = j;
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (jz + 1 < je && b[jz] == '0') ++jz;
      if (ie - iz != je - jz) return ie - iz < je - jz;
      for (std::size_t k = 0; k < ie - iz; ++k) {
        if (a[iz + k] != b[jz + k]) return a[iz + k] < b[jz + k];
      }
      if (ie - i != je - j) return ie - i > je - j;  // equal values: more leading zeros first
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace qparity::cli
