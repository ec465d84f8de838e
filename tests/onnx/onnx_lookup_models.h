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

}  // namespace qparity_test
