// QDQ-form ONNX models (DequantizeLinear -> operator -> QuantizeLinear) in the real ONNX Runtime
// (npm onnxruntime-node, CPU execution provider, one thread) against qparity's reader and runner:
// at graph optimization level `all` under profile ort-cpu (uint8 groups fused into QLinear
// operators, int8 Conv and MatMul groups in float32 unless ORT makes their Q -> DQ pairs uint8), at
// level `disabled` under ort-cpu-unfused (every group in float32), element by element. Contrasts show each comparison can fail: rows built to part the
// arithmetics (cancelling sums, exact halves) must get elements wrong under the other arithmetic
// (the onnxruntime preset's QLinear formulas for a float32 group, ort-cpu-unfused for a fused one).
// Label oracle; fails (never skips) without node or the npm package.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "qparity/reference/quantize.h"
#include "onnx_qdq_models.h"
#include "oracle_tally.h"
#include "onnx_test_support.h"
#include "ort_runner.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;

constexpr DType kS8 = DType::kInt8;
constexpr DType kU8 = DType::kUint8;

struct QdqCase {
  std::string op;  ///< tally row
  BuiltOnnx model;
  bool parts = false;       ///< built to part the float32 and the QLinear arithmetic: the contrast must differ
  bool fused_int8 = false;  ///< ORT fuses the int8 group too at level all (Add, Mul; Conv, MatMul between single-consumer pairs)
};


// Where ORT fuses the case's groups (level all: uint8 activations, and Add / Mul of either type)
// the contrast is the float32 arithmetic, else the QLinear one.
void run_cases(const std::vector<QdqCase>& cases) {
  std::map<std::string, std::size_t> contrast_wrong, contrast_elements;
  std::vector<OrtJob> jobs;
  for (const QdqCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const QdqCase& c = cases[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      if (ours.wrong != 0) {
        ADD_FAILURE() << c.model.label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      }
      tally(c.op, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      const bool fused = std::string(opt) == "all" && (c.model.inputs[0].dtype == kU8 || c.fused_int8);
      const std::string other = fused ? "ort-cpu-unfused" : "onnxruntime";
      const std::size_t wrong = compare_outputs(ort, run_qparity(g, c.model.inputs, other)).wrong;
      tally(c.op, std::string("ORT opt ") + opt, other + " (contrast)", ours.elements, wrong);
      if (c.parts) {
        contrast_wrong[c.op + " / opt " + opt + " / " + other] += wrong;
        contrast_elements[c.op + " / opt " + opt + " / " + other] += ours.elements;
      }
      return ours.elements;
    });
  }
  for (const auto& [row, wrong] : contrast_wrong) {
    EXPECT_GT(wrong, 0u) << row << ": the contrast agrees with ORT on all " << contrast_elements[row]
                         << " elements, so this comparison could not fail";
  }
}

// AveragePool groups whose windows reach into SAME_UPPER padding (divisors 4 and 6), int8 and uint8:
// ORT fuses them into QLinearAveragePool at level all (zero point added before the rounding), which
// ort-cpu reproduces; at level disabled it runs MLAS's float AveragePool (columns summed first),
// which ort-cpu-unfused reproduces. The contrast, a float32 style with the zero point after the
// rounding (fbgemm), must get elements wrong.
TEST(OnnxQdqOracle, PaddedAveragePoolFusedAtLevelAll) {
  std::vector<QdqCase> cases;
  std::uint64_t seed = 850;
  for (DType t : {kS8, kU8}) {
    for (std::int64_t k : {2, 3}) {
      QdqPoolSpec s;
      s.op = "AveragePool";
      s.t = t;
      s.shape = {1, 16, 11, 9};
      s.same_upper = true;
      s.k = k;
      s.stride = k - 1;
      if (t == kU8) {
        s.x_zp = 128;
        s.y_zp = 120;
      }
      s.seed = seed++;
      cases.push_back({std::string("QDQ AveragePool SAME_UPPER ") + (t == kU8 ? "u8" : "s8"), qdq_pool_model(s)});
    }
  }
  std::vector<OrtJob> jobs;
  for (const QdqCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::size_t contrast_wrong = 0;
  for_each_ort_result(jobs, "all", [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
    const QdqCase& c = cases[i];
    std::size_t elements = 0;
    for (const char* profile : {"ort-cpu", "fbgemm"}) {
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      const bool contrast = std::string(profile) != "ort-cpu";
      if (!contrast) {
        EXPECT_EQ(ours.wrong, 0u) << c.model.label << ": " << ours.first;
      }
      contrast_wrong += contrast ? ours.wrong : 0;
      tally(c.op, "ORT opt all", contrast ? std::string(profile) + " (contrast)" : profile, ours.elements, ours.wrong);
      elements = ours.elements;
    }
    return elements;
  });
  for_each_ort_result(jobs, "disabled", [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
    const QdqCase& c = cases[i];
    const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, "ort-cpu-unfused"));
    EXPECT_EQ(ours.wrong, 0u) << c.model.label << " (disabled): " << ours.first;
    tally(c.op, "ORT opt disabled", "ort-cpu-unfused", ours.elements, ours.wrong);
    return ours.elements;
  });
  EXPECT_GT(contrast_wrong, 0u) << "the contrast agrees with ORT everywhere: the comparison could not fail";
}

// Transpose groups. One quantization on both sides (ORT drops the Q/DQ pair at level all and
// dequantizes, copies and quantizes at level disabled): TRANSPOSE, the bytes moved; 4-D with an
// explicit perm and 3-D with the default reversal. Requantizing (ORT keeps the pair at both levels):
// TRANSPOSE then a one-input CONCATENATION with ORT's dequantize / divide / round-half-even formula.
// int8 and uint8, full range. Contrasts: the model with another perm of the same output shape must
// get elements wrong, and on the requantizing rows an NPU arithmetic (one Q15 rounding) too.
TEST(OnnxQdqOracle, TransposeBitExact) {
  struct Case {
    BuiltOnnx model, contrast;
    bool requantizes = false;
  };
  std::vector<Case> cases;
  std::uint64_t seed = 870;
  for (DType t : {kS8, kU8}) {
    // The contrast perms give the same output shape, so the bytes, not the shape, must differ.
    cases.push_back({qdq_transpose_model(t, {2, 4, 4, 4}, {0, 2, 3, 1}, seed),
                     qdq_transpose_model(t, {2, 4, 4, 4}, {0, 3, 2, 1}, seed)});
    ++seed;
    cases.push_back({qdq_transpose_model(t, {5, 6, 5}, {}, seed), qdq_transpose_model(t, {5, 6, 5}, {0, 1, 2}, seed)});
    ++seed;
    // Requantizing: coarser scales and shifted zero points (rounding, saturation at both ends).
    for (const auto& [ys, shift] : {std::pair<float, std::int64_t>{0.061f, 9}, {0.074f, -3}}) {
      cases.push_back({qdq_transpose_model(t, {2, 4, 4, 4}, {0, 2, 3, 1}, seed, ys, shift),
                       qdq_transpose_model(t, {2, 4, 4, 4}, {0, 3, 2, 1}, seed, ys, shift), true});
      ++seed;
    }
  }
  std::vector<OrtJob> jobs;
  for (const Case& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::size_t npu_wrong_total = 0;
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const Case& c = cases[i];
      const std::string row = std::string("QDQ Transpose ") + (c.model.inputs[0].dtype == kU8 ? "u8" : "s8");
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      EXPECT_EQ(ours.wrong, 0u) << c.model.label << " (ORT opt " << opt << "): " << ours.first;
      tally(row, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      const std::size_t wrong =
          compare_outputs(ort, run_qparity(qparity::model::read_onnx(c.contrast.bytes, c.contrast.label),
                                           c.model.inputs, profile))
              .wrong;
      EXPECT_GT(wrong, 0u) << c.contrast.label << ": another perm gave ORT's bytes, so the comparison could not fail";
      tally(row, std::string("ORT opt ") + opt, "another perm (contrast)", ours.elements, wrong);
      if (c.requantizes) {
        const std::size_t npu_wrong = compare_outputs(ort, run_qparity(g, c.model.inputs, "npu-haz-q15-int32")).wrong;
        npu_wrong_total += npu_wrong;
        tally(row + " requantizing", std::string("ORT opt ") + opt, "npu-haz-q15-int32 (contrast)", ours.elements,
              npu_wrong);
      }
      return ours.elements;
    });
  }
  EXPECT_GT(npu_wrong_total, 0u) << "the NPU requantization agrees with ORT on every requantizing row";
}

TEST(OnnxQdqOracle, ConvBitExact) {
  std::vector<QdqCase> cases;
  std::uint64_t seed = 500;
  for (DType x : {kS8, kU8}) {
    const std::string t = x == kU8 ? "u8" : "s8";
    auto spec = [&](bool per_channel) {
      QdqConvSpec s;
      s.conv.x = x;
      s.conv.x_zp = x == kU8 ? 128 : 3;
      s.conv.y_zp = x == kU8 ? 120 : -5;
      s.conv.per_channel = per_channel;
      s.conv.seed = seed++;
      return s;
    };
    for (bool pc : {false, true})
      cases.push_back({"QDQ Conv " + t + (pc ? " per-channel" : " per-tensor"), qdq_conv_model(spec(pc))});
    for (const char* act : {"Relu", "Clip6"}) {
      QdqConvSpec s = spec(true);
      s.activation = act;
      s.conv.y_scale = 0.03f;
      cases.push_back({"QDQ Conv " + t + " + " + act, qdq_conv_model(s)});
    }
    {
      QdqConvSpec s = spec(true);  // saturation
      s.conv.y_scale = 0.004f;
      cases.push_back({"QDQ Conv " + t + " saturation", qdq_conv_model(s)});
    }
    {
      QdqConvSpec s = spec(true);  // depthwise, multiplier 1 and 2
      s.conv.c = 6;
      s.conv.group = 6;
      s.conv.m = 12;
      cases.push_back({"QDQ Conv " + t + " depthwise", qdq_conv_model(s)});
      s.conv.m = 6;
      s.conv.seed = seed++;
      cases.push_back({"QDQ Conv " + t + " depthwise", qdq_conv_model(s)});
    }
    {
      QdqConvSpec s = spec(true);  // grouped: 3 groups of 4 input channels, 2 filters each
      s.conv.c = 12;
      s.conv.group = 3;
      s.conv.m = 6;
      cases.push_back({"QDQ Conv " + t + " grouped", qdq_conv_model(s)});
    }
    {
      QdqConvSpec s = spec(true);  // 1x1 (MLAS's direct GEMM)
      s.conv.kh = s.conv.kw = 1;
      s.conv.pads = {0, 0, 0, 0};
      s.conv.c = 12;
      cases.push_back({"QDQ Conv " + t + " 1x1", qdq_conv_model(s)});
    }
    // Cancelling sums: K = 144 (one MLAS K slice of 128 and one of 16), K = 576 (slices of 256:
    // N = 36 doubles the slice twice), K = 160 with 1x1 and N = 100 (a direct GEMM).
    for (const auto& [c, h, k] :
         {std::tuple<std::size_t, std::size_t, std::size_t>{16, 10, 3}, {64, 6, 3}, {160, 10, 1}}) {
      QdqConvSpec s = spec(true);
      s.cancelling = true;
      s.conv.c = c;
      s.conv.h = s.conv.wd = h;
      s.conv.kh = s.conv.kw = k;
      s.conv.pads = k == 1 ? std::vector<std::int64_t>{0, 0, 0, 0} : std::vector<std::int64_t>{1, 1, 1, 1};
      s.conv.y_scale = 0.0002f;
      s.conv.w_lo = -127;
      s.conv.bias = false;  // a bias would move most outputs into saturation
      cases.push_back({"QDQ Conv " + t + " cancelling", qdq_conv_model(s), true});
      // The same between single-consumer Q -> DQ pairs: ORT fuses the int8 group too.
      s.single_consumer_pairs = true;
      s.conv.seed = seed++;
      cases.push_back({"QDQ Conv " + t + " cancelling, single-consumer pairs", qdq_conv_model(s), true,
                       /*fused_int8=*/true});
    }
  }
  run_cases(cases);
}

TEST(OnnxQdqOracle, MatMulBitExact) {
  std::vector<QdqCase> cases;
  std::uint64_t seed = 600;
  for (DType a : {kS8, kU8}) {
    const std::string t = a == kU8 ? "u8" : "s8";
    for (bool pc : {false, true}) {
      QdqMatMulSpec s;
      s.mm.a = a;
      s.mm.a_zp = a == kU8 ? 128 : 3;
      s.mm.y_zp = a == kU8 ? 128 : -5;
      s.mm.per_column = pc;
      s.mm.seed = seed++;
      cases.push_back({"QDQ MatMul " + t + (pc ? " per-column" : " per-tensor"), qdq_matmul_model(s)});
    }
    // Cancelling sums: one row (MLAS's single-row kernel, no K slices) and 24 rows with K = 300,
    // N = 16 (slices of 1024: one) and K = 300, N = 200 (slices of 128).
    for (const auto& [rows, k, n] :
         {std::tuple<std::size_t, std::size_t, std::size_t>{1, 300, 16}, {24, 300, 16}, {4, 300, 200}}) {
      QdqMatMulSpec s;
      s.mm.a = a;
      s.mm.a_zp = a == kU8 ? 128 : 3;
      s.mm.y_zp = a == kU8 ? 128 : -5;
      s.mm.per_column = true;
      s.mm.a_shape = {rows, k};
      s.mm.n = n;
      s.mm.y_scale = 0.0002f;
      s.mm.b_lo = -127;
      s.cancelling = true;
      s.mm.seed = seed++;
      cases.push_back({"QDQ MatMul " + t + " cancelling", qdq_matmul_model(s), true});
      if (rows > 1) {
        // Between single-consumer Q -> DQ pairs (a [1, 1, rows, K] for the MaxPool group): ORT makes
        // the int8 pairs uint8 and fuses the int8 MatMul group too.
        QdqMatMulSpec p = s;
        p.single_consumer_pairs = true;
        p.mm.a_shape = {1, 1, rows, k};
        p.mm.seed = seed++;
        cases.push_back({"QDQ MatMul " + t + " cancelling, single-consumer pairs", qdq_matmul_model(p), true,
                         /*fused_int8=*/true});
        // Gemm (transB 1, bias C): fused into QGemm at level all for both types
        s.gemm = true;
        s.mm.seed = seed++;
        cases.push_back({"QDQ Gemm " + t + " cancelling", qdq_matmul_model(s), true, /*fused_int8=*/true});
      }
    }
  }
  run_cases(cases);
}

TEST(OnnxQdqOracle, AddMulBitExact) {
  std::vector<QdqCase> cases;
  std::uint64_t seed = 700;
  for (DType t : {kS8, kU8}) {
    for (const char* op : {"QLinearAdd", "QLinearMul"}) {
      for (bool scalar : {false, true}) {
        for (int v = 0; v < 2; ++v) {
          QMulSpec s;
          s.op = op;
          s.t = t;
          s.b_scalar = scalar;
          const bool add = std::string(op) == "QLinearAdd";
          if (v == 1) {  // exact halves (add) / saturation (mul)
            s.a_scale = add ? 0.5f : 0.05f;
            s.b_scale = add ? 0.25f : 0.03f;
            s.c_scale = add ? 1.0f : 0.013f;
          } else {
            s.c_scale = add ? 0.07f : 0.2f;
          }
          if (t == kU8) {
            s.a_zp = 128;
            s.b_zp = 120;
            s.c_zp = 131;
          }
          s.seed = seed++;
          cases.push_back(
              {std::string("QDQ ") + (add ? "Add " : "Mul ") + (t == kU8 ? "u8" : "s8") + (scalar ? " scalar b" : ""),
               qdq_binary_model(s), add && !scalar, /*fused_int8=*/true});
        }
      }
    }
  }
  run_cases(cases);
}

TEST(OnnxQdqOracle, PoolConcatBitExact) {
  std::vector<QdqCase> cases;
  std::uint64_t seed = 800;
  for (DType t : {kS8, kU8}) {
    const std::string ts = t == kU8 ? "u8" : "s8";
    for (const char* op : {"GlobalAveragePool", "AveragePool", "MaxPool"}) {
      QdqPoolSpec s;
      s.op = op;
      s.t = t;
      if (t == kU8) {
        s.x_zp = 128;
        s.y_zp = 120;
      }
      s.seed = seed++;
      cases.push_back({std::string("QDQ ") + op + " " + ts, qdq_pool_model(s)});
    }
    {
      // 4x4 images, x_scale = y_scale = 0.5: sums = 8 mod 16 are exact halves, rounded to even by
      // both ORT formulas (the fused integer one and the float one agree on them).
      QdqPoolSpec s;
      s.t = t;
      s.shape = {2, 24, 4, 4};
      s.x_scale = s.y_scale = 0.5f;
      s.x_zp = t == kU8 ? 128 : -3;
      s.y_zp = t == kU8 ? 120 : 4;
      s.seed = seed++;
      cases.push_back({"QDQ GlobalAveragePool " + ts + " ties", qdq_pool_model(s)});
    }
    cases.push_back({"QDQ Concat " + ts, qdq_concat_model(t, seed++)});
  }
  run_cases(cases);
}

// A ResNet-shaped QDQ model: conv + Relu, conv, skip-connection Add + Relu, MaxPool,
// GlobalAveragePool, Flatten, MatMul; its 10 outputs per seed.
TEST(OnnxQdqOracle, ResNetModelBitExact) {
  std::vector<QdqCase> cases;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    cases.push_back({"QDQ ResNet block + head s8", qdq_resnet_model(kS8, seed)});
    cases.push_back({"QDQ ResNet block + head u8", qdq_resnet_model(kU8, seed)});
  }
  run_cases(cases);
}

// A QDQ model's float32 entry and exit (a QuantizeLinear of the float graph input, a DequantizeLinear
// to the float graph output, read as QUANTIZE / DEQUANTIZE nodes; ORT runs them as its QuantizeLinear
// and DequantizeLinear kernels at both levels, and the Add group between as QLinearAdd at level all),
// int8 and uint8, x scale a power of two (exact ties of x / s) and not. Contrast: tflite-reference
// (QUANTIZE rounding ties away from zero, TFLite's ADD) must get elements wrong on the tie cases.
TEST(OnnxQdqOracle, FloatInputAndOutputBitExact) {
  struct Case {
    BuiltOnnx model;
    bool ties;
  };
  std::vector<Case> cases;
  std::uint64_t seed = 1900;
  for (DType t : {kS8, kU8}) {
    for (const float scale : {0.125f, 0.0371f}) {
      cases.push_back({qdq_float_io_model(t, scale, t == kS8 ? 4 : 125, seed++), scale == 0.125f});
    }
  }
  std::vector<OrtJob> jobs;
  for (const Case& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::size_t contrast_wrong = 0, contrast_elements = 0;
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const Case& c = cases[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      if (ours.wrong != 0) ADD_FAILURE() << c.model.label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      tally("float in/out", std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      const std::size_t wrong = compare_outputs(ort, run_qparity(g, c.model.inputs, "tflite-reference")).wrong;
      tally("float in/out", std::string("ORT opt ") + opt, "tflite-reference (contrast)", ours.elements, wrong);
      if (c.ties) {
        contrast_wrong += wrong;
        contrast_elements += ours.elements;
      }
      return ours.elements;
    });
  }
  EXPECT_GT(contrast_wrong, 0u) << "tflite-reference agrees with ORT on all " << contrast_elements
                                << " elements of the tie cases, so this comparison could not fail";
}

// ONNX's node tests of QuantizeLinear / DequantizeLinear alone (float32 graph input or output), per
// tensor and per axis 1, int8 and uint8, at both levels (nothing to fuse: the same profile's bits).
// Contrasts computed here per element, each must get elements wrong: a quantization rounding ties
// away from zero (QuantizeFloatVariant::kTfliteFloatDivide) on the power-of-two scales' exact ties,
// and a dequantization rounding twice, float(q * s) - float(zp * s).
TEST(OnnxQdqOracle, LoneQuantizeDequantizeLinearBitExact) {
  std::vector<LoneLinearSpec> specs;
  std::uint64_t seed = 1950;
  for (const bool quantize : {true, false}) {
    for (DType t : {kS8, kU8}) {
      const std::int64_t z = t == kS8 ? -3 : 130;
      specs.push_back({quantize, t, {0.125f}, {z}, seed++});
      specs.push_back({quantize, t, {0.25f, 0.0371f, 0.125f}, {z, z + 7, z - 5}, seed++});
    }
  }
  std::vector<OrtJob> jobs;
  std::vector<BuiltOnnx> models;
  for (const LoneLinearSpec& s : specs) {
    models.push_back(lone_linear_model(s));
    jobs.push_back({models.back().label, models.back().bytes, models.back().inputs});
  }
  std::size_t q_contrast = 0, dq_contrast = 0;
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const LoneLinearSpec& s = specs[i];
      const Tensor& x = models[i].inputs[0];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, models[i].inputs, profile));
      if (ours.wrong != 0) ADD_FAILURE() << models[i].label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      const char* op = s.quantize ? "QuantizeLinear" : "DequantizeLinear";
      tally(op, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      if (ort.size() != 1) return ours.elements;
      std::size_t wrong = 0;
      const std::size_t inner = 20;  // x [1, 3, 4, 5]: elements per index of axis 1
      for (std::size_t e = 0; e < x.elements(); ++e) {
        const std::size_t c = s.scales.size() > 1 ? e / inner : 0;
        const float scale = s.scales[c];
        const auto zp = static_cast<std::int32_t>(s.zps[c]);
        if (s.quantize) {
          float v = 0;
          std::memcpy(&v, x.bytes.data() + 4 * e, 4);
          const qparity::reference::TensorQuant tq{scale, zp};
          const auto haz = qparity::reference::QuantizeFloatVariant::kTfliteFloatDivide;
          const std::int64_t q = s.t == kS8 ? qparity::reference::quantize_float<std::int8_t>(v, tq, haz)
                                            : qparity::reference::quantize_float<std::uint8_t>(v, tq, haz);
          wrong += q != ort[0].integer_at(e);
        } else {
          const float twice = static_cast<float>(x.integer_at(e)) * scale - static_cast<float>(zp) * scale;
          float got = 0;
          std::memcpy(&got, ort[0].bytes.data() + 4 * e, 4);
          wrong += std::memcmp(&twice, &got, 4) != 0;
        }
      }
      tally(op, std::string("ORT opt ") + opt, s.quantize ? "ties away (contrast)" : "q*s - zp*s (contrast)",
            ours.elements, wrong);
      (s.quantize ? q_contrast : dq_contrast) += wrong;
      return ours.elements;
    });
  }
  EXPECT_GT(q_contrast, 0u) << "rounding ties away agrees with ORT's QuantizeLinear everywhere";
  EXPECT_GT(dq_contrast, 0u) << "rounding twice agrees with ORT's DequantizeLinear everywhere";
}

}  // namespace
}  // namespace qparity_test
