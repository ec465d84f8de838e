// Reading a whole input file (a JSON stack, a .npy dump, a .tflite or .onnx model) with the same
// checks and messages everywhere: a directory is named as one instead of reading as empty (Linux
// opens a directory as a stream), a file larger than the reader's limit is refused before it is
// loaded, and every failure names the path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qparity::cli {

/// True when `path` exists and is a directory (following symbolic links).
bool is_directory(const std::string& path);

/// What a reader accepts: `expected` completes "is a directory; expected ..." ("a JSON file");
/// files of `max_bytes` bytes or more are refused, quoting `allowed` ("less than 2 GiB (the
/// flatbuffer limit)").
struct InputFileKind {
  const char* expected;
  std::uint64_t max_bytes = UINT64_MAX;
  const char* allowed = "";
};

/// The bytes of `path`. Throws ToolError: "<path>: is a directory; expected <expected>" (usage),
/// "<path>: cannot open: <reason>" and "<path>: read error" (I/O), "<path>: N bytes; allowed: <allowed>"
/// (usage). A file without a size (a FIFO, `<(...)`) is read to its end, bounded the same way.
std::vector<std::uint8_t> read_input_file(const std::string& path, const InputFileKind& kind);

}  // namespace qparity::cli
