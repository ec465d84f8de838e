// `qparity diff`: drift between two arithmetics, layer by layer (drift_report.h).
//
//   qparity diff --stack s.json --a PRESET_MAP --b PRESET_MAP   run the stack twice (and B once more
//                                                               per layer on A's input: isolated drift)
//   qparity diff --dump-a A --dump-b B                          two .npy dumps, or two directories
//                                                               of per-layer dumps matched by name
//   qparity diff --model m.tflite --a MAP --b MAP               a model under two per-op maps (presets,
//                                                               runtime profiles): per op, isolated and
//                                                               accumulated drift of its outputs
//   qparity diff --model m.tflite --a MAP --dump-b DIR          the model under A against a device's
//                                                               dumps, by tensor name
// Prints the aligned table; --csv, --json, --svg-histogram and --svg-propagation write files, all
// together at the end or none at all (output_files.h).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "csv_input.h"
#include "drift_report.h"
#include "layer_runner.h"
#include "model/model_diff.h"
#include "model_inputs.h"
#include "natural_order.h"
#include "npy.h"
#include "output_files.h"
#include "preset_map.h"
#include "progress_bar.h"
#include "svg_plot.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "diff";

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The .npy files of a directory in natural order (layer2 before layer10; run --all-outputs
// zero-pads the layer index, other tools' dumps often do not).
std::vector<std::string> npy_files(const std::string& dir, const std::string& option) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) throw ToolError(fmt::format("{}: cannot open directory {}", option, dir), kExitIoError);
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end(), natural_less);
  return names;
}

void diff_stack(const DiffOptions& o, DriftReport* report) {
  if (o.a.empty() || o.b.empty()) throw ToolError("--stack needs --a and --b (presets or preset maps)");
  if (!o.zero_point.empty()) throw ToolError("--zero-point applies to dumps only (a stack knows its zero points)");
  const Stack stack = load_stack(o.stack);
  Tensor input;
  if (!o.input.empty()) {
    input = read_npy(o.input);
  } else if (stack.input) {
    input = *stack.input;
  } else {
    throw ToolError(fmt::format("{} has no \"input\"; give --input x.npy", o.stack));
  }
  const PresetMap map_a = parse_preset_map(o.a, "--a"), map_b = parse_preset_map(o.b, "--b");
  const std::vector<Preset> presets_a = resolve_preset_map(map_a, stack.layers.size(), "--a");
  const std::vector<Preset> presets_b = resolve_preset_map(map_b, stack.layers.size(), "--b");
  report->label_a = preset_map_text(map_a);
  report->label_b = preset_map_text(map_b);
  report->source = o.stack;

  ProgressBar progress("diff", stack.layers.size());
  Tensor a_prev = input, b_prev = input;
  for (std::size_t i = 0; i < stack.layers.size(); ++i) {
    const Layer& layer = stack.layers[i];
    progress.update(i, layer_label(i, layer));
    LayerDrift d;
    d.index = i;
    d.name = layer.name;
    d.preset_a = presets_a[i].name;
    d.preset_b = presets_b[i].name;
    d.zero_point = layer.output_zero_point;
    try {
      Tensor a = run_layer(layer, presets_a[i], a_prev);
      Tensor b = run_layer(layer, presets_b[i], b_prev);
      // Layer 0 is fed the same input on both sides: isolated = accumulated, no third run.
      const Tensor b_isolated = i == 0 ? b : run_layer(layer, presets_b[i], a_prev);
      d.shape = a.shape;
      d.accumulated = compute_drift(a, b, d.zero_point, o.per_channel);
      d.isolated = compute_drift(a, b_isolated, d.zero_point, o.per_channel);
      a_prev = std::move(a);
      b_prev = std::move(b);
    } catch (const ToolError& e) {
      throw ToolError(fmt::format("{}: {}", layer_label(i, layer), e.what()), e.exit_code());
    }
    report->layers.push_back(std::move(d));
  }
}

void diff_dumps(const DiffOptions& o, DriftReport* report) {
  if (o.dump_a.empty() || o.dump_b.empty()) throw ToolError("give both --dump-a and --dump-b");
  if (!o.a.empty() || !o.b.empty() || !o.input.empty()) {
    throw ToolError("--a, --b and --input apply to --stack; dumps are compared as they are");
  }
  std::int64_t zero_point = 0;
  if (!o.zero_point.empty()) {
    if (parse_int64(o.zero_point, &zero_point) != ParseStatus::kOk || zero_point < -2147483648LL ||
        zero_point > 2147483647LL) {
      throw ToolError(fmt::format("--zero-point: '{}' is not an integer in [-2147483648, 2147483647]", o.zero_point));
    }
  }
  report->label_a = o.dump_a;
  report->label_b = o.dump_b;
  report->source = "dumps";
  std::vector<std::pair<std::string, std::string>> pairs;  // (path a, path b)
  std::vector<std::string> names;
  const bool dir_a = is_directory(o.dump_a), dir_b = is_directory(o.dump_b);
  if (dir_a != dir_b) {
    throw ToolError(fmt::format("--dump-a {} is {} but --dump-b {} is {}; give two .npy files or two directories",
                                o.dump_a, dir_a ? "a directory" : "a file", o.dump_b, dir_b ? "a directory" : "a file"));
  }
  if (dir_a) {
    const std::vector<std::string> a = npy_files(o.dump_a, "--dump-a"), b = npy_files(o.dump_b, "--dump-b");
    const std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
    for (const std::string& n : a) {
      if (!sb.count(n)) throw ToolError(fmt::format("--dump-b: {} has no {} (which --dump-a {} has)", o.dump_b, n, o.dump_a));
    }
    for (const std::string& n : b) {
      if (!sa.count(n)) throw ToolError(fmt::format("--dump-a: {} has no {} (which --dump-b {} has)", o.dump_a, n, o.dump_b));
    }
    if (a.empty()) throw ToolError(fmt::format("--dump-a: {} holds no .npy files", o.dump_a));
    for (const std::string& n : a) {
      pairs.emplace_back(o.dump_a + "/" + n, o.dump_b + "/" + n);
      names.push_back(n);
    }
  } else {
    pairs.emplace_back(o.dump_a, o.dump_b);
    names.push_back(o.dump_a.substr(o.dump_a.find_last_of('/') + 1));
  }
  ProgressBar progress("diff", pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    progress.update(i, names[i]);
    const Tensor a = read_npy(pairs[i].first), b = read_npy(pairs[i].second);
    LayerDrift d;
    d.index = i;
    d.name = names[i];
    d.shape = a.shape;
    d.zero_point = zero_point;
    d.accumulated = compute_drift(a, b, zero_point, o.per_channel, pairs[i].first, pairs[i].second);
    report->layers.push_back(std::move(d));
  }
}

void diff_model(const DiffOptions& o, DriftReport* report, std::size_t* float_outputs) {
  if (o.a.empty()) throw ToolError("--model needs --a (a preset, runtime profile or per-op map)");
  if (o.b.empty() == o.dump_b.empty()) throw ToolError("--model needs --b (an arithmetic) or --dump-b (a device's dumps), one of them");
  if (!o.dump_a.empty()) throw ToolError("--dump-a does not apply to --model (A runs the model; use --dump-b for the device)");
  if (!o.zero_point.empty()) throw ToolError("--zero-point applies to dumps only (a model knows its zero points)");
  if (!o.dump_b.empty() && !is_directory(o.dump_b)) {
    throw ToolError(fmt::format("--dump-b: {} is not a directory of per-tensor dumps", o.dump_b));
  }
  const model::Graph graph = load_model(o.model);
  model::ModelDiffOptions mo;
  mo.a = o.a;
  mo.b = o.b;
  mo.dump_b = o.dump_b;
  mo.per_channel = o.per_channel;
  ProgressBar progress("diff", graph.nodes.size());
  mo.progress = [&](std::size_t i, const std::string& label) { progress.update(i, label); };
  *report = model::diff_model(graph, model_inputs(graph, o.input, o.seed), mo, float_outputs);
  report->per_channel = o.per_channel;
}

}  // namespace

CLI::App* add_diff_command(CLI::App& app, DiffOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "diff",
      "Drift between two arithmetics layer by layer: a stack under two presets (or per-layer preset "
      "maps), or two tensor dumps. Per layer: elements differing, histogram of b - a in LSBs, max "
      "|diff|, MAE, cosine similarity; isolated and accumulated.");
  sub->add_option("--stack", o->stack, "Stack JSON to run under A and B")->type_name("FILE");
  sub->add_option("--model", o->model, "A .tflite or .onnx model to run under A and B (or A and the dumps of --dump-b)")
      ->type_name("FILE");
  sub->add_option("--seed", o->seed, "With --model and no --input: seed of the generated inputs (default 1)");
  sub->add_option("--input", o->input, "Input .npy (default: the stack's \"input\")")->type_name("FILE");
  sub->add_option("--a", o->a, "Arithmetic A: a preset, or a per-layer preset map (below)")->type_name("MAP");
  sub->add_option("--b", o->b, "Arithmetic B: a preset, or a per-layer preset map")->type_name("MAP");
  sub->add_option("--dump-a", o->dump_a, "Or compare dumps: a .npy file, or a directory of per-layer .npy files")
      ->type_name("PATH");
  sub->add_option("--dump-b", o->dump_b, "The other dump (file, or directory with the same file names)")
      ->type_name("PATH");
  sub->add_option("--zero-point", o->zero_point, "Dumps: the output zero point the cosine is taken around (default 0)")
      ->type_name("ZP");
  sub->add_option("--csv", o->csv, "Write the per-layer metrics as CSV")->type_name("FILE");
  sub->add_option("--json", o->json, "Write the per-layer metrics and histograms as JSON")->type_name("FILE");
  sub->add_option("--svg-histogram", o->svg_histogram, "Write the per-layer histograms of b - a as SVG")
      ->type_name("FILE");
  sub->add_option("--svg-propagation", o->svg_propagation,
                  "Write the propagation curve (% differing and MAE per layer) as SVG")
      ->type_name("FILE");
  sub->add_flag("--per-channel", o->per_channel, "Add the per-channel breakdown (last axis) to the JSON");
  sub->footer(
      "Preset maps: comma-separated items, each PRESET (the default for every layer not named) or\n"
      "RANGE=PRESET with RANGE = I, I-J or I- (0-based layer indices, inclusive, as in the stack's\n"
      "\"layers\" array and the table). Ranges must not overlap and must lie inside the stack.\n"
      "  --b npu-verisilicon,3-5=tflite-reference   layers 3, 4, 5 on tflite-reference, others on the NPU\n"
      "  --a 0-9=ruy-arm,10-=xnnpack-fp32             no default: the ranges must cover every layer\n"
      "Isolated drift: layer i under B fed A's output of layer i-1 (what layer i alone changes).\n"
      "Accumulated drift: each side fed its own previous output (what a device run shows). Dumps\n"
      "give accumulated drift only. Cosine: of the values minus the zero point (= of the dequantized\n"
      "tensors); 1 for two all-zero tensors, 0 if only one is all zero.\n"
      "Output files are written only when everything succeeded (never partially).\n"
      "A progress bar is drawn on stderr when it is a terminal (QPARITY_PROGRESS=always|never).\n"
      "Exit status: 0 success, 1 I/O error, 2 invalid usage or input.");
  return sub;
}

int run_diff(const DiffOptions& options) {
  try {
    DriftReport report;
    report.per_channel = options.per_channel;
    const bool model_mode = !options.model.empty();
    const bool stack_mode = !options.stack.empty() || model_mode;
    const bool dump_mode = !model_mode && (!options.dump_a.empty() || !options.dump_b.empty());
    if (model_mode && !options.stack.empty()) throw ToolError("give --model or --stack, not both");
    if (stack_mode && dump_mode) throw ToolError("give --stack (with --a, --b) or --dump-a/--dump-b, not both");
    if (!stack_mode && !dump_mode) {
      throw ToolError("give --model FILE --a A --b B, --stack FILE --a A --b B, or --dump-a A --dump-b B");
    }
    std::size_t float_outputs = 0;
    if (model_mode) {
      diff_model(options, &report, &float_outputs);
    } else if (stack_mode) {
      diff_stack(options, &report);
    } else {
      diff_dumps(options, &report);
    }

    OutputFiles files;
    if (!options.csv.empty()) files.add(options.csv, drift_csv(report));
    if (!options.json.empty()) files.add(options.json, drift_json(report));
    if (!options.svg_histogram.empty()) files.add(options.svg_histogram, histogram_svg(report));
    if (!options.svg_propagation.empty()) files.add(options.svg_propagation, propagation_svg(report));
    files.commit();

    fmt::memory_buffer out;
    auto put = [&](auto&&... args) { fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...); };
    put("diff: {}, {} {}\n", report.source, report.layers.size(),
        model_mode ? "op outputs" : (stack_mode ? "layers" : "dump pairs"));
    put("A = {}\nB = {}\n", report.label_a, report.label_b);
    if (stack_mode) {
      put("iso = layer under B fed A's previous output (this layer's own drift); acc = each side fed its own "
          "previous output.\n");
    }
    put("diff = elements differing, % of the layer's elements, mae/max in LSBs, b-a = histogram of the non-zero "
        "differences.\n\n");
    render_drift_table(report, out);
    if (float_outputs > 0) {
      put("\n{} float32 op output{} not in the table (the drift of float tensors is not measured yet).\n",
          float_outputs, float_outputs == 1 ? "" : "s");
    }
    if (stack_mode && report.layers.size() > 1 && report.layers.back().isolated) {
      const LayerDrift& first = report.layers.front();
      const LayerDrift& last = report.layers.back();
      put("\nAccumulated drift grows from {:.3f}% of elements (MAE {:.4f}) at layer {} to {:.3f}% (MAE {:.4f}, max "
          "{}) at layer {}; layer {} alone contributes {:.3f}%.\n",
          first.accumulated.percent_differing(), first.accumulated.mae, first.index,
          last.accumulated.percent_differing(), last.accumulated.mae, last.accumulated.max_abs_diff, last.index,
          last.index, last.isolated->percent_differing());
    }
    for (const std::string* path : {&options.csv, &options.json, &options.svg_histogram, &options.svg_propagation}) {
      if (!path->empty()) put("wrote {}\n", *path);
    }
    return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
  } catch (const ToolError& e) {
    print_error(kCommand, e.what());
    return e.exit_code();
  }
}

}  // namespace qparity::cli
