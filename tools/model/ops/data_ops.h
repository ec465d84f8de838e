// Options of SOFTMAX and CONCATENATION (PAD and PADV2 have none), shared with the tests and the
// writers that build them.
#pragma once

#include <string>

#include "model/graph.h"
#include "qparity/output_stage.h"

namespace qparity::model {

/// SOFTMAX (TFLite SoftmaxOptions): y = softmax(beta * x) over the last dimension.
struct SoftmaxOptions : OpOptions {
  float beta = 1.0f;
  std::string describe() const override;
};

/// CONCATENATION (TFLite ConcatenationOptions): the axis as the file states it (negative counts
/// from the end) and the fused activation (which TFLite's kernel requires to be NONE).
struct ConcatenationOptions : OpOptions {
  int axis = 0;
  Activation activation = Activation::kNone;
  std::string describe() const override;
};

/// Whether TFLite's XNNPACK delegate accepts an 8-bit tensor's quantization as per-tensor
/// (xnnpack_delegate.cc CheckTensorFloat32OrQUInt8Type): one scale and quantized_dimension 0. A
/// one-scale tensor quantized along another dimension is declined, which is how the oracle tests
/// send a node to TFLite's own kernel. float32 tensors: true.
bool xnnpack_per_tensor(const TensorDef& t);

/// Same scale (bit for bit, as TFLite compares them) and same zero point.
bool same_quantization(const TensorDef& a, const TensorDef& b);

/// Requires t's scales to be finite and > 0.
void require_valid_scales(const Graph& graph, const Node& node, const TensorDef& t, const char* role);

}  // namespace qparity::model
