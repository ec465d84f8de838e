// The shape every peer is prepared for: C[M x N] = A[M x K] * B[K x N], A and C row-major, B
// stored N x K row-major (one row of K weights per output channel: TFLite's "OI" layout, XNNPACK's
// fully-connected kernel, qparity's WeightLayout::kNxK). All peers take dense matrices.
#pragma once

#include <cstddef>
#include <string>

namespace qparity_peers {

struct GemmShape {
  std::size_t m = 0, n = 0, k = 0;
};

inline std::string to_string(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

}  // namespace qparity_peers
