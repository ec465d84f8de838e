// BATCH_MATMUL: a matrix product per batch, out[..., m, n] = sum over k of lhs[..., m, k] * rhs[..., k, n]
// (with adj_x the stored lhs is [..., K, M], with adj_y the stored rhs is [..., N, K]), the batch
// dimensions broadcast as TFLite's kernel allows: both operands are read as rank 5 with leading 1s,
// and each of the three batch dimensions is equal in both or 1 in one of them (that operand's one
// matrix is reused along the dimension). Each batch's product is the quantized GEMM of
// include/qparity/reference_gemm.h with the operands' per-tensor zero points and one set of
// requantization parameters (docs/semantics.md §21.15):
//   C[m][n] = clamp(requantize(sum_k (A[m][k] - a_zp) * (B[k][n] - b_zp)) + c_zp, qmin, qmax)
// Source: tensorflow/lite/kernels/batch_matmul.cc (Prepare: ranks 2 to 5, the broadcast rule, the
// real multiplier double(s_lhs) * double(s_rhs) / double(s_out); EvalInt8Int8: offsets -zp, no fused
// activation) and tensorflow/lite/kernels/internal/reference/batch_matmul.h (the loop over the three
// broadcast batch dimensions, MultiplyByQuantizedMultiplier, output zero point, clamp), restated
// here in qparity's words. The requantization is the node's preset (TFLite's MultiplyByQuantized-
// Multiplier for tflite-reference; MLAS's float32 scale for ONNX Runtime's QLinearMatMul, §22.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qparity/error.h"
#include "qparity/reference_gemm.h"

namespace qparity {
namespace reference {

/// The largest rank BATCH_MATMUL takes (TFLite's Prepare: 2 to 5).
inline constexpr std::size_t kBatchMatMulMaxRank = 5;

/// Where each output batch reads its operands: the geometry of one BATCH_MATMUL.
struct BatchMatMulGeometry {
  std::size_t m = 0, k = 0, n = 0;
  bool adj_x = false, adj_y = false;
  std::vector<std::size_t> out_shape;  ///< the broadcast batch dimensions, then M, N
  std::size_t lhs_dims[3] = {1, 1, 1}, rhs_dims[3] = {1, 1, 1}, out_dims[3] = {1, 1, 1};  ///< batch dims, rank 5

  /// The number of output batches (the product of out_dims).
  std::size_t batches() const { return out_dims[0] * out_dims[1] * out_dims[2]; }
  /// The index of lhs's / rhs's matrix that output batch b reads (a dimension of 1 is reused).
  std::size_t lhs_batch(std::size_t b) const { return operand_batch(b, lhs_dims); }
  std::size_t rhs_batch(std::size_t b) const { return operand_batch(b, rhs_dims); }

 private:
  std::size_t operand_batch(std::size_t b, const std::size_t (&dims)[3]) const {
    const std::size_t b2 = b % out_dims[2], b1 = b / out_dims[2] % out_dims[1], b0 = b / (out_dims[2] * out_dims[1]);
    return ((dims[0] == 1 ? 0 : b0) * dims[1] + (dims[1] == 1 ? 0 : b1)) * dims[2] + (dims[2] == 1 ? 0 : b2);
  }
};

/// The most output batches a geometry accepts (their count is a product of three dimensions, each
/// from one operand, so it can exceed both operands' sizes).
inline constexpr std::size_t kBatchMatMulMaxBatches = std::size_t{1} << 32;

/// The geometry of lhs x rhs (shapes as stored). Throws InvalidArgument naming the rule broken: a
/// rank outside 2..5, batch dimensions that neither agree nor are 1, K that differs or is 0, more
/// than 2^32 output batches.
QPARITY_MAY_THROW
inline BatchMatMulGeometry batch_matmul_geometry(const std::vector<std::size_t>& lhs,
                                                 const std::vector<std::size_t>& rhs, bool adj_x, bool adj_y) {
  auto text = [](const std::vector<std::size_t>& s) {
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
  };
  if (lhs.size() < 2 || lhs.size() > kBatchMatMulMaxRank || rhs.size() < 2 || rhs.size() > kBatchMatMulMaxRank) {
    QPARITY_THROW(InvalidArgument("BATCH_MATMUL: lhs " + text(lhs) + " and rhs " + text(rhs) +
                          "; allowed: ranks 2 to 5"));
  }
  BatchMatMulGeometry g;
  g.adj_x = adj_x;
  g.adj_y = adj_y;
  const std::size_t lr = lhs.size(), rr = rhs.size();
  g.m = adj_x ? lhs[lr - 1] : lhs[lr - 2];
  g.k = adj_x ? lhs[lr - 2] : lhs[lr - 1];
  const std::size_t rk = adj_y ? rhs[rr - 1] : rhs[rr - 2];
  g.n = adj_y ? rhs[rr - 2] : rhs[rr - 1];
  if (g.k == 0) {
    QPARITY_THROW(InvalidArgument("BATCH_MATMUL: lhs " + text(lhs) + " and rhs " + text(rhs) + " have K = 0; allowed: K >= 1"));
  }
  if (rk != g.k) {
    QPARITY_THROW(InvalidArgument("BATCH_MATMUL: lhs " + text(lhs) + " has K = " + std::to_string(g.k) + ", rhs " + text(rhs) +
                          " K = " + std::to_string(rk) + "; allowed: the same K"));
  }
  // Batch dimensions, padded with leading 1s to three (rank 5 less the matrix's two).
  std::size_t(&lb)[3] = g.lhs_dims;
  std::size_t(&rb)[3] = g.rhs_dims;
  std::size_t(&ob)[3] = g.out_dims;
  for (std::size_t i = 0; i + 2 < lr; ++i) lb[3 - (lr - 2) + i] = lhs[i];
  for (std::size_t i = 0; i + 2 < rr; ++i) rb[3 - (rr - 2) + i] = rhs[i];
  for (int d = 0; d < 3; ++d) {
    if (lb[d] != rb[d] && lb[d] != 1 && rb[d] != 1) {
      QPARITY_THROW(InvalidArgument("BATCH_MATMUL: lhs " + text(lhs) + " and rhs " + text(rhs) +
                            " have batch dimensions that differ and neither is 1; allowed: equal, or 1 (broadcast)"));
    }
    ob[d] = lb[d] == 1 ? rb[d] : lb[d];
  }
  const std::size_t out_rank = lr > rr ? lr : rr;
  for (std::size_t d = 3 - (out_rank - 2); d < 3; ++d) g.out_shape.push_back(ob[d]);
  g.out_shape.push_back(g.m);
  g.out_shape.push_back(g.n);
  // A dimension of 1 has stride 0 in its operand (the reference kernel's extent()): lhs_batch /
  // rhs_batch. The count is bounded first, as a product of dimensions from both operands.
  std::size_t batches = 1;
  for (int d = 0; d < 3; ++d) {
    if (ob[d] != 0 && batches > kBatchMatMulMaxBatches / ob[d]) {
      QPARITY_THROW(InvalidArgument("BATCH_MATMUL: lhs " + text(lhs) + " and rhs " + text(rhs) +
                            " broadcast to more than 2^32 batches; allowed: at most 2^32"));
    }
    batches *= ob[d];
  }
  return g;
}

/// One output batch as a GEMM problem: A is lhs's matrix (M x K; with adj_x, `lhs_transposed`
/// holds it, transposed from the stored K x M), B is rhs's matrix as stored (K x N, or N x K with
/// adj_y), C the output batch. `params`, `output` and the zero points are the node's.
template <class AType, class OutType>
GemmProblem<AType, OutType> batch_matmul_problem(const BatchMatMulGeometry& g, std::size_t batch, const AType* lhs,
                                                 std::int32_t lhs_zero_point, const std::int8_t* rhs,
                                                 const std::int32_t* rhs_zero_point, const RequantParams* params,
                                                 const OutputParams& output, OutType* out) {
  GemmProblem<AType, OutType> p;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.a = lhs + g.lhs_batch(batch) * g.m * g.k;
  p.a_zero_point = lhs_zero_point;
  p.b = rhs + g.rhs_batch(batch) * g.k * g.n;
  p.b_layout = g.adj_y ? WeightLayout::kNxK : WeightLayout::kKxN;
  p.b_zero_points = rhs_zero_point;
  p.params = params;
  p.output = output;
  p.c = out + batch * g.m * g.n;
  return p;
}

/// Stored lhs with adj_x ([..., K, M] per matrix) -> [..., M, K] per matrix, for the GEMM's A.
template <class T>
void transpose_matrices(const T* in, std::size_t matrices, std::size_t rows, std::size_t cols, T* out) {
  for (std::size_t b = 0; b < matrices; ++b) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) out[b * rows * cols + c * rows + r] = in[b * rows * cols + r * cols + c];
    }
  }
}

}  // namespace reference
}  // namespace qparity
