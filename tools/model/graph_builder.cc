#include "model/graph_builder.h"

namespace qparity::model {

int GraphBuilder::tensor(const std::string& name, DType dtype, std::vector<std::size_t> shape, Quantization quant) {
  TensorDef t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.quant = std::move(quant);
  graph_.tensors.push_back(std::move(t));
  return static_cast<int>(graph_.tensors.size() - 1);
}

int GraphBuilder::constant(const std::string& name, Tensor data, Quantization quant) {
  TensorDef t;
  t.name = name;
  t.dtype = data.dtype;
  t.shape = data.shape;
  t.quant = std::move(quant);
  t.data = std::move(data);
  graph_.tensors.push_back(std::move(t));
  return static_cast<int>(graph_.tensors.size() - 1);
}

std::size_t GraphBuilder::node(OpKind op, std::vector<int> inputs, std::vector<int> outputs,
                               std::shared_ptr<const OpOptions> options, std::string name) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.options = std::move(options);
  n.name = name.empty() && !n.outputs.empty() && n.outputs[0] >= 0 &&
                   static_cast<std::size_t>(n.outputs[0]) < graph_.tensors.size()
               ? graph_.tensors[static_cast<std::size_t>(n.outputs[0])].name
               : std::move(name);
  graph_.nodes.push_back(std::move(n));
  return graph_.nodes.size() - 1;
}

Graph GraphBuilder::finish() {
  Graph g = graph_;
  validate(g);
  return g;
}

Quantization GraphBuilder::per_tensor(float scale, std::int64_t zero_point) {
  Quantization q;
  q.scales = {scale};
  q.zero_points = {zero_point};
  return q;
}

Quantization GraphBuilder::per_axis(std::vector<float> scales, std::size_t axis) {
  Quantization q;
  q.zero_points.assign(scales.size(), 0);
  q.scales = std::move(scales);
  q.axis = axis;
  return q;
}

}  // namespace qparity::model
