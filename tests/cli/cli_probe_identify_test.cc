// `qparity probe` and `qparity identify` end to end: the probe directory's files, and identify
// recovering presets from their own simulated outputs on the probe set (the full sweep over every
// preset and NPU-family member runs in process in cli_drift_units_test.cc; here a sample goes
// through the binary), the report's sections, the single-layer stack mode, and bad input.
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
#include "layer_runner.h"
#include "npy.h"
#include "probe_set.h"

namespace qparity_cli_test {
namespace {

std::string fresh_dir(const char* what) { return qparity_cli_test::make_temp_dir(std::string("probe_") + what); }

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// Writes what `preset` outputs on every probe of `probe_dir` into `observed_dir`/<name>.npy.
void simulate_device(const std::string& probe_dir, const std::string& preset, const std::string& observed_dir) {
  ::mkdir(observed_dir.c_str(), 0777);
  for (const qparity::cli::ProbeCase& c : qparity::cli::load_probe_set(probe_dir)) {
    qparity::cli::write_npy(observed_dir + "/" + c.name + ".npy",
                            qparity::cli::run_layer(c.layer, qparity::find_preset(preset), c.input));
  }
}

std::string exact_line(const std::string& out) {
  for (const std::string& line : split_lines(out)) {
    if (line.rfind("Exact matches", 0) == 0 || line.rfind("No exact match", 0) == 0) return line;
  }
  return "";
}

TEST(CliProbe, WritesTheProbeDirectory) {
  const std::string dir = fresh_dir("set") + "/probe";  // created by the command
  const CliResult r = run_cli({"probe", "--output", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "wrote 8 probe layers"));
  for (const char* name : {"ties", "double_rounding", "zero_point", "wide_values", "precision_1", "precision_2",
                           "precision_3", "accumulator"}) {
    for (const char* suffix : {".json", ".input.npy", ".filter.npy", ".bias.npy"}) {
      EXPECT_TRUE(exists(dir + "/" + name + suffix)) << name << suffix;
    }
  }
  EXPECT_TRUE(exists(dir + "/probe.json"));
  EXPECT_TRUE(exists(dir + "/README.txt"));
  // Each probe is a stack `run` accepts.
  const CliResult run = run_cli({"run", "--stack", dir + "/ties.json", "--preset", "tflite-reference", "--output",
                                 dir + "/ties.out.npy"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // The parent of --output must exist; nothing is written then.
  const CliResult bad = run_cli({"probe", "--output", dir + "/no/such"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "qparity probe: " + dir + "/no/such: cannot create the directory")) << bad.err;
}

TEST(CliIdentify, RecoversPresetsFromTheirOwnOutputs) {
  const std::string dir = fresh_dir("id");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  struct Expectation {
    std::string truth;
    std::string exact;  // the "Exact matches" line: the truth and what the probe cannot tell from it
  };
  const std::vector<Expectation> cases = {
      {"tflite-reference", "Exact matches (4): tflite-reference, gemmlowp, cmsis-nn, tosa-double"},
      {"ruy-x86", "Exact matches (1): ruy-x86"},
      {"ruy-arm", "Exact matches (1): ruy-arm"},
      {"xnnpack-rndnu", "Exact matches (1): xnnpack-rndnu"},
      {"onednn", "Exact matches (1): onednn"},
      {"tflite-16x8", "Exact matches (1): tflite-16x8"},
      {"npu-verisilicon", "Exact matches (2): npu-verisilicon, npu-he-q15-int32"},
      {"npu-haz-f24-sat24", "Exact matches (1): npu-haz-f24-sat24"},
      {"npu-tz-q15-wrap16", "Exact matches (1): npu-tz-q15-wrap16"},
  };
  for (const Expectation& e : cases) {
    const std::string observed = dir + "/obs_" + e.truth;
    simulate_device(dir + "/probe", e.truth, observed);
    const CliResult r = run_cli({"identify", "--probe", dir + "/probe", "--observed", observed});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(exact_line(r.out), e.exact) << r.out;
    EXPECT_EQ(tokens(line_starting_with(r.out, "1")).at(2), "0") << r.out;  // rank 1 has 0 differing
  }
}

TEST(CliIdentify, ReportExplainsGroupsAndSeparatingElements) {
  const std::string dir = fresh_dir("report");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  simulate_device(dir + "/probe", "tflite-single", dir + "/obs");
  const CliResult r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs", "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "identify: 121 candidates (16 named presets + NPU family x 7 accumulator models)"));
  EXPECT_EQ(exact_line(r.out), "Exact matches (4): tflite-single, cmsis-nn-single, tosa-single, npu-hu-q31-int32");
  EXPECT_TRUE(contains(r.out, "Indistinguishable on this data:\n"));
  EXPECT_TRUE(contains(r.out, "  tflite-single = cmsis-nn-single: identical definition\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "tflite-single = tosa-single: differ only in multiplier tflite-q31-single-build vs "
                              "tflite-q31"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "Elements separating the top 3 groups")) << r.out;
  EXPECT_TRUE(contains(r.out, "#1 tflite-single"));
  // A separating row: observed equals #1 (the truth's group), and some other group differs (*).
  bool row_found = false;
  for (const std::string& line : split_lines(r.out)) {
    const std::vector<std::string> t = tokens(line);
    if (t.size() == 8 && (t[0].rfind("precision_", 0) == 0 || t[0] == "accumulator")) {
      row_found = row_found || (t[4] == t[5] && (t[6].back() == '*' || t[7].back() == '*'));
    }
  }
  EXPECT_TRUE(row_found) << r.out;
}

TEST(CliIdentify, NoExactMatchIsReported) {
  const std::string dir = fresh_dir("none");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  simulate_device(dir + "/probe", "tflite-reference", dir + "/obs");
  // Perturb one element of one probe: no candidate matches exactly any more.
  qparity::cli::Tensor t = qparity::cli::read_npy(dir + "/obs/ties.npy");
  t.set_integer(0, t.integer_at(0) + 7);
  qparity::cli::write_npy(dir + "/obs/ties.npy", t);
  const CliResult r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(exact_line(r.out).rfind("No exact match. Closest: tflite-reference (1 of ", 0), 0u) << r.out;
}

TEST(CliIdentify, SingleLayerStackMode) {
  const std::string dir = fresh_dir("stack");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  ASSERT_EQ(run_cli({"run", "--stack", dir + "/probe/double_rounding.json", "--preset", "tflite-single", "--output",
                     dir + "/y.npy"})
                .exit_code,
            0);
  const CliResult r = run_cli({"identify", "--stack", dir + "/probe/double_rounding.json", "--observed", dir + "/y.npy",
                               "--accumulators", "int32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "identify: 31 candidates")) << r.out;
  EXPECT_TRUE(contains(exact_line(r.out), "tflite-single")) << r.out;
  EXPECT_FALSE(contains(exact_line(r.out), "tflite-reference")) << r.out;
}

TEST(CliIdentify, BadInput) {
  const std::string dir = fresh_dir("bad");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  simulate_device(dir + "/probe", "tflite-reference", dir + "/obs");
  qparity::cli::write_npy(dir + "/obs/ties.npy", qparity::cli::make_tensor(qparity::cli::DType::kInt8, {1, 1, 1, 3}));
  CliResult r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity identify: observed output of 'ties' has shape [1, 1, 1, 3]; the layer gives [1, 1, 1, 24]\n");
  r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/nowhere"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--observed: " + dir + "/nowhere is not a directory")) << r.err;
  r = run_cli({"identify", "--probe", dir, "--observed", dir + "/obs"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, dir + "/probe.json")) << r.err;
  r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs", "--accumulators", "int32,sat99"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--accumulators: 'sat99' is not an accumulator model")) << r.err;
  r = run_cli({"identify", "--observed", dir + "/obs"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity identify: give --probe DIR or --stack FILE (see --help)\n");
}

TEST(CliIdentify, RanksOnTheProbesItHasAndNamesTheMissingOnes) {
  const std::string dir = fresh_dir("missing");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  simulate_device(dir + "/probe", "tflite-reference", dir + "/obs");
  ::unlink((dir + "/obs/zero_point.npy").c_str());
  CliResult r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Ranked on 7 of 8 probes; no observed output for zero_point.")) << r.out;
  EXPECT_TRUE(contains(r.out, "tflite-reference")) << r.out;
  // With one probe left, the groups are large: the table stays narrow, the NPU variants are folded
  // and summarised, every line is short.
  for (const char* name : {"double_rounding", "wide_values", "precision_1", "precision_2", "precision_3",
                           "accumulator"}) {
    ::unlink((dir + "/obs/" + name + ".npy").c_str());
  }
  r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs", "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Ranked on 1 of 8 probes")) << r.out;
  EXPECT_TRUE(contains(r.out, "candidates in all (below)")) << r.out;
  EXPECT_TRUE(contains(r.out, "-{int32|int64|sat16|sat24|sat32|wrap16|wrap24}")) << r.out;
  EXPECT_TRUE(contains(r.out, "other NPU variants that differ from it only in")) << r.out;
  for (const std::string& line : split_lines(r.out)) EXPECT_LE(line.size(), 160u) << line;
  // No probe output at all: an error, not an empty ranking.
  ::mkdir((dir + "/empty").c_str(), 0777);
  r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/empty"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--observed: " + dir + "/empty holds none of the")) << r.err;
}

TEST(CliIdentify, ObservedOutputsOfAnotherTypeAreRefusedWithWhatToConvert) {
  const std::string dir = fresh_dir("dtype");
  ASSERT_EQ(run_cli({"probe", "--output", dir + "/probe"}).exit_code, 0);
  simulate_device(dir + "/probe", "tflite-reference", dir + "/obs");
  const qparity::cli::Tensor ties = qparity::cli::read_npy(dir + "/obs/ties.npy");
  qparity::cli::Tensor u = qparity::cli::make_tensor(qparity::cli::DType::kUint8, ties.shape);
  for (std::size_t i = 0; i < u.elements(); ++i) u.set_integer(i, ties.integer_at(i) + 128);
  qparity::cli::write_npy(dir + "/obs/ties.npy", u);
  CliResult r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity identify: observed output of 'ties' is uint8; the layer's output is int8: if the "
                              "device stores the same tensor as uint8 with the zero point moved by 128, convert it"))
      << r.err;
  qparity::cli::write_npy(dir + "/obs/ties.npy", qparity::cli::make_tensor(qparity::cli::DType::kFloat32, ties.shape));
  r = run_cli({"identify", "--probe", dir + "/probe", "--observed", dir + "/obs"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "is float32; the layer's output is int8: identify compares the stored integers")) << r.err;
}

}  // namespace
}  // namespace qparity_cli_test
