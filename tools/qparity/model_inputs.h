// How the commands load a model file and its inputs (.npy files, or seeded tensors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"

namespace qparity::cli {

/// Reads a model file: .tflite (recognised by its identifier) or .onnx (by its extension). Throws
/// ToolError.
model::Graph load_model(const std::string& path);

/// The model's inputs from a comma-separated list of .npy files (one per graph input, in order),
/// each checked against the input's dtype and shape; or, when `files` is empty, seeded tensors
/// (SCHEMA.md "Generated tensors": integer inputs uniform over their type's range; float32 inputs
/// uniform over [-1, 1) in steps of 2^-7). Throws ToolError naming the file or input.
std::vector<Tensor> model_inputs(const model::Graph& graph, const std::string& files, std::uint64_t seed);

}  // namespace qparity::cli
