// `qparity explain --model m.tflite --op OP [--a MAP] [--b MAP] [--input x.npy | --seed S]`: one op
// of a model. Its tensors and options; for each map, the system it picks for the op (and whether
// TFLite's XNNPACK delegate would take it), everything that system computes (PreparedNode::describe)
// and the rounding core's formula and tie rule; with --b, whether the two compute the same bits,
// and, on the model's inputs run under --a, how many of the op's output elements --b computes
// differently from the same inputs (the op in isolation) with the first of them.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <memory>
#include <new>

#include "commands.h"
#include "model/node_map.h"
#include "model/op.h"
#include "model/runner.h"
#include "model_inputs.h"
#include "plural.h"
#include "preset_params.h"
#include "qparity/policies.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "explain";

std::string quant_text(const model::TensorDef& t) {
  if (!t.quant.present()) return "not quantized";
  if (!t.quant.per_axis()) return fmt::format("scale {:g}, zero point {}", t.quant.scales[0], t.quant.zero_point());
  return fmt::format("{} scales along dimension {} ({:g}, ...)", t.quant.scales.size(), t.quant.axis,
                     t.quant.scales[0]);
}

/// The node `text` names: an index, a node name or an output tensor name.
std::size_t find_node(const model::Graph& g, const std::string& text) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) {
    if (text.size() > 9 || std::stoull(text) >= g.nodes.size()) {
      throw ToolError(fmt::format("--op {}: the model has {}; allowed: 0 to {}, a node name or an output tensor "
                                  "name", text, count_of(g.nodes.size(), "op"), g.nodes.size() - 1));
    }
    return static_cast<std::size_t>(std::stoull(text));
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == text) return i;
    for (int t : g.nodes[i].outputs) {
      if (t >= 0 && g.tensors[static_cast<std::size_t>(t)].name == text) return i;
    }
  }
  throw ToolError(fmt::format("--op '{}': no op has this index, name or output tensor name (`qparity inspect {}` "
                              "lists them)", text, g.source));
}

void tensor_lines(const model::Graph& g, const model::Node& n, fmt::memory_buffer& out) {
  auto it = std::back_inserter(out);
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const int t = n.inputs[i];
    if (t < 0) {
      fmt::format_to(it, "  input {}: omitted\n", i);
      continue;
    }
    const model::TensorDef& d = g.tensors[static_cast<std::size_t>(t)];
    fmt::format_to(it, "  input {}: {} {} {}, {}{}\n", i, g.tensor_label(t), to_string(d.dtype), shape_text(d.shape),
                   quant_text(d), d.constant() ? ", constant" : "");
  }
  for (std::size_t i = 0; i < n.outputs.size(); ++i) {
    const int t = n.outputs[i];
    const model::TensorDef& d = g.tensors[static_cast<std::size_t>(t)];
    fmt::format_to(it, "  output {}: {} {} {}, {}\n", i, g.tensor_label(t), to_string(d.dtype), shape_text(d.shape),
                   quant_text(d));
  }
}

void system_lines(const char* which, const std::string& map, const model::System& sys,
                  const std::vector<std::string>& lines, fmt::memory_buffer& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\n--{} {}: {}\n", which, map, sys.name);
  for (const std::string& l : lines) fmt::format_to(it, "  {}\n", l);
  if (sys.float_precision) return;  // no integer requantization: the lines above say how it rounds
  fmt::format_to(it, "  preset {}: rounding core {}: {}; ties: {}\n", sys.preset.name, to_string(sys.preset.core),
                 formula_text(sys.preset.core),
                 tie_rule_text(sys.preset.core));
}

/// The op's output elements computed under --b from the values --a's run gave its inputs, against
/// --a's outputs.
void isolated_difference(const model::Graph& g, std::size_t index, const model::Runner& ra, const model::Runner& rb,
                         fmt::memory_buffer& out) {
  std::vector<Tensor> values;
  values.reserve(g.tensors.size());
  for (std::size_t t = 0; t < g.tensors.size(); ++t) values.push_back(ra.value(static_cast<int>(t)));
  rb.prepared(index).run(values);
  auto it = std::back_inserter(out);
  const model::Node& n = g.nodes[index];
  for (int t : n.outputs) {
    const Tensor& a = ra.value(t);
    const Tensor& b = values[static_cast<std::size_t>(t)];
    std::size_t differ = 0, first = 0;
    double max_abs = 0.0;
    for (std::size_t e = 0; e < a.elements(); ++e) {
      const double d = std::fabs(a.value_at(e) - b.value_at(e));
      if (d != 0.0 || std::isnan(d)) {
        if (differ == 0) first = e;
        ++differ;
        if (d > max_abs) max_abs = d;
      }
    }
    fmt::format_to(it, "\nOn the same inputs (the model run under --a up to this op), {} of {} elements of {} differ "
                       "under --b", differ, a.elements(), g.tensor_label(t));
    if (differ == 0) {
      fmt::format_to(it, ".\n");
    } else {
      fmt::format_to(it, " (max |a - b| = {:g} stored units); first: element {}: a = {:g}, b = {:g}.\n", max_abs,
                     first, a.value_at(first), b.value_at(first));
    }
  }
}

int explain(const ExplainOptions& o) {
  const model::Graph g = load_model(o.model);
  const std::size_t index = find_node(g, o.op);
  const model::Node& n = g.nodes[index];
  const std::string map_a = o.a.empty() ? "tflite-xnnpack-x86" : o.a;
  const std::vector<model::System> sa = model::resolve_node_map(model::parse_node_map(map_a, "--a"), g, "--a");
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}: {}{}\n", g.source, g.node_label(index),
                 n.options ? fmt::format(", {}", n.options->describe()) : std::string());
  tensor_lines(g, n, out);
  const model::Op& op = model::op_of(n.op);
  fmt::format_to(it, "TFLite's XNNPACK delegate {} this op (the TFLite profiles run {}).\n",
                 op.xnnpack_takes(g, n) ? "takes" : "declines",
                 op.xnnpack_takes(g, n) ? "XNNPACK's operator" : "TFLite's own kernel");
  const model::Runner ra(g, sa);
  const std::vector<std::string> la = ra.prepared(index).describe();
  system_lines("a", map_a, sa[index], la, out);
  if (!o.b.empty()) {
    const std::vector<model::System> sb = model::resolve_node_map(model::parse_node_map(o.b, "--b"), g, "--b");
    const model::Runner rb(g, sb);
    const std::vector<std::string> lb = rb.prepared(index).describe();
    system_lines("b", o.b, sb[index], lb, out);
    // Line 0 names the arithmetic; the others state what is computed (PreparedNode::describe).
    const bool same = std::vector<std::string>(la.begin() + 1, la.end()) == std::vector<std::string>(lb.begin() + 1, lb.end());
    fmt::format_to(it, "\n--a and --b {} for this op.\n",
                   same ? "compute the same bits" : "compute it differently (the lines above that differ)");
    model::Runner run_a(g, sa);
    run_a.run(model_inputs(g, o.input, o.seed));
    isolated_difference(g, index, run_a, rb, out);
  }
  return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
}

}  // namespace

int run_explain_model_op(const ExplainOptions& options) {
  try {
    return explain(options);
  } catch (const ToolError& e) {
    print_error(kCommand, e.what());
    return e.exit_code();
  } catch (const InvalidArgument& e) {
    print_error(kCommand, without_library_prefix(e.what()));
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    print_error(kCommand, "out of memory");
    return kExitIoError;
  }
}

}  // namespace qparity::cli
