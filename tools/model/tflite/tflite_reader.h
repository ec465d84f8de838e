// Reads a .tflite model (subgraph 0) into a Graph. The file is untrusted: the flatbuffers Verifier
// runs before anything is read, every count and size is bounded (ModelLimits), and anything this
// reader cannot represent exactly is an error naming the operator or tensor index and the problem
// (never a partial or guessed graph).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"

namespace qparity::model {

/// Reads and validates (validate()) the model in `path`. Throws cli::ToolError (kExitIoError if the
/// file cannot be read, kExitUsage for a malformed or unsupported model).
Graph read_tflite_file(const std::string& path, const ModelLimits& limits = {});

/// The same from bytes in memory; `name` names the model in messages (the fuzzer drives this).
Graph read_tflite(const std::vector<std::uint8_t>& bytes, const std::string& name,
                  const ModelLimits& limits = {});

/// Whether the bytes look like a .tflite file (the "TFL3" identifier at offset 4).
bool looks_like_tflite(const std::vector<std::uint8_t>& head);

}  // namespace qparity::model
