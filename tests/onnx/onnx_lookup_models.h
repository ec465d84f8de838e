// One-node .onnx models of ONNX Runtime's table activations (docs/semantics.md §22.7) for the reader
// and oracle tests: com.microsoft QLinearSigmoid / QLinearLeakyRelu, or the QDQ group
// DequantizeLinear -> Sigmoid / LeakyRelu -> QuantizeLinear, on an input holding every 8-bit value.
#pragma once

#include <cstdint>
#include <string>

#include "onnx_test_models.h"

namespace qparity_test {

struct LookupSpec {
  bool sigmoid = true;  ///< Sigmoid, else LeakyRelu
  bool qdq = false;     ///< the QDQ group, else the com.microsoft QLinear operator
  qparity::cli::DType type = qparity::cli::DType::kInt8;
  float x_scale = 0.1f, y_scale = 1.0f / 256.0f;
  std::int64_t x_zp = 0, y_zp = -128;
  float alpha = 0.01f;  ///< LeakyRelu's attribute (always written)
};

/// The model; its input x is [2, 256]: row 0 every value of the type in byte order (0..127, then
/// -128..-1 for int8), row 1 the same reversed, so each table entry is read twice.
BuiltOnnx lookup_model(const LookupSpec& spec, const std::string& label);

struct SoftmaxSpec {
  bool qdq = false;  ///< DequantizeLinear -> Softmax -> QuantizeLinear, else com.microsoft QLinearSoftmax
  qparity::cli::DType type = qparity::cli::DType::kInt8;
  float x_scale = 0.1f, y_scale = 1.0f / 256.0f;
  std::int64_t x_zp = 0, y_zp = -128;
  std::int64_t opset = 13;  ///< QLinearSoftmax's opset attribute (axis written as rank - 1 below 13)
  std::size_t rows = 2, row = 256;
  std::uint64_t seed = 1;
};

/// A softmax over the last axis of [rows, row]. With row 256 each row holds every value of the
/// type (row 0 in byte order, then shuffled); otherwise seeded values over the type's range, and
/// every fourth row one element 100 steps above the rest (a probability near 1).
BuiltOnnx softmax_model(const SoftmaxSpec& spec, const std::string& label);

}  // namespace qparity_test
