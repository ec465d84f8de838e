// The float32 sum of MLAS's global average pool (MlasPoolGlobalKernel,
// onnxruntime/core/mlas/lib/pooling.cpp), which ONNX Runtime's float GlobalAveragePool and its float
// AveragePool over a whole, unpadded image both run: element i of the flattened image goes into
// lane i mod 4 of four partial sums from +0 while whole groups of four remain; the lanes are reduced
// as (l0 + l2) + (l1 + l3) (x86 MlasReduceAddFloat32x4: shuffle 2,3,2,3, add, then 1,1,1,1, add);
// the remaining 0 to 3 elements are then added one by one. docs/semantics.md §22.2 / §22.5.
#pragma once

#include <cstddef>

namespace qparity::model {

/// value(i): the dequantized float32 element i (0 <= i < n) of the flattened image.
template <class Value>
float mlas_global_sum(std::size_t n, Value value) {
  float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (std::size_t j = 0; j < 4; ++j) lane[j] += value(i + j);
  }
  float sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
  for (; i < n; ++i) sum += value(i);
  return sum;
}

}  // namespace qparity::model
