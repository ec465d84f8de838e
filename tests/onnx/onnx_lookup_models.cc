#include "onnx_lookup_models.h"

#include "onnx_builder.h"

namespace qparity_test {

using qparity::cli::DType;

BuiltOnnx lookup_model(const LookupSpec& s, const std::string& label) {
  OnnxBuilder b(13, /*microsoft_domain=*/!s.qdq);
  const std::vector<std::size_t> shape = {2, 256};
  b.input("x", s.type, shape);
  b.output("y", s.type, shape);
  b.scales("xs", {s.x_scale});
  b.zero_points("xz", s.type, {s.x_zp});
  b.scales("ys", {s.y_scale});
  b.zero_points("yz", s.type, {s.y_zp});
  const std::string op = s.sigmoid ? "Sigmoid" : "LeakyRelu";
  onnx::NodeProto* n = nullptr;
  if (s.qdq) {
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xf"});
    n = &b.node(op, {"xf"}, {"yf"});
    b.node("QuantizeLinear", {"yf", "ys", "yz"}, {"y"});
  } else {
    n = &b.node("QLinear" + op, {"x", "xs", "xz", "ys", "yz"}, {"y"}, "com.microsoft");
  }
  if (!s.sigmoid) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("alpha");
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(s.alpha);
  }
  BuiltOnnx m;
  m.label = label;
  m.bytes = b.bytes();
  qparity::cli::Tensor x = qparity::cli::make_tensor(s.type, shape);
  for (std::size_t i = 0; i < 256; ++i) {
    x.bytes[i] = static_cast<std::uint8_t>(i);
    x.bytes[256 + i] = static_cast<std::uint8_t>(255 - i);
  }
  m.inputs.push_back(std::move(x));
  return m;
}

}  // namespace qparity_test
