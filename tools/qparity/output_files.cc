#include "output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "tool_error.h"

namespace qparity::cli {

namespace {

/// The identity of an output path: its directory resolved (realpath) and its last component, so
/// that "out/x.npy", "./out/x.npy" and "out/../out/x.npy" are one file. A directory that does not
/// resolve keeps the path as written (commit() reports it).
std::string file_key(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  if (::realpath(dir.c_str(), resolved) == nullptr) return path;
  return std::string(resolved) + "/" + name;
}

/// What a non-regular file is, for the refusal message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

}  // namespace

OutputFiles::~OutputFiles() { remove_temporaries(); }

void OutputFiles::add(const std::string& path, std::string bytes) {
  const std::string key = file_key(path);
  for (const File& f : files_) {
    if (f.key == key) {
      throw ToolError(f.path == path
                          ? fmt::format("{}: named by two outputs of this command; give each output its own file", path)
                          : fmt::format("{} and {} are the same file, named by two outputs of this command; give each "
                                        "output its own file", f.path, path));
    }
  }
  files_.push_back(File{path, key, std::move(bytes), {}});
}

void OutputFiles::remove_temporaries() {
  for (File& f : files_) {
    if (!f.temporary.empty()) ::unlink(f.temporary.c_str());
    f.temporary.clear();
  }
}

void OutputFiles::commit() {
  // mkstemp creates files 0600; outputs get what a plain open() would give (0666 & ~umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  // Only regular files are replaced (output_files.h); checked for all before any is written.
  for (const File& f : files_) {
    struct stat st {};
    if (::lstat(f.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      throw ToolError(fmt::format("{}: exists and is {}; qparity replaces only regular files (remove it or "
                                  "choose another path)", f.path, kind_of(st.st_mode)),
                      kExitIoError);
    }
  }
  for (File& f : files_) {
    // Next to the destination, so that rename() stays on one file system and is atomic.
    std::string tmp = f.path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) {
      const int error = errno;
      remove_temporaries();
      throw ToolError(fmt::format("{}: cannot create a file there: {}", f.path, std::strerror(error)),
                      kExitIoError);
    }
    f.temporary = tmp;
    ::fchmod(fd, 0666 & ~mask);
    std::size_t done = 0;
    int error = 0;
    while (done < f.bytes.size()) {
      const ssize_t n = ::write(fd, f.bytes.data() + done, f.bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        error = errno;
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error != 0) {
      remove_temporaries();
      throw ToolError(fmt::format("{}: cannot write: {}", f.path, std::strerror(error)), kExitIoError);
    }
  }
  for (File& f : files_) {
    if (::rename(f.temporary.c_str(), f.path.c_str()) != 0) {
      const int error = errno;
      remove_temporaries();
      throw ToolError(fmt::format("{}: cannot write: {}", f.path, std::strerror(error)), kExitIoError);
    }
    f.temporary.clear();
  }
  files_.clear();
}

void make_directory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return;
    throw ToolError(fmt::format("{}: exists and is not a directory", dir), kExitIoError);
  }
  if (::mkdir(dir.c_str(), 0777) != 0) {
    throw ToolError(fmt::format("{}: cannot create the directory: {}", dir, std::strerror(errno)),
                    kExitIoError);
  }
}

}  // namespace qparity::cli
