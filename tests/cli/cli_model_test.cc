// The tool on .tflite models, end to end: `export` (a stack as a model), `inspect`, `run --model`
// (one output, every tensor by name), `diff --model` (the same table as the stack path, and device
// dumps by tensor name), `explain --model --op`, `list --ops`, `probe --format tflite` +
// `identify --model`, and the errors: a truncated or foreign file, an unknown op, a map naming no
// op; each exits 2 with one message naming the file and leaves no output file behind.
#include <gtest/gtest.h>

#include <sstream>
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

/// The rows of a diff table (lines whose first token is a layer or op index), without the name and
/// preset columns, which differ between the stack and the model path.
std::vector<std::string> metric_rows(const std::string& out) {
  std::vector<std::string> rows;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream t(line);
    std::string first;
    t >> first;
    if (first.empty() || first.find_first_not_of("0123456789") != std::string::npos) continue;
    std::vector<std::string> tok;
    for (std::string s; t >> s;) tok.push_back(s);
    if (tok.size() < 11) continue;
    // The last 11 columns: elements, isolated (diff, %, mae, max), accumulated (...), cosine, b-a (the
    // real-unit table's rows have 11 columns after the name too).
    std::string r = first;
    for (std::size_t i = tok.size() - 11; i < tok.size(); ++i) r += " " + tok[i];
    rows.push_back(r);
  }
  return rows;
}

struct ExportedDemo {
  std::string dir, model, input;
};

ExportedDemo export_demo() {
  ExportedDemo d;
  d.dir = make_temp_dir("model");
  d.model = d.dir + "/demo.tflite";
  d.input = d.dir + "/input.npy";
  const CliResult r = run_cli({"export", "--stack", example_stack(), "--output", d.model, "--save-input", d.input});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return d;
}

TEST(CliModel, ExportedDemoGivesTheStackTableUnderDiffModel) {
  const ExportedDemo d = export_demo();
  ASSERT_TRUE(file_exists(d.model));
  const CliResult stack = run_cli({"diff", "--stack", example_stack(), "--a", "tflite-reference", "--b", "npu-verisilicon"});
  ASSERT_EQ(stack.exit_code, 0) << stack.err;
  const CliResult model = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "tflite-reference", "--b",
                                   "npu-verisilicon"});
  ASSERT_EQ(model.exit_code, 0) << model.err;
  const std::vector<std::string> a = metric_rows(stack.out), b = metric_rows(model.out);
  ASSERT_EQ(a.size(), 40u) << stack.out;  // 20 layers, in LSBs and in real units
  EXPECT_EQ(a, b) << "stack:\n" << stack.out << "\nmodel:\n" << model.out;
}

// A model run keeps every tensor: the total is checked against --max-memory before anything is
// allocated, and the error names the largest tensor.
TEST(CliModel, MemoryLimitNamesTheModelAndItsLargestTensor) {
  const ExportedDemo d = export_demo();
  const CliResult r = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "tflite-reference", "--b",
                               "npu-verisilicon", "--max-memory", "64K"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity diff: running " + d.model + " (every op's outputs are kept; the largest, "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "more than the memory limit of 64 KiB")) << r.err;
}

TEST(CliModel, InspectRunAndDumpsByTensorName) {
  const ExportedDemo d = export_demo();
  const CliResult ins = run_cli({"inspect", d.model, "--a", "tflite-reference", "--b", "npu-verisilicon"});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  EXPECT_TRUE(contains(ins.out, "CONV_2D")) << ins.out;
  EXPECT_TRUE(contains(ins.out, "ops differ between --a and --b")) << ins.out;

  const std::string dumps = d.dir + "/dumps";
  const CliResult run = run_cli({"run", "--model", d.model, "--input", d.input, "--preset", "npu-verisilicon",
                                 "--output", d.dir + "/y.npy", "--all-outputs", dumps});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(file_exists(d.dir + "/y.npy"));
  const std::vector<std::string> files = list_dir(dumps);
  EXPECT_GE(files.size(), 20u);
  // The dumps stand for a device that ran npu-verisilicon: diff --dump-b finds them by tensor name
  // and the model under npu-verisilicon agrees with them exactly, tflite-reference does not.
  const CliResult same = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "npu-verisilicon",
                                  "--dump-b", dumps});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  for (const std::string& row : metric_rows(same.out)) {
    std::istringstream t(row);
    std::string idx, elements, iso_diff;
    t >> idx >> elements >> iso_diff;
    EXPECT_EQ(iso_diff, "0") << row;
  }
  const CliResult other = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "tflite-reference",
                                   "--dump-b", dumps});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(metric_rows(other.out), metric_rows(same.out));
}

TEST(CliModel, ExplainOneOpOfAModel) {
  const ExportedDemo d = export_demo();
  const CliResult r = run_cli({"explain", "--model", d.model, "--op", "1", "--a", "tflite-reference", "--b",
                               "npu-verisilicon", "--input", d.input});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "op 1 (CONV_2D")) << r.out;
  EXPECT_TRUE(contains(r.out, "preset tflite-reference: rounding core DR-AZ")) << r.out;
  EXPECT_TRUE(contains(r.out, "preset npu-verisilicon: rounding core")) << r.out;
  EXPECT_TRUE(contains(r.out, "compute it differently")) << r.out;
  EXPECT_TRUE(contains(r.out, "elements of tensor")) << r.out;
  const CliResult self = run_cli({"explain", "--model", d.model, "--op", "1", "--a", "npu-verisilicon", "--b",
                                  "npu-verisilicon"});
  ASSERT_EQ(self.exit_code, 0) << self.err;
  EXPECT_TRUE(contains(self.out, "compute the same bits")) << self.out;
  EXPECT_TRUE(contains(self.out, ", 0 of ") || contains(self.out, " 0 of ")) << self.out;
  const CliResult bad = run_cli({"explain", "--model", d.model, "--op", "999"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "--op 999: the model has")) << bad.err;
}

TEST(CliModel, ProbeModelsIdentifyThePresetThatProducedTheirOutputs) {
  const std::string dir = make_temp_dir("model_probe");
  const CliResult probe = run_cli({"probe", "--output", dir, "--format", "tflite"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  std::size_t models = 0;
  for (const std::string& f : list_dir(dir)) models += f.size() > 7 && f.compare(f.size() - 7, 7, ".tflite") == 0;
  EXPECT_GE(models, 8u);
  // The ties probe: its elements separate the tie rules.
  const std::string model = dir + "/ties.tflite";
  ASSERT_TRUE(file_exists(model));
  // The probe's own input for it (<name>.input.npy), as the device would be given.
  const std::string input = model.substr(0, model.size() - 7) + ".input.npy";
  ASSERT_TRUE(file_exists(input)) << input;
  const std::string observed = dir + "/observed";
  const CliResult run = run_cli({"run", "--model", model, "--input", input, "--preset", "npu-verisilicon",
                                 "--all-outputs", observed});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CliResult id = run_cli({"identify", "--model", model, "--input", input, "--observed", observed});
  ASSERT_EQ(id.exit_code, 0) << id.err;
  std::string exact;
  std::istringstream lines(id.out);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("Exact matches", 0) == 0) exact = l;
  }
  EXPECT_TRUE(contains(exact, "npu-verisilicon")) << id.out;
  EXPECT_FALSE(contains(exact, "tflite-reference")) << id.out;
  EXPECT_FALSE(contains(exact, "tflite-single")) << id.out;
}

TEST(CliModel, MalformedModelsFailWithOneMessageAndNoOutput) {
  const ExportedDemo d = export_demo();
  const std::string bytes = read_bytes(d.model);
  const std::string truncated = d.dir + "/truncated.tflite";
  write_bytes(truncated, bytes.substr(0, bytes.size() / 3));
  const std::string out = d.dir + "/out.npy";
  CliResult r = run_cli({"run", "--model", truncated, "--preset", "tflite-reference", "--output", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "truncated.tflite")) << r.err;
  EXPECT_FALSE(file_exists(out));
  const std::string foreign = d.dir + "/foreign.tflite";
  write_bytes(foreign, "this is not a model at all, just text");
  r = run_cli({"inspect", foreign});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "foreign.tflite")) << r.err;
  r = run_cli({"run", "--model", d.model, "--preset", "tflite-reference,99=npu-verisilicon", "--output", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(file_exists(out));
}

}  // namespace
}  // namespace qparity_cli_test
