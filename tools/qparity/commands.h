// The subcommands of `qparity`. Each command has an options record filled by CLI11, a function
// that registers it on the application, and a function that runs it and returns the exit status.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace CLI {
class App;
}

namespace qparity::cli {

/// Exit statuses of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitIoError = 1;  ///< reading or writing failed, or an internal error
inline constexpr int kExitUsage = 2;    ///< bad option, bad argument or malformed input

struct ListOptions {
  bool cores = false;
};
CLI::App* add_list_command(CLI::App& app, ListOptions* options);
int run_list(const ListOptions& options);

struct ExplainOptions {
  std::string acc;    ///< options are kept as text and validated by the command itself, so that
  std::string scale;  ///< every error names the option and its allowed range
  std::string multiplier;
  std::string shift;
  std::string zero_point;
  std::string presets;
  bool has_scale = false;
  bool has_multiplier = false;
  bool has_shift = false;
  bool has_zero_point = false;
  bool has_presets = false;
};
CLI::App* add_explain_command(CLI::App& app, ExplainOptions* options);
int run_explain(const ExplainOptions& options);

struct RequantOptions {
  std::string preset;
  std::string input = "-";
  bool scale = false;
};
CLI::App* add_requant_command(CLI::App& app, RequantOptions* options);
int run_requant(const RequantOptions& options);

/// Prints "qparity <command>: <message>" and a newline to stderr.
void print_error(std::string_view command, std::string_view message);

/// Writes the buffer to stdout and flushes; false (after printing an error) if writing failed.
bool write_stdout(std::string_view command, const fmt::memory_buffer& buffer);

}  // namespace qparity::cli
