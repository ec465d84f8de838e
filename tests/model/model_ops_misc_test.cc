// SOFTMAX, CONCATENATION, PAD and PADV2 in qparity's model layer, without a runtime: the fast
// engine equals the reference engine under every kind of system, each system picks the arithmetic
// its op file documents (describe()), the checks reject what TFLite rejects with a message naming
// the problem, the .tflite options survive a write and a read, xnnpack_takes() follows the XNNPACK
// delegate's rules, and hand-checked values of the uint8 CONCATENATION requantization and of the
// fixed-point SOFTMAX limit. (tests/model/oracle_misc_test.cc compares with LiteRT.js.)
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "model/graph_builder.h"
#include "model/node_map.h"
#include "model/op.h"
#include "model/ops/data_ops.h"
#include "model/runner.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;

const char* const kSystems[] = {"tflite-reference",    "tflite-single",      "tflite-xnnpack-x86",
                                "tflite-xnnpack-arm",  "tflite-xnnpack-wasm", "tflite-builtin-arm",
                                "onnxruntime",         "npu-verisilicon",    "xnnpack-fp32"};

Tensor random_tensor(std::mt19937& rng, DType dt, std::vector<std::size_t> shape) {
  Tensor t = qparity::cli::make_tensor(dt, std::move(shape));
  if (dt == DType::kFloat32) {
    std::uniform_int_distribution<int> d(-1000, 1000);
    for (std::size_t i = 0; i < t.elements(); ++i) {
      const float v = static_cast<float>(d(rng)) * 0.01f;
      std::memcpy(t.bytes.data() + 4 * i, &v, 4);
    }
    return t;
  }
  std::uniform_int_distribution<std::int64_t> d(qparity::cli::dtype_min(dt), qparity::cli::dtype_max(dt));
  for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, d(rng));
  return t;
}

std::vector<Tensor> run(const Graph& g, const std::string& profile, const std::vector<Tensor>& inputs,
                        Engine engine = Engine::kFast) {
  Runner r(g, resolve_node_map(parse_node_map(profile, "profile"), g, "profile"), engine);
  r.run(inputs);
  return r.outputs();
}

std::vector<std::string> describe(const Graph& g, const std::string& profile) {
  Runner r(g, resolve_node_map(parse_node_map(profile, "profile"), g, "profile"));
  return r.prepared(0).describe();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

/// Expects `f` to throw a ToolError whose message contains `part`.
template <class F>
void expect_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// ---- graphs ------------------------------------------------------------------------------------

Graph softmax_graph(DType dt, std::vector<std::size_t> shape, float s_in, float beta, std::int64_t out_zp = 1000,
                    float out_scale = 1.0f / 256.0f) {
  GraphBuilder b("softmax test");
  const std::int64_t zp = out_zp != 1000 ? out_zp : qparity::cli::dtype_min(dt);
  const int x = b.tensor("x", dt, shape, GraphBuilder::per_tensor(s_in, dt == DType::kInt8 ? 3 : 130));
  const int y = b.tensor("y", dt, {}, GraphBuilder::per_tensor(out_scale, zp));
  auto o = std::make_shared<SoftmaxOptions>();
  o->beta = beta;
  b.node(OpKind::kSoftmax, {x}, {y}, o);
  b.input(x);
  b.output(y);
  return b.finish();
}

struct ConcatInput {
  std::vector<std::size_t> shape;
  float scale;
  std::int64_t zp;
};

Graph concat_graph(DType dt, const std::vector<ConcatInput>& inputs, int axis, float s_out, std::int64_t zp_out,
                   qparity::Activation act = qparity::Activation::kNone) {
  GraphBuilder b("concatenation test");
  std::vector<int> ins;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Quantization q;
    if (dt != DType::kFloat32) q = GraphBuilder::per_tensor(inputs[i].scale, inputs[i].zp);
    ins.push_back(b.tensor("x" + std::to_string(i), dt, inputs[i].shape, q));
    b.input(ins.back());
  }
  Quantization oq;
  if (dt != DType::kFloat32) oq = GraphBuilder::per_tensor(s_out, zp_out);
  const int y = b.tensor("y", dt, {}, oq);
  auto o = std::make_shared<ConcatenationOptions>();
  o->axis = axis;
  o->activation = act;
  b.node(OpKind::kConcatenation, ins, {y}, o);
  b.output(y);
  return b.finish();
}

Graph pad_graph(bool v2, DType dt, std::vector<std::size_t> shape, const std::vector<std::int64_t>& pads,
                DType pad_type = DType::kInt32, std::int64_t zp = 7, bool constant_paddings = true,
                Quantization constant_quant = GraphBuilder::per_tensor(0.5f, 7)) {
  GraphBuilder b("pad test");
  Quantization q;
  if (dt != DType::kFloat32) q = GraphBuilder::per_tensor(0.5f, zp);
  const int x = b.tensor("x", dt, shape, q);
  Tensor p = qparity::cli::make_tensor(pad_type, {shape.size(), 2});
  for (std::size_t i = 0; i < pads.size(); ++i) p.set_integer(i, pads[i]);
  const int pt = constant_paddings ? b.constant("paddings", p) : b.tensor("paddings", pad_type, {shape.size(), 2});
  std::vector<int> ins = {x, pt};
  if (v2) {
    Tensor c = qparity::cli::make_tensor(dt, {});
    if (dt == DType::kFloat32) {
      const float f = 1.25f;
      std::memcpy(c.bytes.data(), &f, 4);
    } else {
      c.set_integer(0, 100);
    }
    ins.push_back(b.constant("constant_values", c, dt == DType::kFloat32 ? Quantization{} : constant_quant));
  }
  const int y = b.tensor("y", dt, {}, q);
  b.node(v2 ? OpKind::kPadV2 : OpKind::kPad, ins, {y});
  b.input(x);
  if (!constant_paddings) b.input(pt);
  b.output(y);
  return b.finish();
}

// ---- fast engine == reference engine ------------------------------------------------------------

TEST(ModelOpsMisc, SoftmaxFastEqualsReferenceUnderEverySystem) {
  std::mt19937 rng(11);
  for (DType dt : {DType::kInt8, DType::kUint8}) {
    for (const std::vector<std::size_t>& shape : std::vector<std::vector<std::size_t>>{{1, 1000}, {7, 3}, {2, 3, 17}, {4}}) {
      for (float s_in : {0.0625f, 0.1f, 0.02f, 1.0f}) {
        const Graph g = softmax_graph(dt, shape, s_in, s_in == 0.1f ? 0.7f : 1.0f);
        const std::vector<Tensor> in = {random_tensor(rng, dt, shape)};
        for (const char* sys : kSystems) {
          if (s_in == 0.1f && std::string(sys) == "onnxruntime") {  // ORT's QLinearSoftmax has no beta
            EXPECT_THROW(run(g, sys, in, Engine::kFast), qparity::cli::ToolError);
            continue;
          }
          const auto fast = run(g, sys, in, Engine::kFast);
          const auto ref = run(g, sys, in, Engine::kReference);
          EXPECT_EQ(fast[0].bytes, ref[0].bytes) << sys << " " << qparity::cli::shape_text(shape) << " s_in " << s_in;
        }
      }
    }
  }
}

TEST(ModelOpsMisc, ConcatenationFastEqualsReferenceUnderEverySystem) {
  std::mt19937 rng(12);
  struct Case {
    DType dt;
    std::vector<ConcatInput> inputs;
    int axis;
  };
  const std::vector<Case> cases = {
      {DType::kInt8, {{{2, 3, 4}, 0.1f, -5}, {{2, 1, 4}, 0.1f, -5}, {{2, 5, 4}, 0.1f, -5}}, 1},
      {DType::kInt8, {{{2, 3, 4}, 0.1f, -5}, {{2, 3, 1}, 0.1f, -5}}, -1},
      {DType::kUint8, {{{3, 2}, 0.05f, 128}, {{1, 2}, 0.025f, 0}, {{4, 2}, 0.07f, 255}, {{2, 2}, 0.05f, 128}}, 0},
      {DType::kUint8, {{{1, 2, 2, 3}, 0.2f, 3}, {{1, 2, 2, 5}, 0.1f, 3}}, 3},
      {DType::kFloat32, {{{2, 2}, 1.0f, 0}, {{2, 3}, 1.0f, 0}}, 1},
  };
  for (const Case& c : cases) {
    const Graph g = concat_graph(c.dt, c.inputs, c.axis, c.dt == DType::kInt8 ? 0.1f : 0.05f, c.dt == DType::kInt8 ? -5 : 128);
    std::vector<Tensor> in;
    for (const ConcatInput& i : c.inputs) in.push_back(random_tensor(rng, c.dt, i.shape));
    for (const char* sys : kSystems) {
      EXPECT_EQ(run(g, sys, in, Engine::kFast)[0].bytes, run(g, sys, in, Engine::kReference)[0].bytes) << sys;
    }
  }
}

TEST(ModelOpsMisc, PadFastEqualsReference) {
  std::mt19937 rng(13);
  for (bool v2 : {false, true}) {
    for (DType dt : {DType::kInt8, DType::kUint8, DType::kFloat32}) {
      const Graph g1 = pad_graph(v2, dt, {3}, {2, 0});
      const Graph g4 = pad_graph(v2, dt, {2, 3, 1, 4}, {0, 1, 2, 0, 1, 3, 0, 2}, DType::kInt64);
      const Graph g5 = pad_graph(v2, dt, {1, 2, 3, 2, 2}, {1, 0, 0, 2, 3, 1, 1, 1, 0, 1});
      // Trailing dimensions without padding (copied as blocks), and no padding at all.
      const Graph mobilenet = pad_graph(v2, dt, {1, 5, 4, 3}, {0, 0, 0, 1, 1, 0, 0, 0});
      const Graph outer = pad_graph(v2, dt, {2, 3, 2}, {1, 2, 0, 0, 0, 0});
      const Graph none = pad_graph(v2, dt, {2, 3}, {0, 0, 0, 0});
      for (const Graph* g : {&g1, &g4, &g5, &mobilenet, &outer, &none}) {
        const std::vector<Tensor> in = {random_tensor(rng, dt, g->tensors[0].shape)};
        EXPECT_EQ(run(*g, "tflite-xnnpack-wasm", in, Engine::kFast)[0].bytes,
                  run(*g, "tflite-xnnpack-wasm", in, Engine::kReference)[0].bytes);
      }
    }
  }
}

TEST(ModelOpsMisc, PadValues) {
  // [1, 2] padded [[1, 0], [0, 2]] -> [2, 4]: the first row and the last two columns are the pad.
  const Graph g = pad_graph(false, DType::kInt8, {1, 2}, {1, 0, 0, 2}, DType::kInt32, -128);
  Tensor x = qparity::cli::make_tensor(DType::kInt8, {1, 2});
  x.set_integer(0, 5);
  x.set_integer(1, -6);
  const Tensor y = run(g, "tflite-xnnpack-wasm", {x})[0];
  ASSERT_EQ(y.shape, (std::vector<std::size_t>{2, 4}));
  const std::int64_t want[] = {-128, -128, -128, -128, 5, -6, -128, -128};
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(y.integer_at(i), want[i]) << i;
  // PADV2: constant_values' integer.
  const Graph g2 = pad_graph(true, DType::kUint8, {1, 1}, {0, 1, 1, 0}, DType::kInt32, 7);
  Tensor x2 = qparity::cli::make_tensor(DType::kUint8, {1, 1});
  x2.set_integer(0, 9);
  const Tensor y2 = run(g2, "tflite-reference", {x2})[0];
  const std::int64_t want2[] = {100, 9, 100, 100};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(y2.integer_at(i), want2[i]) << i;
}

// ---- arithmetic per system ----------------------------------------------------------------------

TEST(ModelOpsMisc, SoftmaxVariantPerSystem) {
  const Graph g = softmax_graph(DType::kInt8, {1, 10}, 0.0625f, 1.0f);
  const struct {
    const char* system;
    const char* variant;
  } want[] = {
      {"tflite-reference", "fixed point, double-rounding build"},
      {"tflite-single", "fixed point, single-rounding build"},
      {"cmsis-nn-single", "fixed point, single-rounding build"},
      {"tflite-xnnpack-x86", "optimized float table"},
      {"tflite-xnnpack-wasm", "optimized float table"},
      {"tflite-builtin-wasm", "optimized float table"},
      {"tflite-xnnpack-arm", "uint16 table"},
      {"ruy-arm", "uint16 table"},
      {"fbgemm", "float32 style (UNVERIFIED)"},
      {"onnxruntime", "ONNX Runtime QLinearSoftmax"},
      {"npu-verisilicon", "NPU hypothesis (UNVERIFIED): TFLite optimized float table"},
  };
  for (const auto& w : want) {
    const std::vector<std::string> lines = describe(g, w.system);
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[0].rfind("arithmetic: ", 0), 0u) << lines[0];
    EXPECT_NE(joined(lines).find(w.variant), std::string::npos) << w.system << ":\n" << joined(lines);
  }
  // XNNPACK does not take 8-bit SOFTMAX: the XNNPACK profiles give the node TFLite's kernel.
  EXPECT_NE(describe(g, "tflite-xnnpack-wasm")[0].find("TFLite kernel"), std::string::npos);
}

TEST(ModelOpsMisc, SoftmaxSaturatedAndUniformRows) {
  // A row of equal values: 256 / n of 1/256 each. n = 2: exactly 128 -> 0 (int8). n = 1: 256
  // saturates to 127. Every variant agrees on these.
  for (const char* sys : kSystems) {
    const Graph g2 = softmax_graph(DType::kInt8, {1, 2}, 0.1f, 1.0f);
    Tensor x = qparity::cli::make_tensor(DType::kInt8, {1, 2});
    x.set_integer(0, 40);
    x.set_integer(1, 40);
    const Tensor y = run(g2, sys, {x})[0];
    EXPECT_EQ(y.integer_at(0), 0) << sys;
    EXPECT_EQ(y.integer_at(1), 0) << sys;
    const Graph g1 = softmax_graph(DType::kUint8, {3, 1}, 0.1f, 1.0f);
    Tensor x1 = qparity::cli::make_tensor(DType::kUint8, {3, 1});
    const Tensor y1 = run(g1, sys, {x1})[0];
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(y1.integer_at(i), 255) << sys;
  }
}

TEST(ModelOpsMisc, SoftmaxFixedPointShiftBeyond31IsAnError) {
  // 600 equal values: the Q12.19 sum is 600 * 2^19 >= 2^28, GetReciprocal gives 9 bits over unit
  // and the output shift would be 32: gemmlowp's RoundingDivideByPOT is undefined there. The float
  // kernels compute it (256 / 600 = 0.43 -> -128).
  const Graph g = softmax_graph(DType::kInt8, {1, 600}, 0.0625f, 1.0f);
  const Tensor x = qparity::cli::make_tensor(DType::kInt8, {1, 600});
  for (Engine e : {Engine::kFast, Engine::kReference}) {
    expect_error([&] { run(g, "tflite-reference", {x}, e); }, "RoundingDivideByPOT");
    const Tensor y = run(g, "tflite-xnnpack-wasm", {x}, e)[0];
    EXPECT_EQ(y.integer_at(0), -128);
  }
}

TEST(ModelOpsMisc, ConcatenationUint8RequantizationPerSystem) {
  // s_in / s_out = 1/2 exactly, zero points 0: x = 1, 3, 5 are exact halves 0.5, 1.5, 2.5.
  const Graph g = concat_graph(DType::kUint8, {{{1, 4}, 0.05f, 0}, {{1, 1}, 0.1f, 0}}, 1, 0.1f, 0);
  Tensor a = qparity::cli::make_tensor(DType::kUint8, {1, 4});
  const std::int64_t xs[] = {1, 3, 5, 255};
  for (std::size_t i = 0; i < 4; ++i) a.set_integer(i, xs[i]);
  Tensor b = qparity::cli::make_tensor(DType::kUint8, {1, 1});
  b.set_integer(0, 200);
  // TFLite: round half away from zero; the second input (the output's quantization) is copied.
  const std::int64_t tflite[] = {1, 2, 3, 128, 200};
  const std::int64_t even[] = {0, 2, 2, 128, 200};
  for (const char* sys : {"tflite-xnnpack-wasm", "tflite-reference", "tflite-xnnpack-arm"}) {
    const Tensor y = run(g, sys, {a, b})[0];
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(y.integer_at(i), tflite[i]) << sys << " " << i;
  }
  for (const char* sys : {"onnxruntime", "npu-verisilicon"}) {  // RNE; the NPU hypothesis: SR-EVEN
    const Tensor y = run(g, sys, {a, b})[0];
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(y.integer_at(i), even[i]) << sys << " " << i;
  }
  const std::string d = joined(describe(g, "tflite-xnnpack-arm"));
  EXPECT_NE(d.find("fma(float(x), S, B)"), std::string::npos) << d;
  EXPECT_NE(joined(describe(g, "tflite-xnnpack-x86")).find("float(float(x) * S) + B"), std::string::npos);
}

TEST(ModelOpsMisc, ConcatenationInt8RequantizationUnderFloatStyles) {
  // Input 0: s_in / s_out = 1/2, zero point 1 -> 0: x = -128, -2, 0, 2, 4, 127 give (x - 1) / 2 =
  // -64.5, -1.5, -0.5, 0.5, 1.5, 63 (ties to even: -64, -2, 0, 0, 2, 63). Input 1: the output's scale,
  // zero point -100 -> 0: x + 100 saturates at 127 (x = 100) and stays -28 at x = -128.
  const Graph g = concat_graph(DType::kInt8, {{{1, 6}, 0.25f, 1}, {{1, 2}, 0.5f, -100}}, 1, 0.5f, 0);
  Tensor a = qparity::cli::make_tensor(DType::kInt8, {1, 6});
  const std::int64_t xs[] = {-128, -2, 0, 2, 4, 127};
  for (std::size_t i = 0; i < 6; ++i) a.set_integer(i, xs[i]);
  Tensor b = qparity::cli::make_tensor(DType::kInt8, {1, 2});
  b.set_integer(0, 100);
  b.set_integer(1, -128);
  const std::int64_t want[] = {-64, -2, 0, 0, 2, 63, 127, -28};
  for (const Engine e : {Engine::kFast, Engine::kReference}) {
    const Tensor y = run(g, "onnxruntime", {a, b}, e)[0];
    for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(y.integer_at(i), want[i]) << i;
  }
  EXPECT_NE(joined(describe(g, "onnxruntime")).find("-128, 127"), std::string::npos);
}

TEST(ModelOpsMisc, ConcatenationFusedMultiplyAddDiffers) {
  // The arm64 (clang, fused multiply-add) form and the x86 / wasm form part where the product's own
  // rounding crosses a half: S = 1.012f, B = float(-2) * S, x = 127: float(127 * S) + B = 126.5
  // exactly (-> 127), fma(127, S, B) = 126.499992 (-> 126). Such inputs are rare (about 3 in 10^5
  // of (S, zero point, x) triples over S in [1, 4]).
  const Graph g = concat_graph(DType::kUint8, {{{1, 1}, 1.012f, 2}, {{1, 1}, 1.0f, 0}}, 1, 1.0f, 0);
  Tensor a = qparity::cli::make_tensor(DType::kUint8, {1, 1});
  a.set_integer(0, 127);
  const Tensor b = qparity::cli::make_tensor(DType::kUint8, {1, 1});
  EXPECT_EQ(run(g, "tflite-xnnpack-x86", {a, b})[0].integer_at(0), 127);
  EXPECT_EQ(run(g, "tflite-xnnpack-wasm", {a, b})[0].integer_at(0), 127);
  EXPECT_EQ(run(g, "tflite-xnnpack-arm", {a, b})[0].integer_at(0), 126);
}

// ---- checks ---------------------------------------------------------------------------------------

TEST(ModelOpsMisc, RejectsWhatTfliteRejects) {
  expect_error([] { softmax_graph(DType::kInt8, {1, 4}, 0.1f, 1.0f, 0); }, "zero point -128");
  expect_error([] { softmax_graph(DType::kUint8, {1, 4}, 0.1f, 1.0f, 0, 1.0f / 128.0f); }, "scale 1/256");
  expect_error([] { softmax_graph(DType::kInt8, {1, 4}, 0.1f, 0.0f); }, "beta = 0");
  expect_error([] { softmax_graph(DType::kInt8, {}, 0.1f, 1.0f); }, "rank >= 1");
  // Fixed point: beta * s_in * 2^26 must exceed 1 (prepare, under the reference system only).
  const Graph tiny = softmax_graph(DType::kInt8, {1, 4}, 1e-9f, 1.0f);
  expect_error([&] { describe(tiny, "tflite-reference"); }, "QuantizeMultiplierGreaterThanOne");
  EXPECT_NO_THROW(describe(tiny, "tflite-xnnpack-wasm"));

  // int8 inputs quantized unlike the output: TFLite and XNNPACK reject them (prepare, naming the
  // node); a float32 style requantizes them (ONNX Runtime's QLinearConcat, below).
  for (const Graph& g : {concat_graph(DType::kInt8, {{{1, 2}, 0.1f, 0}, {{1, 2}, 0.2f, 0}}, 1, 0.1f, 0),
                         concat_graph(DType::kInt8, {{{1, 2}, 0.1f, 1}, {{1, 2}, 0.1f, 0}}, 1, 0.1f, 0)}) {
    for (const char* profile : {"tflite-reference", "tflite-xnnpack-wasm", "tflite-builtin-wasm"}) {
      expect_error([&] { describe(g, profile); }, "does not rescale");
    }
  }
  // A fused activation: TFLite's kernel rejects it, XNNPACK's delegate ignores it.
  const Graph relu =
      concat_graph(DType::kUint8, {{{1, 2}, 0.1f, 128}, {{1, 2}, 0.1f, 128}}, 1, 0.1f, 128, qparity::Activation::kRelu);
  expect_error([&] { describe(relu, "tflite-builtin-wasm"); }, "fused activation RELU");
  expect_error([&] { describe(relu, "tflite-reference"); }, "fused activation RELU");
  EXPECT_NE(joined(describe(relu, "tflite-xnnpack-wasm")).find("RELU ignored"), std::string::npos);
  Tensor low = qparity::cli::make_tensor(DType::kUint8, {1, 2});
  low.set_integer(0, 3);
  EXPECT_EQ(run(relu, "tflite-xnnpack-wasm", {low, low})[0].integer_at(0), 3);  // not clamped to 128
  expect_error([] { concat_graph(DType::kUint8, {{{1, 2}, 0.1f, 0}, {{2, 2}, 0.1f, 0}}, 1, 0.1f, 0); },
               "except along axis 1");
  expect_error([] { concat_graph(DType::kUint8, {{{1, 2}, 0.1f, 0}, {{1, 2}, 0.1f, 0}}, 2, 0.1f, 0); }, "axis 2");

  expect_error([] { pad_graph(false, DType::kInt8, {2, 2}, {0, -1, 0, 0}); }, "allowed: >= 0");
  expect_error([] { pad_graph(false, DType::kInt8, {2, 2}, {0, 1, 0, 0}, DType::kInt32, 7, false); },
               "computed at run time");
  expect_error([] { pad_graph(false, DType::kInt8, {2, 2}, {0, 1, 0, 0}, DType::kInt16); }, "allowed: int32, int64");
  expect_error([] {
    pad_graph(true, DType::kInt8, {2, 2}, {0, 1, 0, 0}, DType::kInt32, 7, true, GraphBuilder::per_tensor(0.25f, 7));
  }, "TFLite's PAD kernel requires them equal");
  // Rank 6: XNNPACK's PAD only; TFLite's kernel takes at most 5 dimensions.
  const Graph six = pad_graph(false, DType::kInt8, {1, 1, 1, 1, 1, 2}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  EXPECT_NO_THROW(describe(six, "tflite-xnnpack-wasm"));
  expect_error([&] { describe(six, "tflite-builtin-wasm"); }, "at most 5 dimensions");
}

// ---- XNNPACK's delegate ---------------------------------------------------------------------------

TEST(ModelOpsMisc, XnnpackTakes) {
  const Graph sm = softmax_graph(DType::kInt8, {1, 4}, 0.1f, 1.0f);
  EXPECT_FALSE(op_of(OpKind::kSoftmax).xnnpack_takes(sm, sm.nodes[0]));
  const Graph same = concat_graph(DType::kUint8, {{{1, 2}, 0.1f, 3}, {{1, 2}, 0.1f, 3}}, 1, 0.1f, 3);
  EXPECT_TRUE(op_of(OpKind::kConcatenation).xnnpack_takes(same, same.nodes[0]));
  const Graph rq = concat_graph(DType::kUint8, {{{1, 2}, 0.1f, 3}, {{1, 2}, 0.2f, 3}}, 1, 0.1f, 3);
  EXPECT_FALSE(op_of(OpKind::kConcatenation).xnnpack_takes(rq, rq.nodes[0]));
  std::vector<ConcatInput> six(6, ConcatInput{{1, 2}, 0.1f, 3});
  const Graph many = concat_graph(DType::kUint8, six, 0, 0.1f, 3);
  EXPECT_FALSE(op_of(OpKind::kConcatenation).xnnpack_takes(many, many.nodes[0]));
  // A one-scale output quantized along dimension 1: declined.
  Graph axis1 = same;
  axis1.tensors[static_cast<std::size_t>(axis1.nodes[0].outputs[0])].quant.axis = 1;
  EXPECT_FALSE(op_of(OpKind::kConcatenation).xnnpack_takes(axis1, axis1.nodes[0]));

  const Graph pad32 = pad_graph(false, DType::kInt8, {2, 2}, {0, 1, 0, 0});
  EXPECT_TRUE(op_of(OpKind::kPad).xnnpack_takes(pad32, pad32.nodes[0]));
  const Graph pad64 = pad_graph(false, DType::kInt8, {2, 2}, {0, 1, 0, 0}, DType::kInt64);
  EXPECT_FALSE(op_of(OpKind::kPad).xnnpack_takes(pad64, pad64.nodes[0]));
  const Graph padv2 = pad_graph(true, DType::kInt8, {2, 2}, {0, 1, 0, 0});
  EXPECT_FALSE(op_of(OpKind::kPadV2).xnnpack_takes(padv2, padv2.nodes[0]));
}

// ---- .tflite ----------------------------------------------------------------------------------------

TEST(ModelOpsMisc, TfliteOptionsRoundTrip) {
  const Graph sm = softmax_graph(DType::kUint8, {2, 5}, 0.1f, 0.375f);
  const Graph rsm = read_tflite(write_tflite(sm), "softmax.tflite");
  EXPECT_EQ(rsm.nodes[0].op, OpKind::kSoftmax);
  EXPECT_EQ(rsm.nodes[0].opts<SoftmaxOptions>().beta, 0.375f);

  const Graph cc = concat_graph(DType::kInt8, {{{2, 1, 3}, 0.1f, 0}, {{2, 4, 3}, 0.1f, 0}}, -2, 0.1f, 0);
  const Graph rcc = read_tflite(write_tflite(cc), "concat.tflite");
  EXPECT_EQ(rcc.nodes[0].op, OpKind::kConcatenation);
  EXPECT_EQ(rcc.nodes[0].opts<ConcatenationOptions>().axis, -2);
  EXPECT_EQ(rcc.tensors[static_cast<std::size_t>(rcc.nodes[0].outputs[0])].shape, (std::vector<std::size_t>{2, 5, 3}));

  for (bool v2 : {false, true}) {
    const Graph p = pad_graph(v2, DType::kUint8, {2, 3}, {1, 0, 0, 2}, DType::kInt64);
    const Graph rp = read_tflite(write_tflite(p), "pad.tflite");
    EXPECT_EQ(rp.nodes[0].op, v2 ? OpKind::kPadV2 : OpKind::kPad);
    std::mt19937 rng(5);
    const std::vector<Tensor> in = {random_tensor(rng, DType::kUint8, {2, 3})};
    EXPECT_EQ(run(p, "tflite-reference", in)[0].bytes, run(rp, "tflite-reference", in)[0].bytes);
  }

  // A one-scale tensor keeps its quantized dimension through the file (XNNPACK declines it).
  Graph axis1 = concat_graph(DType::kUint8, {{{1, 2}, 0.1f, 3}, {{1, 2}, 0.1f, 3}}, 1, 0.1f, 3);
  axis1.tensors[static_cast<std::size_t>(axis1.nodes[0].outputs[0])].quant.axis = 1;
  const Graph raxis1 = read_tflite(write_tflite(axis1), "axis1.tflite");
  EXPECT_FALSE(op_of(OpKind::kConcatenation).xnnpack_takes(raxis1, raxis1.nodes[0]));
}

}  // namespace
