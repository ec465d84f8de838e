// `qparity list`: the named presets with their axes and sources; --cores: the rounding cores with
// their tie rules, demonstrated on live values; --profiles: the runtime profiles; --ops: which
// arithmetic each op runs under each profile (every op's samples, tools/model/op_table.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "explain_trace.h"
#include "model/op_table.h"
#include "model/system.h"
#include "tool_error.h"
#include "preset_params.h"
#include "qparity/float_precision.h"
#include "qparity/reference.h"
#include "table.h"

namespace qparity::cli {
namespace {

constexpr const char* kNpuScheme = "npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN}";

void render_presets(fmt::memory_buffer& out) {
  Table table({"PRESET", "CORE", "MULTIPLIER", "SCALES", "ACCUM", "DESCRIPTION / SOURCE"});
  for (const Preset& p : named_presets()) {
    table.add_row({p.name, to_string(p.core), to_string(p.derivation), to_string(p.composition),
                   to_string(p.accumulator), p.description});
    table.add_row({"", "", "", "", "", "source: " + p.source});
  }
  table.render(out);
  fmt::format_to(std::back_inserter(out),
                 "\nNPU family (any name of this form is a preset too): {}\n"
                 "  single rounding, ties hu = half up, haz = half away from zero, he = half to "
                 "even, tz = toward zero, fl = floor;\n"
                 "  multiplier q31 = TFLite Q31, q15 = Q15 rounded directly from the scale, "
                 "f24 = float32 mantissa;\n"
                 "  accumulator int32, int64, satN (saturating, N = 16..48), wrapN (wrapping, "
                 "N = 16..64); e.g. {} (= {}).\n",
                 kNpuScheme, kNpuVerisiliconExpansion, kNpuVerisiliconName);
  // The float precisions: arithmetics of float stacks and float models (docs/semantics.md §24).
  Table floats({"FLOAT PRECISION", "STORAGE", "ACCUM", "DESCRIPTION / SOURCE"});
  for (const FloatPrecision& p : float_precisions()) {
    floats.add_row({p.name, to_string(p.storage), to_string(p.accumulator), p.description});
    floats.add_row({"", "", "", "source: " + p.source});
  }
  fmt::format_to(std::back_inserter(out), "\nFloat precisions, for float stacks and models (float32 tensors; "
                                          "every store rounded to nearest even, no FMA):\n\n");
  floats.render(out);
}

void render_cores(fmt::memory_buffer& out) {
  // Every core on the same exact real scale 1/4 (M = 2^30, shift = -1; m15 = 2^14; float 0.25):
  // acc = 4 * value, so the columns are ties of both signs at the second stage.
  const double values[] = {2.5, -2.5, 1.5, -1.5, 0.5, -0.5, 0.75, -0.75};
  std::vector<std::string> headers = {"CORE"};
  for (double v : values) headers.push_back(fmt::format("{:+}", v));
  headers.push_back("TIES");
  headers.push_back("FORMULA (s = 31 - shift, L = max(shift,0), R = max(-shift,0))");
  Table table(headers);
  for (std::size_t c = 1; c <= std::size(values); ++c) table.set_align(c, Table::Align::kRight);
  for (RoundingCore core : kAllRoundingCores) {
    const RequantParams p = params_from_multiplier(core, 1 << 30, -1);
    std::vector<std::string> row = {to_string(core)};
    for (double v : values) {
      row.push_back(fmt::format("{}", requantize(core, static_cast<std::int32_t>(v * 4), p)));
    }
    row.push_back(tie_rule_text(core));
    row.push_back(formula_text(core));
    table.add_row(row);
  }
  fmt::format_to(std::back_inserter(out),
                 "Rounding cores on acc * 0.25 (M = 2^30, shift = -1; Q15 m15 = 2^14; float scale "
                 "0.25), column = exact value:\n\n");
  table.render(out);
}

void render_profiles(fmt::memory_buffer& out) {
  Table table({"PROFILE", "DESCRIPTION / SOURCE"});
  for (const model::Profile& p : model::runtime_profiles()) {
    table.add_row({p.name, p.description});
    table.add_row({"", "source: " + p.source});
  }
  table.render(out);
  fmt::format_to(std::back_inserter(out),
                 "\nEvery preset is a profile too: it gives every op that preset's arithmetic "
                 "(`qparity list` shows them). `qparity list --ops` shows which op uses which "
                 "arithmetic.\n");
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!name.empty()) names.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

void render_ops(const std::vector<std::string>& profiles, fmt::memory_buffer& out) {
  std::vector<std::string> headers = {"OP", "SAMPLE"};
  headers.insert(headers.end(), profiles.begin(), profiles.end());
  Table table(headers);
  std::string last_op;
  for (const model::OpTableRow& row : model::op_arithmetic_table(profiles)) {
    std::vector<std::string> cells = {row.op == last_op ? "" : row.op, row.sample};
    cells.insert(cells.end(), row.cells.begin(), row.cells.end());
    table.add_row(cells);
    last_op = row.op;
  }
  fmt::format_to(std::back_inserter(out),
                 "Each op's arithmetic per profile, on samples of the configurations that change it "
                 "(path: preset [the op's own variant]):\n\n");
  table.render(out);
  fmt::format_to(std::back_inserter(out),
                 "\npaths: XNNPACK = XNNPACK's operator (TFLite's delegate took the op), TFLite kernel = "
                 "TFLite's own optimized kernel, reference = TFLite's reference kernels, float32 = "
                 "dequantize-compute-requantize, NPU = single-rounding hypothesis. Other profiles: "
                 "--with a,b,... (qparity list --profiles; any preset).\n");
}

}  // namespace

CLI::App* add_list_command(CLI::App& app, ListOptions* options) {
  CLI::App* sub = app.add_subcommand(
      "list",
      "List the named presets: rounding core, multiplier derivation, scale composition, "
      "accumulator, description and source.");
  CLI::Option* cores = sub->add_flag("--cores", options->cores,
                                     "List the rounding cores instead, with their tie rules and results on ties");
  CLI::Option* profiles = sub->add_flag("--profiles", options->profiles,
                                        "List the runtime profiles (per-op maps reproducing a whole runtime)");
  CLI::Option* ops = sub->add_flag("--ops", options->ops,
                                   "Show which arithmetic each model op runs under each profile");
  sub->add_option("--with", options->with,
                  "With --ops: comma-separated profiles or presets for the columns (default: "
                  "tflite-xnnpack-x86,tflite-xnnpack-arm,tflite-builtin-x86,tflite-builtin-arm)")
      ->type_name("P,...")
      ->needs(ops);
  cores->excludes(profiles)->excludes(ops);
  profiles->excludes(ops);
  sub->footer(
      fmt::format("Besides the named presets, every NPU family name {} is a preset.", kNpuScheme));
  return sub;
}

int run_list(const ListOptions& options) {
  fmt::memory_buffer out;
  if (options.cores) {
    render_cores(out);
  } else if (options.profiles) {
    render_profiles(out);
  } else if (options.ops) {
    std::vector<std::string> profiles = split_names(options.with);
    if (profiles.empty()) profiles = model::default_table_profiles();
    try {
      render_ops(profiles, out);
    } catch (const ToolError& e) {
      print_error("list", fmt::format("--with: {}", e.what()));
      return kExitUsage;
    }
  } else {
    render_presets(out);
  }
  return write_stdout("list", out) ? kExitOk : kExitIoError;
}

}  // namespace qparity::cli
