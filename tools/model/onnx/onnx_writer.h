// Writes a quantized qparity Graph (NHWC, TFLite-like: the zoo's models, a .tflite read back) as an
// .onnx model that qparity's own reader (onnx_reader.h) reads back into a graph computing the same
// bits under the same arithmetic, and that ONNX Runtime runs. Two forms:
//
//   operator form  QLinearConv (CONV_2D, DEPTHWISE_CONV_2D as a grouped conv with one channel per
//                  group, FULLY_CONNECTED as a 1x1 QLinearConv between two Reshapes: QLinearMatMul
//                  has no bias), com.microsoft QLinearAdd, com.microsoft QLinearGlobalAveragePool
//                  (MEAN over H and W; a Flatten after it when the MEAN drops the dimensions).
//   QDQ form       DequantizeLinear on every input (one per consumer, as ONNX Runtime's quantizer
//                  writes them) -> Conv / Add / GlobalAveragePool / MaxPool / Flatten / Reshape
//                  -> QuantizeLinear (FULLY_CONNECTED: the operator form's 1x1 Conv between
//                  Reshapes); weights per output channel (axis 0), the int32 bias dequantized with
//                  scale x_scale * w_scale and zero point 0.
//
// Layout: ONNX is NCHW. The writer transposes the filters (OHWI -> OIHW, depthwise 1HWC -> C1HW)
// and declares every 4-D activation, graph inputs and outputs included, in NCHW; the data a caller
// feeds a 4-D input must be transposed likewise (NHWC -> NCHW). Padding is written explicitly
// (Conv pads computed from the input size as TensorFlow's SAME does) or as auto_pad SAME_UPPER
// (MaxPool; the same split: the odd pixel at the end).
//
// Fused activations: a RELU / RELU6 whose clamp is implied by the output's quantization (zero point
// at the type's minimum, and 6.0 at or beyond its maximum for RELU6: what the TFLite converter
// writes) changes no value and is dropped. Another clamp is written as Relu / Clip(0, 6) in the QDQ
// form and refused in the operator form (QLinear operators have no fused activation).
//
// `activations = kUint8` writes an int8 graph with uint8 activations (every activation value and
// zero point + 128, weights and biases unchanged: the same real values; an exact arithmetic gives
// each output + 128). Anything else without an ONNX form here (SOFTMAX, other ops, per-axis
// activations, 16-bit tensors, ...) is a cli::ToolError naming the node and what is allowed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"

namespace qparity::model {

enum class OnnxForm { kQLinear, kQdq };

struct OnnxWriteOptions {
  OnnxForm form = OnnxForm::kQLinear;
  DType activations = DType::kInt8;  ///< kInt8 (as the graph) or kUint8 (shifted by 128)
  std::string producer = "qparity";  ///< the model's producer_name
};

/// The .onnx file's bytes. The graph must be validated (validate()). Throws cli::ToolError.
std::vector<std::uint8_t> write_onnx(const Graph& graph, const OnnxWriteOptions& options);

/// "onnx-qlinear" / "onnx-qdq" (what `qparity export --format` takes).
const char* onnx_form_name(OnnxForm form);

}  // namespace qparity::model
