// The .onnx reader on MatMulInteger: an accumulate-only FULLY_CONNECTED (int32 output), its zero
// points (absent, per tensor, per column of B), the raw int32 results against a direct sum, the
// profiles' accumulators, and clear errors naming the node.
#include <gtest/gtest.h>

#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "model/system.h"
#include "onnx_builder.h"
#include "onnx_test_models.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;
using qparity::model::Graph;
using qparity::model::OpKind;
using qparity::model::read_onnx;

std::string error_of(const OnnxBuilder& b) {
  try {
    read_onnx(b.bytes(), "m.onnx");
  } catch (const ToolError& e) {
    return e.what();
  }
  return "(no error)";
}

Tensor run(const Graph& g, const Tensor& a, const char* profile) {
  qparity::model::Runner r(g, {qparity::model::find_profile(profile).pick(g, g.nodes[0])});
  r.run({a});
  return r.outputs()[0];
}

// y[r][j] = sum_k (a[r][k] - a_zp) * (b[k][j] - b_zp[j]) in int64 (exact), from the model's own bytes.
std::vector<std::int64_t> direct(const Graph& g, const Tensor& a, std::int64_t a_zp) {
  const auto& f = g.tensors[static_cast<std::size_t>(g.nodes[0].inputs[1])];  // (N, K): B transposed
  const std::size_t n = f.shape[0], k = f.shape[1], rows = a.elements() / k;
  std::vector<std::int64_t> y;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < n; ++j) {
      std::int64_t s = 0;
      for (std::size_t i = 0; i < k; ++i) {
        s += (a.integer_at(r * k + i) - a_zp) * (f.data->integer_at(j * k + i) - f.quant.zero_point(j));
      }
      y.push_back(s);
    }
  }
  return y;
}

TEST(OnnxMatMulInteger, ReadAsAccumulateOnlyFullyConnected) {
  MatMulIntegerSpec s;
  s.a_shape = {2, 3, 33};
  s.b_per_column = true;
  const BuiltOnnx m = matmul_integer_model(s);
  const Graph g = read_onnx(m.bytes, "mmi.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpKind::kFullyConnected);
  const auto& y = g.tensors[static_cast<std::size_t>(g.outputs[0])];
  EXPECT_EQ(y.dtype, DType::kInt32);
  EXPECT_EQ(y.shape, (std::vector<std::size_t>{2, 3, 8}));
  const auto& f = g.tensors[static_cast<std::size_t>(g.nodes[0].inputs[1])];
  EXPECT_EQ(f.shape, (std::vector<std::size_t>{8, 33}));
  ASSERT_EQ(f.quant.zero_points.size(), 8u);
  EXPECT_EQ(f.quant.zero_points[0], -5);
  EXPECT_EQ(f.quant.zero_points[3], -2);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.nodes[0].inputs[0])].quant.zero_point(), 3);
}

// Every combination of types and zero points: qparity's int32 results equal the direct sum (the
// data stay far from int32's range) under ort-cpu-vnni; ort-cpu-avx2 saturates u8 x s8 pairs.
TEST(OnnxMatMulInteger, ResultsAreTheExactSums) {
  std::uint64_t seed = 1;
  for (DType a : {DType::kInt8, DType::kUint8}) {
    for (DType b : {DType::kInt8, DType::kUint8}) {
      for (int zp = 0; zp < 4; ++zp) {
        MatMulIntegerSpec s;
        s.a = a;
        s.b = b;
        s.a_zero_point = zp == 1 || zp == 3;
        s.b_zero_point = zp >= 2;
        s.b_per_column = zp == 3;
        s.a_zp = a == DType::kUint8 ? 131 : -7;
        s.b_zp = b == DType::kUint8 ? 125 : 4;
        s.seed = seed++;
        const BuiltOnnx m = matmul_integer_model(s);
        const Graph g = read_onnx(m.bytes, "mmi.onnx");
        const std::vector<std::int64_t> want = direct(g, m.inputs[0], s.a_zero_point ? s.a_zp : 0);
        const Tensor y = run(g, m.inputs[0], "ort-cpu-vnni");
        ASSERT_EQ(y.elements(), want.size()) << m.label;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < want.size(); ++i) bad += y.integer_at(i) != want[i];
        EXPECT_EQ(bad, 0u) << m.label;
        const Tensor sat = run(g, m.inputs[0], "ort-cpu-avx2");
        std::size_t differ = 0;
        for (std::size_t i = 0; i < want.size(); ++i) differ += sat.integer_at(i) != want[i];
        // Full-range u8 x s8 data saturate some int16 pairs (255 * -128 * 2 < -32768); the other
        // type pairs accumulate exactly in ORT's MLAS on AVX2 too.
        if (a == DType::kUint8 && b == DType::kInt8) {
          EXPECT_GT(differ, 0u) << m.label;
        } else {
          EXPECT_EQ(differ, 0u) << m.label;
        }
      }
    }
  }
}

OnnxBuilder mmi_builder() {
  OnnxBuilder b;
  b.input("a", DType::kUint8, {4, 6});
  b.output("y", DType::kInt32);
  b.initializer("b", qparity::cli::make_tensor(DType::kInt8, {6, 3}));
  b.zero_points("za", DType::kUint8, {128});
  b.zero_points("zb", DType::kInt8, {1});
  return b;
}

TEST(OnnxMatMulInteger, MalformedNodesNameTheNode) {
  const auto expect = [](const OnnxBuilder& b, const std::string& want) {
    EXPECT_NE(error_of(b).find(want), std::string::npos) << error_of(b);
  };
  {
    OnnxBuilder b = mmi_builder();
    b.node("MatMulInteger", {"a"}, {"y"});
    expect(b, "node 0 (MatMulInteger 'y_node'): 1 inputs; allowed: 2 to 4");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.zero_points("zs", DType::kInt8, {0});
    b.node("MatMulInteger", {"a", "b", "zs", "zb"}, {"y"});
    expect(b, "node 0 (MatMulInteger 'y_node'): a_zero_point 'zs' is int8, A uint8; allowed: the same type");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.zero_points("zu", DType::kUint8, {0});
    b.node("MatMulInteger", {"a", "b", "", "zu"}, {"y"});
    expect(b, "node 0 (MatMulInteger 'y_node'): b_zero_point 'zu' is uint8, B int8; allowed: the same type");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.zero_points("z2", DType::kInt8, {1, 2});
    b.node("MatMulInteger", {"a", "b", "za", "z2"}, {"y"});
    expect(b, "b_zero_point 'z2' has shape [2]; allowed: a scalar or 3 values (per axis)");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.zero_points("z2", DType::kUint8, {1, 2});
    b.node("MatMulInteger", {"a", "b", "z2"}, {"y"});
    expect(b, "a_zero_point 'z2' has shape [2]; allowed: a scalar");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::kUint8, {4, 5});
    b.output("y", DType::kInt32);
    b.initializer("b", qparity::cli::make_tensor(DType::kInt8, {6, 3}));
    b.node("MatMulInteger", {"a", "b"}, {"y"});
    expect(b, "node 0 (MatMulInteger 'y_node'): A 'a' has shape [4, 5]; allowed: rank >= 2 with last dimension 6");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.input("b2", DType::kInt8, {6, 3});
    b.node("MatMulInteger", {"a", "b2"}, {"y"});
    expect(b, "node 0 (MatMulInteger 'y_node'): input 1 (B) 'b2' is not an initializer; allowed: a constant");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.node("MatMulInteger", {"a", "b", "za", "zb"}, {"i"});
    b.node("Cast", {"i"}, {"y"});
    expect(b, "node 1 (Cast 'y_node'): qparity does not run Cast (the float part of a dynamic-quantized model)");
  }
}

}  // namespace
}  // namespace qparity_test
