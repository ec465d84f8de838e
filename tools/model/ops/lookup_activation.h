// Options of LEAKY_RELU (ONNX LeakyRelu / com.microsoft QLinearLeakyRelu: alpha), shared with the
// .onnx reader and the tests that build graphs in code.
#pragma once

#include <string>

#include "model/graph.h"

namespace qparity::model {

/// y = x for x >= 0, alpha * x below (ONNX's default alpha: 0.01).
struct LeakyReluOptions : OpOptions {
  float alpha = 0.01f;
  std::string describe() const override;
};

}  // namespace qparity::model
