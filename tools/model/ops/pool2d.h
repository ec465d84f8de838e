// Options of AVERAGE_POOL_2D and MAX_POOL_2D (TFLite Pool2DOptions), shared with the tests that
// build pooling models.
#pragma once

#include <string>

#include "model/graph.h"
#include "qparity/output_stage.h"
#include "qparity/reference/pooling.h"

namespace qparity::model {

struct Pool2DOptions : OpOptions {
  reference::PoolWindow window{};  ///< filter size, strides, SAME / VALID
  Activation activation = Activation::kNone;
  std::string describe() const override;
};

}  // namespace qparity::model
