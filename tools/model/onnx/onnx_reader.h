// Reads a quantized .onnx model (operator form: QLinearConv, QLinearMatMul) into a Graph. The file
// is untrusted: protobuf parses it (bounded to 2 GiB), every count and size is bounded
// (ModelLimits) before anything is allocated, and anything this reader cannot represent exactly is
// an error naming the node (or initializer / input) and the problem, never a partial graph.
//
// Layout: ONNX activations are NCHW, qparity's convolutions NHWC. The importer keeps every 4-D value
// a convolution reads or writes in NHWC (its filters transposed once, at import) and puts a
// TRANSPOSE at each boundary where a value is needed in ONNX's layout (graph inputs and outputs),
// so the graph's inputs and outputs have the ONNX model's shapes and element order. An internal
// NHWC tensor keeps the ONNX value's name; the NCHW side of a boundary gets the ONNX name and the
// NHWC side "<name>:nhwc".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"

namespace qparity::model {

/// Reads and validates (validate()) the model in `path`. Throws cli::ToolError (kExitIoError if the
/// file cannot be read, kExitUsage for a malformed or unsupported model).
Graph read_onnx_file(const std::string& path, const ModelLimits& limits = {});

/// The same from bytes in memory; `name` names the model in messages (the fuzzer drives this).
Graph read_onnx(const std::vector<std::uint8_t>& bytes, const std::string& name, const ModelLimits& limits = {});

/// Whether a model file should be read as ONNX: its name ends in ".onnx" (protobuf has no magic
/// number; a .tflite is recognised by its identifier first).
bool named_like_onnx(const std::string& path);

}  // namespace qparity::model
