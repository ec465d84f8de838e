// Runs .tflite models in a real TFLite runtime, LiteRT.js (npm @litertjs/core, TFLite compiled to
// WebAssembly), through tests/oracles/js/run_tflite.cjs --batch: one Node process for a whole batch
// of models. Missing node or node_modules is a test FAILURE with the command that installs them,
// never a skip (the oracle tests are what proves the .tflite path).
#pragma once

#include <string>
#include <vector>

#include "js_batch_runner.h"

namespace qparity_test {

using LiteRtJob = JsModelJob;
using LiteRtResult = JsModelResult;

/// Runs every job; results in job order. Sets *setup_error (and returns nothing) when the runtime
/// cannot start at all (node or the npm packages missing).
std::vector<LiteRtResult> run_litert(const std::vector<LiteRtJob>& jobs, std::string* setup_error);

}  // namespace qparity_test
