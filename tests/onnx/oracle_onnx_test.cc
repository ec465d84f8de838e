// ONNX models in the real ONNX Runtime (npm onnxruntime-node, CPU execution provider, one thread) at
// graph optimization levels `all` and `disabled`, against qparity's .onnx reader and runner under
// profile ort-cpu, element by element. Contrast arithmetics show the comparison can fail: the
// rows built to separate roundings (ties) must get elements wrong under tflite-reference, and the
// full-range u8 x s8 rows must get elements wrong under the ORT variant of the other CPU kind
// (ort-cpu-avx2's int16 pair saturation on a VNNI CPU, ort-cpu-vnni's exact int32 on one without).
// Label oracle; fails (never skips) without node or the npm package.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <functional>
#include <map>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "model/system.h"
#include "onnx_test_models.h"
#include "oracle_tally.h"
#include "onnx_test_support.h"
#include "ort_runner.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;

constexpr DType kS8 = DType::kInt8;
constexpr DType kU8 = DType::kUint8;

struct OrtCase {
  std::string op;  ///< tally row: "QLinearConv u8 x s8 per-channel"
  BuiltOnnx model;
  bool u8s8 = false;  ///< u8 activations x s8 weights through a GEMM (pair saturation on non-VNNI CPUs)
  bool ties = false;  ///< built to separate roundings: `contrast` must get elements wrong
  std::string contrast = "tflite-reference";
  std::vector<std::uint8_t> contrast_model = {};  ///< when set, the contrast is this model (same inputs) under ort-cpu
};


std::vector<OrtCase> conv_cases() {
  std::vector<OrtCase> cases;
  auto conv = [&](const std::string& op, QConvSpec s, bool u8s8 = false, bool ties = false) {
    cases.push_back({op, qlinear_conv_model(s), u8s8, ties});
  };
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    QConvSpec s;
    s.seed = seed;
    conv("QLinearConv s8 x s8 per-channel", s);
    s.per_channel = false;
    s.stride = 2;
    s.auto_pad = "SAME_UPPER";
    s.seed = seed + 10;
    conv("QLinearConv s8 x s8 per-tensor", s);
  }
  {
    QConvSpec s;  // dilation, asymmetric pads, no bias
    s.dilation = 2;
    s.pads = {0, 1, 2, 1};
    s.bias = false;
    s.h = s.wd = 9;
    s.seed = 3;
    conv("QLinearConv s8 x s8 per-channel", s);
    s.auto_pad = "SAME_LOWER";
    s.dilation = 1;
    s.stride = 2;
    s.seed = 4;
    conv("QLinearConv s8 x s8 per-channel", s);
  }
  {
    QConvSpec s;  // ties of both signs: the multiplier 0.5 * 0.25 / 1 = 1/8 makes acc = 4 mod 8 exact halves
    s.x_scale = 0.5f;
    s.w_scale = 0.25f;
    s.y_scale = 1.0f;
    s.per_channel = false;
    s.x_zp = 0;
    s.y_zp = 0;
    s.w_lo = -3;
    s.w_hi = 3;
    s.x_lo = -10;
    s.x_hi = 10;
    s.bias = false;
    s.seed = 5;
    conv("QLinearConv s8 x s8 ties", s, false, true);
    s.x = kU8;  // uint8: the zero points move the ties
    s.x_zp = 100;
    s.y_zp = 128;
    s.x_lo = 90;
    s.x_hi = 110;
    s.seed = 7;
    conv("QLinearConv u8 x s8 ties", s, false, true);
  }
  {
    QConvSpec s;  // saturation: a tiny output scale sends most outputs to -128 / 127
    s.y_scale = 0.004f;
    s.seed = 6;
    conv("QLinearConv s8 x s8 saturation", s);
  }
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    QConvSpec s;  // uint8 x uint8 (per-tensor: ORT's u8 x u8 per-channel path is the same kernel)
    s.x = kU8;
    s.w = kU8;
    s.x_zp = 128;
    s.w_zp = 120;
    s.y_zp = 131;
    s.per_channel = seed == 2;
    s.seed = 20 + seed;
    conv(std::string("QLinearConv u8 x u8 ") + (s.per_channel ? "per-channel" : "per-tensor"), s);
  }
  for (std::size_t c : {std::size_t{5}, std::size_t{8}, std::size_t{16}}) {
    QConvSpec s;  // u8 activations x s8 weights, full range: K pairs saturate on CPUs without VNNI
    s.x = kU8;
    s.x_zp = 128;
    s.y_zp = 128;
    s.c = c;
    s.seed = 30 + c;
    s.per_channel = c != 8;
    s.y_scale = 0.2f;
    conv(std::string("QLinearConv u8 x s8 ") + (s.per_channel ? "per-channel" : "per-tensor"), s, true);
  }
  {
    QConvSpec s;  // 1x1 u8 x s8, the pointwise shape of MobileNet
    s.x = kU8;
    s.x_zp = 100;
    s.y_zp = 128;
    s.c = 12;
    s.kh = s.kw = 1;
    s.pads = {0, 0, 0, 0};
    s.seed = 40;
    conv("QLinearConv u8 x s8 per-channel", s, true);
  }
  for (DType x : {kS8, kU8}) {
    QConvSpec s;  // grouped: 3 groups of 4 input channels, 2 or 4 filters each
    s.x = x;
    s.x_zp = x == kU8 ? 128 : 3;
    s.y_zp = x == kU8 ? 125 : -5;
    s.c = 12;
    s.group = 3;
    s.m = x == kU8 ? 6 : 12;
    s.seed = 60 + (x == kU8 ? 1 : 0);
    conv(std::string("QLinearConv grouped ") + (x == kU8 ? "u8" : "s8") + " x s8", s, x == kU8);
  }
  for (DType x : {kS8, kU8}) {
    for (DType w : {kS8, kU8}) {
      if (x == kS8 && w == kU8) continue;  // ORT has no s8 x u8 convolution kernel
      QConvSpec s;                         // depthwise, multiplier 1 and 2
      s.x = x;
      s.w = w;
      s.x_zp = x == kU8 ? 128 : 3;
      s.y_zp = x == kU8 ? 125 : -5;
      s.w_zp = w == kU8 ? 127 : 0;
      s.c = 6;
      s.group = 6;
      s.m = w == kU8 ? 6 : 12;
      s.per_channel = w == kS8;
      s.seed = 50 + (x == kU8 ? 2 : 0) + (w == kU8 ? 1 : 0);
      conv(std::string("QLinearConv depthwise ") + (x == kU8 ? "u8" : "s8") + " x " + (w == kU8 ? "u8" : "s8"), s);
    }
  }
  return cases;
}

std::vector<OrtCase> matmul_cases() {
  std::vector<OrtCase> cases;
  auto mm = [&](const std::string& op, QMatMulSpec s, bool u8s8 = false) {
    cases.push_back({op, qlinear_matmul_model(s), u8s8});
  };
  {
    QMatMulSpec s;
    mm("QLinearMatMul s8 x s8 per-tensor", s);
    s.a_shape = {2, 3, 33};
    s.seed = 2;
    mm("QLinearMatMul s8 x s8 per-tensor", s);
    s.per_column = true;
    s.seed = 12;
    mm("QLinearMatMul s8 x s8 per-column", s);
  }
  {
    QMatMulSpec s;
    s.a = kU8;
    s.b = kU8;
    s.a_zp = 128;
    s.b_zp = 128;
    s.y_zp = 128;
    s.seed = 3;
    mm("QLinearMatMul u8 x u8 per-tensor", s);
  }
  for (std::size_t k : {std::size_t{24}, std::size_t{33}}) {
    QMatMulSpec s;
    s.a = kU8;
    s.a_zp = 128;
    s.y_zp = 128;
    s.a_shape = {7, k};
    s.y_scale = 0.2f;
    s.seed = 4 + k;
    mm("QLinearMatMul u8 x s8 per-tensor", s, true);
    s.per_column = true;
    s.seed = 40 + k;
    mm("QLinearMatMul u8 x s8 per-column", s, true);
  }
  return cases;
}

void run_cases(const std::vector<OrtCase>& cases) {
  const bool vnni = qparity::model::cpu_has_vnni();
  std::printf("this CPU %s VNNI: ort-cpu runs as %s\n", vnni ? "has" : "lacks", vnni ? "ort-cpu-vnni" : "ort-cpu-avx2");
  std::map<std::string, std::size_t> contrast_wrong, contrast_elements;
  std::vector<OrtJob> jobs;
  for (const OrtCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  for (const char* opt : {"all", "disabled"}) {
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const OrtCase& c = cases[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, "ort-cpu"));
      if (ours.wrong != 0) ADD_FAILURE() << c.model.label << " (ORT opt " << opt << ") under ort-cpu: " << ours.first;
      tally(c.op, std::string("ORT opt ") + opt, "ort-cpu", ours.elements, ours.wrong);
      std::vector<std::string> contrasts;
      if (c.ties) contrasts.push_back(c.contrast);
      if (c.u8s8) contrasts.push_back(vnni ? "ort-cpu-avx2" : "ort-cpu-vnni");
      for (const std::string& other : contrasts) {
        const bool other_model = !c.contrast_model.empty() && other == c.contrast;
        const OutputsCompared theirs = compare_outputs(
            ort, other_model
                     ? run_qparity(qparity::model::read_onnx(c.contrast_model, c.contrast), c.model.inputs, "ort-cpu")
                     : run_qparity(g, c.model.inputs, other));
        tally(c.op, std::string("ORT opt ") + opt, other + " (contrast)", ours.elements, theirs.wrong);
        contrast_wrong[c.op + " / " + other] += theirs.wrong;
        contrast_elements[c.op + " / " + other] += ours.elements;
      }
      return ours.elements;
    });
  }
  for (const auto& [row, wrong] : contrast_wrong) {
    EXPECT_GT(wrong, 0u) << row << ": the contrast agrees with ORT on all " << contrast_elements[row]
                         << " elements, so this comparison could not fail";
  }
}

TEST(OnnxOracle, QLinearConvBitExactWithOrtCpu) {
  run_cases(conv_cases());
}

TEST(OnnxOracle, QLinearMatMulBitExactWithOrtCpu) {
  run_cases(matmul_cases());
}

// `bytes` with initializer `name` changed by `change` (its raw_data).
std::vector<std::uint8_t> with_initializer(const std::vector<std::uint8_t>& bytes, const std::string& name,
                                           const std::function<void(std::string&)>& change) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() == name) change(*t.mutable_raw_data());
  }
  const std::string out = m.SerializeAsString();
  return {out.begin(), out.end()};
}

// QLinearMatMul (integer = false) or MatMulInteger (true) with an N-D or run-time b (BATCH_MATMUL,
// one MLAS GEMM per batch; MatMulInteger's int32 sums accumulate-only): constant and input b, batch
// dimensions broadcast either way, s8 x s8, u8 x s8 and u8 x u8, full-range data. Contrasts, each
// must get elements wrong: for s8 x s8, the product with a constant b's matrices taken in reverse
// order (a wrong batch mapping) or with a run-time b's zero point off by one; for u8 x s8, the other
// CPU's accumulation (K pairs saturated to int16 without VNNI).
void run_batched_matmul_cases(bool integer) {
  std::vector<OrtCase> cases;
  struct Shapes {
    std::vector<std::size_t> a, b;
  };
  const Shapes shapes[] = {{{2, 3, 5, 24}, {3, 24, 7}}, {{4, 6, 40}, {4, 40, 9}}, {{3, 1, 4, 16}, {1, 2, 16, 5}},
                           {{6, 32}, {2, 32, 8}}};
  std::uint64_t seed = 600;
  for (const bool b_input : {false, true}) {
    for (const Shapes& sh : shapes) {
      for (const auto& [a, b] : {std::pair{kS8, kS8}, std::pair{kU8, kS8}, std::pair{kU8, kU8}}) {
        QBatchMatMulSpec s;
        s.a = a;
        s.b = b;
        s.a_shape = sh.a;
        s.b_shape = sh.b;
        s.b_input = b_input;
        s.a_zp = a == kU8 ? 131 : 3;
        s.b_zp = b == kU8 ? 120 : -2;
        s.y_zp = a == kU8 ? 128 : -5;
        s.seed = seed++;
        OrtCase c{fmt::format("{} N-D b {} {} x {}", integer ? "MatMulInteger" : "QLinearMatMul",
                              b_input ? "input" : "constant", qparity::cli::to_string(a), qparity::cli::to_string(b)),
                  integer ? matmul_integer_batch_model(s) : qlinear_batch_matmul_model(s), a == kU8 && b == kS8,
                  a == kS8};
        if (a == kS8) {
          const std::size_t matrix = sh.b[sh.b.size() - 2] * sh.b.back();
          c.contrast = b_input ? "b zero point + 1" : "b's matrices reversed";
          c.contrast_model = with_initializer(c.model.bytes, b_input ? "b_zero_point" : "b", [&](std::string& raw) {
            if (b_input) {
              raw[0] = static_cast<char>(raw[0] + 1);
              return;
            }
            std::string reversed;
            for (std::size_t at = raw.size(); at >= matrix; at -= matrix) reversed += raw.substr(at - matrix, matrix);
            raw = reversed;
          });
        }
        cases.push_back(std::move(c));
      }
    }
  }
  run_cases(cases);
}

TEST(OnnxOracle, QLinearMatMulBatchedBitExactWithOrtCpu) { run_batched_matmul_cases(/*integer=*/false); }

TEST(OnnxOracle, MatMulIntegerBatchedBitExactWithOrtCpu) { run_batched_matmul_cases(/*integer=*/true); }

// MatMulInteger: the raw int32 results (no requantization) of the type pairs ORT registers (u8 x u8,
// u8 x s8, s8 x s8), without zero points, with scalar ones and with B's per column, full-range data.
// u8 x s8 rows are the ones whose K pairs saturate in MLAS's kernel on CPUs without VNNI (the
// contrast profile must differ there).
TEST(OnnxOracle, MatMulIntegerBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 400;
  for (DType a : {kS8, kU8}) {
    for (DType b : {kS8, kU8}) {
      if (a == kS8 && b == kU8) continue;  // ORT has no s8 x u8 MatMulInteger kernel
      for (int zp = 0; zp < 3; ++zp) {
        MatMulIntegerSpec s;
        s.a = a;
        s.b = b;
        s.a_zero_point = zp >= 1;
        s.b_zero_point = zp >= 1;
        s.b_per_column = zp == 2;
        s.a_zp = a == kU8 ? 128 : -3;
        s.b_zp = b == kU8 ? 131 : 2;
        s.a_shape = zp == 2 ? std::vector<std::size_t>{2, 5, 33} : std::vector<std::size_t>{12, 64};
        s.n = zp == 2 ? 10 : 16;
        s.seed = seed++;
        const std::string row = std::string("MatMulInteger ") + (a == kU8 ? "u8" : "s8") + " x " +
                                (b == kU8 ? "u8" : "s8") +
                                (zp == 0   ? " no zero points"
                                 : zp == 1 ? " scalar zero points"
                                           : " b per column");
        cases.push_back({row, matmul_integer_model(s), a == kU8 && b == kS8});
      }
    }
  }
  run_cases(cases);
}

// ConvInteger: the raw int32 results of the one type pair ORT registers (u8 x u8), full-range data,
// with and without zero points, padded (ORT pads with x_zero_point), strided and dilated, grouped and
// depthwise.
TEST(OnnxOracle, ConvIntegerBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 500;
  for (int shape = 0; shape < 5; ++shape) {
    ConvIntegerSpec s;
    s.x_zero_point = shape != 1;
    s.w_zero_point = shape != 1 && shape != 4;
    s.x_zp = 131;
    s.w_zp = 117;
    std::string row = "ConvInteger u8 x u8";
    if (shape == 1) row += " no zero points";
    if (shape == 2) {
      s.stride = 2;
      s.dilation = 2;
      s.pads = {0, 2, 1, 0};
      s.h = s.wd = 11;
      row += " stride 2 dilation 2";
    } else if (shape == 3) {
      s.c = 6;
      s.group = 3;
      row += " grouped";
    } else if (shape == 4) {
      s.c = 4;
      s.group = 4;
      s.m = 8;
      row += " depthwise";
    }
    s.seed = seed++;
    cases.push_back({row, conv_integer_model(s)});
  }
  run_cases(cases);
}

// com.microsoft QLinearMul: ONNX Runtime's own float32 formula (product of the corrected inputs in
// int32, times float(s1 s2 / so), plus the zero point, round half to even). The generic float32
// formula of fbgemm's system (dequantize both, multiply, divide by the output scale) is the
// contrast: the two differ where the float32 roundings land on different sides of a half.
TEST(OnnxOracle, QLinearMulBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 1;
  for (DType t : {kS8, kU8}) {
    for (bool scalar : {false, true}) {
      for (float cs : {0.2f, 0.013f, 1.7f}) {  // moderate, saturating, coarse
        QMulSpec s;
        s.t = t;
        s.b_scalar = scalar;
        s.c_scale = cs;
        if (t == kU8) {
          s.a_zp = 128;
          s.b_zp = 120;
          s.c_zp = 131;
        }
        s.seed = seed++;
        OrtCase c{std::string("QLinearMul ") + (t == kU8 ? "u8" : "s8") + (scalar ? " scalar b" : ""),
                  qlinear_mul_model(s)};
        c.ties = true;
        // A scalar b leaves at most 256 distinct products: too few to rely on the two float32
        // formulas parting; TFLite's integer MUL is the contrast there.
        c.contrast = scalar ? "tflite-reference" : "fbgemm";
        cases.push_back(std::move(c));
      }
    }
  }
  run_cases(cases);
}

// com.microsoft QLinearAdd: ONNX Runtime's AVX2 kernel (float32 ratios, a fixed part, two FMAs on
// the raw inputs, round half to even). Random scales; and exact binary ratios (1/2, 1/4) that put
// many sums on exact halves, where TFLite's integer ADD (ties away from zero) must differ.
TEST(OnnxOracle, QLinearAddBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 100;
  for (DType t : {kS8, kU8}) {
    for (bool scalar : {false, true}) {
      for (int k = 0; k < 4; ++k) {
        QMulSpec s;
        s.op = "QLinearAdd";
        s.t = t;
        s.b_scalar = scalar;
        const bool ties = k == 3;
        if (ties) {
          s.a_scale = 0.5f;
          s.b_scale = 0.25f;
          s.c_scale = 1.0f;
        } else {
          s.c_scale = k == 0 ? 0.07f : k == 1 ? 0.013f : 0.31f;  // moderate, saturating, coarse
        }
        if (t == kU8) {
          s.a_zp = 128;
          s.b_zp = 120;
          s.c_zp = 131;
        }
        s.seed = seed++;
        OrtCase c{
            std::string("QLinearAdd ") + (t == kU8 ? "u8" : "s8") + (scalar ? " scalar b" : "") + (ties ? " ties" : ""),
            qlinear_mul_model(s)};
        c.ties = ties;
        cases.push_back(std::move(c));
      }
    }
  }
  run_cases(cases);
}

// com.microsoft QLinearGlobalAveragePool: the int32 sum, one float32 multiply by
// float(si / (so * pixels)), clamp, round half to even. Random scales and sizes; and 4x4 images
// with si = so = 0.5 (the multiplier exactly 1/16, so sums = 8 mod 16 are exact halves), where
// TFLite's MEAN (ties away from zero) must differ.
TEST(OnnxOracle, QLinearGlobalAveragePoolBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 200;
  for (DType t : {kU8, kS8}) {
    for (std::size_t hw : {std::size_t{4}, std::size_t{7}, std::size_t{10}, std::size_t{13}}) {
      for (float ys : {0.02f, 0.0031f, 0.05f}) {
        const bool ties = hw == 4;
        QGapSpec s;
        s.t = t;
        s.shape = {2, 24, hw, hw};
        s.y_scale = ties ? 0.5f : ys;
        if (ties) s.x_scale = 0.5f;
        if (t == kS8) {
          s.x_zp = -3;
          s.y_zp = 4;
        }
        s.seed = seed++;
        OrtCase c{std::string("QLinearGlobalAveragePool ") + (t == kU8 ? "u8" : "s8") + (ties ? " ties" : ""),
                  qlinear_global_average_pool_model(s)};
        c.ties = ties;
        cases.push_back(std::move(c));
        if (ties) break;  // one model per type: the scales do not vary
      }
    }
  }
  run_cases(cases);
}

// com.microsoft QLinearConcat: inputs with their own scales and zero points are rescaled, int8 and
// uint8 (ORT's lookup table per input: dequantize, divide by the output scale, round half to even,
// saturate); inputs quantized like the output are copied. Along C, H and W, from graph inputs (ONNX
// layout) and after convolutions (NHWC). Contrasts: TFLite's uint8 CONCATENATION (ties away from
// zero) for u8; for s8, which TFLite refuses to rescale, an NPU arithmetic (one Q15 rounding, ties away).
TEST(OnnxOracle, QLinearConcatBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 300;
  for (DType t : {kU8, kS8}) {
    for (int kind = 0; kind < 3; ++kind) {  // rescaled, rescaled with ties and saturation, same quantization
      const bool same = kind == 2;
      if (same && t == kU8) continue;
      for (bool convs : {false, true}) {
        for (std::int64_t axis : {1, 2, -1}) {
          QConcatSpec s;
          s.t = t;
          s.after_convs = convs;
          s.axis = axis;
          s.same_quantization = same;
          s.ties = kind == 1;
          s.seed = seed++;
          OrtCase c{std::string("QLinearConcat ") + (t == kU8 ? "u8" : "s8") + (same ? "" : " rescaled") +
                        (s.ties ? " ties" : "") + (convs ? " after convs" : ""),
                    qlinear_concat_model(s)};
          c.ties = !same;  // the rescaled rows: the contrast arithmetic must get elements wrong
          if (t == kS8) c.contrast = "npu-haz-q15-int32";
          cases.push_back(std::move(c));
        }
      }
    }
  }
  run_cases(cases);
}

// com.microsoft QLinearAveragePool: each tap dequantized to float32, summed in row order, divided
// by the in-image tap count (count_include_pad 0) or the window's (1), quantized with the zero point
// added in float before round half to even. VALID and SAME_UPPER windows (partial windows at the
// edges; and explicit asymmetric pads and SAME_LOWER, below), int8 and uint8; 2x2 windows with
// si = so = 0.5 for exact halves (ties), where TFLite's
// AVERAGE_POOL_2D (ties away from zero on the raw mean) must differ; y_scale 0.003 for saturation.
// Contrasts: the ties rows (TFLite's AVERAGE_POOL_2D), and the count_include_pad rows (the same model
// and data with count_include_pad 0, whose edge windows divide by fewer taps).
TEST(OnnxOracle, QLinearAveragePoolBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  std::uint64_t seed = 400;
  for (DType t : {kU8, kS8}) {
    for (int v = 0; v < 7; ++v) {
      QAvgPoolSpec s;
      s.t = t;
      if (t == kS8) {
        s.x_zp = -4;
        s.y_zp = 2;
      }
      s.same_upper = v == 1 || v == 2 || v >= 4;
      s.count_include_pad = v == 4 || v == 5;
      s.k = v == 2 || v == 5 ? 2 : 3;
      s.stride = v == 2 || v == 5 ? 1 : 2;
      if (v == 3) {  // ties
        s.k = 2;
        s.stride = 2;
        s.x_scale = s.y_scale = 0.5f;
        s.y_zp = s.x_zp;
      }
      if (v == 6) s.y_scale = 0.003f;  // saturation at both ends
      s.seed = seed++;
      std::string row = std::string("QLinearAveragePool ") + (t == kU8 ? "u8" : "s8");
      if (s.same_upper) row += s.count_include_pad ? " SAME_UPPER count_include_pad" : " SAME_UPPER";
      if (v == 3) row += " ties";
      if (v == 6) row += " saturating";
      OrtCase c{row, qlinear_average_pool_model(s)};
      c.ties = v == 3;
      if (s.count_include_pad) {
        c.ties = true;
        c.contrast = "count_include_pad 0";
        s.count_include_pad = false;
        c.contrast_model = qlinear_average_pool_model(s).bytes;  // same seed: same input
      }
      cases.push_back(std::move(c));
    }
    // Explicit asymmetric pads and SAME_LOWER (the odd padding pixel at the top / left), padding
    // counted in the divisor or not, one scale (means on exact halves). Contrasts: the same input
    // with the pads mirrored, and SAME_UPPER for SAME_LOWER (other windows, same output shape).
    for (int v = 0; v < 4; ++v) {
      QAvgPoolSpec s;
      s.t = t;
      s.shape = {1, 5, 7, 17};
      s.x_scale = s.y_scale = 0.5f;
      s.x_zp = s.y_zp = t == kU8 ? 255 : -128;
      s.count_include_pad = v % 2 == 1;
      s.seed = seed++;
      QAvgPoolSpec contrast = s;
      std::string row = std::string("QLinearAveragePool ") + (t == kU8 ? "u8" : "s8");
      if (v < 2) {
        s.k = 3;
        s.kw = 2;
        s.stride = 1;
        s.pads = {2, 0, 1, 1};
        contrast = s;
        contrast.pads = {1, 1, 2, 0};
        row += " explicit pads";
      } else {
        s.k = 2;  // an odd padding total on both axes: SAME_LOWER and SAME_UPPER part
        s.stride = 1;
        s.auto_pad = "SAME_LOWER";
        contrast = s;
        contrast.auto_pad = "SAME_UPPER";
        row += " SAME_LOWER";
      }
      if (s.count_include_pad) row += " count_include_pad";
      OrtCase c{row, qlinear_average_pool_model(s)};
      c.ties = true;
      c.contrast = v < 2 ? "mirrored pads" : "SAME_UPPER";
      c.contrast_model = qlinear_average_pool_model(contrast).bytes;
      cases.push_back(std::move(c));
    }
  }
  run_cases(cases);
}

// Whole models: chains of convolutions whose intermediate values stay NHWC in qparity's graph.
TEST(OnnxOracle, ConvChainModelsBitExactWithOrtCpu) {
  std::vector<OrtCase> cases;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    cases.push_back({"QLinearConv chain s8", qlinear_chain_model(kS8, seed)});
    cases.push_back({"QLinearConv chain u8 x s8", qlinear_chain_model(kU8, seed), true});
  }
  // A residual block and a classifier head: convolutions, QLinearAdd, QLinearGlobalAveragePool,
  // Flatten, QLinearMatMul (its output is a 10-vector, so many seeds).
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    cases.push_back({"ResNet block + head s8", resnet_block_model(kS8, seed)});
    cases.push_back({"ResNet block + head u8 x s8", resnet_block_model(kU8, seed)});
  }
  run_cases(cases);
}

}  // namespace
}  // namespace qparity_test
