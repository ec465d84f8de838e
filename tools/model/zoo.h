// Synthetic int8 models with seeded weights and realistic quantization, built in code: what the
// whole-model oracle tests, the model benchmark and the README demo run. Deterministic (the same
// bytes on every machine for a seed).
//
//   mobilenet_v2   MobileNet v2's layer structure (Sandler et al. 2018, the Keras application at
//                  width 1.0): a 3x3/2 stem, 17 inverted residual blocks (1x1 expansion with RELU6,
//                  3x3 depthwise with RELU6, 1x1 linear projection, residual ADD where the stride is
//                  1 and the channels agree), a 1x1 conv to 1280, global average pool (MEAN over
//                  H and W), FULLY_CONNECTED to `classes`, SOFTMAX. Per-channel int8 filters.
//   resnet_blocks  a ResNet-style stack: 7x7/2 stem conv with RELU, 3x3/2 MAX_POOL_2D, `blocks` basic
//                  blocks (two 3x3 convs, residual ADD with fused RELU), MEAN, FULLY_CONNECTED.
//   resnet18       ResNet-18's layer structure (He et al. 2016, table 1): 7x7/2 stem conv with RELU,
//                  3x3/2 MAX_POOL_2D, four stages of two basic blocks at 64, 128, 256 and 512
//                  channels (stages 2 to 4 start with a stride-2 3x3 conv and a 1x1 stride-2
//                  projection of the shortcut), residual ADD with fused RELU, MEAN, FULLY_CONNECTED.
// Quantization: each tensor's scale is chosen from the spread its producer's arithmetic implies
// (the standard deviation of a random dot product, sqrt(K) * sigma_x * sigma_w), so that outputs
// use the int8 range without saturating; RELU6 outputs are scaled so 6.0 maps to 127 with zero
// point -128, as the TFLite converter does.
#pragma once

#include <cstdint>

#include "model/graph.h"

namespace qparity::model {

struct ZooOptions {
  std::uint64_t seed = 1;
  std::size_t input_size = 224;  ///< H = W of the input image
  std::size_t classes = 1000;
  /// mobilenet_v2 only: end with SOFTMAX (false: the model ends at the logits, the same weights;
  /// what the ONNX export uses, as qparity reads no int8 ONNX softmax yet).
  bool softmax = true;
};

/// MobileNet v2 (int8 input [1, size, size, 3], int8 output [1, classes] after SOFTMAX).
Graph mobilenet_v2(const ZooOptions& options);

/// A ResNet-style stack of basic blocks (int8 input [1, size, size, 3]).
Graph resnet_blocks(const ZooOptions& options, std::size_t blocks = 4, std::size_t width = 64);

/// ResNet-18 (int8 input [1, size, size, 3], int8 output [1, classes]: the logits).
Graph resnet18(const ZooOptions& options);

}  // namespace qparity::model
