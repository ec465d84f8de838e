// The .onnx reader on QDQ-form models: which ops the DequantizeLinear -> operator -> QuantizeLinear
// groups become (the QLinear operator ONNX Runtime fuses them into, marked onnx_qdq, a Relu or
// Clip(0, 6) folded in), which system each ONNX Runtime profile gives them, and clear errors naming
// the node for the patterns qparity does not read.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include "model/onnx/onnx_reader.h"

#include "model/ops/conv_common.h"
#include "model/ops/elementwise.h"
#include "model/runner.h"
#include "model/system.h"
#include "onnx_builder.h"
#include "onnx_qdq_models.h"
#include "onnx_test_support.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::ToolError;
using qparity::model::find_profile;
using qparity::model::Graph;
using qparity::model::OpKind;
using qparity::model::read_onnx;


const qparity::model::Node& only(const Graph& g, OpKind op) {
  for (const auto& n : g.nodes) {
    if (n.op == op) return n;
  }
  throw std::runtime_error("no such node");
}

TEST(OnnxQdqReader, ConvGroupBecomesAMarkedConvWithItsActivation) {
  QdqConvSpec s;
  s.activation = "Clip6";
  const Graph g = read_onnx(qdq_conv_model(s).bytes, "conv.onnx");
  ASSERT_EQ(g.nodes.size(), 3u);  // TRANSPOSE, CONV_2D, TRANSPOSE
  const auto& conv = g.nodes[1];
  EXPECT_EQ(conv.op, OpKind::kConv2D);
  EXPECT_TRUE(conv.onnx_qdq);
  EXPECT_EQ(conv.opts<qparity::model::Conv2DOptions>().activation, qparity::Activation::kRelu6);
  EXPECT_FALSE(g.nodes[0].onnx_qdq);
  const auto& y = g.tensors[static_cast<std::size_t>(conv.outputs[0])];
  EXPECT_EQ(y.quant.scales, std::vector<float>{s.conv.y_scale});
  EXPECT_EQ(y.quant.zero_point(), s.conv.y_zp);
}

TEST(OnnxQdqReader, ProfilesRunInt8ConvInFloatAndFuseUint8) {
  for (DType t : {DType::kInt8, DType::kUint8}) {
    QdqConvSpec s;
    s.conv.x = t;
    s.conv.x_zp = t == DType::kUint8 ? 128 : 0;
    s.conv.y_zp = t == DType::kUint8 ? 128 : 0;
    const Graph g = read_onnx(qdq_conv_model(s).bytes, "conv.onnx");
    const std::string fused = find_profile("ort-cpu").pick(g, g.nodes[1]).preset.name;
    EXPECT_EQ(fused, t == DType::kUint8 ? "onnxruntime" : "onnxruntime-qdq-float");
    EXPECT_EQ(find_profile("ort-cpu-unfused").pick(g, g.nodes[1]).preset.name, "onnxruntime-qdq-float");
  }
  QMulSpec m;  // ORT fuses int8 Add / Mul groups too
  m.op = "QLinearAdd";
  const Graph g = read_onnx(qdq_binary_model(m).bytes, "add.onnx");
  EXPECT_EQ(find_profile("ort-cpu").pick(g, only(g, OpKind::kAdd)).preset.name, "onnxruntime");
  EXPECT_EQ(find_profile("ort-cpu-unfused").pick(g, only(g, OpKind::kAdd)).preset.name, "onnxruntime-qdq-float");
}

// ORT removes a Relu / Clip before the QuantizeLinear only where the quantization's clamp makes it
// redundant; a kept one leaves the group unfused at level all (the float32 kernels with the activation).
TEST(OnnxQdqReader, OrtFusesAGroupWithARedundantActivationOnly) {
  struct Row {
    DType t;
    std::int64_t y_zp;
    const char* act;
    float y_scale;
    bool fused;
  };
  for (const Row& r : {Row{DType::kUint8, 0, "Relu", 0.03f, true}, Row{DType::kUint8, 1, "Relu", 0.03f, false},
                       Row{DType::kUint8, 255, "Relu", 0.03f, false},
                       // Clip(0, 6) covers [0, 0.0235 * 255 = 5.99] but not [0, 7.65]
                       Row{DType::kUint8, 0, "Clip6", 0.0235f, true}, Row{DType::kUint8, 0, "Clip6", 0.03f, false},
                       // 6 / 0.02355 = 254.8 rounds to 255: the selectors' rule removes it
                       Row{DType::kUint8, 0, "Clip6", 0.02355f, true}, Row{DType::kUint8, 2, "Clip6", 0.02f, false}}) {
    QdqConvSpec s;
    s.conv.x = r.t;
    s.conv.x_zp = 128;
    s.conv.y_zp = r.y_zp;
    s.conv.y_scale = r.y_scale;
    s.activation = r.act;
    const Graph g = read_onnx(qdq_conv_model(s).bytes, "conv.onnx");
    const auto& conv = only(g, OpKind::kConv2D);
    EXPECT_EQ(conv.ort_keeps_activation, !r.fused) << r.act << " zp " << r.y_zp << " scale " << r.y_scale;
    EXPECT_EQ(find_profile("ort-cpu").pick(g, conv).preset.name, r.fused ? "onnxruntime" : "onnxruntime-qdq-float")
        << r.act << " zp " << r.y_zp << " scale " << r.y_scale;
  }
  for (std::int64_t zp : {-128, -127}) {  // int8 Add groups are fused unless a Relu stays
    QMulSpec m;
    m.op = "QLinearAdd";
    m.c_zp = zp;
    const Graph g = read_onnx(qdq_binary_model(m, "Relu").bytes, "add.onnx");
    EXPECT_EQ(find_profile("ort-cpu").pick(g, only(g, OpKind::kAdd)).preset.name,
              zp == -128 ? "onnxruntime" : "onnxruntime-qdq-float");
  }
}

// A QDQ MatMul whose b is N-D or a run-time value is a BATCH_MATMUL marked onnx_qdq: fused under
// ort-cpu for uint8 a (ORT's MatMul selector has no condition on b's shape), float32 otherwise.
// What it cannot be is refused naming the node: per-axis b and a Relu after it; one column of B with
// several rows runs (MLAS's transposed single-row kernel).
TEST(OnnxQdqReader, BatchedQdqMatMulIsABatchMatMulOrAClearRefusal) {
  for (DType t : {DType::kInt8, DType::kUint8}) {
    QdqBatchMatMulSpec s;
    s.mm.a = t;
    s.mm.a_zp = t == DType::kUint8 ? 128 : 3;
    s.mm.y_zp = t == DType::kUint8 ? 128 : -5;
    s.mm.b_input = true;
    const BuiltOnnx m = qdq_batch_matmul_model(s);
    const Graph g = read_onnx(m.bytes, "bmm.onnx");
    const auto& bmm = only(g, OpKind::kBatchMatMul);
    EXPECT_TRUE(bmm.onnx_qdq);
    EXPECT_EQ(find_profile("ort-cpu").pick(g, bmm).preset.name,
              t == DType::kUint8 ? "onnxruntime" : "onnxruntime-qdq-float");
    EXPECT_EQ(find_profile("ort-cpu-unfused").pick(g, bmm).preset.name, "onnxruntime-qdq-float");
    EXPECT_EQ(run_error(g, m.inputs, "ort-cpu-unfused"), "(no error)");
  }
  {  // b [3, 24, 1]: one column, 5 rows per batch (MLAS's transposed single-row kernel)
    QdqBatchMatMulSpec s;
    s.mm.b_shape = {3, 24, 1};
    const BuiltOnnx m = qdq_batch_matmul_model(s);
    EXPECT_EQ(run_error(read_onnx(m.bytes, "bmm.onnx"), m.inputs, "ort-cpu-unfused"), "(no error)");
  }
  auto model = [](bool per_axis, bool relu) {
    OnnxBuilder b;
    b.input("a", DType::kUint8, {2, 3, 4});
    b.input("b", DType::kUint8, {2, 4, 5});
    b.output("y", DType::kUint8);
    b.scales("a_s", {0.02f});
    b.zero_points("a_z", DType::kUint8, {128});
    b.node("DequantizeLinear", {"a", "a_s", "a_z"}, {"af"});
    b.scales("b_s", per_axis ? std::vector<float>{0.01f, 0.02f, 0.03f, 0.04f, 0.05f} : std::vector<float>{0.01f});
    b.zero_points("b_z", DType::kUint8, per_axis ? std::vector<std::int64_t>(5, 128) : std::vector<std::int64_t>{128});
    onnx::NodeProto& dq = b.node("DequantizeLinear", {"b", "b_s", "b_z"}, {"bf"});
    if (per_axis) OnnxBuilder::int_attr(dq, "axis", 2);
    b.node("MatMul", {"af", "bf"}, {"mm"}, "");
    if (relu) b.node("Relu", {"mm"}, {"mm_relu"});
    b.scales("y_s", {0.1f});
    b.zero_points("y_z", DType::kUint8, {128});
    b.node("QuantizeLinear", {relu ? "mm_relu" : "mm", "y_s", "y_z"}, {"y"});
    return b;
  };
  EXPECT_EQ(read_error(model(false, false)), "(no error)");
  const std::string per_axis = read_error(model(true, false));
  EXPECT_NE(per_axis.find("(MatMul 'mm_node'): B 'b' is a run-time value and its DequantizeLinear per axis; "
                          "allowed: per tensor"),
            std::string::npos)
      << per_axis;
  const std::string relu = read_error(model(false, true));
  EXPECT_NE(relu.find("a Relu after a MatMul whose B is N-D or a run-time value; allowed: none there"),
            std::string::npos)
      << relu;
}

TEST(OnnxQdqReader, GemmIsAFullyConnectedWithItsBiasThatOrtAlwaysFuses) {
  QdqMatMulSpec s;
  s.gemm = true;
  const Graph g = read_onnx(qdq_matmul_model(s).bytes, "gemm.onnx");
  const auto& fc = only(g, OpKind::kFullyConnected);
  ASSERT_EQ(fc.inputs.size(), 3u);
  ASSERT_GE(fc.inputs[2], 0);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(fc.inputs[1])].shape, (std::vector<std::size_t>{s.mm.n, 24}));
  EXPECT_EQ(find_profile("ort-cpu").pick(g, fc).preset.name, "onnxruntime");  // QGemm, int8 too
  EXPECT_EQ(find_profile("ort-cpu-unfused").pick(g, fc).preset.name, "onnxruntime-qdq-float");
}

TEST(OnnxQdqReader, ResNetModelReadsEveryGroup) {
  const Graph g = read_onnx(qdq_resnet_model(DType::kInt8, 1).bytes, "resnet.onnx");
  for (OpKind op :
       {OpKind::kConv2D, OpKind::kAdd, OpKind::kMaxPool2D, OpKind::kMean, OpKind::kReshape, OpKind::kFullyConnected}) {
    EXPECT_TRUE(only(g, op).onnx_qdq) << static_cast<int>(op);
  }
  EXPECT_EQ(only(g, OpKind::kAdd).opts<qparity::model::ElementwiseOptions>().activation, qparity::Activation::kRelu);
}

// A minimal QDQ model to break: x -> DequantizeLinear -> <op> -> QuantizeLinear -> y.
OnnxBuilder qdq_builder() {
  OnnxBuilder b;
  b.input("x", DType::kInt8, {1, 2, 3, 3});
  b.output("y", DType::kInt8);
  b.scales("s", {0.5f});
  b.zero_points("z", DType::kInt8, {0});
  b.node("DequantizeLinear", {"x", "s", "z"}, {"xf"});
  return b;
}

TEST(OnnxQdqReader, TransposeGroupMovesDataAndRequantizesLikeOrt) {
  {
    OnnxBuilder b = qdq_builder();
    onnx::NodeProto& t = b.node("Transpose", {"xf"}, {"t"});
    OnnxBuilder::ints(t, "perm", {0, 2, 3, 1});
    b.node("QuantizeLinear", {"t", "s", "z"}, {"y"});
    const Graph g = read_onnx(b.bytes(), "t.onnx");
    const qparity::model::Node& n = only(g, OpKind::kTranspose);
    EXPECT_TRUE(n.onnx_qdq);
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{1, 3, 3, 2}));
  }
  {
    OnnxBuilder b = qdq_builder();  // requantizing: TRANSPOSE, then a one-input CONCATENATION that rescales
    b.node("Transpose", {"xf"}, {"t"});
    b.scales("s2", {0.25f});
    b.node("QuantizeLinear", {"t", "s2", "z"}, {"y"});
    const Graph g = read_onnx(b.bytes(), "t.onnx");
    const qparity::model::Node& c = only(g, OpKind::kConcatenation);
    ASSERT_EQ(c.inputs.size(), 1u);
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(c.inputs[0])].quant.scales, (std::vector<float>{0.5f}));
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(c.outputs[0])].quant.scales, (std::vector<float>{0.25f}));
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.outputs[0])].shape, (std::vector<std::size_t>{3, 3, 2, 1}));
  }
  {
    OnnxBuilder b = qdq_builder();  // not a permutation
    onnx::NodeProto& t = b.node("Transpose", {"xf"}, {"t"});
    OnnxBuilder::ints(t, "perm", {0, 2, 2, 1});
    b.node("QuantizeLinear", {"t", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("perm [0, 2, 2, 1] for an input of rank 4; allowed: a permutation of 0 to 3"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // Resize is not read: the error names the node
    b.node("Resize", {"xf"}, {"r"});
    b.node("QuantizeLinear", {"r", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (Resize 'r_node')"), std::string::npos) << read_error(b.bytes());
  }
}

TEST(OnnxQdqReader, UnsupportedPatternsNameTheNode) {
  {
    OnnxBuilder b = qdq_builder();  // a float operator whose input no DequantizeLinear made
    b.input("f", DType::kFloat32, {1, 2, 3, 3});
    b.node("Add", {"f", "xf"}, {"sum"});
    b.node("QuantizeLinear", {"sum", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (Add 'sum_node'): input 'f' is a float value that no DequantizeLinear "
                                       "produced"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // the operator's output is not quantized
    b.node("MaxPool", {"xf"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (MaxPool 'y_node'): its float output 'y' must feed exactly one "
                                       "QuantizeLinear"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // a float operator between the group's operator and its QuantizeLinear
    b.node("Add", {"xf", "xf"}, {"sum"});
    b.node("Sigmoid", {"sum"}, {"sig"});
    b.node("QuantizeLinear", {"sig", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (Add 'sum_node'): its output feeds Sigmoid 'sig_node'; allowed: a "
                                       "QuantizeLinear"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // a QuantizeLinear of a float value other than a graph input
    b.node("QuantizeLinear", {"xf", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (QuantizeLinear 'y_node'): not part of a QDQ group qparity reads; "
                                       "allowed: QuantizeLinear of a float32 graph input"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // MaxPool requantizing
    b.scales("s2", {0.25f});
    onnx::NodeProto& n = b.node("MaxPool", {"xf"}, {"p"});
    OnnxBuilder::ints(n, "kernel_shape", {2, 2});
    b.node("QuantizeLinear", {"p", "s2", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (MaxPool 'p_node'): input and output quantized differently"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // a Relu without outputs (found by onnx_fuzzer)
    b.node("Add", {"xf", "xf"}, {"sum"});
    b.node("Relu", {"sum"}, {});
    EXPECT_NE(read_error(b.bytes()).find("(Relu 'Relu'): allowed: one output"), std::string::npos) << read_error(b.bytes());
  }
  {
    OnnxBuilder b = qdq_builder();  // a float32 y_zero_point after a Relu (found by onnx_fuzzer)
    b.scales("zf", {0.0f});
    b.node("Add", {"xf", "xf"}, {"sum"});
    b.node("Relu", {"sum"}, {"r"});
    b.node("QuantizeLinear", {"r", "s", "zf"}, {"y"});
    EXPECT_EQ(read_error(b.bytes()).rfind("m.onnx: ", 0), 0u) << read_error(b.bytes());
    EXPECT_NE(read_error(b.bytes()).find("(its QuantizeLinear 'y_node'): y_zero_point 'zf' is float32; allowed: int8, "
                                       "uint8"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    QdqMatMulSpec s;  // Gemm with transA 1
    s.gemm = true;
    const BuiltOnnx m = qdq_matmul_model(s);
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromArray(m.bytes.data(), static_cast<int>(m.bytes.size())));
    for (onnx::NodeProto& n : *model.mutable_graph()->mutable_node()) {
      if (n.op_type() == "Gemm") OnnxBuilder::int_attr(n, "transA", 1);
    }
    std::vector<std::uint8_t> bytes(model.ByteSizeLong());
    model.SerializeToArray(bytes.data(), static_cast<int>(bytes.size()));
    EXPECT_NE(read_error(bytes).find("(Gemm 'mm_node'): transA = 1; allowed: transA 0, transB 0 or 1"), std::string::npos)
        << read_error(bytes);
  }
  {
    QdqConvSpec s;  // a bias scale that is not x_scale * w_scale
    s.conv.per_channel = false;
    const BuiltOnnx m = qdq_conv_model(s);
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromArray(m.bytes.data(), static_cast<int>(m.bytes.size())));
    for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
      if (t.name() == "B_s") {
        float v = 0.0f;
        std::memcpy(&v, t.raw_data().data(), 4);
        v *= 2.0f;
        t.set_raw_data(std::string(reinterpret_cast<const char*>(&v), 4));
      }
    }
    std::vector<std::uint8_t> bytes(model.ByteSizeLong());
    model.SerializeToArray(bytes.data(), static_cast<int>(bytes.size()));
    EXPECT_NE(read_error(bytes).find("(Conv 'conv_node'): the bias's scale [0]"), std::string::npos) << read_error(bytes);
  }
}

// A QuantizeLinear of a float32 graph input and a DequantizeLinear to a float32 graph output become
// QUANTIZE / DEQUANTIZE nodes in ONNX's layout; per axis they run under ONNX Runtime's profiles only,
// the fast engine giving the reference engine's bits (float outputs compared by their bits).
TEST(OnnxQdqReader, FloatGraphInputsAndOutputsBecomeQuantizeAndDequantize) {
  std::uint64_t seed = 70;
  for (const bool quantize : {true, false}) {
    for (const bool per_axis : {false, true}) {
      LoneLinearSpec s;
      s.quantize = quantize;
      s.t = DType::kUint8;
      s.scales = per_axis ? std::vector<float>{0.25f, 0.0371f, 0.125f} : std::vector<float>{0.0371f};
      s.zps = per_axis ? std::vector<std::int64_t>{128, 135, 120} : std::vector<std::int64_t>{128};
      s.seed = seed++;
      const BuiltOnnx m = lone_linear_model(s);
      SCOPED_TRACE(m.label);
      const Graph g = read_onnx(m.bytes, "m.onnx");
      ASSERT_EQ(g.nodes.size(), 1u);
      EXPECT_EQ(g.nodes[0].op, quantize ? OpKind::kQuantize : OpKind::kDequantize);
      const auto& q = g.tensors[static_cast<std::size_t>(quantize ? g.outputs[0] : g.inputs[0])].quant;
      EXPECT_EQ(q.scales, s.scales);
      EXPECT_EQ(q.axis, per_axis ? 1u : 0u);
      using qparity::model::Engine;
      using qparity::model::Runner;
      using qparity::model::System;
      const System sys = find_profile("ort-cpu").pick(g, g.nodes[0]);
      Runner fast(g, {sys}, Engine::kFast), ref(g, {sys}, Engine::kReference);
      fast.run(m.inputs);
      ref.run(m.inputs);
      std::string first;
      EXPECT_EQ(mismatches(ref.outputs()[0], fast.outputs()[0], &first), 0u) << first;
      const std::string tflite = run_error(g, m.inputs, "tflite-reference");
      if (per_axis) {
        EXPECT_NE(tflite.find(quantize ? "output 'y' is quantized per axis (ONNX QuantizeLinear); allowed under ONNX "
                                         "Runtime's profiles (ort-cpu*) only"
                                       : "input 'x' is quantized per axis (ONNX DequantizeLinear); allowed under ONNX "
                                         "Runtime's profiles (ort-cpu*) only"),
                  std::string::npos)
            << tflite;
      } else {
        EXPECT_EQ(tflite, "(no error)");
      }
    }
  }
  {
    OnnxBuilder b;  // a per-axis y that another node reads
    b.input("f", DType::kFloat32, {1, 2, 3, 3});
    b.output("y", DType::kFloat32);
    b.scales("s", {0.5f, 0.25f});
    b.zero_points("z", DType::kInt8, {0, 1});
    b.node("QuantizeLinear", {"f", "s", "z"}, {"q"});
    b.node("DequantizeLinear", {"q", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 0 (QuantizeLinear 'q_node'): y 'q' is quantized per axis and read by "
                                       "another node; allowed: a per-axis y only as a graph output"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b;  // a constant dequantized straight to the output
    std::mt19937 rng(5);
    b.output("y", DType::kFloat32);
    b.initializer("w", random_tensor(rng, DType::kInt8, {4}, -128, 127));
    b.scales("s", {0.5f});
    b.zero_points("z", DType::kInt8, {0});
    b.node("DequantizeLinear", {"w", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 0 (DequantizeLinear 'y_node'): its float output 'y' is a graph output "
                                       "and its x 'w' is a constant; allowed: a graph output dequantizes an 8-bit "
                                       "activation"),
              std::string::npos)
        << read_error(b.bytes());
  }
}

}  // namespace
}  // namespace qparity_test
