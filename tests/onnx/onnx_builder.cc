#include "onnx_builder.h"

#include <cstring>

#include "model/onnx/onnx_proto_fields.h"

namespace qparity_test {

using qparity::cli::DType;
using qparity::cli::Tensor;

OnnxBuilder::OnnxBuilder(std::int64_t opset, bool microsoft_domain) {
  model_.set_ir_version(8);
  model_.set_producer_name("qparity tests");
  onnx::OperatorSetIdProto* o = model_.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  if (microsoft_domain) {
    onnx::OperatorSetIdProto* m = model_.add_opset_import();
    m->set_domain("com.microsoft");
    m->set_version(1);
  }
  model_.mutable_graph()->set_name("g");
}

namespace {

void set_type(onnx::ValueInfoProto* v, const std::string& name, DType dtype, const std::vector<std::size_t>& shape,
              bool with_shape) {
  v->set_name(name);
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(qparity::model::onnx_data_type(dtype));
  if (with_shape) {
    onnx::TensorShapeProto* s = t->mutable_shape();
    for (std::size_t d : shape) s->add_dim()->set_dim_value(static_cast<std::int64_t>(d));
  }
}

}  // namespace

void OnnxBuilder::input(const std::string& name, DType dtype, const std::vector<std::size_t>& shape) {
  set_type(model_.mutable_graph()->add_input(), name, dtype, shape, true);
}

void OnnxBuilder::output(const std::string& name, DType dtype, const std::vector<std::size_t>& shape) {
  set_type(model_.mutable_graph()->add_output(), name, dtype, shape, !shape.empty());
}

void OnnxBuilder::initializer(const std::string& name, const Tensor& t) {
  qparity::model::set_tensor_proto(model_.mutable_graph()->add_initializer(), name, t);
}

void OnnxBuilder::scales(const std::string& name, const std::vector<float>& values) {
  Tensor t = qparity::cli::make_tensor(
      DType::kFloat32, values.size() == 1 ? std::vector<std::size_t>{} : std::vector<std::size_t>{values.size()});
  std::memcpy(t.bytes.data(), values.data(), 4 * values.size());
  initializer(name, t);
}

void OnnxBuilder::zero_points(const std::string& name, DType dtype, const std::vector<std::int64_t>& values) {
  Tensor t = qparity::cli::make_tensor(
      dtype, values.size() == 1 ? std::vector<std::size_t>{} : std::vector<std::size_t>{values.size()});
  for (std::size_t i = 0; i < values.size(); ++i) t.set_integer(i, values[i]);
  initializer(name, t);
}

onnx::NodeProto& OnnxBuilder::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs, const std::string& domain) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op_type);
  n->set_domain(domain);
  n->set_name(outputs.empty() ? op_type : outputs[0] + "_node");
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return *n;
}

void OnnxBuilder::ints(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v) {
  qparity::model::add_ints_attribute(&n, name, v);
}

void OnnxBuilder::int_attr(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  qparity::model::add_int_attribute(&n, name, v);
}

void OnnxBuilder::string_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  qparity::model::add_string_attribute(&n, name, v);
}

std::vector<std::uint8_t> OnnxBuilder::bytes() const {
  std::string s;
  model_.SerializeToString(&s);
  return {s.begin(), s.end()};
}

}  // namespace qparity_test
