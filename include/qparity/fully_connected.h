// Fully connected (dense) layers with TFLite's semantics on the compiled GEMM (a thin layer over
// gemm.h); reference_fully_connected.h has the operand types and the reference.
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

#include "qparity/gemm.h"
#include "qparity/reference_fully_connected.h"

namespace qparity {

/// The GEMM weights of a fully connected layer (filter as N x K, TFLite's OI layout).
inline GemmWeights gemm_weights_of(const FullyConnectedWeights& f) {
  GemmWeights w;
  w.n = f.output_depth;
  w.k = f.input_depth;
  w.b = f.filter;
  w.layout = WeightLayout::kNxK;
  w.zero_points = f.filter_zero_points;
  w.zero_point_per_channel = f.filter_zero_point_per_channel;
  w.bias = f.bias;
  w.params = f.params;
  w.per_channel = f.per_channel;
  return w;
}

/// Packs a fully connected layer once (see PackedGemm).
inline PackedGemm pack_fully_connected(const FullyConnectedWeights& f, RoundingCore core,
                                       AccumulatorSpec accumulator = {}) {
  return PackedGemm(gemm_weights_of(f), core, accumulator);
}

/// Runs a packed fully connected layer (validates like gemm).
template <class AType, class OutType>
void fully_connected(const PackedGemm& packed, const FullyConnectedCall<AType, OutType>& call) {
  gemm(packed, GemmCall<AType, OutType>{call.batch, call.input, 0, call.input_zero_point,
                                        call.output, call.out, 0});
}

/// Compile-time selection, one shot: fully_connected<presets::TfliteReference::Policy>(f, call).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
void fully_connected(const FullyConnectedWeights& f, const FullyConnectedCall<AType, OutType>& call) {
  gemm<Policy, Accum>(gemm_problem_of(f, call));
}

}  // namespace qparity
