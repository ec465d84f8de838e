// QDQ-form ONNX test models (DequantizeLinear -> float operator -> QuantizeLinear, as ONNX Runtime's
// quantization tools write them) with seeded weights and inputs, for the oracle tests (ONNX Runtime
// vs qparity at both graph optimization levels) and the reader tests.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "onnx_test_models.h"

namespace qparity_test {

struct QdqConvSpec {
  QConvSpec conv;          ///< shapes, types, scales, zero points, seed (auto_pad unused: pads)
  std::string activation;  ///< "", "Relu" or "Clip6" between the Conv and its QuantizeLinear
  /// Inputs and weights built so that most products cancel (channel c + C/2 repeats channel c, its
  /// weights negated, a few off by one): the float32 sums then depend on their order, which tells
  /// ONNX Runtime's summation order from others.
  bool cancelling = false;
  /// x reaches the Conv through a MaxPool 1x1 group whose QuantizeLinear feeds only the Conv's
  /// DequantizeLinear, and the Conv's QuantizeLinear feeds only the DequantizeLinear of a Flatten
  /// group writing y [n, m * out_h * out_w]: on x86 ONNX Runtime makes such int8 pairs uint8
  /// (QDQS8ToU8Transformer) and then fuses the int8 Conv group (ResNet-18's second convolutions).
  bool single_consumer_pairs = false;
};

/// x [n, c, h, wd] -> DequantizeLinear -> Conv (W, B through DequantizeLinear; W per axis 0 when
/// per_channel) [-> Relu / Clip] -> QuantizeLinear -> y.
BuiltOnnx qdq_conv_model(const QdqConvSpec& s);

struct QdqMatMulSpec {
  QMatMulSpec mm;
  bool cancelling = false;  ///< as QdqConvSpec::cancelling, along K
  /// Gemm (transB 1: B stored [n, K], per axis 0) with an int32 bias C through DequantizeLinear
  /// instead of MatMul.
  bool gemm = false;
  bool trans_b = true;  ///< gemm: transB 1 (B [n, K], per axis 0), else transB 0 (B [K, n], per axis 1)
  std::int64_t c_range = 300;  ///< gemm: C drawn in [-c_range, c_range]
  /// As QdqConvSpec::single_consumer_pairs (a MaxPool 1x1 group before, a Flatten group after; a
  /// must be 4-D): ONNX Runtime fuses the int8 MatMul group too.
  bool single_consumer_pairs = false;
  std::string activation;  ///< as QdqConvSpec::activation, between the MatMul / Gemm and its QuantizeLinear
};

/// a -> DequantizeLinear -> MatMul (b constant through DequantizeLinear, per axis 1 when per_column)
/// or Gemm (see gemm) [-> Relu / Clip] -> QuantizeLinear -> y.
BuiltOnnx qdq_matmul_model(const QdqMatMulSpec& s);

struct QdqBatchMatMulSpec {
  QBatchMatMulSpec mm;      ///< shapes (b N-D or a graph input), types, per-tensor quantization, seed
  bool cancelling = false;  ///< as QdqMatMulSpec::cancelling, in each of b's matrices (int8 b, zero point 0)
  /// As QdqConvSpec::single_consumer_pairs (a MaxPool 1x1 group before, a Flatten group after; a
  /// must be 4-D): ONNX Runtime fuses the int8 MatMul group too.
  bool single_consumer_pairs = false;
};

/// a -> DequantizeLinear, b (a constant of rank 3 or more, or a graph input) -> DequantizeLinear,
/// MatMul (batch dimensions broadcast) -> QuantizeLinear -> y.
BuiltOnnx qdq_batch_matmul_model(const QdqBatchMatMulSpec& s);

/// a (and b) -> DequantizeLinear -> Add / Mul (s.op "QLinearAdd" / "QLinearMul" names the op)
/// [-> `activation`: "Relu" / "Clip6"] -> QuantizeLinear -> y; b a graph input or a one-element constant.
BuiltOnnx qdq_binary_model(const QMulSpec& s, const std::string& activation = "");

struct QdqPoolSpec {
  std::string op = "GlobalAveragePool";  ///< or "AveragePool", "MaxPool"
  qparity::cli::DType t = qparity::cli::DType::kInt8;
  std::vector<std::size_t> shape{1, 8, 9, 7};
  std::int64_t k = 3, stride = 2;          ///< AveragePool / MaxPool
  bool same_upper = false;                 ///< AveragePool / MaxPool: auto_pad SAME_UPPER, else no padding
  std::string auto_pad;                    ///< when set, this auto_pad instead (SAME_LOWER, ...)
  std::vector<std::int64_t> pads;          ///< when set, explicit pads [top, left, bottom, right]
  std::int64_t kw = 0;                     ///< kernel width when not k
  bool count_include_pad = false;          ///< AveragePool
  float x_scale = 0.05f, y_scale = 0.03f;  ///< MaxPool: y_scale = x_scale
  std::int64_t x_zp = 3, y_zp = -4;
  std::uint64_t seed = 1;
};

/// x -> DequantizeLinear -> pool -> QuantizeLinear -> y.
BuiltOnnx qdq_pool_model(const QdqPoolSpec& s);

/// Two inputs [1, 3, 5, 6] and [1, 4, 5, 6], each through DequantizeLinear (own quantization for
/// uint8, the output's for int8), Concat along C, QuantizeLinear.
BuiltOnnx qdq_concat_model(qparity::cli::DType t, std::uint64_t seed);

/// x (`shape`, full range) -> DequantizeLinear -> Transpose(perm; empty: no attribute, the default
/// reversal) -> QuantizeLinear -> y; the same scale and zero point unless y_scale / y_zp_shift say
/// otherwise (x: scale 0.037, zero point 131 for uint8, -7 for int8).
BuiltOnnx qdq_transpose_model(qparity::cli::DType t, const std::vector<std::size_t>& shape,
                              const std::vector<std::int64_t>& perm, std::uint64_t seed, float y_scale = 0.037f,
                              std::int64_t y_zp_shift = 0);

/// float32 x [1, 4, 6, 5] -> QuantizeLinear (x_scale, x_zp) -> DequantizeLinear -> Add (a one-element
/// constant through DequantizeLinear) -> QuantizeLinear -> DequantizeLinear -> float32 y: a QDQ
/// model's float entry and exit. x from float_quantize_inputs.
BuiltOnnx qdq_float_io_model(qparity::cli::DType t, float x_scale, std::int64_t x_zp, std::uint64_t seed);

struct LoneLinearSpec {
  bool quantize = true;  ///< QuantizeLinear (float32 x -> t), else DequantizeLinear (t -> float32)
  qparity::cli::DType t = qparity::cli::DType::kInt8;
  std::vector<float> scales{0.125f};  ///< three: per axis 1
  std::vector<std::int64_t> zps{3};   ///< as many as scales
  std::uint64_t seed = 1;
};

/// One QuantizeLinear or DequantizeLinear of x [1, 3, 4, 5] with constant scales and zero points
/// (ONNX's node tests of the ops, folded); a quantize's x from float_quantize_inputs (scale: the
/// first), a dequantize's uniform over the type.
BuiltOnnx lone_linear_model(const LoneLinearSpec& s);

/// Float inputs for a quantization of `scale` and `zp` to `t`: in each run of four elements, an odd
/// multiple of scale / 2 (an exact tie of x / scale when scale is a power of two), a value past the
/// type's range (either side), two uniform over the range and a step beyond.
qparity::cli::Tensor float_quantize_inputs(std::mt19937& rng, const std::vector<std::size_t>& shape, float scale,
                                           std::int64_t zp, qparity::cli::DType t);

/// A ResNet-shaped QDQ model with seeded per-channel weights: x [1, 16, 12, 12] -> 3x3 conv + Relu
/// -> 3x3 conv -> Add with x (the skip connection) + Relu -> MaxPool 2x2 -> GlobalAveragePool ->
/// Flatten -> MatMul (16 -> 10) -> y [1, 10], every operator between DequantizeLinear and
/// QuantizeLinear nodes. Activations `act`, weights int8.
BuiltOnnx qdq_resnet_model(qparity::cli::DType act, std::uint64_t seed);

}  // namespace qparity_test
