// `qparity run` end to end: each operation and a stack, under several presets, bit-equal to the
// library's reference computed here from the same tensors (the expected values are built with the
// library's own API, not with the tool's layer runner); and no output file on any failure.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "npy.h"
#include "preset_params.h"
#include "qparity/qparity.h"
#include "qparity/reference_conv2d.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;

const char* const kPresets[] = {"tflite-reference", "tflite-single", "ruy-x86", "npu-verisilicon",
                                "xnnpack-fp32", "onednn", "tflite-16x8", "npu-fl-f24-sat20"};

// Deterministic test data (a small LCG, independent of the tool's generator).
template <class T>
std::vector<T> random_values(std::size_t n, int lo, int hi, std::uint32_t seed) {
  std::vector<T> v(n);
  std::uint32_t s = seed;
  for (T& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<T>(lo + static_cast<int>((s >> 8) % static_cast<std::uint32_t>(hi - lo + 1)));
  }
  return v;
}

template <class T>
Tensor tensor_of(DType dtype, std::vector<std::size_t> shape, const std::vector<T>& values) {
  Tensor t = qparity::cli::make_tensor(dtype, std::move(shape));
  EXPECT_EQ(t.bytes.size(), values.size() * sizeof(T));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  std::vector<T> v(t.elements());
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

std::string save(const std::string& dir, const std::string& name, const Tensor& t) {
  const std::string path = dir + "/" + name;
  qparity::cli::write_npy(path, t);
  return path;
}

// ---- conv2d -------------------------------------------------------------------------------------

struct ConvData {
  std::vector<std::int8_t> input = random_values<std::int8_t>(2 * 7 * 9 * 6, -128, 127, 1);
  std::vector<std::int8_t> filter = random_values<std::int8_t>(4 * 3 * 3 * 3, -127, 127, 2);  // groups 2
  std::vector<std::int32_t> bias = random_values<std::int32_t>(4, -3000, 3000, 3);
  std::vector<float> filter_scales = {0.011f, 0.0093f, 0.02f, 0.0041f};
  float input_scale = 0.047f, output_scale = 0.061f;
};

const char* const kConvParams = R"({"strides": [2, 1], "dilations": [1, 2], "padding": "SAME", "groups": 2,
  "input_zero_point": -5, "output_zero_point": 3, "input_scale": 0.047,
  "filter_scales": [0.011, 0.0093, 0.02, 0.0041], "output_scale": 0.061, "activation": "RELU6"})";

std::vector<std::int8_t> expected_conv2d(const ConvData& d, const qparity::Preset& preset) {
  std::vector<qparity::RequantParams> params;
  std::vector<std::int32_t> bias = d.bias;
  const bool onednn_bias = preset.composition == qparity::ScaleComposition::kFloatTwoStep;
  for (std::size_t c = 0; c < 4; ++c) {
    const qparity::EffectiveScale eff =
        qparity::compose_scale(preset.composition, d.input_scale, d.filter_scales[c], d.output_scale);
    // SCHEMA.md: oneDNN's f32 bias is the int32 bias times float(s_in * s_w), added between its steps.
    const float f32_bias = onednn_bias ? static_cast<float>(static_cast<double>(d.bias[c]) * eff.scale) : 0.0f;
    params.push_back(qparity::derive_requant_params(preset.core, preset.derivation, eff, f32_bias));
  }
  if (onednn_bias) bias.assign(4, 0);
  qparity::Conv2DProblem<std::int8_t, std::int8_t> p;
  qparity::Window2D w;
  w.kernel_h = 3;
  w.kernel_w = 3;
  w.stride_h = 2;
  w.dilation_w = 2;
  w.padding = qparity::Padding::kSame;
  p.geometry = qparity::Conv2DGeometry{2, 7, 9, 6, 4, 2, w};
  p.weights.filter = d.filter.data();
  p.weights.bias = bias.data();
  p.weights.params = params.data();
  p.weights.per_channel = true;
  p.call.input = d.input.data();
  p.call.input_zero_point = -5;
  p.call.output = qparity::activation_output_params(qparity::Activation::kRelu6, preset.clamp, d.output_scale, 3,
                                                    qparity::OutputType::kInt8);
  const qparity::ResolvedWindow r = qparity::resolve_window(w, 7, 9);
  std::vector<std::int8_t> out(2 * r.out_h * r.out_w * 4);
  p.call.out = out.data();
  qparity::reference::conv2d(p, preset.core, preset.accumulator);
  return out;
}

TEST(CliRun, Conv2DMatchesTheLibraryReferenceUnderEveryPreset) {
  const std::string dir = make_temp_dir("run_conv2d");
  const ConvData d;
  const std::string input = save(dir, "x.npy", tensor_of(DType::kInt8, {2, 7, 9, 6}, d.input));
  const std::string filter = save(dir, "w.npy", tensor_of(DType::kInt8, {4, 3, 3, 3}, d.filter));
  const std::string bias = save(dir, "b.npy", tensor_of(DType::kInt32, {4}, d.bias));
  const std::string params = dir + "/p.json";
  write_bytes(params, kConvParams);
  std::vector<std::vector<std::int8_t>> outputs;
  for (const char* name : kPresets) {
    SCOPED_TRACE(name);
    const std::string out = dir + "/y_" + name + ".npy";
    for (const bool reference : {false, true}) {
      std::vector<std::string> args = {"run", "conv2d", "--preset", name, "--input", input, "--filter", filter,
                                       "--bias", bias, "--params", params, "--output", out};
      if (reference) args.push_back("--reference");
      const CliResult r = run_cli(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, "");
      const Tensor y = qparity::cli::read_npy(out);
      EXPECT_EQ(y.dtype, DType::kInt8);
      EXPECT_EQ(y.shape, (std::vector<std::size_t>{2, 4, 9, 4}));
      EXPECT_EQ(values_of<std::int8_t>(y), expected_conv2d(d, qparity::find_preset(name)));
      outputs.push_back(values_of<std::int8_t>(y));
    }
  }
  // The presets do not all agree (otherwise this test could not tell them apart).
  bool differ = false;
  for (const auto& o : outputs) differ = differ || o != outputs[0];
  EXPECT_TRUE(differ);
}

// ---- depthwise ------------------------------------------------------------------------------------

TEST(CliRun, DepthwiseWithExplicitMultipliersUint8InputAndInt16Output) {
  const std::string dir = make_temp_dir("run_depthwise");
  const auto input = random_values<std::uint8_t>(2 * 6 * 5 * 3, 0, 255, 11);
  const auto filter = random_values<std::int8_t>(3 * 2 * 6, -127, 127, 12);  // [1, 3, 2, 6]
  const std::vector<std::int32_t> multipliers = {1073741824, 1518500250, 2147483647, 1300000000, 1900000000, 1100000000};
  const std::vector<std::int32_t> shifts = {-5, -6, -7, -4, -5, -8};
  const std::string x = save(dir, "x.npy", tensor_of(DType::kUint8, {2, 6, 5, 3}, input));
  const std::string w = save(dir, "w.npy", tensor_of(DType::kInt8, {1, 3, 2, 6}, filter));
  const std::string params = dir + "/p.json";
  write_bytes(params, R"({"type": "depthwise_conv2d", "depth_multiplier": 2,
    "padding": {"top": 1, "bottom": 0, "left": 2, "right": 1}, "input_zero_point": 128,
    "output_zero_point": -7, "output_dtype": "int16",
    "multipliers": [1073741824, 1518500250, 2147483647, 1300000000, 1900000000, 1100000000],
    "shifts": [-5, -6, -7, -4, -5, -8], "activation_min": -1000, "activation_max": 900})");
  for (const char* name : kPresets) {
    SCOPED_TRACE(name);
    const qparity::Preset preset = qparity::find_preset(name);
    const std::string out = dir + "/y.npy";
    const CliResult r = run_cli({"run", "depthwise_conv2d", "--preset", name, "--input", x, "--filter", w,
                                 "--params", params, "--output", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Tensor y = qparity::cli::read_npy(out);
    ASSERT_EQ(y.dtype, DType::kInt16);
    ASSERT_EQ(y.shape, (std::vector<std::size_t>{2, 5, 7, 6}));  // H 6+1-3+1, W 5+3-2+1

    std::vector<qparity::RequantParams> params_list;
    for (std::size_t c = 0; c < 6; ++c) {
      params_list.push_back(qparity::cli::params_from_multiplier(preset.core, multipliers[c], shifts[c]));
    }
    qparity::DepthwiseConv2DProblem<std::uint8_t, std::int16_t> p;
    qparity::Window2D win;
    win.kernel_h = 3;
    win.kernel_w = 2;
    win.padding = qparity::Padding::kExplicit;
    win.pad_top = 1;
    win.pad_left = 2;
    win.pad_right = 1;
    p.geometry = qparity::DepthwiseConv2DGeometry{2, 6, 5, 3, 2, win};
    p.weights.filter = filter.data();
    p.weights.params = params_list.data();
    p.weights.per_channel = true;
    p.call.input = input.data();
    p.call.input_zero_point = 128;
    p.call.output = qparity::OutputParams{-7, -1000, 900};
    std::vector<std::int16_t> expected(y.elements());
    p.call.out = expected.data();
    qparity::reference::depthwise_conv2d(p, preset.core, preset.accumulator);
    EXPECT_EQ(values_of<std::int16_t>(y), expected);
  }
}

// ---- fully connected ------------------------------------------------------------------------------

TEST(CliRun, FullyConnectedFlattensItsInputAndMatchesTheReference) {
  const std::string dir = make_temp_dir("run_fc");
  const auto input = random_values<std::int8_t>(3 * 2 * 2 * 10, -128, 127, 21);  // [3, 2, 2, 10] = 3 x 40
  const auto filter = random_values<std::int8_t>(5 * 40, -127, 127, 22);
  const auto bias = random_values<std::int32_t>(5, -20000, 20000, 23);
  const std::string x = save(dir, "x.npy", tensor_of(DType::kInt8, {3, 2, 2, 10}, input));
  const std::string w = save(dir, "w.npy", tensor_of(DType::kInt8, {5, 40}, filter));
  const std::string b = save(dir, "b.npy", tensor_of(DType::kInt32, {5}, bias));
  const std::string params = dir + "/p.json";
  write_bytes(params, R"({"input_zero_point": 9, "filter_zero_point": 0, "output_zero_point": -2,
    "input_scale": 0.031, "filter_scales": 0.0077, "output_scale": 0.29, "output_dtype": "int32", "fold_batch": true,
    "activation": "RELU"})");
  for (const char* name : kPresets) {
    SCOPED_TRACE(name);
    const qparity::Preset preset = qparity::find_preset(name);
    if (preset.composition == qparity::ScaleComposition::kFloatTwoStep) continue;  // bias rule tested on conv2d
    const std::string out = dir + "/y.npy";
    const CliResult r = run_cli({"run", "fully_connected", "--preset", name, "--input", x, "--filter", w, "--bias",
                                 b, "--params", params, "--output", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Tensor y = qparity::cli::read_npy(out);
    ASSERT_EQ(y.dtype, DType::kInt32);
    ASSERT_EQ(y.shape, (std::vector<std::size_t>{3, 5}));
    const qparity::RequantParams rp = qparity::derive_requant_params(preset, 0.031f, 0.0077f, 0.29f);
    qparity::FullyConnectedWeights f;
    f.output_depth = 5;
    f.input_depth = 40;
    f.filter = filter.data();
    f.bias = bias.data();
    f.params = &rp;
    std::vector<std::int32_t> expected(15);
    const qparity::FullyConnectedCall<std::int8_t, std::int32_t> call{
        3, input.data(), 9,
        qparity::activation_output_params(qparity::Activation::kRelu, preset.clamp, 0.29f, -2, qparity::OutputType::kInt32),
        expected.data()};
    qparity::reference::gemm(qparity::gemm_problem_of(f, call), preset.core, preset.accumulator);
    EXPECT_EQ(values_of<std::int32_t>(y), expected);
  }
}

// ---- stacks -----------------------------------------------------------------------------------------

const char* const kStack = R"({"input": {"seed": 5, "shape": [1, 8, 8, 3], "min": -128, "max": 127},
  "layers": [
    {"type": "conv2d", "name": "conv", "padding": "SAME", "input_scale": 0.05, "filter_scales": 0.004,
     "output_scale": 0.03, "input_zero_point": 1, "output_zero_point": -1, "activation": "RELU",
     "filter": "conv_w.npy", "bias": {"seed": 6, "shape": [4], "min": -800, "max": 800}},
    {"type": "depthwise_conv2d", "name": "dw", "strides": [2, 2], "padding": "VALID",
     "input_zero_point": -1, "input_scale": 0.03, "filter_scales": [0.01, 0.012, 0.009, 0.011],
     "output_scale": 0.02, "filter": {"seed": 7, "shape": [1, 3, 3, 4], "min": -127, "max": 127}},
    {"type": "fully_connected", "name": "fc", "input_scale": 0.02, "filter_scales": 0.003,
     "output_scale": 0.05, "filter": {"seed": 8, "shape": [6, 36], "min": -127, "max": 127}}
  ]})";

TEST(CliRun, StackChainsTheLayersAndWritesEveryOutput) {
  const std::string dir = make_temp_dir("run_stack");
  const Tensor conv_w = qparity::cli::generate_tensor(DType::kInt8, {4, 3, 3, 3}, 99, -127, 127);
  save(dir, "conv_w.npy", conv_w);
  write_bytes(dir + "/s.json", kStack);
  for (const char* name : {"tflite-reference", "npu-verisilicon", "xnnpack-fp32"}) {
    SCOPED_TRACE(name);
    const qparity::Preset preset = qparity::find_preset(name);
    const std::string outs = dir + "/all_" + name;
    const CliResult r = run_cli({"run", "--stack", dir + "/s.json", "--preset", name, "--output", dir + "/y.npy",
                                 "--all-outputs", outs});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(list_dir(outs), (std::vector<std::string>{"0_conv.npy", "1_dw.npy", "2_fc.npy"}));

    // The chain, computed with the library directly.
    const std::vector<std::int8_t> x = values_of<std::int8_t>(
        qparity::cli::generate_tensor(DType::kInt8, {1, 8, 8, 3}, 5, -128, 127));
    const std::vector<std::int8_t> w0 = values_of<std::int8_t>(conv_w);
    const std::vector<std::int32_t> b0 = values_of<std::int32_t>(
        qparity::cli::generate_tensor(DType::kInt32, {4}, 6, -800, 800));
    const qparity::RequantParams p0 = qparity::derive_requant_params(preset, 0.05f, 0.004f, 0.03f);
    qparity::Conv2DProblem<std::int8_t, std::int8_t> c;
    c.geometry.in_h = c.geometry.in_w = 8;
    c.geometry.in_channels = 3;
    c.geometry.out_channels = 4;
    c.geometry.window.kernel_h = c.geometry.window.kernel_w = 3;
    c.geometry.window.padding = qparity::Padding::kSame;
    c.weights.filter = w0.data();
    c.weights.params = &p0;
    c.weights.bias = b0.data();
    c.call.input = x.data();
    c.call.input_zero_point = 1;
    c.call.output = qparity::activation_output_params(qparity::Activation::kRelu, preset.clamp, 0.03f, -1,
                                                      qparity::OutputType::kInt8);
    std::vector<std::int8_t> y0(8 * 8 * 4);
    c.call.out = y0.data();
    qparity::reference::conv2d(c, preset.core, preset.accumulator);
    EXPECT_EQ(values_of<std::int8_t>(qparity::cli::read_npy(outs + "/0_conv.npy")), y0);

    const std::vector<std::int8_t> w1 = values_of<std::int8_t>(
        qparity::cli::generate_tensor(DType::kInt8, {1, 3, 3, 4}, 7, -127, 127));
    std::vector<qparity::RequantParams> p1;
    for (float s : {0.01f, 0.012f, 0.009f, 0.011f}) p1.push_back(qparity::derive_requant_params(preset, 0.03f, s, 0.02f));
    qparity::DepthwiseConv2DProblem<std::int8_t, std::int8_t> dw;
    dw.geometry.in_h = dw.geometry.in_w = 8;
    dw.geometry.in_channels = 4;
    dw.geometry.window.kernel_h = dw.geometry.window.kernel_w = 3;
    dw.geometry.window.stride_h = dw.geometry.window.stride_w = 2;
    dw.weights.filter = w1.data();
    dw.weights.params = p1.data();
    dw.weights.per_channel = true;
    dw.call.input = y0.data();
    dw.call.input_zero_point = -1;
    dw.call.output = qparity::full_range_output(qparity::OutputType::kInt8, 0);
    std::vector<std::int8_t> y1(3 * 3 * 4);
    dw.call.out = y1.data();
    qparity::reference::depthwise_conv2d(dw, preset.core, preset.accumulator);
    EXPECT_EQ(values_of<std::int8_t>(qparity::cli::read_npy(outs + "/1_dw.npy")), y1);

    const std::vector<std::int8_t> w2 = values_of<std::int8_t>(
        qparity::cli::generate_tensor(DType::kInt8, {6, 36}, 8, -127, 127));
    const qparity::RequantParams p2 = qparity::derive_requant_params(preset, 0.02f, 0.003f, 0.05f);
    qparity::FullyConnectedWeights f;
    f.output_depth = 6;
    f.input_depth = 36;
    f.filter = w2.data();
    f.params = &p2;
    std::vector<std::int8_t> y2(6);
    const qparity::FullyConnectedCall<std::int8_t, std::int8_t> call{
        1, y1.data(), 0, qparity::full_range_output(qparity::OutputType::kInt8, 0), y2.data()};
    qparity::reference::gemm(qparity::gemm_problem_of(f, call), preset.core, preset.accumulator);
    const Tensor last = qparity::cli::read_npy(outs + "/2_fc.npy");
    EXPECT_EQ(last.shape, (std::vector<std::size_t>{1, 6}));
    EXPECT_EQ(values_of<std::int8_t>(last), y2);
    EXPECT_EQ(read_bytes(dir + "/y.npy"), read_bytes(outs + "/2_fc.npy"));
  }
  // --input replaces the stack's input.
  const Tensor other = qparity::cli::generate_tensor(DType::kInt8, {1, 8, 8, 3}, 1234, -128, 127);
  const std::string other_path = save(dir, "other.npy", other);
  const CliResult r = run_cli({"run", "--stack", dir + "/s.json", "--preset", "tflite-reference", "--input", other_path,
                               "--output", dir + "/z.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_bytes(dir + "/z.npy"), read_bytes(dir + "/all_tflite-reference/2_fc.npy"));
}

// A stack's layers must fit together: shapes (no silently grouped conv, no silent batch folding)
// and quantization (one tensor, one scale and zero point). Each error names both layers.
TEST(CliRun, StackLayersMustChain) {
  const std::string dir = make_temp_dir("run_chain");
  save(dir, "conv_w.npy", qparity::cli::generate_tensor(DType::kInt8, {4, 3, 3, 3}, 99, -127, 127));
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {R"("input_zero_point": -1, "input_scale": 0.03)", R"("input_zero_point": 0, "input_scale": 0.03)",
       "layers[1].input_zero_point: input_zero_point 0 differs from layers[0] ('conv')'s output_zero_point -1; a "
       "stack feeds each layer the previous layer's output unchanged"},
      {R"("input_zero_point": -1, "input_scale": 0.03)", R"("input_zero_point": -1, "input_scale": 0.031)",
       "layers[1].input_scale: input_scale 0.031 differs from layers[0] ('conv')'s output_scale 0.03"},
      {R"("shape": [6, 36])", R"("shape": [6, 12])",
       "the input's last dimension is 4 and it has 36 elements, but the filter's input depth is 12: read as TFLite "
       "does, it would be a batch of 3; say \"fold_batch\": true if that is meant (its input is the output of "
       "layers[1] 'dw': int8 [1, 3, 3, 4])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    std::string text = kStack;
    const std::size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    write_bytes(dir + "/s.json", text);
    const CliResult r = run_cli({"run", "--stack", dir + "/s.json", "--preset", "tflite-reference", "--output",
                                 dir + "/y.npy"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(file_exists(dir + "/y.npy"));
  }
  // A second conv whose filter expects another depth: an error with the grouped-conv hint and the
  // layer that produced the input; with "groups" it runs.
  std::string text = kStack;
  const std::string dw = R"({"type": "depthwise_conv2d", "name": "dw", "strides": [2, 2], "padding": "VALID",
     "input_zero_point": -1, "input_scale": 0.03, "filter_scales": [0.01, 0.012, 0.009, 0.011],
     "output_scale": 0.02, "filter": {"seed": 7, "shape": [1, 3, 3, 4], "min": -127, "max": 127}})";
  const std::string conv2 = R"({"type": "conv2d", "name": "c2", "strides": [2, 2], "padding": "VALID",
     "input_zero_point": -1, "input_scale": 0.03, "filter_scales": 0.01,
     "output_scale": 0.02, "filter": {"seed": 7, "shape": [4, 3, 3, 2], "min": -127, "max": 127}})";
  ASSERT_NE(text.find(dw), std::string::npos);
  text.replace(text.find(dw), dw.size(), conv2);
  write_bytes(dir + "/s.json", text);
  CliResult r = run_cli({"run", "--stack", dir + "/s.json", "--preset", "tflite-reference", "--output", dir + "/y.npy"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the input has 4 channels but the filter's I (OHWI) is 2; a grouped convolution says so: "
                       "\"groups\": 2 (its input is the output of layers[0] 'conv': int8 [1, 8, 8, 4])"),
            std::string::npos)
      << r.err;
  text.replace(text.find(R"("name": "c2",)"), 13, R"("name": "c2", "groups": 2,)");
  write_bytes(dir + "/s.json", text);
  r = run_cli({"run", "--stack", dir + "/s.json", "--preset", "tflite-reference", "--output", dir + "/y.npy"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliRun, FailuresLeaveNoOutputFile) {
  const std::string dir = make_temp_dir("run_fail");
  save(dir, "conv_w.npy", qparity::cli::generate_tensor(DType::kInt8, {4, 3, 3, 3}, 99, -127, 127));
  // The last layer does not fit: nothing may be written, not even the first layers' outputs.
  std::string stack = kStack;
  stack.replace(stack.find("[6, 36]"), 7, "[6, 35]");
  write_bytes(dir + "/s.json", stack);
  write_bytes(dir + "/y.npy", "previous content");
  const CliResult r = run_cli({"run", "--stack", dir + "/s.json", "--preset", "tflite-reference", "--output",
                               dir + "/y.npy", "--all-outputs", dir + "/all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "qparity run: layers[2]: layer 'fc' (fully_connected): input shape [1, 3, 3, 4] and filter shape [6, 35] "
            "do not fit: the input's 36 elements are not a positive multiple of the filter's input depth 35 (OI "
            "filter) (its input is the output of layers[1] 'dw': int8 [1, 3, 3, 4])\n");
  EXPECT_EQ(read_bytes(dir + "/y.npy"), "previous content");
  EXPECT_FALSE(file_exists(dir + "/all"));
  EXPECT_EQ(list_dir(dir), (std::vector<std::string>{"conv_w.npy", "s.json", "y.npy"}));

  // A shape mismatch on a single layer names the layer and both shapes.
  const std::string x = save(dir, "x.npy", qparity::cli::make_tensor(DType::kInt8, {1, 5, 5, 4}));
  const std::string w = save(dir, "w.npy", qparity::cli::make_tensor(DType::kInt8, {2, 3, 3, 3}));
  write_bytes(dir + "/p.json", R"({"name": "stem", "multipliers": 1073741824, "shifts": 0})");
  const CliResult conv = run_cli({"run", "conv2d", "--preset", "tflite-reference", "--input", x, "--filter", w,
                                  "--params", dir + "/p.json", "--output", dir + "/out.npy"});
  EXPECT_EQ(conv.exit_code, 2);
  EXPECT_EQ(conv.err,
            "qparity run: layer 'stem' (conv2d): input shape [1, 5, 5, 4] and filter shape [2, 3, 3, 3] do not fit: "
            "the input has 4 channels but the filter's I (OHWI) is 3\n");
  EXPECT_FALSE(file_exists(dir + "/out.npy"));

  // A parameter the preset cannot represent: the layer, the value and the preset.
  write_bytes(dir + "/p2.json", R"({"input_scale": 1000, "filter_scales": 1000, "output_scale": 1e-06})");
  const std::string w3 = save(dir, "w3.npy", qparity::cli::make_tensor(DType::kInt8, {2, 3, 3, 4}));
  const CliResult range = run_cli({"run", "conv2d", "--preset", "tflite-reference", "--input", x, "--filter", w3,
                                   "--params", dir + "/p2.json", "--output", dir + "/out.npy"});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_EQ(range.err.rfind("qparity run: layer 'conv2d' (conv2d): filter_scales[0] = 1000 (input_scale 1000, "
                            "output_scale 1e-06) under preset tflite-reference: ", 0),
            0u)
      << range.err;
  EXPECT_FALSE(file_exists(dir + "/out.npy"));

  // An input zero point outside the input's dtype.
  write_bytes(dir + "/p3.json", R"({"input_zero_point": 200, "multipliers": 1073741824, "shifts": 0})");
  const CliResult zp = run_cli({"run", "conv2d", "--preset", "tflite-reference", "--input", x, "--filter", w3,
                                "--params", dir + "/p3.json", "--output", dir + "/out.npy"});
  EXPECT_EQ(zp.exit_code, 2);
  EXPECT_NE(zp.err.find("input_zero_point = 200 is out of range; allowed: [-128, 127]"), std::string::npos) << zp.err;
  EXPECT_FALSE(file_exists(dir + "/out.npy"));
}

TEST(CliRun, UsageErrors) {
  const std::string dir = make_temp_dir("run_usage");
  write_bytes(dir + "/s.json", R"({"layers": [{"type": "fully_connected", "multipliers": 1, "shifts": 0,
    "filter": {"seed": 1, "shape": [1, 2], "min": 0, "max": 1}}]})");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"run", "--preset", "gemmlowp"}, "qparity run: give an operation (conv2d, depthwise_conv2d, fully_connected) or --stack\n"},
      {{"run", "conv3d", "--preset", "gemmlowp"}, "qparity run: unknown operation 'conv3d'; allowed: conv2d, depthwise_conv2d, fully_connected\n"},
      {{"run", "conv2d", "--preset", "gemmlowp", "--input", "x.npy"}, "qparity run: --filter is required with 'run conv2d'\n"},
      {{"run", "--stack", dir + "/s.json", "--preset", "gemmlowp"}, "qparity run: --stack needs --output, --all-outputs or both\n"},
      {{"run", "--stack", dir + "/s.json", "--preset", "gemmlowp", "--output", dir + "/y.npy"},
       "qparity run: " + dir + "/s.json: the stack has no \"input\"; give one there or with --input\n"},
      {{"run", "--stack", dir + "/s.json", "--preset", "gemmlowp", "--params", "p.json", "--output", "y.npy"},
       "qparity run: --params does not apply to --stack (the stack file names each layer's)\n"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, c.message);
  }
  EXPECT_FALSE(file_exists(dir + "/y.npy"));
}

}  // namespace
}  // namespace qparity_cli_test
