#include "onnx_test_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "onnx_builder.h"
#include "tool_error.h"

namespace qparity_test {

using qparity::cli::DType;
using qparity::cli::Tensor;

Tensor random_tensor(std::mt19937& rng, DType dtype, std::vector<std::size_t> shape, std::int64_t lo, std::int64_t hi) {
  Tensor t = qparity::cli::make_tensor(dtype, std::move(shape));
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, d(rng));
  return t;
}

std::vector<float> spread_scales(std::mt19937& rng, float base, std::size_t n) {
  std::uniform_real_distribution<float> d(0.5f, 1.5f);
  std::vector<float> out(n);
  for (float& s : out) s = base * d(rng);
  return out;
}

std::string read_error(const std::vector<std::uint8_t>& bytes) {
  try {
    qparity::model::read_onnx(bytes, "m.onnx");
  } catch (const qparity::cli::ToolError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string read_error(const OnnxBuilder& b) {
  return read_error(b.bytes());
}

std::vector<Tensor> run_qparity(const qparity::model::Graph& g, const std::vector<Tensor>& inputs,
                                const std::string& profile) {
  using namespace qparity::model;
  Runner runner(g, resolve_node_map(parse_node_map(profile, "profile"), g, "profile"));
  runner.run(inputs);
  return runner.outputs();
}

std::string run_error(const qparity::model::Graph& g, const std::vector<Tensor>& inputs, const std::string& profile) {
  try {
    run_qparity(g, inputs, profile);
  } catch (const qparity::cli::ToolError& e) {
    return e.what();
  }
  return "(no error)";
}

std::size_t mismatches(const Tensor& ort, const Tensor& ours, std::string* first) {
  if (ort.dtype != ours.dtype || ort.shape != ours.shape) {
    *first = std::string("dtype/shape differ: ORT ") + qparity::cli::to_string(ort.dtype) + " " +
             qparity::cli::shape_text(ort.shape) + ", qparity " + qparity::cli::to_string(ours.dtype) + " " +
             qparity::cli::shape_text(ours.shape);
    return std::max(ort.elements(), ours.elements());
  }
  std::size_t n = 0;
  if (ort.dtype == qparity::cli::DType::kFloat32) {
    // Bit for bit (a different NaN payload or sign of zero counts), described with 9 digits.
    for (std::size_t i = 0; i < ort.elements(); ++i) {
      if (std::memcmp(ort.bytes.data() + 4 * i, ours.bytes.data() + 4 * i, 4) != 0) {
        if (n == 0) *first = fmt::format("element {}: ORT {:.9g}, qparity {:.9g}", i, ort.value_at(i), ours.value_at(i));
        ++n;
      }
    }
    return n;
  }
  for (std::size_t i = 0; i < ort.elements(); ++i) {
    if (ort.integer_at(i) != ours.integer_at(i)) {
      if (n == 0) {
        *first = "element " + std::to_string(i) + ": ORT " + std::to_string(ort.integer_at(i)) + ", qparity " +
                 std::to_string(ours.integer_at(i));
      }
      ++n;
    }
  }
  return n;
}

OutputsCompared compare_outputs(const std::vector<Tensor>& ort, const std::vector<Tensor>& ours) {
  OutputsCompared c;
  if (ort.size() != ours.size()) {
    c.first = "ORT has " + std::to_string(ort.size()) + " outputs, qparity " + std::to_string(ours.size());
  }
  for (std::size_t k = 0; k < std::max(ort.size(), ours.size()); ++k) {
    if (k >= ort.size() || k >= ours.size()) {
      const std::size_t n = k < ort.size() ? ort[k].elements() : ours[k].elements();
      c.elements += n;
      c.wrong += n;
      continue;
    }
    std::string first;
    const std::size_t bad = mismatches(ort[k], ours[k], &first);
    if (bad != 0 && c.first.empty()) c.first = "output " + std::to_string(k) + ": " + first;
    c.elements += ours[k].elements();
    c.wrong += bad;
  }
  return c;
}

}  // namespace qparity_test
