// SOFTMAX, CONCATENATION, PAD and PADV2 in LiteRT.js (TFLite compiled to WebAssembly) against
// qparity's tflite-xnnpack-wasm profile, on both of TFLite's paths:
//   xnnpack        the model as written: XNNPACK's delegate takes what it supports (int8 / uint8
//                  CONCATENATION with one quantization, PAD), TFLite's kernel runs the rest
//                  (8-bit SOFTMAX, PADV2, a requantizing uint8 CONCATENATION);
//   tflite-kernel  the op's output carries one-scale quantization along its last dimension
//                  (quantized_dimension != 0), which XNNPACK declines: TFLite's own kernel.
// A fourth test runs the configurations qparity rejects or treats specially (int8 CONCATENATION
// with differing quantizations, a fused activation on CONCATENATION, PAD with an input quantized
// differently from its output) and records what LiteRT.js does with them.
// One LiteRT.js batch per test. Contrasts are the other arithmetics qparity knows for the op
// (SOFTMAX: the fixed point of TFLite's reference kernel in both builds, the aarch64 uint16 table,
// a float32 style; a requantizing uint8 CONCATENATION: round-half-even and NPU single rounding,
// and the fused multiply-add of arm64 builds); where they exist, at least one must differ.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "litert_runner.h"
#include "model/graph_builder.h"
#include "model/node_map.h"
#include "model/ops/data_ops.h"
#include "model/runner.h"
#include "model/tflite/tflite_writer.h"
#include "oracle_util.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using namespace qparity::model;

constexpr const char* kProfile = "tflite-xnnpack-wasm";

Quantization quant(float scale, std::int64_t zp, bool kernel_path, std::size_t rank) {
  Quantization q = GraphBuilder::per_tensor(scale, zp);
  if (kernel_path) q.axis = rank - 1;  // one scale along the last dimension: XNNPACK declines
  return q;
}

std::string shape_str(const std::vector<std::size_t>& s) { return qparity::cli::shape_text(s); }

/// float32 values on a coarse grid (exact in every runtime).
Tensor float_tensor(std::mt19937& rng, std::vector<std::size_t> shape) {
  Tensor t = qparity::cli::make_tensor(DType::kFloat32, std::move(shape));
  std::uniform_int_distribution<int> d(-400, 400);
  for (std::size_t i = 0; i < t.elements(); ++i) {
    const float v = static_cast<float>(d(rng)) * 0.125f;
    std::memcpy(t.bytes.data() + 4 * i, &v, 4);
  }
  return t;
}

// ---- SOFTMAX ---------------------------------------------------------------------------------

enum class RowKind { kRandom, kFewLevels, kNearTie };

OracleCase softmax_case(std::mt19937& rng, DType dt, float s_in, std::int64_t zp_in, float beta,
                        std::vector<std::size_t> shape, RowKind kind, bool kernel_path, int index,
                        const std::vector<int>& row_data = {}) {
  const bool u8 = dt == DType::kUint8;
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  GraphBuilder b("softmax oracle case");
  const int x = b.tensor("x", dt, shape, GraphBuilder::per_tensor(s_in, zp_in));
  const int y = b.tensor("y", dt, {}, quant(1.0f / 256.0f, lo, kernel_path, shape.size()));
  auto o = std::make_shared<SoftmaxOptions>();
  o->beta = beta;
  b.node(OpKind::kSoftmax, {x}, {y}, o);
  b.input(x);
  b.output(y);
  OracleCase c;
  c.profile = kProfile;
  c.path = kernel_path ? "tflite-kernel" : "xnnpack";
  c.op = std::string("SOFTMAX ") + qparity::cli::to_string(dt);
  Tensor in = qparity::cli::make_tensor(dt, shape);
  const std::size_t row = shape.back();
  std::uniform_int_distribution<std::int64_t> full(lo, hi);
  for (std::size_t r = 0; r < in.elements(); r += row) {
    // Few levels: every element within 2 of the row's maximum, so most share a table index.
    const std::int64_t top = std::uniform_int_distribution<std::int64_t>(lo + 2, hi)(rng);
    for (std::size_t j = 0; j < row; ++j) {
      std::int64_t v = full(rng);
      if (kind == RowKind::kFewLevels) v = top - std::uniform_int_distribution<std::int64_t>(0, 2)(rng);
      if (kind == RowKind::kNearTie) v = row_data[j];
      in.set_integer(r + j, v);
    }
  }
  c.inputs.push_back(in);
  std::ostringstream label;
  label << "case " << index << " " << c.op << " " << shape_str(shape) << " s_in " << s_in << " zp " << zp_in
        << " beta " << beta << (kind == RowKind::kFewLevels ? " few-levels" : kind == RowKind::kNearTie ? " near-tie" : "")
        << " path " << c.path;
  c.label = label.str();
  c.graph = b.finish();
  c.contrasts = {"tflite-reference", "tflite-single", "tflite-xnnpack-arm", "fbgemm"};  // fbgemm: the float32 style
  return c;
}

TEST(TfliteOracle, SoftmaxBothPaths) {
  std::mt19937 rng(20261126);
  std::vector<OracleCase> cases;
  int index = 0;
  struct Q {
    DType dt;
    float s;
    std::int64_t zp;
  };
  // Input scales: 1/16 and 1/4 (exact in binary), 1/64 (flat rows), 0.1 and 0.05 (inexact), 1.0
  // (most exps underflow: saturated outputs).
  const Q quants[] = {{DType::kInt8, 0.0625f, 0},      {DType::kInt8, 0.25f, -128}, {DType::kInt8, 0.015625f, 127},
                      {DType::kInt8, 0.1f, 5},         {DType::kInt8, 1.0f, 0},     {DType::kUint8, 0.0625f, 128},
                      {DType::kUint8, 0.125f, 0},      {DType::kUint8, 0.05f, 255}, {DType::kUint8, 0.5f, 77}};
  const std::vector<std::vector<std::size_t>> shapes = {{5, 1}, {4, 3}, {3, 7}, {2, 17}, {1, 1000}, {1, 2, 2, 7}};
  const float betas[] = {1.0f, 0.5f, 1.7f};
  for (const Q& q : quants) {
    for (std::size_t si = 0; si < shapes.size(); ++si) {
      const float beta = betas[(index + si) % 3];
      // Few levels on short rows only: long rows of near-equal values are the dedicated cases below.
      const RowKind kind = (index % 3 == 1 && shapes[si].back() <= 17) ? RowKind::kFewLevels : RowKind::kRandom;
      const bool kernel = (si + static_cast<std::size_t>(&q - quants)) % 2 == 1;
      cases.push_back(softmax_case(rng, q.dt, q.s, q.zp, beta, shapes[si], kind, kernel, index));
      ++index;
    }
  }
  // The few-levels rows on a classifier head (1000 classes within 2 of the maximum would make the
  // sum of exponentials exceed 512, where TFLite's fixed point shifts by more than 31: undefined).
  for (bool kernel : {false, true}) {
    cases.push_back(softmax_case(rng, DType::kInt8, 0.5f, 0, 1.0f, {1, 300}, RowKind::kFewLevels, kernel, index++));
    cases.push_back(softmax_case(rng, DType::kUint8, 0.25f, 128, 1.0f, {2, 200}, RowKind::kFewLevels, kernel, index++));
  }
  // Rows where the float table, the fixed point and the uint16 table part (near-ties of 256 p,
  // found with the references; tests/oracles/js/ops/make_models.py).
  const std::pair<float, std::vector<int>> near_ties[] = {
      {0.0625f, {-77, -74, 83, -12, 100, -14, -93, 79, -58, -107, 104, -44}},
      {0.05f, {0, 35, -112, -95, 53, -107, 30, 6, -44, 88}},
      {0.1f, {57, -83, -21, -60, 75, -104, -47, -6, 117, -62, 39, -11}},
      {0.1f, {8, -14, 1, 6, 31, 19, 14, 8}}};
  for (const auto& [s, row] : near_ties) {
    for (bool kernel : {false, true}) {
      cases.push_back(softmax_case(rng, DType::kInt8, s, 0, 1.0f, {1, row.size()}, RowKind::kNearTie, kernel, index++,
                                   row));
    }
  }
  std::map<std::string, std::size_t> contrast;
  const std::size_t elements = run_oracle_cases(cases, &contrast);
  EXPECT_GT(elements, 5000u);
  // The comparison can fail: the fixed point (both builds) and the uint16 table differ somewhere.
  EXPECT_GT(contrast["tflite-reference"], 0u);
  EXPECT_GT(contrast["tflite-single"], 0u);
  EXPECT_GT(contrast["tflite-xnnpack-arm"], 0u);
}

// ---- CONCATENATION ---------------------------------------------------------------------------

enum class ConcatKind { kInt8, kUint8Same, kUint8Requant, kFloat };

OracleCase concat_case(std::mt19937& rng, ConcatKind kind, std::size_t rank, int axis, std::size_t inputs,
                       bool kernel_path, int index) {
  std::uniform_int_distribution<int> small(1, 3);
  std::vector<std::size_t> base(rank);
  for (std::size_t d = 0; d < rank; ++d) base[d] = static_cast<std::size_t>(small(rng)) + (d == rank - 1 ? 2 : 0);
  const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + static_cast<int>(rank) : axis);
  const DType dt = kind == ConcatKind::kInt8 ? DType::kInt8 : kind == ConcatKind::kFloat ? DType::kFloat32 : DType::kUint8;
  const std::int64_t lo = dt == DType::kInt8 ? -128 : 0, hi = dt == DType::kInt8 ? 127 : 255;
  // Output quantization: zero points at the ends of the range and in the middle.
  const std::int64_t zps[] = {lo, hi, (lo + hi) / 2, lo + 17};
  const std::int64_t zp_out = zps[index % 4];
  const float s_out = 0.05f;
  GraphBuilder b("concatenation oracle case");
  OracleCase c;
  std::vector<int> ins;
  std::ostringstream label;
  label << "case " << index << " CONCATENATION axis " << axis;
  for (std::size_t i = 0; i < inputs; ++i) {
    std::vector<std::size_t> shape = base;
    shape[ax] = 1 + (i * 2 + static_cast<std::size_t>(index)) % 4;  // different sizes along the axis
    Quantization q;
    if (dt != DType::kFloat32) q = GraphBuilder::per_tensor(s_out, zp_out);
    if (kind == ConcatKind::kUint8Requant && i % 2 == 0) {
      // Ratios with exact halves (1/2, 3/2, 1/4) and inexact ones; zero points at the ends.
      const float ratios[] = {0.5f, 1.5f, 0.25f, 0.7f, 1.3f};
      const std::int64_t zin[] = {0, 255, 128, 3};
      q = GraphBuilder::per_tensor(s_out * ratios[(static_cast<std::size_t>(index) + i) % 5],
                                   zin[(static_cast<std::size_t>(index) + i / 2) % 4]);
    }
    const int t = b.tensor("x" + std::to_string(i), dt, shape, q);
    ins.push_back(t);
    b.input(t);
    c.inputs.push_back(dt == DType::kFloat32 ? float_tensor(rng, shape) : random_tensor(rng, dt, shape, lo, hi));
    label << " " << shape_str(shape);
  }
  Quantization oq;
  if (dt != DType::kFloat32) oq = quant(s_out, zp_out, kernel_path, rank);
  const int y = b.tensor("y", dt, {}, oq);
  auto o = std::make_shared<ConcatenationOptions>();
  o->axis = axis;
  b.node(OpKind::kConcatenation, ins, {y}, o);
  b.output(y);
  c.profile = kProfile;
  c.path = kernel_path ? "tflite-kernel" : "xnnpack";
  const char* names[] = {"CONCATENATION int8", "CONCATENATION uint8", "CONCATENATION uint8 rq", "CONCATENATION f32"};
  c.op = names[static_cast<int>(kind)];
  label << " " << c.op << " zp_out " << zp_out << " path " << c.path;
  c.label = label.str();
  c.graph = b.finish();
  if (kind == ConcatKind::kUint8Requant) c.contrasts = {"onnxruntime", "npu-verisilicon", "tflite-xnnpack-arm"};
  return c;
}

TEST(TfliteOracle, ConcatenationBothPaths) {
  std::mt19937 rng(20261127);
  std::vector<OracleCase> cases;
  int index = 0;
  for (ConcatKind kind : {ConcatKind::kInt8, ConcatKind::kUint8Same, ConcatKind::kUint8Requant, ConcatKind::kFloat}) {
    for (std::size_t rank = 1; rank <= 4; ++rank) {
      for (int axis = -1; axis < static_cast<int>(rank); ++axis) {
        for (bool kernel : {false, true}) {
          // The per-axis trick needs quantization (not float32) and a last dimension other than 0.
          if (kernel && (rank < 2 || kind == ConcatKind::kFloat)) continue;
          const std::size_t inputs = 2 + static_cast<std::size_t>(index % 3);
          cases.push_back(concat_case(rng, kind, rank, axis, inputs, kernel, index++));
        }
      }
    }
  }
  // Five inputs (XNNPACK's delegate takes up to five).
  cases.push_back(concat_case(rng, ConcatKind::kInt8, 4, 3, 5, false, index++));
  cases.push_back(concat_case(rng, ConcatKind::kUint8Same, 3, 1, 5, false, index++));
  std::map<std::string, std::size_t> contrast;
  const std::size_t elements = run_oracle_cases(cases, &contrast);
  EXPECT_GT(elements, 1000u);
  // Round half away (TFLite) against half even and the NPU hypothesis on the exact halves.
  EXPECT_GT(contrast["onnxruntime"], 0u);
}

// ---- PAD, PADV2 ------------------------------------------------------------------------------

OracleCase pad_case(std::mt19937& rng, bool v2, DType dt, std::size_t rank, DType paddings_type, std::int64_t zp,
                    bool kernel_path, int index, const std::vector<int>& fixed = {},
                    std::vector<std::size_t> shape = {}) {
  std::uniform_int_distribution<int> dim(1, 4), pad(0, 3);
  if (shape.empty()) {
    shape.resize(rank);
    for (std::size_t d = 0; d < rank; ++d) shape[d] = static_cast<std::size_t>(dim(rng));
  }
  Tensor paddings = qparity::cli::make_tensor(paddings_type, {rank, 2});
  std::ostringstream pads;
  for (std::size_t d = 0; d < rank; ++d) {
    // Asymmetric on every dimension: pre != post (unless given).
    int a = pad(rng);
    int p = pad(rng);
    if (p == a) p = (a + 1) % 4;
    if (!fixed.empty()) {
      a = fixed[2 * d];
      p = fixed[2 * d + 1];
    }
    paddings.set_integer(2 * d, a);
    paddings.set_integer(2 * d + 1, p);
    pads << "[" << a << "," << p << "]";
  }
  const bool is8 = dt != DType::kFloat32;
  const std::int64_t lo = dt == DType::kInt8 ? -128 : 0, hi = dt == DType::kInt8 ? 127 : 255;
  GraphBuilder b("pad oracle case");
  Quantization iq;
  if (is8) iq = GraphBuilder::per_tensor(0.1f, zp);
  const int x = b.tensor("x", dt, shape, iq);
  const int pt = b.constant("paddings", paddings);
  std::vector<int> ins = {x, pt};
  std::string value = "zero point";
  if (v2) {
    Tensor cv = qparity::cli::make_tensor(dt, {});
    if (is8) {
      const std::int64_t v = std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
      cv.set_integer(0, v);
      value = std::to_string(v);
    } else {
      const float f = -2.75f;
      std::memcpy(cv.bytes.data(), &f, 4);
      value = "-2.75";
    }
    ins.push_back(b.constant("constant_values", cv, iq));
  }
  Quantization oq;
  if (is8) oq = quant(0.1f, zp, kernel_path, rank);
  const int y = b.tensor("y", dt, {}, oq);
  b.node(v2 ? OpKind::kPadV2 : OpKind::kPad, ins, {y});
  b.input(x);
  b.output(y);
  OracleCase c;
  c.profile = kProfile;
  c.path = kernel_path ? "tflite-kernel" : "xnnpack";
  c.op = std::string(v2 ? "PADV2 " : "PAD ") + qparity::cli::to_string(dt);
  c.inputs.push_back(is8 ? random_tensor(rng, dt, shape, lo, hi) : float_tensor(rng, shape));
  std::ostringstream label;
  label << "case " << index << " " << c.op << " " << shape_str(shape) << " paddings " << pads.str() << " ("
        << qparity::cli::to_string(paddings_type) << ") zp " << zp << " value " << value << " path " << c.path;
  c.label = label.str();
  c.graph = b.finish();
  return c;
}

TEST(TfliteOracle, PadAndPadV2BothPaths) {
  std::mt19937 rng(20261128);
  std::vector<OracleCase> cases;
  int index = 0;
  for (bool v2 : {false, true}) {
    for (DType dt : {DType::kInt8, DType::kUint8, DType::kFloat32}) {
      const std::int64_t zps[] = {dt == DType::kInt8 ? -128 : 0, dt == DType::kInt8 ? 127 : 255};
      for (std::size_t rank = 1; rank <= 5; ++rank) {
        for (bool kernel : {false, true}) {
          if (kernel && (rank < 2 || dt == DType::kFloat32)) continue;
          const DType pty = index % 3 == 2 ? DType::kInt64 : DType::kInt32;
          cases.push_back(pad_case(rng, v2, dt, rank, pty, zps[index % 2], kernel, index));
          ++index;
        }
      }
    }
  }
  // MobileNet v2's stride-2 PAD (bottom and right only; the channels are copied as blocks) and a
  // batch-only padding.
  for (bool kernel : {false, true}) {
    cases.push_back(pad_case(rng, false, DType::kInt8, 4, DType::kInt32, -128, kernel, index++, {0, 0, 0, 1, 0, 1, 0, 0},
                             {1, 14, 14, 24}));
    cases.push_back(pad_case(rng, true, DType::kUint8, 4, DType::kInt32, 255, kernel, index++, {1, 2, 0, 0, 0, 0, 0, 0},
                             {1, 3, 3, 5}));
  }
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 1000u);
}

// ---- configurations qparity rejects or treats specially --------------------------------------

struct EdgeModel {
  std::string name;
  Graph graph;  // not validated: qparity rejects some of these
  std::vector<Tensor> inputs;
};

Tensor sequence(DType dt, std::vector<std::size_t> shape, std::int64_t start) {
  Tensor t = qparity::cli::make_tensor(dt, std::move(shape));
  for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, start + static_cast<std::int64_t>(i));
  return t;
}

EdgeModel edge_concat(DType dt, float s1, qparity::Activation act, bool kernel_path) {
  GraphBuilder b("edge");
  const std::int64_t zp = dt == DType::kUint8 ? 128 : 0;
  const int x0 = b.tensor("x0", dt, {1, 3}, GraphBuilder::per_tensor(0.1f, zp));
  const int x1 = b.tensor("x1", dt, {1, 3}, GraphBuilder::per_tensor(s1, zp));
  const int y = b.tensor("y", dt, {1, 6}, quant(0.1f, zp, kernel_path, 2));
  auto o = std::make_shared<ConcatenationOptions>();
  o->axis = 1;
  o->activation = act;
  b.node(OpKind::kConcatenation, {x0, x1}, {y}, o);
  b.input(x0);
  b.input(x1);
  b.output(y);
  // uint8 values below the zero point 128, which a RELU would raise to 128.
  return {std::string("CONCATENATION ") + qparity::cli::to_string(dt) + (kernel_path ? " tflite-kernel" : " xnnpack"),
          b.graph(), {sequence(dt, {1, 3}, 100), sequence(dt, {1, 3}, 110)}};
}

EdgeModel edge_pad(bool kernel_path) {
  GraphBuilder b("edge");
  const int x = b.tensor("x", DType::kInt8, {2, 3}, GraphBuilder::per_tensor(0.1f, 5));
  Tensor p = qparity::cli::make_tensor(DType::kInt32, {2, 2});
  p.set_integer(0, 1);
  p.set_integer(3, 1);
  const int pt = b.constant("paddings", p);
  const int y = b.tensor("y", DType::kInt8, {3, 4}, quant(0.2f, -3, kernel_path, 2));
  b.node(OpKind::kPad, {x, pt}, {y});
  b.input(x);
  b.output(y);
  return {std::string("PAD int8 input 0.1/5 output 0.2/-3") + (kernel_path ? " tflite-kernel" : " xnnpack"), b.graph(),
          {sequence(DType::kInt8, {2, 3}, 40)}};
}

/// qparity's outputs for a model under the profile, or the ToolError it raises (validate, prepare).
std::vector<Tensor> qparity_run(Graph g, const std::vector<Tensor>& inputs, std::string* error) {
  try {
    validate(g);
    Runner r(g, resolve_node_map(parse_node_map(kProfile, "profile"), g, "profile"));
    r.run(inputs);
    return r.outputs();
  } catch (const qparity::cli::ToolError& e) {
    *error = e.what();
    return {};
  }
}

TEST(TfliteOracle, RejectedAndUnusualConfigurations) {
  std::vector<EdgeModel> models = {
      edge_concat(DType::kInt8, 0.2f, qparity::Activation::kNone, false),   // 0 int8, scales differ
      edge_concat(DType::kInt8, 0.2f, qparity::Activation::kNone, true),    // 1
      edge_concat(DType::kUint8, 0.1f, qparity::Activation::kRelu, false),  // 2 fused RELU
      edge_concat(DType::kUint8, 0.1f, qparity::Activation::kRelu, true),   // 3
      edge_pad(false),                                                       // 4 PAD, quantizations differ
      edge_pad(true),                                                        // 5
  };
  std::vector<LiteRtJob> jobs;
  for (const EdgeModel& m : models) jobs.push_back({m.name, write_tflite(m.graph), m.inputs});
  std::string setup_error;
  const std::vector<LiteRtResult> r = run_litert(jobs, &setup_error);
  ASSERT_TRUE(setup_error.empty()) << setup_error;
  ASSERT_EQ(r.size(), models.size());
  // int8 CONCATENATION with differing scales: XNNPACK fails to define the node ("failed to delegate
  // CONCATENATION"), TFLite's Prepare rejects it; qparity rejects it.
  for (int i : {0, 1}) {
    EXPECT_FALSE(r[i].ok) << models[i].name;
    std::string error;
    qparity_run(models[i].graph, models[i].inputs, &error);
    EXPECT_NE(error.find("does not rescale"), std::string::npos) << error;
  }
  // A fused RELU: XNNPACK's delegate copies and ignores it, TFLite's kernel rejects it; qparity too.
  ASSERT_TRUE(r[2].ok) << r[2].error;
  {
    std::string error;
    const std::vector<Tensor> ours = qparity_run(models[2].graph, models[2].inputs, &error);
    ASSERT_EQ(ours.size(), 1u) << error;
    EXPECT_EQ(ours[0].bytes, r[2].outputs[0].bytes);
    EXPECT_EQ(r[2].outputs[0].integer_at(0), 100);  // below the zero point: not clamped
  }
  EXPECT_FALSE(r[3].ok);
  {
    std::string error;
    qparity_run(models[3].graph, models[3].inputs, &error);
    EXPECT_NE(error.find("fused activation RELU"), std::string::npos) << error;
  }
  // PAD whose input is quantized differently from its output: XNNPACK fails to define the node
  // (LiteRT.js reports it and gives no result; TFLite's C++ interpreter would drop the delegate);
  // TFLite's kernel copies the integers unchanged and pads with the output zero point, as qparity.
  EXPECT_FALSE(r[4].ok);
  ASSERT_TRUE(r[5].ok) << r[5].error;
  {
    std::string error;
    const std::vector<Tensor> ours = qparity_run(models[5].graph, models[5].inputs, &error);
    ASSERT_EQ(ours.size(), 1u) << error;
    EXPECT_EQ(ours[0].bytes, r[5].outputs[0].bytes);
    EXPECT_EQ(r[5].outputs[0].integer_at(0), -3);
    EXPECT_EQ(r[5].outputs[0].integer_at(4), 40);
  }
}

}  // namespace
}  // namespace qparity_test
