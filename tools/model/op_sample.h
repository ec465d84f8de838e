// Samples of an op: small one-node graphs, one per configuration that changes which kernel a
// runtime picks or how it computes (constant or run-time filter, int8 or uint8, ...). Each op
// provides its own (Op::samples, in its file); `qparity list --ops` runs every profile over them to
// show which op uses which arithmetic, and the unit tests prepare and run every sample under every
// profile, so a new op is covered by adding its samples.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/graph_builder.h"

namespace qparity::model {

struct OpSample {
  std::string label;  ///< the configuration: "int8 per-channel, constant filter"
  Graph graph;        ///< validated; node 0 is the op
};

/// Builds a sample: tensors are added with their quantization; inputs and outputs are marked.
class SampleBuilder {
 public:
  explicit SampleBuilder(std::string label) : label_(std::move(label)), b_("sample " + label_) {}

  /// A graph input of `shape`, per-tensor quantized (scale 0: not quantized, e.g. float32).
  int input(const std::string& name, DType dtype, std::vector<std::size_t> shape, float scale = 0.0f,
            std::int64_t zero_point = 0);
  /// A graph input with the given quantization (per-axis filters given at run time).
  int input(const std::string& name, DType dtype, std::vector<std::size_t> shape, Quantization quant);
  /// A constant whose values cycle through [lo, hi] in a fixed pattern.
  int constant(const std::string& name, DType dtype, std::vector<std::size_t> shape, std::int64_t lo,
               std::int64_t hi, Quantization quant = {});
  /// A constant with the given integer values (shapes, axes, paddings).
  int constant_values(const std::string& name, DType dtype, std::vector<std::size_t> shape,
                      const std::vector<std::int64_t>& values);
  /// The graph output (its shape inferred by the op), per-tensor quantized (scale 0: none).
  int output(const std::string& name, DType dtype, float scale = 0.0f, std::int64_t zero_point = 0);

  void node(OpKind op, std::vector<int> inputs, std::vector<int> outputs,
            std::shared_ptr<const OpOptions> options = nullptr);

  /// Validates the graph; throws cli::ToolError (a bug in the op's samples) if it is not valid.
  OpSample finish();

 private:
  std::string label_;
  GraphBuilder b_;
};

/// Per-axis quantization of a filter: `n` scales around `scale` along `axis`, zero points 0.
Quantization sample_per_axis(float scale, std::size_t n, std::size_t axis);

}  // namespace qparity::model
