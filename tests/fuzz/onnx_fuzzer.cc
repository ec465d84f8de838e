// libFuzzer target: the .onnx reader (tools/model/onnx/onnx_reader.h) on arbitrary bytes, then for
// small models it accepts a run of every node under ORT's CPU profiles (fused and unfused QDQ) with
// zero-filled inputs.
// Every failure must be a ToolError naming the model ("fuzz.onnx: ..."); any other exception
// escapes and is a finding, as is any crash, leak or undefined behaviour (ASan + UBSan).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "model/system.h"
#include "tool_error.h"

namespace {

bool named(const qparity::cli::ToolError& e) {
  return std::string(e.what()).rfind("fuzz.onnx", 0) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace qparity::model;
  const std::vector<std::uint8_t> bytes(data, data + size);
  ModelLimits limits;
  limits.max_tensors = 4096;
  limits.max_nodes = 1024;
  limits.max_tensor_bytes = std::size_t{1} << 20;  // the fuzzer's memory, not the format's limit
  Graph g;
  try {
    g = read_onnx(bytes, "fuzz.onnx", limits);
  } catch (const qparity::cli::ToolError& e) {
    if (!named(e)) std::abort();
    return 0;
  }
  std::size_t bytes_total = 0;
  for (const TensorDef& t : g.tensors) {
    std::size_t n = 0;
    qparity::cli::checked_elements(t.shape, qparity::cli::size_of(t.dtype), &n);
    bytes_total += n * qparity::cli::size_of(t.dtype);
  }
  if (bytes_total > (std::size_t{1} << 22) || g.nodes.size() > 64) return 0;
  for (const char* profile : {"ort-cpu-avx2", "ort-cpu-vnni", "ort-cpu-unfused"}) {
    try {
      const Profile p = find_profile(profile);
      std::vector<System> systems;
      for (const Node& n : g.nodes) systems.push_back(p.pick(g, n));
      Runner r(g, systems, Engine::kReference);
      std::vector<qparity::cli::Tensor> inputs;
      for (int t : g.inputs) {
        const TensorDef& d = g.tensors[static_cast<std::size_t>(t)];
        inputs.push_back(qparity::cli::make_tensor(d.dtype, d.shape));
      }
      r.run(inputs);
    } catch (const qparity::cli::ToolError& e) {
      if (!named(e)) std::abort();
    }
  }
  return 0;
}
