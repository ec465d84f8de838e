// What an op provides to the graph, the importers and the runner. Each op of the list (op_list.h)
// is one file, tools/model/ops/<file>.cc, that defines `const Op& <file>_op()`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/op_sample.h"
#include "model/system.h"

namespace tflite {
struct Operator;
}
namespace flatbuffers {
class FlatBufferBuilder;
}

namespace qparity::model {

/// One node prepared for one arithmetic: parameters derived and weights packed once, run many
/// times on the runner's tensors.
class PreparedNode {
 public:
  virtual ~PreparedNode() = default;
  /// Reads the node's inputs from `values` (indexed by tensor) and writes its outputs, which the
  /// runner has allocated with their declared dtype and shape.
  virtual void run(std::vector<Tensor>& values) const = 0;
  /// run() with up to `threads` threads (>= 1) for nodes whose kernel has a threaded form
  /// (gemm_threaded & co., which give the one-thread bits for any split); the default runs
  /// run() on the calling thread.
  virtual void run_on_threads(std::vector<Tensor>& values, unsigned threads) const {
    (void)threads;
    run(values);
  }
  /// For `inspect`/`explain`: line 0 names the arithmetic ("arithmetic: <system>"), the other
  /// lines state exactly what is computed (formula, rounding, derived integer parameters), so that
  /// two preparations of a node compute the same bits when their lines after the first agree.
  virtual std::vector<std::string> describe() const = 0;
};

/// A node's options as a .tflite BuiltinOptions union member: its type tag and table offset
/// (type 0: none).
struct TfliteOptions {
  std::uint8_t type = 0;
  std::uint32_t offset = 0;
};

/// How the runner executes a prepared node.
enum class Engine : std::uint8_t {
  kFast,       ///< the compiled library's fast paths where the op has one
  kReference,  ///< the header-only reference definitions only
};

/// What an op does with float32 tensors under the float precisions (system.h float_precision).
enum class FloatSupport : std::uint8_t {
  kNone,          ///< no float-precision form: integer arithmetics only
  kArithmetic,    ///< computes on float32 tensors, then only under a float precision
  kDataMovement,  ///< moves elements without arithmetic: float32 tensors under any arithmetic
};

class Op {
 public:
  virtual ~Op() = default;

  /// How the op runs float32 tensors (the runner rejects a system that does not fit the node,
  /// naming what is allowed); default: not at all.
  virtual FloatSupport float_support() const { return FloatSupport::kNone; }

  /// Checks the node against the op's contract (input and output counts, dtypes, which inputs
  /// must be constant, quantization) and fills in or checks its output shapes (a declared shape
  /// that differs from the inferred one is an error). Throws cli::ToolError naming the node.
  virtual void check(Graph& graph, const Node& node) const = 0;

  /// Prepares the node for `system` (derives parameters, packs weights). Throws cli::ToolError
  /// naming the node when the system cannot represent it (a scale out of the core's range...).
  virtual std::unique_ptr<PreparedNode> prepare(const Graph& graph, const Node& node,
                                                const System& system, Engine engine) const = 0;

  /// Whether TFLite's XNNPACK delegate takes this node (the delegate's rules for this op, as
  /// tflite/delegates/xnnpack/xnnpack_delegate.cc checks them); default: no.
  virtual bool xnnpack_takes(const Graph& graph, const Node& node) const;

  /// The preset TFLite's own kernel for this op requantizes with on `target` (the convolutions'
  /// GEMM backends differ by target); default: tflite-reference (MultiplyByQuantizedMultiplier of
  /// TFLite's default double-rounding build).
  virtual Preset tflite_builtin_preset(const Graph& graph, const Node& node, Target target) const;

  /// The preset XNNPACK's kernel for this node requantizes with on `target`; default xnnpack-fp32.
  virtual Preset xnnpack_preset(const Graph& graph, const Node& node, Target target) const;

  /// The node's options from a .tflite operator (its builtin_options), checked; null for ops
  /// without options. Throws cli::ToolError naming the node and the field.
  virtual std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op,
                                                       const std::string& label) const;

  /// The node's options written into a .tflite being built (the inverse of read_tflite); none by
  /// default.
  virtual TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& builder, const Node& node) const;

  /// One small graph per configuration that changes how a runtime runs the op (op_sample.h):
  /// `qparity list --ops` shows each profile's arithmetic on them, and the unit tests prepare and
  /// run every sample under every profile. Pure: a new op must say what its configurations are.
  virtual std::vector<OpSample> samples() const = 0;
};

/// The op of a kind (op_registry.cc, from the list).
const Op& op_of(OpKind kind);

/// The kind whose TFLite builtin code is `code`; false if no op of the list has it.
bool op_from_tflite_code(int code, OpKind* out);

/// TFLite builtin code and the version qparity writes.
int tflite_code_of(OpKind kind);
int tflite_version_of(OpKind kind);

/// Parses an op name ("CONV_2D", case-insensitive); false if unknown.
bool op_from_name(const std::string& name, OpKind* out);

// ---- helpers every op uses ----------------------------------------------------------------------

/// cli::ToolError "<file>: <node label>: <problem>".
[[noreturn]] void node_error(const Graph& graph, const Node& node, const std::string& problem);

/// The node's index in graph.nodes (node_error and labels use it).
std::size_t node_index(const Graph& graph, const Node& node);

/// Checks the input count (between min and max, absent optional inputs counted) and the output
/// count.
void check_arity(const Graph& graph, const Node& node, std::size_t min_inputs,
                 std::size_t max_inputs, std::size_t outputs);

/// Input i's tensor (which must be present).
const TensorDef& input_def(const Graph& graph, const Node& node, std::size_t i);
/// Whether optional input i is present.
bool has_input(const Node& node, std::size_t i);
/// Output i's tensor.
TensorDef& output_def(Graph& graph, const Node& node, std::size_t i);

/// Sets output i's shape to `shape` if the model declared none (an empty shape on a tensor of rank
/// > 0 is how TFLite writes an unknown shape), else checks they agree.
void set_output_shape(Graph& graph, const Node& node, std::size_t i,
                      const std::vector<std::size_t>& shape);

/// Requires input i (or output i) to have one of `dtypes`.
void require_dtype(const Graph& graph, const Node& node, const TensorDef& t, const char* role,
                   std::initializer_list<DType> dtypes);

/// Checks that the system fits the node: a float precision (system.float_precision) runs only ops
/// with a float form on float32 inputs; an integer arithmetic does not run an op that computes on
/// float32 tensors. Throws cli::ToolError naming the node, the system and what is allowed.
void check_system_fits(const Graph& graph, const Node& node, const System& system);

/// Requires per-tensor quantization (one scale, one zero point within the dtype's range).
void require_per_tensor(const Graph& graph, const Node& node, const TensorDef& t, const char* role);

/// Requires per-tensor quantization or one scale per index of dimension quant.axis (zero points: one
/// shared or one per index, each within the dtype's range): ONNX's per-axis QuantizeLinear /
/// DequantizeLinear.
void require_per_tensor_or_axis(const Graph& graph, const Node& node, const TensorDef& t, const char* role);

}  // namespace qparity::model
