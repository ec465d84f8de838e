// `qparity probe --output DIR`: writes the probe layer set of docs/semantics.md §14.3
// (probe_set.h): one-layer stacks with their .npy tensors, the manifest `identify` reads, and
// README.txt on how to run them on a device. All files are written together or not at all
// (output_files.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "output_files.h"
#include "model/tflite/tflite_writer.h"
#include "probe_set.h"
#include "stack_model.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {
constexpr const char* kCommand = "probe";
}  // namespace

CLI::App* add_probe_command(CLI::App& app, ProbeOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "probe",
      "Write the probe layer set (docs/semantics.md 14.3) that, run on a device, lets 'qparity identify' "
      "pin down its arithmetic: tie rule, one or two roundings, multiplier precision, scale "
      "composition, zero-point placement and accumulator depth.");
  sub->add_option("--output", o->output, "Directory to write (created if missing; files in it are replaced)")
      ->required()
      ->type_name("DIR");
  sub->add_option("--format", o->format, "tflite (default): also write each probe as <name>.tflite; stack: only the "
                                         "stack files")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"tflite", "stack"}));
  sub->footer(
      "Writes DIR/probe.json (manifest), DIR/README.txt (how to run it on a device), and per probe\n"
      "<name>.json (a one-layer stack), <name>.input.npy, <name>.filter.npy, <name>.bias.npy,\n"
      "and with --format tflite (the default) <name>.tflite, the layer as a one-op int8 model.\n"
      "Then: run each layer on the device, save its int8 output as OBS/<name>.npy, and\n"
      "  qparity identify --probe DIR --observed OBS\n"
      "Exit status: 0 success, 1 I/O error, 2 invalid usage.");
  return sub;
}

int run_probe(const ProbeOptions& options) {
  try {
    const std::vector<ProbeCase> probes = build_probe_set();
    make_directory(options.output);
    OutputFiles files;
    add_probe_files(probes, options.output, &files);
    if (options.format == "tflite") {
      for (const ProbeCase& p : probes) {
        Stack stack;
        stack.input = p.input;
        stack.layers = {p.layer};
        const std::vector<std::uint8_t> bytes =
            model::write_tflite(stack_graph(stack, p.name), "qparity probe " + p.name);
        files.add(options.output + "/" + p.name + ".tflite", std::string(bytes.begin(), bytes.end()));
      }
    }
    files.commit();
    std::size_t channels = 0;
    for (const ProbeCase& p : probes) channels += p.channels.size();
    fmt::memory_buffer out;
    fmt::format_to(std::back_inserter(out), "wrote {} probe layers ({} output channels) to {}\n", probes.size(),
                   channels, options.output);
    for (const ProbeCase& p : probes) {
      fmt::format_to(std::back_inserter(out), "  {:<16} {:>3} channels  {}\n", p.name, p.channels.size(), p.purpose);
    }
    fmt::format_to(std::back_inserter(out), "next: run them on the device (see {}/README.txt), then\n"
                   "  qparity identify --probe {} --observed OBSERVED_DIR\n", options.output, options.output);
    return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
  } catch (const ToolError& e) {
    print_error(kCommand, e.what());
    return e.exit_code();
  }
}

}  // namespace qparity::cli
