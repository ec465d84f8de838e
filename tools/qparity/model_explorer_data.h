// `qparity diff --model ... --model-explorer FILE`: the per-op drift as node data for Google's
// Model Explorer, which colours a model's graph by it (its "custom node data" overlay: load the
// model, then add the file as node data).
//
// The format (Model Explorer's "graph node data", restated from the model_explorer Python package's
// node_data_builder.py): one JSON object for one graph of the model,
//   {"results":  {"<node key>": {"value": NUMBER}, ...},
//    "gradient": [{"stop": 0, "bgColor": "#rrggbb"}, ..., {"stop": 1, "bgColor": "#rrggbb"}]}
// A node key is the id of a node of the graph Model Explorer shows, or the name of one of its
// output tensors. Every value is a number. The gradient colours each node by where its value lies
// between the smallest (stop 0) and the largest (stop 1) value of `results`, interpolating the hex
// colours between stops; it takes precedence over the format's other colouring field, "thresholds"
// (absolute upper bounds, each with a colour), which this file does not use. A node without a
// result keeps its normal look.
//
// Node keys: Model Explorer's .tflite adapter gives the operator at position i of the file's
// operator list the id "i" (its auxiliary input, output and constant nodes get ids after the
// operators), so each op is keyed by its file position (model::Node::file_index, which stays right
// when qparity reorders a graph that is not in execution order). An op with several compared
// outputs gets the worst of their values. .onnx models are refused: Model Explorer's ONNX adapter
// names a node by its NodeProto name, an unnamed node has no stable id there, and qparity's ONNX
// import adds layout transposes that Model Explorer does not show.
//
// The value is one metric of drift_gate.h's list ([iso.|acc.]METRIC; default max_lsb, or max_abs
// when no op is compared in LSBs), exactly as --json holds it. The gradient runs from green (no
// drift) to red (most drift): for cosine and sqnr, where larger means less drift, reversed. Rows
// without the metric (a float output asked for max_lsb) and non-finite values (the SQNR of an
// identical output is infinite; JSON has no infinity) are left out and counted.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "drift_gate.h"
#include "drift_report.h"

namespace qparity::cli {

struct NodeDataExport {
  std::string json;
  std::size_t nodes = 0;     ///< nodes with a value
  std::size_t left_out = 0;  ///< rows without the metric or with a non-finite value
};

/// The metric exported when none is asked for: max_lsb if some row is compared in LSBs, else max_abs.
MetricChoice default_node_data_metric(const DriftReport& report);

/// Node data of `report`, whose row i belongs to the node `node_keys[i]` (one key per row). Throws
/// ToolError naming `option` when no row has a finite value of the metric.
NodeDataExport model_explorer_node_data(const DriftReport& report, const std::vector<std::string>& node_keys,
                                        const MetricChoice& metric, const std::string& option);

}  // namespace qparity::cli
