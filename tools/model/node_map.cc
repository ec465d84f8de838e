#include "model/node_map.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "model/op.h"
#include "plural.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

namespace {

constexpr std::size_t kOpen = std::numeric_limits<std::size_t>::max();

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool parse_index(const std::string& s, std::size_t* out) {
  if (s.empty() || s.size() > 9) return false;
  std::size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  *out = v;
  return true;
}

/// "I", "I-J" or "I-"; false if `s` is not a range at all.
bool parse_range(const std::string& s, std::size_t* first, std::size_t* last) {
  const auto dash = s.find('-');
  if (dash == std::string::npos) {
    if (!parse_index(s, first)) return false;
    *last = *first;
    return true;
  }
  if (!parse_index(s.substr(0, dash), first)) return false;
  const std::string rest = s.substr(dash + 1);
  if (rest.empty()) {
    *last = kOpen;
    return true;
  }
  return parse_index(rest, last);
}

bool names_node(const Graph& g, const Node& n, const std::string& name) {
  if (n.name == name) return true;
  for (int t : n.outputs) {
    if (g.tensors[static_cast<std::size_t>(t)].name == name) return true;
  }
  return false;
}

}  // namespace

NodeMap parse_node_map(const std::string& text, const std::string& option) {
  NodeMap map;
  map.text = text;
  std::size_t start = 0;
  bool have_default = false;
  if (trim(text).empty()) throw ToolError(fmt::format("{}: empty; allowed: a profile or preset name", option));
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) throw ToolError(fmt::format("{}: '{}' has an empty item", option, text));
    NodeMapItem it;
    it.text = item;
    const auto eq = item.find('=');
    const std::string profile = trim(eq == std::string::npos ? item : item.substr(eq + 1));
    try {
      it.profile = find_profile(profile);
    } catch (const ToolError& e) {
      throw ToolError(fmt::format("{}: item '{}': {}", option, item, e.what()));
    }
    if (eq == std::string::npos) {
      if (have_default) {
        throw ToolError(fmt::format("{}: '{}' names two defaults; allowed: one item without '='", option, text));
      }
      have_default = true;
      it.kind = NodeMapItem::Kind::kDefault;
    } else {
      const std::string sel = trim(item.substr(0, eq));
      if (sel.empty()) throw ToolError(fmt::format("{}: item '{}' has no selector before '='", option, item));
      OpKind kind{};
      if (parse_range(sel, &it.first, &it.last)) {
        if (it.last < it.first) {
          throw ToolError(fmt::format("{}: range '{}' ends before it starts", option, sel));
        }
        it.kind = NodeMapItem::Kind::kRange;
      } else if (op_from_name(sel, &kind)) {
        it.kind = NodeMapItem::Kind::kOpType;
        it.op = kind;
      } else {
        it.kind = NodeMapItem::Kind::kName;
        it.name = sel;
      }
    }
    map.items.push_back(std::move(it));
  }
  return map;
}

std::vector<System> resolve_node_map(const NodeMap& map, const Graph& graph, const std::string& option) {
  const std::size_t n = graph.nodes.size();
  // Priority per node: 3 range, 2 name, 1 op type, 0 default; -1 none yet.
  std::vector<int> rank(n, -1);
  std::vector<System> systems(n);
  for (const NodeMapItem& it : map.items) {
    int r = 0;
    bool matched = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Node& node = graph.nodes[i];
      bool hit = false;
      switch (it.kind) {
        case NodeMapItem::Kind::kDefault: hit = true; r = 0; break;
        case NodeMapItem::Kind::kRange:
          hit = i >= it.first && i <= it.last;
          r = 3;
          break;
        case NodeMapItem::Kind::kOpType:
          hit = node.op == it.op;
          r = 1;
          break;
        case NodeMapItem::Kind::kName:
          hit = names_node(graph, node, it.name);
          r = 2;
          break;
      }
      if (!hit) continue;
      matched = true;
      if (rank[i] == r && r > 0) {
        throw ToolError(fmt::format("{}: items name {} twice at the same priority ('{}' and an earlier one)",
                                    option, graph.node_label(i), it.text));
      }
      if (r > rank[i]) {
        rank[i] = r;
        systems[i] = it.profile.pick(graph, node);
      }
    }
    if (it.kind == NodeMapItem::Kind::kRange && it.last != kOpen && it.last >= n) {
      throw ToolError(fmt::format("{}: range '{}' goes beyond the last op ({}; the model has {})", option,
                                  it.text, n == 0 ? 0 : n - 1, cli::count_of(n, "op")));
    }
    if (!matched && it.kind != NodeMapItem::Kind::kDefault) {
      throw ToolError(fmt::format("{}: '{}' names no op of {} (see `qparity inspect` for the ops, their "
                                  "indices and names)", option, it.text, graph.source));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (rank[i] < 0) {
      throw ToolError(fmt::format("{}: {} has no arithmetic; add a default (a profile or preset without '=')",
                                  option, graph.node_label(i)));
    }
  }
  return systems;
}

}  // namespace qparity::model
