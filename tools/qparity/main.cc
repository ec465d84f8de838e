// `qparity`: the command-line front end of the qparity library.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

#include <algorithm>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "memory_limit.h"
#include "preset_params.h"
#include "qparity/isa.h"
#include "qparity/version.h"

namespace qparity::cli {

void print_error(std::string_view command, std::string_view message) {
  fmt::print(stderr, "qparity {}: {}\n", command, message);
}

bool write_stdout(std::string_view command, const fmt::memory_buffer& buffer) {
  const std::size_t written = std::fwrite(buffer.data(), 1, buffer.size(), stdout);
  if (written != buffer.size() || std::fflush(stdout) != 0) {
    print_error(command, fmt::format("cannot write to standard output: {}", std::strerror(errno)));
    return false;
  }
  return true;
}

namespace {

std::string version_text() {
  return fmt::format("qparity {}.{}.{} (SIMD paths compiled: {}; active on this CPU: {})",
                     kVersionMajor, kVersionMinor, kVersionPatch, isa_names(compiled_isas()),
                     to_string(active_isa()));
}

// Edit distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// A parse error in the form of every other error: "qparity <command>: <message>", the command
// being the one the user named (the first argument that is not an option), and an unknown command
// answered with the nearest one.
int report_parse_error(const CLI::App& app, int argc, char** argv, const std::string& message) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  std::string word;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--max-memory") {
      ++i;  // its value
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    word = arg;
    break;
  }
  const bool known = std::find(names.begin(), names.end(), word) != names.end();
  if (!word.empty() && !known) {
    std::string nearest;
    std::size_t best = 3;  // suggest only within two edits, or a prefix
    for (const std::string& n : names) {
      const std::size_t d = n.rfind(word, 0) == 0 ? 1 : edit_distance(word, n);
      if (d < best) best = d, nearest = n;
    }
    fmt::print(stderr, "qparity: unknown subcommand '{}'{}; the commands are {}\n", word,
               nearest.empty() ? "" : fmt::format(" (did you mean '{}'?)", nearest), fmt::join(names, ", "));
    return kExitUsage;
  }
  if (word.empty()) {
    fmt::print(stderr, "qparity: {}; the commands are {} (qparity --help)\n",
               message == "A subcommand is required" ? "give a command" : message, fmt::join(names, ", "));
    return kExitUsage;
  }
  print_error(word, message);
  fmt::print(stderr, "Run 'qparity {} --help' for its options.\n", word);
  return kExitUsage;
}

}  // namespace
}  // namespace qparity::cli

int main(int argc, char** argv) {
  using namespace qparity::cli;
  CLI::App app{
      "qparity: bit-exact, selectable int8 requantization arithmetic "
      "(TFLite, gemmlowp, ruy, CMSIS-NN, TOSA, XNNPACK, ONNX Runtime, FBGEMM, oneDNN, NPUs).",
      "qparity"};
  app.require_subcommand(1);
  app.footer(
      "Run 'qparity COMMAND --help' for the options of a command.\n"
      "Exit status: 0 success, 1 I/O or internal error, 2 invalid usage or input, 3 a diff --fail-on gate failed.");
  // Global: given before or after the command name (fallthrough).
  std::string max_memory;
  app.add_option("--max-memory", max_memory,
                 fmt::format("Largest memory a run may allocate for tensors, e.g. 512M, 8G (default: half of the "
                             "physical memory, {} here)",
                             memory_size_text(default_memory_limit())))
      ->type_name("SIZE");
  app.fallthrough();

  ListOptions list_options;
  ExplainOptions explain_options;
  RequantOptions requant_options;
  RunOptions run_options;
  DiffOptions diff_options;
  ProbeOptions probe_options;
  IdentifyOptions identify_options;
  InspectOptions inspect_options;
  ExportOptions export_options;
  CLI::App* list = add_list_command(app, &list_options);
  CLI::App* explain = add_explain_command(app, &explain_options);
  CLI::App* requant = add_requant_command(app, &requant_options);
  CLI::App* run = add_run_command(app, &run_options);
  CLI::App* diff = add_diff_command(app, &diff_options);
  CLI::App* probe = add_probe_command(app, &probe_options);
  CLI::App* identify = add_identify_command(app, &identify_options);
  CLI::App* inspect = add_inspect_command(app, &inspect_options);
  CLI::App* export_cmd = add_export_command(app, &export_options);

  // Computed only when asked for: it queries the ISA dispatcher, which throws on a bad
  // QPARITY_ISA environment variable (caught below).
  app.set_version_flag("--version", std::function<std::string()>(version_text));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    return report_parse_error(app, argc, argv, e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "qparity: {}\n", without_library_prefix(e.what()));
    return kExitUsage;
  }

  const std::string command = app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name();
  if (!max_memory.empty()) {
    std::uint64_t bytes = 0;
    if (!parse_memory_size(max_memory, &bytes)) {
      print_error(command, fmt::format("--max-memory: '{}' is not a size; allowed: a positive number of bytes with an "
                                       "optional unit K, M, G or T (binary: 1K = 1024), e.g. 512M, 8G",
                                       max_memory));
      return kExitUsage;
    }
    set_memory_limit(bytes);
  }
  try {
    if (list->parsed()) return run_list(list_options);
    if (explain->parsed()) return run_explain(explain_options);
    if (requant->parsed()) return run_requant(requant_options);
    if (run->parsed()) return run_run(run_options);
    if (diff->parsed()) return run_diff(diff_options);
    if (probe->parsed()) return run_probe(probe_options);
    if (identify->parsed()) return run_identify(identify_options);
    if (inspect->parsed()) return run_inspect(inspect_options);
    if (export_cmd->parsed()) return run_export(export_options);
  } catch (const std::bad_alloc&) {
    // The limit is checked before every tensor is allocated; this is what remains (packed weights,
    // scratch buffers, or a machine whose memory is already taken).
    print_error(command, fmt::format("out of memory (the run's tensors were within the limit of {}, but the "
                                     "system could not provide what the kernels needed besides them; free memory, "
                                     "or lower --max-memory to find the layer that does not fit)",
                                     memory_size_text(memory_limit())));
    return kExitIoError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "qparity: internal error: {}\n", e.what());
    return kExitIoError;
  }
  return kExitUsage;  // unreachable: require_subcommand(1)
}
