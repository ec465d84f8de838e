// Writes a Graph as a .tflite model (schema version 3, one subgraph) that TFLite, its delegates and
// LiteRT.js load: every constant in a buffer of its own (16-byte aligned data), operator codes in
// both the int8 and the int32 field, each op's options through its own write hook.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"

namespace qparity::model {

/// The .tflite bytes of a graph (validate() it first: this writes what it is given). Throws
/// cli::ToolError if the graph does not fit the format (a tensor of more than 2^31 - 1 elements in
/// a dimension, a model of 2 GiB or more).
std::vector<std::uint8_t> write_tflite(const Graph& graph, const std::string& description = "qparity");

}  // namespace qparity::model
