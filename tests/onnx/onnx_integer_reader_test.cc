// The .onnx reader on MatMulInteger and ConvInteger: accumulate-only FULLY_CONNECTED / CONV_2D /
// DEPTHWISE_CONV_2D nodes (int32 output), their zero points (absent, per tensor, per column of B),
// the raw int32 results against a direct sum in ONNX's layout, the profiles' accumulators, and clear
// errors naming the node.
#include <gtest/gtest.h>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "model/system.h"
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
    EXPECT_NE(read_error(b).find(want), std::string::npos) << read_error(b);
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
    OnnxBuilder b = mmi_builder();  // a run-time B: an accumulate-only BATCH_MATMUL, its zero point per tensor
    b.input("b2", DType::kInt8, {6, 3});
    b.zero_points("z3", DType::kInt8, {1, 2, 3});
    b.node("MatMulInteger", {"a", "b2", "za", "z3"}, {"y"});
    expect(b, "node 0 (MatMulInteger 'y_node'): b_zero_point 'z3' has shape [3]; allowed: a scalar");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.input("b2", DType::kInt8, {6, 3});
    b.node("MatMulInteger", {"a", "b2", "za", "zb"}, {"y"});
    EXPECT_EQ(read_error(b), "(no error)");
    const qparity::model::Graph g = qparity::model::read_onnx(b.bytes(), "m.onnx");
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op, qparity::model::OpKind::kBatchMatMul);
  }
  {
    OnnxBuilder b;  // batch dimensions from both sides multiply past the bound (before any allocation)
    b.input("a", DType::kUint8, {65536, 1, 2, 1, 1});
    b.input("b2", DType::kInt8, {1, 65536, 1, 1, 1});
    b.output("y", DType::kInt32);
    b.node("MatMulInteger", {"a", "b2"}, {"y"});
    expect(b, "broadcast to more than 2^32 batches; allowed: at most 2^32");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::kUint8, {4, 0});
    b.input("b2", DType::kInt8, {0, 3});
    b.output("y", DType::kInt32);
    b.node("MatMulInteger", {"a", "b2"}, {"y"});
    expect(b, "have K = 0; allowed: K >= 1");
  }
  {
    OnnxBuilder b = mmi_builder();
    b.node("MatMulInteger", {"a", "b", "za", "zb"}, {"i"});
    b.node("Cast", {"i"}, {"y"});
    expect(b, "node 1 (Cast 'y_node'): qparity does not run Cast (the float part of a dynamic-quantized model)");
  }
}

// y[n][m][oy][ox] = sum over the group's channels and the window of (x - x_zp) * (w - w_zp), taps
// outside the image skipped, in int64 from the model's own initializer (ONNX's [M, C/group, kH, kW]).
std::vector<std::int64_t> direct_conv(const BuiltOnnx& m, const ConvIntegerSpec& s) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromArray(m.bytes.data(), static_cast<int>(m.bytes.size())));
  const std::string& raw = model.graph().initializer(0).raw_data();
  const auto w = [&](std::size_t i) -> std::int64_t {
    return s.w == DType::kInt8 ? static_cast<std::int8_t>(raw[i]) : static_cast<std::uint8_t>(raw[i]);
  };
  const Tensor& x = m.inputs[0];
  const std::int64_t xz = s.x_zero_point ? s.x_zp : 0, wz = s.w_zero_point ? s.w_zp : 0;
  const std::size_t cpg = s.c / s.group, mpg = s.m / s.group;
  const std::size_t ekh = (s.kh - 1) * s.dilation + 1, ekw = (s.kw - 1) * s.dilation + 1;
  const std::size_t oh = (s.h + static_cast<std::size_t>(s.pads[0] + s.pads[2]) - ekh) / s.stride + 1;
  const std::size_t ow = (s.wd + static_cast<std::size_t>(s.pads[1] + s.pads[3]) - ekw) / s.stride + 1;
  std::vector<std::int64_t> y;
  for (std::size_t b = 0; b < s.n; ++b) {
    for (std::size_t oc = 0; oc < s.m; ++oc) {
      for (std::size_t oy = 0; oy < oh; ++oy) {
        for (std::size_t ox = 0; ox < ow; ++ox) {
          std::int64_t acc = 0;
          for (std::size_t ci = 0; ci < cpg; ++ci) {
            for (std::size_t ky = 0; ky < s.kh; ++ky) {
              for (std::size_t kx = 0; kx < s.kw; ++kx) {
                const std::int64_t iy = static_cast<std::int64_t>(oy * s.stride + ky * s.dilation) - s.pads[0];
                const std::int64_t ix = static_cast<std::int64_t>(ox * s.stride + kx * s.dilation) - s.pads[1];
                if (iy < 0 || ix < 0 || iy >= static_cast<std::int64_t>(s.h) || ix >= static_cast<std::int64_t>(s.wd))
                  continue;
                const std::size_t c = oc / mpg * cpg + ci;
                const std::int64_t xv = x.integer_at(((b * s.c + c) * s.h + static_cast<std::size_t>(iy)) * s.wd +
                                                     static_cast<std::size_t>(ix));
                const std::int64_t wzc = s.w_per_channel ? wz + static_cast<std::int64_t>(oc % 5) - 2 : wz;
                acc += (xv - xz) * (w(((oc * cpg + ci) * s.kh + ky) * s.kw + kx) - wzc);
              }
            }
          }
          y.push_back(acc);
        }
      }
    }
  }
  return y;
}

// Plain, strided and dilated, grouped (with per-channel w_zero_point) and depthwise ConvInteger
// models of every type pair, with and without zero points: qparity's int32 NCHW output equals the
// direct sum under ort-cpu-vnni.
TEST(OnnxConvInteger, ResultsAreTheExactSumsInOnnxLayout) {
  std::uint64_t seed = 1;
  for (int shape = 0; shape < 4; ++shape) {
    for (DType x : {DType::kInt8, DType::kUint8}) {
      for (DType wt : {DType::kInt8, DType::kUint8}) {
        ConvIntegerSpec s;
        s.x = x;
        s.w = wt;
        s.x_zp = x == DType::kUint8 ? 128 : -4;
        s.w_zp = wt == DType::kUint8 ? 120 : 3;
        s.x_zero_point = shape != 1;
        s.w_zero_point = shape != 1 && shape != 3;
        s.w_per_channel = shape == 2;  // grouped, one w_zero_point per output channel
        if (shape == 1) {
          s.stride = 2;
          s.dilation = 2;
          s.pads = {0, 2, 1, 0};
        } else if (shape == 2) {
          s.c = 6;
          s.group = 3;
        } else if (shape == 3) {
          s.c = 4;
          s.group = 4;
          s.m = 8;  // depthwise, multiplier 2
        }
        s.seed = seed++;
        const BuiltOnnx m = conv_integer_model(s);
        const Graph g = read_onnx(m.bytes, "ci.onnx");
        ASSERT_EQ(g.nodes.size(), 3u) << m.label;  // TRANSPOSE, the convolution, TRANSPOSE
        EXPECT_EQ(g.nodes[1].op, shape == 3 ? OpKind::kDepthwiseConv2D : OpKind::kConv2D) << m.label;
        qparity::model::Runner r(
            g, qparity::model::resolve_node_map(qparity::model::parse_node_map("ort-cpu-vnni", "p"), g, "p"));
        r.run(m.inputs);
        const Tensor y = r.outputs()[0];
        EXPECT_EQ(y.dtype, DType::kInt32);
        const std::vector<std::int64_t> want = direct_conv(m, s);
        ASSERT_EQ(y.elements(), want.size()) << m.label;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < want.size(); ++i) bad += y.integer_at(i) != want[i];
        EXPECT_EQ(bad, 0u) << m.label << ": " << bad << " of " << want.size() << " elements wrong";
      }
    }
  }
}

TEST(OnnxConvInteger, MalformedNodesNameTheNode) {
  const auto expect = [](const OnnxBuilder& b, const std::string& want) {
    EXPECT_NE(read_error(b).find(want), std::string::npos) << read_error(b);
  };
  const auto builder = [] {
    OnnxBuilder b;
    b.input("x", DType::kUint8, {1, 2, 4, 4});
    b.output("y", DType::kInt32);
    b.initializer("w", qparity::cli::make_tensor(DType::kUint8, {3, 2, 3, 3}));
    return b;
  };
  {
    OnnxBuilder b = builder();
    b.node("ConvInteger", {"x"}, {"y"});
    expect(b, "node 0 (ConvInteger 'y_node'): 1 inputs; allowed: 2 to 4");
  }
  {
    OnnxBuilder b = builder();
    b.zero_points("zs", DType::kInt8, {0});
    b.node("ConvInteger", {"x", "w", "zs"}, {"y"});
    expect(b, "node 0 (ConvInteger 'y_node'): input 'x' is uint8, its zero point int8; allowed: the same type");
  }
  {
    OnnxBuilder b = builder();
    OnnxBuilder::int_attr(b.node("ConvInteger", {"x", "w"}, {"y"}), "group", 2);
    expect(b, "node 0 (ConvInteger 'y_node'): group 2 does not fit");
  }
}

}  // namespace
}  // namespace qparity_test
