// A stack of layers (stack JSON, SCHEMA.md) as a model graph: what `qparity export` writes and
// `qparity probe --format tflite` writes per probe. Each layer becomes its TFLite op with its filter
// and bias as constants, its scales and zero points as the tensors' quantization and its activation
// as the fused activation. Layers given as explicit multipliers, with explicit activation bounds or
// explicit padding, or whose input quantization differs from the previous layer's output, have no
// .tflite form: a ToolError names the layer. A float stack (float32 input and filters) becomes a
// float model (float32 tensors without quantization), which is also how `run` and `diff` run it
// under the float precisions (fp32, fp16, fp16-acc16, bf16).
#pragma once

#include <string>

#include "layer.h"
#include "model/graph.h"

namespace qparity::cli {

/// Whether the stack's layers are float layers (layer.h; parse_stack keeps a stack all one kind).
bool is_float_stack(const Stack& stack);

/// The graph of a stack with an input (its dtype and shape are the model input's).
model::Graph stack_graph(const Stack& stack, const std::string& path);

}  // namespace qparity::cli
