// _run_layer(): one layer through the CLI's layer parser and runner (layer.h, layer_runner.h), so
// that conv2d & co. take `qparity run`'s parameters, checks and messages and give its bits. The
// package builds the layer JSON from the keyword arguments (python/qparity/__init__.py).
// Under a float precision (fp32, fp16, fp16-acc16, bf16) the layer is a float layer (float32
// input, filter and bias) and runs as `qparity run --stack` runs a float stack: a one-layer stack's
// graph (stack_model.h) through the model runner, so the bits are Model.run's on the same layer.
#include <optional>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arguments.h"
#include "bindings.h"
#include "layer.h"
#include "layer_runner.h"
#include "model/node_map.h"
#include "model/runner.h"
#include "numpy_tensor.h"
#include "qparity/float_precision.h"
#include "stack_model.h"
#include "tool_error.h"

namespace qparity::python {
namespace {

using cli::DType;
using cli::Tensor;

py::array run_layer(const std::string& type_name, const std::string& params_json, const py::handle& input,
                    const py::handle& filter, const py::handle& bias, const std::string& preset_name,
                    const std::optional<std::string>& accumulator, bool reference) {
  cli::LayerSources sources;
  cli::LayerType type{};
  if (!cli::layer_type_from_string(type_name, &type)) {
    throw py::value_error("type: '" + type_name + "'; allowed: conv2d, depthwise_conv2d, fully_connected");
  }
  sources.type = type;
  const bool float_layer = find_float_precision(preset_name) != nullptr;
  if (float_layer && accumulator) {
    throw py::value_error("accumulator: '" + *accumulator + "' with the float precision '" + preset_name +
                          "'; allowed: None (a float precision sets its own accumulator format)");
  }
  const Tensor in = float_layer ? tensor_from_array(input, "input", {DType::kFloat32})
                                : tensor_from_array(input, "input", {DType::kInt8, DType::kUint8});
  sources.filter = tensor_from_array(filter, "filter", {float_layer ? DType::kFloat32 : DType::kInt8});
  if (!bias.is_none()) sources.bias = tensor_from_array(bias, "bias", {float_layer ? DType::kFloat32 : DType::kInt32});
  const Preset preset = float_layer ? Preset{} : preset_argument(preset_name, accumulator);
  // The CLI's parser checks every parameter (names them as the keyword arguments: the keys are the
  // same) and the filter and bias shapes; the runner checks the input against them.
  cli::Layer layer;
  try {
    layer = cli::parse_layer(params_json, ".", type_name, sources);
  } catch (const cli::ToolError& e) {
    // The parser speaks of the command line's --filter/--bias and of the JSON's top level; here
    // they are the arguments filter and bias and the call itself.
    std::string message = e.what();
    for (const char* flag : {"--filter: ", "--bias: "}) {
      if (message.rfind(flag, 0) == 0) message = type_name + ": " + message.substr(2);
    }
    const std::string top = type_name + ": the top-level value: ";
    if (message.rfind(top, 0) == 0) message = type_name + ": " + message.substr(top.size());
    throw py::value_error(message);
  }
  Tensor out;
  if (float_layer) {
    cli::Stack stack;
    stack.input = in;
    stack.layers.push_back(std::move(layer));
    // The module's translator turns a ToolError (a shape the layer does not take) into ValueError.
    const model::Graph graph = cli::stack_graph(stack, type_name);
    const model::NodeMap map = model::parse_node_map(preset_name, "preset");
    model::Runner runner(graph, model::resolve_node_map(map, graph, "preset"));
    {
      py::gil_scoped_release release;
      runner.run({in});
      out = runner.outputs()[0];
    }
    return array_from_tensor(std::move(out));
  }
  {
    py::gil_scoped_release release;
    out = cli::run_layer(layer, preset, in, reference ? cli::Engine::kReference : cli::Engine::kFast);
  }
  return array_from_tensor(std::move(out));
}

}  // namespace

void add_layers(py::module_& mod) {
  mod.def("_run_layer", &run_layer, py::arg("type"), py::arg("params_json"), py::arg("input"), py::arg("filter"),
          py::arg("bias"), py::arg("preset"), py::arg("accumulator"), py::arg("reference"));
}

}  // namespace qparity::python
