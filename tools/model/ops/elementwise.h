// Options of ADD, SUB and MUL (TFLite AddOptions, SubOptions, MulOptions), shared with the writers
// and the tests that build graphs in code.
#pragma once

#include <string>

#include "model/graph.h"
#include "qparity/output_stage.h"

namespace qparity::model {

/// The fused activation, and for ADD / SUB TFLite's pot_scale_int16 (int16 only: qparity's ops take
/// 8-bit tensors; kept so that a model is written back as it was read).
struct ElementwiseOptions : OpOptions {
  Activation activation = Activation::kNone;
  bool pot_scale_int16 = true;
  std::string describe() const override;
};

}  // namespace qparity::model
