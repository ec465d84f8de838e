#include "model/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "model/op.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

std::int64_t Quantization::zero_point(std::size_t i) const {
  if (zero_points.empty()) return 0;
  return zero_points.size() == 1 ? zero_points[0] : zero_points[i];
}

std::string Graph::node_label(std::size_t index) const {
  const Node& n = nodes[index];
  if (n.name.empty()) return fmt::format("op {} ({})", index, to_string(n.op));
  return fmt::format("op {} ({} '{}')", index, to_string(n.op), n.name);
}

std::string Graph::tensor_label(int index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= tensors.size()) {
    return fmt::format("tensor {}", index);
  }
  const std::string& name = tensors[static_cast<std::size_t>(index)].name;
  return name.empty() ? fmt::format("tensor {}", index) : fmt::format("tensor {} '{}'", index, name);
}

int Graph::producer(int t) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (int o : nodes[i].outputs) {
      if (o == t) return static_cast<int>(i);
    }
  }
  return -1;
}

namespace {

std::string sanitized(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) c = '_';
  }
  if (!out.empty() && out[0] == '.') out[0] = '_';  // no hidden files, no ".."
  return out;
}

}  // namespace

std::string Graph::dump_file_name(int t) const {
  const auto ut = static_cast<std::size_t>(t);
  const std::string base = tensors[ut].name.empty() ? fmt::format("tensor_{}", t) : sanitized(tensors[ut].name);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (i == ut) continue;
    const std::string other = tensors[i].name.empty() ? fmt::format("tensor_{}", i) : sanitized(tensors[i].name);
    if (other == base) return fmt::format("{}_{}.npy", base, t);
  }
  return base + ".npy";
}

namespace {

[[noreturn]] void graph_error(const Graph& g, const std::string& problem) {
  throw ToolError(fmt::format("{}: {}", g.source, problem));
}

// Puts the nodes in an order where every tensor is produced before it is read (Kahn's algorithm,
// stable: a graph already in order keeps it). A node waiting forever is on a cycle.
void sort_topologically(Graph& g, const std::vector<int>& producer_of) {
  const std::size_t n = g.nodes.size();
  std::vector<std::size_t> waiting(n, 0);
  std::vector<std::vector<std::size_t>> consumers(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int t : g.nodes[i].inputs) {
      if (t < 0) continue;
      const int p = producer_of[static_cast<std::size_t>(t)];
      if (p >= 0) {
        ++waiting[i];
        consumers[static_cast<std::size_t>(p)].push_back(i);
      }
    }
  }
  std::vector<std::size_t> order;
  std::vector<bool> done(n, false);
  // Repeatedly take the lowest-index ready node, so the file's order is kept where it is valid.
  for (std::size_t round = 0; round < n; ++round) {
    std::size_t pick = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (!done[i] && waiting[i] == 0) {
        pick = i;
        break;
      }
    }
    if (pick == n) {
      std::vector<std::string> stuck;
      for (std::size_t i = 0; i < n && stuck.size() < 8; ++i) {
        if (!done[i]) stuck.push_back(g.node_label(i));
      }
      graph_error(g, fmt::format("the graph has a cycle: {} wait for each other's outputs",
                                 fmt::join(stuck, ", ")));
    }
    done[pick] = true;
    order.push_back(pick);
    for (std::size_t c : consumers[pick]) --waiting[c];
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (std::size_t i : order) sorted.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(sorted);
}

}  // namespace

void validate(Graph& g) {
  const std::size_t nt = g.tensors.size();
  auto check_index = [&](int t, const std::string& where) {
    if (t < 0 || static_cast<std::size_t>(t) >= nt) {
      graph_error(g, fmt::format("{} names tensor {}; allowed: 0 to {}", where, t,
                                 nt == 0 ? -1 : static_cast<long long>(nt) - 1));
    }
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i) check_index(g.inputs[i], fmt::format("inputs[{}]", i));
  for (std::size_t i = 0; i < g.outputs.size(); ++i) check_index(g.outputs[i], fmt::format("outputs[{}]", i));
  if (g.outputs.empty()) graph_error(g, "the graph has no outputs");

  // Each tensor has at most one producer; graph inputs and constants have none.
  std::vector<int> producer_of(nt, -1);
  std::vector<bool> is_input(nt, false);
  for (int t : g.inputs) {
    if (is_input[static_cast<std::size_t>(t)]) {
      graph_error(g, fmt::format("{} is listed twice as a graph input", g.tensor_label(t)));
    }
    is_input[static_cast<std::size_t>(t)] = true;
    if (g.tensors[static_cast<std::size_t>(t)].constant()) {
      graph_error(g, fmt::format("{} is a graph input and a constant", g.tensor_label(t)));
    }
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      if (node.inputs[k] == -1) continue;
      check_index(node.inputs[k], fmt::format("{} input {}", g.node_label(i), k));
    }
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      const int t = node.outputs[k];
      check_index(t, fmt::format("{} output {}", g.node_label(i), k));
      const auto ut = static_cast<std::size_t>(t);
      if (g.tensors[ut].constant()) {
        graph_error(g, fmt::format("{} writes {}, which is a constant", g.node_label(i), g.tensor_label(t)));
      }
      if (is_input[ut]) {
        graph_error(g, fmt::format("{} writes {}, which is a graph input", g.node_label(i), g.tensor_label(t)));
      }
      if (producer_of[ut] >= 0) {
        graph_error(g, fmt::format("{} is written by both {} and {}", g.tensor_label(t),
                                   g.node_label(static_cast<std::size_t>(producer_of[ut])), g.node_label(i)));
      }
      producer_of[ut] = static_cast<int>(i);
    }
  }
  // Every tensor a node reads exists by then: a graph input, a constant or some node's output.
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (int t : g.nodes[i].inputs) {
      if (t < 0) continue;
      const auto ut = static_cast<std::size_t>(t);
      if (!is_input[ut] && !g.tensors[ut].constant() && producer_of[ut] < 0) {
        graph_error(g, fmt::format("{} reads {}, which no op produces and which is neither a graph "
                                   "input nor a constant", g.node_label(i), g.tensor_label(t)));
      }
    }
  }
  for (int t : g.outputs) {
    const auto ut = static_cast<std::size_t>(t);
    if (!is_input[ut] && !g.tensors[ut].constant() && producer_of[ut] < 0) {
      graph_error(g, fmt::format("graph output {} is not produced by any op", g.tensor_label(t)));
    }
  }
  sort_topologically(g, producer_of);
  // Each op checks its own contract and infers its outputs' shapes, in execution order so that
  // an op sees its inputs' checked shapes.
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    op_of(g.nodes[i].op).check(g, g.nodes[i]);
  }
}

}  // namespace qparity::model
