// Runs the built `qparity` binary (path from the QPARITY_CLI_PATH compile definition) with
// arguments and standard input, and captures its exit status, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace qparity_cli_test {

struct CliResult {
  int exit_code = -1;  ///< the process exit status; -1 if it did not exit normally
  std::string out;
  std::string err;
};

/// Runs `qparity args...` (no shell involved) with `stdin_text` as standard input, in this
/// process's environment plus `env` ("NAME=value" entries, replacing variables of the same name).
CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = "",
                  const std::vector<std::string>& env = {});

/// The same for another program (looked up on PATH if `program` has no '/'); throws
/// std::runtime_error if it cannot be started (not installed).
CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const std::string& stdin_text = "", const std::vector<std::string>& env = {});

/// The path of the binary under test.
const char* cli_path();

/// Writes `text` to a fresh file in the test temporary directory and returns its path.
std::string write_temp_file(const std::string& text);

/// The lines of `text` (without their '\n').
std::vector<std::string> split_lines(const std::string& text);

/// Whitespace-separated tokens of `line`.
std::vector<std::string> tokens(const std::string& line);

/// The first line of `text` whose first token is `first_token`, or "" if none.
std::string line_starting_with(const std::string& text, const std::string& first_token);

}  // namespace qparity_cli_test
