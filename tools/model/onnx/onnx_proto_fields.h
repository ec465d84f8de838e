// Filling ONNX protobuf messages (libonnx-dev's onnx.proto classes) from qparity's types: the
// element type of a DType, an initializer's TensorProto with its bytes as raw_data (little-endian,
// as ONNX stores raw_data), and typed node attributes. One copy for qparity's ONNX writer and the
// tests' model builder.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace qparity::model {

/// TensorProto's data type for `dtype`; TensorProto_DataType_UNDEFINED for a type ONNX has no
/// counterpart of here.
int onnx_data_type(cli::DType dtype);

/// Sets `proto` to the tensor `t` named `name`: its type, dims and bytes as raw_data.
void set_tensor_proto(onnx::TensorProto* proto, const std::string& name, const cli::Tensor& t);

/// Adds an INT, INTS or STRING attribute to `node`.
void add_int_attribute(onnx::NodeProto* node, const std::string& name, std::int64_t value);
void add_ints_attribute(onnx::NodeProto* node, const std::string& name, const std::vector<std::int64_t>& values);
void add_string_attribute(onnx::NodeProto* node, const std::string& name, const std::string& value);

}  // namespace qparity::model
