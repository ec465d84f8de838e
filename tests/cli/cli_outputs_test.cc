// Outputs never destroy anything (tools/qparity/output_files.h), end to end: an output path that
// is a FIFO, a symbolic link or a directory is refused before anything is written and left as it
// was (devices take the same !S_ISREG path; not tested on the real /dev, which a regression would
// destroy when the tests run as root); two outputs of one command naming the same file (also through different
// spellings) are an error; a stack run whose final output cannot be written leaves none of its
// layer dumps behind. The tests run as root in CI, which is where replacing a special file hurts.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cli_runner.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string example_stack() {
  return std::string(QPARITY_SOURCE_DIR) + "/examples/npu_drift/stack.json";
}

mode_t kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

TEST(CliOutputs, SpecialFilesAreRefusedAndLeftAsTheyWere) {
  const std::string dir = make_temp_dir("outputs_special");
  const std::string fifo = dir + "/fifo", link = dir + "/link", target = dir + "/target.npy", sub = dir + "/sub";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  write_bytes(target, "not ours");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ASSERT_EQ(::mkdir(sub.c_str(), 0777), 0);
  const struct {
    std::string path, what;
    mode_t kind;
  } cases[] = {{fifo, "a FIFO", S_IFIFO}, {link, "a symbolic link", S_IFLNK}, {sub, "a directory", S_IFDIR}};
  for (const auto& c : cases) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "--stack", example_stack(), "--preset", "tflite-reference", "--output", c.path},
          std::vector<std::string>{"diff", "--stack", example_stack(), "--a", "tflite-reference", "--b",
                                   "npu-verisilicon", "--csv", c.path}}) {
      const CliResult r = run_cli(args);
      EXPECT_EQ(r.exit_code, 1) << args[0] << " " << c.path << ": " << r.err;
      EXPECT_TRUE(contains(r.err, c.path + ": exists and is " + c.what + "; qparity replaces only regular files"))
          << r.err;
      EXPECT_EQ(kind(c.path), c.kind) << c.path << " was replaced";
    }
  }
  EXPECT_EQ(read_bytes(target), "not ours");
  // Nothing else appeared next to them (no temporaries left).
  EXPECT_EQ(list_dir(dir), (std::vector<std::string>{"fifo", "link", "sub", "target.npy"}));
}

TEST(CliOutputs, TwoOutputsNamingOneFileAreAnError) {
  const std::string dir = make_temp_dir("outputs_same");
  CliResult r = run_cli({"diff", "--stack", example_stack(), "--a", "tflite-reference", "--b", "npu-verisilicon",
                         "--csv", dir + "/same.out", "--json", dir + "/same.out"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "same.out: named by two outputs of this command")) << r.err;
  r = run_cli({"diff", "--stack", example_stack(), "--a", "tflite-reference", "--b", "npu-verisilicon", "--csv",
               dir + "/x.out", "--json", dir + "/./x.out"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "are the same file")) << r.err;
  // --output naming one of the layer dumps of --all-outputs.
  const std::string dumps = dir + "/dumps";
  ASSERT_EQ(::mkdir(dumps.c_str(), 0777), 0);
  r = run_cli({"run", "--stack", example_stack(), "--preset", "tflite-reference", "--all-outputs", dumps, "--output",
               dumps + "/19_conv19.npy"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "named by two outputs")) << r.err;
  EXPECT_TRUE(list_dir(dumps).empty());
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"dumps"});
}

TEST(CliOutputs, AStackRunWhoseOutputFailsLeavesNoDumps) {
  const std::string dir = make_temp_dir("outputs_stack");
  const std::string dumps = dir + "/dumps";
  const CliResult r = run_cli({"run", "--stack", example_stack(), "--preset", "tflite-reference", "--all-outputs",
                               dumps, "--output", dir + "/missing/y.npy"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(list_dir(dumps).empty()) << "layer dumps were written although --output failed";
}

}  // namespace
}  // namespace qparity_cli_test
