// Builds graphs in code: the tests' one-op and whole models, `qparity export` (a stack as a
// model) and `qparity probe --format tflite`. Each call adds a tensor or a node and returns its
// index; finish() validates the graph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/graph.h"

namespace qparity::model {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string source = "built graph") { graph_.source = std::move(source); }

  /// A run-time tensor (its shape may be left empty for the op to infer).
  int tensor(const std::string& name, DType dtype, std::vector<std::size_t> shape, Quantization quant = {});
  /// A constant tensor; its dtype and shape are the data's.
  int constant(const std::string& name, Tensor data, Quantization quant = {});
  /// A graph input / output (an existing tensor).
  void input(int t) { graph_.inputs.push_back(t); }
  void output(int t) { graph_.outputs.push_back(t); }

  /// A node; returns its index.
  std::size_t node(OpKind op, std::vector<int> inputs, std::vector<int> outputs,
                   std::shared_ptr<const OpOptions> options = nullptr, std::string name = "");

  Graph& graph() { return graph_; }
  /// Validates (validate()) and returns the graph.
  Graph finish();

  /// Per-tensor quantization.
  static Quantization per_tensor(float scale, std::int64_t zero_point);
  /// Per-axis quantization along `axis`, zero points 0.
  static Quantization per_axis(std::vector<float> scales, std::size_t axis);

 private:
  Graph graph_;
};

}  // namespace qparity::model
