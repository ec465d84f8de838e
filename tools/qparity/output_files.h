// Output files written all or nothing: every file's bytes are first written to a temporary file
// next to its destination, and only when all of them are complete are they renamed into place.
// A failure (disk full, unwritable directory) removes the temporaries and leaves every destination
// as it was, so a command never leaves a partial file behind. (Only a rename failing after the
// first succeeded, i.e. the directory changing under us, could leave a mixed set.)
//
// Only regular files are ever replaced: a destination that exists and is a directory, a device
// (/dev/null, /dev/full), a FIFO, a socket or a symbolic link is refused before anything is written
// (rename() would put a regular file in its place: as root, `--output /dev/null` would have
// destroyed /dev/null). A symbolic link is refused rather than followed, so that an output never
// lands somewhere its path does not say. Two outputs of one command naming the same file (also
// through different spellings of its directory) are an error, not a silent overwrite.
#pragma once

#include <string>
#include <vector>

namespace qparity::cli {

class OutputFiles {
 public:
  OutputFiles() = default;
  ~OutputFiles();  ///< removes temporaries of an uncommitted set
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  /// Queues `bytes` for `path` (nothing touches the disk yet). Throws ToolError (kExitUsage) when
  /// an earlier add() named the same file, quoting both paths.
  void add(const std::string& path, std::string bytes);

  /// Checks every destination (an existing one must be a regular file), writes every queued file to
  /// a temporary, then renames them all. Throws ToolError (kExitIoError) naming the path and the
  /// reason; nothing is written or left behind then.
  void commit();

  bool empty() const { return files_.empty(); }

 private:
  struct File {
    std::string path;
    std::string key;  ///< the file's identity: its directory's real path and its name
    std::string bytes;
    std::string temporary;  ///< set once written
  };
  void remove_temporaries();
  std::vector<File> files_;
};

/// Creates `dir` (one level; its parent must exist) unless it is already a directory. Throws
/// ToolError (kExitIoError) naming it.
void make_directory(const std::string& dir);

}  // namespace qparity::cli
