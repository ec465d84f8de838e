// Per-node arithmetic maps for models: which system (system.h) runs each node, as in a
// heterogeneous deployment (TFLite op by op, an NPU delegate that takes some ops).
//
// Syntax: a comma-separated list of items; each item is either
//   PROFILE            the default for every node no other item names (at most one), or
//   SELECTOR=PROFILE   the nodes SELECTOR names:
//       I, I-J, I-     node indices (0-based, execution order, as `inspect` and `diff` print them)
//       an op type     CONV_2D, ADD, ... (op_list.h names, case-insensitive)
//       a name         a node's name or one of its output tensors' names
// PROFILE is a runtime profile (tflite-xnnpack-x86, ...) or a preset (find_preset). When several
// items name a node, an index or range wins over a name, and a name over an op type. Without a
// default, every node must be named. Examples:
//   "tflite-xnnpack-x86"   "npu-verisilicon,SOFTMAX=tflite-reference"   "0-4=ruy-arm,5-=xnnpack-fp32"
#pragma once

#include <string>
#include <vector>

#include "model/graph.h"
#include "model/system.h"

namespace qparity::model {

struct NodeMapItem {
  enum class Kind { kDefault, kRange, kOpType, kName } kind = Kind::kDefault;
  std::size_t first = 0, last = 0;  ///< kRange (last inclusive; SIZE_MAX for "I-")
  OpKind op = OpKind::kConv2D;      ///< kOpType
  std::string name;                 ///< kName
  std::string text;                 ///< the item as written
  Profile profile;
};

struct NodeMap {
  std::vector<NodeMapItem> items;
  std::string text;  ///< the whole map as written
};

/// Parses the syntax (profiles are looked up here, so an unknown name fails early). Throws
/// cli::ToolError starting with `option` and quoting the item.
NodeMap parse_node_map(const std::string& text, const std::string& option);

/// The system of every node. Throws cli::ToolError (starting with `option`) for a range beyond the
/// last node, a name or op type no node has, or nodes left without a system.
std::vector<System> resolve_node_map(const NodeMap& map, const Graph& graph,
                                     const std::string& option);

}  // namespace qparity::model
