// `qparity requant --preset NAME [--input FILE] [--scale]`: batch requantization of CSV lines.
//
// The whole input is read and validated first; only then are the results computed (with the
// compiled library, one call per run of consecutive lines that share parameters) and written. A
// malformed line therefore produces no output at all, just the error and exit status 2.
// Memory: 4 bytes per record plus one parameter record per run of equal parameters.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "csv_input.h"
#include "preset_params.h"
#include "qparity/qparity.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "requant";
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

// Consecutive records with the same parameters.
struct Run {
  std::size_t begin = 0;
  std::size_t count = 0;
  RequantParams params;
};

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

}  // namespace

CLI::App* add_requant_command(CLI::App& app, RequantOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "requant",
      "Requantize accumulators read as CSV lines with one preset; print one int32 per line: the "
      "rounding core's result before the output zero point and clamp.");
  sub->add_option("--preset", o->preset,
                  "Preset name (see 'qparity list'), or an NPU family name "
                  "npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN}")
      ->required()
      ->type_name("NAME");
  sub->add_option("--input", o->input, "Read from FILE instead of standard input ('-' = stdin)")
      ->type_name("FILE");
  sub->add_flag("--scale", o->scale,
                "Lines are 'acc,scale'; the preset derives its parameters from each scale as the "
                "system it reproduces would");
  sub->footer(
      "Input: one record per line, 'acc,multiplier,shift' (acc int32; multiplier a Q31 mantissa "
      "in\n"
      "[0, 2147483647]; shift in [-31, 30], TFLite convention: > 0 = left), or with --scale\n"
      "'acc,scale' (scale finite and > 0). Blanks around fields and CRLF line ends are allowed.\n"
      "Blank lines and lines starting with # are skipped.\n"
      "Parameters: Q31 presets use (multiplier, shift) as given, Q15 presets reduce the "
      "multiplier\n"
      "(reduce_multiplier_q31_to_q15), float presets use scale = float(multiplier*2^(shift-31)).\n"
      "Output: one int32 per record, in input order.\n"
      "Errors: the whole input is validated before anything is written; a malformed line prints\n"
      "'qparity requant: line N: <problem>' on stderr, writes nothing to stdout and exits with 2.\n"
      "Exit status: 0 success, 1 I/O error, 2 invalid option or malformed input.");
  return sub;
}

int run_requant(const RequantOptions& options) {
  Preset preset;
  try {
    preset = find_preset(options.preset);
  } catch (const InvalidArgument& e) {
    print_error(kCommand, "--preset: " + without_library_prefix(e.what()));
    return kExitUsage;
  }

  std::unique_ptr<std::FILE, FileCloser> owned;
  std::FILE* in = stdin;
  if (options.input != "-") {
    owned.reset(std::fopen(options.input.c_str(), "rb"));
    if (!owned) {
      print_error(kCommand, fmt::format("--input: cannot open '{}': {}", options.input,
                                        std::strerror(errno)));
      return kExitUsage;
    }
    in = owned.get();
  }

  // 1. Read and validate everything.
  std::vector<std::int32_t> accs;
  std::vector<Run> runs;
  LineReader reader(in);
  std::string_view line;
  std::string error;
  RequantRecord record;
  RequantRecord previous;  // parameters of the current run (meaningful when !runs.empty())
  std::uint64_t line_number = 0;
  while (reader.next(&line)) {
    ++line_number;
    if (is_blank_or_comment(line)) continue;
    if (!parse_requant_line(line, options.scale, &record, &error)) {
      print_error(kCommand, fmt::format("line {}: {}", line_number, error));
      return kExitUsage;
    }
    const bool same = !runs.empty() && (options.scale ? record.scale == previous.scale
                                                      : record.multiplier == previous.multiplier &&
                                                            record.shift == previous.shift);
    if (!same) {
      Run run;
      run.begin = accs.size();
      try {
        run.params = options.scale
                         ? params_from_scale(preset, record.scale)
                         : params_from_multiplier(preset.core, record.multiplier, record.shift);
      } catch (const InvalidArgument& e) {
        print_error(kCommand, fmt::format("line {}: {} (preset {})", line_number,
                                          without_library_prefix(e.what()), preset.name));
        return kExitUsage;
      }
      runs.push_back(run);
      previous = record;
    }
    accs.push_back(record.acc);
    ++runs.back().count;
  }
  if (reader.read_error()) {
    print_error(kCommand, fmt::format("cannot read {}: {}",
                                      options.input == "-" ? "standard input" : options.input,
                                      std::strerror(errno)));
    return kExitIoError;
  }

  // 2. Requantize with the compiled library, one call per run. The parameters are validated; the
  //    only possible failure is the ISA dispatcher rejecting a bad QPARITY_ISA variable.
  std::vector<std::int32_t> results(accs.size());
  try {
    for (const Run& run : runs) {
      RequantizeArgs args;
      args.core = preset.core;
      args.params = &run.params;
      args.per_channel = false;
      args.rows = 1;
      args.channels = run.count;
      args.acc = accs.data() + run.begin;
      requantize<std::int32_t>(args, results.data() + run.begin);
    }
  } catch (const InvalidArgument& e) {
    print_error(kCommand, without_library_prefix(e.what()));
    return kExitUsage;
  }

  // 3. Write.
  fmt::memory_buffer out;
  for (const std::int32_t v : results) {
    const fmt::format_int text(v);
    out.append(text.data(), text.data() + text.size());
    out.push_back('\n');
    if (out.size() >= kFlushBytes) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
        print_error(kCommand,
                    fmt::format("cannot write to standard output: {}", std::strerror(errno)));
        return kExitIoError;
      }
      out.clear();
    }
  }
  return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
}

}  // namespace qparity::cli
