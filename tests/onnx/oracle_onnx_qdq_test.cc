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
#include "model/ops/pool2d.h"
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

// The plain float formula at level disabled, the contrast of PaddedAveragePoolBitExactAtBothLevels:
// ORT's dequantize / float AveragePool / QuantizeLinear, but the taps summed row by row from +0 (the
// order of MLAS's generic MlasPool2DKernel, not of the vector kernel ORT runs for strides <= 2).
// `g`'s AVERAGE_POOL_2D gives the window and quantizations; x and the result are NCHW.
Tensor row_order_average_pool(const qparity::model::Graph& g, const Tensor& x) {
  const qparity::model::Node* pool = nullptr;
  for (const auto& n : g.nodes) {
    if (n.op == qparity::model::OpKind::kAveragePool2D) pool = &n;
  }
  if (pool == nullptr) throw std::runtime_error("no AVERAGE_POOL_2D in the graph");
  const auto& o = pool->opts<qparity::model::Pool2DOptions>();
  const auto& in = g.tensors[static_cast<std::size_t>(pool->inputs[0])];
  const auto& out = g.tensors[static_cast<std::size_t>(pool->outputs[0])];
  const qparity::reference::Shape4 s{in.shape[0], in.shape[1], in.shape[2], in.shape[3]};
  const qparity::ResolvedWindow r = qparity::reference::detail::resolve_pool(o.window, s);
  const float xs = in.quant.scales[0], ys = out.quant.scales[0];
  const auto xz = in.quant.zero_point(), yz = out.quant.zero_point();
  const std::int64_t lo = qparity::cli::dtype_min(x.dtype), hi = qparity::cli::dtype_max(x.dtype);
  Tensor y;
  y.dtype = x.dtype;
  y.shape = {s.n, s.c, r.out_h, r.out_w};
  y.bytes.resize(y.elements());
  std::size_t k = 0;
  for (std::size_t b = 0; b < s.n; ++b) {
    for (std::size_t c = 0; c < s.c; ++c) {
      for (std::size_t oy = 0; oy < r.out_h; ++oy) {
        for (std::size_t ox = 0; ox < r.out_w; ++ox) {
          const auto h0 = static_cast<std::ptrdiff_t>(oy * o.window.stride_h) - static_cast<std::ptrdiff_t>(r.pad_top);
          const auto w0 = static_cast<std::ptrdiff_t>(ox * o.window.stride_w) - static_cast<std::ptrdiff_t>(r.pad_left);
          const auto h1 = std::min<std::ptrdiff_t>(h0 + static_cast<std::ptrdiff_t>(o.window.filter_h),
                                                   static_cast<std::ptrdiff_t>(s.h));
          const auto w1 = std::min<std::ptrdiff_t>(w0 + static_cast<std::ptrdiff_t>(o.window.filter_w),
                                                   static_cast<std::ptrdiff_t>(s.w));
          float sum = 0.0f;
          std::ptrdiff_t taps = 0;
          for (std::ptrdiff_t h = std::max<std::ptrdiff_t>(h0, 0); h < h1; ++h) {
            for (std::ptrdiff_t w = std::max<std::ptrdiff_t>(w0, 0); w < w1; ++w) {
              const std::size_t at = ((b * s.c + c) * s.h + static_cast<std::size_t>(h)) * s.w + static_cast<std::size_t>(w);
              sum += xs * static_cast<float>(x.integer_at(at) - xz);
              ++taps;
            }
          }
          const auto n = static_cast<float>(o.count_include_pad ? o.window.filter_h * o.window.filter_w
                                                                : static_cast<std::size_t>(taps));
          const std::int64_t q = static_cast<std::int64_t>(std::nearbyint(sum / n / ys)) + yz;
          y.set_integer(k++, std::min(hi, std::max(lo, q)));
        }
      }
    }
  }
  return y;
}

// AveragePool groups whose windows reach into the padding: SAME_UPPER, SAME_LOWER and asymmetric
// explicit pads, count_include_pad 0 and 1, kernels 2x2, 3x3, 3x2 (and 3x6 over a whole 3x6
// image: MLAS's global kernel), strides 1 and 2 (MLAS's vector kernel) and 3 (its generic
// kernel), sides 1, 3, 7 and 17 (every tail of the vector kernel's 4 columns), zero points at both
// ends of the type, full-range data, half of the cases with y_scale = x_scale (means on exact
// halves). At level all ORT fuses each group into QLinearAveragePool (zero point added before the
// rounding), which ort-cpu reproduces; at level disabled it runs MLAS's float AveragePool, which
// ort-cpu-unfused reproduces (columns summed first). Contrasts, which must get elements wrong: at
// level all ort-cpu-unfused, at level disabled the plain float formula summing row by row.
TEST(OnnxQdqOracle, PaddedAveragePoolBitExactAtBothLevels) {
  struct Window {
    const char* row;
    std::string auto_pad;
    std::vector<std::int64_t> pads;
    std::int64_t k, kw, stride;
    std::vector<std::size_t> shape;
  };
  const std::vector<Window> windows{
      {"SAME_UPPER", "SAME_UPPER", {}, 3, 3, 2, {1, 5, 17, 7}},
      {"SAME_UPPER", "SAME_UPPER", {}, 2, 2, 1, {1, 3, 7, 3}},
      {"SAME_UPPER", "SAME_UPPER", {}, 3, 3, 1, {1, 3, 1, 1}},
      {"SAME_UPPER", "SAME_UPPER", {}, 3, 3, 3, {1, 3, 7, 17}},
      {"SAME_LOWER", "SAME_LOWER", {}, 3, 3, 1, {1, 4, 7, 17}},
      {"SAME_LOWER", "SAME_LOWER", {}, 3, 2, 2, {1, 3, 17, 3}},
      {"explicit pads", "", {0, 1, 2, 1}, 3, 3, 1, {1, 5, 3, 7}},
      {"explicit pads", "", {2, 0, 1, 1}, 3, 2, 2, {1, 3, 17, 17}},
      {"explicit pads", "", {1, 0, 0, 1}, 2, 2, 2, {1, 4, 7, 1}},
      {"whole image", "", {}, 3, 6, 1, {1, 96, 3, 6}},
  };
  std::vector<QdqCase> cases;
  std::uint64_t seed = 850;
  int variant = 0;
  for (DType t : {kS8, kU8}) {
    const std::int64_t lo = t == kU8 ? 0 : -128, hi = t == kU8 ? 255 : 127;
    for (const Window& w : windows) {
      for (bool include_pad : {false, true}) {
        QdqPoolSpec s;
        s.op = "AveragePool";
        s.t = t;
        s.shape = w.shape;
        s.auto_pad = w.auto_pad;
        s.pads = w.pads;
        s.k = w.k;
        s.kw = w.kw;
        s.stride = w.stride;
        s.count_include_pad = include_pad;
        // Zero points at both ends and in the middle; ties (one scale) every other case.
        const int v = variant++;
        s.x_zp = v % 3 == 0 ? lo : (v % 3 == 1 ? hi : (lo + hi + 1) / 2);
        s.y_zp = v % 4 < 2 ? (lo + hi + 1) / 2 + 3 : (v % 4 == 2 ? lo : hi);
        if (v % 2 == 0) s.y_scale = s.x_scale;
        s.seed = seed++;
        cases.push_back({std::string("QDQ AveragePool ") + w.row + (include_pad ? " count_include_pad" : "") +
                             (t == kU8 ? " u8" : " s8"),
                         qdq_pool_model(s)});
      }
    }
  }
  std::vector<OrtJob> jobs;
  for (const QdqCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::map<std::string, std::size_t> contrast_wrong;
  for (const char* opt : {"all", "disabled"}) {
    const bool all = std::string(opt) == "all";
    const std::string profile = all ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const QdqCase& c = cases[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      EXPECT_EQ(ours.wrong, 0u) << c.model.label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      tally(c.op, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      const std::string contrast = all ? "ort-cpu-unfused" : "row-order float formula";
      const std::size_t wrong =
          compare_outputs(ort, all ? run_qparity(g, c.model.inputs, "ort-cpu-unfused")
                                   : std::vector<Tensor>{row_order_average_pool(g, c.model.inputs[0])})
              .wrong;
      tally(c.op, std::string("ORT opt ") + opt, contrast + " (contrast)", ours.elements, wrong);
      contrast_wrong[std::string(opt) + " / " + contrast + " / " + qparity::cli::to_string(c.model.inputs[0].dtype)] += wrong;
      return ours.elements;
    });
  }
  ASSERT_EQ(contrast_wrong.size(), 4u);
  for (const auto& [row, wrong] : contrast_wrong) {
    EXPECT_GT(wrong, 0u) << row << ": the contrast agrees with ORT everywhere, so the comparison could not fail";
  }
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
      // The type's minimum: the QuantizeLinear makes the activation redundant, so ORT removes it and
      // fuses the uint8 group (other zero points keep it: OnnxQdqOracle.ActivationKeptOrDroppedBitExact).
      s.conv.y_zp = x == kU8 ? 0 : -128;
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
