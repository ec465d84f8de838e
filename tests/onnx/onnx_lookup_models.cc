#include "onnx_lookup_models.h"

#include <algorithm>
#include <random>

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

BuiltOnnx softmax_model(const SoftmaxSpec& s, const std::string& label) {
  OnnxBuilder b(13, /*microsoft_domain=*/!s.qdq);
  const std::vector<std::size_t> shape = {s.rows, s.row};
  b.input("x", s.type, shape);
  b.output("y", s.type, shape);
  b.scales("xs", {s.x_scale});
  b.zero_points("xz", s.type, {s.x_zp});
  b.scales("ys", {s.y_scale});
  b.zero_points("yz", s.type, {s.y_zp});
  if (s.qdq) {
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xf"});
    b.node("Softmax", {"xf"}, {"yf"});
    b.node("QuantizeLinear", {"yf", "ys", "yz"}, {"y"});
  } else {
    onnx::NodeProto& n = b.node("QLinearSoftmax", {"x", "xs", "xz", "ys", "yz"}, {"y"}, "com.microsoft");
    OnnxBuilder::int_attr(n, "opset", s.opset);
    OnnxBuilder::int_attr(n, "axis", s.opset >= 13 ? -1 : 1);
  }
  BuiltOnnx m;
  m.label = label;
  m.bytes = b.bytes();
  qparity::cli::Tensor x = qparity::cli::make_tensor(s.type, shape);
  std::mt19937_64 rng(s.seed);
  const std::int64_t lo = s.type == DType::kInt8 ? -128 : 0;
  for (std::size_t r = 0; r < s.rows; ++r) {
    std::uint8_t* row = x.bytes.data() + r * s.row;
    if (s.row == 256) {
      for (std::size_t i = 0; i < 256; ++i) row[i] = static_cast<std::uint8_t>(i);
      if (r > 0) std::shuffle(row, row + 256, rng);
      continue;
    }
    std::uniform_int_distribution<std::int64_t> u(lo, lo + 255);
    for (std::size_t i = 0; i < s.row; ++i) x.set_integer(r * s.row + i, u(rng));
    if (r % 4 == 3) {
      std::uniform_int_distribution<std::int64_t> small(lo, lo + 150);
      for (std::size_t i = 0; i < s.row; ++i) x.set_integer(r * s.row + i, small(rng));
      x.set_integer(r * s.row + rng() % s.row, lo + 255);
    }
  }
  m.inputs.push_back(std::move(x));
  return m;
}

}  // namespace qparity_test
