// Options of BATCH_MATMUL (TFLite BatchMatMulOptions), shared with the .onnx reader and the tests
// that build BATCH_MATMUL models.
#pragma once

#include <string>

#include "model/graph.h"

namespace qparity::model {

/// adj_x: the stored lhs is [..., K, M] (its matrices transposed); adj_y: the stored rhs is
/// [..., N, K].
struct BatchMatMulOptions : OpOptions {
  bool adj_x = false, adj_y = false;
  std::string describe() const override;
};

}  // namespace qparity::model
