// The float precisions (fp32, fp16, fp16-acc16, bf16; docs/semantics.md §24) in the tool, end to
// end: `run --stack` on a float stack gives the worked example's values bit for bit; `diff --a fp32
// --b fp16` on a float stack and on the same stack exported as a float .tflite prints the per-layer
// table with the real-unit metrics and writes them to JSON and CSV; fp32 against fp32 drifts by
// nothing; `run --model` equals `run --stack`; and the wrong combinations (an integer preset on a
// float model, a float precision on a quantized stack or model) exit 2 naming what is allowed;
// `explain --model` states each side's precision.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "npy.h"
#include "tensor.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

void write_floats(const std::string& path, std::vector<std::size_t> shape, const std::vector<float>& values) {
  Tensor t = qparity::cli::make_tensor(DType::kFloat32, std::move(shape));
  ASSERT_EQ(t.bytes.size(), values.size() * sizeof(float));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  qparity::cli::write_npy(path, t);
}

std::vector<float> read_floats(const std::string& path) {
  const Tensor t = qparity::cli::read_npy(path);
  EXPECT_EQ(t.dtype, DType::kFloat32);
  std::vector<float> v(t.bytes.size() / sizeof(float));
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

std::vector<float> random_floats(std::mt19937& rng, std::size_t n, float scale) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// conv2d 3x3 SAME RELU6 (8 -> 16 channels) -> depthwise 3x3 stride 2 -> fully_connected 10.
std::string float_stack(const std::string& dir) {
  std::mt19937 rng(5);
  write_floats(dir + "/input.npy", {1, 12, 12, 8}, random_floats(rng, 12 * 12 * 8, 2.0f));
  write_floats(dir + "/w0.npy", {16, 3, 3, 8}, random_floats(rng, 16 * 9 * 8, 0.3f));
  write_floats(dir + "/b0.npy", {16}, random_floats(rng, 16, 0.5f));
  write_floats(dir + "/w1.npy", {1, 3, 3, 16}, random_floats(rng, 9 * 16, 0.5f));
  write_floats(dir + "/w2.npy", {10, 6 * 6 * 16}, random_floats(rng, 10 * 576, 0.1f));
  write_floats(dir + "/b2.npy", {10}, random_floats(rng, 10, 0.5f));
  const std::string path = dir + "/stack.json";
  write_bytes(path, R"({"input": "input.npy", "layers": [
    {"type": "conv2d", "name": "conv", "padding": "SAME", "activation": "RELU6", "filter": "w0.npy", "bias": "b0.npy"},
    {"type": "depthwise_conv2d", "name": "dw", "padding": "SAME", "strides": [2, 2], "filter": "w1.npy"},
    {"type": "fully_connected", "name": "fc", "filter": "w2.npy", "bias": "b2.npy"}]})");
  return path;
}

TEST(CliFloatPrecision, WorkedExampleBitForBit) {
  // docs/semantics.md §24's example: the values its table states for each precision.
  const std::string dir = make_temp_dir("float_example");
  write_floats(dir + "/x.npy", {1, 4}, {0.1f, 0.7f, 100.3f, -99.9f});
  write_floats(dir + "/w.npy", {1, 4}, {3.1f, 0.9f, 1.3f, 1.3f});
  write_floats(dir + "/b.npy", {1}, {0.05f});
  write_bytes(dir + "/fc.json",
              R"({"input": "x.npy", "layers": [{"type": "fully_connected", "filter": "w.npy", "bias": "b.npy"}]})");
  const std::pair<const char*, float> expected[] = {
      {"fp32", 1.5100067f}, {"fp16", 1.5585938f}, {"fp16-acc16", 1.5498047f}, {"bf16", 1.6328125f}};
  for (const auto& [precision, y] : expected) {
    const std::string out = dir + "/y_" + precision + ".npy";
    const CliResult r = run_cli({"run", "--stack", dir + "/fc.json", "--preset", precision, "--output", out});
    ASSERT_EQ(r.exit_code, 0) << precision << ": " << r.err;
    const std::vector<float> v = read_floats(out);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0], y) << precision;
  }
}

TEST(CliFloatPrecision, DiffOnAFloatStackAndItsTflite) {
  const std::string dir = make_temp_dir("float_stack");
  const std::string stack = float_stack(dir);
  const CliResult d = run_cli({"diff", "--stack", stack, "--a", "fp32", "--b", "fp16", "--json", dir + "/d.json",
                               "--csv", dir + "/d.csv"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(contains(d.out, "A = fp32")) << d.out;
  EXPECT_TRUE(contains(d.out, "B = fp16")) << d.out;
  for (const char* name : {"conv", "dw", "fc"}) EXPECT_TRUE(contains(d.out, name)) << d.out;
  for (const char* header : {"rmse", "sqnr", "cosine"}) EXPECT_TRUE(contains(d.out, header)) << header << "\n" << d.out;
  const std::string json = read_bytes(dir + "/d.json");
  for (const char* key : {"\"rmse\"", "\"sqnr_db\"", "\"rel_err\"", "\"cosine\"", "\"max_abs_diff\"", "\"isolated\""}) {
    EXPECT_TRUE(contains(json, key)) << key;
  }
  EXPECT_TRUE(contains(read_bytes(dir + "/d.csv"), "rmse"));

  // fp32 against fp32: nothing differs.
  const CliResult same = run_cli({"diff", "--stack", stack, "--a", "fp32", "--b", "fp32", "--json", dir + "/s.json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(run_cli({"diff", "--stack", stack, "--a", "fp32", "--b", "fp32", "--fail-on", "max_abs>0"}).exit_code, 0);
  // fp32 against fp16 does drift, and the gate sees it.
  EXPECT_EQ(run_cli({"diff", "--stack", stack, "--a", "fp32", "--b", "fp16", "--fail-on", "max_abs>0"}).exit_code, 3);

  // The same stack as a float .tflite: the same table (the rows' metrics agree), and run --model
  // gives run --stack's bits.
  const std::string model = dir + "/float.tflite";
  const CliResult e = run_cli({"export", "--stack", stack, "--output", model});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const CliResult dm = run_cli({"diff", "--model", model, "--input", dir + "/input.npy", "--a", "fp32", "--b",
                                "fp16-acc16", "--json", dir + "/m.json"});
  ASSERT_EQ(dm.exit_code, 0) << dm.err;
  EXPECT_TRUE(contains(dm.out, "3 op outputs")) << dm.out;
  EXPECT_TRUE(contains(read_bytes(dir + "/m.json"), "\"sqnr_db\""));
  for (const char* precision : {"fp16", "bf16"}) {
    ASSERT_EQ(run_cli({"run", "--model", model, "--input", dir + "/input.npy", "--preset", precision, "--output",
                       dir + "/m.npy"}).exit_code, 0);
    ASSERT_EQ(run_cli({"run", "--stack", stack, "--preset", precision, "--output", dir + "/s.npy"}).exit_code, 0);
    EXPECT_EQ(read_bytes(dir + "/m.npy"), read_bytes(dir + "/s.npy")) << precision;
  }
  // explain states each side's precision and no integer requantization.
  const CliResult x = run_cli({"explain", "--model", model, "--op", "0", "--a", "fp32", "--b", "fp16-acc16"});
  ASSERT_EQ(x.exit_code, 0) << x.err;
  EXPECT_TRUE(contains(x.out, "float precision fp16-acc16: storage float16, accumulator float16")) << x.out;
  EXPECT_FALSE(contains(x.out, "rounding core")) << x.out;
  // A per-op map mixes precisions: the first layer in fp32, the rest in bf16.
  const CliResult mixed = run_cli({"diff", "--stack", stack, "--a", "fp32", "--b", "bf16,0=fp32"});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
}

TEST(CliFloatPrecision, WrongCombinationsNameWhatIsAllowed) {
  const std::string dir = make_temp_dir("float_errors");
  const std::string stack = float_stack(dir);
  const std::string model = dir + "/float.tflite";
  ASSERT_EQ(run_cli({"export", "--stack", stack, "--output", model}).exit_code, 0);

  // An integer preset on a float model or stack.
  const CliResult a = run_cli({"diff", "--model", model, "--a", "tflite-reference", "--b", "fp16"});
  EXPECT_EQ(a.exit_code, 2);
  EXPECT_TRUE(contains(a.err, "computes on float32 tensors")) << a.err;
  EXPECT_TRUE(contains(a.err, "fp32, fp16, fp16-acc16, bf16")) << a.err;
  const CliResult b = run_cli({"run", "--stack", stack, "--preset", "xnnpack-fp32", "--output", dir + "/y.npy"});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_TRUE(contains(b.err, "fp32, fp16, fp16-acc16, bf16")) << b.err;
  EXPECT_FALSE(file_exists(dir + "/y.npy"));

  // A float precision on a quantized stack and on a quantized model.
  const std::string int8_stack = dir + "/int8.json";
  write_bytes(int8_stack, R"({"input": {"seed": 1, "shape": [1, 6, 6, 8], "min": -128, "max": 127}, "layers": [
    {"type": "conv2d", "input_scale": 0.05, "filter_scales": [0.01], "output_scale": 0.1,
     "filter": {"seed": 2, "shape": [4, 3, 3, 8], "min": -127, "max": 127}}]})");
  const CliResult c = run_cli({"diff", "--stack", int8_stack, "--a", "fp32", "--b", "tflite-reference"});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_TRUE(contains(c.err, "'fp32' is a float precision")) << c.err;
  EXPECT_TRUE(contains(c.err, "integer preset")) << c.err;
  const std::string int8_model = dir + "/int8.tflite";
  ASSERT_EQ(run_cli({"export", "--stack", int8_stack, "--output", int8_model}).exit_code, 0);
  const CliResult m = run_cli({"run", "--model", int8_model, "--preset", "fp16", "--output", dir + "/z.npy"});
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_TRUE(contains(m.err, "'fp16' is a float precision, for float32 tensors")) << m.err;
  EXPECT_TRUE(contains(m.err, "integer preset or runtime profile")) << m.err;

  // A stack mixing float and int8 layers.
  write_bytes(dir + "/mixed.json", R"({"input": "input.npy", "layers": [
    {"type": "conv2d", "filter": "w0.npy"},
    {"type": "conv2d", "filter": {"seed": 1, "shape": [4, 1, 1, 8], "min": -3, "max": 3}, "input_scale": 0.1, "filter_scales": [0.1],
     "output_scale": 0.1}]})");
  const CliResult x = run_cli({"diff", "--stack", dir + "/mixed.json", "--a", "fp32", "--b", "fp16"});
  EXPECT_EQ(x.exit_code, 2);
  EXPECT_TRUE(contains(x.err, "all float")) << x.err;
  // A quantization key on a float layer.
  write_bytes(dir + "/scaled.json", R"({"input": "input.npy", "layers": [
    {"type": "conv2d", "filter": "w0.npy", "output_scale": 0.1}]})");
  const CliResult s = run_cli({"run", "--stack", dir + "/scaled.json", "--preset", "fp16", "--output", dir + "/q.npy"});
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_TRUE(contains(s.err, "not a parameter of a float layer")) << s.err;
}

}  // namespace
}  // namespace qparity_cli_test
