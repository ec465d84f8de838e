#include "tool_test_files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace qparity_cli_test {

std::string make_temp_dir(const std::string& what) {
  // mkdtemp, not a name made of the pid and a counter: each test runs in its own process, pids are
  // reused, and a directory left by an earlier run under the same name was not empty (CI saw
  // OutputFiles.AllOrNothing fail on an a.txt from a previous run).
  std::string dir = testing::TempDir();
  if (!dir.empty() && dir.back() != '/') dir += '/';
  dir += "qparity_" + what + "_XXXXXX";
  std::vector<char> name(dir.begin(), dir.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("cannot create " + dir);
  return std::string(name.data());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace qparity_cli_test
