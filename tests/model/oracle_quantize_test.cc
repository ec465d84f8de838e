// QUANTIZE (float32 -> int8 / uint8, int8 -> int8, uint8 -> uint8, int8 <-> uint8) and DEQUANTIZE in
// LiteRT.js against qparity's tflite-xnnpack-wasm profile, one LiteRT.js batch, each case written
// twice:
//   default     rank 1 / 2 tensors: XNNPACK's delegate takes QUANTIZE from float32 and between two
//               tensors of the same 8-bit type, and DEQUANTIZE; TFLite's kernel runs int8 <-> uint8;
//   rank 7      the same values as [1, 1, 1, 1, 1, 1, N]: XNNPACK takes at most 6 dimensions, so
//               TFLite's own kernels run (one-scale per-axis tensors do not do it for these ops,
//               tests/oracles/js/ops/README.md).
// The tally's path column is what qparity predicts (Op::xnnpack_takes). Cases: float inputs exactly
// on ties of both signs ((k + 1/2) * s), off the grid, where float and double division part
// (s = 0.1, 6/255), saturating values and +-1e6, zero points at both ends of both types; 8-bit
// inputs take every stored value, at ratios 1/2, 1/4 (ties) and 1/3 (XNNPACK's 8-bit multiplier),
// the int8 <-> uint8 "zero points 128 apart" case. Contrasts: the other path's arithmetic and the
// other rounding build / float division; every contrast row must differ somewhere
// (expect_contrasts_differ). DEQUANTIZE has none: every system computes the same float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "model/graph_builder.h"
#include "model/op.h"
#include "oracle_util.h"

namespace qparity_test {
namespace {

using namespace qparity::model;

constexpr const char* kProfile = "tflite-xnnpack-wasm";

struct Q {
  float scale;
  std::int64_t zp;
};

std::int64_t lo_of(DType d) { return d == DType::kUint8 ? 0 : -128; }

std::string predicted_path(const Graph& g) {
  const Node& n = g.nodes.at(0);
  return op_of(n.op).xnnpack_takes(g, n) ? "xnnpack" : "tflite-kernel";
}

std::vector<std::size_t> shape_of(std::size_t count, bool rank7) {
  return rank7 ? std::vector<std::size_t>{1, 1, 1, 1, 1, 1, count} : std::vector<std::size_t>{count};
}

/// Float values around the quantization grid of scale s.
std::vector<float> float_values(float s) {
  std::vector<float> v;
  for (int k = -300; k <= 300; ++k) {
    v.push_back(static_cast<float>(k + 0.5) * s);  // ties of both signs
    v.push_back(static_cast<float>(k) * s * 0.37f);
  }
  for (int k = -1300; k <= 1300; k += 7) v.push_back(static_cast<float>(k) * 0.01f);
  for (float x : {0.0f, -0.0f, 1e6f, -1e6f, 254.5f * s, -254.5f * s, 127.5f * s, -128.5f * s}) v.push_back(x);
  return v;
}

OracleCase quantize_float_case(DType out, const Q& q, bool rank7, int index) {
  const std::vector<float> values = float_values(q.scale);
  const std::vector<std::size_t> shape = shape_of(values.size(), rank7);
  GraphBuilder b("oracle quantize case");
  const int x = b.tensor("x", DType::kFloat32, shape);
  const int y = b.tensor("y", out, {}, GraphBuilder::per_tensor(q.scale, q.zp));
  b.node(OpKind::kQuantize, {x}, {y});
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  Tensor t = qparity::cli::make_tensor(DType::kFloat32, shape);
  std::memcpy(t.bytes.data(), values.data(), values.size() * sizeof(float));
  c.inputs.push_back(t);
  c.op = std::string("QUANTIZE f32->") + qparity::cli::to_string(out);
  c.path = predicted_path(c.graph);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " scale " << q.scale << " zp " << q.zp << (rank7 ? " rank 7" : "")
        << " path " << c.path;
  c.label = label.str();
  c.contrasts = c.path == "xnnpack" ? std::vector<std::string>{"tflite-builtin-wasm", "tflite-reference"}
                                    : std::vector<std::string>{"xnnpack-fp32", "tflite-reference"};
  return c;
}

OracleCase requantize_case(DType in, DType out, const Q& qi, const Q& qo, bool rank7, int index) {
  const std::vector<std::size_t> shape = shape_of(256, rank7);
  GraphBuilder b("oracle requantize case");
  const int x = b.tensor("x", in, shape, GraphBuilder::per_tensor(qi.scale, qi.zp));
  const int y = b.tensor("y", out, {}, GraphBuilder::per_tensor(qo.scale, qo.zp));
  b.node(OpKind::kQuantize, {x}, {y});
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  Tensor t = qparity::cli::make_tensor(in, shape);
  for (std::size_t i = 0; i < 256; ++i) t.set_integer(i, lo_of(in) + static_cast<std::int64_t>(i));  // every value
  c.inputs.push_back(t);
  c.op = std::string("QUANTIZE ") + qparity::cli::to_string(in) + "->" + qparity::cli::to_string(out);
  c.path = predicted_path(c.graph);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " in (" << qi.scale << ", " << qi.zp << ") out (" << qo.scale << ", "
        << qo.zp << ")" << (rank7 ? " rank 7" : "") << " path " << c.path;
  c.label = label.str();
  if (in != out) {
    c.contrasts = {"tflite-single", "onnxruntime"};
  } else {
    c.contrasts = c.path == "xnnpack" ? std::vector<std::string>{"tflite-builtin-wasm"}
                                      : std::vector<std::string>{"xnnpack-fp32", "tflite-single"};
  }
  return c;
}

OracleCase dequantize_case(DType in, const Q& q, bool rank7, int index) {
  const std::vector<std::size_t> shape = shape_of(256, rank7);
  GraphBuilder b("oracle dequantize case");
  const int x = b.tensor("x", in, shape, GraphBuilder::per_tensor(q.scale, q.zp));
  const int y = b.tensor("y", DType::kFloat32, {});
  b.node(OpKind::kDequantize, {x}, {y});
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  Tensor t = qparity::cli::make_tensor(in, shape);
  for (std::size_t i = 0; i < 256; ++i) t.set_integer(i, lo_of(in) + static_cast<std::int64_t>(i));
  c.inputs.push_back(t);
  c.op = std::string("DEQUANTIZE ") + qparity::cli::to_string(in);
  c.path = predicted_path(c.graph);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " scale " << q.scale << " zp " << q.zp << (rank7 ? " rank 7" : "")
        << " path " << c.path;
  c.label = label.str();
  return c;  // no contrast: every system rounds the exact product once
}

TEST(TfliteOracle, QuantizeDequantizeBothPaths) {
  std::vector<OracleCase> cases;
  int index = 0;
  const float s6 = 6.0f / 255.0f;
  for (bool rank7 : {false, true}) {
    for (const auto& [d, q] : std::vector<std::pair<DType, Q>>{
             {DType::kInt8, {0.5f, 0}},   {DType::kInt8, {0.5f, 127}}, {DType::kInt8, {0.5f, -128}},
             {DType::kInt8, {0.1f, 0}},   {DType::kInt8, {s6, -128}},  {DType::kInt8, {3.0f, 5}},
             {DType::kUint8, {0.25f, 128}}, {DType::kUint8, {0.5f, 0}}, {DType::kUint8, {0.5f, 255}},
             {DType::kUint8, {0.1f, 3}}}) {
      cases.push_back(quantize_float_case(d, q, rank7, index++));
    }
    struct Rq {
      DType in, out;
      Q qi, qo;
    };
    for (const Rq& r : std::vector<Rq>{
             {DType::kInt8, DType::kInt8, {1.0f, 0}, {2.0f, 0}},
             {DType::kInt8, DType::kInt8, {1.0f, 0}, {4.0f, 5}},
             {DType::kInt8, DType::kInt8, {1.0f, -100}, {3.0f, 5}},
             {DType::kInt8, DType::kInt8, {0.5f, 3}, {0.25f, 127}},
             {DType::kInt8, DType::kInt8, {1.0f, 0}, {4.0f, -128}},
             {DType::kInt8, DType::kInt8, {0.25f, 0}, {0.0235294f, -7}},
             {DType::kUint8, DType::kUint8, {1.0f, 128}, {4.0f, 128}},
             {DType::kUint8, DType::kUint8, {1.0f, 0}, {3.0f, 255}},
             {DType::kInt8, DType::kUint8, {1.0f, 0}, {4.0f, 128}},
             {DType::kUint8, DType::kInt8, {1.0f, 128}, {2.0f, 0}},
             {DType::kInt8, DType::kUint8, {0.5f, -128}, {0.5f, 0}},
             {DType::kUint8, DType::kInt8, {0.25f, 3}, {1.0f, -128}},
         }) {
      cases.push_back(requantize_case(r.in, r.out, r.qi, r.qo, rank7, index++));
    }
    for (const auto& [d, q] : std::vector<std::pair<DType, Q>>{
             {DType::kInt8, {0.1f, -3}}, {DType::kInt8, {0.5f, 127}}, {DType::kUint8, {s6, 128}},
             {DType::kUint8, {0.3f, 0}}}) {
      cases.push_back(dequantize_case(d, q, rank7, index++));
    }
  }
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 20000u);
  expect_contrasts_differ(cases);
}

}  // namespace
}  // namespace qparity_test
