// A model as qparity runs it: tensors (with their quantization and constant data) and the nodes
// that compute them, independent of the file format it came from (.tflite today, .onnx next) and
// of the arithmetic it will run under (system.h). Importers build it, validate() checks it, the
// runner (runner.h) executes it, the writers write it back.
//
// Conventions, as in TFLite: activations are NHWC; a node's inputs and outputs are tensor indices
// (-1 for an omitted optional input); nodes are kept in execution order (validate() sorts a graph
// whose file order is not topological and rejects cycles).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/op_list.h"
#include "tensor.h"

namespace qparity::model {

using cli::DType;
using cli::Tensor;

/// Affine quantization of a tensor: real = scale * (q - zero_point), per tensor (one scale) or per
/// axis (one scale per index of dimension `axis`).
struct Quantization {
  std::vector<float> scales;               ///< empty: the tensor is not quantized
  std::vector<std::int64_t> zero_points;   ///< as many as scales (or one, shared)
  std::size_t axis = 0;                    ///< the quantized dimension of a per-axis tensor (a
                                           ///< one-scale tensor keeps its file's value: XNNPACK
                                           ///< declines 8-bit tensors where it is not 0)

  bool present() const { return !scales.empty(); }
  bool per_axis() const { return scales.size() > 1; }
  /// Zero point of index i of the axis (the shared one for a per-tensor zero point); 0 if none.
  std::int64_t zero_point(std::size_t i = 0) const;
};

/// Options of a node: each op defines its own (ops/<op>.h) and describes them for `inspect`.
class OpOptions {
 public:
  virtual ~OpOptions() = default;
  /// "stride 2x2, SAME, RELU6" style text.
  virtual std::string describe() const = 0;
};

struct TensorDef {
  std::string name;
  DType dtype = DType::kInt8;
  std::vector<std::size_t> shape;
  Quantization quant;
  std::optional<Tensor> data;  ///< constant tensors (weights, biases, shapes) only

  bool constant() const { return data.has_value(); }
};

struct Node {
  OpKind op = OpKind::kConv2D;
  std::string name;          ///< the format's node name, else its first output tensor's name
  std::vector<int> inputs;   ///< tensor indices; -1 for an omitted optional input
  std::vector<int> outputs;
  std::shared_ptr<const OpOptions> options;  ///< null for ops without options
  int version = 1;           ///< the op version the file declared (TFLite), for writing back
  /// Position in the file's operator list (TFLite: subgraph 0's operators[i]), kept through
  /// validate()'s reordering: Model Explorer names a .tflite node by it. kNoFileIndex for nodes an
  /// importer made up (ONNX layout transposes) and formats without one.
  std::size_t file_index = kNoFileIndex;
  static constexpr std::size_t kNoFileIndex = static_cast<std::size_t>(-1);
  /// Read from an ONNX DequantizeLinear -> operator -> QuantizeLinear group (not a QLinear
  /// operator): ONNX Runtime runs such a group in float32 where it does not fuse it (system.cc).
  bool onnx_qdq = false;
  /// An onnx_qdq Conv or MatMul group whose activations ONNX Runtime (x86, optimization level extended and
  /// above) sees as uint8 on both sides: uint8 in the file, or int8 QuantizeLinear -> DequantizeLinear
  /// pairs its QDQS8ToU8Transformer turns into uint8. Only such Conv and MatMul groups are fused there
  /// (system.cc ort_fuses_qdq; docs/semantics.md §22.5).
  bool ort_uint8_group = false;
  /// An onnx_qdq group read with a Relu / Clip that ONNX Runtime keeps (its QuantizeLinear's clamp
  /// does not make it redundant: a zero point above the type's minimum, or a Clip bound inside the
  /// quantized range): ORT's QDQ selectors then leave the group unfused at every level, and it runs
  /// in float32 with the activation (system.cc ort_fuses_qdq; docs/semantics.md §22.5).
  bool ort_keeps_activation = false;
  /// A FULLY_CONNECTED read from an ONNX Gemm with transB 0 (B stored [K, N]): for one row of A,
  /// ONNX Runtime's float Gemm then runs MLAS's non-transposed single-row kernel, with transB 1 the
  /// transposed one (ort_qdq_float.cc FcFloat; docs/semantics.md §22.5).
  bool gemm_b_not_transposed = false;

  /// The options as the op's own type (the op guarantees the type for its kind).
  template <class T>
  const T& opts() const {
    return static_cast<const T&>(*options);
  }
};

struct Graph {
  std::string source;  ///< the file it was read from, for messages
  std::vector<TensorDef> tensors;
  std::vector<Node> nodes;  ///< in execution order once validated
  std::vector<int> inputs;
  std::vector<int> outputs;

  /// "op 3 (CONV_2D 'conv1')": how messages name a node.
  std::string node_label(std::size_t index) const;
  /// "tensor 5 'conv1/weights'".
  std::string tensor_label(int index) const;
  /// The node that produces tensor `t`, or -1 (graph input or constant).
  int producer(int t) const;

  /// The file name tensor `t` is dumped as (`run --all-outputs`, device dumps read by `diff`): its
  /// name with every character outside [A-Za-z0-9_.-] replaced by '_' and ".npy" appended, or
  /// "tensor_<t>.npy" for a nameless tensor; a name that two tensors would share gets "_<t>" before
  /// the extension.
  std::string dump_file_name(int t) const;
};

/// Limits every importer enforces before allocating (model files are untrusted).
struct ModelLimits {
  std::size_t max_tensors = 1u << 20;
  std::size_t max_nodes = 1u << 20;
  std::size_t max_rank = 8;
  std::size_t max_tensor_bytes = std::size_t{1} << 33;  ///< 8 GiB per tensor
};

/// Checks the graph as a whole and puts its nodes in execution order: tensor indices in range,
/// every non-constant tensor produced by exactly one node or a graph input, no cycle, graph outputs
/// produced, each node's inputs and outputs as its op requires (counts, dtypes, shapes,
/// quantization: Op::check), declared output shapes equal to the inferred ones. Throws
/// cli::ToolError naming the file, the node or tensor and the problem.
void validate(Graph& graph);

}  // namespace qparity::model
