// Helpers shared by the ONNX tests (model builders, reader tests, oracle tests): seeded tensors and
// scales, the reader's error for a model, a graph run under a profile, and the element-by-element
// comparison with ONNX Runtime's output. One copy, so every ONNX test fills and compares alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/graph.h"
#include "tensor.h"

namespace qparity_test {

class OnnxBuilder;

/// A tensor of `shape` filled with integers uniform in [lo, hi] drawn from `rng`.
qparity::cli::Tensor random_tensor(std::mt19937& rng, qparity::cli::DType dtype, std::vector<std::size_t> shape,
                                   std::int64_t lo, std::int64_t hi);

/// Per-channel scales spread over [0.5, 1.5) x base, so channels requantize differently.
std::vector<float> spread_scales(std::mt19937& rng, float base, std::size_t n);

/// The message of the ToolError that read_onnx throws for `bytes` (named m.onnx), or "(no error)".
std::string read_error(const std::vector<std::uint8_t>& bytes);
std::string read_error(const OnnxBuilder& b);

/// The outputs of `g` run on `inputs` under `profile` (a profile name or a per-op node map).
std::vector<qparity::cli::Tensor> run_qparity(const qparity::model::Graph& g,
                                              const std::vector<qparity::cli::Tensor>& inputs,
                                              const std::string& profile);

/// The message of the ToolError that running `g` under `profile` throws (a node the profile's
/// arithmetic refuses when preparing), or "(no error)".
std::string run_error(const qparity::model::Graph& g, const std::vector<qparity::cli::Tensor>& inputs,
                      const std::string& profile);

/// How many elements of `ours` differ from `ort` (all of them when dtype or shape differ; float32
/// elements by their bits); the first difference is described in *first.
std::size_t mismatches(const qparity::cli::Tensor& ort, const qparity::cli::Tensor& ours, std::string* first);

/// Every output of a model compared: elements, mismatching elements, and the first difference
/// ("output k: ...", empty when none). Outputs that are missing on one side count as all wrong.
struct OutputsCompared {
  std::size_t elements = 0;
  std::size_t wrong = 0;
  std::string first;
};
OutputsCompared compare_outputs(const std::vector<qparity::cli::Tensor>& ort,
                                const std::vector<qparity::cli::Tensor>& ours);

}  // namespace qparity_test
