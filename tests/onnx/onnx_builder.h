// Builds .onnx models in the tests with the protobuf classes of Debian's libonnx-dev: the oracle
// tests' one-op and whole models (run by ONNX Runtime and by qparity's reader) and the reader's
// malformed-file tests. Initializers are written as raw_data (little-endian).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace qparity_test {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(std::int64_t opset = 13, bool microsoft_domain = false);

  /// A graph input / output with a static shape (an output's shape may be left empty).
  void input(const std::string& name, qparity::cli::DType dtype, const std::vector<std::size_t>& shape);
  void output(const std::string& name, qparity::cli::DType dtype, const std::vector<std::size_t>& shape = {});
  /// An initializer holding `t`.
  void initializer(const std::string& name, const qparity::cli::Tensor& t);
  /// Scalar (or 1-D when values has several) float / 8-bit initializers.
  void scales(const std::string& name, const std::vector<float>& values);
  void zero_points(const std::string& name, qparity::cli::DType dtype, const std::vector<std::int64_t>& values);
  /// A node; returns it for attributes.
  onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& domain = "");
  static void ints(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v);
  static void int_attr(onnx::NodeProto& n, const std::string& name, std::int64_t v);
  static void string_attr(onnx::NodeProto& n, const std::string& name, const std::string& v);

  onnx::ModelProto& model() { return model_; }
  std::vector<std::uint8_t> bytes() const;

 private:
  onnx::ModelProto model_;
};

}  // namespace qparity_test
