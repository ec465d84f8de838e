// libFuzzer target: the .tflite reader (tools/model/tflite/tflite_reader.h) on arbitrary bytes, then
// on what it accepts: the writer and the reader again (the graph must survive the round trip), and
// for small models a run of every node under two systems with zero-filled inputs. Every failure must
// be a ToolError naming the model ("fuzz.tflite: ..."); any other exception escapes and is a finding,
// as is any crash, leak or undefined behaviour (ASan + UBSan).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/runner.h"
#include "model/system.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "tool_error.h"

namespace {

bool named(const qparity::cli::ToolError& e) { return std::string(e.what()).rfind("fuzz.tflite", 0) == 0; }

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
    g = read_tflite(bytes, "fuzz.tflite", limits);
  } catch (const qparity::cli::ToolError& e) {
    if (!named(e)) std::abort();
    return 0;
  }
  // What the reader accepted, the writer writes and the reader reads back alike.
  try {
    const Graph again = read_tflite(write_tflite(g), "fuzz.tflite", limits);
    if (again.nodes.size() != g.nodes.size() || again.tensors.size() != g.tensors.size()) std::abort();
  } catch (const qparity::cli::ToolError& e) {
    if (!named(e)) std::abort();
  }
  // Small models run: every op's prepare and run on zero inputs, under two op styles.
  std::size_t bytes_total = 0;
  for (const TensorDef& t : g.tensors) {
    std::size_t n = 0;
    qparity::cli::checked_elements(t.shape, qparity::cli::size_of(t.dtype), &n);
    bytes_total += n * qparity::cli::size_of(t.dtype);
  }
  if (bytes_total > (std::size_t{1} << 22) || g.nodes.size() > 64) return 0;
  for (const char* preset : {"tflite-reference", "xnnpack-fp32"}) {
    try {
      Runner r(g, {system_of_preset(qparity::find_preset(preset))}, Engine::kReference);
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
