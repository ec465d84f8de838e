// The drift of a model between two arithmetics (per-op maps: presets, runtime profiles), op by op:
// what `qparity diff --model` prints and the Python module returns. Per op output of an integer
// type: accumulated drift (each side run on its own previous outputs, as two devices would) and
// isolated drift (the op under B fed A's inputs: what this op alone changes); or, against a
// device's dumps (by tensor name), accumulated drift only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "drift_report.h"
#include "model/graph.h"

namespace qparity::model {

struct ModelDiffOptions {
  std::string a;       ///< per-op map of A (node_map.h)
  std::string b;       ///< per-op map of B, or empty with dump_b
  std::string dump_b;  ///< a directory of B's tensors named as Graph::dump_file_name
  bool per_channel = false;
  std::function<void(std::size_t, const std::string&)> progress;  ///< optional
};

/// Runs the comparison; `float_outputs` counts float32 op outputs left out (their drift is not
/// measured as LSB drift). Throws cli::ToolError ("--a: ...", a dump's path, ...).
cli::DriftReport diff_model(const Graph& graph, const std::vector<Tensor>& inputs, const ModelDiffOptions& options,
                            std::size_t* float_outputs);

}  // namespace qparity::model
