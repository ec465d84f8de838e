#include "input_files.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "tool_error.h"

namespace qparity::cli {

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::uint8_t> read_input_file(const std::string& path, const InputFileKind& kind) {
  if (is_directory(path)) throw ToolError(fmt::format("{}: is a directory; expected {}", path, kind.expected));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ToolError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)), kExitIoError);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  // A FIFO or a character device has no size: read it to its end instead (bounded by max_bytes).
  std::vector<std::uint8_t> bytes;
  if (size >= 0) {
    if (static_cast<std::uint64_t>(size) >= kind.max_bytes) {
      throw ToolError(fmt::format("{}: {} bytes; allowed: {}", path, size, kind.allowed));
    }
    in.seekg(0);
    bytes.resize(static_cast<std::size_t>(size));
    if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
      throw ToolError(fmt::format("{}: read error", path), kExitIoError);
    }
    return bytes;
  }
  in.clear();
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.insert(bytes.end(), chunk, chunk + in.gcount());
    if (bytes.size() >= kind.max_bytes) {
      throw ToolError(fmt::format("{}: {} bytes or more; allowed: {}", path, bytes.size(), kind.allowed));
    }
  }
  if (in.bad()) throw ToolError(fmt::format("{}: read error", path), kExitIoError);
  return bytes;
}

}  // namespace qparity::cli
