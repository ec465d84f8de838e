// The .tflite options of the pooling / MEAN / activation ops survive a write and a read
// (tools/model/tflite: Pool2DOptions, ReducerOptions; RELU / RELU6 / QUANTIZE / DEQUANTIZE have
// none), and so does a one-scale tensor's quantized_dimension, which decides whether XNNPACK's
// delegate takes the node (Op::xnnpack_takes).
#include <gtest/gtest.h>

#include "model/graph_builder.h"
#include "model/op.h"
#include "model/ops/conv_common.h"
#include "model/ops/mean.h"
#include "model/ops/pool2d.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::cli::DType;

TEST(TfliteOptions, PoolMeanReluQuantizeRoundTrip) {
  GraphBuilder b("round trip");
  const int x = b.tensor("x", DType::kFloat32, {1, 9, 7, 5});
  const int q = b.tensor("q", DType::kInt8, {}, GraphBuilder::per_tensor(0.5f, -3));
  Quantization per_axis = GraphBuilder::per_tensor(0.5f, -3);
  per_axis.axis = 3;
  const int p = b.tensor("p", DType::kInt8, {}, per_axis);
  const int m = b.tensor("m", DType::kInt8, {}, GraphBuilder::per_tensor(0.5f, -3));
  const int r = b.tensor("r", DType::kInt8, {}, GraphBuilder::per_tensor(0.25f, 7));
  const int a = b.tensor("a", DType::kInt8, {}, GraphBuilder::per_tensor(0.25f, 7));
  const int y = b.tensor("y", DType::kFloat32, {});
  Tensor axes = qparity::cli::make_tensor(DType::kInt32, {2});
  axes.set_integer(0, 2);
  axes.set_integer(1, 1);
  const int ax = b.constant("axes", axes);
  b.node(OpKind::kQuantize, {x}, {q});
  auto po = std::make_shared<Pool2DOptions>();
  po->window.filter_h = 3;
  po->window.filter_w = 2;
  po->window.stride_h = 2;
  po->window.stride_w = 1;
  po->window.padding = qparity::Padding::kSame;
  po->activation = qparity::Activation::kRelu6;
  b.node(OpKind::kMaxPool2D, {q}, {p}, po);
  auto avg = std::make_shared<Pool2DOptions>(*po);
  avg->window.padding = qparity::Padding::kValid;
  avg->activation = qparity::Activation::kReluN1To1;
  b.node(OpKind::kAveragePool2D, {p}, {m}, avg);
  auto ro = std::make_shared<ReducerOptions>();
  ro->keep_dims = true;
  b.node(OpKind::kMean, {m, ax}, {r}, ro);
  b.node(OpKind::kRelu6, {r}, {a});
  b.node(OpKind::kDequantize, {a}, {y});
  b.input(x);
  b.output(y);
  const Graph g = b.finish();
  const Graph back = read_tflite(write_tflite(g), "round trip");
  ASSERT_EQ(back.nodes.size(), 6u);
  const auto& mp = back.nodes[1].opts<Pool2DOptions>();
  EXPECT_EQ(back.nodes[1].op, OpKind::kMaxPool2D);
  EXPECT_EQ(mp.window.filter_h, 3u);
  EXPECT_EQ(mp.window.filter_w, 2u);
  EXPECT_EQ(mp.window.stride_h, 2u);
  EXPECT_EQ(mp.window.stride_w, 1u);
  EXPECT_EQ(mp.window.padding, qparity::Padding::kSame);
  EXPECT_EQ(mp.activation, qparity::Activation::kRelu6);
  const auto& ap = back.nodes[2].opts<Pool2DOptions>();
  EXPECT_EQ(back.nodes[2].op, OpKind::kAveragePool2D);
  EXPECT_EQ(ap.window.padding, qparity::Padding::kValid);
  EXPECT_EQ(ap.activation, qparity::Activation::kReluN1To1);
  EXPECT_EQ(back.nodes[3].op, OpKind::kMean);
  EXPECT_TRUE(back.nodes[3].opts<ReducerOptions>().keep_dims);
  EXPECT_EQ(back.nodes[4].op, OpKind::kRelu6);
  EXPECT_EQ(back.nodes[5].op, OpKind::kDequantize);
  // Shapes inferred again on reading: 9x7 -> SAME 3x2 / 2x1 -> 5x7 -> VALID -> 2x6 -> MEAN.
  EXPECT_EQ(back.tensors[static_cast<std::size_t>(back.nodes[3].outputs[0])].shape,
            (std::vector<std::size_t>{1, 1, 1, 5}));
  // The one-scale per-axis output keeps its quantized_dimension: XNNPACK would refuse the node.
  EXPECT_EQ(back.tensors[static_cast<std::size_t>(back.nodes[1].outputs[0])].quant.axis, 3u);
  EXPECT_FALSE(op_of(OpKind::kMaxPool2D).xnnpack_takes(back, back.nodes[1]));
  EXPECT_FALSE(op_of(OpKind::kMaxPool2D).xnnpack_takes(g, g.nodes[1]));
  EXPECT_TRUE(op_of(OpKind::kQuantize).xnnpack_takes(back, back.nodes[0]));
  EXPECT_FALSE(op_of(OpKind::kAveragePool2D).xnnpack_takes(back, back.nodes[2]));
  EXPECT_TRUE(op_of(OpKind::kMean).xnnpack_takes(back, back.nodes[3]));
  EXPECT_FALSE(op_of(OpKind::kRelu6).xnnpack_takes(back, back.nodes[4]));
}

}  // namespace

namespace {

// The file's depth_multiplier is read back (inspect shows it), not left at 0.
TEST(TfliteOptions, DepthwiseMultiplierRoundTrip) {
  GraphBuilder b("depthwise round trip");
  const int x = b.tensor("x", DType::kInt8, {1, 5, 5, 4}, GraphBuilder::per_tensor(0.5f, 0));
  Tensor w = qparity::cli::make_tensor(DType::kInt8, {1, 3, 3, 8});
  const int wt = b.constant("w", w, GraphBuilder::per_tensor(0.01f, 0));
  const int y = b.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(0.5f, 0));
  auto o = std::make_shared<DepthwiseConv2DOptions>();
  o->window.padding = qparity::Padding::kSame;
  o->depth_multiplier = 2;
  b.node(OpKind::kDepthwiseConv2D, {x, wt}, {y}, o);
  b.input(x);
  b.output(y);
  const Graph back = read_tflite(write_tflite(b.finish()), "depthwise round trip");
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].opts<DepthwiseConv2DOptions>().depth_multiplier, 2u);
  EXPECT_NE(back.nodes[0].options->describe().find("depth multiplier 2"), std::string::npos);
}

}  // namespace

namespace {

// A conv-like op with an int32 output is accumulate-only in the graph (ONNX ConvInteger /
// MatMulInteger), but TFLite has no such operator: a .tflite holding one is refused, naming it.
TEST(TfliteOptions, Int32OutputConvLikeOpsAreRefused) {
  GraphBuilder b("int32 output");
  const int x = b.tensor("x", DType::kInt8, {2, 6}, GraphBuilder::per_tensor(1.0f, 0));
  Tensor w = qparity::cli::make_tensor(DType::kInt8, {3, 6});
  const int wt = b.constant("w", w, GraphBuilder::per_tensor(1.0f, 0));
  const int y = b.tensor("y", DType::kInt32, {2, 3});
  b.node(OpKind::kFullyConnected, {x, wt}, {y}, std::make_shared<FullyConnectedOptions>());
  b.input(x);
  b.output(y);
  const std::vector<std::uint8_t> bytes = write_tflite(b.finish());
  try {
    read_tflite(bytes, "int32.tflite");
    FAIL() << "a FULLY_CONNECTED with an int32 output was read";
  } catch (const qparity::cli::ToolError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("int32.tflite"), std::string::npos) << what;
    EXPECT_NE(what.find("operator 0 (FULLY_CONNECTED) has an int32 output"), std::string::npos) << what;
  }
}

}  // namespace
