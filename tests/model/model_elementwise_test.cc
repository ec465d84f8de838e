// The model ops ADD, SUB and MUL (tools/model/ops/elementwise.cc) without a runtime: .tflite
// options written and read back (every activation; a one-scale output along a named axis kept),
// the checks (types, quantization, broadcasting, declared shapes), the XNNPACK delegate's rules
// (xnnpack_takes), which arithmetic each system and profile picks (describe's first line), the
// "same lines, same bits" contract of describe(), and the fast engine against the reference engine
// under every named preset and runtime profile.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "model/graph_builder.h"
#include "model/node_map.h"
#include "model/op.h"
#include "model/ops/elementwise.h"
#include "model/runner.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "qparity/presets.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::Activation;
using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;
using Shape = std::vector<std::size_t>;

Tensor random_tensor(std::mt19937& rng, DType dt, Shape shape) {
  Tensor t = qparity::cli::make_tensor(dt, std::move(shape));
  std::uniform_int_distribution<int> d(dt == DType::kUint8 ? 0 : -128, dt == DType::kUint8 ? 255 : 127);
  for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, d(rng));
  return t;
}

struct Built {
  Graph graph;
  std::vector<Tensor> inputs;
};

Built build(OpKind op, DType dt, Shape s1, Shape s2, Activation act = Activation::kNone, float so = 0.05f,
            std::size_t out_axis = 0, std::uint32_t seed = 1) {
  std::mt19937 rng(seed);
  GraphBuilder b("test");
  const std::int64_t zp = dt == DType::kUint8 ? 128 : 0;
  const int x1 = b.tensor("x1", dt, s1, GraphBuilder::per_tensor(0.03f, zp + 3));
  const int x2 = b.tensor("x2", dt, s2, GraphBuilder::per_tensor(0.02f, zp - 5));
  Quantization qo = GraphBuilder::per_tensor(so, zp + 1);
  qo.axis = out_axis;
  const int y = b.tensor("y", dt, {}, qo);
  auto o = std::make_shared<ElementwiseOptions>();
  o->activation = act;
  b.node(op, {x1, x2}, {y}, o);
  b.input(x1);
  b.input(x2);
  b.output(y);
  Built r{b.finish(), {}};
  r.inputs.push_back(random_tensor(rng, dt, s1));
  r.inputs.push_back(random_tensor(rng, dt, s2));
  return r;
}

std::vector<Tensor> run(const Graph& g, const std::vector<Tensor>& inputs, const std::string& profile, Engine engine) {
  Runner runner(g, resolve_node_map(parse_node_map(profile, "profile"), g, "profile"), engine);
  runner.run(inputs);
  return runner.outputs();
}

std::vector<std::string> describe(const Graph& g, const std::string& profile) {
  Runner runner(g, resolve_node_map(parse_node_map(profile, "profile"), g, "profile"));
  return runner.prepared(0).describe();
}

TEST(ModelElementwise, OptionsRoundTripThroughTflite) {
  for (OpKind op : {OpKind::kAdd, OpKind::kSub, OpKind::kMul}) {
    for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1}) {
      const Built m = build(op, DType::kInt8, {2, 3}, {3}, act, 0.05f, /*out_axis=*/1);
      const Graph back = read_tflite(write_tflite(m.graph), "round trip");
      ASSERT_EQ(back.nodes.size(), 1u);
      EXPECT_EQ(back.nodes[0].op, op);
      EXPECT_EQ(back.nodes[0].opts<ElementwiseOptions>().activation, act) << to_string(op);
      const TensorDef& y = back.tensors[static_cast<std::size_t>(back.outputs[0])];
      EXPECT_EQ(y.shape, (Shape{2, 3}));
      EXPECT_EQ(y.quant.scales.size(), 1u);
      EXPECT_EQ(y.quant.axis, 1u);  // quantized_dimension kept for a one-scale tensor
      // The same bits before and after the round trip.
      EXPECT_EQ(run(m.graph, m.inputs, "tflite-reference", Engine::kFast)[0].bytes,
                run(back, m.inputs, "tflite-reference", Engine::kFast)[0].bytes);
    }
  }
}

TEST(ModelElementwise, Checks) {
  // Mixed types.
  {
    GraphBuilder b("mixed");
    const int x1 = b.tensor("x1", DType::kInt8, {3}, GraphBuilder::per_tensor(0.1f, 0));
    const int x2 = b.tensor("x2", DType::kUint8, {3}, GraphBuilder::per_tensor(0.1f, 128));
    const int y = b.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(0.1f, 0));
    b.node(OpKind::kAdd, {x1, x2}, {y}, std::make_shared<ElementwiseOptions>());
    b.input(x1), b.input(x2), b.output(y);
    EXPECT_THROW(b.finish(), ToolError);
  }
  // Shapes that do not broadcast, and a declared output shape that differs.
  EXPECT_THROW(build(OpKind::kMul, DType::kInt8, {2, 3}, {2}), ToolError);
  {
    GraphBuilder b("declared");
    const int x1 = b.tensor("x1", DType::kInt8, {2, 3}, GraphBuilder::per_tensor(0.1f, 0));
    const int x2 = b.tensor("x2", DType::kInt8, {3}, GraphBuilder::per_tensor(0.1f, 0));
    const int y = b.tensor("y", DType::kInt8, {3, 2}, GraphBuilder::per_tensor(0.1f, 0));
    b.node(OpKind::kSub, {x1, x2}, {y}, std::make_shared<ElementwiseOptions>());
    b.input(x1), b.input(x2), b.output(y);
    EXPECT_THROW(b.finish(), ToolError);
  }
  // Per-axis (several scales) inputs are not ADD's.
  {
    GraphBuilder b("per-axis");
    const int x1 = b.tensor("x1", DType::kInt8, {2, 3}, GraphBuilder::per_axis({0.1f, 0.2f, 0.3f}, 1));
    const int x2 = b.tensor("x2", DType::kInt8, {3}, GraphBuilder::per_tensor(0.1f, 0));
    const int y = b.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(0.1f, 0));
    b.node(OpKind::kAdd, {x1, x2}, {y}, std::make_shared<ElementwiseOptions>());
    b.input(x1), b.input(x2), b.output(y);
    EXPECT_THROW(b.finish(), ToolError);
  }
  // Broadcasting of up to 6 dimensions; 7 is refused.
  EXPECT_NO_THROW(build(OpKind::kAdd, DType::kUint8, {2, 1, 3, 1, 2, 1}, {1, 2, 1, 3, 1, 2}));
  EXPECT_THROW(build(OpKind::kAdd, DType::kUint8, {1, 2, 1, 3, 1, 2, 1}, {2}), ToolError);
}

TEST(ModelElementwise, XnnpackDelegateRules) {
  const auto takes = [](const Built& m) { return op_of(m.graph.nodes[0].op).xnnpack_takes(m.graph, m.graph.nodes[0]); };
  EXPECT_TRUE(takes(build(OpKind::kAdd, DType::kInt8, {2, 3}, {3})));
  EXPECT_TRUE(takes(build(OpKind::kMul, DType::kUint8, {2, 3}, {3})));
  // One output scale along axis 1: declined (quantized_dimension != 0).
  EXPECT_FALSE(takes(build(OpKind::kAdd, DType::kInt8, {2, 3}, {3}, Activation::kNone, 0.05f, 1)));
  EXPECT_FALSE(takes(build(OpKind::kMul, DType::kInt8, {2, 3}, {3}, Activation::kNone, 0.05f, 1)));
  // ADD / SUB: s_i / so in [2^-10, 2^8). Inputs 0.03 and 0.02: 0.03 / so = 300 is refused, 250 is
  // taken; 0.02 / so just below 2^-10 is refused.
  EXPECT_FALSE(takes(build(OpKind::kSub, DType::kInt8, {3}, {3}, Activation::kNone, 0.03f / 300.0f)));
  EXPECT_TRUE(takes(build(OpKind::kSub, DType::kInt8, {3}, {3}, Activation::kNone, 0.03f / 250.0f)));
  EXPECT_FALSE(takes(build(OpKind::kAdd, DType::kInt8, {3}, {3}, Activation::kNone, 0.0201f * 1024.0f)));
  // MUL: s1 s2 / so in [2^-16, 2^8): s1 s2 = 0.0006.
  EXPECT_TRUE(takes(build(OpKind::kMul, DType::kInt8, {3}, {3}, Activation::kNone, 0.0006f * 60000.0f)));
  EXPECT_FALSE(takes(build(OpKind::kMul, DType::kInt8, {3}, {3}, Activation::kNone, 0.0006f * 70000.0f)));
  EXPECT_FALSE(takes(build(OpKind::kMul, DType::kInt8, {3}, {3}, Activation::kNone, 0.0006f / 300.0f)));
}

TEST(ModelElementwise, SystemsPickTheirArithmetic) {
  const Built add = build(OpKind::kAdd, DType::kInt8, {2, 3}, {3});
  const Built scalar_mul = build(OpKind::kMul, DType::kInt8, {2, 3}, {1});
  const Built sub_axis = build(OpKind::kSub, DType::kInt8, {2, 3}, {3}, Activation::kNone, 0.05f, 1);
  const struct {
    const Built* m;
    const char* profile;
    const char* arithmetic;
  } rows[] = {
      {&add, "tflite-reference", "tflite-double"},
      {&add, "tflite-single", "tflite-single"},
      {&add, "tosa-single", "tflite-single"},
      {&add, "gemmlowp", "tflite-double"},
      {&add, "cmsis-nn", "tflm-double"},
      {&add, "cmsis-nn-single", "tflm-single"},
      {&add, "ruy-x86", "tflite-double"},
      {&add, "ruy-arm", "tflite-neon"},
      {&scalar_mul, "ruy-arm", "tflite-neon-scalar-broadcast"},
      {&sub_axis, "ruy-arm", "tflite-double"},  // no NEON SUB
      {&add, "xnnpack-fp32", "xnnpack-x86"},
      {&add, "xnnpack-rndnu", "xnnpack-arm"},
      {&add, "npu-verisilicon", "npu-single-rounding"},
      {&add, "npu-hu-f24-int32", "npu-single-rounding"},
      {&add, "tflite-xnnpack-wasm", "xnnpack-wasm"},
      {&add, "tflite-xnnpack-arm", "xnnpack-arm"},
      {&sub_axis, "tflite-xnnpack-wasm", "tflite-double"},  // declined: TFLite's kernel
      {&add, "tflite-builtin-x86", "tflite-double"},
      {&add, "tflite-builtin-arm", "tflite-neon"},
  };
  for (const auto& r : rows) {
    const std::vector<std::string> lines = describe(r.m->graph, r.profile);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_NE(lines[0].find(std::string("[") + r.arithmetic + "]"), std::string::npos)
        << r.profile << ": " << lines[0];
  }
  const std::vector<std::string> f = describe(add.graph, "fbgemm");
  EXPECT_NE(f[0].find("float32 formula, UNVERIFIED"), std::string::npos) << f[0];
  // ONNX Runtime's preset: its own measured kernels (docs/semantics.md §22.2).
  const std::vector<std::string> o = describe(add.graph, "onnxruntime");
  EXPECT_NE(o[0].find("ONNX Runtime MlasQLinearAdd"), std::string::npos) << o[0];
  // uint8 under TFLite Micro's arithmetic is refused, naming the node and the system.
  const Built u8 = build(OpKind::kAdd, DType::kUint8, {3}, {3});
  EXPECT_THROW(describe(u8.graph, "cmsis-nn"), ToolError);
}

TEST(ModelElementwise, DescribeLinesDecideTheBits) {
  // TFLite's double build and TFLM's double build derive the same ADD parameters here: same lines
  // after the first, same bits; TFLite single and XNNPACK differ in both.
  const Built m = build(OpKind::kAdd, DType::kInt8, {64}, {64}, Activation::kNone, 0.05f, 0, 9);
  const auto lines = [&](const char* p) {
    std::vector<std::string> l = describe(m.graph, p);
    l.erase(l.begin());
    return l;
  };
  const auto bits = [&](const char* p) { return run(m.graph, m.inputs, p, Engine::kFast)[0].bytes; };
  EXPECT_EQ(lines("tflite-reference"), lines("gemmlowp"));
  EXPECT_EQ(bits("tflite-reference"), bits("gemmlowp"));
  EXPECT_NE(lines("tflite-reference"), lines("xnnpack-fp32"));
  EXPECT_EQ(lines("xnnpack-fp32"), lines("tflite-xnnpack-wasm"));  // x86 and wasm ADD are one formula
  EXPECT_EQ(bits("xnnpack-fp32"), bits("tflite-xnnpack-wasm"));
}

TEST(ModelElementwise, FastEngineEqualsReferenceEngine) {
  std::vector<std::string> profiles;
  for (const qparity::Preset& p : qparity::named_presets()) profiles.push_back(p.name);
  for (const Profile& p : runtime_profiles()) profiles.push_back(p.name);
  profiles.push_back("npu-tz-q31-int32");
  profiles.push_back("npu-fl-f24-int32");
  std::size_t compared = 0;
  for (OpKind op : {OpKind::kAdd, OpKind::kSub, OpKind::kMul}) {
    for (DType dt : {DType::kInt8, DType::kUint8}) {
      for (const auto& shapes : {std::pair<Shape, Shape>{{2, 5, 7}, {2, 5, 7}}, {{3, 1, 17}, {4, 1}}, {{1}, {6, 9}}}) {
        const Built m = build(op, dt, shapes.first, shapes.second, Activation::kRelu6, op == OpKind::kMul ? 0.01f : 0.05f,
                              0, static_cast<std::uint32_t>(compared + 1));
        for (const std::string& profile : profiles) {
          if (dt == DType::kUint8 && profile.rfind("cmsis-nn", 0) == 0) continue;  // TFLM: int8 only
          EXPECT_EQ(run(m.graph, m.inputs, profile, Engine::kFast)[0].bytes,
                    run(m.graph, m.inputs, profile, Engine::kReference)[0].bytes)
              << to_string(op) << " " << qparity::cli::to_string(dt) << " " << profile;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 300u);
}

}  // namespace
