// Accumulate-only conv-like nodes: a FULLY_CONNECTED whose output is int32 holds the raw
// accumulators (sum over K of (a - a_zp) * (w - w_zp)) without bias, requantization or activation.
// ONNX's MatMulInteger is read as one (docs/semantics.md §22.6); TFLite has no such operator.
#pragma once

#include <memory>

#include "model/graph.h"
#include "model/op.h"

namespace qparity::model {

/// Whether a conv-like node is accumulate-only (its output is int32).
bool accumulates_only(const Graph& g, const Node& n);

/// Checks an accumulate-only node: input int8/uint8 per-tensor with a zero point in range (its
/// scale is not used), filter int8/uint8 (either signedness with either input) with one zero point
/// or one per output channel along `filter_axis`, no bias, no fused activation, output int32.
void check_accumulate_tensors(const Graph& g, const Node& n, std::size_t filter_axis, std::size_t out_channels,
                              bool has_activation);

/// The prepared accumulate-only FULLY_CONNECTED: `batch` rows of `depth` elements against an
/// [out, depth] filter, each output the system's accumulator model applied to one dot product
/// (qparity::accumulate, include/qparity/accumulator.h: int32 wrap-around, or pairsat16 where the
/// profile says the runtime saturates int16 pairs).
std::unique_ptr<PreparedNode> prepare_fc_accumulate(const Graph& g, const Node& n, const System& sys,
                                                    std::size_t batch, std::size_t depth, std::size_t out);

}  // namespace qparity::model
