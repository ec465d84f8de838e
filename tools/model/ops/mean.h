// Options of MEAN (TFLite ReducerOptions), shared with the tests that build MEAN models. The axes
// are the op's second input (a constant int32 tensor).
#pragma once

#include <string>

#include "model/graph.h"

namespace qparity::model {

struct ReducerOptions : OpOptions {
  bool keep_dims = false;
  std::string describe() const override;
};

}  // namespace qparity::model
