// The .onnx reader on ONNX Runtime's table activations (docs/semantics.md §22.7): com.microsoft
// QLinearSigmoid / QLinearLeakyRelu and the QDQ groups around Sigmoid / LeakyRelu become LOGISTIC
// / LEAKY_RELU with their quantization and alpha; only the ONNX Runtime arithmetics run them
// (another system is refused naming the node), the .tflite writer refuses them, `describe` names
// the table; malformed nodes are refused naming the node.
#include <gtest/gtest.h>

#include "model/onnx/onnx_reader.h"
#include "model/ops/lookup_activation.h"
#include "model/runner.h"
#include "model/system.h"
#include "model/tflite/tflite_writer.h"
#include "onnx_builder.h"
#include "onnx_lookup_models.h"
#include "onnx_test_support.h"
#include "qparity/reference/ort_lookup_table.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::ToolError;
using qparity::model::find_profile;
using qparity::model::Graph;
using qparity::model::OpKind;
using qparity::model::read_onnx;

TEST(OnnxLookupReader, QLinearAndQdqFormsBecomeTheTableOps) {
  for (bool qdq : {false, true}) {
    for (bool sigmoid : {true, false}) {
      for (DType t : {DType::kUint8, DType::kInt8}) {
        LookupSpec s;
        s.qdq = qdq;
        s.sigmoid = sigmoid;
        s.type = t;
        s.x_scale = 0.07f;
        s.x_zp = t == DType::kUint8 ? 130 : -2;
        s.y_scale = 0.02f;
        s.y_zp = 9;
        s.alpha = 0.2f;
        const Graph g = read_onnx(lookup_model(s, "m").bytes, "m.onnx");
        ASSERT_EQ(g.nodes.size(), 1u);
        const auto& n = g.nodes[0];
        EXPECT_EQ(n.op, sigmoid ? OpKind::kLogistic : OpKind::kLeakyRelu);
        EXPECT_EQ(n.onnx_qdq, qdq);
        const auto& in = g.tensors[static_cast<std::size_t>(n.inputs[0])];
        const auto& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
        EXPECT_EQ(in.dtype, t);
        EXPECT_EQ(in.quant.scales, std::vector<float>{0.07f});
        EXPECT_EQ(in.quant.zero_point(), s.x_zp);
        EXPECT_EQ(out.quant.scales, std::vector<float>{0.02f});
        EXPECT_EQ(out.quant.zero_point(), 9);
        EXPECT_EQ(out.shape, (std::vector<std::size_t>{2, 256}));
        // ORT fuses both types' groups at level all (its optimized model holds the QLinear operator).
        EXPECT_EQ(find_profile("ort-cpu").pick(g, n).preset.name, "onnxruntime");
        EXPECT_EQ(find_profile("ort-cpu-unfused").pick(g, n).preset.name,
                  qdq ? "onnxruntime-qdq-float" : "onnxruntime");
        if (!sigmoid) {
          EXPECT_EQ(n.opts<qparity::model::LeakyReluOptions>().alpha, 0.2f);
        }
      }
    }
  }
}

TEST(OnnxLookupReader, RunsTheReferenceTableUnderOrtAndRefusesOtherSystems) {
  LookupSpec s;
  s.type = DType::kInt8;
  s.x_scale = 0.05f;
  const BuiltOnnx m = lookup_model(s, "m");
  const Graph g = read_onnx(m.bytes, "sig.onnx");
  for (const char* profile : {"ort-cpu", "ort-cpu-unfused", "onnxruntime"}) {
    const qparity::model::Profile p = find_profile(profile);
    qparity::model::Runner r(g, {p.pick(g, g.nodes[0])});
    r.run(m.inputs);
    const auto y = r.outputs()[0];
    for (std::size_t i = 0; i < 256; ++i) {
      const auto x = static_cast<std::int8_t>(m.inputs[0].integer_at(i));
      EXPECT_EQ(y.integer_at(i),
                qparity::reference::ort_lookup_value<std::int8_t>(x, qparity::reference::OrtTableFunction::kSigmoid,
                                                                  0.0f, {0.05f, 0}, {1.0f / 256.0f, -128}))
          << profile << " element " << i;
    }
    const std::vector<std::string> d = r.prepared(0).describe();
    std::string all;
    for (const std::string& l : d) all += l + "\n";
    EXPECT_NE(all.find("ONNX Runtime's 256-entry table"), std::string::npos) << all;
    EXPECT_NE(all.find("MLAS logistic, x86 FMA3 kernel"), std::string::npos) << all;
  }
  for (const char* profile : {"tflite-reference", "tflite-xnnpack-x86", "npu-verisilicon", "fbgemm"}) {
    const qparity::model::Profile p = find_profile(profile);
    try {
      qparity::model::Runner r(g, {p.pick(g, g.nodes[0])});
      ADD_FAILURE() << profile << " prepared LOGISTIC";
    } catch (const ToolError& e) {
      EXPECT_NE(std::string(e.what()).find("sig.onnx: op 0 (LOGISTIC 'y_node'): under " + std::string(profile)),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("allowed: the ort-cpu* profiles or the onnxruntime preset"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    qparity::model::write_tflite(g);
    ADD_FAILURE() << "wrote LOGISTIC to .tflite";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("LOGISTIC has no .tflite operator"), std::string::npos) << e.what();
  }
}

TEST(OnnxLookupReader, MalformedNodesNameTheNode) {
  auto builder = [](DType y_type) {
    OnnxBuilder b(13, true);
    b.input("x", DType::kInt8, {4});
    b.output("y", y_type);
    b.scales("s", {0.5f});
    b.zero_points("z", DType::kInt8, {0});
    b.zero_points("zu", DType::kUint8, {0});
    return b;
  };
  {
    OnnxBuilder b = builder(DType::kInt8);
    b.node("QLinearSigmoid", {"x", "s", "z", "s"}, {"y"}, "com.microsoft");
    EXPECT_NE(read_error(b.bytes()).find("node 0 (com.microsoft.QLinearSigmoid 'y_node'): 4 inputs; allowed: 5"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = builder(DType::kUint8);
    b.node("QLinearLeakyRelu", {"x", "s", "z", "s", "zu"}, {"y"}, "com.microsoft");
    EXPECT_NE(read_error(b.bytes()).find("X is int8, Y uint8; allowed: one type"), std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = builder(DType::kInt8);
    OnnxBuilder::int_attr(b.node("QLinearLeakyRelu", {"x", "s", "z", "s", "z"}, {"y"}, "com.microsoft"), "alpha", 1);
    EXPECT_NE(read_error(b.bytes()).find("QLinearLeakyRelu 'y_node'): attribute alpha must be a finite float"),
              std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = builder(DType::kInt8);
    OnnxBuilder::int_attr(b.node("QLinearSigmoid", {"x", "s", "z", "s", "z"}, {"y"}, "com.microsoft"), "alpha", 1);
    EXPECT_NE(read_error(b.bytes()).find("attribute 'alpha'; allowed: none"), std::string::npos) << read_error(b.bytes());
  }
  {
    OnnxBuilder b(13);  // QDQ: per-axis input quantization
    b.input("x", DType::kInt8, {2, 4});
    b.output("y", DType::kInt8);
    b.scales("s2", {0.5f, 0.25f});
    b.zero_points("z2", DType::kInt8, {0, 0});
    b.scales("s", {0.5f});
    b.zero_points("z", DType::kInt8, {0});
    OnnxBuilder::int_attr(b.node("DequantizeLinear", {"x", "s2", "z2"}, {"xf"}), "axis", 0);
    b.node("Sigmoid", {"xf"}, {"yf"});
    b.node("QuantizeLinear", {"yf", "s", "z"}, {"y"});
    EXPECT_NE(read_error(b.bytes()).find("node 1 (Sigmoid 'yf_node'): the X's DequantizeLinear is per axis; allowed: "
                                       "per tensor"),
              std::string::npos)
        << read_error(b.bytes());
  }
}

TEST(OnnxLookupReader, SoftmaxFormsBecomeSoftmaxOverTheLastAxis) {
  for (bool qdq : {false, true}) {
    SoftmaxSpec s;
    s.qdq = qdq;
    s.rows = 3;
    s.row = 10;
    const BuiltOnnx m = softmax_model(s, "m");
    const Graph g = read_onnx(m.bytes, "sm.onnx");
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op, OpKind::kSoftmax);
    EXPECT_EQ(g.nodes[0].onnx_qdq, qdq);
    // ORT fuses both types' QDQ Softmax at level all; at level disabled it runs its float32 Softmax,
    // whose MLAS kernel ort-cpu-unfused picks by the CPU's AVX-512F.
    qparity::model::Runner r(g, {find_profile("ort-cpu").pick(g, g.nodes[0])});
    std::string all;
    for (const std::string& l : r.prepared(0).describe()) all += l + "\n";
    EXPECT_NE(all.find("ONNX Runtime QLinearSoftmax"), std::string::npos) << all;
    const qparity::model::System unfused = find_profile("ort-cpu-unfused").pick(g, g.nodes[0]);
    const std::string want = !qdq ? "onnxruntime"
                             : qparity::model::cpu_has_avx512f() ? "onnxruntime-qdq-float"
                                                                 : "onnxruntime-qdq-float-fma3";
    EXPECT_EQ(unfused.preset.name, want);
    // The named CPU classes pick their kernel whatever this CPU is.
    EXPECT_EQ(find_profile("ort-cpu-unfused-avx2").pick(g, g.nodes[0]).preset.name,
              qdq ? "onnxruntime-qdq-float-fma3" : "onnxruntime");
    EXPECT_EQ(find_profile("ort-cpu-unfused-avx512vnni").pick(g, g.nodes[0]).preset.name,
              qdq ? "onnxruntime-qdq-float" : "onnxruntime");
    for (bool avx512 : {true, false}) {
      if (!qdq) break;
      qparity::model::System sys = unfused;
      sys.preset.name = avx512 ? "onnxruntime-qdq-float" : "onnxruntime-qdq-float-fma3";
      qparity::model::Runner u(g, {sys});
      std::string text;
      for (const std::string& l : u.prepared(0).describe()) text += l + "\n";
      EXPECT_NE(text.find("ONNX Runtime unfused QDQ Softmax"), std::string::npos) << text;
      EXPECT_NE(text.find(avx512 ? "TransKernelAvx512F.S" : "TransKernelFma3.S"), std::string::npos) << text;
    }
  }
  auto builder = [] {
    OnnxBuilder b(13, true);
    b.input("x", DType::kInt8, {2, 4});
    b.output("y", DType::kInt8);
    b.scales("s", {0.5f});
    b.scales("ys", {1.0f / 256.0f});
    b.zero_points("z", DType::kInt8, {0});
    b.zero_points("yz", DType::kInt8, {-128});
    return b;
  };
  {
    OnnxBuilder b = builder();
    b.node("QLinearSoftmax", {"x", "s", "z", "ys", "yz"}, {"y"}, "com.microsoft");
    EXPECT_NE(read_error(b.bytes()).find("QLinearSoftmax 'y_node'): needs the int attribute opset"), std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = builder();
    onnx::NodeProto& n = b.node("QLinearSoftmax", {"x", "s", "z", "ys", "yz"}, {"y"}, "com.microsoft");
    OnnxBuilder::int_attr(n, "opset", 13);
    OnnxBuilder::int_attr(n, "axis", 0);
    EXPECT_NE(read_error(b.bytes()).find("axis 0 of a rank-2 input; allowed: the last axis (1 or -1)"), std::string::npos)
        << read_error(b.bytes());
  }
  {
    OnnxBuilder b = builder();  // opset 12 rules: axis 1 by default, the last of a 2-D input
    b.scales("ys2", {0.01f});
    onnx::NodeProto& n = b.node("QLinearSoftmax", {"x", "s", "z", "ys2", "yz"}, {"y"}, "com.microsoft");
    OnnxBuilder::int_attr(n, "opset", 12);
    EXPECT_NE(read_error(b.bytes()).find("allowed: scale 1/256 (within 0.1 %)"), std::string::npos)
        << read_error(b.bytes());
  }
}

}  // namespace
}  // namespace qparity_test
