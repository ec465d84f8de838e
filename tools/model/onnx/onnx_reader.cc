#include "model/onnx/onnx_reader.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "model/op.h"
#include "model/ops/batch_matmul.h"
#include "model/ops/conv_common.h"
#include "model/ops/data_ops.h"
#include "model/ops/elementwise.h"
#include "model/ops/lookup_activation.h"
#include "model/ops/mean.h"
#include "model/ops/pool2d.h"
#include "model/ops/reshape.h"
#include "model/ops/resize.h"
#include "input_files.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

namespace {

// The lowest default-domain opset this reader accepts: opset 13 is where QuantizeLinear /
// DequantizeLinear gained per-axis quantization, and what ONNX Runtime's quantization tools write.
constexpr std::int64_t kMinOpset = 13;

// The largest file the reader parses (protobuf's own limit for one message is 2 GiB).
constexpr std::size_t kMaxModelBytes = static_cast<std::size_t>(INT_MAX);

[[noreturn]] void model_error(const std::string& name, const std::string& problem) {
  throw ToolError(fmt::format("{}: {}", name, problem));
}

const char* onnx_type_name(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT:
      return "FLOAT";
    case onnx::TensorProto_DataType_UINT8:
      return "UINT8";
    case onnx::TensorProto_DataType_INT8:
      return "INT8";
    case onnx::TensorProto_DataType_UINT16:
      return "UINT16";
    case onnx::TensorProto_DataType_INT16:
      return "INT16";
    case onnx::TensorProto_DataType_INT32:
      return "INT32";
    case onnx::TensorProto_DataType_INT64:
      return "INT64";
    case onnx::TensorProto_DataType_STRING:
      return "STRING";
    case onnx::TensorProto_DataType_BOOL:
      return "BOOL";
    case onnx::TensorProto_DataType_FLOAT16:
      return "FLOAT16";
    case onnx::TensorProto_DataType_DOUBLE:
      return "DOUBLE";
    default:
      return "an unsupported type";
  }
}

bool dtype_of(int t, DType* out) {
  switch (t) {
    case onnx::TensorProto_DataType_INT8:
      *out = DType::kInt8;
      return true;
    case onnx::TensorProto_DataType_UINT8:
      *out = DType::kUint8;
      return true;
    case onnx::TensorProto_DataType_INT16:
      *out = DType::kInt16;
      return true;
    case onnx::TensorProto_DataType_INT32:
      *out = DType::kInt32;
      return true;
    case onnx::TensorProto_DataType_INT64:
      *out = DType::kInt64;
      return true;
    case onnx::TensorProto_DataType_FLOAT:
      *out = DType::kFloat32;
      return true;
    default:
      return false;
  }
}

// The reader's state: the graph being built and, per ONNX value, its qparity tensors.
class Importer {
 public:
  Importer(const std::string& name, const ModelLimits& limits) : name_(name), limits_(limits) { g_.source = name; }

  Graph read(const onnx::ModelProto& model);

 private:
  // An ONNX value: the qparity tensor holding it in ONNX's layout and/or the one holding its NHWC
  // transposition (4-D values a convolution reads or writes); -1 where none exists yet.
  struct Value {
    int onnx = -1;
    int nhwc = -1;
  };

  [[noreturn]] void fail(const std::string& problem) const { model_error(name_, problem); }

  void check_opsets(const onnx::ModelProto& model);
  Tensor read_tensor_proto(const onnx::TensorProto& t, const std::string& label) const;
  void read_inputs(const onnx::GraphProto& graph);
  void read_node(const onnx::NodeProto& node, std::size_t index);
  // int32_output: the raw accumulators (ConvInteger), the y scale and zero point unused.
  void read_qlinear_conv(const onnx::NodeProto& node, const std::string& label, bool int32_output = false);
  void read_qlinear_matmul(const onnx::NodeProto& node, const std::string& label);
  void read_matmul_integer(const onnx::NodeProto& node, const std::string& label);
  void read_qlinear_batch_matmul(const onnx::NodeProto& node, const std::string& label);
  void read_matmul_integer_batched(const onnx::NodeProto& node, const std::string& label);
  void add_matmul_node(const onnx::NodeProto& node, int a, const Tensor& b, Quantization bq, std::size_t k,
                       std::size_t nn, const std::string& filter_name, DType y_type, const Quantization& yq,
                       const char* a_role, const char* b_role, const std::string& label);
  void read_conv_integer(const onnx::NodeProto& node, const std::string& label);
  void read_qlinear_binary(const onnx::NodeProto& node, const std::string& label, OpKind op);
  void read_qlinear_global_average_pool(const onnx::NodeProto& node, const std::string& label);
  void read_reshape(const onnx::NodeProto& node, const std::string& label, bool flatten);
  void read_transpose(const onnx::NodeProto& node, const std::string& label);
  // A 1-D int32 constant tensor `name` holding `values` (a shape, a perm); returns its index.
  int int32_constant(const std::string& name, const std::vector<std::int64_t>& values);
  void read_qlinear_concat(const onnx::NodeProto& node, const std::string& label);
  void read_qlinear_average_pool(const onnx::NodeProto& node, const std::string& label,
                                 OpKind op = OpKind::kAveragePool2D);
  // com.microsoft QLinearSigmoid (LOGISTIC) / QLinearLeakyRelu (LEAKY_RELU).
  void read_qlinear_lookup(const onnx::NodeProto& node, const std::string& label, OpKind op);
  // com.microsoft QLinearSoftmax (opset: its `opset` attribute) or a QDQ Softmax (opset 13 rules).
  void read_qlinear_softmax(const onnx::NodeProto& node, const std::string& label, std::int64_t opset);
  // Resize (mode linear or nearest) of a 4-D NCHW 8-bit value in H and W, as RESIZE_BILINEAR or
  // RESIZE_NEAREST_NEIGHBOR in NHWC; `qdq`: the
  // quantization of a QDQ group's input and output (null: a plain Resize on 8-bit tensors).
  void read_resize(const onnx::NodeProto& node, const std::string& label, const Quantization* qdq);

  // QDQ form: a DequantizeLinear's output (an activation or a constant, its scale and zero point
  // inputs), and the groups DequantizeLinear -> operator [-> Relu / Clip] -> QuantizeLinear read as
  // the QLinear operator ONNX Runtime fuses them into (read_qdq_group).
  struct Dequantized {
    std::string value;       // the quantized value (graph input, node output or constant)
    std::string scale;       // the scale initializer's name
    std::string zero_point;  // the zero point's name (a constant made up when the node omits it)
    std::int64_t axis = 1;   // DequantizeLinear's axis attribute (per-axis scales)
  };
  void read_dequantize_linear(const onnx::NodeProto& node, const std::string& label);
  // A QuantizeLinear of a float32 graph input (the entry of a QDQ model) as a QUANTIZE node.
  void read_input_quantize_linear(const onnx::NodeProto& node, const std::string& label);
  // A DequantizeLinear whose float32 result is a graph output (the exit of a QDQ model) as a
  // DEQUANTIZE node.
  void add_output_dequantize(const onnx::NodeProto& node, const Dequantized& d, DType dtype, const std::string& label);
  // The quantization of a QuantizeLinear's y (node input 1, 2) or a DequantizeLinear's x: per tensor,
  // or per axis (the axis attribute, default 1) of a tensor of `shape`; *dtype becomes the zero
  // point's type, and stays as passed when the zero point is omitted.
  Quantization linear_quantization(const onnx::NodeProto& node, const std::vector<std::size_t>& shape,
                                   const char* prefix, const std::string& label, DType* dtype) const;
  void read_qdq_group(const onnx::NodeProto& node, const std::string& label);
  // Whether ONNX Runtime's QDQS8ToU8Transformer (x86, graph optimization level extended and
  // above) makes the QuantizeLinear producing `value` and the DequantizeLinear reading it a uint8
  // pair: the QuantizeLinear has an explicit one-element int8 zero point, `value` is no graph output
  // and feeds exactly one node, a DequantizeLinear whose zero point (0 when omitted) is the same
  // one-element int8 constant (docs/semantics.md §22.5).
  bool ort_converts_to_uint8(const std::string& value) const;
  // Whether ONNX Runtime sees graph tensor `tensor` (ONNX value `value`) as uint8: it is uint8, or an
  // int8 value between a pair ort_converts_to_uint8 makes uint8. Its Conv and MatMul selectors on x86
  // fuse a group only when both activations are uint8 this way.
  bool ort_sees_uint8(int tensor, const std::string& value) const;
  // Whether ONNX Runtime (level basic and above) removes a QDQ group's Relu / Clip `act` before its
  // QuantizeLinear `q` of type `y_type` as redundant (docs/semantics.md §22.5): Relu when q's zero
  // point is the type's minimum (ReluQuantFusion, and the QDQ selectors' IsClipMadeRedundantByQ);
  // Clip when q's range lies inside the Clip's up to FLT_EPSILON (ClipQuantFusion) or the Clip's
  // bounds quantized reach both ends of the type (the selectors). A kept one leaves the group unfused.
  bool ort_drops_activation(const onnx::NodeProto& act, const onnx::NodeProto& q, DType y_type) const;
  // A zero point's name: input i of a Q/DQ node, or a made-up constant 0 of `dtype`.
  std::string zero_point_name(const onnx::NodeProto& node, int i, DType dtype, const std::string& for_value);
  const Dequantized& dequantized(const onnx::NodeProto& node, int i, const std::string& label) const;

  // The constant named by input i of a node (an initializer or a Constant node's value).
  const Tensor& constant_input(const onnx::NodeProto& node, int i, const std::string& label, const char* role) const;
  // A scale input: float32, one element, or `per_axis` elements when per_axis > 0.
  std::vector<float> scales(const onnx::NodeProto& node, int i, const std::string& label, const char* role,
                            std::size_t per_axis) const;
  // A zero point input: int8 or uint8 (its type is the quantized tensor's), count as for scales.
  std::vector<std::int64_t> zero_points(const onnx::NodeProto& node, int i, const std::string& label, const char* role,
                                        std::size_t per_axis, DType* dtype) const;
  // A one-input com.microsoft QLinear operator's per-tensor quantizations: X's from inputs 1 and 2,
  // Y's from inputs 3 and 4; `x` and `y` are the operator's names for them ("x" or "X").
  struct InOutQuantization {
    DType x_type{}, y_type{};
    Quantization x, y;
  };
  // A per-tensor or per-axis quantization from node inputs i (`<name>_scale`) and i + 1
  // (`<name>_zero_point`), both constants; *dtype becomes the zero point's type.
  Quantization quantization(const onnx::NodeProto& node, int i, const std::string& label, const std::string& name,
                            std::size_t per_axis, DType* dtype) const;
  InOutQuantization in_out_quantization(const onnx::NodeProto& node, const std::string& label, const char* x,
                                        const char* y) const;
  // A BATCH_MATMUL operand in ONNX's layout: a constant `value` as a constant tensor of `type` and
  // quantization `q` (its data as stored), else the activation.
  int matmul_operand(const std::string& value, DType type, const Quantization& q, const std::string& label);
  // in_out_quantization of inputs "X" and "Y" that must have one type (QLinearSigmoid, QLinearLeakyRelu,
  // QLinearSoftmax): another pair is refused naming both types.
  InOutQuantization one_type_in_out_quantization(const onnx::NodeProto& node, const std::string& label) const;
  // The activation `value` as a qparity tensor in NHWC (nhwc) or ONNX layout, with its
  // quantization set (or checked against the one an earlier node gave it).
  int activation(const std::string& value, DType dtype, const Quantization& q, bool nhwc, const std::string& label);
  // A new tensor for a node output (NHWC when nhwc); returns its index.
  int output_tensor(const std::string& value, DType dtype, const Quantization& q, bool nhwc, const std::string& label);
  int add_transpose(int from, const std::string& to_name, const std::vector<std::int64_t>& perm);
  void add_node(Node node);

  std::string name_;
  ModelLimits limits_;
  Graph g_;
  std::map<std::string, const onnx::TensorProto*> initializer_protos_;
  std::map<std::string, Tensor> constants_;  // initializers and Constant node values, read
  std::map<std::string, Value> values_;
  std::set<std::string> graph_outputs_;
  std::map<std::string, Dequantized> dequantized_;     // DequantizeLinear outputs
  std::map<std::string, std::vector<int>> consumers_;  // value -> the nodes that read it
  std::map<std::string, int> producers_;               // value -> the node that writes it
  std::set<int> absorbed_;                             // Relu / Clip / QuantizeLinear read with a group
  const onnx::GraphProto* graph_ = nullptr;
};

void Importer::check_opsets(const onnx::ModelProto& model) {
  bool have_default = false;
  for (const onnx::OperatorSetIdProto& op : model.opset_import()) {
    const std::string& d = op.domain();
    if (d.empty() || d == "ai.onnx") {
      have_default = true;
      if (op.version() < kMinOpset) {
        fail(
            fmt::format("imports opset {} of the default domain; allowed: {} or later (re-export the model "
                        "with a newer opset)",
                        op.version(), kMinOpset));
      }
    }
  }
  if (!have_default) fail("imports no opset of the default ONNX domain (opset_import is empty or lacks it)");
}

Tensor Importer::read_tensor_proto(const onnx::TensorProto& t, const std::string& label) const {
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL || t.external_data_size() != 0) {
    fail(fmt::format("{} keeps its data in an external file; allowed: data inside the model", label));
  }
  if (t.has_segment()) fail(fmt::format("{} is a segment of a tensor; allowed: whole tensors", label));
  DType dtype{};
  if (!dtype_of(t.data_type(), &dtype)) {
    fail(fmt::format("{} has element type {} ({}); allowed: INT8, UINT8, INT16, INT32, INT64, FLOAT", label,
                     onnx_type_name(t.data_type()), t.data_type()));
  }
  if (static_cast<std::size_t>(t.dims_size()) > limits_.max_rank) {
    fail(fmt::format("{} has rank {}; allowed: at most {}", label, t.dims_size(), limits_.max_rank));
  }
  std::vector<std::size_t> shape;
  for (int i = 0; i < t.dims_size(); ++i) {
    if (t.dims(i) < 0) fail(fmt::format("{} has dimension {} = {}; allowed: >= 0", label, i, t.dims(i)));
    shape.push_back(static_cast<std::size_t>(t.dims(i)));
  }
  std::size_t elements = 0;
  const std::size_t esize = cli::size_of(dtype);
  if (!cli::checked_elements(shape, esize, &elements) || elements * esize > limits_.max_tensor_bytes) {
    fail(fmt::format("{} of shape {} is larger than the {} bytes a tensor may have", label, cli::shape_text(shape),
                     limits_.max_tensor_bytes));
  }
  // The data's size is checked against the shape before anything is allocated (a hostile shape
  // must not allocate more than the file holds).
  if (t.has_raw_data()) {
    // raw_data is little-endian, as are the hosts qparity builds for.
    if (t.raw_data().size() != elements * esize) {
      fail(fmt::format("{} has {} bytes of raw_data; its shape {} and type {} need {}", label, t.raw_data().size(),
                       cli::shape_text(shape), onnx_type_name(t.data_type()), elements * esize));
    }
    Tensor out = cli::make_tensor(dtype, shape);
    if (elements != 0) std::memcpy(out.bytes.data(), t.raw_data().data(), elements * esize);
    return out;
  }
  // Typed fields: 8/16/32-bit integers in int32_data, int64 in int64_data, float in float_data.
  std::size_t have = 0;
  if (dtype == DType::kFloat32) {
    have = static_cast<std::size_t>(t.float_data_size());
  } else if (dtype == DType::kInt64) {
    have = static_cast<std::size_t>(t.int64_data_size());
  } else {
    have = static_cast<std::size_t>(t.int32_data_size());
  }
  if (have != elements) {
    fail(fmt::format("{} has {} values; its shape {} needs {}", label, have, cli::shape_text(shape), elements));
  }
  Tensor out = cli::make_tensor(dtype, shape);
  for (std::size_t i = 0; i < elements; ++i) {
    const int k = static_cast<int>(i);
    if (dtype == DType::kFloat32) {
      const float f = t.float_data(k);
      std::memcpy(out.bytes.data() + 4 * i, &f, 4);
    } else if (dtype == DType::kInt64) {
      out.set_integer(i, t.int64_data(k));
    } else {
      const std::int64_t v = t.int32_data(k);
      if (v < cli::dtype_min(dtype) || v > cli::dtype_max(dtype)) {
        fail(fmt::format("{} value {} = {} is outside {}'s range", label, i, v, cli::to_string(dtype)));
      }
      out.set_integer(i, v);
    }
  }
  return out;
}

void Importer::read_inputs(const onnx::GraphProto& graph) {
  for (int i = 0; i < graph.input_size(); ++i) {
    const onnx::ValueInfoProto& in = graph.input(i);
    if (constants_.count(in.name()) != 0) continue;  // an initializer listed as an input (IR < 4)
    const std::string label = fmt::format("graph input {} '{}'", i, in.name());
    if (values_.count(in.name()) != 0) fail(fmt::format("{} is listed twice", label));
    if (!in.type().has_tensor_type()) fail(fmt::format("{} is not a tensor", label));
    const onnx::TypeProto_Tensor& tt = in.type().tensor_type();
    TensorDef d;
    d.name = in.name();
    if (!dtype_of(tt.elem_type(), &d.dtype)) {
      fail(fmt::format("{} has element type {}; allowed: INT8, UINT8, INT16, INT32, INT64, FLOAT", label,
                       onnx_type_name(tt.elem_type())));
    }
    if (!tt.has_shape()) fail(fmt::format("{} has no shape; allowed: static shapes", label));
    if (static_cast<std::size_t>(tt.shape().dim_size()) > limits_.max_rank) {
      fail(fmt::format("{} has rank {}; allowed: at most {}", label, tt.shape().dim_size(), limits_.max_rank));
    }
    for (int k = 0; k < tt.shape().dim_size(); ++k) {
      const onnx::TensorShapeProto_Dimension& dim = tt.shape().dim(k);
      if (!dim.has_dim_value() || dim.dim_value() < 0) {
        fail(
            fmt::format("{} has a dynamic dimension {} ('{}'); allowed: static shapes (fix the dimension when "
                        "exporting)",
                        label, k, dim.has_dim_param() ? dim.dim_param() : std::string("?")));
      }
      d.shape.push_back(static_cast<std::size_t>(dim.dim_value()));
    }
    std::size_t elements = 0;
    if (!cli::checked_elements(d.shape, cli::size_of(d.dtype), &elements) ||
        elements * cli::size_of(d.dtype) > limits_.max_tensor_bytes) {
      fail(fmt::format("{} of shape {} is larger than the {} bytes a tensor may have", label, cli::shape_text(d.shape),
                       limits_.max_tensor_bytes));
    }
    g_.tensors.push_back(std::move(d));
    const int t = static_cast<int>(g_.tensors.size()) - 1;
    g_.inputs.push_back(t);
    values_[in.name()].onnx = t;
  }
}

const Tensor& Importer::constant_input(const onnx::NodeProto& node, int i, const std::string& label,
                                       const char* role) const {
  if (i >= node.input_size() || node.input(i).empty()) {
    fail(fmt::format("{}: input {} ({}) is missing", label, i, role));
  }
  const auto it = constants_.find(node.input(i));
  if (it == constants_.end()) {
    fail(fmt::format("{}: input {} ({}) '{}' is not an initializer; allowed: a constant", label, i, role,
                     node.input(i)));
  }
  return it->second;
}

std::vector<float> Importer::scales(const onnx::NodeProto& node, int i, const std::string& label, const char* role,
                                    std::size_t per_axis) const {
  const Tensor& t = constant_input(node, i, label, role);
  if (t.dtype != DType::kFloat32) {
    fail(fmt::format("{}: {} '{}' is {}; allowed: float32", label, role, node.input(i), cli::to_string(t.dtype)));
  }
  const std::size_t n = t.elements();
  const bool ok_shape = (n == 1 && t.shape.size() <= 1) || (per_axis > 0 && n == per_axis && t.shape.size() == 1);
  if (!ok_shape) {
    fail(fmt::format("{}: {} '{}' has shape {}; allowed: a scalar{}", label, role, node.input(i),
                     cli::shape_text(t.shape), per_axis > 0 ? fmt::format(" or {} values (per axis)", per_axis) : ""));
  }
  std::vector<float> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(&out[k], t.bytes.data() + 4 * k, 4);
    if (!std::isfinite(out[k]) || !(out[k] > 0.0f)) {
      fail(fmt::format("{}: {} '{}' [{}] = {}; allowed: finite and > 0", label, role, node.input(i), k, out[k]));
    }
  }
  return out;
}

std::vector<std::int64_t> Importer::zero_points(const onnx::NodeProto& node, int i, const std::string& label,
                                                const char* role, std::size_t per_axis, DType* dtype) const {
  const Tensor& t = constant_input(node, i, label, role);
  if (t.dtype != DType::kInt8 && t.dtype != DType::kUint8) {
    fail(fmt::format("{}: {} '{}' is {}; allowed: int8, uint8", label, role, node.input(i), cli::to_string(t.dtype)));
  }
  const std::size_t n = t.elements();
  const bool ok_shape = (n == 1 && t.shape.size() <= 1) || (per_axis > 0 && n == per_axis && t.shape.size() == 1);
  if (!ok_shape) {
    fail(fmt::format("{}: {} '{}' has shape {}; allowed: a scalar{}", label, role, node.input(i),
                     cli::shape_text(t.shape), per_axis > 0 ? fmt::format(" or {} values (per axis)", per_axis) : ""));
  }
  *dtype = t.dtype;
  std::vector<std::int64_t> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = t.integer_at(k);
  return out;
}

int Importer::matmul_operand(const std::string& value, DType type, const Quantization& q, const std::string& label) {
  const auto c = constants_.find(value);
  if (c == constants_.end()) return activation(value, type, q, /*nhwc=*/false, label);
  TensorDef d;
  d.name = value;
  d.dtype = type;
  d.shape = c->second.shape;
  d.quant = q;
  d.data = c->second;
  g_.tensors.push_back(std::move(d));
  return static_cast<int>(g_.tensors.size()) - 1;
}

Importer::InOutQuantization Importer::one_type_in_out_quantization(const onnx::NodeProto& node,
                                                                   const std::string& label) const {
  const InOutQuantization q = in_out_quantization(node, label, "X", "Y");
  if (q.x_type != q.y_type) {
    fail(fmt::format("{}: X is {}, Y {}; allowed: one type", label, cli::to_string(q.x_type), cli::to_string(q.y_type)));
  }
  return q;
}

Quantization Importer::quantization(const onnx::NodeProto& node, int i, const std::string& label,
                                  const std::string& name, std::size_t per_axis, DType* dtype) const {
  Quantization q;
  q.scales = scales(node, i, label, (name + "_scale").c_str(), per_axis);
  q.zero_points = zero_points(node, i + 1, label, (name + "_zero_point").c_str(), per_axis, dtype);
  return q;
}

Importer::InOutQuantization Importer::in_out_quantization(const onnx::NodeProto& node, const std::string& label,
                                                          const char* x, const char* y) const {
  InOutQuantization q;
  q.x = quantization(node, 1, label, x, 0, &q.x_type);
  q.y = quantization(node, 3, label, y, 0, &q.y_type);
  return q;
}

int Importer::add_transpose(int from, const std::string& to_name, const std::vector<std::int64_t>& perm) {
  TensorDef p;
  p.name = to_name + ":perm";
  p.dtype = DType::kInt32;
  p.shape = {perm.size()};
  Tensor data = cli::make_tensor(DType::kInt32, p.shape);
  for (std::size_t i = 0; i < perm.size(); ++i) data.set_integer(i, perm[i]);
  p.data = std::move(data);
  g_.tensors.push_back(std::move(p));
  const int perm_t = static_cast<int>(g_.tensors.size()) - 1;
  TensorDef out;
  out.name = to_name;
  out.dtype = g_.tensors[static_cast<std::size_t>(from)].dtype;
  out.quant = g_.tensors[static_cast<std::size_t>(from)].quant;
  g_.tensors.push_back(std::move(out));
  const int to = static_cast<int>(g_.tensors.size()) - 1;
  Node n;
  n.op = OpKind::kTranspose;
  n.name = to_name;
  n.inputs = {from, perm_t};
  n.outputs = {to};
  add_node(std::move(n));
  return to;
}

void Importer::add_node(Node node) {
  if (g_.nodes.size() >= limits_.max_nodes) fail(fmt::format("more than {} nodes", limits_.max_nodes));
  if (g_.tensors.size() > limits_.max_tensors) fail(fmt::format("more than {} tensors", limits_.max_tensors));
  g_.nodes.push_back(std::move(node));
  // Checking each node as it is added infers its output shapes, which the next nodes' layout
  // conversions need; validate() checks the whole graph again at the end.
  op_of(g_.nodes.back().op).check(g_, g_.nodes.back());
}

int Importer::activation(const std::string& value, DType dtype, const Quantization& q, bool nhwc,
                         const std::string& label) {
  const auto it = values_.find(value);
  if (it == values_.end()) {
    fail(
        fmt::format("{}: input '{}' is neither a graph input nor the output of an earlier node (ONNX nodes are in "
                    "topological order)",
                    label, value));
  }
  Value& v = it->second;
  const int primary = v.onnx >= 0 ? v.onnx : v.nhwc;
  TensorDef& t = g_.tensors[static_cast<std::size_t>(primary)];
  if (t.dtype != dtype) {
    fail(fmt::format("{}: input '{}' is {}, its zero point {}; allowed: the same type", label, value,
                     cli::to_string(t.dtype), cli::to_string(dtype)));
  }
  if (!t.quant.present()) {
    t.quant = q;
    if (v.onnx >= 0 && v.nhwc >= 0) g_.tensors[static_cast<std::size_t>(v.onnx == primary ? v.nhwc : v.onnx)].quant = q;
  } else if (t.quant.scales != q.scales || t.quant.zero_point() != q.zero_point() ||
             (q.per_axis() && (t.quant.axis != q.axis || t.quant.zero_points != q.zero_points))) {
    fail(
        fmt::format("{}: input '{}' has scale {} and zero point {} here, but scale {} and zero point {} where "
                    "another node uses or produces it; allowed: one quantization per tensor",
                    label, value, q.scales[0], q.zero_point(), t.quant.scales[0], t.quant.zero_point()));
  }
  if (nhwc) {
    if (v.nhwc < 0) {
      if (g_.tensors[static_cast<std::size_t>(v.onnx)].shape.size() != 4) {
        fail(fmt::format("{}: input '{}' has shape {}; allowed: 4-D (N, C, H, W)", label, value,
                         cli::shape_text(g_.tensors[static_cast<std::size_t>(v.onnx)].shape)));
      }
      v.nhwc = add_transpose(v.onnx, value + ":nhwc", {0, 2, 3, 1});
    }
    return v.nhwc;
  }
  if (v.onnx < 0) {
    v.onnx = add_transpose(v.nhwc, graph_outputs_.count(value) ? value : value + ":nchw", {0, 3, 1, 2});
  }
  return v.onnx;
}

int Importer::output_tensor(const std::string& value, DType dtype, const Quantization& q, bool nhwc,
                            const std::string& label) {
  if (value.empty()) fail(fmt::format("{}: output 0 has no name", label));
  if (values_.count(value) != 0 || constants_.count(value) != 0) {
    fail(fmt::format("{}: output '{}' is already produced by another node, a graph input or an initializer", label,
                     value));
  }
  TensorDef d;
  // A graph output computed in NHWC gets its ONNX name on the transposed (NCHW) tensor.
  d.name = nhwc && graph_outputs_.count(value) ? value + ":nhwc" : value;
  d.dtype = dtype;
  d.quant = q;
  g_.tensors.push_back(std::move(d));
  const int t = static_cast<int>(g_.tensors.size()) - 1;
  (nhwc ? values_[value].nhwc : values_[value].onnx) = t;
  return t;
}

// The attributes of a node by name (each checked for its type where it is read).
const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const char* name) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const char* name, std::size_t count,
                                         std::vector<std::int64_t> fallback, const std::string& label,
                                         const std::string& file) {
  const onnx::AttributeProto* a = attribute(node, name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_INTS || static_cast<std::size_t>(a->ints_size()) != count) {
    model_error(file, fmt::format("{}: attribute {} must be {} integers", label, name, count));
  }
  return {a->ints().begin(), a->ints().end()};
}

void Importer::read_qlinear_conv(const onnx::NodeProto& node, const std::string& label, bool int32_output) {
  if (node.input_size() < 8 || node.input_size() > 9) {
    fail(
        fmt::format("{}: {} inputs; allowed: 8 or 9 (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, "
                    "y_zero_point, optional B)",
                    label, node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  const Tensor& w = constant_input(node, 3, label, "w");
  if (w.shape.size() != 4) {
    fail(fmt::format("{}: w '{}' has shape {}; allowed: 4-D (M, C/group, kH, kW): 2-D convolutions only", label,
                     node.input(3), cli::shape_text(w.shape)));
  }
  const std::size_t m = w.shape[0], cpg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  if (m == 0 || cpg == 0 || kh == 0 || kw == 0)
    fail(fmt::format("{}: w '{}' has an empty dimension", label, node.input(3)));
  DType x_type{}, w_type{}, y_type{};
  Quantization xq, yq, wq;
  xq = quantization(node, 1, label, "x", 0, &x_type);
  wq = quantization(node, 4, label, "w", m, &w_type);
  yq = quantization(node, 6, label, "y", 0, &y_type);
  if (w.dtype != w_type) {
    fail(fmt::format("{}: w '{}' is {}, w_zero_point {}; allowed: the same type", label, node.input(3),
                     cli::to_string(w.dtype), cli::to_string(w_type)));
  }
  const int x = activation(node.input(0), x_type, xq, /*nhwc=*/true, label);
  const std::vector<std::size_t> xs = g_.tensors[static_cast<std::size_t>(x)].shape;  // N, H, W, C
  const std::size_t c = xs[3];
  std::int64_t group = 1;
  if (const onnx::AttributeProto* a = attribute(node, "group")) {
    if (a->type() != onnx::AttributeProto_AttributeType_INT)
      fail(fmt::format("{}: attribute group must be an integer", label));
    group = a->i();
  }
  if (group < 1 || static_cast<std::size_t>(group) > c || c % static_cast<std::size_t>(group) != 0 ||
      c / static_cast<std::size_t>(group) != cpg || m % static_cast<std::size_t>(group) != 0) {
    fail(fmt::format("{}: group {} does not fit x's {} channels, w's {} output channels and {} channels per group",
                     label, group, c, m, cpg));
  }
  // One input channel per group is a depthwise convolution; other groups stay a CONV_2D whose OHWI
  // filter has C / group input channels (CONV_2D derives the groups from that).
  const bool depthwise = group > 1 && cpg == 1;
  const std::vector<std::int64_t> ks = ints_attribute(
      node, "kernel_shape", 2, {static_cast<std::int64_t>(kh), static_cast<std::int64_t>(kw)}, label, name_);
  if (ks[0] != static_cast<std::int64_t>(kh) || ks[1] != static_cast<std::int64_t>(kw)) {
    fail(fmt::format("{}: kernel_shape [{}, {}] differs from w's {}x{}", label, ks[0], ks[1], kh, kw));
  }
  const std::vector<std::int64_t> strides = ints_attribute(node, "strides", 2, {1, 1}, label, name_);
  const std::vector<std::int64_t> dil = ints_attribute(node, "dilations", 2, {1, 1}, label, name_);
  for (std::int64_t v : strides) {
    if (v < 1 || v > 65536) fail(fmt::format("{}: strides [{}]; allowed: 1 to 65536", label, fmt::join(strides, ", ")));
  }
  for (std::int64_t v : dil) {
    if (v < 1 || v > 65536) fail(fmt::format("{}: dilations [{}]; allowed: 1 to 65536", label, fmt::join(dil, ", ")));
  }
  Window2D win;
  win.kernel_h = kh;
  win.kernel_w = kw;
  win.stride_h = static_cast<std::size_t>(strides[0]);
  win.stride_w = static_cast<std::size_t>(strides[1]);
  win.dilation_h = static_cast<std::size_t>(dil[0]);
  win.dilation_w = static_cast<std::size_t>(dil[1]);
  std::string auto_pad = "NOTSET";
  if (const onnx::AttributeProto* a = attribute(node, "auto_pad")) auto_pad = a->s();
  if (auto_pad == "NOTSET") {
    const std::vector<std::int64_t> pads = ints_attribute(node, "pads", 4, {0, 0, 0, 0}, label, name_);
    for (std::int64_t v : pads) {
      if (v < 0 || v > 65536) fail(fmt::format("{}: pads [{}]; allowed: 0 to 65536", label, fmt::join(pads, ", ")));
    }
    win.padding = Padding::kExplicit;  // ONNX order: top, left, bottom, right
    win.pad_top = static_cast<std::size_t>(pads[0]);
    win.pad_left = static_cast<std::size_t>(pads[1]);
    win.pad_bottom = static_cast<std::size_t>(pads[2]);
    win.pad_right = static_cast<std::size_t>(pads[3]);
  } else if (auto_pad == "VALID") {
    win.padding = Padding::kValid;
  } else if (auto_pad == "SAME_UPPER") {
    win.padding = Padding::kSame;  // TensorFlow's SAME: the odd pixel at the end, as SAME_UPPER
  } else if (auto_pad == "SAME_LOWER") {
    // The odd pixel at the start: explicit padding from the input size.
    auto split = [](std::size_t in, std::size_t k, std::size_t s, std::size_t d, std::size_t* lo, std::size_t* hi) {
      const std::size_t out = (in + s - 1) / s;
      const std::size_t need = (out - 1) * s + (k - 1) * d + 1;
      const std::size_t total = need > in ? need - in : 0;
      *hi = total / 2;
      *lo = total - *hi;
    };
    win.padding = Padding::kExplicit;
    split(xs[1], kh, win.stride_h, win.dilation_h, &win.pad_top, &win.pad_bottom);
    split(xs[2], kw, win.stride_w, win.dilation_w, &win.pad_left, &win.pad_right);
  } else {
    fail(fmt::format("{}: auto_pad '{}'; allowed: NOTSET, VALID, SAME_UPPER, SAME_LOWER", label, auto_pad));
  }
  // The filter in qparity's layout: OHWI for a convolution, 1HWO (axis 3) for a depthwise one.
  Tensor f = cli::make_tensor(
      w.dtype, depthwise ? std::vector<std::size_t>{1, kh, kw, m} : std::vector<std::size_t>{m, kh, kw, cpg});
  const std::size_t es = cli::size_of(w.dtype);
  for (std::size_t o = 0; o < m; ++o) {
    for (std::size_t i = 0; i < cpg; ++i) {
      for (std::size_t y = 0; y < kh; ++y) {
        for (std::size_t xk = 0; xk < kw; ++xk) {
          const std::size_t src = ((o * cpg + i) * kh + y) * kw + xk;
          const std::size_t dst = depthwise ? (y * kw + xk) * m + o : ((o * kh + y) * kw + xk) * cpg + i;
          std::memcpy(f.bytes.data() + dst * es, w.bytes.data() + src * es, es);
        }
      }
    }
  }
  wq.axis = depthwise ? 3 : 0;
  TensorDef fd;
  fd.name = node.input(3);
  fd.dtype = w.dtype;
  fd.shape = f.shape;
  fd.quant = wq;
  fd.data = std::move(f);
  g_.tensors.push_back(std::move(fd));
  const int filter = static_cast<int>(g_.tensors.size()) - 1;
  int bias = -1;
  if (node.input_size() == 9 && !node.input(8).empty()) {
    const Tensor& b = constant_input(node, 8, label, "B");
    if (b.dtype != DType::kInt32 || b.shape.size() != 1 || b.shape[0] != m) {
      fail(fmt::format("{}: B '{}' is {} of shape {}; allowed: int32 of shape [{}]", label, node.input(8),
                       cli::to_string(b.dtype), cli::shape_text(b.shape), m));
    }
    TensorDef bd;
    bd.name = node.input(8);
    bd.dtype = DType::kInt32;
    bd.shape = b.shape;
    bd.data = b;
    g_.tensors.push_back(std::move(bd));
    bias = static_cast<int>(g_.tensors.size()) - 1;
  }
  const int y = int32_output ? output_tensor(node.output(0), DType::kInt32, Quantization{}, /*nhwc=*/true, label)
                             : output_tensor(node.output(0), y_type, yq, /*nhwc=*/true, label);
  Node n;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x, filter, bias};
  n.outputs = {y};
  if (depthwise) {
    auto o = std::make_shared<DepthwiseConv2DOptions>();
    o->window = win;
    o->depth_multiplier = m / c;
    n.op = OpKind::kDepthwiseConv2D;
    n.options = o;
  } else {
    auto o = std::make_shared<Conv2DOptions>();
    o->window = win;
    n.op = OpKind::kConv2D;
    n.options = o;
  }
  add_node(std::move(n));
}

void Importer::read_qlinear_matmul(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() != 8) {
    fail(
        fmt::format("{}: {} inputs; allowed: 8 (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, "
                    "y_zero_point)",
                    label, node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  const auto b_constant = constants_.find(node.input(3));
  if (b_constant == constants_.end() || b_constant->second.shape.size() != 2) {
    return read_qlinear_batch_matmul(node, label);
  }
  const Tensor& b = b_constant->second;
  if (b.shape[0] == 0 || b.shape[1] == 0) {
    fail(fmt::format("{}: b '{}' has shape {}; allowed: 2-D (K, N), non-empty", label, node.input(3),
                     cli::shape_text(b.shape)));
  }
  const std::size_t k = b.shape[0], nn = b.shape[1];
  DType a_type{}, b_type{}, y_type{};
  Quantization aq, bq, yq;
  aq = quantization(node, 1, label, "a", 0, &a_type);
  bq = quantization(node, 4, label, "b", nn, &b_type);
  yq = quantization(node, 6, label, "y", 0, &y_type);
  if (b.dtype != b_type) {
    fail(fmt::format("{}: b '{}' is {}, b_zero_point {}; allowed: the same type", label, node.input(3),
                     cli::to_string(b.dtype), cli::to_string(b_type)));
  }
  const int a = activation(node.input(0), a_type, aq, /*nhwc=*/false, label);
  add_matmul_node(node, a, b, bq, k, nn, node.input(3), y_type, yq, "a", "b", label);
}

// A MatMul with a constant (K, N) right-hand side as a FULLY_CONNECTED node (QLinearMatMul and
// MatMulInteger alike): checks a's shape, stores b transposed to (N, K), quantized along its rows,
// as the filter `filter_name`, then the output tensor and the node. a_role / b_role name the inputs
// in messages as the operator's schema does ("a" / "b" or "A" / "B").
void Importer::add_matmul_node(const onnx::NodeProto& node, int a, const Tensor& b, Quantization bq, std::size_t k,
                               std::size_t nn, const std::string& filter_name, DType y_type, const Quantization& yq,
                               const char* a_role, const char* b_role, const std::string& label) {
  const std::vector<std::size_t>& as = g_.tensors[static_cast<std::size_t>(a)].shape;
  if (as.size() < 2 || as.back() != k) {
    fail(fmt::format("{}: {} '{}' has shape {}; allowed: rank >= 2 with last dimension {} ({}'s K)", label, a_role,
                     node.input(0), cli::shape_text(as), k, b_role));
  }
  // FULLY_CONNECTED's filter is (N, K): b transposed, quantized along its rows.
  Tensor f = cli::make_tensor(b.dtype, {nn, k});
  const std::size_t es = cli::size_of(b.dtype);
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < nn; ++j)
      std::memcpy(f.bytes.data() + (j * k + i) * es, b.bytes.data() + (i * nn + j) * es, es);
  }
  bq.axis = 0;
  TensorDef fd;
  fd.name = filter_name;
  fd.dtype = b.dtype;
  fd.shape = f.shape;
  fd.quant = bq;
  fd.data = std::move(f);
  g_.tensors.push_back(std::move(fd));
  const int filter = static_cast<int>(g_.tensors.size()) - 1;
  const int y = output_tensor(node.output(0), y_type, yq, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kFullyConnected;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {a, filter, -1};
  n.outputs = {y};
  auto o = std::make_shared<FullyConnectedOptions>();
  o->keep_num_dims = true;  // MatMul keeps a's leading dimensions
  n.options = o;
  add_node(std::move(n));
}

// QLinearMatMul whose b is a run-time value or a constant of rank 3 or more: a BATCH_MATMUL node (a
// and b of rank 2 to 5, batch dimensions broadcast as numpy's matmul does, which is TFLite's rule),
// per-tensor quantization throughout; in ONNX's layout.
void Importer::read_qlinear_batch_matmul(const onnx::NodeProto& node, const std::string& label) {
  DType a_type{}, b_type{}, y_type{};
  Quantization aq, bq, yq;
  aq = quantization(node, 1, label, "a", 0, &a_type);
  bq = quantization(node, 4, label, "b", 0, &b_type);
  yq = quantization(node, 6, label, "y", 0, &y_type);
  const int a = activation(node.input(0), a_type, aq, /*nhwc=*/false, label);
  if (const auto c = constants_.find(node.input(3)); c != constants_.end() && c->second.dtype != b_type) {
    fail(fmt::format("{}: b '{}' is {}, b_zero_point {}; allowed: the same type", label, node.input(3),
                     cli::to_string(c->second.dtype), cli::to_string(b_type)));
  }
  const int b = matmul_operand(node.input(3), b_type, bq, label);
  const int y = output_tensor(node.output(0), y_type, yq, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kBatchMatMul;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {a, b};
  n.outputs = {y};
  n.options = std::make_shared<BatchMatMulOptions>();
  add_node(std::move(n));
}

// MatMulInteger: y = (a - a_zero_point) x (b - b_zero_point) in int32, no scales (opset 10). Read as
// an accumulate-only FULLY_CONNECTED (int32 output, model/ops/int32_accumulate.h) with b transposed to
// (N, K); the zero points are optional (0 when absent or named ''), a's a scalar, b's a scalar or one
// per column. The tensors get scale 1 so that qparity's quantization records hold the zero points.
void Importer::read_matmul_integer(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() < 2 || node.input_size() > 4) {
    fail(fmt::format("{}: {} inputs; allowed: 2 to 4 (A, B, a_zero_point, b_zero_point)", label, node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  const auto b_constant = constants_.find(node.input(1));
  if (b_constant == constants_.end() || b_constant->second.shape.size() != 2) {
    return read_matmul_integer_batched(node, label);
  }
  const Tensor& b = b_constant->second;
  if (b.dtype != DType::kInt8 && b.dtype != DType::kUint8) {
    fail(fmt::format("{}: B '{}' is {}; allowed: int8, uint8", label, node.input(1), cli::to_string(b.dtype)));
  }
  if (b.shape.size() != 2 || b.shape[0] == 0 || b.shape[1] == 0) {
    fail(fmt::format("{}: B '{}' has shape {}; allowed: 2-D (K, N), non-empty", label, node.input(1),
                     cli::shape_text(b.shape)));
  }
  const std::size_t k = b.shape[0], nn = b.shape[1];
  const auto present = [&](int i) { return node.input_size() > i && !node.input(i).empty(); };
  const auto a_value = values_.find(node.input(0));
  if (a_value == values_.end()) {
    fail(
        fmt::format("{}: input '{}' is neither a graph input nor the output of an earlier node (ONNX nodes are in "
                    "topological order)",
                    label, node.input(0)));
  }
  const Value& av = a_value->second;
  const DType a_type = g_.tensors[static_cast<std::size_t>(av.onnx >= 0 ? av.onnx : av.nhwc)].dtype;
  if (a_type != DType::kInt8 && a_type != DType::kUint8) {
    fail(fmt::format("{}: A '{}' is {}; allowed: int8, uint8", label, node.input(0), cli::to_string(a_type)));
  }
  Quantization aq, bq;
  aq.zero_points = {0};
  bq.zero_points = {0};
  if (present(2)) {
    DType t{};
    aq.zero_points = zero_points(node, 2, label, "a_zero_point", 0, &t);
    if (t != a_type) {
      fail(fmt::format("{}: a_zero_point '{}' is {}, A {}; allowed: the same type", label, node.input(2),
                       cli::to_string(t), cli::to_string(a_type)));
    }
  }
  if (present(3)) {
    DType t{};
    bq.zero_points = zero_points(node, 3, label, "b_zero_point", nn, &t);
    if (t != b.dtype) {
      fail(fmt::format("{}: b_zero_point '{}' is {}, B {}; allowed: the same type", label, node.input(3),
                       cli::to_string(t), cli::to_string(b.dtype)));
    }
  }
  aq.scales = {1.0f};
  bq.scales.assign(bq.zero_points.size(), 1.0f);
  const int a = activation(node.input(0), a_type, aq, /*nhwc=*/false, label);
  add_matmul_node(node, a, b, bq, k, nn, node.input(1), DType::kInt32, Quantization{}, "A", "B", label);
}

// MatMulInteger whose B is a run-time value or a constant of rank 3 or more: an accumulate-only
// BATCH_MATMUL (int32 output) in ONNX's layout; zero points optional and per tensor (scale 1 holds
// them, as for the 2-D form).
void Importer::read_matmul_integer_batched(const onnx::NodeProto& node, const std::string& label) {
  const auto type_of = [&](const std::string& value, const char* role) {
    DType t{};
    if (const auto c = constants_.find(value); c != constants_.end()) {
      t = c->second.dtype;
    } else if (const auto v = values_.find(value); v != values_.end()) {
      t = g_.tensors[static_cast<std::size_t>(v->second.onnx >= 0 ? v->second.onnx : v->second.nhwc)].dtype;
    } else {
      fail(fmt::format("{}: {} '{}' is neither a graph input, an initializer nor the output of an earlier node", label,
                       role, value));
    }
    if (t != DType::kInt8 && t != DType::kUint8) {
      fail(fmt::format("{}: {} '{}' is {}; allowed: int8, uint8", label, role, value, cli::to_string(t)));
    }
    return t;
  };
  const DType a_type = type_of(node.input(0), "A"), b_type = type_of(node.input(1), "B");
  const auto present = [&](int i) { return node.input_size() > i && !node.input(i).empty(); };
  Quantization aq, bq;
  aq.scales = {1.0f};
  bq.scales = {1.0f};
  aq.zero_points = {0};
  bq.zero_points = {0};
  for (const int i : {2, 3}) {
    if (!present(i)) continue;
    DType t{};
    Quantization& q = i == 2 ? aq : bq;
    q.zero_points = zero_points(node, i, label, i == 2 ? "a_zero_point" : "b_zero_point", 0, &t);
    if (t != (i == 2 ? a_type : b_type)) {
      fail(fmt::format("{}: {} '{}' is {}, {} {}; allowed: the same type", label, i == 2 ? "a_zero_point" : "b_zero_point",
                       node.input(i), cli::to_string(t), i == 2 ? "A" : "B", cli::to_string(i == 2 ? a_type : b_type)));
    }
  }
  const int a = activation(node.input(0), a_type, aq, /*nhwc=*/false, label);
  const int b = matmul_operand(node.input(1), b_type, bq, label);
  const int y = output_tensor(node.output(0), DType::kInt32, Quantization{}, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kBatchMatMul;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {a, b};
  n.outputs = {y};
  n.options = std::make_shared<BatchMatMulOptions>();
  add_node(std::move(n));
}

// ConvInteger: y = conv(x - x_zero_point, w - w_zero_point) in int32, no scales or bias (opset 10),
// padding with x_zero_point (so padded taps add 0). Read through read_qlinear_conv (the same
// attributes, filter layouts, groups and depthwise mapping) as a QLinearConv with unit scales and an
// int32 output without quantization: an accumulate-only CONV_2D or DEPTHWISE_CONV_2D
// (model/ops/int32_accumulate.h). The zero points are optional (0 of x's / w's type when absent).
void Importer::read_conv_integer(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() < 2 || node.input_size() > 4) {
    fail(fmt::format("{}: {} inputs; allowed: 2 to 4 (x, w, x_zero_point, w_zero_point)", label, node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  const auto x_value = values_.find(node.input(0));
  if (x_value == values_.end()) {
    fail(
        fmt::format("{}: input '{}' is neither a graph input nor the output of an earlier node (ONNX nodes are in "
                    "topological order)",
                    label, node.input(0)));
  }
  const Value& xv = x_value->second;
  const DType x_type = g_.tensors[static_cast<std::size_t>(xv.onnx >= 0 ? xv.onnx : xv.nhwc)].dtype;
  const Tensor& w = constant_input(node, 1, label, "w");
  for (DType t : {x_type, w.dtype}) {
    if (t != DType::kInt8 && t != DType::kUint8) {
      fail(fmt::format("{}: x '{}' is {}, w '{}' {}; allowed: int8, uint8", label, node.input(0),
                       cli::to_string(x_type), node.input(1), cli::to_string(w.dtype)));
    }
  }
  const std::string unit = node.output(0) + ":unit_scale";
  if (constants_.count(unit) == 0) {
    Tensor one = cli::make_tensor(DType::kFloat32, {});
    const float v = 1.0f;
    std::memcpy(one.bytes.data(), &v, sizeof v);
    constants_.emplace(unit, std::move(one));
  }
  onnx::NodeProto f;
  f.set_op_type("QLinearConv");
  f.set_name(node.name());
  f.add_output(node.output(0));
  *f.mutable_attribute() = node.attribute();
  const std::string x_zp = zero_point_name(node, 2, x_type, node.input(0));
  for (const std::string& in :
       {node.input(0), unit, x_zp, node.input(1), unit, zero_point_name(node, 3, w.dtype, node.input(1)), unit, x_zp}) {
    f.add_input(in);
  }
  read_qlinear_conv(f, label, /*int32_output=*/true);
}

// com.microsoft QLinearAdd / QLinearMul: y = a + b or a * b, each with its own quantization; b is
// another activation of a's shape or a one-element constant. Both inputs are taken in the layout a
// already has (NHWC when a convolution produced it), so no transpose is added between convolutions
// and the element-wise op.
void Importer::read_qlinear_binary(const onnx::NodeProto& node, const std::string& label, OpKind op) {
  if (node.input_size() != 8) {
    fail(
        fmt::format("{}: {} inputs; allowed: 8 (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, "
                    "C_zero_point)",
                    label, node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  DType a_type{}, b_type{}, c_type{};
  Quantization aq, bq, cq;
  aq = quantization(node, 1, label, "A", 0, &a_type);
  bq = quantization(node, 4, label, "B", 0, &b_type);
  cq = quantization(node, 6, label, "C", 0, &c_type);
  if (a_type != b_type || a_type != c_type) {
    fail(fmt::format("{}: A, B and C are {}, {} and {}; allowed: one type", label, cli::to_string(a_type),
                     cli::to_string(b_type), cli::to_string(c_type)));
  }
  const auto va = values_.find(node.input(0));
  const bool nhwc = va != values_.end() && va->second.onnx < 0;  // a exists only in NHWC
  const int a = activation(node.input(0), a_type, aq, nhwc, label);
  int b = -1;
  const auto cb = constants_.find(node.input(3));
  if (cb != constants_.end()) {
    if (cb->second.elements() != 1 || cb->second.dtype != b_type) {
      fail(
          fmt::format("{}: constant B '{}' is {} of shape {}; allowed: one {} element (or B computed at run time "
                      "with A's shape)",
                      label, node.input(3), cli::to_string(cb->second.dtype), cli::shape_text(cb->second.shape),
                      cli::to_string(b_type)));
    }
    TensorDef bd;
    bd.name = node.input(3);
    bd.dtype = b_type;
    bd.shape = {};
    bd.quant = bq;
    Tensor data = cli::make_tensor(b_type, {});
    data.set_integer(0, cb->second.integer_at(0));
    bd.data = std::move(data);
    g_.tensors.push_back(std::move(bd));
    b = static_cast<int>(g_.tensors.size()) - 1;
  } else {
    b = activation(node.input(3), b_type, bq, nhwc, label);
    if (g_.tensors[static_cast<std::size_t>(b)].shape != g_.tensors[static_cast<std::size_t>(a)].shape) {
      fail(fmt::format("{}: B '{}' has shape {}, A {}; allowed: the same shape (or a one-element constant B)", label,
                       node.input(3), cli::shape_text(g_.tensors[static_cast<std::size_t>(b)].shape),
                       cli::shape_text(g_.tensors[static_cast<std::size_t>(a)].shape)));
    }
  }
  const int y = output_tensor(node.output(0), c_type, cq, nhwc, label);
  Node n;
  n.op = op;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {a, b};
  n.outputs = {y};
  n.options = std::make_shared<ElementwiseOptions>();
  add_node(std::move(n));
}

// com.microsoft QLinearGlobalAveragePool: the mean over H and W of a 4-D tensor, as MEAN with
// keep_dims over axes 1 and 2 of the NHWC tensor (channels_last 0: the importer's NHWC view of the
// NCHW input; channels_last 1: the input as it is).
void Importer::read_qlinear_global_average_pool(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() != 5) {
    fail(fmt::format("{}: {} inputs; allowed: 5 (X, x_scale, x_zero_point, y_scale, y_zero_point)", label,
                     node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  std::int64_t channels_last = 0;
  if (const onnx::AttributeProto* a = attribute(node, "channels_last")) {
    if (a->type() != onnx::AttributeProto_AttributeType_INT || (a->i() != 0 && a->i() != 1)) {
      fail(fmt::format("{}: attribute channels_last must be 0 or 1", label));
    }
    channels_last = a->i();
  }
  const InOutQuantization q = in_out_quantization(node, label, "x", "y");
  const int x = activation(node.input(0), q.x_type, q.x, /*nhwc=*/channels_last == 0, label);
  if (g_.tensors[static_cast<std::size_t>(x)].shape.size() != 4) {
    fail(fmt::format("{}: X '{}' has shape {}; allowed: 4-D", label, node.input(0),
                     cli::shape_text(g_.tensors[static_cast<std::size_t>(x)].shape)));
  }
  TensorDef axes;
  axes.name = node.input(0) + ":axes";
  axes.dtype = DType::kInt32;
  axes.shape = {2};
  Tensor data = cli::make_tensor(DType::kInt32, {2});
  data.set_integer(0, 1);
  data.set_integer(1, 2);
  axes.data = std::move(data);
  g_.tensors.push_back(std::move(axes));
  const int axes_t = static_cast<int>(g_.tensors.size()) - 1;
  const int y = output_tensor(node.output(0), q.y_type, q.y, /*nhwc=*/channels_last == 0, label);
  Node n;
  n.op = OpKind::kMean;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x, axes_t};
  n.outputs = {y};
  auto o = std::make_shared<ReducerOptions>();
  o->keep_dims = true;
  n.options = o;
  add_node(std::move(n));
}

// com.microsoft QLinearSigmoid / QLinearLeakyRelu (X, X_scale, X_zero_point, Y_scale, Y_zero_point;
// LeakyRelu's float attribute alpha, 0.01 by default) as LOGISTIC / LEAKY_RELU, ONNX Runtime's
// 256-entry table (docs/semantics.md §22.7). Element-wise: X is taken in the layout it already has.
void Importer::read_qlinear_lookup(const onnx::NodeProto& node, const std::string& label, OpKind op) {
  if (node.input_size() != 5) {
    fail(fmt::format("{}: {} inputs; allowed: 5 (X, X_scale, X_zero_point, Y_scale, Y_zero_point)", label,
                     node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (op != OpKind::kLeakyRelu || a.name() != "alpha") {
      fail(
          fmt::format("{}: attribute '{}'; allowed: {}", label, a.name(), op == OpKind::kLeakyRelu ? "alpha" : "none"));
    }
  }
  auto options = std::make_shared<LeakyReluOptions>();
  if (const onnx::AttributeProto* a = attribute(node, "alpha")) {
    if (a->type() != onnx::AttributeProto_AttributeType_FLOAT || !std::isfinite(a->f())) {
      fail(fmt::format("{}: attribute alpha must be a finite float", label));
    }
    options->alpha = a->f();
  }
  const InOutQuantization q = one_type_in_out_quantization(node, label);
  const auto vx = values_.find(node.input(0));
  const bool nhwc = vx != values_.end() && vx->second.onnx < 0;  // x exists only in NHWC
  const int x = activation(node.input(0), q.x_type, q.x, nhwc, label);
  const int y = output_tensor(node.output(0), q.y_type, q.y, nhwc, label);
  Node n;
  n.op = op;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x};
  n.outputs = {y};
  if (op == OpKind::kLeakyRelu) n.options = options;
  add_node(std::move(n));
}

// com.microsoft QLinearSoftmax (X, X_scale, X_zero_point, Y_scale, Y_zero_point; attributes opset,
// required, and axis: -1 by default from opset 13, else 1) as SOFTMAX over the last dimension of
// the value in ONNX's layout (docs/semantics.md §22.8). From opset 13 the axis is one dimension
// (ORT transposes it last); before, the rows are the dimensions from the axis on, flattened: either
// way qparity takes the last axis only.
void Importer::read_qlinear_softmax(const onnx::NodeProto& node, const std::string& label, std::int64_t opset) {
  if (node.input_size() != 5) {
    fail(fmt::format("{}: {} inputs; allowed: 5 (X, X_scale, X_zero_point, Y_scale, Y_zero_point)", label,
                     node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  std::int64_t axis = opset >= 13 ? -1 : 1;
  if (const onnx::AttributeProto* a = attribute(node, "axis")) {
    if (a->type() != onnx::AttributeProto_AttributeType_INT)
      fail(fmt::format("{}: attribute axis must be an int", label));
    axis = a->i();
  }
  const InOutQuantization q = one_type_in_out_quantization(node, label);
  const int x = activation(node.input(0), q.x_type, q.x, /*nhwc=*/false, label);
  const auto rank = static_cast<std::int64_t>(g_.tensors[static_cast<std::size_t>(x)].shape.size());
  if (rank == 0 || (axis != rank - 1 && axis != -1)) {
    fail(fmt::format("{}: axis {} of a rank-{} input; allowed: the last axis ({} or -1)", label, axis, rank, rank - 1));
  }
  const int y = output_tensor(node.output(0), q.y_type, q.y, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kSoftmax;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x};
  n.outputs = {y};
  n.options = std::make_shared<SoftmaxOptions>();  // beta 1
  add_node(std::move(n));
}

// Resize (opset 13+: X, roi, scales, sizes) resizing H and W of a 4-D NCHW int8 / uint8 value, on its
// NHWC view (docs/semantics.md §21.9). Mode linear becomes RESIZE_BILINEAR, the coordinate mode its
// options (half_pixel -> half_pixel_centers, align_corners -> align_corners, asymmetric -> neither;
// pytorch_half_pixel is half_pixel when no output side is 1), which ONNX Runtime's systems turn back
// into its own arithmetic and TFLite's systems read as TFLite's. Mode nearest becomes
// RESIZE_NEAREST_NEIGHBOR carrying ONNX's rule (coordinate mode and nearest_mode), which only ONNX
// Runtime's systems run. Plain Resize does not requantize: the output keeps the input's
// quantization (scale 1, zero point 0 for an unquantized graph input). Everything else (mode cubic,
// other coordinate or nearest modes, antialias, axes, exclude_outside, a keep_aspect_ratio_policy, N
// or C resized, scales that are not out / in) is refused, naming the node and the attribute or input.
void Importer::read_resize(const onnx::NodeProto& node, const std::string& label, const Quantization* qdq) {
  if (node.input_size() < 3 || node.input_size() > 4) {
    fail(fmt::format("{}: {} inputs; allowed: X, roi, scales and optional sizes", label, node.input_size()));
  }
  if (node.output_size() != 1) fail(fmt::format("{}: {} outputs; allowed: 1", label, node.output_size()));
  std::string mode = "nearest", ctm = "half_pixel", nearest_mode = "round_prefer_floor";
  auto string_of = [&](const onnx::AttributeProto& a) {
    if (a.type() != onnx::AttributeProto_AttributeType_STRING) {
      fail(fmt::format("{}: attribute {} must be a string", label, a.name()));
    }
    return a.s();
  };
  auto int_of = [&](const onnx::AttributeProto& a) {
    if (a.type() != onnx::AttributeProto_AttributeType_INT) {
      fail(fmt::format("{}: attribute {} must be an int", label, a.name()));
    }
    return a.i();
  };
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == "mode") {
      mode = string_of(a);
    } else if (a.name() == "coordinate_transformation_mode") {
      ctm = string_of(a);
    } else if (a.name() == "nearest_mode") {
      nearest_mode = string_of(a);
    } else if (a.name() == "exclude_outside" || a.name() == "antialias") {
      if (int_of(a) != 0) fail(fmt::format("{}: attribute {} = {}; allowed: 0", label, a.name(), a.i()));
    } else if (a.name() == "keep_aspect_ratio_policy") {
      if (string_of(a) != "stretch") {
        fail(fmt::format("{}: attribute keep_aspect_ratio_policy = '{}'; allowed: stretch", label, a.s()));
      }
    } else if (a.name() != "cubic_coeff_a" && a.name() != "extrapolation_value") {
      // cubic_coeff_a and extrapolation_value do not apply to linear or nearest without tf_crop_and_resize
      fail(fmt::format("{}: attribute '{}'; allowed: mode, coordinate_transformation_mode, exclude_outside 0, "
                       "antialias 0, keep_aspect_ratio_policy stretch, nearest_mode, cubic_coeff_a, "
                       "extrapolation_value", label, a.name()));
    }
  }
  if (mode != "linear" && mode != "nearest") {
    fail(fmt::format("{}: attribute mode = '{}'; allowed: linear, nearest (ONNX Runtime's cubic Resize is not "
                     "modelled)", label, mode));
  }
  const bool nearest = mode == "nearest";
  auto options = std::make_shared<ResizeOptions>();
  const bool pytorch = ctm == "pytorch_half_pixel";
  OnnxNearestRule rule;
  if (ctm == "half_pixel" || pytorch) {
    options->half_pixel_centers = true;
    rule.coordinates = pytorch ? reference::OnnxCoordinateMode::kPytorchHalfPixel : reference::OnnxCoordinateMode::kHalfPixel;
  } else if (ctm == "align_corners") {
    options->align_corners = true;
    rule.coordinates = reference::OnnxCoordinateMode::kAlignCorners;
  } else if (ctm == "asymmetric") {
    rule.coordinates = reference::OnnxCoordinateMode::kAsymmetric;
  } else {
    fail(fmt::format("{}: attribute coordinate_transformation_mode = '{}'; allowed: half_pixel, pytorch_half_pixel, "
                     "asymmetric, align_corners", label, ctm));
  }
  if (nearest) {
    const std::pair<const char*, reference::OnnxNearestMode> modes[] = {
        {"round_prefer_floor", reference::OnnxNearestMode::kRoundPreferFloor},
        {"round_prefer_ceil", reference::OnnxNearestMode::kRoundPreferCeil},
        {"floor", reference::OnnxNearestMode::kFloor},
        {"ceil", reference::OnnxNearestMode::kCeil}};
    bool known = false;
    for (const auto& [name, m] : modes) {
      if (nearest_mode == name) {
        rule.nearest = m;
        known = true;
      }
    }
    if (!known) {
      fail(fmt::format("{}: attribute nearest_mode = '{}'; allowed: round_prefer_floor, round_prefer_ceil, floor, ceil",
                       label, nearest_mode));
    }
    // ONNX's index rule replaces TFLite's options (RESIZE_NEAREST_NEIGHBOR's onnx_nearest).
    options->align_corners = options->half_pixel_centers = false;
    options->onnx_nearest = rule;
  }
  const auto it = values_.find(node.input(0));
  if (it == values_.end()) {
    fail(fmt::format("{}: input '{}' is neither a graph input nor the output of an earlier node", label, node.input(0)));
  }
  const TensorDef src = g_.tensors[static_cast<std::size_t>(it->second.onnx >= 0 ? it->second.onnx : it->second.nhwc)];
  if (src.dtype != DType::kInt8 && src.dtype != DType::kUint8) {
    fail(fmt::format("{}: X '{}' is {}; allowed: int8, uint8 (a float Resize only inside a QDQ group)", label,
                     node.input(0), cli::to_string(src.dtype)));
  }
  // X's shape in ONNX's layout [N, C, H, W].
  std::vector<std::size_t> nchw = src.shape;
  if (it->second.onnx < 0 && nchw.size() == 4) nchw = {src.shape[0], src.shape[3], src.shape[1], src.shape[2]};
  if (nchw.size() != 4) {
    fail(fmt::format("{}: X '{}' has shape {}; allowed: 4-D (N, C, H, W)", label, node.input(0),
                     cli::shape_text(nchw)));
  }
  const bool has_scales = !node.input(2).empty(), has_sizes = node.input_size() == 4 && !node.input(3).empty();
  if (has_scales == has_sizes) {
    fail(fmt::format("{}: {}; allowed: exactly one of scales and sizes", label, has_scales ? "both scales and sizes"
                                                                                            : "neither scales nor sizes"));
  }
  std::int64_t out[4] = {0, 0, 0, 0};
  if (has_sizes) {
    const Tensor& t = constant_input(node, 3, label, "sizes");
    if (t.dtype != DType::kInt64 || t.elements() != 4) {
      fail(fmt::format("{}: sizes '{}' is {} {}; allowed: int64 [4]", label, node.input(3), cli::to_string(t.dtype),
                       cli::shape_text(t.shape)));
    }
    for (std::size_t d = 0; d < 4; ++d) out[d] = t.integer_at(d);
  } else {
    const Tensor& t = constant_input(node, 2, label, "scales");
    if (t.dtype != DType::kFloat32 || t.elements() != 4) {
      fail(fmt::format("{}: scales '{}' is {} {}; allowed: float32 [4]", label, node.input(2),
                       cli::to_string(t.dtype), cli::shape_text(t.shape)));
    }
    for (std::size_t d = 0; d < 4; ++d) {
      float sc = 0.0f;
      std::memcpy(&sc, t.bytes.data() + 4 * d, 4);
      if (!std::isfinite(sc) || !(sc > 0.0f) || sc > 32767.0f) {
        fail(fmt::format("{}: scales[{}] = {}; allowed: finite, > 0", label, d, sc));
      }
      out[d] = static_cast<std::int64_t>(std::floor(static_cast<double>(nchw[d]) * static_cast<double>(sc)));
      // ONNX Runtime places pixels with this scale; qparity's reference with out / in: they must agree.
      if (d >= 2 && out[d] > 0 && static_cast<float>(out[d]) / static_cast<float>(nchw[d]) != sc) {
        fail(fmt::format("{}: scales[{}] = {} is not output size {} / input size {} in float32; allowed: such "
                         "scales, or sizes", label, d, sc, out[d], nchw[d]));
      }
    }
  }
  if (out[0] != static_cast<std::int64_t>(nchw[0]) || out[1] != static_cast<std::int64_t>(nchw[1])) {
    fail(fmt::format("{}: resizes N or C ({}x{} -> {}x{}); allowed: H and W only", label, nchw[0], nchw[1], out[0],
                     out[1]));
  }
  if (!nearest && pytorch && (out[2] == 1 || out[3] == 1)) {
    fail(fmt::format("{}: pytorch_half_pixel with an output side of 1; allowed: sides > 1 (where it is half_pixel)",
                     label));
  }
  Quantization q = qdq != nullptr ? *qdq : src.quant;
  if (!q.present()) {
    q.scales = {1.0f};
    q.zero_points = {0};
  }
  for (std::size_t d = 2; d < 4; ++d) {
    if (out[d] < 1 || out[d] > 32767) {
      fail(fmt::format("{}: output {} {}; allowed: 1 to 32767", label, d == 2 ? "height" : "width", out[d]));
    }
  }
  const int x = activation(node.input(0), src.dtype, q, /*nhwc=*/true, label);
  const int size = int32_constant(node.output(0) + ":size", {out[2], out[3]});
  const int y = output_tensor(node.output(0), src.dtype, q, /*nhwc=*/true, label);
  Node n;
  n.op = nearest ? OpKind::kResizeNearestNeighbor : OpKind::kResizeBilinear;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x, size};
  n.outputs = {y};
  n.options = options;
  add_node(std::move(n));
}

// com.microsoft QLinearConcat (Y_scale, Y_zero_point, then X_i, X_i_scale, X_i_zero_point per
// input) as CONCATENATION. 4-D inputs that all exist in NHWC are joined there (the ONNX axis mapped:
// C -> 3, H -> 1, W -> 2), otherwise in ONNX's layout. Inputs quantized unlike the output are
// rescaled, int8 and uint8 alike (under the ORT profiles; TFLite's int8 arithmetic refuses them).
void Importer::read_qlinear_concat(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() < 5 || (node.input_size() - 2) % 3 != 0 || node.output_size() != 1) {
    fail(
        fmt::format("{}: {} inputs and {} outputs; allowed: Y_scale, Y_zero_point, then (X, X_scale, "
                    "X_zero_point) per input, and 1 output",
                    label, node.input_size(), node.output_size()));
  }
  const onnx::AttributeProto* ax = attribute(node, "axis");
  if (ax == nullptr || ax->type() != onnx::AttributeProto_AttributeType_INT) {
    fail(fmt::format("{}: attribute axis (an integer) is required", label));
  }
  DType y_type{};
  Quantization yq;
  yq = quantization(node, 0, label, "Y", 0, &y_type);
  const int count = (node.input_size() - 2) / 3;
  bool all_nhwc = true;
  for (int i = 0; i < count; ++i) {
    const auto it = values_.find(node.input(2 + 3 * i));
    all_nhwc = all_nhwc && it != values_.end() && it->second.nhwc >= 0;
  }
  std::vector<int> inputs;
  std::size_t rank = 0;
  for (int i = 0; i < count; ++i) {
    const int k = 2 + 3 * i;
    DType t{};
    Quantization q;
    q = quantization(node, k + 1, label, "X", 0, &t);
    if (t != y_type) {
      fail(fmt::format("{}: input {} is {}, Y {}; allowed: one type", label, i, cli::to_string(t),
                       cli::to_string(y_type)));
    }
    inputs.push_back(activation(node.input(k), t, q, all_nhwc, label));
    rank = g_.tensors[static_cast<std::size_t>(inputs.back())].shape.size();
  }
  std::int64_t axis = ax->i();
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    fail(fmt::format("{}: axis {} for rank {}; allowed: {} to {}", label, axis, r, -r, r - 1));
  if (axis < 0) axis += r;
  if (all_nhwc) {
    const int to_nhwc[4] = {0, 3, 1, 2};
    axis = to_nhwc[axis];
  }
  const int y = output_tensor(node.output(0), y_type, yq, all_nhwc, label);
  Node n;
  n.op = OpKind::kConcatenation;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = inputs;
  n.outputs = {y};
  auto o = std::make_shared<ConcatenationOptions>();
  o->axis = static_cast<int>(axis);
  n.options = o;
  add_node(std::move(n));
}

// com.microsoft QLinearAveragePool (2-D, NCHW) as AVERAGE_POOL_2D on the NHWC view (and the QDQ
// AveragePool / MaxPool groups through it): VALID, SAME_UPPER, SAME_LOWER or explicit pads (each
// smaller than its kernel side, asymmetric allowed), padding counted in the divisor or not
// (count_include_pad 1 or 0); ceil_mode 0 and no dilations (refused, naming the attribute).
void Importer::read_qlinear_average_pool(const onnx::NodeProto& node, const std::string& label, OpKind op) {
  if (node.input_size() != 5 || node.output_size() != 1) {
    fail(
        fmt::format("{}: {} inputs and {} outputs; allowed: 5 (X, x_scale, x_zero_point, y_scale, y_zero_point) "
                    "and 1",
                    label, node.input_size(), node.output_size()));
  }
  for (const char* a : {"ceil_mode", "channels_last", "storage_order"}) {
    if (const onnx::AttributeProto* at = attribute(node, a)) {
      if (at->i() != 0) fail(fmt::format("{}: {} = {}; allowed: 0", label, a, at->i()));
    }
  }
  bool count_include_pad = false;
  if (const onnx::AttributeProto* at = attribute(node, "count_include_pad")) {
    if (at->i() != 0 && (at->i() != 1 || op != OpKind::kAveragePool2D)) {
      fail(fmt::format("{}: count_include_pad = {}; allowed: {}", label, at->i(),
                       op == OpKind::kAveragePool2D ? "0 or 1" : "0"));
    }
    count_include_pad = at->i() == 1;
  }
  if (attribute(node, "dilations") != nullptr) fail(fmt::format("{}: dilations are not supported", label));
  const onnx::AttributeProto* ks = attribute(node, "kernel_shape");
  if (ks == nullptr || ks->ints_size() != 2) fail(fmt::format("{}: kernel_shape must be 2 integers", label));
  const std::vector<std::int64_t> k{ks->ints(0), ks->ints(1)};
  const std::vector<std::int64_t> st = ints_attribute(node, "strides", 2, {1, 1}, label, name_);
  for (std::int64_t v : {k[0], k[1], st[0], st[1]}) {
    if (v < 1 || v > 65536) fail(fmt::format("{}: kernel_shape and strides must be 1 to 65536", label));
  }
  std::string auto_pad = "NOTSET";
  if (const onnx::AttributeProto* a = attribute(node, "auto_pad")) auto_pad = a->s();
  reference::PoolWindow w;
  w.filter_h = static_cast<std::size_t>(k[0]);
  w.filter_w = static_cast<std::size_t>(k[1]);
  w.stride_h = static_cast<std::size_t>(st[0]);
  w.stride_w = static_cast<std::size_t>(st[1]);
  if (auto_pad == "SAME_UPPER") {
    w.padding = Padding::kSame;
  } else if (auto_pad == "SAME_LOWER") {
    w.padding = Padding::kExplicit;  // the pads once the input's size is known, below
  } else if (auto_pad == "VALID" || auto_pad == "NOTSET") {
    const std::vector<std::int64_t> pads =
        auto_pad == "VALID" ? std::vector<std::int64_t>{0, 0, 0, 0}
                            : ints_attribute(node, "pads", 4, {0, 0, 0, 0}, label, name_);
    if (pads[0] < 0 || pads[0] >= k[0] || pads[2] < 0 || pads[2] >= k[0] || pads[1] < 0 || pads[1] >= k[1] ||
        pads[3] < 0 || pads[3] >= k[1]) {
      fail(fmt::format("{}: pads [{}]; allowed: each 0 to its kernel side - 1 ([top, left, bottom, right], kernel "
                       "{}x{})",
                       label, fmt::join(pads, ", "), k[0], k[1]));
    }
    w.padding = pads == std::vector<std::int64_t>{0, 0, 0, 0} ? Padding::kValid : Padding::kExplicit;
    w.pad_top = static_cast<std::size_t>(pads[0]);
    w.pad_left = static_cast<std::size_t>(pads[1]);
    w.pad_bottom = static_cast<std::size_t>(pads[2]);
    w.pad_right = static_cast<std::size_t>(pads[3]);
  } else {
    fail(fmt::format("{}: auto_pad '{}'; allowed: NOTSET (explicit pads), VALID, SAME_UPPER, SAME_LOWER", label,
                     auto_pad));
  }
  const InOutQuantization q = in_out_quantization(node, label, "x", "y");
  const int x = activation(node.input(0), q.x_type, q.x, /*nhwc=*/true, label);
  if (auto_pad == "SAME_LOWER") {
    // ONNX Runtime's split (PoolAttributes::ComputeSizePadDilations): out = ceil(in / stride), the
    // odd padding pixel at the top / left; a negative need (stride > kernel) pads nothing.
    const std::vector<std::size_t>& nhwc = g_.tensors[static_cast<std::size_t>(x)].shape;
    auto split = [](std::size_t in, std::size_t kernel, std::size_t stride, std::size_t* head, std::size_t* tail) {
      const std::size_t need = ((in + stride - 1) / stride - 1) * stride + kernel;
      const std::size_t total = need > in ? need - in : 0;
      *head = (total + 1) / 2;
      *tail = total - *head;
    };
    if (nhwc.size() == 4) {
      split(nhwc[1], w.filter_h, w.stride_h, &w.pad_top, &w.pad_bottom);
      split(nhwc[2], w.filter_w, w.stride_w, &w.pad_left, &w.pad_right);
    }
  }
  const int y = output_tensor(node.output(0), q.y_type, q.y, /*nhwc=*/true, label);
  Node n;
  n.op = op;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x};
  n.outputs = {y};
  auto o = std::make_shared<Pool2DOptions>();
  o->window = w;
  o->count_include_pad = count_include_pad;
  n.options = o;
  add_node(std::move(n));
}

// Flatten / Reshape of a quantized activation: RESHAPE in ONNX's layout (an NHWC value is
// transposed back first), the quantization passed through (no arithmetic).
void Importer::read_reshape(const onnx::NodeProto& node, const std::string& label, bool flatten) {
  if (node.input_size() != (flatten ? 1 : 2) || node.output_size() != 1) {
    fail(fmt::format("{}: {} inputs and {} outputs; allowed: {} and 1", label, node.input_size(), node.output_size(),
                     flatten ? "1 (input)" : "2 (data, constant shape)"));
  }
  const auto it = values_.find(node.input(0));
  if (it == values_.end()) {
    fail(
        fmt::format("{}: input '{}' is neither a graph input nor the output of an earlier node", label, node.input(0)));
  }
  const int primary = it->second.onnx >= 0 ? it->second.onnx : it->second.nhwc;
  const TensorDef src = g_.tensors[static_cast<std::size_t>(primary)];
  if (!src.quant.present()) {
    fail(
        fmt::format("{}: input '{}' is not quantized by the node that produces or reads it; allowed: the 8-bit "
                    "output of a QLinear node",
                    label, node.input(0)));
  }
  const int x = activation(node.input(0), src.dtype, src.quant, /*nhwc=*/false, label);
  const std::vector<std::size_t> in = g_.tensors[static_cast<std::size_t>(x)].shape;
  std::vector<std::int64_t> want;
  if (flatten) {
    std::int64_t axis = 1;
    if (const onnx::AttributeProto* a = attribute(node, "axis")) {
      if (a->type() != onnx::AttributeProto_AttributeType_INT)
        fail(fmt::format("{}: attribute axis must be an integer", label));
      axis = a->i();
    }
    const auto rank = static_cast<std::int64_t>(in.size());
    if (axis < -rank || axis > rank)
      fail(fmt::format("{}: axis {} for rank {}; allowed: {} to {}", label, axis, rank, -rank, rank));
    if (axis < 0) axis += rank;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t i = 0; i < rank; ++i)
      (i < axis ? outer : inner) *= static_cast<std::int64_t>(in[static_cast<std::size_t>(i)]);
    want = {outer, inner};
  } else {
    const Tensor& shape = constant_input(node, 1, label, "shape");
    if (shape.dtype != DType::kInt64 || shape.shape.size() != 1 || shape.elements() > limits_.max_rank) {
      fail(fmt::format("{}: shape '{}' is {} of shape {}; allowed: int64, 1-D, at most {} values", label, node.input(1),
                       cli::to_string(shape.dtype), cli::shape_text(shape.shape), limits_.max_rank));
    }
    bool allow_zero = false;
    if (const onnx::AttributeProto* a = attribute(node, "allowzero")) allow_zero = a->i() != 0;
    for (std::size_t i = 0; i < shape.elements(); ++i) {
      std::int64_t d = shape.integer_at(i);
      if (d == 0 && !allow_zero) {  // allowzero 0 (the default): copy the input's dimension
        if (i >= in.size()) fail(fmt::format("{}: shape[{}] = 0 copies a dimension the input lacks", label, i));
        d = static_cast<std::int64_t>(in[i]);
      }
      want.push_back(d);
    }
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] < -1 || want[i] > INT32_MAX)
      fail(fmt::format("{}: new dimension {} = {} is out of range", label, i, want[i]));
  }
  const int shape_t = int32_constant(node.output(0) + ":shape", want);
  const int y = output_tensor(node.output(0), src.dtype, src.quant, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kReshape;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x, shape_t};
  n.outputs = {y};
  n.options = std::make_shared<ReshapeOptions>();
  add_node(std::move(n));
}

// Transpose of a quantized activation (from a QDQ group): TRANSPOSE in ONNX's layout, perm as given
// (default: the dimensions reversed), the output quantized like the input. With one quantization
// on both sides ONNX Runtime drops the Q/DQ pair at level all and at level disabled dequantizes,
// copies and quantizes, which gives the same bytes: round_half_even(float(s * (x - zp)) / s) + zp =
// x for every 8-bit x. (A requantizing group adds a CONCATENATION after this, read_qdq_group.)
void Importer::read_transpose(const onnx::NodeProto& node, const std::string& label) {
  const auto it = values_.find(node.input(0));
  if (it == values_.end()) {
    fail(
        fmt::format("{}: input '{}' is neither a graph input nor the output of an earlier node", label, node.input(0)));
  }
  const TensorDef src = g_.tensors[static_cast<std::size_t>(it->second.onnx >= 0 ? it->second.onnx : it->second.nhwc)];
  const int x = activation(node.input(0), src.dtype, src.quant, /*nhwc=*/false, label);
  const std::size_t rank = g_.tensors[static_cast<std::size_t>(x)].shape.size();
  std::vector<std::int64_t> perm;
  for (std::size_t i = rank; i > 0; --i) perm.push_back(static_cast<std::int64_t>(i - 1));
  if (const onnx::AttributeProto* a = attribute(node, "perm")) {
    perm.assign(a->ints().begin(), a->ints().end());
    std::vector<bool> seen(rank, false);
    bool ok = perm.size() == rank;
    for (std::size_t i = 0; ok && i < perm.size(); ++i) {
      ok = perm[i] >= 0 && static_cast<std::size_t>(perm[i]) < rank && !seen[static_cast<std::size_t>(perm[i])];
      if (ok) seen[static_cast<std::size_t>(perm[i])] = true;
    }
    if (!ok) {
      fail(fmt::format("{}: perm [{}] for an input of rank {}; allowed: a permutation of 0 to {}", label,
                       fmt::join(perm, ", "), rank, static_cast<long long>(rank) - 1));
    }
  }
  const int perm_t = int32_constant(node.output(0) + ":perm", perm);
  const int y = output_tensor(node.output(0), src.dtype, src.quant, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kTranspose;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x, perm_t};
  n.outputs = {y};
  add_node(std::move(n));
}

int Importer::int32_constant(const std::string& name, const std::vector<std::int64_t>& values) {
  TensorDef d;
  d.name = name;
  d.dtype = DType::kInt32;
  d.shape = {values.size()};
  Tensor data = cli::make_tensor(DType::kInt32, d.shape);
  for (std::size_t i = 0; i < values.size(); ++i) data.set_integer(i, values[i]);
  d.data = std::move(data);
  g_.tensors.push_back(std::move(d));
  return static_cast<int>(g_.tensors.size()) - 1;
}

std::string Importer::zero_point_name(const onnx::NodeProto& node, int i, DType dtype, const std::string& for_value) {
  if (i < node.input_size() && !node.input(i).empty()) return node.input(i);
  // ONNX's default zero point: 0 of the quantized type (uint8 for a QuantizeLinear without one).
  const std::string name = for_value + ":zero_point";
  if (constants_.count(name) == 0) {
    Tensor zero = cli::make_tensor(dtype, {});
    zero.set_integer(0, 0);
    constants_.emplace(name, std::move(zero));
  }
  return name;
}

// DequantizeLinear(x, scale[, zero_point]) is read with the operator that uses its output; here it
// is only recorded. x is a graph input, a QDQ group's output or a constant (weights, bias).
void Importer::read_dequantize_linear(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() < 2 || node.input_size() > 3 || node.output_size() != 1 || node.output(0).empty()) {
    fail(fmt::format("{}: {} inputs and {} outputs; allowed: x, x_scale, optional x_zero_point, and 1 output", label,
                     node.input_size(), node.output_size()));
  }
  const std::string& x = node.input(0);
  DType dtype{};
  if (const auto c = constants_.find(x); c != constants_.end()) {
    dtype = c->second.dtype;
  } else if (const auto v = values_.find(x); v != values_.end()) {
    dtype = g_.tensors[static_cast<std::size_t>(v->second.onnx >= 0 ? v->second.onnx : v->second.nhwc)].dtype;
  } else {
    fail(fmt::format("{}: input '{}' is neither a graph input, an initializer nor the output of an earlier node", label,
                     x));
  }
  if (dtype != DType::kInt8 && dtype != DType::kUint8 && dtype != DType::kInt32) {
    fail(fmt::format("{}: x '{}' is {}; allowed: int8, uint8 (int32 for a bias)", label, x, cli::to_string(dtype)));
  }
  if (dequantized_.count(node.output(0)) != 0 || values_.count(node.output(0)) != 0) {
    fail(fmt::format("{}: output '{}' is already defined", label, node.output(0)));
  }
  Dequantized d;
  d.value = x;
  d.scale = node.input(1);
  d.zero_point = zero_point_name(node, 2, dtype == DType::kInt32 ? DType::kInt32 : dtype, node.output(0));
  if (const onnx::AttributeProto* a = attribute(node, "axis")) {
    if (a->type() != onnx::AttributeProto_AttributeType_INT)
      fail(fmt::format("{}: attribute axis must be an integer", label));
    d.axis = a->i();
  }
  dequantized_.emplace(node.output(0), d);
  if (graph_outputs_.count(node.output(0)) != 0) add_output_dequantize(node, d, dtype, label);
}

Quantization Importer::linear_quantization(const onnx::NodeProto& node, const std::vector<std::size_t>& shape,
                                           const char* prefix, const std::string& label, DType* dtype) const {
  std::int64_t axis = 1;
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == "axis" && a.type() == onnx::AttributeProto_AttributeType_INT) {
      axis = a.i();
    } else if (a.name() == "block_size" && a.type() == onnx::AttributeProto_AttributeType_INT && a.i() == 0) {
      // opset 21's blocked quantization, off
    } else if (a.name() == "saturate" && a.type() == onnx::AttributeProto_AttributeType_INT) {
      // float8 outputs only; 8-bit integers always saturate
    } else {
      fail(fmt::format("{}: attribute '{}'; allowed: axis (an integer), saturate, block_size 0", label, a.name()));
    }
  }
  const auto rank = static_cast<std::int64_t>(shape.size());
  const std::int64_t a = axis < 0 ? axis + rank : axis;
  const std::size_t per_axis = a >= 0 && a < rank ? shape[static_cast<std::size_t>(a)] : 0;
  Quantization q;
  q.scales = scales(node, 1, label, fmt::format("{}_scale", prefix).c_str(), per_axis);
  if (node.input_size() > 2 && !node.input(2).empty()) {
    q.zero_points = zero_points(node, 2, label, fmt::format("{}_zero_point", prefix).c_str(), per_axis, dtype);
    if (q.zero_points.size() != q.scales.size()) {
      fail(fmt::format("{}: {} scales and {} zero points; allowed: as many", label, q.scales.size(),
                       q.zero_points.size()));
    }
  } else {
    q.zero_points = {0};  // ONNX: an omitted zero point is 0 of the caller's type (*dtype as passed)
  }
  if (q.per_axis()) q.axis = static_cast<std::size_t>(a);
  return q;
}

void Importer::read_input_quantize_linear(const onnx::NodeProto& node, const std::string& label) {
  if (node.input_size() < 2 || node.input_size() > 3 || node.output_size() != 1) {
    fail(fmt::format("{}: {} inputs and {} outputs; allowed: x, y_scale, optional y_zero_point, and 1 output", label,
                     node.input_size(), node.output_size()));
  }
  const int x = values_.at(node.input(0)).onnx;
  DType dtype = DType::kUint8;  // ONNX's y type without a zero point
  const Quantization q =
      linear_quantization(node, g_.tensors[static_cast<std::size_t>(x)].shape, "y", label, &dtype);
  // A per-axis y in ONNX's layout: the NHWC copy a convolution would read needs another axis, and
  // qparity's operators take per-tensor activations, so such a y may only leave the graph.
  if (q.per_axis() && consumers_.count(node.output(0)) != 0) {
    fail(fmt::format("{}: y '{}' is quantized per axis and read by another node; allowed: a per-axis y only as a "
                     "graph output",
                     label, node.output(0)));
  }
  const int y = output_tensor(node.output(0), dtype, q, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kQuantize;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x};
  n.outputs = {y};
  add_node(std::move(n));
}

void Importer::add_output_dequantize(const onnx::NodeProto& node, const Dequantized& d, DType dtype,
                                     const std::string& label) {
  const auto v = values_.find(d.value);
  if (v == values_.end() || dtype == DType::kInt32) {
    fail(fmt::format("{}: its float output '{}' is a graph output and its x '{}' is {}; allowed: a graph output "
                     "dequantizes an 8-bit activation (a graph input or a node's output)",
                     label, node.output(0), d.value, v == values_.end() ? "a constant" : "int32"));
  }
  const int layout_of = v->second.onnx >= 0 ? v->second.onnx : v->second.nhwc;
  DType zp_type = dtype;
  const Quantization q =
      linear_quantization(node, g_.tensors[static_cast<std::size_t>(layout_of)].shape, "x", label, &zp_type);
  if (zp_type != dtype) {
    fail(fmt::format("{}: x '{}' is {}, its zero point {}; allowed: the same type", label, d.value,
                     cli::to_string(dtype), cli::to_string(zp_type)));
  }
  if (q.per_axis() && v->second.onnx < 0) {
    fail(fmt::format("{}: x '{}' is computed in NHWC and dequantized per axis; allowed: per tensor", label, d.value));
  }
  const int x = activation(d.value, dtype, q, /*nhwc=*/false, label);
  const int y = output_tensor(node.output(0), DType::kFloat32, {}, /*nhwc=*/false, label);
  Node n;
  n.op = OpKind::kDequantize;
  n.name = node.name().empty() ? node.output(0) : node.name();
  n.inputs = {x};
  n.outputs = {y};
  add_node(std::move(n));
}

const Importer::Dequantized& Importer::dequantized(const onnx::NodeProto& node, int i, const std::string& label) const {
  if (i >= node.input_size() || node.input(i).empty()) fail(fmt::format("{}: input {} is missing", label, i));
  const auto it = dequantized_.find(node.input(i));
  if (it == dequantized_.end()) {
    fail(
        fmt::format("{}: input {} '{}' is not the output of a DequantizeLinear; allowed: quantized graphs (each float "
                    "operator between DequantizeLinear and QuantizeLinear nodes, QDQ form)",
                    label, i, node.input(i)));
  }
  return it->second;
}

bool Importer::ort_sees_uint8(int tensor, const std::string& value) const {
  const DType t = g_.tensors[static_cast<std::size_t>(tensor)].dtype;
  return t == DType::kUint8 || (t == DType::kInt8 && ort_converts_to_uint8(value));
}

bool Importer::ort_drops_activation(const onnx::NodeProto& act, const onnx::NodeProto& q, DType y_type) const {
  const std::int64_t qmin = cli::dtype_min(y_type), qmax = cli::dtype_max(y_type);
  // The QuantizeLinear's zero point (0 when omitted), and whether it and the scale are 0-D constants
  // (the form the selector's GetQScalarScaleZp takes).
  std::int64_t zp = 0;
  bool zp_scalar = true;
  if (q.input_size() == 3 && !q.input(2).empty()) {
    const auto z = constants_.find(q.input(2));
    if (z == constants_.end() || z->second.elements() != 1) return false;
    zp = z->second.integer_at(0);
    zp_scalar = z->second.shape.empty();
  }
  if (act.op_type() == "Relu") return zp == qmin;  // ReluQuantFusion and the selector alike
  const auto sc = constants_.find(q.input(1));
  if (sc == constants_.end() || sc->second.dtype != DType::kFloat32 || !sc->second.shape.empty() || !zp_scalar) {
    return false;
  }
  float scale = 0.0f;
  std::memcpy(&scale, sc->second.bytes.data(), 4);
  // Clip's bounds, the float32 limits where absent (GetClipConstantMinMax); the reader has checked
  // that present ones are float32 scalars.
  auto bound = [&](int i, float absent) {
    if (i >= act.input_size() || act.input(i).empty()) return absent;
    float v = 0.0f;
    std::memcpy(&v, constants_.at(act.input(i)).bytes.data(), 4);
    return v;
  };
  const float lo = bound(1, std::numeric_limits<float>::lowest()), hi = bound(2, std::numeric_limits<float>::max());
  // ClipQuantFusion: the quantized range [scale * (qmin - zp), scale * (qmax - zp)] inside the
  // Clip's, up to FLT_EPSILON, all in float32.
  constexpr float eps = std::numeric_limits<float>::epsilon();
  const float lower = scale * static_cast<float>(qmin - zp), upper = scale * static_cast<float>(qmax - zp);
  if (!(eps < lo - lower) && !(eps < upper - hi)) return true;
  // The selector: the Clip's bounds quantized, rint(bound / scale) + zp, reach past both ends of the
  // type; the int32 conversion of x86 (cvttss2si) gives INT32_MIN for a value outside int32.
  auto to_int32 = [](float v) {
    const float r = std::rint(v);
    return r >= -2147483648.0f && r < 2147483648.0f ? static_cast<std::int64_t>(r)
                                                    : std::int64_t{std::numeric_limits<std::int32_t>::min()};
  };
  return to_int32(lo / scale) + zp <= qmin && to_int32(hi / scale) + zp >= qmax;
}

bool Importer::ort_converts_to_uint8(const std::string& value) const {
  // A one-element int8 constant zero point at input 2 of `n` (0 when omitted and allowed).
  auto int8_zero_point = [&](const onnx::NodeProto& n, bool may_omit, std::int64_t* zp) {
    if (n.input_size() < 3 || n.input(2).empty()) {
      *zp = 0;
      return may_omit;
    }
    const auto c = constants_.find(n.input(2));
    if (c == constants_.end() || c->second.dtype != DType::kInt8 || c->second.elements() != 1) return false;
    *zp = c->second.integer_at(0);
    return true;
  };
  const auto p = producers_.find(value);
  const auto c = consumers_.find(value);
  if (p == producers_.end() || c == consumers_.end() || c->second.size() != 1 || graph_outputs_.count(value) != 0) {
    return false;
  }
  const onnx::NodeProto& q = graph_->node(p->second);
  const onnx::NodeProto& dq = graph_->node(c->second[0]);
  if (q.op_type() != "QuantizeLinear" || dq.op_type() != "DequantizeLinear" || dq.input_size() < 1 ||
      dq.input(0) != value) {
    return false;
  }
  std::int64_t q_zp = 0, dq_zp = 0;
  return int8_zero_point(q, /*may_omit=*/false, &q_zp) && int8_zero_point(dq, /*may_omit=*/true, &dq_zp) &&
         q_zp == dq_zp;
}

// A QDQ group: DequantizeLinear on each input, the float operator, an optional Relu / Clip(0, 6), one
// QuantizeLinear. It is read as the QLinear operator ONNX Runtime fuses it into (the same tensors and
// layouts), its node marked onnx_qdq: ONNX Runtime runs the group in float32 where it does not fuse
// it (model/onnx/ort_qdq_float.h), and the runtime profiles choose by that mark.
void Importer::read_qdq_group(const onnx::NodeProto& node, const std::string& label) {
  const std::string& op = node.op_type();
  if (node.output_size() != 1 || node.output(0).empty()) fail(fmt::format("{}: allowed: one output", label));
  const onnx::GraphProto& graph = *graph_;
  // The single consumer of a float value inside the group.
  auto only_consumer = [&](const std::string& value) -> const onnx::NodeProto& {
    const auto it = consumers_.find(value);
    if (it == consumers_.end() || it->second.size() != 1 || graph_outputs_.count(value) != 0) {
      fail(
          fmt::format("{}: its float output '{}' must feed exactly one QuantizeLinear (optionally through one Relu "
                      "or Clip); it has {} consumer(s){}",
                      label, value, it == consumers_.end() ? 0 : it->second.size(),
                      graph_outputs_.count(value) != 0 ? " and is a graph output" : ""));
    }
    absorbed_.insert(it->second[0]);
    return graph.node(it->second[0]);
  };
  Activation act = Activation::kNone;
  const onnx::NodeProto* act_node = nullptr;
  const onnx::NodeProto* q = &only_consumer(node.output(0));
  const bool computes = op == "Conv" || op == "MatMul" || op == "Gemm" || op == "Add" || op == "Mul";
  if (computes && q->domain().empty() && (q->op_type() == "Relu" || q->op_type() == "Clip")) {
    const onnx::NodeProto& r = *q;
    act_node = &r;
    const std::string rlabel = fmt::format("{} ({} '{}')", label, r.op_type(), r.name());
    if (r.output_size() != 1 || r.output(0).empty()) fail(fmt::format("{}: allowed: one output", rlabel));
    if (r.op_type() == "Relu") {
      act = Activation::kRelu;
    } else {
      auto bound = [&](int i, float* v) {
        if (i >= r.input_size() || r.input(i).empty()) return false;
        const Tensor& t = constant_input(r, i, rlabel, i == 1 ? "min" : "max");
        if (t.dtype != DType::kFloat32 || t.elements() != 1)
          fail(fmt::format("{}: min / max must be float32 scalars", rlabel));
        std::memcpy(v, t.bytes.data(), 4);
        return true;
      };
      float lo = 0.0f, hi = 0.0f;
      const bool has_lo = bound(1, &lo), has_hi = bound(2, &hi);
      if (has_lo && lo == 0.0f && !has_hi) {
        act = Activation::kRelu;
      } else if (has_lo && lo == 0.0f && has_hi && hi == 6.0f) {
        act = Activation::kRelu6;
      } else {
        fail(fmt::format("{}: Clip bounds; allowed: min 0 (Relu) or min 0 and max 6 (Relu6)", rlabel));
      }
    }
    q = &only_consumer(r.output(0));
  }
  if (!q->domain().empty() || q->op_type() != "QuantizeLinear") {
    fail(fmt::format("{}: its output feeds {} '{}'; allowed: a QuantizeLinear (QDQ form){}", label, q->op_type(),
                     q->name(), computes ? ", optionally after one Relu or Clip(0, 6)" : ""));
  }
  const std::string qlabel = fmt::format("{} (its QuantizeLinear '{}')", label, q->name());
  if (q->input_size() < 2 || q->input_size() > 3 || q->output_size() != 1 || q->output(0).empty()) {
    fail(fmt::format("{}: allowed: y, y_scale, optional y_zero_point, and 1 output", qlabel));
  }
  if (const onnx::AttributeProto* a = attribute(*q, "axis");
      a != nullptr && constant_input(*q, 1, qlabel, "y_scale").elements() > 1) {
    fail(fmt::format("{}: per-axis output quantization; allowed: per tensor", qlabel));
  }
  // The output's type: the zero point's, uint8 without one.
  DType y_type = DType::kUint8;
  if (q->input_size() == 3 && !q->input(2).empty()) y_type = constant_input(*q, 2, qlabel, "y_zero_point").dtype;
  // Checked here, before ort_drops_activation reads the zero point as an integer; the fused
  // QLinear operator's reader checks it again with its shape.
  if (y_type != DType::kInt8 && y_type != DType::kUint8) {
    fail(fmt::format("{}: y_zero_point '{}' is {}; allowed: int8, uint8", qlabel, q->input(2), cli::to_string(y_type)));
  }
  const std::string y_scale = q->input(1);
  const std::string y_zp = zero_point_name(*q, 2, y_type, q->output(0));
  const bool ort_keeps_activation = act_node != nullptr && !ort_drops_activation(*act_node, *q, y_type);

  // The QLinear operator ONNX Runtime's QDQ fusion makes of the group, with this group's names.
  onnx::NodeProto f;
  f.set_name(node.name().empty() ? q->output(0) : node.name());
  f.add_output(q->output(0));
  for (const onnx::AttributeProto& a : node.attribute()) *f.add_attribute() = a;
  auto add = [&](const Dequantized& d) {
    f.add_input(d.value);
    f.add_input(d.scale);
    f.add_input(d.zero_point);
  };
  auto check_per_axis = [&](const Dequantized& d, std::int64_t want, std::int64_t rank, const char* role) {
    const auto it = constants_.find(d.scale);
    if (it == constants_.end() || it->second.elements() <= 1) return;
    const std::int64_t axis = d.axis < 0 ? d.axis + rank : d.axis;
    if (axis != want) {
      fail(fmt::format("{}: the {}'s DequantizeLinear is per axis {}; allowed: axis {}", label, role, d.axis, want));
    }
  };
  // Data movement (MaxPool, Reshape, Flatten): the output quantized like the input (checked values).
  auto same_quantization = [&](const Dequantized& x) {
    onnx::NodeProto pair;
    for (const std::string* name : {&x.scale, &x.zero_point, &y_scale, &y_zp}) pair.add_input(*name);
    DType xt{}, yt{};
    return scales(pair, 0, label, "x_scale", 0) == scales(pair, 2, label, "y_scale", 0) &&
           zero_points(pair, 1, label, "x_zero_point", 0, &xt) == zero_points(pair, 3, label, "y_zero_point", 0, &yt) &&
           xt == yt;
  };
  auto require_same_quantization = [&](const Dequantized& x) {
    if (!same_quantization(x)) {
      fail(fmt::format("{}: input and output quantized differently; allowed: the same scale and zero point", label));
    }
  };
  auto activation_only = [&](const Dequantized& d, const char* role) {
    const auto it = constants_.find(d.scale);
    if (it != constants_.end() && it->second.elements() > 1) {
      fail(fmt::format("{}: the {}'s DequantizeLinear is per axis; allowed: per tensor", label, role));
    }
  };
  // A bias through DequantizeLinear (Conv's B, Gemm's C): the fused operator adds the int32 bias as
  // it is, so its scale must be x_scale * w_scale (what ONNX Runtime's quantizer writes), in float32,
  // per output channel (m = w_shape[0]), and its zero point 0. f's inputs x_index and w_index are
  // the x and W scales (validated here first).
  auto check_bias = [&](const Dequantized& b, int x_index, int w_index, const std::vector<std::size_t>& w_shape) {
    const std::size_t m = w_shape.empty() ? 1 : w_shape[0];
    const std::vector<float> xsc = scales(f, x_index, label, "x_scale", 0);
    const std::vector<float> wsc = scales(f, w_index, label, "w_scale", m);
    onnx::NodeProto bias_q;  // the bias's scale and zero point, for the checked readers
    bias_q.add_input(b.scale);
    bias_q.add_input(b.zero_point);
    const std::vector<float> bsc = scales(bias_q, 0, label, "the bias's scale", m);
    const Tensor& bz = constant_input(bias_q, 1, label, "the bias's zero point");
    for (std::size_t c = 0; c < std::max(bsc.size(), wsc.size()); ++c) {
      const float want = xsc[0] * wsc[wsc.size() == 1 ? 0 : c];
      const float have = bsc[bsc.size() == 1 ? 0 : c];
      if (have != want) {
        fail(
            fmt::format("{}: the bias's scale [{}] = {} is not x_scale * w_scale = {}; allowed: the product (ONNX "
                        "Runtime's quantizer writes it)",
                        label, c, have, want));
      }
    }
    if (bz.dtype != DType::kInt32) {
      fail(fmt::format("{}: the bias's zero point is {}; allowed: int32", label, cli::to_string(bz.dtype)));
    }
    for (std::size_t i = 0; i < bz.elements(); ++i) {
      if (bz.integer_at(i) != 0) {
        fail(fmt::format("{}: the bias's zero point is {}; allowed: 0", label, bz.integer_at(i)));
      }
    }
  };
  if (op == "Conv") {
    if (node.input_size() < 2 || node.input_size() > 3) fail(fmt::format("{}: allowed: X, W and optional B", label));
    const Dequantized& x = dequantized(node, 0, label);
    const Dequantized& w = dequantized(node, 1, label);
    activation_only(x, "X");
    check_per_axis(w, 0, 4, "W");
    f.set_op_type("QLinearConv");
    add(x);
    add(w);
    f.add_input(y_scale);
    f.add_input(y_zp);
    if (node.input_size() == 3 && !node.input(2).empty()) {
      const Dequantized& b = dequantized(node, 2, label);
      check_bias(b, 1, 4, constant_input(f, 3, label, "W").shape);
      f.add_input(b.value);
    }
    read_qlinear_conv(f, label);
    // ONNX Runtime on x86 fuses a Conv group only with uint8 activations on both sides, as its
    // selectors see them after QDQS8ToU8Transformer made int8 pairs uint8 (docs/semantics.md §22.5).
    Node& n = g_.nodes.back();
    n.ort_uint8_group = ort_sees_uint8(n.inputs[0], x.value) && ort_sees_uint8(n.outputs[0], q->output(0));
  } else if (op == "MatMul") {
    if (node.input_size() != 2) fail(fmt::format("{}: allowed: A and B", label));
    const Dequantized& a = dequantized(node, 0, label);
    const Dequantized& b = dequantized(node, 1, label);
    activation_only(a, "A");
    // An N-D or run-time B becomes a BATCH_MATMUL (read_qlinear_batch_matmul), per tensor only.
    if (const auto bc = constants_.find(b.value); bc == constants_.end() || bc->second.shape.size() != 2) {
      if (const auto sc = constants_.find(b.scale); sc != constants_.end() && sc->second.elements() > 1) {
        fail(fmt::format("{}: B '{}' is {} and its DequantizeLinear per axis; allowed: per tensor (a per-axis B "
                         "must be a 2-D constant)",
                         label, b.value, bc == constants_.end() ? "a run-time value" : "an N-D constant"));
      }
    }
    check_per_axis(b, 1, 2, "B");
    f.set_op_type("QLinearMatMul");
    add(a);
    add(b);
    f.add_input(y_scale);
    f.add_input(y_zp);
    read_qlinear_matmul(f, label);
    // As for Conv: ONNX Runtime's MatMul selector on x86 fuses only uint8 activations in and out, as
    // it sees them after QDQS8ToU8Transformer (measured: an int8 MatMul group between single-consumer
    // pairs is fused at level all; docs/semantics.md §22.5).
    Node& n = g_.nodes.back();
    n.ort_uint8_group = ort_sees_uint8(n.inputs[0], a.value) && ort_sees_uint8(n.outputs[0], q->output(0));
  } else if (op == "Gemm") {
    // Y = A * B' + C (transA 0, alpha and beta 1): FULLY_CONNECTED with a bias (zeros without C, so
    // that the node says it came from Gemm: ORT fuses Gemm groups of both types, system.cc).
    if (node.input_size() < 2 || node.input_size() > 3) fail(fmt::format("{}: allowed: A, B and optional C", label));
    for (const char* name : {"alpha", "beta"}) {
      if (const onnx::AttributeProto* at = attribute(node, name); at != nullptr && at->f() != 1.0f) {
        fail(fmt::format("{}: {} = {}; allowed: 1", label, name, at->f()));
      }
    }
    std::int64_t trans_b = 0;
    for (const char* name : {"transA", "transB"}) {
      const onnx::AttributeProto* at = attribute(node, name);
      const std::int64_t v = at == nullptr ? 0 : at->i();
      if (v != 0 && (v != 1 || std::string(name) == "transA")) {
        fail(fmt::format("{}: {} = {}; allowed: transA 0, transB 0 or 1", label, name, v));
      }
      if (std::string(name) == "transB") trans_b = v;
    }
    const Dequantized& a = dequantized(node, 0, label);
    Dequantized b = dequantized(node, 1, label);
    activation_only(a, "A");
    check_per_axis(b, trans_b == 1 ? 0 : 1, 2, "B");
    const auto bc = constants_.find(b.value);
    if (bc == constants_.end() || bc->second.shape.size() != 2) {
      fail(fmt::format("{}: B '{}' must be a 2-D constant", label, b.value));
    }
    const std::size_t units = trans_b == 1 ? bc->second.shape[0] : bc->second.shape[1];
    if (trans_b == 1) {  // MatMul's b is [K, N]: B [N, K] transposed once, at import
      const Tensor& src = bc->second;
      const std::size_t rows = src.shape[0], cols = src.shape[1], es = cli::size_of(src.dtype);
      Tensor t = cli::make_tensor(src.dtype, {cols, rows});
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < cols; ++j) {
          std::memcpy(t.bytes.data() + (j * rows + i) * es, src.bytes.data() + (i * cols + j) * es, es);
        }
      }
      b.value += ":transposed";
      constants_[b.value] = std::move(t);
    }
    f.set_op_type("QLinearMatMul");
    add(a);
    add(b);
    f.add_input(y_scale);
    f.add_input(y_zp);
    TensorDef bias;
    bias.dtype = DType::kInt32;
    bias.shape = {units};
    if (node.input_size() == 3 && !node.input(2).empty()) {
      const Dequantized& c = dequantized(node, 2, label);
      check_bias(c, 1, 4, {units});
      const auto cc = constants_.find(c.value);
      if (cc == constants_.end() || cc->second.dtype != DType::kInt32 || cc->second.shape != bias.shape) {
        fail(fmt::format("{}: C '{}' must be an int32 constant of shape [{}]", label, c.value, units));
      }
      bias.name = c.value;
      bias.data = cc->second;
    } else {
      bias.name = q->output(0) + ":bias";
      bias.data = cli::make_tensor(DType::kInt32, bias.shape);  // zeros
    }
    read_qlinear_matmul(f, label);
    g_.tensors.push_back(std::move(bias));
    g_.nodes.back().inputs[2] = static_cast<int>(g_.tensors.size()) - 1;
    g_.nodes.back().gemm_b_not_transposed = trans_b == 0;
  } else if (op == "Add" || op == "Mul") {
    if (node.input_size() != 2) fail(fmt::format("{}: allowed: A and B", label));
    const Dequantized& a = dequantized(node, 0, label);
    const Dequantized& b = dequantized(node, 1, label);
    activation_only(a, "A");
    activation_only(b, "B");
    f.set_op_type(op == "Add" ? "QLinearAdd" : "QLinearMul");
    add(a);
    add(b);
    f.add_input(y_scale);
    f.add_input(y_zp);
    read_qlinear_binary(f, label, op == "Add" ? OpKind::kAdd : OpKind::kMul);
  } else if (op == "GlobalAveragePool" || op == "AveragePool" || op == "MaxPool") {
    if (node.input_size() != 1) fail(fmt::format("{}: allowed: one input", label));
    const Dequantized& x = dequantized(node, 0, label);
    activation_only(x, "X");
    add(x);
    f.add_input(y_scale);
    f.add_input(y_zp);
    if (op == "GlobalAveragePool") {
      read_qlinear_global_average_pool(f, label);
    } else if (op == "AveragePool") {
      read_qlinear_average_pool(f, label);
    } else {
      // MAX_POOL_2D: the maximum commutes with the (monotone) dequantization; the output must keep
      // the input's quantization, as ONNX Runtime then drops the Q/DQ pair.
      require_same_quantization(x);
      read_qlinear_average_pool(f, label, OpKind::kMaxPool2D);
    }
  } else if (op == "Sigmoid" || op == "LeakyRelu") {
    // ORT fuses these into QLinearSigmoid / QLinearLeakyRelu, or runs them in float32: the same bits
    // (docs/semantics.md §22.7).
    if (node.input_size() != 1) fail(fmt::format("{}: allowed: one input", label));
    const Dequantized& x = dequantized(node, 0, label);
    activation_only(x, "X");
    f.set_op_type(op == "Sigmoid" ? "QLinearSigmoid" : "QLinearLeakyRelu");
    add(x);
    f.add_input(y_scale);
    f.add_input(y_zp);
    read_qlinear_lookup(f, label, op == "Sigmoid" ? OpKind::kLogistic : OpKind::kLeakyRelu);
  } else if (op == "Softmax") {
    // ORT fuses it into QLinearSoftmax at level basic and above; at level disabled it runs its float32
    // Softmax, which ort-cpu-unfused computes (docs/semantics.md §22.8).
    if (node.input_size() != 1) fail(fmt::format("{}: allowed: one input", label));
    const Dequantized& x = dequantized(node, 0, label);
    activation_only(x, "input");
    f.set_op_type("QLinearSoftmax");
    add(x);
    f.add_input(y_scale);
    f.add_input(y_zp);
    read_qlinear_softmax(f, label, kMinOpset);  // opset >= 13 (check_opsets): axis -1 by default
  } else if (op == "Resize") {
    // Data movement in value, not in bits: ORT runs the group in float32 at every level (measured).
    const Dequantized& x = dequantized(node, 0, label);
    activation_only(x, "X");
    require_same_quantization(x);
    onnx::NodeProto pair;
    pair.add_input(x.scale);
    pair.add_input(x.zero_point);
    Quantization xq;
    DType xt{};
    xq.scales = scales(pair, 0, label, "x_scale", 0);
    xq.zero_points = zero_points(pair, 1, label, "x_zero_point", 0, &xt);
    f.set_op_type("Resize");
    f.add_input(x.value);
    for (int i = 1; i < node.input_size(); ++i) f.add_input(node.input(i));
    read_resize(f, label, &xq);
  } else if (op == "Concat") {
    f.set_op_type("QLinearConcat");
    f.add_input(y_scale);
    f.add_input(y_zp);
    for (int i = 0; i < node.input_size(); ++i) {
      const Dequantized& x = dequantized(node, i, label);
      activation_only(x, "input");
      add(x);
    }
    read_qlinear_concat(f, label);
  } else if (op == "Transpose") {
    if (node.input_size() != 1) fail(fmt::format("{}: allowed: one input", label));
    const Dequantized& x = dequantized(node, 0, label);
    activation_only(x, "data");
    f.add_input(x.value);
    if (same_quantization(x)) {  // data movement
      read_transpose(f, label);
    } else {
      // Requantizing: ORT keeps the pair (dequantize, float transpose, MlasQuantizeLinear), the
      // formula of a QLinearConcat input quantized unlike its output; so TRANSPOSE in the input's
      // quantization, then a one-input CONCATENATION into the output's.
      const std::string moved = q->output(0) + ":transposed";
      f.set_output(0, moved);
      read_transpose(f, label);
      onnx::NodeProto c;
      c.set_name(f.name());
      c.add_output(q->output(0));
      for (const std::string* name : {&y_scale, &y_zp, &moved, &x.scale, &x.zero_point}) c.add_input(*name);
      onnx::AttributeProto* axis = c.add_attribute();
      axis->set_name("axis");
      axis->set_type(onnx::AttributeProto_AttributeType_INT);
      axis->set_i(0);
      read_qlinear_concat(c, label);
    }
  } else {  // Reshape, Flatten: data movement, one quantization on both sides
    const Dequantized& x = dequantized(node, 0, label);
    activation_only(x, "data");
    require_same_quantization(x);
    f.set_op_type(op);
    f.add_input(x.value);
    for (int i = 1; i < node.input_size(); ++i) f.add_input(node.input(i));
    read_reshape(f, label, op == "Flatten");
  }
  g_.nodes.back().onnx_qdq = true;
  g_.nodes.back().ort_keeps_activation = ort_keeps_activation;
  if (act != Activation::kNone) {
    Node& n = g_.nodes.back();
    if (n.op == OpKind::kConv2D) {
      auto o = std::make_shared<Conv2DOptions>(n.opts<Conv2DOptions>());
      o->activation = act;
      n.options = o;
    } else if (n.op == OpKind::kDepthwiseConv2D) {
      auto o = std::make_shared<DepthwiseConv2DOptions>(n.opts<DepthwiseConv2DOptions>());
      o->activation = act;
      n.options = o;
    } else if (n.op == OpKind::kFullyConnected) {
      auto o = std::make_shared<FullyConnectedOptions>(n.opts<FullyConnectedOptions>());
      o->activation = act;
      n.options = o;
    } else if (n.op == OpKind::kBatchMatMul) {
      fail(fmt::format("{}: a {} after a MatMul whose B is N-D or a run-time value; allowed: none there "
                       "(BATCH_MATMUL has no fused activation)",
                       label, act_node->op_type()));
    } else {
      auto o = std::make_shared<ElementwiseOptions>(n.opts<ElementwiseOptions>());
      o->activation = act;
      n.options = o;
    }
  }
}

void Importer::read_node(const onnx::NodeProto& node, std::size_t index) {
  const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
  const std::string label =
      fmt::format("node {} ({}{}{}{})", index, domain.empty() ? "" : domain, domain.empty() ? "" : ".", node.op_type(),
                  node.name().empty() ? "" : fmt::format(" '{}'", node.name()));
  if (domain.empty() && node.op_type() == "Constant") {
    if (node.output_size() != 1 || node.output(0).empty()) fail(fmt::format("{}: needs one named output", label));
    const onnx::AttributeProto* a = attribute(node, "value");
    if (a == nullptr || a->type() != onnx::AttributeProto_AttributeType_TENSOR || node.attribute_size() != 1) {
      fail(fmt::format("{}: allowed: a single 'value' tensor attribute", label));
    }
    if (constants_.count(node.output(0)) != 0 || values_.count(node.output(0)) != 0) {
      fail(fmt::format("{}: output '{}' is already defined", label, node.output(0)));
    }
    constants_.emplace(node.output(0), read_tensor_proto(a->t(), label + " value"));
    return;
  }
  if (domain.empty() && node.op_type() == "DequantizeLinear") return read_dequantize_linear(node, label);
  static const std::set<std::string> kQdqOps = {
      "Conv",        "MatMul",  "Gemm",    "Add",     "Mul",       "GlobalAveragePool", "AveragePool",
      "MaxPool",     "Concat",  "Reshape", "Flatten", "Transpose", "Sigmoid",           "LeakyRelu",
      "Softmax",     "Resize"};
  if (domain.empty() && kQdqOps.count(node.op_type()) != 0 && node.input_size() > 0 &&
      dequantized_.count(node.input(0)) != 0) {
    return read_qdq_group(node, label);
  }
  if (domain.empty() && node.op_type() == "QuantizeLinear" && node.input_size() > 0 &&
      values_.count(node.input(0)) != 0 && values_.at(node.input(0)).onnx >= 0 &&
      std::count(g_.inputs.begin(), g_.inputs.end(), values_.at(node.input(0)).onnx) != 0 &&
      g_.tensors[static_cast<std::size_t>(values_.at(node.input(0)).onnx)].dtype == DType::kFloat32) {
    return read_input_quantize_linear(node, label);
  }
  if (domain.empty() && (node.op_type() == "QuantizeLinear" || node.op_type() == "Relu" || node.op_type() == "Clip")) {
    fail(fmt::format(
        "{}: not part of a QDQ group qparity reads; allowed: QuantizeLinear of a float32 graph input, or "
        "DequantizeLinear -> Conv, MatMul, Gemm, Add, Mul, "
        "GlobalAveragePool, AveragePool, MaxPool, Concat, Reshape, Flatten, Transpose, Sigmoid, LeakyRelu, "
        "Softmax or Resize (Conv, MatMul, Gemm, Add, Mul: "
        "optionally then Relu or Clip(0, 6)) -> QuantizeLinear",
        label));
  }
  if (domain.empty() && node.op_type() == "QLinearConv") return read_qlinear_conv(node, label);
  if (domain.empty() && node.op_type() == "QLinearMatMul") return read_qlinear_matmul(node, label);
  if (domain.empty() && node.op_type() == "MatMulInteger") return read_matmul_integer(node, label);
  if (domain.empty() && node.op_type() == "ConvInteger") return read_conv_integer(node, label);
  if (domain.empty() && (node.op_type() == "Cast" || node.op_type() == "DynamicQuantizeLinear")) {
    fail(
        fmt::format("{}: qparity does not run {} (the float part of a dynamic-quantized model); allowed: models "
                    "whose outputs are ConvInteger's or MatMulInteger's int32 results",
                    label, node.op_type()));
  }
  if (domain.empty() && node.op_type() == "Resize") return read_resize(node, label, nullptr);
  if (domain.empty() && node.op_type() == "Flatten") return read_reshape(node, label, /*flatten=*/true);
  if (domain.empty() && node.op_type() == "Reshape") return read_reshape(node, label, /*flatten=*/false);
  if (domain == "com.microsoft" && node.op_type() == "QLinearMul") {
    return read_qlinear_binary(node, label, OpKind::kMul);
  }
  if (domain == "com.microsoft" && node.op_type() == "QLinearAdd") {
    return read_qlinear_binary(node, label, OpKind::kAdd);
  }
  if (domain == "com.microsoft" && node.op_type() == "QLinearGlobalAveragePool") {
    return read_qlinear_global_average_pool(node, label);
  }
  if (domain == "com.microsoft" && node.op_type() == "QLinearConcat") return read_qlinear_concat(node, label);
  if (domain == "com.microsoft" && node.op_type() == "QLinearAveragePool") {
    return read_qlinear_average_pool(node, label);
  }
  if (domain == "com.microsoft" && node.op_type() == "QLinearSigmoid") {
    return read_qlinear_lookup(node, label, OpKind::kLogistic);
  }
  if (domain == "com.microsoft" && node.op_type() == "QLinearLeakyRelu") {
    return read_qlinear_lookup(node, label, OpKind::kLeakyRelu);
  }
  if (domain == "com.microsoft" && node.op_type() == "QLinearSoftmax") {
    const onnx::AttributeProto* a = attribute(node, "opset");
    if (a == nullptr || a->type() != onnx::AttributeProto_AttributeType_INT) {
      fail(fmt::format("{}: needs the int attribute opset (ONNX Runtime requires it)", label));
    }
    return read_qlinear_softmax(node, label, a->i());
  }
  if (domain.empty() && kQdqOps.count(node.op_type()) != 0) {
    fail(
        fmt::format("{}: input '{}' is a float value that no DequantizeLinear produced; qparity reads float "
                    "operators only between DequantizeLinear and QuantizeLinear nodes (QDQ form)",
                    label, node.input_size() > 0 ? node.input(0) : std::string()));
  }
  fail(fmt::format(
      "{}: qparity does not run this operator; allowed: QLinearConv (2-D), "
      "QLinearMatMul, ConvInteger (2-D), MatMulInteger, com.microsoft.QLinearAdd / "
      "QLinearMul / QLinearGlobalAveragePool / QLinearConcat / QLinearAveragePool / QLinearSigmoid / "
      "QLinearLeakyRelu / QLinearSoftmax, Flatten / Reshape of their outputs, Resize (linear, nearest) of 8-bit values, "
      "Constant, and QDQ groups (DequantizeLinear -> Conv, MatMul, Gemm, Add, Mul, GlobalAveragePool, "
      "AveragePool, MaxPool, Concat, Reshape, Flatten, Transpose, Sigmoid, LeakyRelu, Softmax or Resize -> "
      "QuantizeLinear)",
      label));
}

Graph Importer::read(const onnx::ModelProto& model) {
  check_opsets(model);
  if (!model.has_graph()) fail("the model has no graph");
  const onnx::GraphProto& graph = model.graph();
  if (static_cast<std::size_t>(graph.node_size()) > limits_.max_nodes) {
    fail(fmt::format("{} nodes; allowed: at most {}", graph.node_size(), limits_.max_nodes));
  }
  if (static_cast<std::size_t>(graph.initializer_size()) > limits_.max_tensors) {
    fail(fmt::format("{} initializers; allowed: at most {}", graph.initializer_size(), limits_.max_tensors));
  }
  if (graph.sparse_initializer_size() != 0) fail("the graph has sparse initializers; allowed: dense ones");
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const onnx::TensorProto& t = graph.initializer(i);
    const std::string label = fmt::format("initializer {} '{}'", i, t.name());
    if (t.name().empty()) fail(fmt::format("{} has no name", label));
    if (constants_.count(t.name()) != 0) fail(fmt::format("{} is defined twice", label));
    constants_.emplace(t.name(), read_tensor_proto(t, label));
  }
  for (int i = 0; i < graph.output_size(); ++i) graph_outputs_.insert(graph.output(i).name());
  read_inputs(graph);
  graph_ = &graph;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string& in : graph.node(i).input()) {
      std::vector<int>& c = consumers_[in];
      if (c.empty() || c.back() != i) c.push_back(i);
    }
    for (const std::string& out : graph.node(i).output()) producers_.emplace(out, i);
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    if (absorbed_.count(i) == 0) read_node(graph.node(i), static_cast<std::size_t>(i));
  }
  if (graph.output_size() == 0) fail("the graph has no outputs");
  for (int i = 0; i < graph.output_size(); ++i) {
    const std::string& out = graph.output(i).name();
    const auto it = values_.find(out);
    if (it == values_.end()) {
      fail(
          fmt::format("graph output {} '{}' is not computed by any node qparity read (an initializer or an unknown "
                      "name)",
                      i, out));
    }
    Value& v = it->second;
    if (v.onnx < 0) v.onnx = add_transpose(v.nhwc, out, {0, 3, 1, 2});
    g_.outputs.push_back(v.onnx);
  }
  validate(g_);
  return std::move(g_);
}

}  // namespace

bool named_like_onnx(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

Graph read_onnx(const std::vector<std::uint8_t>& bytes, const std::string& name, const ModelLimits& limits) {
  if (bytes.size() > kMaxModelBytes) {
    model_error(name, fmt::format("{} bytes; allowed: less than 2 GiB (protobuf's limit)", bytes.size()));
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    model_error(name, "not an ONNX model (the protobuf does not parse: truncated or not a ModelProto)");
  }
  Importer importer(name, limits);
  return importer.read(model);
}

Graph read_onnx_file(const std::string& path, const ModelLimits& limits) {
  return read_onnx(cli::read_input_file(path, {"an ONNX model", kMaxModelBytes + 1, "less than 2 GiB (protobuf's limit)"}),
                   path, limits);
}

}  // namespace qparity::model
