// `qparity list`: the named presets with their axes and sources, or (--cores) the rounding cores
// with their tie rules, demonstrated on live values.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "explain_trace.h"
#include "preset_params.h"
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

}  // namespace

CLI::App* add_list_command(CLI::App& app, ListOptions* options) {
  CLI::App* sub = app.add_subcommand(
      "list",
      "List the named presets: rounding core, multiplier derivation, scale composition, "
      "accumulator, description and source.");
  sub->add_flag("--cores", options->cores,
                "List the rounding cores instead, with their tie rules and results on ties");
  sub->footer(
      fmt::format("Besides the named presets, every NPU family name {} is a preset.", kNpuScheme));
  return sub;
}

int run_list(const ListOptions& options) {
  fmt::memory_buffer out;
  if (options.cores) {
    render_cores(out);
  } else {
    render_presets(out);
  }
  return write_stdout("list", out) ? kExitOk : kExitIoError;
}

}  // namespace qparity::cli
