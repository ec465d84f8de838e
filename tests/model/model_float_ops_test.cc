// The model layer's float ops under the float precisions (docs/semantics.md §24), without a
// runtime: a float graph (CONV_2D RELU6 -> DEPTHWISE_CONV_2D -> ADD with a broadcast constant ->
// MUL -> AVERAGE_POOL_2D -> MAX_POOL_2D -> RELU -> RESHAPE -> FULLY_CONNECTED; MEAN apart) runs under every
// precision; each op's output equals the same step computed here from the run's own inputs with
// the header's reference (conv-like ops) or with the stated formula (round_to over the element-wise
// and pooling steps); under fp32 nothing is rounded to a narrower format; the .tflite writer and
// reader keep the graph; a float classifier's FULLY_CONNECTED -> SOFTMAX, read back from the
// .tflite writer's bytes, runs reference::float_softmax on the run's own logits; a float16-weight
// model (TFLite's fp16 quantization: FLOAT16 constants, DEQUANTIZE to FLOAT32) read back from the
// writer's bytes runs under every precision as the same model with the float32 weights, while an
// int8 DEQUANTIZE keeps its integer form; and a float precision on a quantized node, an integer preset on a float
// node, and an op without a float form under a float precision are errors naming what is allowed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "model/graph_builder.h"
#include "model/node_map.h"
#include "model/op.h"
#include "model/ops/conv_common.h"
#include "model/ops/elementwise.h"
#include "model/ops/mean.h"
#include "model/ops/pool2d.h"
#include "model/ops/data_ops.h"
#include "model/runner.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "qparity/float_formats.h"
#include "qparity/float_precision.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::FloatFormat;
using qparity::round_to;
using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;

Tensor random_floats(std::mt19937& rng, std::vector<std::size_t> shape, float scale) {
  Tensor t = qparity::cli::make_tensor(DType::kFloat32, std::move(shape));
  std::uniform_real_distribution<float> d(-scale, scale);
  for (std::size_t i = 0; i < t.elements(); ++i) {
    const float v = d(rng);
    std::memcpy(t.bytes.data() + 4 * i, &v, 4);
  }
  return t;
}

std::vector<float> floats_of(const Tensor& t) {
  std::vector<float> v(t.elements());
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

struct FloatGraph {
  Graph graph;
  int input = 0, conv = 0, dw = 0, add = 0, mul = 0, avg = 0, max = 0, relu = 0, flat = 0, fc = 0;
  int conv_w = 0, conv_b = 0, dw_w = 0, add_c = 0, fc_w = 0;
};

FloatGraph float_graph() {
  std::mt19937 rng(3);
  FloatGraph f;
  GraphBuilder b("float graph");
  f.input = b.tensor("x", DType::kFloat32, {1, 8, 8, 3});
  b.input(f.input);
  f.conv_w = b.constant("conv/w", random_floats(rng, {6, 3, 3, 3}, 0.5f));
  f.conv_b = b.constant("conv/b", random_floats(rng, {6}, 0.5f));
  f.conv = b.tensor("conv", DType::kFloat32, {});
  auto co = std::make_shared<Conv2DOptions>();
  co->window.padding = qparity::Padding::kSame;
  co->activation = qparity::Activation::kRelu6;
  b.node(OpKind::kConv2D, {f.input, f.conv_w, f.conv_b}, {f.conv}, co, "conv");
  f.dw_w = b.constant("dw/w", random_floats(rng, {1, 3, 3, 6}, 0.5f));
  f.dw = b.tensor("dw", DType::kFloat32, {});
  auto dwo = std::make_shared<DepthwiseConv2DOptions>();
  dwo->window.padding = qparity::Padding::kSame;
  dwo->window.stride_h = dwo->window.stride_w = 2;
  b.node(OpKind::kDepthwiseConv2D, {f.conv, f.dw_w}, {f.dw}, dwo, "dw");
  f.add_c = b.constant("add/c", random_floats(rng, {6}, 1.0f));
  f.add = b.tensor("add", DType::kFloat32, {});
  b.node(OpKind::kAdd, {f.dw, f.add_c}, {f.add}, std::make_shared<ElementwiseOptions>(), "add");
  f.mul = b.tensor("mul", DType::kFloat32, {});
  b.node(OpKind::kMul, {f.add, f.dw}, {f.mul}, std::make_shared<ElementwiseOptions>(), "mul");
  auto po = std::make_shared<Pool2DOptions>();
  po->window.filter_h = po->window.filter_w = 3;
  po->window.padding = qparity::Padding::kSame;
  f.avg = b.tensor("avg", DType::kFloat32, {});
  b.node(OpKind::kAveragePool2D, {f.mul}, {f.avg}, po, "avg");
  f.max = b.tensor("max", DType::kFloat32, {});
  b.node(OpKind::kMaxPool2D, {f.avg}, {f.max}, po, "max");
  f.relu = b.tensor("relu", DType::kFloat32, {});
  b.node(OpKind::kRelu, {f.max}, {f.relu}, nullptr, "relu");
  Tensor shape = qparity::cli::make_tensor(DType::kInt32, {2});
  shape.set_integer(0, 1);
  shape.set_integer(1, 4 * 4 * 6);
  const int s = b.constant("flat/shape", shape);
  f.flat = b.tensor("flat", DType::kFloat32, {});
  b.node(OpKind::kReshape, {f.relu, s}, {f.flat}, nullptr, "flat");
  f.fc_w = b.constant("fc/w", random_floats(rng, {5, 96}, 0.3f));
  f.fc = b.tensor("fc", DType::kFloat32, {});
  b.node(OpKind::kFullyConnected, {f.flat, f.fc_w}, {f.fc}, std::make_shared<FullyConnectedOptions>(), "fc");
  b.output(f.fc);
  f.graph = b.finish();
  return f;
}

void expect_bits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << what;
}

TEST(ModelFloatOps, EveryOpIsItsStatedStep) {
  FloatGraph f = float_graph();
  std::mt19937 rng(4);
  const Tensor input = random_floats(rng, {1, 8, 8, 3}, 2.0f);
  std::vector<float> fp32_out;
  for (const qparity::FloatPrecision& p : qparity::float_precisions()) {
    Runner r(f.graph, resolve_node_map(parse_node_map(p.name, "--a"), f.graph, "--a"));
    r.run({input});
    const FloatFormat st = p.storage;
    auto v = [&](int t) { return floats_of(r.value(t)); };
    // CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: the header's reference on the op's inputs.
    qparity::Conv2DGeometry cg;
    cg.in_h = cg.in_w = 8;
    cg.in_channels = 3;
    cg.out_channels = 6;
    cg.window.kernel_h = cg.window.kernel_w = 3;
    cg.window.padding = qparity::Padding::kSame;
    std::vector<float> want(8 * 8 * 6);
    qparity::reference::float_conv2d(cg, p, v(f.input).data(), v(f.conv_w).data(), v(f.conv_b).data(),
                                     qparity::FloatClamp{0.0f, 6.0f}, want.data());
    expect_bits(v(f.conv), want, p.name + " conv");
    qparity::DepthwiseConv2DGeometry dg;
    dg.in_h = dg.in_w = 8;
    dg.in_channels = 6;
    dg.window.kernel_h = dg.window.kernel_w = 3;
    dg.window.stride_h = dg.window.stride_w = 2;
    dg.window.padding = qparity::Padding::kSame;
    want.assign(4 * 4 * 6, 0.0f);
    qparity::reference::float_depthwise_conv2d(dg, p, v(f.conv).data(), v(f.dw_w).data(), nullptr,
                                               qparity::FloatClamp{}, want.data());
    expect_bits(v(f.dw), want, p.name + " depthwise");
    // ADD (a [6] constant broadcast over [1, 4, 4, 6]) and MUL: one float32 operation, stored.
    const std::vector<float> dw = v(f.dw), c = v(f.add_c), add = v(f.add), mul = v(f.mul);
    for (std::size_t i = 0; i < dw.size(); ++i) {
      ASSERT_EQ(add[i], round_to(st, round_to(st, dw[i]) + round_to(st, c[i % 6]))) << p.name << " add " << i;
      ASSERT_EQ(mul[i], round_to(st, add[i] * round_to(st, dw[i]))) << p.name << " mul " << i;
    }
    // AVERAGE_POOL_2D 3x3 SAME, stride 1, at an interior and a corner position; MAX_POOL_2D; RELU.
    const std::vector<float> avg = v(f.avg), max = v(f.max), relu = v(f.relu);
    for (std::size_t ch = 0; ch < 6; ++ch) {
      float acc = 0.0f;  // interior (1, 1): taps (0..2, 0..2) in (ky, kx) order
      for (std::size_t y = 0; y < 3; ++y)
        for (std::size_t x = 0; x < 3; ++x) acc = round_to(p.accumulator, acc + mul[(y * 4 + x) * 6 + ch]);
      EXPECT_EQ(avg[(1 * 4 + 1) * 6 + ch], round_to(st, round_to(p.accumulator, acc / 9.0f))) << p.name;
      acc = 0.0f;  // corner (0, 0): 4 in-image taps, padding not counted
      for (std::size_t y = 0; y < 2; ++y)
        for (std::size_t x = 0; x < 2; ++x) acc = round_to(p.accumulator, acc + mul[(y * 4 + x) * 6 + ch]);
      EXPECT_EQ(avg[ch], round_to(st, round_to(p.accumulator, acc / 4.0f))) << p.name;
      float m = -INFINITY;
      for (std::size_t y = 0; y < 3; ++y)
        for (std::size_t x = 0; x < 3; ++x) m = std::max(m, avg[(y * 4 + x) * 6 + ch]);
      EXPECT_EQ(max[(1 * 4 + 1) * 6 + ch], m) << p.name;
    }
    for (std::size_t i = 0; i < max.size(); ++i) ASSERT_EQ(relu[i], std::max(max[i], 0.0f)) << p.name;
    expect_bits(v(f.flat), relu, p.name + " reshape");  // data movement: a copy
    want.assign(5, 0.0f);
    qparity::reference::float_fully_connected(1, 96, 5, p, v(f.flat).data(), v(f.fc_w).data(), nullptr,
                                              qparity::FloatClamp{}, want.data());
    expect_bits(v(f.fc), want, p.name + " fully_connected");
    // Every stored value is in the storage format.
    for (float x : v(f.fc)) EXPECT_EQ(x, round_to(st, x)) << p.name;
    if (p.name == "fp32") {
      fp32_out = v(f.fc);
    } else {
      EXPECT_NE(v(f.fc), fp32_out) << p.name << " computes like fp32 on this graph";
    }
  }
}

TEST(ModelFloatOps, MeanSumsInRowMajorOrderThenDivides) {
  // MEAN over H, W (MobileNet's global average pool) and over C, keep_dims false.
  std::mt19937 rng(8);
  const Tensor input = random_floats(rng, {2, 3, 5, 4}, 3.0f);
  const std::vector<float> x = floats_of(input);
  for (const bool hw : {true, false}) {
    GraphBuilder b("mean");
    const int in = b.tensor("x", DType::kFloat32, {2, 3, 5, 4});
    b.input(in);
    Tensor axes = qparity::cli::make_tensor(DType::kInt32, {hw ? 2u : 1u});
    axes.set_integer(0, hw ? 1 : -1);
    if (hw) axes.set_integer(1, 2);
    const int a = b.constant("axes", axes);
    const int y = b.tensor("y", DType::kFloat32, {});
    b.node(OpKind::kMean, {in, a}, {y}, std::make_shared<ReducerOptions>(), "mean");
    b.output(y);
    const Graph g = b.finish();
    for (const qparity::FloatPrecision& p : qparity::float_precisions()) {
      Runner r(g, resolve_node_map(parse_node_map(p.name, "--a"), g, "--a"));
      r.run({input});
      const std::vector<float> got = floats_of(r.value(y));
      std::vector<float> want;
      for (std::size_t n = 0; n < 2; ++n) {
        if (hw) {
          for (std::size_t c = 0; c < 4; ++c) {
            float acc = 0.0f;
            for (std::size_t i = 0; i < 15; ++i) acc = round_to(p.accumulator, acc + round_to(p.storage, x[(n * 15 + i) * 4 + c]));
            want.push_back(round_to(p.storage, round_to(p.accumulator, acc / 15.0f)));
          }
        } else {
          for (std::size_t i = 0; i < 15; ++i) {
            float acc = 0.0f;
            for (std::size_t c = 0; c < 4; ++c) acc = round_to(p.accumulator, acc + round_to(p.storage, x[(n * 15 + i) * 4 + c]));
            want.push_back(round_to(p.storage, round_to(p.accumulator, acc / 4.0f)));
          }
        }
      }
      expect_bits(got, want, p.name + (hw ? " mean H,W" : " mean C"));
    }
  }
}

TEST(ModelFloatOps, TfliteRoundTripKeepsTheFloatGraph) {
  FloatGraph f = float_graph();
  const std::vector<std::uint8_t> bytes = write_tflite(f.graph);
  Graph back = read_tflite(bytes, "float.tflite");
  std::mt19937 rng(6);
  const Tensor input = random_floats(rng, {1, 8, 8, 3}, 2.0f);
  Runner a(f.graph, resolve_node_map(parse_node_map("fp16-acc16", "--a"), f.graph, "--a"));
  Runner b(back, resolve_node_map(parse_node_map("fp16-acc16", "--a"), back, "--a"));
  a.run({input});
  b.run({input});
  EXPECT_EQ(a.outputs()[0].bytes, b.outputs()[0].bytes);
}

std::string error_of(const Graph& g, const std::string& map) {
  try {
    Runner r(g, resolve_node_map(parse_node_map(map, "--a"), g, "--a"));
  } catch (const ToolError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelFloatOps, SoftmaxEndsAFloatClassifier) {
  // FULLY_CONNECTED 64 -> 10 then SOFTMAX (beta 1), and a second SOFTMAX with beta 0.5 on the
  // logits, written as a .tflite and read back.
  std::mt19937 rng(9);
  GraphBuilder b("classifier");
  const int x = b.tensor("x", DType::kFloat32, {2, 64});
  b.input(x);
  const int w = b.constant("fc/w", random_floats(rng, {10, 64}, 0.4f));
  const int logits = b.tensor("logits", DType::kFloat32, {});
  b.node(OpKind::kFullyConnected, {x, w}, {logits}, std::make_shared<FullyConnectedOptions>(), "fc");
  int probs[2] = {0, 0};
  const float betas[2] = {1.0f, 0.5f};
  for (int k = 0; k < 2; ++k) {
    auto o = std::make_shared<SoftmaxOptions>();
    o->beta = betas[k];
    probs[k] = b.tensor(k == 0 ? "probs" : "probs_half", DType::kFloat32, {});
    b.node(OpKind::kSoftmax, {logits}, {probs[k]}, o, k == 0 ? "softmax" : "softmax_half");
    b.output(probs[k]);
  }
  const Graph built = b.finish();
  const Graph g = read_tflite(write_tflite(built), "classifier.tflite");
  const Tensor input = random_floats(rng, {2, 64}, 3.0f);
  std::vector<float> fp32_probs;
  for (const qparity::FloatPrecision& p : qparity::float_precisions()) {
    Runner r(g, resolve_node_map(parse_node_map(p.name, "--a"), g, "--a"));
    r.run({input});
    const std::vector<float> z = floats_of(r.value(logits));
    for (int k = 0; k < 2; ++k) {
      std::vector<float> want(20);
      qparity::reference::float_softmax(2, 10, betas[k], p, z.data(), want.data());
      expect_bits(floats_of(r.value(probs[k])), want, p.name + " softmax beta " + std::to_string(betas[k]));
    }
    const std::vector<float> y = floats_of(r.value(probs[0]));
    for (std::size_t row = 0; row < 2; ++row) {
      float sum = 0.0f;
      for (std::size_t j = 0; j < 10; ++j) sum += y[row * 10 + j];
      EXPECT_NEAR(sum, 1.0f, 0.02f) << p.name;  // probabilities, to the storage format's precision
    }
    if (p.name == "fp32") {
      fp32_probs = y;
    } else {
      EXPECT_NE(y, fp32_probs) << p.name << " computes like fp32";
    }
  }
  // The node is named by its output after the .tflite round trip.
  const std::string integer = error_of(g, "fp32,softmax=tflite-reference");
  EXPECT_NE(integer.find("(SOFTMAX 'probs') computes on float32 tensors"), std::string::npos) << integer;
}

Tensor float16_of(const Tensor& f32) {
  Tensor t = qparity::cli::make_tensor(DType::kFloat16, f32.shape);
  const std::vector<float> v = floats_of(f32);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint16_t h = qparity::float_to_float16(v[i]);
    std::memcpy(t.bytes.data() + 2 * i, &h, 2);
  }
  return t;
}

Tensor float32_of(const Tensor& f16) {
  Tensor t = qparity::cli::make_tensor(DType::kFloat32, f16.shape);
  for (std::size_t i = 0; i < f16.elements(); ++i) {
    std::uint16_t h;
    std::memcpy(&h, f16.bytes.data() + 2 * i, 2);
    const float f = qparity::float16_to_float(h);
    std::memcpy(t.bytes.data() + 4 * i, &f, 4);
  }
  return t;
}

TEST(ModelFloatOps, Float16WeightsThroughDequantizeRunLikeTheirFloat32Values) {
  // CONV_2D whose filter and bias are FLOAT16 constants, each DEQUANTIZEd to FLOAT32, written by
  // the .tflite writer and read back; the same conv with the float32 values of those weights.
  std::mt19937 rng(12);
  const Tensor w16 = float16_of(random_floats(rng, {8, 3, 3, 4}, 0.5f));
  const Tensor b16 = float16_of(random_floats(rng, {8}, 0.5f));
  auto conv_graph = [&](bool fp16_weights, int* dq_out) {
    GraphBuilder b(fp16_weights ? "fp16 weights" : "fp32 weights");
    const int x = b.tensor("x", DType::kFloat32, {1, 6, 6, 4});
    b.input(x);
    int w = 0, bias = 0;
    if (fp16_weights) {
      const int wh = b.constant("w_fp16", w16), bh = b.constant("b_fp16", b16);
      w = b.tensor("w", DType::kFloat32, {});
      bias = b.tensor("b", DType::kFloat32, {});
      b.node(OpKind::kDequantize, {wh}, {w}, nullptr, "dequantize_w");
      b.node(OpKind::kDequantize, {bh}, {bias}, nullptr, "dequantize_b");
      *dq_out = w;
    } else {
      w = b.constant("w", float32_of(w16));
      bias = b.constant("b", float32_of(b16));
    }
    const int y = b.tensor("y", DType::kFloat32, {});
    auto co = std::make_shared<Conv2DOptions>();
    co->window.padding = qparity::Padding::kSame;
    b.node(OpKind::kConv2D, {x, w, bias}, {y}, co, "conv");
    b.output(y);
    return b.finish();
  };
  int dq = 0, unused = 0;
  const Graph g16 = read_tflite(write_tflite(conv_graph(true, &dq)), "fp16_weights.tflite");
  const Graph g32 = conv_graph(false, &unused);
  ASSERT_EQ(g16.tensors[static_cast<std::size_t>(g16.nodes[0].inputs[0])].dtype, DType::kFloat16);
  const Tensor input = random_floats(rng, {1, 6, 6, 4}, 2.0f);
  for (const qparity::FloatPrecision& p : qparity::float_precisions()) {
    Runner a(g16, resolve_node_map(parse_node_map(p.name, "--a"), g16, "--a"));
    Runner b(g32, resolve_node_map(parse_node_map(p.name, "--a"), g32, "--a"));
    a.run({input});
    b.run({input});
    expect_bits(floats_of(a.value(dq)), floats_of(float32_of(w16)), p.name + " dequantized filter");
    EXPECT_EQ(a.outputs()[0].bytes, b.outputs()[0].bytes) << p.name;
  }
  // A QUANTIZE -> int8 RELU -> DEQUANTIZE edge keeps its integer form: it runs under an integer
  // preset, and a float precision on the int8 DEQUANTIZE names its input type.
  GraphBuilder b("int8 edges");
  const int x = b.tensor("x", DType::kFloat32, {1, 8});
  b.input(x);
  const int q = b.tensor("q", DType::kInt8, {}, GraphBuilder::per_tensor(0.05f, 3));
  b.node(OpKind::kQuantize, {x}, {q}, nullptr, "quantize");
  const int r = b.tensor("r", DType::kInt8, {}, GraphBuilder::per_tensor(0.05f, 3));
  b.node(OpKind::kRelu, {q}, {r}, nullptr, "relu");
  const int y = b.tensor("y", DType::kFloat32, {});
  b.node(OpKind::kDequantize, {r}, {y}, nullptr, "dequantize");
  b.output(y);
  const Graph edges = read_tflite(write_tflite(b.finish()), "edges.tflite");
  Runner ok(edges, resolve_node_map(parse_node_map("tflite-reference", "--a"), edges, "--a"));
  const Tensor xin = random_floats(rng, {1, 8}, 1.0f);
  ok.run({xin});
  const std::vector<float> xs = floats_of(xin), ys = floats_of(ok.outputs()[0]);
  for (std::size_t i = 0; i < 8; ++i) {
    // QUANTIZE (TFLite reference: round half away of float(x / s)) + 3, RELU clamps at the zero point.
    const long qv = std::max(3L, std::min(127L, std::lround(xs[i] / 0.05f) + 3));
    EXPECT_EQ(ys[i], static_cast<float>(static_cast<double>(0.05f) * static_cast<double>(qv - 3))) << i;
  }
  // A FLOAT16 tensor that is not a constant (here a graph input) is refused by the reader.
  GraphBuilder h("fp16 input");
  const int xh = h.tensor("x_fp16", DType::kFloat16, {1, 4});
  h.input(xh);
  const int yh = h.tensor("y", DType::kFloat32, {});
  h.node(OpKind::kDequantize, {xh}, {yh}, nullptr, "dequantize");
  h.output(yh);
  try {
    read_tflite(write_tflite(h.finish()), "fp16_input.tflite");
    ADD_FAILURE() << "a non-constant FLOAT16 tensor was read";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("'x_fp16' is a FLOAT16 tensor without data; allowed: FLOAT16 for constant"),
              std::string::npos) << e.what();
  }
  const std::string err = error_of(edges, "tflite-reference,dequantize=fp16");
  EXPECT_NE(err.find("'fp16' is a float precision, for float32 tensors; this op's input is int8"), std::string::npos)
      << err;
}

TEST(ModelFloatOps, WrongSystemsAreErrorsNamingWhatIsAllowed) {
  FloatGraph f = float_graph();
  const std::string integer = error_of(f.graph, "tflite-reference");
  EXPECT_NE(integer.find("op 0 (CONV_2D 'conv') computes on float32 tensors"), std::string::npos) << integer;
  EXPECT_NE(integer.find("fp32, fp16, fp16-acc16, bf16"), std::string::npos) << integer;

  // A quantized graph: QUANTIZE (no float form) then an int8 RELU under fp16.
  GraphBuilder b("quantized graph");
  const int x = b.tensor("x", DType::kFloat32, {1, 4});
  b.input(x);
  const int q = b.tensor("q", DType::kInt8, {}, GraphBuilder::per_tensor(0.1f, 0));
  b.node(OpKind::kQuantize, {x}, {q}, nullptr, "quantize");
  const int y = b.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(0.1f, 0));
  b.node(OpKind::kRelu, {q}, {y}, nullptr, "relu");
  b.output(y);
  const Graph g = b.finish();
  const std::string none = error_of(g, "fp16");
  EXPECT_NE(none.find("'fp16' is a float precision and QUANTIZE has no float-precision form"), std::string::npos) << none;
  EXPECT_NE(none.find("CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED"), std::string::npos) << none;
  const std::string quantized = error_of(g, "tflite-reference,relu=bf16");
  EXPECT_NE(quantized.find("'bf16' is a float precision, for float32 tensors; this op's input is int8"),
            std::string::npos) << quantized;
  EXPECT_EQ(error_of(g, "tflite-reference"), "");
}

}  // namespace
