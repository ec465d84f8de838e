// QDQ MatMul groups whose b is N-D or a run-time value (DequantizeLinear on both operands, MatMul
// with broadcast batch dimensions, QuantizeLinear), read as BATCH_MATMUL, in the real ONNX Runtime
// (npm onnxruntime-node, one thread) at both graph optimization levels: at `all` ORT's MatMul
// selector (no shape condition on b) fuses uint8 groups, and int8 ones between single-consumer
// Q -> DQ pairs, into QLinearMatMul (ort-cpu: the onnxruntime preset's BATCH_MATMUL); the rest, and
// every group at `disabled`, run as float MatMul (ort-cpu-unfused: one MLAS SGEMM per batch).
// Contrasts: on rows of cancelling sums the other arithmetic (float32 for a fused group, the fused
// one for a float32 group) must get elements wrong. Label oracle; fails (never skips) without node
// or the npm package.
#include <gtest/gtest.h>

#include <map>
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
  std::vector<OrtJob> jobs;
  for (const BatchCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::map<std::string, std::size_t> contrast;
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
      if (c.parts) contrast[c.row + " / " + path + " / " + other] += wrong;
      return ours.elements;
    });
  }
  for (const auto& [key, wrong] : contrast) {
    EXPECT_GT(wrong, 0u) << key << ": the other arithmetic agrees with ORT on every cancelling element";
  }
}

}  // namespace
}  // namespace qparity_test
