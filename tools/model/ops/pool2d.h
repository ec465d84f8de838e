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
  /// ONNX's count_include_pad (AVERAGE_POOL_2D read from ONNX only; TFLite has no such option): the
  /// mean divides by the whole window's tap count, padding included. Only ONNX Runtime's
  /// QLinearAveragePool arithmetic takes it; every other system refuses it when preparing.
  bool count_include_pad = false;
  std::string describe() const override;
};

}  // namespace qparity::model
