// Runs a validated graph under a system per node, keeping every tensor (for dumps and for the
// drift report). Nodes are prepared once (parameters derived, weights packed) and run many times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/op.h"
#include "model/system.h"

namespace qparity::model {

/// The value of option `option` (e.g. "--threads") as a Runner thread count; throws
/// cli::ToolError naming the option and the allowed range 1..Runner::kMaxThreads.
unsigned checked_thread_count(long long value, const std::string& option);

class Runner {
 public:
  static constexpr unsigned kMaxThreads = 64;

  /// Prepares every node: `systems` holds one system per node (resolve_node_map), or exactly one
  /// for all. Throws cli::ToolError naming the node that cannot be prepared.
  /// `threads` (1..kMaxThreads): nodes whose kernel has a threaded form (convolutions, depthwise
  /// convolutions, fully connected layers, under the fast engine with packed weights) split their
  /// tiles over that many threads (the library's tile pool); every tensor keeps the one-thread
  /// bits. Other nodes run on the calling thread.
  Runner(const Graph& graph, std::vector<System> systems, Engine engine = Engine::kFast, unsigned threads = 1);
  ~Runner();
  Runner(Runner&&) noexcept;

  /// Runs the graph on `inputs` (one per graph input, in order, each with the input's dtype and
  /// shape: a mismatch is a ToolError naming the input). Afterwards every tensor is available.
  void run(const std::vector<Tensor>& inputs);

  /// Runs node `i` alone on the current values (the drift report's isolated runs feed each node
  /// the other side's inputs first, through set_value).
  void run_node(std::size_t i);

  /// Tensor t's current value (constants included).
  const Tensor& value(int t) const { return values_[static_cast<std::size_t>(t)]; }
  /// Replaces tensor t's value (same dtype and shape).
  void set_value(int t, const Tensor& v);

  /// The graph outputs' current values, in order.
  std::vector<Tensor> outputs() const;

  const Graph& graph() const { return *graph_; }
  const System& system(std::size_t node) const { return systems_[node]; }
  const PreparedNode& prepared(std::size_t node) const { return *prepared_[node]; }

 private:
  const Graph* graph_;
  std::vector<System> systems_;
  std::vector<std::unique_ptr<PreparedNode>> prepared_;
  std::vector<Tensor> values_;
  unsigned threads_ = 1;
};

}  // namespace qparity::model
