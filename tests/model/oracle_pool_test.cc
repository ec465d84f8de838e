// AVERAGE_POOL_2D, MAX_POOL_2D, MEAN, RELU and RELU6 in LiteRT.js (TFLite 2.x compiled to
// WebAssembly) against qparity's tflite-xnnpack-wasm profile, one LiteRT.js batch. Each case is
// written twice:
//   default     the model as is: XNNPACK's delegate takes MAX_POOL_2D and MEAN (when its rules
//               allow: strides no larger than the filter, no 1x1 filter with a stride > 1),
//               TFLite's own kernel runs AVERAGE_POOL_2D, RELU and RELU6;
//   per-axis    the op's output carries one-scale per-axis quantization (quantized_dimension = last
//               axis), which XNNPACK's delegate refuses and TFLite's kernels read as per-tensor: the
//               TFLite kernel path of MAX_POOL_2D and MEAN (tests/oracles/js/ops/README.md).
// The tally's path column is what qparity predicts for the node (Op::xnnpack_takes): "xnnpack" or
// "tflite-kernel". Cases: int8 and uint8, odd sizes 1 / 3 / 7 / 17, SAME windows partly outside
// the image, strides 1-4 (and strides larger than the window), every fused activation, zero points
// at both ends of the type, ties of both signs (even tap counts over full-range data, power-of-two
// scales, the RELU6 bound at scale 4 with an odd zero point), MEAN over H,W with and without
// keep_dims, negative axes and other axes (1-D, 2-D, 5-D), RELU / RELU6 on every stored value with
// equal and different input / output quantizations. Each case also counts the elements other
// arithmetics get wrong; every contrast row must have some (expect_contrasts_differ).
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "model/graph_builder.h"
#include "model/op.h"
#include "model/ops/conv_common.h"
#include "model/ops/mean.h"
#include "model/ops/pool2d.h"
#include "oracle_util.h"

namespace qparity_test {
namespace {

using namespace qparity::model;
using qparity::Activation;
using qparity::Padding;

constexpr const char* kProfile = "tflite-xnnpack-wasm";

struct Q {
  float scale;
  std::int64_t zp;
};

std::int64_t lo_of(DType d) { return d == DType::kUint8 ? 0 : -128; }
std::int64_t hi_of(DType d) { return d == DType::kUint8 ? 255 : 127; }

/// The output quantization of a path: per-tensor, or the same scale and zero point as one-scale
/// per-axis parameters along the last axis (rank >= 2).
Quantization out_quant(const Q& q, bool per_axis, std::size_t rank) {
  Quantization r = GraphBuilder::per_tensor(q.scale, q.zp);
  if (per_axis && rank >= 2) r.axis = rank - 1;
  return r;
}

/// "xnnpack" when qparity predicts XNNPACK's delegate takes the model's one node.
std::string predicted_path(const Graph& g) {
  const Node& n = g.nodes.at(0);
  return op_of(n.op).xnnpack_takes(g, n) ? "xnnpack" : "tflite-kernel";
}

// ---- AVERAGE_POOL_2D, MAX_POOL_2D ---------------------------------------------------------------

struct PoolGeometry {
  std::size_t n, h, w, c, fh, fw, sh, sw;
  Padding padding;
};

const PoolGeometry kPoolGeometries[] = {
    {1, 7, 7, 3, 3, 3, 2, 2, Padding::kSame},   {1, 17, 17, 5, 5, 5, 3, 3, Padding::kSame},
    {1, 3, 3, 1, 2, 2, 1, 1, Padding::kValid},  {1, 1, 1, 2, 1, 1, 1, 1, Padding::kValid},
    {2, 6, 5, 4, 2, 3, 2, 1, Padding::kSame},   {1, 8, 8, 17, 4, 4, 4, 4, Padding::kValid},
    {1, 7, 7, 33, 3, 3, 1, 1, Padding::kSame},  {1, 9, 9, 64, 3, 3, 2, 2, Padding::kSame},
    {1, 3, 17, 7, 2, 2, 2, 2, Padding::kSame},  {1, 17, 3, 16, 1, 1, 2, 2, Padding::kSame},
    {1, 7, 7, 8, 2, 2, 3, 3, Padding::kSame},
};

struct PoolQuant {
  Q q;
  Activation act;
};

std::vector<PoolQuant> pool_quants(DType d) {
  if (d == DType::kInt8) {
    return {{{0.25f, -128}, Activation::kNone}, {{0.25f, 127}, Activation::kRelu},
            {{4.0f, 1}, Activation::kRelu6},    {{0.5f, 1}, Activation::kRelu},
            {{2.0f, 0}, Activation::kReluN1To1}, {{0.1f, 5}, Activation::kNone}};
  }
  return {{{0.25f, 255}, Activation::kNone}, {{0.25f, 0}, Activation::kRelu}, {{4.0f, 3}, Activation::kRelu6},
          {{2.0f, 128}, Activation::kReluN1To1}, {{0.5f, 7}, Activation::kRelu6}};
}

OracleCase pool_case(std::mt19937& rng, OpKind op, const PoolGeometry& geo, DType d, const PoolQuant& pq,
                     bool per_axis, int index) {
  GraphBuilder b("oracle pool case");
  const int x = b.tensor("x", d, {geo.n, geo.h, geo.w, geo.c}, GraphBuilder::per_tensor(pq.q.scale, pq.q.zp));
  const int y = b.tensor("y", d, {}, out_quant(pq.q, per_axis, 4));
  auto o = std::make_shared<Pool2DOptions>();
  o->window.filter_h = geo.fh;
  o->window.filter_w = geo.fw;
  o->window.stride_h = geo.sh;
  o->window.stride_w = geo.sw;
  o->window.padding = geo.padding;
  o->activation = pq.act;
  b.node(op, {x}, {y}, o);
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  c.inputs.push_back(random_tensor(rng, d, {geo.n, geo.h, geo.w, geo.c}, lo_of(d), hi_of(d)));
  c.op = std::string(to_string(op)) + " " + qparity::cli::to_string(d);
  c.path = predicted_path(c.graph);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " " << geo.n << "x" << geo.h << "x" << geo.w << "x" << geo.c << " f"
        << geo.fh << "x" << geo.fw << " s" << geo.sh << "x" << geo.sw << " " << qparity::to_string(geo.padding)
        << " scale " << pq.q.scale << " zp " << pq.q.zp << " act " << activation_text(pq.act)
        << (per_axis ? " per-axis output" : "") << " path " << c.path;
  c.label = label.str();
  if (op == OpKind::kAveragePool2D) {
    c.contrasts = {"onnxruntime", "npu-verisilicon"};
  } else {
    c.contrasts = {c.path == "xnnpack" ? "tflite-builtin-wasm" : "xnnpack-fp32"};
  }
  return c;
}

// ---- MEAN ---------------------------------------------------------------------------------------

struct MeanShape {
  std::vector<std::size_t> shape;
  std::vector<int> axes;
  bool keep;
};

const MeanShape kMeanShapes[] = {
    {{1, 7, 7, 20}, {1, 2}, true},   {{1, 17, 17, 3}, {1, 2}, true},   {{2, 3, 3, 17}, {1, 2}, true},
    {{1, 1, 1, 5}, {1, 2}, true},    {{1, 4, 4, 16}, {2, 1}, true},    {{1, 2, 2, 33}, {-3, -2}, true},
    {{1, 6, 6, 7}, {1, 2}, false},   {{2, 5, 3, 7}, {3}, false},       {{1, 3, 7, 5}, {1}, true},
    {{4, 33}, {1}, true},            {{2, 4, 4, 3}, {0, 3}, false},    {{2, 3, 4, 5, 6}, {1, 3}, true},  {{1, 7, 7, 1280}, {1, 2}, true},  // MobileNet v2 global pool
};

std::vector<std::pair<Q, Q>> mean_quants(DType d) {
  // Output ranges chosen so that the means of full-range data do not saturate; equal power-of-two
  // quantizations put many means exactly on halves.
  if (d == DType::kInt8) {
    return {{{0.25f, -128}, {0.25f, -128}}, {{0.25f, 1}, {0.1f, 3}}, {{0.5f, 127}, {0.5f, 127}},
            {{0.125f, 0}, {0.3f, 0}}, {{0.0625f, -128}, {0.125f, -128}}};
  }
  return {{{0.25f, 128}, {0.25f, 128}}, {{0.5f, 0}, {0.75f, 0}}, {{0.25f, 255}, {0.25f, 255}},
          {{0.0625f, 255}, {0.0625f, 128}}};
}

/// TFLite's optimized H,W MEAN: keep_dims, 4-D, axes stored as 1 and 2 (negative values are not
/// normalised: {-3, -2} runs QuantizedMeanOrSum).
bool tflite_hw_case(const MeanShape& m) {
  if (!m.keep || m.shape.size() != 4 || m.axes.size() != 2) return false;
  return (m.axes[0] == 1 && m.axes[1] == 2) || (m.axes[0] == 2 && m.axes[1] == 1);
}

OracleCase mean_case(std::mt19937& rng, const MeanShape& m, DType d, const std::pair<Q, Q>& q, bool per_axis,
                     int index) {
  GraphBuilder b("oracle mean case");
  const int x = b.tensor("x", d, m.shape, GraphBuilder::per_tensor(q.first.scale, q.first.zp));
  Tensor axes = qparity::cli::make_tensor(DType::kInt32, {m.axes.size()});
  for (std::size_t i = 0; i < m.axes.size(); ++i) axes.set_integer(i, m.axes[i]);
  const int a = b.constant("axes", axes);
  std::size_t out_rank = m.shape.size();
  if (!m.keep) out_rank -= m.axes.size();
  const int y = b.tensor("y", d, {}, out_quant(q.second, per_axis, out_rank));
  auto o = std::make_shared<ReducerOptions>();
  o->keep_dims = m.keep;
  b.node(OpKind::kMean, {x, a}, {y}, o);
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  c.inputs.push_back(random_tensor(rng, d, m.shape, lo_of(d), hi_of(d)));
  c.op = std::string("MEAN ") + qparity::cli::to_string(d);
  c.path = predicted_path(c.graph);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " " << qparity::cli::shape_text(m.shape) << " axes";
  for (int ax : m.axes) label << " " << ax;
  label << (m.keep ? " keep_dims" : "") << " in (" << q.first.scale << ", " << q.first.zp << ") out ("
        << q.second.scale << ", " << q.second.zp << ")" << (per_axis ? " per-axis output" : "") << " path " << c.path;
  c.label = label.str();
  if (c.path == "xnnpack") {
    c.contrasts = {"tflite-builtin-wasm", "npu-verisilicon"};
  } else {
    c.contrasts = {"xnnpack-fp32"};
    if (tflite_hw_case(m)) c.contrasts.push_back("tflite-reference");  // optimized H,W vs QuantizedMeanOrSum
  }
  return c;
}

// ---- RELU, RELU6 --------------------------------------------------------------------------------

std::vector<std::pair<Q, Q>> relu_quants(DType d) {
  if (d == DType::kInt8) {
    return {{{4.0f, 1}, {4.0f, 1}}, {{0.5f, -128}, {0.5f, -128}}, {{1.0f, 0}, {4.0f, 0}},
            {{0.5f, 3}, {0.125f, -128}}, {{1.0f, 0}, {4.0f, -3}}};
  }
  return {{{1.0f, 128}, {4.0f, 3}}, {{0.25f, 0}, {0.25f, 0}}, {{1.0f, 127}, {4.0f, 0}}};
}

OracleCase relu_case(OpKind op, DType d, const std::pair<Q, Q>& q, bool per_axis, int index) {
  GraphBuilder b("oracle relu case");
  const int x = b.tensor("x", d, {2, 128}, GraphBuilder::per_tensor(q.first.scale, q.first.zp));
  const int y = b.tensor("y", d, {}, out_quant(q.second, per_axis, 2));
  b.node(op, {x}, {y});
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  Tensor all = qparity::cli::make_tensor(d, {2, 128});
  for (std::size_t i = 0; i < 256; ++i) all.set_integer(i, lo_of(d) + static_cast<std::int64_t>(i));  // every value
  c.inputs.push_back(all);
  c.op = std::string(to_string(op)) + " " + qparity::cli::to_string(d);
  c.path = predicted_path(c.graph);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " in (" << q.first.scale << ", " << q.first.zp << ") out ("
        << q.second.scale << ", " << q.second.zp << ")" << (per_axis ? " per-axis output" : "") << " path " << c.path;
  c.label = label.str();
  c.contrasts = {"tflite-single", "onnxruntime"};
  return c;
}

TEST(TfliteOracle, PoolingMeanReluBothPaths) {
  std::mt19937 rng(20261126);
  std::vector<OracleCase> cases;
  int index = 0;
  for (OpKind op : {OpKind::kAveragePool2D, OpKind::kMaxPool2D}) {
    for (bool per_axis : {false, true}) {
      for (DType d : {DType::kInt8, DType::kUint8}) {
        const std::vector<PoolQuant> quants = pool_quants(d);
        std::size_t g = 0;
        for (const PoolGeometry& geo : kPoolGeometries) {
          for (std::size_t k = 0; k < 2; ++k) {
            cases.push_back(pool_case(rng, op, geo, d, quants[(2 * g + k) % quants.size()], per_axis, index++));
          }
          ++g;
        }
      }
    }
  }
  for (bool per_axis : {false, true}) {
    for (DType d : {DType::kInt8, DType::kUint8}) {
      const auto quants = mean_quants(d);
      std::size_t i = 0;
      for (const MeanShape& m : kMeanShapes) {
        // The per-axis trick needs an output of rank >= 2.
        const std::size_t out_rank = m.keep ? m.shape.size() : m.shape.size() - m.axes.size();
        if (per_axis && out_rank < 2) continue;
        cases.push_back(mean_case(rng, m, d, quants[i++ % quants.size()], per_axis, index++));
      }
    }
  }
  for (OpKind op : {OpKind::kRelu, OpKind::kRelu6}) {
    for (bool per_axis : {false, true}) {
      for (DType d : {DType::kInt8, DType::kUint8}) {
        for (const auto& q : relu_quants(d)) cases.push_back(relu_case(op, d, q, per_axis, index++));
      }
    }
  }
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 20000u);
  expect_contrasts_differ(cases);
}

}  // namespace
}  // namespace qparity_test
