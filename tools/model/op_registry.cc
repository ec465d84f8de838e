// The op registry and the helpers every op uses, derived from the op list (op_list.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/op.h"
#include "qparity/float_precision.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

#define QPARITY_OP_DECLARE(Id, Name, code, version, file) const Op& file##_op();
QPARITY_OP_LIST(QPARITY_OP_DECLARE)
#undef QPARITY_OP_DECLARE

const char* to_string(OpKind op) {
  switch (op) {
#define QPARITY_OP_NAME(Id, Name, code, version, file) \
  case OpKind::k##Id: return Name;
    QPARITY_OP_LIST(QPARITY_OP_NAME)
#undef QPARITY_OP_NAME
  }
  return "?";
}

const OpKind* all_ops(std::size_t* count) {
  static constexpr OpKind kAll[] = {
#define QPARITY_OP_VALUE(Id, Name, code, version, file) OpKind::k##Id,
      QPARITY_OP_LIST(QPARITY_OP_VALUE)
#undef QPARITY_OP_VALUE
  };
  *count = sizeof kAll / sizeof kAll[0];
  return kAll;
}

const Op& op_of(OpKind kind) {
  switch (kind) {
#define QPARITY_OP_CASE(Id, Name, code, version, file) \
  case OpKind::k##Id: return file##_op();
    QPARITY_OP_LIST(QPARITY_OP_CASE)
#undef QPARITY_OP_CASE
  }
  throw ToolError(fmt::format("op kind {} is not in the op list", static_cast<int>(kind)));
}

int tflite_code_of(OpKind kind) {
  switch (kind) {
#define QPARITY_OP_CODE(Id, Name, code, version, file) \
  case OpKind::k##Id: return code;
    QPARITY_OP_LIST(QPARITY_OP_CODE)
#undef QPARITY_OP_CODE
  }
  return -1;
}

int tflite_version_of(OpKind kind) {
  switch (kind) {
#define QPARITY_OP_VERSION(Id, Name, code, version, file) \
  case OpKind::k##Id: return version;
    QPARITY_OP_LIST(QPARITY_OP_VERSION)
#undef QPARITY_OP_VERSION
  }
  return 1;
}

bool op_from_tflite_code(int code, OpKind* out) {
  std::size_t n = 0;
  const OpKind* ops = all_ops(&n);
  for (std::size_t i = 0; i < n; ++i) {
    if (code >= 0 && tflite_code_of(ops[i]) == code) {
      *out = ops[i];
      return true;
    }
  }
  return false;
}

bool op_from_name(const std::string& name, OpKind* out) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  std::size_t n = 0;
  const OpKind* ops = all_ops(&n);
  for (std::size_t i = 0; i < n; ++i) {
    if (upper == to_string(ops[i])) {
      *out = ops[i];
      return true;
    }
  }
  return false;
}

bool Op::xnnpack_takes(const Graph&, const Node&) const { return false; }

Preset Op::tflite_builtin_preset(const Graph&, const Node&, Target) const {
  return find_preset("tflite-reference");
}

Preset Op::xnnpack_preset(const Graph&, const Node&, Target) const { return find_preset("xnnpack-fp32"); }

std::shared_ptr<const OpOptions> Op::read_tflite(const tflite::Operator&, const std::string&) const {
  return nullptr;
}

TfliteOptions Op::write_tflite(flatbuffers::FlatBufferBuilder&, const Node&) const { return {}; }

// ---- helpers ----------------------------------------------------------------------------------

std::size_t node_index(const Graph& graph, const Node& node) {
  return static_cast<std::size_t>(&node - graph.nodes.data());
}

void node_error(const Graph& graph, const Node& node, const std::string& problem) {
  throw ToolError(fmt::format("{}: {}: {}", graph.source, graph.node_label(node_index(graph, node)),
                              problem));
}

void check_arity(const Graph& graph, const Node& node, std::size_t min_inputs, std::size_t max_inputs,
                 std::size_t outputs) {
  if (node.inputs.size() < min_inputs || node.inputs.size() > max_inputs) {
    node_error(graph, node,
               min_inputs == max_inputs
                   ? fmt::format("has {} inputs; allowed: {}", node.inputs.size(), min_inputs)
                   : fmt::format("has {} inputs; allowed: {} to {}", node.inputs.size(), min_inputs,
                                 max_inputs));
  }
  for (std::size_t i = 0; i < min_inputs; ++i) {
    if (node.inputs[i] < 0) node_error(graph, node, fmt::format("input {} is required but omitted", i));
  }
  if (node.outputs.size() != outputs) {
    node_error(graph, node, fmt::format("has {} outputs; allowed: {}", node.outputs.size(), outputs));
  }
}

const TensorDef& input_def(const Graph& graph, const Node& node, std::size_t i) {
  return graph.tensors[static_cast<std::size_t>(node.inputs[i])];
}

bool has_input(const Node& node, std::size_t i) { return i < node.inputs.size() && node.inputs[i] >= 0; }

TensorDef& output_def(Graph& graph, const Node& node, std::size_t i) {
  return graph.tensors[static_cast<std::size_t>(node.outputs[i])];
}

void set_output_shape(Graph& graph, const Node& node, std::size_t i,
                      const std::vector<std::size_t>& shape) {
  TensorDef& t = output_def(graph, node, i);
  if (t.shape.empty() && !shape.empty()) {
    t.shape = shape;
    return;
  }
  if (t.shape != shape) {
    node_error(graph, node, fmt::format("output {} ({}) is declared with shape {}, but the op computes {}", i,
                                        graph.tensor_label(node.outputs[i]), cli::shape_text(t.shape),
                                        cli::shape_text(shape)));
  }
}

void require_dtype(const Graph& graph, const Node& node, const TensorDef& t, const char* role,
                   std::initializer_list<DType> dtypes) {
  for (DType d : dtypes) {
    if (t.dtype == d) return;
  }
  std::vector<std::string> names;
  for (DType d : dtypes) names.emplace_back(cli::to_string(d));
  node_error(graph, node, fmt::format("{} '{}' is {}; allowed: {}", role, t.name, cli::to_string(t.dtype),
                                      fmt::join(names, ", ")));
}

void require_per_tensor(const Graph& graph, const Node& node, const TensorDef& t, const char* role) {
  if (t.quant.scales.size() != 1 || t.quant.zero_points.size() > 1) {
    node_error(graph, node, fmt::format("{} '{}' has {} scales and {} zero points; allowed: per-tensor "
                                        "quantization (one scale, one zero point)",
                                        role, t.name, t.quant.scales.size(), t.quant.zero_points.size()));
  }
  const std::int64_t zp = t.quant.zero_point();
  if (zp < cli::dtype_min(t.dtype) || zp > cli::dtype_max(t.dtype)) {
    node_error(graph, node, fmt::format("{} '{}' has zero point {}; allowed: {} to {} ({})", role, t.name, zp,
                                        cli::dtype_min(t.dtype), cli::dtype_max(t.dtype), cli::to_string(t.dtype)));
  }
}

void require_per_tensor_or_axis(const Graph& graph, const Node& node, const TensorDef& t, const char* role) {
  if (!t.quant.per_axis()) return require_per_tensor(graph, node, t, role);
  const std::size_t axis = t.quant.axis;
  if (axis >= t.shape.size() || t.quant.scales.size() != t.shape[axis] ||
      (t.quant.zero_points.size() > 1 && t.quant.zero_points.size() != t.quant.scales.size())) {
    node_error(graph, node, fmt::format("{} '{}' of shape {} has {} scales and {} zero points along axis {}; allowed: "
                                        "one per index of that axis (zero points: one shared, or one per index)",
                                        role, t.name, cli::shape_text(t.shape), t.quant.scales.size(),
                                        t.quant.zero_points.size(), axis));
  }
  for (std::size_t c = 0; c < t.quant.scales.size(); ++c) {
    const std::int64_t zp = t.quant.zero_point(c);
    if (zp < cli::dtype_min(t.dtype) || zp > cli::dtype_max(t.dtype)) {
      node_error(graph, node, fmt::format("{} '{}' has zero point {} at index {}; allowed: {} to {} ({})", role, t.name,
                                          zp, c, cli::dtype_min(t.dtype), cli::dtype_max(t.dtype),
                                          cli::to_string(t.dtype)));
    }
  }
}

namespace {

// The ops a float precision runs, for messages: "CONV_2D, DEPTHWISE_CONV_2D, ...".
std::string float_op_names() {
  std::size_t count = 0;
  const OpKind* ops = all_ops(&count);
  std::string names;
  for (std::size_t i = 0; i < count; ++i) {
    if (op_of(ops[i]).float_support() == FloatSupport::kNone) continue;
    names += (names.empty() ? "" : ", ") + std::string(to_string(ops[i]));
  }
  return names;
}

}  // namespace

// Integer arithmetics run quantized ops, float precisions float32 ops: a node under the other kind
// is an error naming what it allows (rather than an integer preset's parameters derived from
// float tensors, or a float precision's system carrying no rounding core).
void check_system_fits(const Graph& graph, const Node& node, const System& system) {
  // float16 input: DEQUANTIZE of fp16-quantized weights (exact data movement, dequantize.cc).
  const DType in_type = !node.inputs.empty() && node.inputs[0] >= 0
                            ? graph.tensors[static_cast<std::size_t>(node.inputs[0])].dtype
                            : DType::kInt8;
  const bool float_input = !node.inputs.empty() && node.inputs[0] >= 0 &&
                           (in_type == DType::kFloat32 || in_type == DType::kFloat16);
  const FloatSupport support = op_of(node.op).float_support();
  const std::string where = fmt::format("{}: {}", graph.source, graph.node_label(node_index(graph, node)));
  if (system.float_precision) {
    if (support == FloatSupport::kNone) {
      throw ToolError(fmt::format("{}: '{}' is a float precision and {} has no float-precision form; ops a float "
                                  "precision runs: {}", where, system.name, to_string(node.op), float_op_names()));
    }
    if (!float_input) {
      throw ToolError(fmt::format("{}: '{}' is a float precision, for float32 tensors; this op's input is {}: allowed "
                                  "for it: an integer preset or runtime profile (qparity list)",
                                  where, system.name, node.inputs.empty() || node.inputs[0] < 0 ? "absent"
                                  : cli::to_string(graph.tensors[static_cast<std::size_t>(node.inputs[0])].dtype)));
    }
  } else if (support == FloatSupport::kArithmetic && float_input) {
    throw ToolError(fmt::format("{} computes on float32 tensors; '{}' is an integer arithmetic: allowed: a float "
                                "precision, {}", where, system.name, float_precision_names()));
  }
}


}  // namespace qparity::model
