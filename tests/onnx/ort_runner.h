// Runs .onnx models in the real ONNX Runtime (npm onnxruntime-node: ORT's native CPU library)
// through tests/oracles/js/run_onnx.cjs --batch: one Node process per batch and optimization
// level. Missing node or node_modules is a test FAILURE with the command that installs them, never
// a skip (these tests are what proves the .onnx path bit-exact).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "js_batch_runner.h"
#include "model/graph.h"

namespace qparity_test {

using OrtJob = JsModelJob;
using OrtResult = JsModelResult;

/// Runs every job at graph optimization level `opt` ("all", "disabled", ...), one intra-op thread;
/// results in job order. Sets *setup_error (and returns nothing) when the runtime cannot start.
std::vector<OrtResult> run_ort(const std::vector<OrtJob>& jobs, const std::string& opt, std::string* setup_error);

/// What an oracle test does with one model ORT ran: job index, ORT's outputs, the model as
/// qparity's reader reads it; returns the elements it compared (for the summary line).
using OrtVisit = std::function<std::size_t(std::size_t job, const std::vector<qparity::cli::Tensor>& ort_outputs,
                                           const qparity::model::Graph& graph)>;

/// The oracle tests' loop: runs every job at level `opt` in one batch, then visits each model ORT
/// ran. A runtime that cannot start and a model ORT fails on are test failures naming them (never a
/// skip). Prints "ORT opt <opt>: N models, E elements compared, ORT batch S s".
void for_each_ort_result(const std::vector<OrtJob>& jobs, const std::string& opt, const OrtVisit& visit);

}  // namespace qparity_test
