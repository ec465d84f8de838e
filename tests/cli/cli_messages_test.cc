// The tool's messages for common mistakes: an unknown command answered with the nearest one,
// option errors prefixed with the command like every other error, a directory where a file is
// expected said so, the NPU family's accumulator widths stated, and counts in the singular.
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.h"
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
