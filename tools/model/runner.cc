#include "model/runner.h"

#include <fmt/format.h>

#include "memory_limit.h"
#include "model/onnx/ort_qdq_float.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

unsigned checked_thread_count(long long value, const std::string& option) {
  if (value < 1 || value > static_cast<long long>(Runner::kMaxThreads)) {
    throw ToolError(fmt::format("{} {}: allowed: 1..{}", option, value, Runner::kMaxThreads));
  }
  return static_cast<unsigned>(value);
}

Runner::Runner(const Graph& graph, std::vector<System> systems, Engine engine, unsigned threads)
    : graph_(&graph), systems_(std::move(systems)), threads_(threads) {
  checked_thread_count(threads, "threads");
  const std::size_t n = graph.nodes.size();
  if (systems_.size() == 1 && n != 1) systems_.assign(n, systems_[0]);
  if (systems_.size() != n) {
    throw ToolError(fmt::format("{} systems for {} ops; allowed: one, or one per op", systems_.size(), n));
  }
  prepared_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    check_system_fits(graph, node, systems_[i]);
    // ONNX Runtime's unfused QDQ groups compute in float32 (onnx/ort_qdq_float.h), not with an op's
    // own quantized kernels.
    prepared_.push_back(ort_qdq_float_handles(node, systems_[i])
                            ? prepare_ort_qdq_float(graph, node, systems_[i], engine)
                            : op_of(node.op).prepare(graph, node, systems_[i], engine));
  }
  // Every tensor gets its storage once; constants keep their data, the rest are overwritten by
  // each run. All of them live at once (the drift report reads any of them), so the whole is
  // checked against the memory limit before anything is allocated.
  std::uint64_t total = 0, largest = 0;
  std::size_t largest_index = 0;
  for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
    const TensorDef& d = graph.tensors[t];
    if (d.constant()) continue;
    std::size_t elements = 0;
    const std::uint64_t bytes = cli::checked_elements(d.shape, cli::size_of(d.dtype), &elements)
                                    ? static_cast<std::uint64_t>(elements) * cli::size_of(d.dtype)
                                    : ~std::uint64_t{0} / 2;
    total += bytes;
    if (bytes > largest) {
      largest = bytes;
      largest_index = t;
    }
  }
  if (total > 0) {
    cli::check_memory(total, fmt::format("running {} (every op's outputs are kept; the largest, {} {} {}, is {})",
                                         graph.source.empty() ? std::string("the model") : graph.source,
                                         graph.tensor_label(static_cast<int>(largest_index)),
                                         cli::to_string(graph.tensors[largest_index].dtype),
                                         cli::shape_text(graph.tensors[largest_index].shape),
                                         cli::memory_size_text(largest)));
  }
  values_.reserve(graph.tensors.size());
  for (const TensorDef& t : graph.tensors) {
    values_.push_back(t.constant() ? *t.data : cli::make_tensor(t.dtype, t.shape));
  }
}

Runner::~Runner() = default;
Runner::Runner(Runner&&) noexcept = default;

void Runner::set_value(int t, const Tensor& v) {
  Tensor& dst = values_.at(static_cast<std::size_t>(t));
  if (v.dtype != dst.dtype || v.shape != dst.shape) {
    throw ToolError(fmt::format("{}: {} is {} {}, the value given is {} {}", graph_->source,
                                graph_->tensor_label(t), cli::to_string(dst.dtype), cli::shape_text(dst.shape),
                                cli::to_string(v.dtype), cli::shape_text(v.shape)));
  }
  dst.bytes = v.bytes;
}

void Runner::run(const std::vector<Tensor>& inputs) {
  if (inputs.size() != graph_->inputs.size()) {
    throw ToolError(fmt::format("{}: the model has {} inputs, {} given", graph_->source, graph_->inputs.size(),
                                inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) set_value(graph_->inputs[i], inputs[i]);
  for (std::size_t i = 0; i < prepared_.size(); ++i) run_node(i);
}

void Runner::run_node(std::size_t i) {
  if (threads_ > 1) {
    prepared_[i]->run_on_threads(values_, threads_);
  } else {
    prepared_[i]->run(values_);
  }
}

std::vector<Tensor> Runner::outputs() const {
  std::vector<Tensor> out;
  for (int t : graph_->outputs) out.push_back(value(t));
  return out;
}

}  // namespace qparity::model
