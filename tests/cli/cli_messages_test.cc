// The tool's messages for common mistakes: an unknown command answered with the nearest one,
// option errors prefixed with the command like every other error, a directory where a file is
// expected said so (a FIFO is read like a file), the NPU family's accumulator widths stated, and counts in the singular.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "npy.h"
#include "tensor.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(CliMessages, UnknownCommandSuggestsTheNearest) {
  CliResult r = run_cli({"dif", "--stack", "s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity: unknown subcommand 'dif' (did you mean 'diff'?); the commands are list, "))
      << r.err;
  r = run_cli({"idnetify"});
  EXPECT_TRUE(contains(r.err, "(did you mean 'identify'?)")) << r.err;
  r = run_cli({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity: unknown subcommand 'frobnicate'; the commands are")) << r.err;
  r = run_cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity: give a command; the commands are")) << r.err;
}

TEST(CliMessages, OptionErrorsNameTheCommand) {
  CliResult r = run_cli({"run", "--stack", "x.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity run: --preset is required\nRun 'qparity run --help' for its options.\n");
  r = run_cli({"--max-memory", "1G", "diff", "--stack"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity diff: --stack: 1 required FILE missing")) << r.err;
  // --help still prints to stdout and exits 0.
  r = run_cli({"diff", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "--fail-on")) << r.out;
}

TEST(CliMessages, ADirectoryWhereAFileBelongsIsSaidSo) {
  const std::string dir = make_temp_dir("messages_dir");
  CliResult r = run_cli({"run", "--stack", dir, "--preset", "tflite-reference", "--output", dir + "/y.npy"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity run: " + dir + ": is a directory; expected a JSON file\n");
  r = run_cli({"run", "conv2d", "--input", dir, "--filter", dir, "--params", dir, "--preset", "tflite-reference",
               "--output", dir + "/y.npy"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, dir + ": is a directory; expected a")) << r.err;
  // A model path that is a directory: named as one by the reader the name selects.
  const std::string onnx_dir = dir + "/m.onnx";
  ASSERT_EQ(::mkdir(onnx_dir.c_str(), 0777), 0);
  r = run_cli({"inspect", onnx_dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity inspect: " + onnx_dir + ": is a directory; expected an ONNX model\n");
  r = run_cli({"inspect", dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity inspect: " + dir + ": is a directory; expected a .tflite model\n");
}

// A file without a size (a FIFO, as bash's <(...) gives) is read to its end like a regular file.
TEST(CliMessages, AFifoIsReadLikeAFile) {
  const std::string dir = make_temp_dir("messages_fifo");
  qparity::cli::Tensor t = qparity::cli::make_tensor(qparity::cli::DType::kInt8, {1, 3});
  for (std::size_t i = 0; i < 3; ++i) t.set_integer(i, static_cast<std::int64_t>(i) - 1);
  qparity::cli::write_npy(dir + "/b.npy", t);
  const std::string bytes = qparity::cli::serialize_npy(t);
  const std::string fifo = dir + "/a.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);  // blocks until the tool opens the FIFO for reading
    out << bytes;
  });
  const CliResult r = run_cli({"diff", "--dump-a", fifo, "--dump-b", dir + "/b.npy"});
  // Unblock the writer if the tool never opened the FIFO (the test then fails below, not hangs).
  const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (unblock >= 0) ::close(unblock);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "diff: dumps, 1 dump pair\n")) << r.out;
}

TEST(CliMessages, NpuFamilyNamesStateTheAccumulatorWidths) {
  const CliResult r = run_cli({"explain", "100", "--scale", "0.1", "--presets", "npu-he-q15-sat99"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN} with N in 16..48 for satN "
                              "and 16..64 for wrapN"))
      << r.err;
}

}  // namespace
}  // namespace qparity_cli_test
