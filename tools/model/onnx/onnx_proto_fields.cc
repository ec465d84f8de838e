#include "model/onnx/onnx_proto_fields.h"

namespace qparity::model {

int onnx_data_type(cli::DType dtype) {
  switch (dtype) {
    case cli::DType::kInt8:
      return onnx::TensorProto_DataType_INT8;
    case cli::DType::kUint8:
      return onnx::TensorProto_DataType_UINT8;
    case cli::DType::kInt16:
      return onnx::TensorProto_DataType_INT16;
    case cli::DType::kInt32:
      return onnx::TensorProto_DataType_INT32;
    case cli::DType::kInt64:
      return onnx::TensorProto_DataType_INT64;
    case cli::DType::kFloat32:
      return onnx::TensorProto_DataType_FLOAT;
    default:
      return onnx::TensorProto_DataType_UNDEFINED;
  }
}

void set_tensor_proto(onnx::TensorProto* proto, const std::string& name, const cli::Tensor& t) {
  proto->set_name(name);
  proto->set_data_type(onnx_data_type(t.dtype));
  for (std::size_t d : t.shape) proto->add_dims(static_cast<std::int64_t>(d));
  proto->set_raw_data(std::string(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()));
}

void add_int_attribute(onnx::NodeProto* node, const std::string& name, std::int64_t value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(value);
}

void add_ints_attribute(onnx::NodeProto* node, const std::string& name, const std::vector<std::int64_t>& values) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (std::int64_t v : values) a->add_ints(v);
}

void add_string_attribute(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_STRING);
  a->set_s(value);
}

}  // namespace qparity::model
