// `qparity run`: runs one layer, or a stack of layers, on .npy tensors under one preset and writes
// the result as .npy (the oracle entry point for scripts: .npy in, .npy out).
//
//   qparity run conv2d|depthwise_conv2d|fully_connected --preset P --input x.npy --filter w.npy
//       [--bias b.npy] --params p.json --output y.npy
//   qparity run --stack s.json --preset P [--input x.npy] [--output y.npy] [--all-outputs DIR]
//   qparity run --model m.tflite --preset P|PROFILE|MAP [--input x.npy[,y.npy]] [--output y.npy]
//       [--all-outputs DIR]
//
// Everything is read, validated and computed before the first file is written, and every file is
// written atomically (write_npy), so an error never leaves a partial or stale-looking output.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "input_files.h"
#include "layer.h"
#include "layer_runner.h"
#include "model/node_map.h"
#include "model/runner.h"
#include "model_inputs.h"
#include "npy.h"
#include "output_files.h"
#include "preset_params.h"
#include "stack_model.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "run";

// Creates `dir` if it does not exist (one level, like mkdir without -p) and checks that it is a
// directory.
void ensure_directory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    throw ToolError(fmt::format("--all-outputs: cannot create directory {}: {}", dir, std::strerror(errno)),
                    kExitIoError);
  }
  if (!is_directory(dir)) {
    throw ToolError(fmt::format("--all-outputs: {} is not a directory", dir), kExitIoError);
  }
}

int run_single(const RunOptions& o, Engine engine) {
  LayerType type{};
  if (!layer_type_from_string(o.op, &type)) {
    throw ToolError(fmt::format("unknown operation '{}'; allowed: conv2d, depthwise_conv2d, fully_connected", o.op));
  }
  for (const auto& [value, name] : {std::pair{&o.input, "--input"}, std::pair{&o.filter, "--filter"},
                                    std::pair{&o.params, "--params"}, std::pair{&o.output, "--output"}}) {
    if (value->empty()) throw ToolError(fmt::format("{} is required with 'run {}'", name, o.op));
  }
  if (!o.all_outputs.empty()) throw ToolError("--all-outputs applies to --stack only");
  const Preset preset = preset_by_name(o.preset);
  const Tensor input = read_npy(o.input);
  LayerSources sources;
  sources.type = type;
  sources.filter = read_npy(o.filter);
  if (!o.bias.empty()) sources.bias = read_npy(o.bias);
  const Layer layer = parse_layer(read_text_file(o.params), directory_of(o.params), o.params, sources);
  const Tensor output = run_layer(layer, preset, input, engine);
  write_npy(o.output, output);
  return kExitOk;
}

int run_stack_command(const RunOptions& o, Engine engine) {
  if (!o.op.empty()) throw ToolError(fmt::format("give either an operation ('{}') or --stack, not both", o.op));
  for (const auto& [value, name] : {std::pair{&o.filter, "--filter"}, std::pair{&o.bias, "--bias"},
                                    std::pair{&o.params, "--params"}}) {
    if (!value->empty()) throw ToolError(fmt::format("{} does not apply to --stack (the stack file names each layer's)", name));
  }
  if (o.output.empty() && o.all_outputs.empty()) throw ToolError("--stack needs --output, --all-outputs or both");
  Stack stack = load_stack(o.stack);
  // --input replaces the stack's own input (the same layers on real data).
  if (!o.input.empty()) stack.input = read_npy(o.input);
  if (!stack.input) throw ToolError(fmt::format("{}: the stack has no \"input\"; give one there or with --input", o.stack));
  std::vector<Tensor> outputs;
  if (is_float_stack(stack)) {
    // A float stack runs as a float model under a float precision or a per-layer map of them.
    const model::Graph graph = stack_graph(stack, o.stack);
    const model::NodeMap map = model::parse_node_map(o.preset, "--preset");
    model::Runner runner(graph, model::resolve_node_map(map, graph, "--preset"));
    runner.run({*stack.input});
    for (const model::Node& node : graph.nodes) outputs.push_back(runner.value(node.outputs[0]));
  } else {
    outputs = run_stack(stack, {preset_by_name(o.preset)}, *stack.input, engine);
  }
  // All or nothing: the layer dumps and the final output are written together (output_files.h).
  OutputFiles files;
  if (!o.all_outputs.empty()) {
    ensure_directory(o.all_outputs);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      files.add(o.all_outputs + "/" + layer_output_file_name(i, outputs.size(), stack.layers[i]),
                serialize_npy(outputs[i]));
    }
  }
  if (!o.output.empty()) files.add(o.output, serialize_npy(outputs.back()));
  files.commit();
  return kExitOk;
}

int run_model_command(const RunOptions& o, Engine engine) {
  if (!o.op.empty()) throw ToolError(fmt::format("give either an operation ('{}') or --model, not both", o.op));
  if (!o.stack.empty()) throw ToolError("give either --stack or --model, not both");
  for (const auto& [value, name] : {std::pair{&o.filter, "--filter"}, std::pair{&o.bias, "--bias"},
                                    std::pair{&o.params, "--params"}}) {
    if (!value->empty()) throw ToolError(fmt::format("{} does not apply to --model (the model holds its weights)", name));
  }
  if (o.output.empty() && o.all_outputs.empty()) throw ToolError("--model needs --output, --all-outputs or both");
  const model::NodeMap map = model::parse_node_map(o.preset, "--preset");
  const model::Graph graph = load_model(o.model);
  const std::vector<model::System> systems = model::resolve_node_map(map, graph, "--preset");
  const std::vector<Tensor> inputs = model_inputs(graph, o.input, o.seed);
  model::Runner runner(graph, systems, engine == Engine::kFast ? model::Engine::kFast : model::Engine::kReference,
                       model::checked_thread_count(o.threads, "--threads"));
  runner.run(inputs);
  OutputFiles files;
  if (!o.all_outputs.empty()) {
    make_directory(o.all_outputs);
    for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
      if (graph.tensors[t].constant()) continue;
      files.add(o.all_outputs + "/" + graph.dump_file_name(static_cast<int>(t)), serialize_npy(runner.value(static_cast<int>(t))));
    }
  }
  if (!o.output.empty()) {
    if (graph.outputs.size() != 1) {
      throw ToolError(fmt::format("--output: {} has {} outputs; use --all-outputs DIR for models with several",
                                  o.model, graph.outputs.size()));
    }
    files.add(o.output, serialize_npy(runner.value(graph.outputs[0])));
  }
  files.commit();
  return kExitOk;
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, RunOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run a conv2d, depthwise_conv2d or fully_connected layer, or a stack of them, on .npy tensors "
      "under one preset; write the output as .npy.");
  sub->add_option("operation", o->op, "conv2d, depthwise_conv2d or fully_connected (omit with --stack)")
      ->type_name("OP");
  sub->add_option("--preset", o->preset,
                  "Preset name (see 'qparity list') or an NPU family name; float stacks and models: a float "
                  "precision, fp32, fp16, fp16-acc16 or bf16")
      ->required()
      ->type_name("NAME");
  sub->add_option("--input", o->input, "Input tensor (.npy, int8 or uint8; conv: NHWC)")->type_name("FILE");
  sub->add_option("--filter", o->filter, "Filter (.npy, int8; conv2d OHWI, depthwise 1HWO, fully_connected OI)")
      ->type_name("FILE");
  sub->add_option("--bias", o->bias, "Bias (.npy, int32 [out_channels])")->type_name("FILE");
  sub->add_option("--params", o->params, "Layer parameters (JSON, tools/qparity/SCHEMA.md)")->type_name("FILE");
  sub->add_option("--stack", o->stack, "Stack file (JSON: input and layers, SCHEMA.md)")->type_name("FILE");
  sub->add_option("--model", o->model,
                  "A .tflite or .onnx model: --preset then takes a preset, a runtime profile or a per-op map")
      ->type_name("FILE");
  sub->add_option("--seed", o->seed, "With --model and no --input: seed of the generated inputs (default 1)");
  sub->add_option("--output", o->output, "Write the (last layer's) output here (.npy)")->type_name("FILE");
  sub->add_option("--all-outputs", o->all_outputs,
                  "With --stack: every layer's output as DIR/<index>_<name>.npy; with --model: every "
                  "tensor as DIR/<tensor name>.npy (DIR is created)")
      ->type_name("DIR");
  sub->add_option("--threads", o->threads,
                  "With --model: threads for the convolutions and fully connected layers (1..64, default 1; "
                  "the same bits as 1)")
      ->type_name("N");
  sub->add_flag("--reference", o->reference,
                "Use the library's header-only reference kernels instead of the fast paths (same bits)");
  sub->footer(
      "Arithmetic: the preset's rounding core, multiplier derivation, scale composition, clamp\n"
      "derivation and accumulator model, bit-exact with the qparity library.\n"
      "Files: everything is validated and computed before anything is written; outputs are written\n"
      "atomically (a failure never leaves a partial file).\n"
      "Exit status: 0 success, 1 I/O error, 2 invalid option or malformed/inconsistent input.");
  return sub;
}

int run_run(const RunOptions& options) {
  try {
    const Engine engine = options.reference ? Engine::kReference : Engine::kFast;
    if (!options.model.empty()) return run_model_command(options, engine);
    model::checked_thread_count(options.threads, "--threads");
    if (options.threads != 1) throw ToolError("--threads applies to --model only");
    if (!options.stack.empty()) return run_stack_command(options, engine);
    if (options.op.empty()) throw ToolError("give an operation (conv2d, depthwise_conv2d, fully_connected) or --stack");
    return run_single(options, engine);
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
