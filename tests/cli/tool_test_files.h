// Scratch files and directories for the tests of the tool's data layer and `qparity run`.
#pragma once

#include <string>
#include <vector>

namespace qparity_cli_test {

/// A fresh, empty directory under the test temporary directory (unique: mkdtemp).
std::string make_temp_dir(const std::string& what);

void write_bytes(const std::string& path, const std::string& bytes);
std::string read_bytes(const std::string& path);  ///< "" if the file cannot be read
bool file_exists(const std::string& path);
/// Names of the entries of `dir` (without "." and ".."), sorted.
std::vector<std::string> list_dir(const std::string& dir);

}  // namespace qparity_cli_test
