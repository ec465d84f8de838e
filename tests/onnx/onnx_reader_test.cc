// The .onnx reader: what it builds from well-formed QLinearConv / QLinearMatMul models (ops,
// layout conversion at the boundary, quantization), the arithmetic of a layout-revealing model run
// in qparity, and clear errors naming the node or tensor for malformed and unsupported files.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <tuple>

#include "model/graph_builder.h"
#include "model/onnx/onnx_reader.h"
#include "model/ops/data_ops.h"
#include "model/ops/pool2d.h"
#include "model/ops/resize.h"
#include "qparity/reference/resize.h"
#include "model/runner.h"
#include "model/system.h"
#include "model/tflite/tflite_writer.h"
#include "onnx_builder.h"
#include "onnx_test_models.h"
#include "onnx_test_support.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;
using qparity::model::Graph;
using qparity::model::OpKind;
using qparity::model::read_onnx;



// A minimal valid QLinearConv model (1x1, 2 -> 2 channels) for the malformed-file tests to break.
OnnxBuilder conv_builder(std::int64_t opset = 13) {
  OnnxBuilder b(opset);
  b.input("x", DType::kInt8, {1, 2, 3, 3});
  b.output("y", DType::kInt8);
  Tensor w = qparity::cli::make_tensor(DType::kInt8, {2, 2, 1, 1});
  b.initializer("w", w);
  b.scales("s", {0.5f});
  b.zero_points("z", DType::kInt8, {0});
  return b;
}

onnx::NodeProto& conv_node(OnnxBuilder& b) {
  return b.node("QLinearConv", {"x", "s", "z", "w", "s", "z", "s", "z"}, {"y"});
}

TEST(OnnxReader, ConvBecomesNhwcConvBetweenTransposes) {
  QConvSpec s;
  const BuiltOnnx m = qlinear_conv_model(s);
  const Graph g = read_onnx(m.bytes, "conv.onnx");
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].op, OpKind::kTranspose);
  EXPECT_EQ(g.nodes[1].op, OpKind::kConv2D);
  EXPECT_EQ(g.nodes[2].op, OpKind::kTranspose);
  const auto& in = g.tensors[static_cast<std::size_t>(g.inputs[0])];
  const auto& out = g.tensors[static_cast<std::size_t>(g.outputs[0])];
  EXPECT_EQ(in.name, "x");
  EXPECT_EQ(in.shape, (std::vector<std::size_t>{1, 4, 12, 10}));
  EXPECT_EQ(out.name, "y");
  EXPECT_EQ(out.shape, (std::vector<std::size_t>{1, 8, 12, 10}));
  EXPECT_EQ(in.quant.scales, std::vector<float>{0.02f});
  EXPECT_EQ(in.quant.zero_point(), 3);
  const auto& filter = g.tensors[static_cast<std::size_t>(g.nodes[1].inputs[1])];
  EXPECT_EQ(filter.shape, (std::vector<std::size_t>{8, 3, 3, 4}));  // OHWI
  EXPECT_EQ(filter.quant.scales.size(), 8u);
  EXPECT_EQ(filter.quant.axis, 0u);
}

TEST(OnnxReader, DepthwiseAndMatMul) {
  QConvSpec s;
  s.c = 6;
  s.group = 6;
  s.m = 12;
  const Graph g = read_onnx(qlinear_conv_model(s).bytes, "dw.onnx");
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[1].op, OpKind::kDepthwiseConv2D);
  const auto& filter = g.tensors[static_cast<std::size_t>(g.nodes[1].inputs[1])];
  EXPECT_EQ(filter.shape, (std::vector<std::size_t>{1, 3, 3, 12}));
  EXPECT_EQ(filter.quant.axis, 3u);

  QMatMulSpec ms;
  ms.a_shape = {2, 3, 33};
  ms.per_column = true;
  const Graph mg = read_onnx(qlinear_matmul_model(ms).bytes, "mm.onnx");
  ASSERT_EQ(mg.nodes.size(), 1u);  // 3-D MatMul: no layout change
  EXPECT_EQ(mg.nodes[0].op, OpKind::kFullyConnected);
  EXPECT_EQ(mg.tensors[static_cast<std::size_t>(mg.outputs[0])].shape, (std::vector<std::size_t>{2, 3, 16}));
  EXPECT_EQ(mg.tensors[static_cast<std::size_t>(mg.nodes[0].inputs[1])].shape, (std::vector<std::size_t>{16, 33}));
}

// A 1x1 convolution that swaps two channels with unit scales: y[n][c][h][w] = x[n][1-c][h][w] in
// ONNX's layout, which only holds if both boundary transposes and the filter transposition are right.
TEST(OnnxReader, ChannelSwapKeepsOnnxLayout) {
  OnnxBuilder b;
  b.input("x", DType::kInt8, {1, 2, 3, 4});
  b.output("y", DType::kInt8);
  Tensor w = qparity::cli::make_tensor(DType::kInt8, {2, 2, 1, 1});
  w.set_integer(1, 1);  // w[0][1] = 1
  w.set_integer(2, 1);  // w[1][0] = 1
  b.initializer("w", w);
  b.scales("one", {1.0f});
  b.zero_points("zero", DType::kInt8, {0});
  b.node("QLinearConv", {"x", "one", "zero", "w", "one", "zero", "one", "zero"}, {"y"});
  const Graph g = read_onnx(b.bytes(), "swap.onnx");
  Tensor x = qparity::cli::make_tensor(DType::kInt8, {1, 2, 3, 4});
  for (std::size_t i = 0; i < x.elements(); ++i) x.set_integer(i, static_cast<std::int64_t>(i) - 12);
  for (const char* profile : {"ort-cpu", "ort-cpu-avx2", "ort-cpu-vnni"}) {
    qparity::model::Runner r(g, {qparity::model::find_profile(profile).pick(g, g.nodes[1])});
    r.run({x});
    const Tensor y = r.outputs()[0];
    ASSERT_EQ(y.shape, x.shape);
    for (std::size_t i = 0; i < 12; ++i) {
      EXPECT_EQ(y.integer_at(i), x.integer_at(i + 12)) << profile << " element " << i;
      EXPECT_EQ(y.integer_at(i + 12), x.integer_at(i)) << profile << " element " << i + 12;
    }
  }
}

TEST(OnnxReader, OrtProfilesPickPairSaturationForU8xS8OnAvx2) {
  QConvSpec s;
  s.x = DType::kUint8;
  s.x_zp = 128;
  s.y_zp = 128;
  const Graph g = read_onnx(qlinear_conv_model(s).bytes, "u8s8.onnx");
  const auto avx2 = qparity::model::find_profile("ort-cpu-avx2").pick(g, g.nodes[1]);
  const auto vnni = qparity::model::find_profile("ort-cpu-vnni").pick(g, g.nodes[1]);
  EXPECT_EQ(avx2.preset.accumulator.kind, qparity::AccumulatorKind::kPairSaturating);
  EXPECT_EQ(vnni.preset.accumulator.kind, qparity::AccumulatorKind::kInt32);
  EXPECT_EQ(avx2.preset.core, vnni.preset.core);
  s.x = DType::kInt8;
  s.x_zp = 0;
  s.y_zp = 0;
  const Graph g8 = read_onnx(qlinear_conv_model(s).bytes, "s8s8.onnx");
  EXPECT_EQ(qparity::model::find_profile("ort-cpu-avx2").pick(g8, g8.nodes[1]).preset.accumulator.kind,
            qparity::AccumulatorKind::kInt32);
}

TEST(OnnxReader, QLinearMulKeepsTheLayoutOfItsInputs) {
  QMulSpec s;
  const Graph g = read_onnx(qlinear_mul_model(s).bytes, "mul.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);  // two graph inputs in ONNX layout: no transpose
  EXPECT_EQ(g.nodes[0].op, OpKind::kMul);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{1, 4, 9, 7}));
  const auto mul = qparity::model::find_profile("ort-cpu").pick(g, g.nodes[0]);
  qparity::model::Runner r(g, {mul});
  EXPECT_NE(r.prepared(0).describe()[0].find("MlasQLinearMul"), std::string::npos) << r.prepared(0).describe()[0];
  QMulSpec add = s;
  add.op = "QLinearAdd";
  const Graph ga = read_onnx(qlinear_mul_model(add).bytes, "add.onnx");
  ASSERT_EQ(ga.nodes.size(), 1u);
  EXPECT_EQ(ga.nodes[0].op, OpKind::kAdd);
  qparity::model::Runner ra(ga, {qparity::model::find_profile("ort-cpu").pick(ga, ga.nodes[0])});
  EXPECT_NE(ra.prepared(0).describe()[0].find("MlasQLinearAdd"), std::string::npos) << ra.prepared(0).describe()[0];
  s.b_scalar = true;
  const Graph gs = read_onnx(qlinear_mul_model(s).bytes, "mul_scalar.onnx");
  EXPECT_TRUE(gs.tensors[static_cast<std::size_t>(gs.nodes[0].inputs[1])].constant());

  OnnxBuilder b(13, true);  // a constant B of several elements: refused, naming the node
  b.input("a", DType::kInt8, {1, 4});
  b.output("y", DType::kInt8);
  b.initializer("b", qparity::cli::make_tensor(DType::kInt8, {1, 4}));
  b.scales("s", {0.5f});
  b.zero_points("z", DType::kInt8, {0});
  b.node("QLinearMul", {"a", "s", "z", "b", "s", "z", "s", "z"}, {"y"}, "com.microsoft");
  EXPECT_NE(read_error(b).find("node 0 (com.microsoft.QLinearMul 'y_node'): constant B 'b' is int8 of shape [1, 4]; "
                             "allowed: one int8 element"),
            std::string::npos)
      << read_error(b);
}

TEST(OnnxReader, GlobalAveragePoolIsMeanOverNhwcHW) {
  QGapSpec s;
  const Graph g = read_onnx(qlinear_global_average_pool_model(s).bytes, "gap.onnx");
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[1].op, OpKind::kMean);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.nodes[1].outputs[0])].shape, (std::vector<std::size_t>{1, 1, 1, 16}));
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{1, 16, 1, 1}));
  qparity::model::Runner r(g, {qparity::model::find_profile("ort-cpu").pick(g, g.nodes[1])});
  EXPECT_NE(r.prepared(1).describe()[1].find("MlasQLinearGlobalAveragePool"), std::string::npos)
      << r.prepared(1).describe()[1];
  s.y_scale = 1e-9f;  // x_scale / (y_scale * 49) >= 256: ORT refuses it, so does the profile
  const Graph bad = read_onnx(qlinear_global_average_pool_model(s).bytes, "gap.onnx");
  EXPECT_THROW(qparity::model::Runner(bad, {qparity::model::find_profile("ort-cpu").pick(bad, bad.nodes[1])}),
               ToolError);
}

// TRANSPOSE's blocked 8-bit NCHW <-> NHWC path, its three-channel (RGB) path and its generic path
// (int32 elements) against the index formula, on shapes larger than one block.
TEST(OnnxReader, TransposeMatchesTheIndexFormula) {
  for (DType dt : {DType::kInt8, DType::kInt32}) {
    for (std::size_t C : {std::size_t{37}, std::size_t{3}}) {
      qparity::model::GraphBuilder b("transpose");
      const std::vector<std::size_t> shape{2, C, 5, 9};
      const int x = b.tensor(
          "x", dt, shape,
          dt == DType::kInt8 ? qparity::model::GraphBuilder::per_tensor(0.5f, 1) : qparity::model::Quantization{});
      b.input(x);
      Tensor p1 = qparity::cli::make_tensor(DType::kInt32, {4}), p2 = p1;
      const std::int64_t a[4] = {0, 2, 3, 1}, c[4] = {0, 3, 1, 2};
      for (std::size_t i = 0; i < 4; ++i) {
        p1.set_integer(i, a[i]);
        p2.set_integer(i, c[i]);
      }
      const int pa = b.constant("pa", p1), pc = b.constant("pc", p2);
      const qparity::model::Quantization q =
          dt == DType::kInt8 ? qparity::model::GraphBuilder::per_tensor(0.5f, 1) : qparity::model::Quantization{};
      const int y = b.tensor("y", dt, {}, q), z = b.tensor("z", dt, {}, q);
      b.node(OpKind::kTranspose, {x, pa}, {y});
      b.node(OpKind::kTranspose, {y, pc}, {z});
      b.output(y);
      b.output(z);
      const Graph g = b.finish();
      Tensor in = qparity::cli::make_tensor(dt, shape);
      for (std::size_t i = 0; i < in.elements(); ++i)
        in.set_integer(i, static_cast<std::int64_t>((i * 7919) % 251) - 100);
      qparity::model::Runner r(g, {qparity::model::find_profile("ort-cpu").pick(g, g.nodes[0])});
      r.run({in});
      const Tensor nhwc = r.outputs()[0], back = r.outputs()[1];
      ASSERT_EQ(nhwc.shape, (std::vector<std::size_t>{2, 5, 9, C}));
      for (std::size_t n = 0; n < 2; ++n) {
        for (std::size_t ch = 0; ch < C; ++ch) {
          for (std::size_t h = 0; h < 5; ++h) {
            for (std::size_t w = 0; w < 9; ++w) {
              ASSERT_EQ(nhwc.integer_at(((n * 5 + h) * 9 + w) * C + ch), in.integer_at(((n * C + ch) * 5 + h) * 9 + w))
                  << C << " channels";
            }
          }
        }
      }
      EXPECT_EQ(back.bytes, in.bytes) << qparity::cli::to_string(dt) << ", " << C << " channels";
    }
  }
}

TEST(OnnxReader, ConcatAxesAndTheInt8Rescale) {
  QConcatSpec s;
  s.after_convs = true;  // NHWC inputs: the ONNX channel axis 1 becomes 3
  const Graph g = read_onnx(qlinear_concat_model(s).bytes, "concat.onnx");
  std::size_t concat = g.nodes.size();
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op == OpKind::kConcatenation) concat = i;
  }
  ASSERT_LT(concat, g.nodes.size());
  EXPECT_EQ(g.nodes[concat].opts<qparity::model::ConcatenationOptions>().axis, 3);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{1, 7, 5, 6}));
  // int8 inputs quantized unlike the output: read, and rescaled under the ORT profiles; TFLite's
  // int8 arithmetic refuses them, naming the node.
  s.t = DType::kInt8;
  s.after_convs = false;
  const BuiltOnnx m = qlinear_concat_model(s);
  const Graph g8 = read_onnx(m.bytes, "concat.onnx");
  EXPECT_EQ(run_qparity(g8, m.inputs, "ort-cpu").size(), 1u);
  const std::string e = run_error(g8, m.inputs, "tflite-reference");
  EXPECT_NE(e.find("(CONCATENATION 'y_node'): int8 input 0 'a' has scale"), std::string::npos) << e;
}

TEST(OnnxReader, AveragePoolWindowsAndCountIncludePad) {
  QAvgPoolSpec s;
  const Graph g = read_onnx(qlinear_average_pool_model(s).bytes, "pool.onnx");
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[1].op, OpKind::kAveragePool2D);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{1, 8, 5, 4}));
  EXPECT_FALSE(g.nodes[1].opts<qparity::model::Pool2DOptions>().count_include_pad);
  s.same_upper = true;  // padding counted in the divisor: read; only ORT's arithmetic takes it
  s.count_include_pad = true;
  const BuiltOnnx m = qlinear_average_pool_model(s);
  const Graph padded = read_onnx(m.bytes, "pool.onnx");
  EXPECT_TRUE(padded.nodes[1].opts<qparity::model::Pool2DOptions>().count_include_pad);
  EXPECT_EQ(run_qparity(padded, m.inputs, "ort-cpu").size(), 1u);
  const std::string e = run_error(padded, m.inputs, "tflite-reference");
  EXPECT_NE(e.find("count_include_pad 1 under tflite-reference"), std::string::npos) << e;
  OnnxBuilder b(13, /*microsoft_domain=*/true);  // 2 is no value of count_include_pad
  b.input("x", DType::kUint8, {1, 1, 4, 4});
  b.output("y", DType::kUint8);
  for (const char* q : {"x", "y"}) {
    b.scales(std::string(q) + "s", {0.1f});
    b.zero_points(std::string(q) + "z", DType::kUint8, {0});
  }
  onnx::NodeProto& n = b.node("QLinearAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"}, "com.microsoft");
  OnnxBuilder::ints(n, "kernel_shape", {2, 2});
  OnnxBuilder::int_attr(n, "count_include_pad", 2);
  EXPECT_NE(read_error(b).find("count_include_pad = 2; allowed: 0 or 1"), std::string::npos) << read_error(b);
}

// QLinearAveragePool's pads: explicit (asymmetric) and SAME_LOWER (ONNX Runtime's split, the odd
// pixel at the top / left) become explicit windows; what ONNX Runtime computes otherwise (ceil_mode,
// dilations) or rejects (a pad as large as the kernel) is refused naming the node and attribute.
TEST(OnnxReader, AveragePoolPadsAndRefusedAttributes) {
  auto window_of = [](const QAvgPoolSpec& s) {
    const Graph g = read_onnx(qlinear_average_pool_model(s).bytes, "pool.onnx");
    return std::make_pair(g.nodes[1].opts<qparity::model::Pool2DOptions>().window,
                          g.tensors[static_cast<std::size_t>(g.outputs[0])].shape);
  };
  QAvgPoolSpec s;  // [1, 8, 11, 9], k 3, stride 2
  s.pads = {2, 0, 1, 1};
  auto [w, shape] = window_of(s);
  EXPECT_EQ(w.padding, qparity::Padding::kExplicit);
  EXPECT_EQ(std::vector<std::size_t>({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}),
            std::vector<std::size_t>({2, 0, 1, 1}));
  EXPECT_EQ(shape, (std::vector<std::size_t>{1, 8, 6, 4}));  // (11 + 3 - 3) / 2 + 1, (9 + 1 - 3) / 2 + 1
  s.pads.clear();
  s.auto_pad = "SAME_LOWER";
  s.k = 2;
  s.stride = 1;  // a total of 1 on both axes: at the top and left
  std::tie(w, shape) = window_of(s);
  EXPECT_EQ(std::vector<std::size_t>({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}),
            std::vector<std::size_t>({1, 1, 0, 0}));
  EXPECT_EQ(shape, (std::vector<std::size_t>{1, 8, 11, 9}));
  s.auto_pad = "SAME_UPPER";
  EXPECT_EQ(window_of(s).first.padding, qparity::Padding::kSame);
  // Pool2DOptions holds SAME or VALID and no count_include_pad: the .tflite writer refuses both.
  auto tflite_error = [](const QAvgPoolSpec& spec) {
    try {
      (void)qparity::model::write_tflite(read_onnx(qlinear_average_pool_model(spec).bytes, "pool.onnx"));
    } catch (const qparity::cli::ToolError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  s.auto_pad = "SAME_LOWER";
  std::string e = tflite_error(s);
  EXPECT_NE(e.find("AVERAGE_POOL_2D 'y_node': explicit pads (filter 2x2, stride 1x1, pads top 1 bottom 0 left 1 "
                   "right 0, "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(") have no .tflite form; allowed: SAME or VALID"), std::string::npos) << e;
  s.auto_pad = "SAME_UPPER";
  s.count_include_pad = true;
  e = tflite_error(s);
  EXPECT_NE(e.find("AVERAGE_POOL_2D 'y_node': count_include_pad 1 has no .tflite form; allowed: 0"), std::string::npos)
      << e;
  auto node_error = [](const std::function<void(onnx::NodeProto&)>& set) {
    OnnxBuilder b(13, /*microsoft_domain=*/true);
    b.input("x", DType::kUint8, {1, 1, 6, 6});
    b.output("y", DType::kUint8);
    for (const char* q : {"x", "y"}) {
      b.scales(std::string(q) + "s", {0.1f});
      b.zero_points(std::string(q) + "z", DType::kUint8, {0});
    }
    onnx::NodeProto& n = b.node("QLinearAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"}, "com.microsoft");
    OnnxBuilder::ints(n, "kernel_shape", {3, 2});
    set(n);
    return read_error(b);
  };
  const std::string node = "(com.microsoft.QLinearAveragePool 'y_node'): ";
  e = node_error([](onnx::NodeProto& n) { OnnxBuilder::int_attr(n, "ceil_mode", 1); });
  EXPECT_NE(e.find(node + "ceil_mode = 1; allowed: 0"), std::string::npos) << e;
  e = node_error([](onnx::NodeProto& n) { OnnxBuilder::ints(n, "dilations", {2, 2}); });
  EXPECT_NE(e.find(node + "dilations are not supported"), std::string::npos) << e;
  e = node_error([](onnx::NodeProto& n) { OnnxBuilder::ints(n, "pads", {0, 2, 0, 0}); });
  EXPECT_NE(e.find(node + "pads [0, 2, 0, 0]; allowed: each 0 to its kernel side - 1 ([top, left, bottom, right], "
                          "kernel 3x2)"),
            std::string::npos)
      << e;
  e = node_error([](onnx::NodeProto& n) { OnnxBuilder::ints(n, "pads", {0, -1, 0, 0}); });
  EXPECT_NE(e.find(node + "pads [0, -1, 0, 0]; allowed: each 0 to its kernel side - 1"), std::string::npos) << e;
  e = node_error([](onnx::NodeProto& n) { OnnxBuilder::string_attr(n, "auto_pad", "MIDDLE"); });
  EXPECT_NE(e.find(node + "auto_pad 'MIDDLE'; allowed: NOTSET (explicit pads), VALID, SAME_UPPER, SAME_LOWER"),
            std::string::npos)
      << e;
}

TEST(OnnxReader, MalformedFilesGiveClearErrors) {
  EXPECT_NE(read_error(std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0x07}).find("m.onnx: not an ONNX model"),
            std::string::npos);
  {
    OnnxBuilder b = conv_builder(11);
    conv_node(b);
    EXPECT_NE(read_error(b).find("opset 11 of the default domain; allowed: 13 or later"), std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    b.node("Tanh", {"x"}, {"y"});
    EXPECT_NE(read_error(b).find("node 0 (Tanh 'y_node'): qparity does not run this operator"), std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    conv_node(b);
    b.model()
        .mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(0)
        ->set_dim_param("batch");
    EXPECT_NE(read_error(b).find("graph input 0 'x' has a dynamic dimension 0 ('batch')"), std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    conv_node(b);
    b.model().mutable_graph()->mutable_initializer(0)->mutable_raw_data()->resize(3);
    EXPECT_NE(read_error(b).find("initializer 0 'w' has 3 bytes of raw_data; its shape [2, 2, 1, 1] and type INT8 "
                               "need 4"),
              std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    conv_node(b);
    b.model().mutable_graph()->mutable_initializer(0)->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    EXPECT_NE(read_error(b).find("initializer 0 'w' keeps its data in an external file"), std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    conv_node(b);
    b.model().mutable_graph()->mutable_initializer(0)->set_dims(0, -2);
    EXPECT_NE(read_error(b).find("initializer 0 'w' has dimension 0 = -2"), std::string::npos) << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    b.scales("bad", {-1.0f});
    b.node("QLinearConv", {"x", "bad", "z", "w", "s", "z", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b).find("node 0 (QLinearConv 'y_node'): x_scale 'bad' [0] = -1; allowed: finite and > 0"),
              std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    b.zero_points("zu", DType::kUint8, {0});
    b.node("QLinearConv", {"x", "s", "zu", "w", "s", "z", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b).find("input 'x' is int8, its zero point uint8"), std::string::npos) << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    b.node("QLinearConv", {"x", "s", "z", "x", "s", "z", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b).find("input 3 (w) 'x' is not an initializer; allowed: a constant"), std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    b.node("QLinearConv", {"t", "s", "z", "w", "s", "z", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b).find("input 't' is neither a graph input nor the output of an earlier node"),
              std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b(13);  // group 2 of 2 channels each: a grouped CONV_2D (OHWI filter with I = 2)
    b.input("x", DType::kInt8, {1, 4, 3, 3});
    b.output("y", DType::kInt8);
    b.initializer("w", qparity::cli::make_tensor(DType::kInt8, {4, 2, 1, 1}));
    b.scales("s", {0.5f});
    b.zero_points("z", DType::kInt8, {0});
    OnnxBuilder::int_attr(conv_node(b), "group", 2);
    const Graph g = read_onnx(b.bytes(), "grouped.onnx");
    ASSERT_EQ(g.nodes.size(), 3u);
    EXPECT_EQ(g.nodes[1].op, OpKind::kConv2D);
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.nodes[1].inputs[1])].shape, (std::vector<std::size_t>{4, 1, 1, 2}));
    b.model().mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(3);  // 3 does not divide 4
    EXPECT_NE(read_error(b).find("group 3 does not fit x's 4 channels"), std::string::npos) << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    b.scales("s3", {0.5f, 0.5f, 0.5f});
    b.node("QLinearConv", {"x", "s", "z", "w", "s3", "z", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b).find("w_scale 's3' has shape [3]; allowed: a scalar or 2 values (per axis)"),
              std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    OnnxBuilder::string_attr(conv_node(b), "auto_pad", "MIDDLE");
    EXPECT_NE(read_error(b).find("auto_pad 'MIDDLE'; allowed: NOTSET, VALID, SAME_UPPER, SAME_LOWER"), std::string::npos)
        << read_error(b);
  }
  {
    OnnxBuilder b = conv_builder();
    conv_node(b);
    b.output("nowhere", DType::kInt8);
    EXPECT_NE(read_error(b).find("graph output 1 'nowhere' is not computed by any node"), std::string::npos)
        << read_error(b);
  }
}

// Every truncation and a sweep of single-byte corruptions of a valid model: the reader returns a
// graph or throws ToolError, nothing else (the fuzzer explores further: tests/fuzz/onnx_fuzzer.cc).
TEST(OnnxReader, TruncatedAndCorruptedFilesNeverCrash) {
  QConvSpec s;
  s.c = 2;
  s.m = 2;
  s.h = s.wd = 3;
  const std::vector<std::uint8_t> bytes = qlinear_conv_model(s).bytes;
  std::size_t errors = 0;
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      read_onnx(cut, "cut.onnx");
    } catch (const ToolError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, bytes.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (std::uint8_t v : {std::uint8_t{0}, std::uint8_t{0x7f}, std::uint8_t{0xff}}) {
      std::vector<std::uint8_t> bad = bytes;
      bad[i] = v;
      try {
        read_onnx(bad, "bad.onnx");
      } catch (const ToolError&) {
      }
    }
  }
}

// Resize (linear) becomes RESIZE_BILINEAR on the NHWC view, its coordinate mode the op's options;
// what qparity does not model is refused naming the node and the attribute or input.
OnnxBuilder resize_model(const std::string& mode, const std::string& ctm, std::vector<std::int64_t> sizes,
                         std::vector<float> scales = {}) {
  OnnxBuilder b(13);
  b.input("x", DType::kInt8, {1, 3, 4, 5});
  b.output("y", DType::kInt8);
  std::string scales_name, sizes_name;
  if (!scales.empty()) {
    b.scales("sc", scales);
    scales_name = "sc";
  }
  if (!sizes.empty()) {
    Tensor t = qparity::cli::make_tensor(DType::kInt64, {sizes.size()});
    for (std::size_t i = 0; i < sizes.size(); ++i) t.set_integer(i, sizes[i]);
    b.initializer("sizes", t);
    sizes_name = "sizes";
  }
  onnx::NodeProto& n = b.node("Resize", {"x", "", scales_name, sizes_name}, {"y"});
  n.set_name("rs");
  OnnxBuilder::string_attr(n, "mode", mode);
  OnnxBuilder::string_attr(n, "coordinate_transformation_mode", ctm);
  return b;
}

TEST(OnnxReader, ResizeLinearIsResizeBilinearInNhwc) {
  const Graph g = read_onnx(resize_model("linear", "align_corners", {1, 3, 7, 2}).bytes(), "m.onnx");
  const qparity::model::Node* resize = nullptr;
  for (const auto& n : g.nodes) {
    if (n.op == OpKind::kResizeBilinear) resize = &n;
  }
  ASSERT_NE(resize, nullptr);
  EXPECT_TRUE(resize->opts<qparity::model::ResizeOptions>().align_corners);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(resize->outputs[0])].shape, (std::vector<std::size_t>{1, 7, 2, 3}));
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{1, 3, 7, 2}));
  // scales equal to out / in in float32 are read too: 4 * 1.5 = 6, 5 * 2 = 10.
  EXPECT_EQ(read_error(resize_model("linear", "half_pixel", {}, {1.0f, 1.0f, 1.5f, 2.0f})), "(no error)");
}

// Mode nearest becomes RESIZE_NEAREST_NEIGHBOR carrying ONNX's rule, which only ONNX Runtime's
// systems run: TFLite's refuse it naming the rule.
TEST(OnnxReader, ResizeNearestCarriesOnnxsRuleForOrtOnly) {
  OnnxBuilder b = resize_model("nearest", "asymmetric", {1, 3, 7, 2});
  onnx::NodeProto* n = b.model().mutable_graph()->mutable_node(0);
  OnnxBuilder::string_attr(*n, "nearest_mode", "ceil");
  const Graph g = read_onnx(b.bytes(), "m.onnx");
  const qparity::model::Node* r = nullptr;
  for (const auto& node : g.nodes) {
    if (node.op == OpKind::kResizeNearestNeighbor) r = &node;
  }
  ASSERT_NE(r, nullptr);
  const auto& o = r->opts<qparity::model::ResizeOptions>();
  ASSERT_TRUE(o.onnx_nearest.has_value());
  EXPECT_EQ(o.onnx_nearest->nearest, qparity::reference::OnnxNearestMode::kCeil);
  EXPECT_EQ(o.onnx_nearest->coordinates, qparity::reference::OnnxCoordinateMode::kAsymmetric);
  Tensor x = qparity::cli::make_tensor(DType::kInt8, {1, 3, 4, 5});
  EXPECT_EQ(run_error(g, {x}, "ort-cpu"), "(no error)");
  EXPECT_NE(run_error(g, {x}, "tflite-xnnpack-x86").find("only ONNX Runtime's systems run ONNX's nearest rules"),
            std::string::npos)
      << run_error(g, {x}, "tflite-xnnpack-x86");
  OnnxBuilder bad = resize_model("nearest", "asymmetric", {1, 3, 7, 2});
  OnnxBuilder::string_attr(*bad.model().mutable_graph()->mutable_node(0), "nearest_mode", "simple");
  EXPECT_NE(read_error(bad).find("nearest_mode = 'simple'; allowed"), std::string::npos) << read_error(bad);
}

TEST(OnnxReader, ResizeRefusesWhatIsNotModelled) {
  const std::pair<OnnxBuilder, const char*> cases[] = {
      {resize_model("cubic", "asymmetric", {1, 3, 7, 2}), "attribute mode = 'cubic'; allowed: linear, nearest"},
      {resize_model("linear", "tf_crop_and_resize", {1, 3, 7, 2}), "coordinate_transformation_mode = "
                                                                   "'tf_crop_and_resize'; allowed"},
      {resize_model("linear", "half_pixel", {1, 6, 7, 2}), "resizes N or C"},
      {resize_model("linear", "half_pixel", {1, 3, 0, 2}), "output height 0; allowed: 1 to 32767"},
      {resize_model("linear", "pytorch_half_pixel", {1, 3, 1, 2}), "pytorch_half_pixel with an output side of 1"},
      {resize_model("linear", "half_pixel", {}, {1.0f, 1.0f, 1.3f, 2.0f}), "scales[2] = 1.3 is not output size 5"},
      {resize_model("linear", "half_pixel", {1, 3, 7, 2}, {1.0f, 1.0f, 2.0f, 2.0f}), "both scales and sizes"},
      {resize_model("linear", "half_pixel", {1, 3, 7}), "allowed: int64 [4]"},
  };
  for (const auto& [b, want] : cases) {
    const std::string e = read_error(b);
    EXPECT_NE(e.find("node 0 (Resize 'rs')"), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace qparity_test
