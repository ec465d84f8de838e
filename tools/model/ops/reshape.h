// Options of the shape-only ops (RESHAPE, SQUEEZE), shared with the writers.
#pragma once

#include <vector>

#include "model/graph.h"

namespace qparity::model {

/// RESHAPE: the new shape from the options (the shape input, when present, wins; -1 is one
/// inferred dimension).
struct ReshapeOptions : OpOptions {
  std::vector<long long> new_shape;
  bool has_new_shape = false;
  std::string describe() const override;
};

/// SQUEEZE: the dimensions to remove (each of size 1; negative counts from the end); empty: every
/// dimension of size 1.
struct SqueezeOptions : OpOptions {
  std::vector<long long> dims;
  std::string describe() const override;
};

}  // namespace qparity::model
