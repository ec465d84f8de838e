// The kernels' access to a packed operand's data. The public classes (PackedGemm, PackedConv2D,
// PackedDepthwiseConv2D) keep their data private and befriend PackedAccess, so that the data
// layouts stay internal (kernels/) and out of the public headers' API.
#pragma once

#include "qparity/conv2d.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/gemm.h"

namespace qparity::internal {

struct PackedAccess {
  static const PackedGemmData& of(const PackedGemm& p) { return *p.data_; }
  static const PackedConv2DData& of(const PackedConv2D& p) { return *p.data_; }
  static const PackedDepthwiseConv2DData& of(const PackedDepthwiseConv2D& p) { return *p.data_; }
};

/// The data of a packed operand (its type's internal layout).
template <class Packed>
const auto& packed_data(const Packed& p) {
  return PackedAccess::of(p);
}

}  // namespace qparity::internal
