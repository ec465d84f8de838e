// The tool on .onnx models, end to end: `run --model m.onnx` (its output equals the in-process
// reader and runner under the same profile, in ONNX's NCHW layout; every tensor dumped by name),
// `inspect`, `diff --model` between ORT's profile and another arithmetic, a QDQ-form model under the
// fused and unfused ORT profiles, and a malformed .onnx
// (exit 2, one message naming the file, no output written).
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.h"
#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "npy.h"
#include "onnx_qdq_models.h"
#include "onnx_test_models.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

struct WrittenModel {
  std::string dir, model, input;
  qparity_test::BuiltOnnx built;
};

WrittenModel write_conv_model() {
  WrittenModel w;
  qparity_test::QConvSpec s;
  s.x = qparity::cli::DType::kUint8;
  s.x_zp = 128;
  s.y_zp = 128;
  s.c = 16;
  w.built = qparity_test::qlinear_conv_model(s);
  w.dir = make_temp_dir("onnx");
  w.model = w.dir + "/conv.onnx";
  w.input = w.dir + "/x.npy";
  std::ofstream(w.model, std::ios::binary)
      .write(reinterpret_cast<const char*>(w.built.bytes.data()), static_cast<std::streamsize>(w.built.bytes.size()));
  qparity::cli::write_npy(w.input, w.built.inputs[0]);
  return w;
}

TEST(CliOnnx, RunModelEqualsTheRunnerInOnnxLayout) {
  const WrittenModel w = write_conv_model();
  for (const char* profile : {"ort-cpu-avx2", "ort-cpu-vnni"}) {
    const std::string out = w.dir + "/y_" + profile + ".npy";
    const CliResult r = run_cli({"run", "--model", w.model, "--input", w.input, "--preset", profile, "--output", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const qparity::cli::Tensor y = qparity::cli::read_npy(out);
    const qparity::model::Graph g = qparity::model::read_onnx(w.built.bytes, "conv.onnx");
    qparity::model::Runner runner(
        g, qparity::model::resolve_node_map(qparity::model::parse_node_map(profile, "profile"), g, "profile"));
    runner.run(w.built.inputs);
    const qparity::cli::Tensor want = runner.outputs()[0];
    EXPECT_EQ(y.shape, (std::vector<std::size_t>{1, 8, 12, 10}));
    EXPECT_EQ(y.dtype, want.dtype);
    EXPECT_EQ(y.bytes, want.bytes) << profile;
  }
  const std::string dir = w.dir + "/all";
  const CliResult all =
      run_cli({"run", "--model", w.model, "--input", w.input, "--preset", "ort-cpu", "--all-outputs", dir});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_TRUE(file_exists(dir + "/y.npy"));       // the graph output, NCHW, by its ONNX name
  EXPECT_TRUE(file_exists(dir + "/x_nhwc.npy"));  // the input transposed for the convolution
}

// A MatMulInteger model: `run --all-outputs` writes the int32 result by its ONNX name, equal to the
// runner's; `inspect` names the accumulate-only arithmetic; `diff --model` compares the int32 outputs.
TEST(CliOnnx, MatMulIntegerRunsWithInt32Outputs) {
  qparity_test::MatMulIntegerSpec s;
  const qparity_test::BuiltOnnx built = qparity_test::matmul_integer_model(s);
  const std::string dir = make_temp_dir("onnx_mmi");
  const std::string model = dir + "/mmi.onnx", input = dir + "/a.npy";
  std::ofstream(model, std::ios::binary)
      .write(reinterpret_cast<const char*>(built.bytes.data()), static_cast<std::streamsize>(built.bytes.size()));
  qparity::cli::write_npy(input, built.inputs[0]);
  const CliResult r =
      run_cli({"run", "--model", model, "--input", input, "--preset", "ort-cpu-vnni", "--all-outputs", dir + "/all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const qparity::cli::Tensor y = qparity::cli::read_npy(dir + "/all/y.npy");
  const qparity::model::Graph g = qparity::model::read_onnx(built.bytes, "mmi.onnx");
  qparity::model::Runner runner(
      g, qparity::model::resolve_node_map(qparity::model::parse_node_map("ort-cpu-vnni", "profile"), g, "profile"));
  runner.run(built.inputs);
  EXPECT_EQ(y.dtype, qparity::cli::DType::kInt32);
  EXPECT_EQ(y.shape, (std::vector<std::size_t>{16, 8}));
  EXPECT_EQ(y.bytes, runner.outputs()[0].bytes);
  const CliResult ins = run_cli({"inspect", model, "--a", "ort-cpu-vnni", "--b", "ort-cpu-avx2"});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  EXPECT_TRUE(contains(ins.out, "accumulate only")) << ins.out;
  // The int32 accumulators are compared: full-range u8 x s8 data saturate some int16 pairs under
  // ort-cpu-avx2, so the two ORT arithmetics differ.
  const CliResult diff =
      run_cli({"diff", "--model", model, "--input", input, "--a", "ort-cpu-vnni", "--b", "ort-cpu-avx2"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_FALSE(contains(diff.out, "No difference")) << diff.out;
  EXPECT_FALSE(contains(diff.out, "not in the table")) << diff.out;
}

TEST(CliOnnx, InspectAndDiff) {
  const WrittenModel w = write_conv_model();
  const CliResult ins = run_cli({"inspect", w.model, "--a", "ort-cpu-avx2", "--b", "ort-cpu-vnni"});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  EXPECT_TRUE(contains(ins.out, "CONV_2D")) << ins.out;
  EXPECT_TRUE(contains(ins.out, "TRANSPOSE")) << ins.out;
  EXPECT_TRUE(contains(ins.out, "pairsat16")) << ins.out;
  const CliResult diff =
      run_cli({"diff", "--model", w.model, "--input", w.input, "--a", "ort-cpu-vnni", "--b", "ort-cpu-avx2"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  // The convolution (named by its ONNX node) is where the two CPU kinds part: the u8 x s8 pair
  // saturation of ort-cpu-avx2 on full-range data; the transposes agree.
  EXPECT_TRUE(contains(diff.out, "y_node")) << diff.out;
  EXPECT_TRUE(contains(diff.out, "ort-cpu-avx2 (onnxruntime, pairsat16)")) << diff.out;
}

// The unfused profiles named for a CPU class keep that class's QLinear arithmetic whatever CPU runs
// the tool: a QLinearConv's u8 x s8 pairs saturate under ort-cpu-unfused-avx2 only.
TEST(CliOnnx, UnfusedProfilesNamedForACpuClass) {
  const WrittenModel w = write_conv_model();
  const CliResult diff = run_cli({"diff", "--model", w.model, "--input", w.input, "--a", "ort-cpu-unfused-avx512vnni",
                                  "--b", "ort-cpu-unfused-avx2"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_TRUE(contains(diff.out, "y_node")) << diff.out;
  EXPECT_TRUE(contains(diff.out, "ort-cpu-unfused-avx2 (onnxruntime, pairsat16)")) << diff.out;
  EXPECT_FALSE(contains(diff.out, "No difference")) << diff.out;
}

// A QDQ-form int8 convolution: ONNX Runtime runs it in float32 at both optimization levels, so
// ort-cpu and ort-cpu-unfused name the same arithmetic and the model diff between them is zero.
TEST(CliOnnx, QdqModelUnderTheFusedAndUnfusedProfiles) {
  qparity_test::QdqConvSpec s;
  s.activation = "Relu";
  const qparity_test::BuiltOnnx built = qparity_test::qdq_conv_model(s);
  const std::string dir = make_temp_dir("onnx");
  const std::string model = dir + "/qdq.onnx", input = dir + "/x.npy";
  std::ofstream(model, std::ios::binary)
      .write(reinterpret_cast<const char*>(built.bytes.data()), static_cast<std::streamsize>(built.bytes.size()));
  qparity::cli::write_npy(input, built.inputs[0]);
  const CliResult ins = run_cli({"inspect", model, "--a", "ort-cpu", "--b", "onnxruntime"});
  ASSERT_EQ(ins.exit_code, 0) << ins.err;
  EXPECT_TRUE(contains(ins.out, "ort-cpu (onnxruntime, unfused QDQ in float32)")) << ins.out;
  EXPECT_TRUE(contains(ins.out, "float32 FMAs in (channel, ky, kx) order")) << ins.out;
  const CliResult diff =
      run_cli({"diff", "--model", model, "--input", input, "--a", "ort-cpu", "--b", "ort-cpu-unfused"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_TRUE(contains(diff.out, "unfused QDQ in float32")) << diff.out;
  EXPECT_TRUE(contains(diff.out, "No difference")) << diff.out;
}

TEST(CliOnnx, MalformedOnnxExitsTwoNamingTheFile) {
  const std::string dir = make_temp_dir("onnx");
  const std::string model = dir + "/bad.onnx", out = dir + "/y.npy";
  std::ofstream(model, std::ios::binary) << "\xff\xff\xff\x07 not a model";
  const CliResult r = run_cli({"run", "--model", model, "--preset", "ort-cpu", "--output", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, model + ": not an ONNX model")) << r.err;
  EXPECT_FALSE(file_exists(out));
}

}  // namespace
}  // namespace qparity_cli_test
