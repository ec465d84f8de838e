// The drift of a model between two arithmetics (per-op maps: presets, runtime profiles), op by op:
// what `qparity diff --model` prints and the Python module returns. Per op output (integer or
// float activations): accumulated drift (each side run on its own previous outputs, as two devices would) and
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
  unsigned threads = 1;  ///< both sides' Runner threads (runner.h): the same bits as 1
  std::function<void(std::size_t, const std::string&)> progress;  ///< optional
};

/// Runs the comparison. Integer activations (int8, uint8, int16) are compared in LSBs and, with a
/// per-tensor scale, in real units; float outputs in real units; `other_outputs` counts the op
/// outputs left out (int32 / int64 tensors). Throws cli::ToolError ("--a: ...", a dump's path, ...).
cli::DriftReport diff_model(const Graph& graph, const std::vector<Tensor>& inputs, const ModelDiffOptions& options,
                            std::size_t* other_outputs);

}  // namespace qparity::model
