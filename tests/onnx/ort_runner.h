// Runs .onnx models in the real ONNX Runtime (npm onnxruntime-node: ORT's native CPU library)
// through tests/oracles/js/run_onnx.cjs --batch: one Node process per batch and optimization
// level. Missing node or node_modules is a test FAILURE with the command that installs them, never
// a skip (these tests are what proves the .onnx path bit-exact).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace qparity_test {

struct OrtJob {
  std::string name;                 ///< for messages
  std::vector<std::uint8_t> model;  ///< .onnx bytes
  std::vector<qparity::cli::Tensor> inputs;
};

struct OrtResult {
  bool ok = false;
  std::string error;  ///< the runner's message when !ok
  std::vector<qparity::cli::Tensor> outputs;
};

/// Runs every job at graph optimization level `opt` ("all", "disabled", ...), one intra-op thread;
/// results in job order. Sets *setup_error (and returns nothing) when the runtime cannot start.
std::vector<OrtResult> run_ort(const std::vector<OrtJob>& jobs, const std::string& opt, std::string* setup_error);

}  // namespace qparity_test
