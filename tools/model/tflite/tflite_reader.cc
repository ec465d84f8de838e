#include "model/tflite/tflite_reader.h"

#include <fmt/format.h>
#include <flatbuffers/flatbuffers.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "model/op.h"
#include "tflite_subset_generated.h"
#include "input_files.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

namespace {

[[noreturn]] void model_error(const std::string& name, const std::string& problem) {
  throw ToolError(fmt::format("{}: {}", name, problem));
}

bool dtype_of(tflite::TensorType t, DType* out) {
  switch (t) {
    case tflite::TensorType_INT8: *out = DType::kInt8; return true;
    case tflite::TensorType_UINT8: *out = DType::kUint8; return true;
    case tflite::TensorType_INT16: *out = DType::kInt16; return true;
    case tflite::TensorType_INT32: *out = DType::kInt32; return true;
    case tflite::TensorType_INT64: *out = DType::kInt64; return true;
    case tflite::TensorType_FLOAT32: *out = DType::kFloat32; return true;
    case tflite::TensorType_FLOAT16: *out = DType::kFloat16; return true;  // fp16-quantized weights
    default: return false;
  }
}

std::string type_name(tflite::TensorType t) {
  const char* n = tflite::EnumNameTensorType(t);
  return n != nullptr && *n != '\0' ? std::string(n) : fmt::format("type {}", static_cast<int>(t));
}

std::string op_code_name(int code) {
  if (code >= 0 && code <= tflite::BuiltinOperator_MAX) {
    const char* n = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
    if (n != nullptr && *n != '\0') return n;
  }
  return fmt::format("builtin operator {}", code);
}

std::string supported_ops() {
  std::size_t n = 0;
  const OpKind* ops = all_ops(&n);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) {
    if (tflite_code_of(ops[i]) >= 0) names.emplace_back(to_string(ops[i]));  // -1: .onnx-only ops
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

TensorDef read_tensor(const tflite::Model& model, const tflite::Tensor& t, std::size_t index,
                      const std::string& name, const ModelLimits& limits) {
  const std::string label = fmt::format("tensor {}{}", index, t.name() ? fmt::format(" '{}'", t.name()->str()) : "");
  TensorDef d;
  d.name = t.name() ? t.name()->str() : fmt::format("tensor_{}", index);
  if (!dtype_of(t.type(), &d.dtype)) {
    model_error(name, fmt::format("{} has element type {}; allowed: INT8, UINT8, INT16, INT32, INT64, FLOAT16, FLOAT32",
                                  label, type_name(t.type())));
  }
  if (t.is_variable()) model_error(name, fmt::format("{} is a variable tensor; allowed: stateless models", label));
  if (t.shape() != nullptr) {
    if (t.shape()->size() > limits.max_rank) {
      model_error(name, fmt::format("{} has rank {}; allowed: at most {}", label, t.shape()->size(), limits.max_rank));
    }
    for (std::size_t i = 0; i < t.shape()->size(); ++i) {
      const int v = t.shape()->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (v < 0) {
        model_error(name, fmt::format("{} has shape dimension {} = {}; allowed: >= 0 (dynamic shapes are not "
                                      "supported)", label, i, v));
      }
      d.shape.push_back(static_cast<std::size_t>(v));
    }
  }
  std::size_t elements = 0;
  if (!cli::checked_elements(d.shape, cli::size_of(d.dtype), &elements) ||
      elements * cli::size_of(d.dtype) > limits.max_tensor_bytes) {
    model_error(name, fmt::format("{} of shape {} ({}) is larger than the {} bytes a tensor may have", label,
                                  cli::shape_text(d.shape), cli::to_string(d.dtype), limits.max_tensor_bytes));
  }
  if (const tflite::QuantizationParameters* q = t.quantization()) {
    if (q->scale() != nullptr) {
      for (float s : *q->scale()) d.quant.scales.push_back(s);
    }
    if (const auto* zp = q->zero_point()) {
      // The Verifier checks a vector's length field for 4-byte alignment, not its 8-byte elements
      // (found by tflite_fuzzer: a misaligned int64 load); read them as bytes. The format is
      // little-endian, as are the hosts qparity builds for.
      const std::uint8_t* raw = zp->Data();
      for (std::size_t i = 0; i < zp->size(); ++i) {
        std::int64_t z = 0;
        std::memcpy(&z, raw + i * sizeof z, sizeof z);
        d.quant.zero_points.push_back(z);
      }
    }
    if (!d.quant.scales.empty()) {
      for (std::size_t i = 0; i < d.quant.scales.size(); ++i) {
        const float s = d.quant.scales[i];
        if (!std::isfinite(s) || !(s > 0.0f)) {
          model_error(name, fmt::format("{} has scale[{}] = {}; allowed: finite and > 0", label, i, s));
        }
      }
      const std::size_t nz = d.quant.zero_points.size();
      if (nz != 0 && nz != 1 && nz != d.quant.scales.size()) {
        model_error(name, fmt::format("{} has {} scales and {} zero points; allowed: as many zero points as scales",
                                      label, d.quant.scales.size(), nz));
      }
      const int axis = q->quantized_dimension();
      if (d.quant.scales.size() > 1) {
        if (axis < 0 || static_cast<std::size_t>(axis) >= d.shape.size() ||
            d.shape[static_cast<std::size_t>(axis)] != d.quant.scales.size()) {
          model_error(name, fmt::format("{} has {} scales along dimension {} of shape {}; allowed: one per index of "
                                        "that dimension", label, d.quant.scales.size(), axis, cli::shape_text(d.shape)));
        }
        d.quant.axis = static_cast<std::size_t>(axis);
      } else if (axis > 0 && static_cast<std::size_t>(axis) < d.shape.size()) {
        // One scale with a quantized_dimension other than 0: per-tensor arithmetic everywhere, but
        // XNNPACK's delegate refuses such 8-bit tensors for most ops (CheckTensorQInt8OrQUInt8Type),
        // so the op's xnnpack_takes needs it (ops/op_variants.h xnnpack_per_tensor_8bit).
        d.quant.axis = static_cast<std::size_t>(axis);
      }
    } else if (!d.quant.zero_points.empty()) {
      // Zero points without scales: not quantized (some converters write a lone 0).
      d.quant.zero_points.clear();
    }
  }
  // Constant data: a non-empty buffer other than the sentinel 0.
  const std::uint32_t b = t.buffer();
  const auto* buffers = model.buffers();
  if (b != 0) {
    if (buffers == nullptr || b >= buffers->size()) {
      model_error(name, fmt::format("{} names buffer {}; the model has {} buffers", label, b,
                                    buffers == nullptr ? 0 : buffers->size()));
    }
    const tflite::Buffer* buf = buffers->Get(b);
    if (buf->offset() > 1) {
      model_error(name, fmt::format("{} keeps its data outside the flatbuffer (buffer {} at offset {}); allowed: "
                                    "data inside the file (models under 2 GiB)", label, b, buf->offset()));
    }
    if (buf->data() != nullptr && buf->data()->size() != 0) {
      const std::size_t bytes = elements * cli::size_of(d.dtype);
      if (buf->data()->size() != bytes) {
        model_error(name, fmt::format("{} has {} bytes of data in buffer {}; its shape {} and type {} need {}", label,
                                      buf->data()->size(), b, cli::shape_text(d.shape), cli::to_string(d.dtype), bytes));
      }
      Tensor data = cli::make_tensor(d.dtype, d.shape);
      if (bytes != 0) std::memcpy(data.bytes.data(), buf->data()->data(), bytes);
      d.data = std::move(data);
    }
  }
  if (d.dtype == DType::kFloat16 && !d.data) {
    // TFLite's float16 quantization writes FLOAT16 constants only (weights a DEQUANTIZE converts).
    model_error(name, fmt::format("{} is a FLOAT16 tensor without data; allowed: FLOAT16 for constant tensors "
                                  "(float16-quantized weights, read through a DEQUANTIZE)", label));
  }
  return d;
}

}  // namespace

bool looks_like_tflite(const std::vector<std::uint8_t>& head) {
  return head.size() >= 8 && std::memcmp(head.data() + 4, "TFL3", 4) == 0;
}

Graph read_tflite(const std::vector<std::uint8_t>& bytes, const std::string& name, const ModelLimits& limits) {
  if (bytes.size() < 8) model_error(name, fmt::format("{} bytes is too short for a .tflite model", bytes.size()));
  if (!looks_like_tflite(bytes)) {
    model_error(name, "not a .tflite model (no \"TFL3\" file identifier at byte 4)");
  }
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    model_error(name, fmt::format("{} bytes; allowed: less than 2 GiB (the flatbuffer limit)", bytes.size()));
  }
  // Depth and table limits bound the Verifier's own work on hostile files.
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), /*max_depth=*/64,
                                 /*max_tables=*/4 * limits.max_tensors + 4 * limits.max_nodes + 1024);
  if (!tflite::VerifyModelBuffer(verifier)) {
    model_error(name, "the flatbuffer does not verify (truncated or corrupt .tflite file: an offset, size or "
                      "table points outside the file)");
  }
  const tflite::Model* model = tflite::GetModel(bytes.data());
  if (model->version() != 3) {
    model_error(name, fmt::format("schema version {}; allowed: 3", model->version()));
  }
  if (model->subgraphs() == nullptr || model->subgraphs()->size() == 0) model_error(name, "the model has no subgraph");
  const tflite::SubGraph* sg = model->subgraphs()->Get(0);
  Graph g;
  g.source = name;
  const auto* tensors = sg->tensors();
  const auto* ops = sg->operators();
  const std::size_t nt = tensors ? tensors->size() : 0;
  const std::size_t nops = ops ? ops->size() : 0;
  if (nt > limits.max_tensors) model_error(name, fmt::format("{} tensors; allowed: at most {}", nt, limits.max_tensors));
  if (nops > limits.max_nodes) model_error(name, fmt::format("{} operators; allowed: at most {}", nops, limits.max_nodes));
  g.tensors.reserve(nt);
  for (std::size_t i = 0; i < nt; ++i) {
    g.tensors.push_back(read_tensor(*model, *tensors->Get(static_cast<flatbuffers::uoffset_t>(i)), i, name, limits));
  }
  auto read_list = [&](const flatbuffers::Vector<std::int32_t>* v, const std::string& what, bool allow_absent) {
    std::vector<int> out;
    if (v == nullptr) return out;
    for (std::size_t i = 0; i < v->size(); ++i) {
      const int t = v->Get(static_cast<flatbuffers::uoffset_t>(i));
      if ((t < 0 && !(allow_absent && t == -1)) || (t >= 0 && static_cast<std::size_t>(t) >= nt)) {
        model_error(name, fmt::format("{}[{}] = {}; allowed: 0 to {}{}", what, i, t, static_cast<long long>(nt) - 1,
                                      allow_absent ? ", or -1 for an omitted input" : ""));
      }
      out.push_back(t);
    }
    return out;
  };
  g.inputs = read_list(sg->inputs(), "subgraph inputs", false);
  g.outputs = read_list(sg->outputs(), "subgraph outputs", false);
  const auto* codes = model->operator_codes();
  for (std::size_t i = 0; i < nops; ++i) {
    const tflite::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(i));
    const std::string label = fmt::format("{}: operator {}", name, i);
    if (codes == nullptr || op->opcode_index() >= codes->size()) {
      model_error(name, fmt::format("operator {} has opcode_index {}; the model has {} operator codes", i,
                                    op->opcode_index(), codes == nullptr ? 0 : codes->size()));
    }
    const tflite::OperatorCode* oc = codes->Get(op->opcode_index());
    // The int8 field holds codes up to 127 (127 = "see builtin_code"); the int32 field is the truth
    // when it is set. Old files have only the int8 field.
    const int code = std::max<int>(oc->deprecated_builtin_code(), static_cast<int>(oc->builtin_code()));
    if (code == tflite::BuiltinOperator_CUSTOM) {
      model_error(name, fmt::format("operator {} is the custom op '{}'; allowed: the builtin ops {}", i,
                                    oc->custom_code() ? oc->custom_code()->str() : "", supported_ops()));
    }
    Node node;
    if (!op_from_tflite_code(code, &node.op)) {
      model_error(name, fmt::format("operator {} is {}, which qparity does not run; allowed: {}", i,
                                    op_code_name(code), supported_ops()));
    }
    node.version = oc->version();
    node.file_index = i;
    node.inputs = read_list(op->inputs(), fmt::format("operator {} inputs", i), true);
    node.outputs = read_list(op->outputs(), fmt::format("operator {} outputs", i), false);
    if (node.outputs.empty()) model_error(name, fmt::format("operator {} ({}) has no outputs", i, to_string(node.op)));
    node.name = g.tensors[static_cast<std::size_t>(node.outputs[0])].name;
    node.options = op_of(node.op).read_tflite(*op, fmt::format("{} ({})", label, to_string(node.op)));
    // The graph's conv-like ops are accumulate-only with an int32 output (ONNX ConvInteger and
    // MatMulInteger, int32_accumulate.h); TFLite has no such operator and would refuse the file.
    const bool conv_like = node.op == OpKind::kConv2D || node.op == OpKind::kDepthwiseConv2D ||
                           node.op == OpKind::kFullyConnected;
    if (conv_like && g.tensors[static_cast<std::size_t>(node.outputs[0])].dtype == DType::kInt32) {
      model_error(name, fmt::format("operator {} ({}) has an int32 output; allowed: int8, uint8 or float32 "
                                    "(TFLite's kernels have no int32-output form)", i, to_string(node.op)));
    }
    g.nodes.push_back(std::move(node));
  }
  validate(g);
  return g;
}

Graph read_tflite_file(const std::string& path, const ModelLimits& limits) {
  return read_tflite(cli::read_input_file(path, {"a .tflite model", FLATBUFFERS_MAX_BUFFER_SIZE,
                                                 "less than 2 GiB (the flatbuffer limit)"}),
                     path, limits);
}

}  // namespace qparity::model
