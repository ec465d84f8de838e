#include "model_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "model/onnx/onnx_reader.h"
#include "model/tflite/tflite_reader.h"
#include "npy.h"
#include "tool_error.h"

namespace qparity::cli {

model::Graph load_model(const std::string& path) {
  // A .tflite is recognised by its "TFL3" identifier whatever its name; protobuf has no magic
  // number, so ONNX goes by the .onnx extension. The readers name the file in every message.
  std::vector<std::uint8_t> head(8);
  {
    std::ifstream in(path, std::ios::binary);
    if (in) in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
    head.resize(in ? head.size() : static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  }
  if (!model::looks_like_tflite(head) && model::named_like_onnx(path)) return model::read_onnx_file(path);
  return model::read_tflite_file(path);
}

std::vector<Tensor> model_inputs(const model::Graph& g, const std::string& files, std::uint64_t seed) {
  std::vector<Tensor> out;
  if (files.empty()) {
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const model::TensorDef& t = g.tensors[static_cast<std::size_t>(g.inputs[i])];
      if (t.dtype == DType::kFloat32) {
        Tensor raw = generate_tensor(DType::kInt16, t.shape, seed + i, -128, 127);
        Tensor f = make_tensor(DType::kFloat32, t.shape);
        for (std::size_t k = 0; k < raw.elements(); ++k) {
          const float v = static_cast<float>(raw.integer_at(k)) / 128.0f;
          std::memcpy(f.bytes.data() + 4 * k, &v, 4);
        }
        out.push_back(std::move(f));
      } else if (t.dtype == DType::kInt64) {
        throw ToolError(fmt::format("{}: input {} is int64; give it with --input", g.source, g.tensor_label(g.inputs[i])));
      } else {
        out.push_back(generate_tensor(t.dtype, t.shape, seed + i, dtype_min(t.dtype), dtype_max(t.dtype)));
      }
    }
    return out;
  }
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= files.size()) {
    const auto comma = files.find(',', start);
    names.push_back(files.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (names.size() != g.inputs.size()) {
    throw ToolError(fmt::format("--input: {} file(s) for the {} input(s) of {}; allowed: one .npy per input, "
                                "comma-separated, in the model's input order", names.size(), g.inputs.size(), g.source));
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    Tensor t = read_npy(names[i]);
    const model::TensorDef& d = g.tensors[static_cast<std::size_t>(g.inputs[i])];
    if (t.dtype != d.dtype || t.shape != d.shape) {
      throw ToolError(fmt::format("--input: {} is {} {}; {} input {} ({}) is {} {}", names[i], to_string(t.dtype),
                                  shape_text(t.shape), g.source, i, d.name, to_string(d.dtype), shape_text(d.shape)));
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace qparity::cli
