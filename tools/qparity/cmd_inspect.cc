// `qparity inspect`: what a model contains (ops, tensors, shapes, quantization) and, under one or
// two arithmetics (per-op maps: presets, runtime profiles), each op's arithmetic and derived integer
// parameters, and which ops the two treat differently.
//
//   qparity inspect m.tflite [--a MAP [--b MAP]]
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <new>

#include "commands.h"
#include "model/node_map.h"
#include "model/op.h"
#include "model/runner.h"
#include "model_inputs.h"
#include "plural.h"
#include "preset_params.h"
#include "table.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "inspect";

std::string quant_text(const model::TensorDef& t) {
  if (!t.quant.present()) return "-";
  if (!t.quant.per_axis()) return fmt::format("scale {:g} zp {}", t.quant.scales[0], t.quant.zero_point());
  return fmt::format("{} scales along dim {} ({:g} ...)", t.quant.scales.size(), t.quant.axis, t.quant.scales[0]);
}

std::string tensor_list(const std::vector<int>& ts) {
  std::vector<std::string> parts;
  for (int t : ts) parts.push_back(t < 0 ? std::string("-") : std::to_string(t));
  return fmt::format("{}", fmt::join(parts, ","));
}

int inspect(const InspectOptions& o) {
  const model::Graph g = load_model(o.model);
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "{}: {}, {}, inputs [{}], outputs [{}]\n\n", g.source,
                 count_of(g.nodes.size(), "op"), count_of(g.tensors.size(), "tensor"), tensor_list(g.inputs), tensor_list(g.outputs));
  Table ops({"op", "type", "name", "inputs", "outputs", "options"});
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const model::Node& n = g.nodes[i];
    ops.add_row({std::to_string(i), model::to_string(n.op), n.name, tensor_list(n.inputs), tensor_list(n.outputs),
                 n.options ? n.options->describe() : std::string("")});
  }
  ops.render(out);
  fmt::format_to(std::back_inserter(out), "\n");
  Table tensors({"tensor", "name", "type", "shape", "quantization", "data"});
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    const model::TensorDef& d = g.tensors[t];
    tensors.add_row({std::to_string(t), d.name, to_string(d.dtype), shape_text(d.shape), quant_text(d),
                     d.constant() ? "constant" : ""});
  }
  tensors.render(out);
  if (!o.a.empty()) {
    const std::vector<model::System> sa =
        model::resolve_node_map(model::parse_node_map(o.a, "--a"), g, "--a");
    const model::Runner ra(g, sa);
    std::vector<model::System> sb;
    std::unique_ptr<model::Runner> rb;
    if (!o.b.empty()) {
      sb = model::resolve_node_map(model::parse_node_map(o.b, "--b"), g, "--b");
      rb = std::make_unique<model::Runner>(g, sb);
    }
    fmt::format_to(std::back_inserter(out), "\nArithmetic under --a {}{}:\n", o.a, o.b.empty() ? "" : fmt::format(" and --b {}", o.b));
    std::vector<std::string> differ;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      fmt::format_to(std::back_inserter(out), "  {}\n", g.node_label(i));
      const std::vector<std::string> la = ra.prepared(i).describe();
      for (const std::string& l : la) fmt::format_to(std::back_inserter(out), "    a: {}\n", l);
      if (rb) {
        const std::vector<std::string> lb = rb->prepared(i).describe();
        for (const std::string& l : lb) fmt::format_to(std::back_inserter(out), "    b: {}\n", l);
        // The first line names the arithmetic; the rest state what is computed (PreparedNode::describe).
        const bool same_values = std::vector<std::string>(la.begin() + (la.empty() ? 0 : 1), la.end()) ==
                                 std::vector<std::string>(lb.begin() + (lb.empty() ? 0 : 1), lb.end());
        if (!same_values) differ.push_back(g.node_label(i));
      }
    }
    if (rb) {
      fmt::format_to(std::back_inserter(out), "\n{} of {} ops differ between --a and --b{}{}\n", differ.size(),
                     g.nodes.size(), differ.empty() ? "" : ": ", fmt::join(differ, ", "));
    }
  }
  return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
}

}  // namespace

CLI::App* add_inspect_command(CLI::App& app, InspectOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "inspect", "Show a model's ops, tensors and quantization, and under --a (and --b) each op's arithmetic "
                 "and derived integer parameters.");
  sub->add_option("model", o->model, "A .tflite or .onnx model")->required()->type_name("FILE");
  sub->add_option("--a", o->a, "A preset, runtime profile or per-op map whose parameters are shown")->type_name("MAP");
  sub->add_option("--b", o->b, "With --a: a second one; lists the ops the two treat differently")->type_name("MAP");
  sub->footer("Exit status: 0 success, 1 I/O error, 2 invalid option or malformed model.");
  return sub;
}

int run_inspect(const InspectOptions& o) {
  try {
    if (!o.b.empty() && o.a.empty()) throw ToolError("--b needs --a");
    return inspect(o);
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
