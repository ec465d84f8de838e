#include "model/tflite/tflite_writer.h"

#include <fmt/format.h>
#include <flatbuffers/flatbuffers.h>

#include <map>
#include <utility>

#include "model/op.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

namespace {

tflite::TensorType tflite_type(DType d) {
  switch (d) {
    case DType::kInt8: return tflite::TensorType_INT8;
    case DType::kUint8: return tflite::TensorType_UINT8;
    case DType::kInt16: return tflite::TensorType_INT16;
    case DType::kInt32: return tflite::TensorType_INT32;
    case DType::kInt64: return tflite::TensorType_INT64;
    case DType::kFloat32: return tflite::TensorType_FLOAT32;
    case DType::kFloat16: return tflite::TensorType_FLOAT16;
    case DType::kFloat64: return tflite::TensorType_FLOAT64;
  }
  return tflite::TensorType_FLOAT32;
}

}  // namespace

std::vector<std::uint8_t> write_tflite(const Graph& g, const std::string& description) {
  flatbuffers::FlatBufferBuilder b(1024);
  // Buffer 0 is the empty sentinel every non-constant tensor points at.
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
  buffers.push_back(tflite::CreateBuffer(b));
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    const TensorDef& d = g.tensors[t];
    std::uint32_t buffer = 0;
    if (d.constant()) {
      b.ForceVectorAlignment(d.data->bytes.size(), 1, 16);
      const auto data = b.CreateVector(d.data->bytes);
      buffer = static_cast<std::uint32_t>(buffers.size());
      buffers.push_back(tflite::CreateBuffer(b, data));
    }
    std::vector<std::int32_t> shape;
    for (std::size_t v : d.shape) {
      if (v > 0x7FFFFFFFu) throw ToolError(fmt::format("{}: shape {} does not fit a .tflite int32 dimension", g.tensor_label(static_cast<int>(t)), cli::shape_text(d.shape)));
      shape.push_back(static_cast<std::int32_t>(v));
    }
    flatbuffers::Offset<tflite::QuantizationParameters> quant = 0;
    if (d.quant.present()) {
      std::vector<std::int64_t> zps = d.quant.zero_points;
      if (zps.empty()) zps.assign(d.quant.scales.size(), 0);
      quant = tflite::CreateQuantizationParameters(b, 0, 0, b.CreateVector(d.quant.scales), b.CreateVector(zps),
                                                   static_cast<std::int32_t>(d.quant.axis));
    }
    tensors.push_back(tflite::CreateTensor(b, b.CreateVector(shape), tflite_type(d.dtype), buffer,
                                           b.CreateString(d.name), quant));
  }
  // One operator code per (builtin code, version) in first-use order.
  std::map<std::pair<int, int>, std::uint32_t> code_index;
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
  std::vector<flatbuffers::Offset<tflite::Operator>> ops;
  for (const Node& n : g.nodes) {
    const int code = tflite_code_of(n.op);
    if (code < 0) throw ToolError(fmt::format("{}: {} has no .tflite operator", g.source, to_string(n.op)));
    const int version = n.version > 0 ? n.version : tflite_version_of(n.op);
    auto it = code_index.find({code, version});
    if (it == code_index.end()) {
      const auto small = static_cast<std::int8_t>(code < 127 ? code : 127);  // 127: see builtin_code
      codes.push_back(tflite::CreateOperatorCode(b, small, 0, version, static_cast<tflite::BuiltinOperator>(code)));
      it = code_index.emplace(std::make_pair(code, version), static_cast<std::uint32_t>(codes.size() - 1)).first;
    }
    const TfliteOptions o = op_of(n.op).write_tflite(b, n);
    const auto inputs = b.CreateVector(n.inputs);
    const auto outputs = b.CreateVector(n.outputs);
    tflite::OperatorBuilder op(b);
    op.add_opcode_index(it->second);
    op.add_inputs(inputs);
    op.add_outputs(outputs);
    if (o.type != 0) {
      op.add_builtin_options_type(static_cast<tflite::BuiltinOptions>(o.type));
      op.add_builtin_options(flatbuffers::Offset<void>(o.offset));
    }
    ops.push_back(op.Finish());
  }
  const auto subgraph = tflite::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(g.inputs),
                                               b.CreateVector(g.outputs), b.CreateVector(ops), b.CreateString("main"));
  std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs{subgraph};
  const auto model = tflite::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(subgraphs),
                                         b.CreateString(description), b.CreateVector(buffers));
  tflite::FinishModelBuffer(b, model);
  return std::vector<std::uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace qparity::model
