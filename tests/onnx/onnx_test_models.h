// The ONNX test models: one-op QLinearConv / QLinearMatMul models with seeded weights and inputs,
// built with OnnxBuilder, for the oracle tests (ONNX Runtime vs qparity) and the reader tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace qparity_test {

struct BuiltOnnx {
  std::string label;
  std::vector<std::uint8_t> bytes;
  std::vector<qparity::cli::Tensor> inputs;  ///< seeded, full range of the input's type
};

struct QConvSpec {
  qparity::cli::DType x = qparity::cli::DType::kInt8;  ///< activations (input and output)
  qparity::cli::DType w = qparity::cli::DType::kInt8;  ///< weights
  std::size_t n = 1, c = 4, h = 12, wd = 10, m = 8, kh = 3, kw = 3, group = 1, stride = 1, dilation = 1;
  std::vector<std::int64_t> pads{1, 1, 1, 1};  ///< top, left, bottom, right (auto_pad NOTSET)
  std::string auto_pad;                        ///< "" = NOTSET with pads
  bool per_channel = true;
  bool bias = true;
  float x_scale = 0.02f, w_scale = 0.004f, y_scale = 0.1f;  ///< per-channel scales spread around w_scale
  std::int64_t x_zp = 3, w_zp = 0, y_zp = -5;
  std::int64_t w_lo = -128, w_hi = 127;  ///< weight range (u8 weights: 0..255 by default)
  std::int64_t x_lo = -1, x_hi = -1;     ///< input range; -1, -1: the input type's full range
  std::uint64_t seed = 1;
};

/// x [n, c, h, wd] -> QLinearConv -> y (NCHW, as ONNX has it).
BuiltOnnx qlinear_conv_model(const QConvSpec& s);

struct QMatMulSpec {
  qparity::cli::DType a = qparity::cli::DType::kInt8;
  qparity::cli::DType b = qparity::cli::DType::kInt8;
  std::vector<std::size_t> a_shape{32, 24};  ///< [..., K]
  std::size_t n = 16;
  bool per_column = false;  ///< b_scale / b_zero_point per column of b
  float a_scale = 0.02f, b_scale = 0.004f, y_scale = 0.1f;
  std::int64_t a_zp = 3, b_zp = 0, y_zp = -5;
  std::int64_t b_lo = -128, b_hi = 127;
  std::uint64_t seed = 1;
};

/// a [..., K] -> QLinearMatMul (b constant [K, n]) -> y.
BuiltOnnx qlinear_matmul_model(const QMatMulSpec& s);

struct QBatchMatMulSpec {
  qparity::cli::DType a = qparity::cli::DType::kInt8;
  qparity::cli::DType b = qparity::cli::DType::kInt8;
  std::vector<std::size_t> a_shape{2, 3, 5, 24};  ///< [..., M, K]
  std::vector<std::size_t> b_shape{3, 24, 7};     ///< [..., K, N], batch dimensions broadcast with a's
  bool b_input = false;                           ///< b a graph input (else a constant)
  float a_scale = 0.02f, b_scale = 0.004f, y_scale = 0.1f;
  std::int64_t a_zp = 3, b_zp = 0, y_zp = -5;
  std::uint64_t seed = 1;
};

/// a -> QLinearMatMul (b constant or a graph input, N-D, per tensor) -> y: a batched product.
BuiltOnnx qlinear_batch_matmul_model(const QBatchMatMulSpec& s);

/// a -> MatMulInteger (B constant or a graph input, N-D; zero points a_zp, b_zp; scales unused) ->
/// y int32.
BuiltOnnx matmul_integer_batch_model(const QBatchMatMulSpec& s);

struct MatMulIntegerSpec {
  qparity::cli::DType a = qparity::cli::DType::kUint8;
  qparity::cli::DType b = qparity::cli::DType::kInt8;
  std::vector<std::size_t> a_shape{16, 32};  ///< [..., K]
  std::size_t n = 8;
  bool a_zero_point = true;          ///< input 2 present (an absent one before b_zero_point is named '')
  bool b_zero_point = true;          ///< input 3 present (else omitted)
  bool b_per_column = false;         ///< b_zero_point one per column of B
  std::int64_t a_zp = 3, b_zp = -2;  ///< b's per-column zero points are spread around b_zp
  std::uint64_t seed = 1;
};

/// a [..., K] -> MatMulInteger (B constant [K, n], full range of its type) -> y int32; a full range.
BuiltOnnx matmul_integer_model(const MatMulIntegerSpec& s);

struct ConvIntegerSpec {
  qparity::cli::DType x = qparity::cli::DType::kUint8;
  qparity::cli::DType w = qparity::cli::DType::kUint8;
  std::size_t n = 1, c = 4, h = 9, wd = 8, m = 6, kh = 3, kw = 3, group = 1, stride = 1, dilation = 1;
  std::vector<std::int64_t> pads{1, 1, 1, 1};  ///< top, left, bottom, right
  bool x_zero_point = true;                    ///< input 2 present (an absent one before w's is named '')
  bool w_zero_point = true;                    ///< input 3 present (else omitted)
  bool w_per_channel = false;                  ///< w_zero_point one per output channel (w_zp + oc % 5 - 2)
  std::int64_t x_zp = 128, w_zp = 120;
  std::uint64_t seed = 1;
};

/// x [n, c, h, wd] -> ConvInteger (w constant [m, c / group, kh, kw], full range) -> y int32 (NCHW).
BuiltOnnx conv_integer_model(const ConvIntegerSpec& s);

}  // namespace qparity_test

namespace qparity_test {

/// A MobileNet-v2-shaped chain of QLinearConv nodes with seeded per-channel int8 weights and int32
/// biases: x [1, 8, 32, 32] -> 3x3 stride 2 (16) -> depthwise 3x3 (16) -> 1x1 (24) -> depthwise 3x3
/// multiplier 2 stride 2 (48) -> 1x1 (8) -> y. Activations are `act` (int8 or uint8). The four
/// intermediate values stay NHWC inside qparity's graph (no transposes between the nodes).
BuiltOnnx qlinear_chain_model(qparity::cli::DType act, std::uint64_t seed);

}  // namespace qparity_test

namespace qparity_test {

struct QMulSpec {
  std::string op = "QLinearMul";  ///< or "QLinearAdd"
  qparity::cli::DType t = qparity::cli::DType::kInt8;
  std::vector<std::size_t> shape{1, 4, 9, 7};
  bool b_scalar = false;  ///< B a one-element initializer instead of a second graph input
  float a_scale = 0.05f, b_scale = 0.03f, c_scale = 0.2f;
  std::int64_t a_zp = 3, b_zp = -7, c_zp = 5;
  std::uint64_t seed = 1;
};

/// a (and b) -> com.microsoft.QLinearMul (or QLinearAdd) -> y; inputs full range.
BuiltOnnx qlinear_mul_model(const QMulSpec& s);

}  // namespace qparity_test

namespace qparity_test {

struct QGapSpec {
  qparity::cli::DType t = qparity::cli::DType::kUint8;
  std::vector<std::size_t> shape{1, 16, 7, 7};  ///< NCHW
  float x_scale = 0.05f, y_scale = 0.02f;
  std::int64_t x_zp = 128, y_zp = 120;
  std::uint64_t seed = 1;
};

/// x -> com.microsoft.QLinearGlobalAveragePool (channels_last 0) -> y [N, C, 1, 1]; inputs full range.
BuiltOnnx qlinear_global_average_pool_model(const QGapSpec& s);

}  // namespace qparity_test

namespace qparity_test {

/// A ResNet-shaped block and head with seeded per-channel int8 weights: x [1, 16, 12, 12] ->
/// 3x3 conv (16) -> 3x3 conv (16) -> QLinearAdd with x (the residual) -> QLinearGlobalAveragePool
/// -> Flatten -> QLinearMatMul (16 -> 10) -> y [1, 10]. Activations `act`.
BuiltOnnx resnet_block_model(qparity::cli::DType act, std::uint64_t seed);

}  // namespace qparity_test

namespace qparity_test {

struct QConcatSpec {
  qparity::cli::DType t = qparity::cli::DType::kUint8;
  bool after_convs = false;  ///< inputs computed by two 1x1 QLinearConv (NHWC inside qparity)
  std::int64_t axis = 1;
  bool same_quantization = false;  ///< every input quantized like the output
  bool ties = false;  ///< power-of-two scales: a's ratio 1/2 puts half its values on exact halves, b's 2 saturates
  std::uint64_t seed = 1;
};

/// com.microsoft.QLinearConcat of two 4-D tensors [1, 3, 5, 6] and [1, 4 or 3, 5, 6] along `axis`.
BuiltOnnx qlinear_concat_model(const QConcatSpec& s);

}  // namespace qparity_test

namespace qparity_test {

struct QAvgPoolSpec {
  qparity::cli::DType t = qparity::cli::DType::kUint8;
  std::vector<std::size_t> shape{1, 8, 11, 9};  ///< NCHW
  std::int64_t k = 3, stride = 2;
  bool same_upper = false;  ///< else no padding
  std::string auto_pad;             ///< when set, this auto_pad instead (SAME_LOWER, ...)
  std::vector<std::int64_t> pads;   ///< when set, explicit pads [top, left, bottom, right]
  std::int64_t kw = 0;              ///< kernel width when not k
  bool count_include_pad = false;
  float x_scale = 0.05f, y_scale = 0.03f;
  std::int64_t x_zp = 128, y_zp = 120;
  std::uint64_t seed = 1;
};

/// x -> com.microsoft.QLinearAveragePool -> y; input full range.
BuiltOnnx qlinear_average_pool_model(const QAvgPoolSpec& s);

}  // namespace qparity_test
