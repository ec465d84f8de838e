// QDQ MatMul groups whose b is N-D or a run-time value (DequantizeLinear on both operands, MatMul
// with broadcast batch dimensions, QuantizeLinear), read as BATCH_MATMUL, in the real ONNX Runtime
// (npm onnxruntime-node, one thread) at both graph optimization levels: at `all` ORT's MatMul
// selector (no shape condition on b) fuses uint8 groups, and int8 ones between single-consumer
// Q -> DQ pairs, into QLinearMatMul (ort-cpu: the onnxruntime preset's BATCH_MATMUL); the rest, and
// every group at `disabled`, run as float MatMul (ort-cpu-unfused: one MLAS SGEMM per batch).
// Contrasts: on rows of cancelling sums the other arithmetic (float32 for a fused group, the fused
// one for a float32 group) must get elements wrong; for MLAS's single-row kernels one float32
// chain in K order must. Label oracle; fails (never skips) without node or the npm package.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/onnx/onnx_reader.h"
#include "onnx_qdq_models.h"
#include "onnx_test_support.h"
#include "oracle_tally.h"
#include "ort_runner.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;

constexpr DType kS8 = DType::kInt8;
constexpr DType kU8 = DType::kUint8;

struct BatchCase {
  std::string row;
  BuiltOnnx model;
  bool fused;         ///< ORT fuses it at level all (uint8 a, or int8 between single-consumer pairs)
  bool parts = false;  ///< cancelling sums: the fused and float32 arithmetic part on some elements
};

/// Runs the cases in ONNX Runtime at levels all and disabled and requires qparity's bits under
/// ort-cpu (all) and ort-cpu-unfused (disabled). Tallies the other arithmetic as a contrast
/// (ort-cpu-unfused for a group ORT fuses at level all, else the batched QLinear formula, preset
/// onnxruntime) and returns its wrong counts on the cancelling cases, per row, level and arithmetic.
/// more(case, path, all, ort outputs, graph, elements) adds a test's own contrasts.
template <class More>
std::map<std::string, std::size_t> compare_at_both_levels(const std::vector<BatchCase>& cases, More more) {
  std::vector<OrtJob> jobs;
  for (const BatchCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::map<std::string, std::size_t> other_wrong;
  for (const char* opt : {"all", "disabled"}) {
    const bool all = std::string(opt) == "all";
    const std::string profile = all ? "ort-cpu" : "ort-cpu-unfused", path = std::string("ORT opt ") + opt;
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const BatchCase& c = cases[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      EXPECT_EQ(ours.wrong, 0u) << c.model.label << " (" << path << ") under " << profile << ": " << ours.first;
      tally(c.row, path, profile, ours.elements, ours.wrong);
      const std::string other = all && c.fused ? "ort-cpu-unfused" : "onnxruntime";
      const std::size_t wrong = compare_outputs(ort, run_qparity(g, c.model.inputs, other)).wrong;
      tally(c.row, path, other + " (contrast)", ours.elements, wrong);
      if (c.parts) other_wrong[c.row + " / " + path + " / " + other] += wrong;
      more(c, path, all, ort, g, ours.elements);
      return ours.elements;
    });
  }
  return other_wrong;
}

TEST(OnnxQdqOracle, BatchMatMulBitExact) {
  struct Shape {
    std::vector<std::size_t> a, b;
    bool b_input;
  };
  const std::vector<Shape> shapes = {
      {{2, 3, 5, 24}, {3, 24, 7}, false},   // constant 3-D b, a's first dimension broadcast
      {{2, 3, 5, 24}, {3, 24, 7}, true},    // the same, b an input
      {{2, 1, 4, 16}, {1, 3, 16, 6}, true}, // both broadcast
      {{4, 5, 24}, {24, 7}, true},          // 2-D run-time b: ORT's one GEMM over all 20 rows
      {{3, 1, 32}, {3, 32, 8}, false},      // one row per batch: MLAS's single-row kernel
  };
  struct Types {
    DType a, b;
  };
  std::vector<BatchCase> cases;
  std::uint64_t seed = 1800;
  for (const Types& t : {Types{kS8, kS8}, Types{kU8, kS8}, Types{kU8, kU8}}) {
    for (bool pairs : {false, true}) {
      if (pairs && t.a == kU8) continue;  // single-consumer pairs change only int8 groups
      const std::string types = std::string(t.a == kU8 ? "u8" : "s8") + " x " + (t.b == kU8 ? "u8" : "s8");
      auto spec = [&](const Shape& sh) {
        QdqBatchMatMulSpec s;
        s.mm.a = t.a;
        s.mm.b = t.b;
        s.mm.a_shape = sh.a;
        s.mm.b_shape = sh.b;
        s.mm.b_input = sh.b_input;
        s.mm.a_zp = t.a == kU8 ? 128 : 3;
        s.mm.b_zp = t.b == kU8 ? 120 : 0;
        s.mm.y_zp = t.a == kU8 ? 128 : -5;
        s.mm.seed = seed++;
        s.single_consumer_pairs = pairs;
        if (pairs && s.mm.a_shape.size() < 4) s.mm.a_shape.insert(s.mm.a_shape.begin(), 1);  // MaxPool's 4-D
        return s;
      };
      const bool fused = t.a == kU8 || pairs;
      const std::string row = "QDQ MatMul N-D / run-time b " + types + (pairs ? ", single-consumer pairs" : "");
      for (const Shape& sh : shapes) cases.push_back({row, qdq_batch_matmul_model(spec(sh)), fused});
      if (t.b == kU8) continue;  // cancelling b needs int8 (negated rows)
      // Cancelling sums, K = 300: N = 200 (slices of 128) with a run-time b, N = 16 (one slice) with
      // a constant one, and one row per batch (MLAS's single-row kernel).
      for (const Shape& sh : {Shape{{2, 16, 300}, {2, 300, 200}, true}, Shape{{1, 2, 24, 300}, {2, 300, 16}, false},
                              Shape{{4, 1, 300}, {4, 300, 64}, true}}) {
        QdqBatchMatMulSpec s = spec(sh);
        s.cancelling = true;
        // Scales whose ratio is no short fraction, so that requantized sums come near halves.
        s.mm.a_scale = 0.0213f;
        s.mm.b_scale = 0.00437f;
        s.mm.y_scale = 0.000211f;
        cases.push_back({row + " cancelling", qdq_batch_matmul_model(s), fused, true});
      }
    }
  }
  const std::map<std::string, std::size_t> contrast =
      compare_at_both_levels(cases, [](const BatchCase&, const std::string&, bool, const std::vector<Tensor>&,
                                       const qparity::model::Graph&, std::size_t) {});
  for (const auto& [key, wrong] : contrast) {
    EXPECT_GT(wrong, 0u) << key << ": the other arithmetic agrees with ORT on every cancelling element";
  }
}


// The contrast order for TransposedSingleRowBitExact: the same dequantized products (each rounded)
// summed in K order from +0 in one float32 chain, then the bias added, then ORT's QuantizeLinear;
// returns how many of `ort`'s elements it gets wrong. `g` holds one FULLY_CONNECTED (a one-row
// Gemm) or one BATCH_MATMUL whose b has one column.
std::size_t k_order_wrong(const qparity::model::Graph& g, const std::vector<Tensor>& inputs, const Tensor& ort) {
  const qparity::model::Node* node = nullptr;
  for (const auto& n : g.nodes) {
    if (n.op == qparity::model::OpKind::kFullyConnected || n.op == qparity::model::OpKind::kBatchMatMul) node = &n;
  }
  if (node == nullptr) throw std::runtime_error("no FULLY_CONNECTED or BATCH_MATMUL in the graph");
  const bool fc = node->op == qparity::model::OpKind::kFullyConnected;
  const auto& ad = g.tensors[static_cast<std::size_t>(node->inputs[0])];
  const auto& bd = g.tensors[static_cast<std::size_t>(node->inputs[1])];
  const auto& yd = g.tensors[static_cast<std::size_t>(node->outputs[0])];
  const Tensor& a = inputs[0];
  const Tensor& b = bd.constant() ? *bd.data : inputs[1];
  auto deq = [](const Tensor& t, const qparity::model::Quantization& q, std::size_t i, std::size_t channel) {
    const float scale = q.per_axis() ? q.scales[channel] : q.scales[0];
    return static_cast<float>(static_cast<std::int32_t>(t.integer_at(i) - q.zero_point(q.per_axis() ? channel : 0))) *
           scale;
  };
  const std::size_t k = ad.shape.back();
  const std::size_t outputs = ort.elements();
  std::size_t wrong = 0;
  for (std::size_t o = 0; o < outputs; ++o) {
    // FULLY_CONNECTED: a's one row times filter row o; BATCH_MATMUL: a's row o times b's one column
    // (b's batch o / M when b has batches).
    const std::size_t a_row = fc ? 0 : o, b_row = fc ? o : (bd.shape.size() == 2 ? 0 : o / ad.shape[ad.shape.size() - 2]);
    float sum = 0.0f;
    for (std::size_t i = 0; i < k; ++i) {
      const float product = deq(a, ad.quant, a_row * k + i, 0) * deq(b, bd.quant, b_row * k + i, fc ? o : 0);
      sum = sum + product;
    }
    if (fc && node->inputs.size() > 2 && node->inputs[2] >= 0) {
      const auto& cd = g.tensors[static_cast<std::size_t>(node->inputs[2])];
      // The bias's DequantizeLinear scale, else (none kept) a_scale * w_scale as ORT's QGemm.
      const float scale = cd.quant.present() ? (cd.quant.per_axis() ? cd.quant.scales[o] : cd.quant.scales[0])
                                             : ad.quant.scales[0] * (bd.quant.per_axis() ? bd.quant.scales[o] : bd.quant.scales[0]);
      sum = sum + static_cast<float>(static_cast<std::int32_t>(cd.data->integer_at(o))) * scale;
    }
    const float v = std::nearbyint(sum / yd.quant.scales[0]) + static_cast<float>(yd.quant.zero_point());
    const float lo = static_cast<float>(qparity::cli::dtype_min(ort.dtype)), hi = static_cast<float>(qparity::cli::dtype_max(ort.dtype));
    const auto q = static_cast<std::int64_t>(std::min(std::max(v, lo), hi));
    if (q != ort.integer_at(o)) ++wrong;
  }
  return wrong;
}

// MLAS's single-row transposed-B kernel (m1_transpose_b_sum): a one-row Gemm (transB 1, bias C;
// with transB 0 the non-transposed single-row kernel, m1_sum from the bias) and a MatMul whose b
// has one column and several rows (MLAS swaps the operands), for K = 1 ... 300
// (every remainder mod 8, one and several 8-blocks), 7 outputs (the kernel's groups of 4, 2 and 1),
// int8 and uint8 a, per-tensor and per-channel Gemm weights, transB 1 and 0, and rows of cancelling
// sums (259 outputs: 64 groups of four, one of two, one of one; and 128 SGEMMs of 3 rows). On the
// cancelling rows y_scale is twice a_scale * b_scale: a sum of an odd integer multiple of
// a_scale * b_scale then lands next to a tie, and its last bits (the lane sums' reduction order)
// decide the rounding.
TEST(OnnxQdqOracle, TransposedSingleRowBitExact) {
  std::vector<BatchCase> cases;
  std::uint64_t seed = 2600;
  for (DType a : {kS8, kU8}) {
    const std::string t = a == kU8 ? "u8" : "s8";
    for (std::size_t k : {1, 3, 7, 8, 17, 63, 64, 300}) {
      const bool cancelling = k >= 17;
      for (int v = 0; v < 4; ++v) {  // Gemm, one row of A: transB 1 / 0, per tensor / per channel
        const bool pc = (v & 1) != 0;
        QdqMatMulSpec s;
        s.gemm = true;
        s.trans_b = v < 2;
        s.mm.a = a;
        s.mm.a_zp = a == kU8 ? 128 : 3;
        s.mm.y_zp = a == kU8 ? 128 : -5;
        s.mm.per_column = pc;
        s.mm.a_shape = {1, k};
        s.mm.n = cancelling ? 259 : 7;
        if (cancelling) {
          s.cancelling = true;
          s.mm.a_scale = 0.0213f;
          s.mm.b_scale = 0.00437f;
          s.mm.y_scale = 2.0f * (s.mm.a_scale * s.mm.b_scale);
          s.mm.b_lo = -127;
          s.c_range = 3;  // a bias of a few steps: a larger one saturates most cancelling outputs
        }
        s.mm.seed = seed++;
        cases.push_back({std::string("QDQ Gemm one row ") + (s.trans_b ? "" : "transB 0 ") + t +
                             (cancelling ? " cancelling" : ""),
                         qdq_matmul_model(s), /*fused=*/true, cancelling});
      }
      // MatMul, b of one column: run-time 2-D, constant 3-D, and (cancelling) 128 batches of 3 rows,
      // where two thirds of the outputs take the kernel's group of two and one third its group of one.
      for (int v = 0; v < (cancelling ? 3 : 2); ++v) {
        const bool nd = v != 0;
        QdqBatchMatMulSpec s;
        s.mm.a = a;
        s.mm.a_zp = a == kU8 ? 128 : 3;
        s.mm.y_zp = a == kU8 ? 128 : -5;
        const std::size_t m = v == 2 ? 3 : cancelling ? 259 : 7, batches = v == 2 ? 128 : 2;
        s.mm.a_shape = nd ? std::vector<std::size_t>{batches, m, k} : std::vector<std::size_t>{m, k};
        s.mm.b_shape = nd ? std::vector<std::size_t>{batches, k, 1} : std::vector<std::size_t>{k, 1};
        s.mm.b_input = !nd;
        if (cancelling) {
          s.cancelling = true;
          s.mm.a_scale = 0.0213f;
          s.mm.b_scale = 0.00437f;
          s.mm.y_scale = 0.000211f;
          s.mm.y_scale = 2.0f * (s.mm.a_scale * s.mm.b_scale);
        }
        s.mm.seed = seed++;
        cases.push_back({"QDQ MatMul one column " + t + (cancelling ? " cancelling" : ""), qdq_batch_matmul_model(s),
                         a == kU8, cancelling});
      }
    }
  }
  std::map<std::string, std::size_t> contrast;
  compare_at_both_levels(cases, [&](const BatchCase& c, const std::string& path, bool all, const std::vector<Tensor>& ort,
                                    const qparity::model::Graph& g, std::size_t elements) {
    // The contrast that shows the order matters: where ORT runs float32 (level disabled, and
    // int8 MatMul groups at all), the cancelling rows summed in K order in one chain.
    const bool float32 = !all || (!c.fused && c.row.find("MatMul") != std::string::npos);
    if (c.parts && float32) {
      const std::size_t k_wrong = k_order_wrong(g, c.model.inputs, ort[0]);
      tally(c.row, path, "K-order float32 chain (contrast)", elements, k_wrong);
      // One count per form and level, both types together.
      std::string form = c.row;
      for (const char* type : {" s8", " u8"}) {
        if (const auto at = form.find(type); at != std::string::npos) form.erase(at, 3);
      }
      contrast[form + " / " + path + " / K-order chain"] += k_wrong;
    }
  });
  for (const auto& [key, wrong] : contrast) {
    EXPECT_GT(wrong, 0u) << key << ": the contrast order agrees with ORT on every cancelling element";
  }
}

}  // namespace
}  // namespace qparity_test
