// Accumulate-only conv-like nodes: a FULLY_CONNECTED, CONV_2D or DEPTHWISE_CONV_2D whose output is
// int32 holds the raw accumulators (sum over K of (a - a_zp) * (w - w_zp)) without bias,
// requantization or activation. ONNX's MatMulInteger and ConvInteger are read as such
// (docs/semantics.md §22.6); TFLite has no such operators.
#pragma once

#include <memory>

#include "model/graph.h"
#include "model/op.h"
#include "qparity/conv_geometry.h"

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
std::unique_ptr<PreparedNode> prepare_fc_accumulate(const Graph& g, const Node& n, const System& sys, std::size_t batch,
                                                    std::size_t depth, std::size_t out);

/// The prepared accumulate-only CONV_2D (OHWI filter, `geometry.groups` groups) or, with
/// `depth_multiplier` > 0, DEPTHWISE_CONV_2D (1HWO filter, output channel oc reading input channel
/// oc / depth_multiplier; geometry.groups is then the input channel count). Each output gathers its
/// window in (ky, kx, ic) order, taps outside the image reading the input zero point (so they add
/// 0, as ONNX Runtime's im2col pads with it), and applies the system's accumulator model.
std::unique_ptr<PreparedNode> prepare_conv_accumulate(const Graph& g, const Node& n, const System& sys,
                                                      const Conv2DGeometry& geometry, const ResolvedWindow& window,
                                                      std::size_t depth_multiplier);

}  // namespace qparity::model
