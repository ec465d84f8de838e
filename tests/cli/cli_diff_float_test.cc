// `qparity diff` in real units and its drift locators, end to end: float16 / float32 / float64
// dumps, integer dumps dequantized with each side's scale and zero point (int8 against uint8, an
// integer dump against a float one), NCHW dumps, --reshape, the first-difference line, --worst,
// --per-channel on the terminal, and the --fail-on gates (exit 3, outputs still written; syntax
// errors and gates that apply to nothing exit 2).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "npy.h"
#include "qparity/float_formats.h"
#include "tensor.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::DType;
using qparity::cli::make_tensor;
using qparity::cli::Tensor;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

Tensor float_tensor(DType dtype, std::vector<std::size_t> shape, const std::vector<double>& values) {
  Tensor t = make_tensor(dtype, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kFloat32) {
      const auto f = static_cast<float>(values[i]);
      std::memcpy(t.bytes.data() + 4 * i, &f, 4);
    } else if (dtype == DType::kFloat64) {
      std::memcpy(t.bytes.data() + 8 * i, &values[i], 8);
    } else {
      const std::uint16_t h = qparity::float_to_float16(static_cast<float>(values[i]));
      std::memcpy(t.bytes.data() + 2 * i, &h, 2);
    }
  }
  return t;
}

Tensor int_tensor(DType dtype, std::vector<std::size_t> shape, const std::vector<std::int64_t>& values) {
  Tensor t = make_tensor(dtype, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) t.set_integer(i, values[i]);
  return t;
}

struct Files {
  std::string dir;
  std::string path(const std::string& name) const { return dir + "/" + name; }
  std::string put(const std::string& name, const Tensor& t) const {
    qparity::cli::write_npy(path(name), t);
    return path(name);
  }
};

Files files(const char* what) { return {make_temp_dir(std::string("diff_float_") + what)}; }

TEST(CliDiffFloat, Float32AgainstFloat16InRealUnits) {
  const Files f = files("f16");
  // 0.1 is not a float16: it becomes 0.0999755859375 (error 2.44e-5); 3 and -2 are exact.
  const std::vector<double> v = {0.1, 3.0, -2.0, 0.0};
  const std::string a = f.put("a.npy", float_tensor(DType::kFloat32, {1, 2, 2, 1}, v));
  const std::string b = f.put("b.npy", float_tensor(DType::kFloat16, {1, 2, 2, 1}, v));
  const CliResult r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--worst", "2", "--json", f.path("d.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "diff: dumps, 1 dump pair\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "In real units")) << r.out;
  EXPECT_FALSE(contains(r.out, "acc.b-a")) << r.out;  // no LSB table for floats
  EXPECT_TRUE(contains(r.out, "First difference: layer 0 (a.npy), 1 of 4 elements (25.000%); worst at [0, 0, 0, 0]: "
                              "A 0.1, B 0.09997559"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "Worst elements")) << r.out;
  const std::string json = read_bytes(f.path("d.json"));
  EXPECT_TRUE(contains(json, "\"lsb\": false")) << json;
  EXPECT_TRUE(contains(json, "\"worst\": [{\"at\": [0, 0, 0, 0], \"a\": 0.10000000149011612, \"b\": 0.0999755859375}]"))
      << json;
  // SQNR = 10 log10(sum a^2 / sum d^2) from the exact float values.
  const double a0 = static_cast<double>(0.1f), d0 = 0.0999755859375 - a0;
  const double sqnr = 10 * std::log10((a0 * a0 + 9 + 4) / (d0 * d0));
  EXPECT_TRUE(contains(json, fmt::format("\"sqnr_db\": {}", sqnr))) << json << "\nexpected " << sqnr;
}

TEST(CliDiffFloat, Float64AndNonFiniteValues) {
  const Files f = files("f64");
  const double inf = INFINITY, nan = NAN;
  const std::string a = f.put("a.npy", float_tensor(DType::kFloat64, {4}, {1.0, nan, inf, 2.0}));
  const std::string b = f.put("b.npy", float_tensor(DType::kFloat32, {4}, {1.0, nan, 5.0, 2.0}));
  const CliResult r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--json", f.path("d.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // NaN against NaN is agreement; inf against 5 is the one difference and makes SQNR -inf.
  const std::string json = read_bytes(f.path("d.json"));
  EXPECT_TRUE(contains(json, "\"differing\": 1, \"percent_differing\": 25, \"nonfinite_mismatch\": 1")) << json;
  EXPECT_TRUE(contains(json, "\"sqnr_db\": \"-inf\", \"rel_err\": \"inf\"")) << json;
  EXPECT_TRUE(contains(r.out, "worst at [2]: A inf, B 5 (non-finite)")) << r.out;
}

TEST(CliDiffFloat, IntegerDumpsDequantizedWithTheirOwnQuantization) {
  const Files f = files("dequant");
  // One tensor as int8 (zero point 0) and as uint8 (zero point 128), scale 0.5; one element off
  // by one step in B.
  const std::string q8 = f.put("q8.npy", int_tensor(DType::kInt8, {1, 1, 2, 2}, {-128, 0, 5, 127}));
  const std::string u8 = f.put("u8.npy", int_tensor(DType::kUint8, {1, 1, 2, 2}, {0, 128, 134, 255}));
  CliResult r = run_cli({"diff", "--dump-a", q8, "--dump-b", u8});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "q8.npy is int8 but " + u8 + " is uint8")) << r.err;
  EXPECT_TRUE(contains(r.err, "--scale-a/--zp-a and --scale-b/--zp-b")) << r.err;
  r = run_cli({"diff", "--dump-a", q8, "--dump-b", u8, "--scale-a", "0.5", "--zp-a", "0", "--scale-b", "0.5", "--zp-b",
               "128", "--worst", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "worst at [0, 0, 1, 0]: A 2.5, B 3 (+0.5)")) << r.out;
  // A float reference against the integer dump: the integer side needs its quantization.
  const std::string fa = f.put("f.npy", float_tensor(DType::kFloat32, {1, 1, 2, 2}, {-64, 0, 2.5, 63.5}));
  r = run_cli({"diff", "--dump-a", fa, "--dump-b", q8});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "is int8 and " + fa + " is float32")) << r.err;
  EXPECT_TRUE(contains(r.err, "--scale-b S --zp-b Z")) << r.err;
  r = run_cli({"diff", "--dump-a", fa, "--dump-b", q8, "--scale-b", "0.5", "--zp-b", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "No difference: A and B agree on every element of the layer.")) << r.out;
  // Half a quantization, a scale for a float side, a bad scale.
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--scale-b", "0.5"}, "--scale-b needs --zp-b too"},
           {{"--scale-a", "0.5", "--zp-a", "0", "--scale-b", "0.5", "--zp-b", "0"}, "a scale and zero point apply to "
                                                                                    "integer tensors only"},
           {{"--scale-b", "-1", "--zp-b", "0"}, "--scale-b: '-1' is not a positive finite number"},
           {{"--scale-b", "0.5", "--zp-b", "x"}, "--zp-b: 'x' is not an integer"}}) {
    std::vector<std::string> all = {"diff", "--dump-a", fa, "--dump-b", q8};
    all.insert(all.end(), args.begin(), args.end());
    r = run_cli(all);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
  }
}

TEST(CliDiffFloat, NchwDumpsAndReshape) {
  const Files f = files("layout");
  // NHWC [1, 2, 2, 3] with values 0..11; the same tensor written NCHW [1, 3, 2, 2].
  std::vector<std::int64_t> nhwc(12), nchw(12);
  for (std::size_t h = 0; h < 2; ++h) {
    for (std::size_t w = 0; w < 2; ++w) {
      for (std::size_t c = 0; c < 3; ++c) {
        nhwc[(h * 2 + w) * 3 + c] = static_cast<std::int64_t>((h * 2 + w) * 3 + c);
        nchw[(c * 2 + h) * 2 + w] = static_cast<std::int64_t>((h * 2 + w) * 3 + c);
      }
    }
  }
  nchw[(2 * 2 + 1) * 2 + 0] += 1;  // c = 2, h = 1, w = 0 differs by one step
  const std::string a = f.put("a.npy", int_tensor(DType::kInt8, {1, 2, 2, 3}, nhwc));
  const std::string b = f.put("b.npy", int_tensor(DType::kInt8, {1, 3, 2, 2}, nchw));
  CliResult r = run_cli({"diff", "--dump-a", a, "--dump-b", b});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "give --layout-a/--layout-b nchw")) << r.err;
  r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--layout-b", "nchw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "First difference: layer 0 (a.npy), 1 of 12 elements (8.333%); worst at [0, 1, 0, 2]: "
                              "A 8, B 9 (+1 LSB)."))
      << r.out;
  r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--layout-b", "nwhc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--layout-b: 'nwhc' is not a layout; allowed: nhwc (default), nchw")) << r.err;
  // A flat buffer of the same elements: --reshape reads it in A's shape.
  const std::string flat = f.put("flat.npy", int_tensor(DType::kInt8, {12}, nhwc));
  r = run_cli({"diff", "--dump-a", a, "--dump-b", flat, "--reshape"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "No difference")) << r.out;
  const std::string short_flat = f.put("short.npy", int_tensor(DType::kInt8, {11}, {}));
  r = run_cli({"diff", "--dump-a", a, "--dump-b", short_flat, "--reshape"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--reshape: " + a + " [1, 2, 2, 3] has 12 elements but")) << r.err;
}

TEST(CliDiffFloat, FailOnGatesExitThreeAndStillWriteTheReport) {
  const Files f = files("gates");
  const std::string a = f.put("a.npy", int_tensor(DType::kInt8, {1, 1, 4, 2}, {3, 3, 3, 3, 3, 3, 3, 3}));
  const std::string b = f.put("b.npy", int_tensor(DType::kInt8, {1, 1, 4, 2}, {3, 5, 3, 3, 3, 2, 3, 3}));
  // Passing gates: exit 0 and a line saying so.
  CliResult r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--fail-on", "max_lsb>2", "--fail-on", "percent>=50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "--fail-on: all 2 gates passed on every layer.")) << r.out;
  // A failing gate: exit 3, the failure named, the outputs written all the same.
  r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--fail-on", "max_lsb>1,cosine<0.5", "--csv", f.path("d.csv")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.out, "FAILED --fail-on: 1 check in 1 layer; first beyond the tolerance: layer 0 (a.npy).\n"
                              "  layer 0 (a.npy): max_lsb = 2 (fails 'max_lsb>1')"))
      << r.out;
  EXPECT_FALSE(read_bytes(f.path("d.csv")).empty());
  // Real-unit gates need real-unit metrics; with the quantization given they apply.
  r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--fail-on", "sqnr<30"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--fail-on: 'sqnr<30' applies to no layer: no layer was compared in real units")) << r.err;
  r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--fail-on", "iso.max_lsb>0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "this comparison has no isolated metrics")) << r.err;
  r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--scale-a", "0.25", "--zp-a", "0", "--scale-b", "0.25", "--zp-b",
               "0", "--fail-on", "max_abs>0.4"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.out, "max_abs = 0.5 (fails 'max_abs>0.4')")) << r.out;
  // Syntax errors name the gate and the grammar.
  for (const auto& [gate, message] : std::vector<std::pair<std::string, std::string>>{
           {"max_lsb", "'max_lsb' has no comparison"},
           {"maxlsb>1", "'maxlsb>1' names no known metric ('maxlsb')"},
           {"cosine<", "'cosine<' has no number after the comparison"},
           {"cosine<0.9x", "'cosine<0.9x' has '0.9x' where a finite number belongs"},
           {"max_lsb>1,", "'max_lsb>1,' has an empty gate"}}) {
    r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--fail-on", gate});
    EXPECT_EQ(r.exit_code, 2) << gate;
    EXPECT_TRUE(contains(r.err, "qparity diff: --fail-on: " + message)) << r.err;
  }
}

TEST(CliDiffFloat, StackGatesIsolatedMetricsAndPerChannelTable) {
  const Files f = files("stack");
  const std::string stack = std::string(QPARITY_SOURCE_DIR) + "/examples/npu_drift/stack.json";
  CliResult r = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon", "--per-channel",
                         "--worst", "2", "--fail-on", "iso.max_lsb>1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // every layer alone drifts by one step at most
  EXPECT_TRUE(contains(r.out, "First difference: layer 0 (")) << r.out;
  EXPECT_TRUE(contains(r.out, "Per channel, layer 0 (")) << r.out;
  EXPECT_TRUE(contains(r.out, "channel  elements  diff")) << r.out;
  EXPECT_TRUE(contains(r.out, "In real units")) << r.out;  // the stack's layers have output scales
  r = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon", "--fail-on", "max_lsb>2"});
  EXPECT_EQ(r.exit_code, 3) << r.out;  // accumulated drift grows beyond 2 steps
  EXPECT_TRUE(contains(r.out, "first beyond the tolerance: layer ")) << r.out;
  // Dump-only options are refused for stacks.
  r = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon", "--scale-a", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--scale-a applies to --dump-a/--dump-b only")) << r.err;
}

}  // namespace
}  // namespace qparity_cli_test
