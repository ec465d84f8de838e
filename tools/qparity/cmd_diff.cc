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
// Prints the aligned table; --csv, --json, --svg-histogram, --svg-propagation, --html (everything in
// one page: html_report.h) and --model-explorer (node data: model_explorer_data.h) write files, all
// together at the end or none at all (output_files.h).
#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "csv_input.h"
#include "drift_gate.h"
#include "drift_locate.h"
#include "drift_report.h"
#include "host_cpu.h"
#include "html_report.h"
#include "input_files.h"
#include "layer_runner.h"
#include "model/model_diff.h"
#include "model/runner.h"
#include "model_explorer_data.h"
#include "model_inputs.h"
#include "natural_order.h"
#include "npy.h"
#include "output_files.h"
#include "preset_map.h"
#include "progress_bar.h"
#include "qparity/isa.h"
#include "qparity/version.h"
#include "stack_model.h"
#include "svg_plot.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "diff";

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

void reject_dump_options(const DiffOptions& o, const char* why) {
  const std::pair<const char*, bool> given[] = {
      {"--scale-a", !o.scale_a.empty()}, {"--zp-a", !o.zp_a.empty()},         {"--scale-b", !o.scale_b.empty()},
      {"--zp-b", !o.zp_b.empty()},       {"--layout-a", o.layout_a != "nhwc"}, {"--layout-b", o.layout_b != "nhwc"},
      {"--reshape", o.reshape}};
  for (const auto& [option, set] : given) {
    if (set) throw ToolError(fmt::format("{} applies to --dump-a/--dump-b only ({})", option, why));
  }
}

// Per-channel metrics are computed for --per-channel and for the HTML report's per-channel section
// (the JSON lists them only with --per-channel: DriftReport::per_channel).
bool channel_breakdown(const DiffOptions& o) { return o.per_channel || !o.html.empty(); }

// A float stack runs as a float model (stack_model.h) under two per-op maps of float precisions;
// the model diff's rows are the layers.
void diff_float_stack(const DiffOptions& o, Stack stack, const Tensor& input, DriftReport* report) {
  stack.input = input;
  const model::Graph graph = stack_graph(stack, o.stack);
  model::ModelDiffOptions mo;
  mo.a = o.a;
  mo.b = o.b;
  mo.per_channel = channel_breakdown(o);
  ProgressBar progress("diff", graph.nodes.size());
  mo.progress = [&](std::size_t i, const std::string& label) { progress.update(i, label); };
  std::size_t other_outputs = 0;
  *report = model::diff_model(graph, {input}, mo, &other_outputs);
  report->per_channel = o.per_channel;
  report->source = o.stack;
}

void diff_stack(const DiffOptions& o, DriftReport* report) {
  if (o.a.empty() || o.b.empty()) throw ToolError("--stack needs --a and --b (presets or preset maps)");
  if (!o.zero_point.empty()) throw ToolError("--zero-point applies to dumps only (a stack knows its zero points)");
  reject_dump_options(o, "a stack knows its layers' quantization and layouts");
  const Stack stack = load_stack(o.stack);
  Tensor input;
  if (!o.input.empty()) {
    input = read_npy(o.input);
  } else if (stack.input) {
    input = *stack.input;
  } else {
    throw ToolError(fmt::format("{} has no \"input\"; give --input x.npy", o.stack));
  }
  if (is_float_stack(stack)) {
    diff_float_stack(o, stack, input, report);
    return;
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
      // With the output scale known, the drift in real units too (both sides share the layer's
      // output quantization).
      std::optional<Dequantization> q;
      if (layer.output_scale) q = Dequantization{*layer.output_scale, layer.output_zero_point};
      d.accumulated = compare_tensors({&a, "A", q}, {&b, "B", q}, d.zero_point, channel_breakdown(o));
      d.isolated = compare_tensors({&a, "A", q}, {&b_isolated, "B", q}, d.zero_point, channel_breakdown(o));
      a_prev = std::move(a);
      b_prev = std::move(b);
    } catch (const ToolError& e) {
      throw ToolError(fmt::format("{}: {}{}", layer_label(i, layer), e.what(), chained_input_note(stack, i, a_prev)),
                      e.exit_code());
    }
    report->layers.push_back(std::move(d));
  }
}

std::int64_t parse_zero_point(const std::string& text, const char* option) {
  std::int64_t zp = 0;
  if (parse_int64(text, &zp) != ParseStatus::kOk || zp < -2147483648LL || zp > 2147483647LL) {
    throw ToolError(fmt::format("{}: '{}' is not an integer in [-2147483648, 2147483647]", option, text));
  }
  return zp;
}

// --scale-X and --zp-X: both or neither.
std::optional<Dequantization> dump_dequantization(const std::string& scale, const std::string& zp, char side) {
  if (scale.empty() && zp.empty()) return std::nullopt;
  const std::string scale_option = fmt::format("--scale-{}", side), zp_option = fmt::format("--zp-{}", side);
  if (scale.empty() || zp.empty()) {
    throw ToolError(fmt::format("{} needs {} too (real = scale * (q - zero_point))",
                                scale.empty() ? zp_option : scale_option, scale.empty() ? scale_option : zp_option));
  }
  Dequantization q;
  if (parse_double(scale, &q.scale) != ParseStatus::kOk || !(q.scale > 0) || !std::isfinite(q.scale)) {
    throw ToolError(fmt::format("{}: '{}' is not a positive finite number", scale_option, scale));
  }
  q.zero_point = parse_zero_point(zp, zp_option.c_str());
  return q;
}

// A dump in the layout it was written in, brought to NHWC (the layout qparity's tensors use): a
// 4-d NCHW tensor is transposed, anything else is left as it is.
Tensor to_nhwc(Tensor t, const std::string& layout, const std::string& path, const char* option) {
  if (layout == "nhwc") return t;
  if (t.shape.size() != 4) {
    throw ToolError(fmt::format("{} nchw: {} has shape {}; a layout applies to 4-d tensors", option, path,
                                shape_text(t.shape)));
  }
  const std::size_t n = t.shape[0], c = t.shape[1], h = t.shape[2], w = t.shape[3], size = size_of(t.dtype);
  Tensor out = make_tensor(t.dtype, {n, h, w, c});
  for (std::size_t in = 0; in < n; ++in) {
    for (std::size_t ic = 0; ic < c; ++ic) {
      for (std::size_t ih = 0; ih < h; ++ih) {
        for (std::size_t iw = 0; iw < w; ++iw) {
          const std::size_t from = ((in * c + ic) * h + ih) * w + iw;
          const std::size_t to = ((in * h + ih) * w + iw) * c + ic;
          std::memcpy(out.bytes.data() + to * size, t.bytes.data() + from * size, size);
        }
      }
    }
  }
  return out;
}

void check_layout(const std::string& layout, const char* option) {
  if (layout != "nhwc" && layout != "nchw") {
    throw ToolError(fmt::format("{}: '{}' is not a layout; allowed: nhwc (default), nchw", option, layout));
  }
}

void diff_dumps(const DiffOptions& o, DriftReport* report) {
  if (o.dump_a.empty() || o.dump_b.empty()) throw ToolError("give both --dump-a and --dump-b");
  if (!o.a.empty() || !o.b.empty() || !o.input.empty()) {
    throw ToolError("--a, --b and --input apply to --stack; dumps are compared as they are");
  }
  const std::int64_t zero_point = o.zero_point.empty() ? 0 : parse_zero_point(o.zero_point, "--zero-point");
  const std::optional<Dequantization> quant_a = dump_dequantization(o.scale_a, o.zp_a, 'a');
  const std::optional<Dequantization> quant_b = dump_dequantization(o.scale_b, o.zp_b, 'b');
  check_layout(o.layout_a, "--layout-a");
  check_layout(o.layout_b, "--layout-b");
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
    const Tensor a = to_nhwc(read_npy(pairs[i].first), o.layout_a, pairs[i].first, "--layout-a");
    Tensor b = to_nhwc(read_npy(pairs[i].second), o.layout_b, pairs[i].second, "--layout-b");
    if (a.shape != b.shape && o.reshape) {
      if (a.elements() != b.elements()) {
        throw ToolError(fmt::format("--reshape: {} {} has {} elements but {} {} has {}", pairs[i].first,
                                    shape_text(a.shape), a.elements(), pairs[i].second, shape_text(b.shape),
                                    b.elements()));
      }
      b.shape = a.shape;  // C order both: the same elements, read in A's shape
    } else if (a.shape != b.shape) {
      throw ToolError(fmt::format(
          "shapes differ: {} {} vs {} {}; if one is NCHW give --layout-a/--layout-b nchw, if the elements are the "
          "same in another shape give --reshape",
          pairs[i].first, shape_text(a.shape), pairs[i].second, shape_text(b.shape)));
    }
    LayerDrift d;
    d.index = i;
    d.name = names[i];
    d.shape = a.shape;
    d.zero_point = zero_point;
    d.accumulated = compare_tensors(CompareSide{&a, pairs[i].first, quant_a}, CompareSide{&b, pairs[i].second, quant_b},
                                    zero_point, channel_breakdown(o));
    report->layers.push_back(std::move(d));
  }
}

// `node_keys`: per row of the report, its op's Model Explorer node id (model_explorer_data.h), when
// asked for.
void diff_model(const DiffOptions& o, DriftReport* report, std::size_t* float_outputs,
                std::vector<std::string>* node_keys) {
  if (o.a.empty()) throw ToolError("--model needs --a (a preset, runtime profile or per-op map)");
  if (o.b.empty() == o.dump_b.empty()) throw ToolError("--model needs --b (an arithmetic) or --dump-b (a device's dumps), one of them");
  if (!o.dump_a.empty()) throw ToolError("--dump-a does not apply to --model (A runs the model; use --dump-b for the device)");
  if (!o.zero_point.empty()) throw ToolError("--zero-point applies to dumps only (a model knows its zero points)");
  reject_dump_options(o, "a model knows its tensors' quantization and layouts");
  if (!o.dump_b.empty() && !is_directory(o.dump_b)) {
    throw ToolError(fmt::format("--dump-b: {} is not a directory of per-tensor dumps", o.dump_b));
  }
  const model::Graph graph = load_model(o.model);
  for (std::size_t i = 0; i < graph.nodes.size() && !o.model_explorer.empty(); ++i) {
    if (graph.nodes[i].file_index == model::Node::kNoFileIndex) {
      throw ToolError(fmt::format(
          "--model-explorer: {} has no Model Explorer node id: ids are known for .tflite models only (Model "
          "Explorer's ONNX adapter names nodes by their NodeProto names, and qparity's ONNX import adds layout "
          "transposes it does not show)",
          graph.node_label(i)));
    }
  }
  model::ModelDiffOptions mo;
  mo.a = o.a;
  mo.b = o.b;
  mo.dump_b = o.dump_b;
  mo.per_channel = channel_breakdown(o);
  mo.threads = model::checked_thread_count(o.threads, "--threads");
  ProgressBar progress("diff", graph.nodes.size());
  mo.progress = [&](std::size_t i, const std::string& label) { progress.update(i, label); };
  *report = model::diff_model(graph, model_inputs(graph, o.input, o.seed), mo, float_outputs);
  report->per_channel = o.per_channel;
  if (o.model_explorer.empty()) return;
  for (const LayerDrift& l : report->layers) node_keys->push_back(std::to_string(graph.nodes[l.index].file_index));
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
  sub->add_option("--a", o->a, "Arithmetic A: a preset, or a per-layer preset map (below); float stacks and models: "
                               "fp32, fp16, fp16-acc16, bf16")->type_name("MAP");
  sub->add_option("--b", o->b, "Arithmetic B: a preset, or a per-layer preset map")->type_name("MAP");
  sub->add_option("--dump-a", o->dump_a, "Or compare dumps: a .npy file, or a directory of per-layer .npy files")
      ->type_name("PATH");
  sub->add_option("--dump-b", o->dump_b, "The other dump (file, or directory with the same file names)")
      ->type_name("PATH");
  sub->add_option("--zero-point", o->zero_point, "Dumps: the output zero point the cosine is taken around (default 0)")
      ->type_name("ZP");
  sub->add_option("--scale-a", o->scale_a, "Dumps: A's scale; with --zp-a, A is compared in real units")
      ->type_name("S");
  sub->add_option("--zp-a", o->zp_a, "Dumps: A's zero point (real = scale * (q - zero_point))")->type_name("Z");
  sub->add_option("--scale-b", o->scale_b, "Dumps: B's scale")->type_name("S");
  sub->add_option("--zp-b", o->zp_b, "Dumps: B's zero point")->type_name("Z");
  sub->add_option("--layout-a", o->layout_a, "Dumps: layout of A's 4-d tensors, nhwc (default) or nchw")
      ->type_name("LAYOUT");
  sub->add_option("--layout-b", o->layout_b, "Dumps: layout of B's 4-d tensors, nhwc (default) or nchw")
      ->type_name("LAYOUT");
  sub->add_flag("--reshape", o->reshape, "Dumps: compare tensors of different shapes but equal element counts "
                                         "(C order, read in A's shape)");
  sub->add_option("--worst", o->worst, "List the N worst elements (coordinates, A, B) of every differing layer")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, kWorstElementsKept));
  sub->add_option("--fail-on", o->fail_on,
                  "Exit 3 if a layer meets a condition: [iso.]METRIC OP NUMBER, e.g. 'max_lsb>1', 'cosine<0.999', "
                  "'sqnr<30'; METRIC: percent max_lsb mae_lsb cosine max_abs mae rmse sqnr rel_err (repeatable, "
                  "or comma-separated)")
      ->type_name("GATE");
  sub->add_option("--csv", o->csv, "Write the per-layer metrics as CSV")->type_name("FILE");
  sub->add_option("--json", o->json, "Write the per-layer metrics and histograms as JSON")->type_name("FILE");
  sub->add_option("--svg-histogram", o->svg_histogram, "Write the per-layer histograms of b - a as SVG")
      ->type_name("FILE");
  sub->add_option("--svg-propagation", o->svg_propagation,
                  "Write the propagation curve (% differing and MAE per layer) as SVG")
      ->type_name("FILE");
  sub->add_option("--threads", o->threads,
                  "With --model: threads for the convolutions and fully connected layers (1..64, default 1; "
                  "the same bits as 1)")
      ->type_name("N");
  sub->add_flag("--per-channel", o->per_channel,
                "Per-channel breakdown (last axis): a table per differing layer, and in the JSON");
  sub->add_option("--html", o->html,
                  "Write everything (what was compared, the table, located drift, gates, both plots, per-channel "
                  "tables) as one self-contained HTML page (no scripts, no network)")
      ->type_name("FILE");
  sub->add_option("--model-explorer", o->model_explorer,
                  "With --model (.tflite): write the per-op drift as Model Explorer node data (JSON)")
      ->type_name("FILE");
  sub->add_option("--model-explorer-metric", o->model_explorer_metric,
                  "Its value per op: [iso.]METRIC as for --fail-on (default max_lsb, or max_abs for float models)")
      ->type_name("METRIC");
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
      "Float tensors (float16/32/64 dumps, a model's float outputs) are compared in real units: MAE,\n"
      "max |diff|, RMSE, cosine, SQNR (dB) and relative error; so are integer dumps given their scale\n"
      "and zero point (--scale-a/--zp-a, --scale-b/--zp-b; required to compare int8 with uint8 or an\n"
      "integer dump with a float one), a model's integer outputs and a stack's layers with an output\n"
      "scale (in addition to the LSB metrics).\n"
      "Exit status: 0 success, 1 I/O error, 2 invalid usage or input, 3 a --fail-on gate failed (the\n"
      "output files are still written).");
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
    const std::vector<DriftGate> gates = parse_drift_gates(options.fail_on, "--fail-on");
    model::checked_thread_count(options.threads, "--threads");
    if (!model_mode && options.threads != 1) throw ToolError("--threads applies to --model only");
    if (!model_mode && (!options.model_explorer.empty() || !options.model_explorer_metric.empty())) {
      throw ToolError(fmt::format("{} applies to --model only (node data for a model's graph; {} have no Model "
                                  "Explorer graph)",
                                  options.model_explorer.empty() ? "--model-explorer-metric" : "--model-explorer",
                                  stack_mode ? "a stack's layers" : "dumps"));
    }
    if (!options.model_explorer_metric.empty() && options.model_explorer.empty()) {
      throw ToolError("--model-explorer-metric needs --model-explorer FILE");
    }
    std::optional<MetricChoice> node_metric;
    if (!options.model_explorer_metric.empty()) {
      node_metric = parse_metric_choice(options.model_explorer_metric, "--model-explorer-metric");
    }
    std::size_t float_outputs = 0;
    std::vector<std::string> node_keys;
    if (model_mode) {
      diff_model(options, &report, &float_outputs, &node_keys);
    } else if (stack_mode) {
      diff_stack(options, &report);
    } else {
      diff_dumps(options, &report);
    }

    const std::vector<GateFailure> failures = evaluate_drift_gates(report, gates);

    // The text around the table, for the terminal and the HTML page alike.
    fmt::memory_buffer findings, worst, gate_text;
    auto put_to = [](fmt::memory_buffer& b, auto&&... args) {
      fmt::format_to(std::back_inserter(b), std::forward<decltype(args)>(args)...);
    };
    render_first_difference(report, findings);
    if (stack_mode && report.layers.size() > 1 && report.layers.back().isolated && !report.layers.front().accumulated.lsb &&
        report.layers.front().accumulated.real && report.layers.back().accumulated.real &&
        report.layers.back().isolated->real) {
      // Float layers (a float stack): the same summary in real units.
      const ValueDrift& first = *report.layers.front().accumulated.real;
      const ValueDrift& last = *report.layers.back().accumulated.real;
      put_to(findings,
             "\nAccumulated drift goes from MAE {:.4g} (max |diff| {:.4g}, SQNR {:.4g} dB) at layer {} to MAE {:.4g} "
             "(max |diff| {:.4g}, SQNR {:.4g} dB) at layer {}; layer {} alone: SQNR {:.4g} dB.\n",
             first.mae, first.max_abs_diff, first.sqnr_db, report.layers.front().index, last.mae, last.max_abs_diff,
             last.sqnr_db, report.layers.back().index, report.layers.back().index,
             report.layers.back().isolated->real->sqnr_db);
    } else if (stack_mode && report.layers.size() > 1 && report.layers.back().isolated &&
               report.layers.front().accumulated.lsb) {
      const LayerDrift& first = report.layers.front();
      const LayerDrift& last = report.layers.back();
      put_to(findings,
             "\nAccumulated drift grows from {:.3f}% of elements (MAE {:.4f}) at layer {} to {:.3f}% (MAE {:.4f}, "
             "max {}) at layer {}; layer {} alone contributes {:.3f}%.\n",
             first.accumulated.percent_differing(), first.accumulated.mae, first.index,
             last.accumulated.percent_differing(), last.accumulated.mae, last.accumulated.max_abs_diff, last.index,
             last.index, last.isolated->percent_differing());
    }
    if (options.worst > 0) render_worst_elements(report, options.worst, worst);
    render_gate_failures(report, failures, 20, gate_text);
    if (!gates.empty() && failures.empty()) {
      put_to(gate_text, "\n--fail-on: {} on every layer.\n",
             gates.size() == 1 ? std::string("the gate passed") : fmt::format("all {} gates passed", gates.size()));
    }
    const std::string other_outputs_note =
        float_outputs > 0 ? fmt::format("{} op output{} of other types (int32, int64) not in the table.", float_outputs,
                                        float_outputs == 1 ? "" : "s")
                          : std::string();

    std::optional<NodeDataExport> node_data;
    if (!options.model_explorer.empty()) {
      if (!node_metric) node_metric = default_node_data_metric(report);
      node_data = model_explorer_node_data(report, node_keys, *node_metric, "--model-explorer");
    }

    OutputFiles files;
    if (!options.csv.empty()) files.add(options.csv, drift_csv(report));
    if (!options.json.empty()) files.add(options.json, drift_json(report));
    if (!options.svg_histogram.empty()) files.add(options.svg_histogram, histogram_svg(report));
    if (!options.svg_propagation.empty()) files.add(options.svg_propagation, propagation_svg(report));
    if (!options.html.empty()) {
      HtmlReportText text;
      text.source_kind = model_mode ? "model" : (stack_mode ? "stack" : "dumps");
      text.host = fmt::format("{} (SIMD path {})", host_cpu_name(), to_string(active_isa()));
      text.version = fmt::format("qparity {}.{}.{}", kVersionMajor, kVersionMinor, kVersionPatch);
      text.findings = fmt::to_string(findings);
      text.worst = fmt::to_string(worst);
      text.gates = fmt::to_string(gate_text);
      text.gates_failed = !failures.empty();
      text.note = other_outputs_note;
      files.add(options.html, drift_html(report, text));
    }
    if (node_data) files.add(options.model_explorer, node_data->json);
    files.commit();

    fmt::memory_buffer out;
    auto put = [&](auto&&... args) { fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...); };
    const std::size_t rows = report.layers.size();
    put("diff: {}, {} {}\n", report.source, rows,
        model_mode ? (rows == 1 ? "op output" : "op outputs")
                   : (stack_mode ? (rows == 1 ? "layer" : "layers") : (rows == 1 ? "dump pair" : "dump pairs")));
    put("A = {}\nB = {}\n", report.label_a, report.label_b);
    if (stack_mode) {
      put("iso = layer under B fed A's previous output (this layer's own drift); acc = each side fed its own "
          "previous output.\n");
    }
    if (report.has_lsb()) {
      put("diff = elements differing, % of the layer's elements, mae/max in LSBs, b-a = histogram of the non-zero "
          "differences.\n");
    }
    put("\n");
    render_drift_table(report, out);
    if (!other_outputs_note.empty()) put("\n{}\n", other_outputs_note);
    put("\n");
    out.append(findings);
    out.append(worst);
    if (options.per_channel) render_channel_tables(report, 16, out);
    out.append(gate_text);
    for (const std::string* path : {&options.csv, &options.json, &options.svg_histogram, &options.svg_propagation,
                                    &options.html}) {
      if (!path->empty()) put("wrote {}\n", *path);
    }
    if (node_data) {
      put("wrote {} ({} node{}, {}", options.model_explorer, node_data->nodes, node_data->nodes == 1 ? "" : "s",
          node_metric->text);
      if (node_data->left_out > 0) {
        put("; {} op output{} without a finite value left out", node_data->left_out,
            node_data->left_out == 1 ? "" : "s");
      }
      put(")\n");
    }
    if (!write_stdout(kCommand, out)) return kExitIoError;
    return failures.empty() ? kExitOk : kExitGateFailed;
  } catch (const ToolError& e) {
    print_error(kCommand, e.what());
    return e.exit_code();
  }
}

}  // namespace qparity::cli
