// Runs .onnx models in the real ONNX Runtime (npm onnxruntime-node: ORT's native CPU library)
// through tests/oracles/js/run_onnx.cjs --batch: one Node process per batch and optimization
// level. Missing node or node_modules is a test FAILURE with the command that installs them, never
// a skip (these tests are what proves the .onnx path bit-exact).
#pragma once

#include <string>
#include <vector>

#include "js_batch_runner.h"

namespace qparity_test {

using OrtJob = JsModelJob;
using OrtResult = JsModelResult;

/// Runs every job at graph optimization level `opt` ("all", "disabled", ...), one intra-op thread;
/// results in job order. Sets *setup_error (and returns nothing) when the runtime cannot start.
std::vector<OrtResult> run_ort(const std::vector<OrtJob>& jobs, const std::string& opt, std::string* setup_error);

}  // namespace qparity_test
