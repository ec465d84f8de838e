// The ONNX writer's refusals and its activations (model/onnx/onnx_writer.h), without ONNX Runtime:
// an op without an ONNX form and the operator form's MaxPool are refused naming the node; a fused
// RELU6 the output's quantization does not imply is refused in the operator form and written as
// Clip(0, 6) in the QDQ form, which the reader reads back as the node's RELU6 and which computes the
// zoo graph's bits. (Whole models against ONNX Runtime: oracle_onnx_models_test.cc.)
#include <gtest/gtest.h>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/onnx/onnx_writer.h"
#include "model/ops/conv_common.h"
#include "model/ops/resize.h"
#include "model/graph_builder.h"
#include "qparity/reference/resize.h"
#include "model/runner.h"
#include "model/zoo.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using namespace qparity::model;
using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;

ZooOptions small() {
  ZooOptions zo;
  zo.input_size = 32;
  zo.classes = 10;
  return zo;
}

std::string write_error(const Graph& g, OnnxForm form) {
  OnnxWriteOptions o;
  o.form = form;
  try {
    write_onnx(g, o);
  } catch (const ToolError& e) {
    return e.what();
  }
  return "";
}

TEST(OnnxWriter, RefusesOpsWithoutAnOnnxFormNamingTheNode) {
  const Graph g = mobilenet_v2(small());  // ends with SOFTMAX
  const std::string e = write_error(g, OnnxForm::kQLinear);
  EXPECT_NE(e.find("SOFTMAX 'probabilities'"), std::string::npos) << e;
  EXPECT_NE(e.find("no ONNX form"), std::string::npos) << e;
  const Graph r = resnet18(small());
  const std::string m = write_error(r, OnnxForm::kQLinear);
  EXPECT_NE(m.find("MAX_POOL_2D 'stem/pool'"), std::string::npos) << m;
  EXPECT_NE(m.find("onnx-qdq"), std::string::npos) << m;
  EXPECT_EQ(write_error(r, OnnxForm::kQdq), "");
}

TEST(OnnxWriter, ARelu6TheQuantizationDoesNotImplyIsClipInQdqForm) {
  ZooOptions zo = small();
  zo.softmax = false;
  Graph g = mobilenet_v2(zo);
  // The stem's RELU6 output from [-128, 127] = [0, 6] to a zero point of -100: the clamp now cuts.
  int stem = -1;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == "stem") stem = g.nodes[i].outputs[0];
  }
  ASSERT_GE(stem, 0);
  g.tensors[static_cast<std::size_t>(stem)].quant.zero_points = {-100};
  const std::string e = write_error(g, OnnxForm::kQLinear);
  EXPECT_NE(e.find("CONV_2D 'stem'"), std::string::npos) << e;
  EXPECT_NE(e.find("RELU6"), std::string::npos) << e;

  OnnxWriteOptions o;
  o.form = OnnxForm::kQdq;
  const Graph back = read_onnx(write_onnx(g, o), "stem relu6");
  bool found = false;
  for (const Node& n : back.nodes) {
    if (n.name != "stem") continue;
    found = true;
    EXPECT_EQ(n.opts<Conv2DOptions>().activation, qparity::Activation::kRelu6);
  }
  EXPECT_TRUE(found);
  // The same bits as the zoo graph under one arithmetic for every node.
  const std::size_t s = zo.input_size;
  Tensor nhwc = qparity::cli::generate_tensor(DType::kInt8, {1, s, s, 3}, 3, -128, 127);
  Tensor nchw = qparity::cli::make_tensor(DType::kInt8, {1, 3, s, s});
  for (std::size_t p = 0; p < s * s; ++p) {
    for (std::size_t c = 0; c < 3; ++c) nchw.set_integer(c * s * s + p, nhwc.integer_at(p * 3 + c));
  }
  auto run = [](const Graph& graph, const Tensor& x) {
    Runner r(graph, resolve_node_map(parse_node_map("onnxruntime", "profile"), graph, "profile"));
    r.run({x});
    return r.outputs()[0];
  };
  EXPECT_EQ(run(g, nhwc).bytes, run(back, nchw).bytes);
}

// RESIZE_BILINEAR is written as Resize (plain in the operator form, a QDQ group in the QDQ form) with
// the coordinate mode its options name; the reader reads both back as the same node. Under ort-cpu the
// plain form computes the original graph's bits, the QDQ group ONNX Runtime's float path (dequantize,
// float Resize, QuantizeLinear: tests/onnx/oracle_onnx_resize_test.cc measures both).
TEST(OnnxWriter, ResizeBilinearRoundTripsInBothForms) {
  for (const auto& [align, half] : {std::pair{true, false}, std::pair{false, true}, std::pair{false, false}}) {
    GraphBuilder b("resize");
    const int x = b.tensor("x", DType::kInt8, {1, 3, 5, 2}, GraphBuilder::per_tensor(0.1f, -4));
    Tensor size = qparity::cli::make_tensor(DType::kInt32, {2});
    size.set_integer(0, 7);
    size.set_integer(1, 4);
    const int sz = b.constant("size", size);
    const int y = b.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(0.1f, -4));
    auto o = std::make_shared<ResizeOptions>();
    o->align_corners = align;
    o->half_pixel_centers = half;
    b.node(OpKind::kResizeBilinear, {x, sz}, {y}, o, "rs");
    b.input(x);
    b.output(y);
    const Graph g = b.finish();
    Tensor in = qparity::cli::make_tensor(DType::kInt8, {1, 3, 5, 2});
    for (std::size_t i = 0; i < in.elements(); ++i) in.set_integer(i, static_cast<std::int64_t>(i * 37 % 256) - 128);
    Runner orig(g, {find_profile("ort-cpu").pick(g, g.nodes[0])}, Engine::kReference);
    orig.run({in});
    for (OnnxForm form : {OnnxForm::kQLinear, OnnxForm::kQdq}) {
      OnnxWriteOptions wo;
      wo.form = form;
      const Graph back = read_onnx(write_onnx(g, wo), "resize.onnx");
      const Node* r = nullptr;
      for (const Node& n : back.nodes) {
        if (n.op == OpKind::kResizeBilinear) r = &n;
      }
      ASSERT_NE(r, nullptr) << onnx_form_name(form);
      EXPECT_EQ(r->opts<ResizeOptions>().align_corners, align);
      EXPECT_EQ(r->opts<ResizeOptions>().half_pixel_centers, half);
      EXPECT_EQ(r->onnx_qdq, form == OnnxForm::kQdq);
      // The reader puts the NCHW <-> NHWC transposes at the boundary: feed it NCHW.
      Tensor nchw = qparity::cli::make_tensor(DType::kInt8, {1, 2, 3, 5});
      for (std::size_t c = 0; c < 2; ++c)
        for (std::size_t p = 0; p < 15; ++p) nchw.set_integer(c * 15 + p, in.integer_at(p * 2 + c));
      const Profile prof = find_profile("ort-cpu");
      std::vector<System> systems;
      for (const Node& n : back.nodes) systems.push_back(prof.pick(back, n));
      Runner run(back, systems, Engine::kReference);
      run.run({nchw});
      const Tensor got = run.outputs()[0];  // NCHW [1, 2, 7, 4]
      Tensor want = orig.outputs()[0];      // NHWC [1, 7, 4, 2]
      if (form == OnnxForm::kQdq) {
        qparity::reference::ResizeGeometry geo;
        geo.in_h = 3;
        geo.in_w = 5;
        geo.channels = 2;
        geo.out_h = 7;
        geo.out_w = 4;
        geo.align_corners = align;
        geo.half_pixel_centers = half;
        const qparity::reference::TensorQuant q{0.1f, -4};
        std::vector<std::int8_t> xs(in.elements());
        for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<std::int8_t>(in.integer_at(i));
        const std::vector<std::int8_t> ys =
            qparity::reference::ort_resize_bilinear(xs, geo, qparity::reference::onnx_mode_of(geo), &q);
        for (std::size_t i = 0; i < ys.size(); ++i) want.set_integer(i, ys[i]);
      }
      std::size_t wrong = 0;
      for (std::size_t c = 0; c < 2; ++c)
        for (std::size_t p = 0; p < 28; ++p) wrong += got.integer_at(c * 28 + p) != want.integer_at(p * 2 + c) ? 1 : 0;
      EXPECT_EQ(wrong, 0u) << onnx_form_name(form);
    }
  }
}

// A RESIZE_NEAREST_NEIGHBOR read from an ONNX Resize (ONNX's rule) is written back as that Resize and
// read again to the same rule and bits; one with TFLite's rule is refused naming the node.
TEST(OnnxWriter, ResizeNearestWithOnnxsRuleRoundTrips) {
  GraphBuilder b("resize nearest");
  const int x = b.tensor("x", DType::kUint8, {1, 4, 3, 2}, GraphBuilder::per_tensor(0.1f, 128));
  Tensor size = qparity::cli::make_tensor(DType::kInt32, {2});
  size.set_integer(0, 7);
  size.set_integer(1, 5);
  const int sz = b.constant("size", size);
  const int y = b.tensor("y", DType::kUint8, {}, GraphBuilder::per_tensor(0.1f, 128));
  auto o = std::make_shared<ResizeOptions>();
  o->onnx_nearest = OnnxNearestRule{qparity::reference::OnnxCoordinateMode::kHalfPixel,
                                    qparity::reference::OnnxNearestMode::kRoundPreferCeil};
  b.node(OpKind::kResizeNearestNeighbor, {x, sz}, {y}, o, "rn");
  b.input(x);
  b.output(y);
  const Graph g = b.finish();
  for (OnnxForm form : {OnnxForm::kQLinear, OnnxForm::kQdq}) {
    OnnxWriteOptions wo;
    wo.form = form;
    const Graph back = read_onnx(write_onnx(g, wo), "rn.onnx");
    const Node* r = nullptr;
    for (const Node& n : back.nodes) {
      if (n.op == OpKind::kResizeNearestNeighbor) r = &n;
    }
    ASSERT_NE(r, nullptr) << onnx_form_name(form);
    ASSERT_TRUE(r->opts<ResizeOptions>().onnx_nearest.has_value());
    EXPECT_EQ(r->opts<ResizeOptions>().onnx_nearest->nearest, qparity::reference::OnnxNearestMode::kRoundPreferCeil);
    EXPECT_EQ(r->opts<ResizeOptions>().onnx_nearest->coordinates, qparity::reference::OnnxCoordinateMode::kHalfPixel);
  }
  GraphBuilder t("tflite nearest");
  const int tx = t.tensor("x", DType::kInt8, {1, 4, 3, 2}, GraphBuilder::per_tensor(0.1f, 0));
  const int tsz = t.constant("size", size);
  const int ty = t.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(0.1f, 0));
  t.node(OpKind::kResizeNearestNeighbor, {tx, tsz}, {ty}, std::make_shared<ResizeOptions>(), "tn");
  t.input(tx);
  t.output(ty);
  const std::string e = write_error(t.finish(), OnnxForm::kQdq);
  EXPECT_NE(e.find("RESIZE_NEAREST_NEIGHBOR 'tn'"), std::string::npos) << e;
  EXPECT_NE(e.find("TFLite's index rule"), std::string::npos) << e;
}

}  // namespace
}  // namespace qparity_test
