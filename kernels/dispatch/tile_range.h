// INTERNAL: the range check of the tile API (gemm_tiles, conv2d_tiles, depthwise_conv2d_tiles, with
// and without a thread count), one message for all six entry points. Not installed.
#pragma once

#include <cstddef>
#include <string>

#include "qparity/error.h"

namespace qparity {
namespace internal {

/// Throws InvalidArgument unless begin <= end <= count:
///   "qparity: tile range [begin, end) is out of range<cut>; allowed: begin <= end <= count
///   (<counted_by>)"
/// `cut` describes the tiling the count belongs to (empty for the default tiles, e.g. " for m = 5,
/// threads = 2"); it is built by the caller only when the check fails (describe_cut()), so a valid
/// call allocates nothing.
template <class DescribeCut>
void check_tile_range(std::size_t begin, std::size_t end, std::size_t count, const char* counted_by,
                      DescribeCut&& describe_cut) {
  if (begin <= end && end <= count) return;
  throw InvalidArgument("qparity: tile range [" + std::to_string(begin) + ", " +
                        std::to_string(end) + ") is out of range" + describe_cut() +
                        "; allowed: begin <= end <= " + std::to_string(count) + " (" + counted_by +
                        ")");
}

/// The default tiles: nothing to describe.
inline void check_tile_range(std::size_t begin, std::size_t end, std::size_t count,
                             const char* counted_by) {
  check_tile_range(begin, end, count, counted_by, [] { return std::string(); });
}

}  // namespace internal
}  // namespace qparity
