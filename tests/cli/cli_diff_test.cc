// `qparity diff` end to end: a preset against itself is zero drift; the README stack drifts and
// the drift grows; preset maps; dumps (files and directories, as `run --all-outputs` writes them);
// every output file; and the errors (unknown preset, bad map range, shape mismatch, missing files),
// which exit 2 and leave no output file behind.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tool_test_files.h"

#include "cli_runner.h"
#include "npy.h"
#include "tensor.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::DType;
using qparity::cli::make_tensor;
using qparity::cli::Tensor;

std::string fresh_dir(const char* what) { return qparity_cli_test::make_temp_dir(std::string("diff_") + what); }

std::size_t entries(const std::string& dir) {
  std::size_t n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    ::closedir(d);
  }
  return n;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The README's stack (examples/npu_drift/stack.json) in the source tree.
std::string example_stack() {
  return std::string(QPARITY_SOURCE_DIR) + "/examples/npu_drift/stack.json";
}

// A small 3-layer stack with generated tensors.
std::string small_stack(const std::string& dir) {
  std::string layers;
  for (int i = 0; i < 3; ++i) {
    layers += std::string(i ? ",\n" : "") +
              "{\"type\": \"conv2d\", \"name\": \"c" + std::to_string(i) +
              "\", \"padding\": \"SAME\", \"input_scale\": 0.05, \"output_scale\": 0.05, "
              "\"filter_scales\": [0.0011, 0.0013, 0.0009, 0.0012], "
              "\"filter\": {\"seed\": " + std::to_string(10 + i) + ", \"shape\": [4, 3, 3, 4], \"min\": -127, \"max\": 127}, "
              "\"bias\": {\"seed\": " + std::to_string(20 + i) + ", \"shape\": [4], \"min\": -2000, \"max\": 2000}}";
  }
  const std::string path = dir + "/small.json";
  std::ofstream(path) << "{\"input\": {\"seed\": 1, \"shape\": [1, 8, 8, 4], \"min\": -100, \"max\": 100},\n"
                         " \"layers\": [" + layers + "]}\n";
  return path;
}

// The row of `layer` in diff's table, as tokens.
std::vector<std::string> row(const std::string& out, const std::string& layer) {
  return tokens(line_starting_with(out, layer));
}

TEST(CliDiff, PresetAgainstItselfIsZeroDrift) {
  const std::string dir = fresh_dir("self");
  for (const char* preset : {"tflite-reference", "npu-verisilicon", "onednn"}) {
    const CliResult r = run_cli({"diff", "--stack", example_stack(), "--a", preset, "--b", preset, "--json",
                                 dir + "/d.json", "--csv", dir + "/d.csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");  // no progress bar: stderr is not a terminal
    for (int layer = 0; layer < 20; ++layer) {
      const std::vector<std::string> t = row(r.out, std::to_string(layer));
      ASSERT_EQ(t.size(), 13u) << r.out;
      // elements, iso.diff, iso.%, iso.mae, iso.max, acc.diff, acc.%, acc.mae, acc.max, cosine, b-a
      EXPECT_EQ(t[2], "16384");
      EXPECT_EQ(t[3], "0");
      EXPECT_EQ(t[7], "0");
      EXPECT_EQ(t[8], "0.000");
      EXPECT_EQ(t[10], "0");
      EXPECT_EQ(t[11], "1.000000");
      EXPECT_EQ(t[12], "-");
    }
    const std::string json = slurp(dir + "/d.json");
    EXPECT_FALSE(contains(json, "\"differing\": 1")) << preset;
    EXPECT_TRUE(contains(json, "\"histogram\": [[0, 16384]]"));
  }
}

TEST(CliDiff, ReadmeStackDriftsAndTheDriftGrows) {
  const std::string dir = fresh_dir("readme");
  const CliResult r = run_cli({"diff", "--stack", example_stack(), "--a", "tflite-reference", "--b", "npu-verisilicon",
                               "--svg-histogram", dir + "/h.svg", "--svg-propagation", dir + "/p.svg", "--csv",
                               dir + "/d.csv", "--json", dir + "/d.json", "--per-channel"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double first = std::stod(row(r.out, "0")[8]), middle = std::stod(row(r.out, "9")[8]),
               last = std::stod(row(r.out, "19")[8]);
  EXPECT_GT(first, 0.0);
  EXPECT_GT(middle, 5 * first);
  EXPECT_GT(last, middle);
  // Isolated drift stays at the single-layer level (< 1 %) while accumulated grows.
  EXPECT_LT(std::stod(row(r.out, "19")[4]), 1.0);
  EXPECT_TRUE(contains(r.out, "A = tflite-reference\nB = npu-verisilicon\n"));
  const std::string csv = slurp(dir + "/d.csv");
  EXPECT_EQ(split_lines(csv).size(), 21u);
  EXPECT_EQ(csv.rfind("layer,name,preset_a,preset_b,shape,elements,", 0), 0u);
  EXPECT_TRUE(contains(slurp(dir + "/d.json"), "\"channels\": [{\"channel\": 0, "));
  const std::string h = slurp(dir + "/h.svg"), p = slurp(dir + "/p.svg");
  EXPECT_TRUE(contains(h, "<svg ") && contains(h, "19 conv19") && contains(h, "</svg>\n"));
  EXPECT_TRUE(contains(p, "<polyline") && contains(p, "layer 19 conv19, accumulated"));
  // Deterministic: the same run writes the same bytes.
  const CliResult again = run_cli({"diff", "--stack", example_stack(), "--a", "tflite-reference", "--b",
                                   "npu-verisilicon", "--svg-histogram", dir + "/h2.svg"});
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_EQ(slurp(dir + "/h2.svg"), h);
}

TEST(CliDiff, PresetMapRunsLayersOnTheirOwnPresets) {
  const std::string dir = fresh_dir("map");
  const std::string stack = small_stack(dir);
  // B equal to A on layers 0-1 and on the NPU from layer 2: no drift before layer 2.
  const CliResult r = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b",
                               "npu-verisilicon,0-1=tflite-reference"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(row(r.out, "0")[2], "tflite-reference");  // the table names per-layer presets
  EXPECT_EQ(row(r.out, "0")[3], "tflite-reference");
  EXPECT_EQ(row(r.out, "2")[3], "npu-verisilicon");
  EXPECT_EQ(row(r.out, "0")[9], "0");
  EXPECT_EQ(row(r.out, "1")[9], "0");
  EXPECT_TRUE(contains(r.out, "B = npu-verisilicon,0-1=tflite-reference"));
  // Layer 2 on the NPU against the same layer as layer 2 alone in a uniform diff: same numbers.
  const CliResult uniform = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon"});
  ASSERT_EQ(uniform.exit_code, 0);
  EXPECT_EQ(row(r.out, "2")[5], row(uniform.out, "2")[3]);  // isolated drift of layer 2
}

TEST(CliDiff, DumpsFilesAndDirectories) {
  const std::string dir = fresh_dir("dumps");
  const std::string stack = small_stack(dir);
  ASSERT_EQ(run_cli({"run", "--stack", stack, "--preset", "tflite-reference", "--all-outputs", dir + "/a"}).exit_code, 0);
  ASSERT_EQ(run_cli({"run", "--stack", stack, "--preset", "npu-verisilicon", "--all-outputs", dir + "/b"}).exit_code, 0);
  const CliResult dirs = run_cli({"diff", "--dump-a", dir + "/a", "--dump-b", dir + "/b", "--json", dir + "/d.json"});
  ASSERT_EQ(dirs.exit_code, 0) << dirs.err;
  const CliResult runs = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon"});
  ASSERT_EQ(runs.exit_code, 0);
  // Dumps give the accumulated drift of the stack run: same counts as the stack diff.
  for (const char* layer : {"0", "1", "2"}) {
    const std::vector<std::string> d = row(dirs.out, layer), s = row(runs.out, layer);
    ASSERT_GE(d.size(), 9u) << dirs.out;
    EXPECT_EQ(d[3], s[7]) << layer;       // acc.diff
    EXPECT_EQ(d[1], std::string(layer == std::string("0") ? "0_c0.npy" : layer == std::string("1") ? "1_c1.npy" : "2_c2.npy"));
  }
  EXPECT_FALSE(contains(dirs.out, "iso."));  // dumps have no isolated drift
  EXPECT_TRUE(contains(slurp(dir + "/d.json"), "\"isolated\": null"));
  const CliResult files = run_cli({"diff", "--dump-a", dir + "/a/1_c1.npy", "--dump-b", dir + "/a/1_c1.npy"});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(row(files.out, "0")[3], "0");
}

TEST(CliDiff, ErrorsExitTwoAndWriteNothing) {
  const std::string dir = fresh_dir("errors");
  const std::string out = dir + "/out";
  ::mkdir(out.c_str(), 0777);
  const std::string stack = small_stack(dir);
  const std::vector<std::string> outputs = {"--csv", out + "/d.csv", "--json", out + "/d.json", "--svg-histogram",
                                            out + "/h.svg", "--svg-propagation", out + "/p.svg"};
  Tensor a = make_tensor(DType::kInt8, {1, 4, 4, 2}), b = make_tensor(DType::kInt8, {1, 4, 2, 4});
  qparity::cli::write_npy(dir + "/a.npy", a);
  qparity::cli::write_npy(dir + "/b.npy", b);
  ::mkdir((dir + "/da").c_str(), 0777);
  ::mkdir((dir + "/db").c_str(), 0777);
  qparity::cli::write_npy(dir + "/da/0_x.npy", a);
  qparity::cli::write_npy(dir + "/db/0_y.npy", a);
  struct Case {
    std::vector<std::string> args;
    std::string message;
    int exit_code = 2;  // 1 for files that cannot be read
  };
  const std::vector<Case> cases = {
      {{"--stack", stack, "--a", "tflite-reference", "--b", "no-such-preset"},
       "qparity diff: --b: item 'no-such-preset': preset 'no-such-preset' is unknown; allowed: "},
      {{"--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon,2-5=ruy-x86"},
       "qparity diff: --b: range 2-5 is outside the stack, whose 3 layers are 0-2\n"},
      {{"--stack", stack, "--a", "0-1=ruy-x86", "--b", "ruy-arm"},
       "qparity diff: --a: no preset for layer(s) 2; add a default preset"},
      {{"--stack", stack, "--a", "ruy-x86,2-1=gemmlowp", "--b", "ruy-arm"},
       "qparity diff: --a: item '2-1=gemmlowp': range 2-1 ends before it starts\n"},
      {{"--stack", stack, "--a", "tflite-reference"}, "qparity diff: --stack needs --a and --b"},
      {{"--stack", dir + "/missing.json", "--a", "ruy-x86", "--b", "ruy-arm"}, "missing.json: cannot open", 1},
      {{"--dump-a", dir + "/a.npy", "--dump-b", dir + "/b.npy"},
       "qparity diff: shapes differ: " + dir + "/a.npy [1, 4, 4, 2] vs " + dir +
           "/b.npy [1, 4, 2, 4]; if one is NCHW give --layout-a/--layout-b nchw, if the elements are the same in "
           "another shape give --reshape\n"},
      {{"--dump-a", dir + "/a.npy", "--dump-b", dir + "/nope.npy"}, "nope.npy", 1},
      {{"--dump-a", dir + "/da", "--dump-b", dir + "/db"}, "qparity diff: --dump-b: " + dir + "/db has no 0_x.npy"},
      {{"--dump-a", dir + "/da", "--dump-b", dir + "/a.npy"}, "is a directory but --dump-b"},
      {{"--dump-a", dir + "/a.npy"}, "qparity diff: give both --dump-a and --dump-b\n"},
      {{}, "qparity diff: give --model FILE --a A --b B, --stack FILE --a A --b B, or --dump-a A --dump-b B\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"diff"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), outputs.begin(), outputs.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.message << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(entries(out), 0u) << c.message;  // no output file, not even a partial one
  }
  // An output path that cannot be written: exit 1, and the other outputs are not written either.
  const CliResult r = run_cli({"diff", "--stack", stack, "--a", "ruy-x86", "--b", "ruy-arm", "--csv", out + "/d.csv",
                               "--json", dir + "/no-such-dir/d.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "no-such-dir/d.json: cannot create a file there")) << r.err;
  EXPECT_EQ(entries(out), 0u);
}

TEST(CliDiff, ProgressBarWhenForced) {
  const std::string dir = fresh_dir("progress");
  const CliResult r = run_cli({"diff", "--stack", small_stack(dir), "--a", "ruy-x86", "--b", "ruy-arm"}, "",
                              {"QPARITY_PROGRESS=always"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "\rdiff [")) << r.err;
  EXPECT_TRUE(contains(r.err, "layers[2] 'c2'"));
  EXPECT_EQ(r.err.back(), '\r');  // erased at the end
}

}  // namespace
}  // namespace qparity_cli_test
