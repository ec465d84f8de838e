// BATCH_MATMUL (int8, per tensor) in LiteRT.js (TFLite compiled to WebAssembly) against qparity's
// tflite-xnnpack-wasm profile, on models from qparity's .tflite writer, on both of TFLite's paths:
//   xnnpack        rhs zero point 0: XNNPACK's delegate takes the node, constant or run-time rhs
//                  (F32 requantization, ties to even);
//   tflite-kernel  rhs zero point not 0: XNNPACK declines and TFLite's own kernel runs it, with
//                  double rounding (DR-AZ, unlike FULLY_CONNECTED's single rounding in this build).
// Cases: constant and run-time rhs, adj_x / adj_y, batch dimensions broadcast from either side,
// ranks 2 to 5. Half the cases use power-of-two scales on small data so that many accumulators land
// on exact halves (effective scale 2^-2). Contrasts, each must get elements wrong on its path: the
// other path's arithmetic, and the single-rounding build (tflite-single) on TFLite's kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "model/graph_builder.h"
#include "model/ops/batch_matmul.h"
#include "oracle_util.h"

namespace qparity_test {
namespace {

using namespace qparity::model;

struct BmmShape {
  std::vector<std::size_t> lhs, rhs;
  bool adj_x, adj_y;
};

OracleCase bmm_case(std::mt19937& rng, const BmmShape& s, bool constant_rhs, bool ties, int index) {
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  const float s_l = ties ? 0.0625f : 0.02f * u(rng), s_r = ties ? 0.03125f : 0.01f * u(rng);
  const std::size_t k = s.adj_x ? s.lhs[s.lhs.size() - 2] : s.lhs.back();
  const float s_out = ties ? s_l * s_r * 4.0f : s_l * s_r * std::sqrt(static_cast<float>(k)) * 64.0f * 64.0f / 40.0f * u(rng);
  const std::int64_t zp_l = std::uniform_int_distribution<std::int64_t>(-20, 20)(rng);
  const bool kernel_path = index % 4 >= 2;  // a rhs zero point XNNPACK declines
  const std::int64_t zp_r = kernel_path ? std::uniform_int_distribution<std::int64_t>(1, 5)(rng) * (index % 2 ? -1 : 1) : 0;
  const std::int64_t zp_out = std::uniform_int_distribution<std::int64_t>(-10, 10)(rng);
  GraphBuilder b("batch matmul oracle case");
  const int x = b.tensor("lhs", DType::kInt8, s.lhs, GraphBuilder::per_tensor(s_l, zp_l));
  const Tensor w = ties ? random_tensor(rng, DType::kInt8, s.rhs, zp_r - 4, zp_r + 4)
                        : random_tensor(rng, DType::kInt8, s.rhs, -127, 127);
  const Quantization wq = GraphBuilder::per_tensor(s_r, zp_r);
  const int wt = constant_rhs ? b.constant("rhs", w, wq) : b.tensor("rhs", DType::kInt8, s.rhs, wq);
  const int y = b.tensor("y", DType::kInt8, {}, GraphBuilder::per_tensor(s_out, zp_out));
  auto o = std::make_shared<BatchMatMulOptions>();
  o->adj_x = s.adj_x;
  o->adj_y = s.adj_y;
  b.node(OpKind::kBatchMatMul, {x, wt}, {y}, o);
  b.input(x);
  if (!constant_rhs) b.input(wt);
  b.output(y);
  OracleCase c;
  c.profile = "tflite-xnnpack-wasm";
  c.path = kernel_path ? "tflite-kernel" : "xnnpack";
  c.op = "BATCH_MATMUL int8";
  c.inputs.push_back(ties ? random_tensor(rng, DType::kInt8, s.lhs, zp_l - 4, zp_l + 4)
                          : random_tensor(rng, DType::kInt8, s.lhs, -128, 127));
  if (!constant_rhs) c.inputs.push_back(w);
  std::ostringstream label;
  label << "case " << index << " lhs " << qparity::cli::shape_text(s.lhs) << " rhs " << qparity::cli::shape_text(s.rhs)
        << " adj_x " << s.adj_x << " adj_y " << s.adj_y << " zp " << zp_l << "/" << zp_r << "/" << zp_out
        << (ties ? " ties" : "") << (constant_rhs ? " constant rhs" : " run-time rhs") << " path " << c.path;
  c.label = label.str();
  c.graph = b.finish();
  c.contrasts = kernel_path ? std::vector<std::string>{"xnnpack-fp32", "tflite-single"}
                            : std::vector<std::string>{"tflite-reference"};
  return c;
}

TEST(TfliteOracle, BatchMatMulBothRhsKinds) {
  std::mt19937 rng(20261127);
  const BmmShape shapes[] = {
      {{5, 24}, {24, 7}, false, false},               {{2, 3, 17}, {2, 17, 9}, false, false},
      {{2, 3, 17}, {2, 9, 17}, false, true},          {{2, 17, 3}, {2, 17, 9}, true, false},
      {{2, 17, 3}, {2, 9, 17}, true, true},           {{3, 1, 4, 16}, {1, 2, 16, 5}, false, false},
      {{4, 6, 33}, {33, 8}, false, false},            {{2, 1, 3, 2, 8}, {1, 2, 1, 8, 3}, false, false},
      {{1, 7, 40}, {3, 40, 6}, false, false},
  };
  std::vector<OracleCase> cases;
  int index = 0;
  for (const bool constant_rhs : {true, false}) {
    for (const BmmShape& s : shapes) {
      for (const bool ties : {false, true}) cases.push_back(bmm_case(rng, s, constant_rhs, ties, index++));
    }
  }
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 0u);
  expect_contrasts_differ(cases);
}

}  // namespace
}  // namespace qparity_test
