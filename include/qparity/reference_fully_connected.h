// Fully connected layers with TFLite's semantics: operand description and the header-only
// reference (reference::gemm underneath). The compiled fast path is in fully_connected.h.
//
// TFLite FULLY_CONNECTED (tensorflow/lite/kernels/internal/reference/integer_ops/fully_connected.h):
//   input  [batch, input_depth]   (any shape whose last dimension is input_depth, flattened)
//   filter [output_depth, input_depth]   "OI": exactly WeightLayout::kNxK
//   bias   [output_depth] int32, optional
//   out[b][o] = clamp(requant(sum_i (input[b][i] + input_offset) * (filter[o][i] + filter_offset)
//                             + bias[o]) + output_offset, act_min, act_max)
// with input_offset = -input_zero_point and filter_offset = -filter_zero_point (0 for int8
// filters; the uint8 kernels have a per-tensor filter zero point); per-channel multipliers in the
// per-channel (int8) variant. The rounding core and accumulator model are qparity's to choose.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qparity/reference_gemm.h"

namespace qparity {

/// A fully connected layer's constant operands (TFLite vocabulary).
struct FullyConnectedWeights {
  std::size_t output_depth = 0;
  std::size_t input_depth = 0;
  const std::int8_t* filter = nullptr;        ///< [output_depth][input_depth], dense
  const std::int32_t* filter_zero_points = nullptr;  ///< null, one, or output_depth values
  bool filter_zero_point_per_channel = false;
  const std::int32_t* bias = nullptr;         ///< output_depth values or null
  const RequantParams* params = nullptr;      ///< one, or output_depth (per_channel)
  bool per_channel = false;
};

/// One run: input [batch][input_depth] (dense), output [batch][output_depth] (dense).
template <class AType, class OutType>
struct FullyConnectedCall {
  std::size_t batch = 0;
  const AType* input = nullptr;
  std::int32_t input_zero_point = 0;
  OutputParams output{};  ///< zero point and activation clamp (activation_output_params)
  OutType* out = nullptr;
};

/// The GemmProblem of a fully connected layer (for the reference and one-shot entries).
template <class AType, class OutType>
GemmProblem<AType, OutType> gemm_problem_of(const FullyConnectedWeights& f,
                                            const FullyConnectedCall<AType, OutType>& call) {
  GemmProblem<AType, OutType> g;
  g.m = call.batch;
  g.n = f.output_depth;
  g.k = f.input_depth;
  g.a = call.input;
  g.a_zero_point = call.input_zero_point;
  g.b = f.filter;
  g.b_layout = WeightLayout::kNxK;
  g.b_zero_points = f.filter_zero_points;
  g.b_zero_point_per_channel = f.filter_zero_point_per_channel;
  g.bias = f.bias;
  g.params = f.params;
  g.per_channel = f.per_channel;
  g.output = call.output;
  g.c = call.out;
  return g;
}

namespace reference {

/// The reference fully connected layer (header-only; reference::gemm underneath).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
QPARITY_MAY_THROW
void fully_connected(const FullyConnectedWeights& f, const FullyConnectedCall<AType, OutType>& call) {
  reference::gemm<Policy, Accum>(gemm_problem_of(f, call));
}

}  // namespace reference
}  // namespace qparity
