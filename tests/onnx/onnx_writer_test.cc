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

}  // namespace
}  // namespace qparity_test
