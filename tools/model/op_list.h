// The one list of model ops. Everything that enumerates ops is derived from it: the OpKind enum and
// names, the op registry (op.h), the .tflite reader's and writer's operator codes, `qparity list
// --ops`, the per-op arithmetic tables of `inspect`/`explain`, and the tests that run every op.
//
// X(Enumerator, "NAME", tflite_builtin_code, tflite_version, file)
//   Enumerator           OpKind::k<Enumerator>
//   "NAME"               TFLite's operator name (BuiltinOperator), used in messages and maps
//   tflite_builtin_code  TFLite's BuiltinOperator value (schema.fbs), or -1 for an op qparity reads
//                        from .onnx models only (its TFLite arithmetic is not modelled: the .tflite
//                        reader refuses the operator and the writer cannot write the node)
//   tflite_version       the operator version qparity writes (the lowest that covers int8)
//   file                 the op's implementation: <file>_op(), defined in tools/model/ops/<file>.cc
//                        or in the file of its family (reshape.cc: squeeze_op; elementwise.cc:
//                        add_op, sub_op, mul_op; lookup_activation.cc: logistic_op, leaky_relu_op)
//
// Adding an op: its file under tools/model/ops/ (and a header there if other code builds its
// options) and one entry here. Append only; the order is the enum's.
#pragma once

#include <cstdint>

#define QPARITY_OP_LIST(X)                                              \
  X(Conv2D, "CONV_2D", 3, 3, conv2d)                                    \
  X(DepthwiseConv2D, "DEPTHWISE_CONV_2D", 4, 3, depthwise_conv2d)       \
  X(FullyConnected, "FULLY_CONNECTED", 9, 4, fully_connected)           \
  X(Quantize, "QUANTIZE", 114, 2, quantize)                             \
  X(Dequantize, "DEQUANTIZE", 6, 2, dequantize)                         \
  X(Reshape, "RESHAPE", 22, 1, reshape)                                 \
  X(Squeeze, "SQUEEZE", 43, 1, squeeze)                                 \
  X(Softmax, "SOFTMAX", 25, 2, softmax)                                 \
  X(Concatenation, "CONCATENATION", 2, 2, concatenation)                \
  X(Pad, "PAD", 34, 2, pad)                                             \
  X(PadV2, "PADV2", 60, 2, pad_v2)                                      \
  X(Add, "ADD", 0, 2, add)                                              \
  X(Sub, "SUB", 41, 2, sub)                                             \
  X(Mul, "MUL", 18, 2, mul)                                              \
  X(AveragePool2D, "AVERAGE_POOL_2D", 1, 2, average_pool2d)             \
  X(MaxPool2D, "MAX_POOL_2D", 17, 2, max_pool2d)                        \
  X(Mean, "MEAN", 40, 2, mean)                                          \
  X(Relu, "RELU", 19, 2, relu)                                          \
  X(Relu6, "RELU6", 21, 2, relu6)                                       \
  X(Transpose, "TRANSPOSE", 39, 2, transpose)                           \
  X(Logistic, "LOGISTIC", -1, 1, logistic)                              \
  X(LeakyRelu, "LEAKY_RELU", -1, 1, leaky_relu)                         \
  X(ResizeBilinear, "RESIZE_BILINEAR", 23, 2, resize_bilinear)          \
  X(ResizeNearestNeighbor, "RESIZE_NEAREST_NEIGHBOR", 97, 2, resize_nearest_neighbor)  \
  X(BatchMatMul, "BATCH_MATMUL", 126, 2, batch_matmul)

namespace qparity::model {

enum class OpKind : std::uint8_t {
#define QPARITY_OP_ENUMERATOR(Id, Name, code, version, file) k##Id,
  QPARITY_OP_LIST(QPARITY_OP_ENUMERATOR)
#undef QPARITY_OP_ENUMERATOR
};

/// "CONV_2D" etc.
const char* to_string(OpKind op);

/// Every op, in list order.
const OpKind* all_ops(std::size_t* count);

}  // namespace qparity::model
