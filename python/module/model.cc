// Model (a .tflite file read once: run() returns every tensor by name) and _diff_json() (the
// model diff's JSON report, which the package parses): the CLI's model loading, seeded inputs,
// per-op maps, runner and model diff (model_inputs.h, tools/model/).
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "commands.h"
#include "drift_report.h"
#include "model/model_diff.h"
#include "model/node_map.h"
#include "model/runner.h"
#include "model_inputs.h"
#include "numpy_tensor.h"
#include "tool_error.h"

namespace qparity::python {
namespace {

using cli::DType;
using cli::Tensor;

/// A model file read once; immutable afterwards (runs build their own runner).
class Model {
 public:
  explicit Model(const std::string& path) : graph_(cli::load_model(path)), path_(path) {}

  const model::Graph& graph() const { return graph_; }
  const std::string& path() const { return path_; }

  py::list tensor_records(const std::vector<int>& indices) const {
    py::list out;
    for (int t : indices) {
      const model::TensorDef& d = graph_.tensors[static_cast<std::size_t>(t)];
      py::dict r;
      r["name"] = d.name;
      r["dtype"] = cli::to_string(d.dtype);
      r["shape"] = py::tuple(py::cast(d.shape));
      r["scales"] = d.quant.scales;
      r["zero_points"] = d.quant.zero_points;
      out.append(r);
    }
    return out;
  }

  /// The model's inputs from Python: None (seeded, as the CLI's --seed), a sequence in input order
  /// or a dict by input name; each checked against the input's dtype and shape.
  std::vector<Tensor> inputs_argument(const py::object& inputs, std::uint64_t seed) const {
    const auto& g = graph_;
    if (inputs.is_none()) return cli::model_inputs(g, "", seed);
    if (py::isinstance<py::array>(inputs)) {
      // An ndarray is a sequence of its rows: refuse it rather than read rows as inputs.
      throw py::type_error("inputs: got one array; allowed: a list of arrays (one per input, in order: [x]) or a "
                           "dict by input name");
    }
    std::vector<py::object> given(g.inputs.size());
    if (py::isinstance<py::dict>(inputs)) {
      const auto d = py::reinterpret_borrow<py::dict>(inputs);
      std::vector<bool> used(g.inputs.size(), false);
      for (const auto& kv : d) {
        const std::string key = py::str(kv.first);
        bool found = false;
        for (std::size_t i = 0; i < g.inputs.size(); ++i) {
          if (g.tensors[static_cast<std::size_t>(g.inputs[i])].name == key) {
            given[i] = py::reinterpret_borrow<py::object>(kv.second);
            used[i] = found = true;
          }
        }
        if (!found) throw py::value_error("inputs: '" + key + "' is not an input of " + g.source + "; allowed: " +
                                          input_names());
      }
      for (std::size_t i = 0; i < used.size(); ++i) {
        if (!used[i]) throw py::value_error("inputs: input '" + g.tensors[static_cast<std::size_t>(g.inputs[i])].name +
                                            "' is missing; allowed: a dict with every input of " + input_names());
      }
    } else if (py::isinstance<py::sequence>(inputs) && !py::isinstance<py::str>(inputs)) {
      const auto s = py::reinterpret_borrow<py::sequence>(inputs);
      if (s.size() != g.inputs.size()) {
        throw py::value_error("inputs: " + std::to_string(s.size()) + " array(s) for the " +
                              std::to_string(g.inputs.size()) + " input(s) of " + g.source +
                              "; allowed: one per input, in order (" + input_names() + "), or a dict by name");
      }
      for (std::size_t i = 0; i < s.size(); ++i) given[i] = s[i];
    } else {
      throw py::type_error("inputs: expected None, a list of arrays (one per input, in order) or a dict by input name");
    }
    std::vector<Tensor> out;
    for (std::size_t i = 0; i < given.size(); ++i) {
      const model::TensorDef& d = g.tensors[static_cast<std::size_t>(g.inputs[i])];
      const std::string arg = "inputs['" + d.name + "']";
      Tensor t = tensor_from_array(given[i], arg.c_str(), {d.dtype});
      if (t.shape != d.shape) {
        throw py::value_error(arg + ": shape " + cli::shape_text(t.shape) + "; allowed: " + cli::shape_text(d.shape) +
                              " (the model's input " + std::to_string(i) + ")");
      }
      out.push_back(std::move(t));
    }
    return out;
  }

  std::string input_names() const {
    std::string s;
    for (int t : graph_.inputs) s += (s.empty() ? "" : ", ") + ("'" + graph_.tensors[static_cast<std::size_t>(t)].name + "'");
    return s;
  }

 private:
  model::Graph graph_;
  std::string path_;
};

py::dict model_run(const Model& m, const py::object& inputs, const std::string& preset, std::uint64_t seed,
                   bool reference, long long threads) {
  const model::Graph& g = m.graph();
  const std::vector<Tensor> values = m.inputs_argument(inputs, seed);
  const model::NodeMap map = model::parse_node_map(preset, "preset");
  const std::vector<model::System> systems = model::resolve_node_map(map, g, "preset");
  const unsigned thread_count = model::checked_thread_count(threads, "threads");
  std::vector<Tensor> results(g.tensors.size());
  {
    py::gil_scoped_release release;
    model::Runner runner(g, systems, reference ? model::Engine::kReference : model::Engine::kFast, thread_count);
    runner.run(values);
    for (std::size_t t = 0; t < g.tensors.size(); ++t) results[t] = runner.value(static_cast<int>(t));
  }
  // By name; a name two tensors share (or none) gets the tensor's dump file name instead.
  std::map<std::string, int> count;
  for (const model::TensorDef& d : g.tensors) ++count[d.name];
  py::dict out;
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    const std::string& name = g.tensors[t].name;
    std::string key = name;
    if (name.empty() || count[name] > 1) {
      key = g.dump_file_name(static_cast<int>(t));
      key = key.substr(0, key.size() - 4);  // without ".npy"
    }
    out[py::str(key)] = array_from_tensor(std::move(results[t]));
  }
  return out;
}

std::string diff_json(const Model& m, const std::string& a, const std::optional<std::string>& b,
                      const std::optional<std::string>& dump_b, const py::object& inputs, std::uint64_t seed,
                      bool per_channel, long long threads) {
  if (b.has_value() == dump_b.has_value()) {
    throw py::value_error("give b (an arithmetic: preset, runtime profile or per-op map) or dump_b (a directory of "
                          "a device's dumps), one of them");
  }
  const std::vector<Tensor> values = m.inputs_argument(inputs, seed);
  model::ModelDiffOptions o;
  o.a = a;
  o.b = b.value_or("");
  o.dump_b = dump_b.value_or("");
  o.per_channel = per_channel;
  o.threads = model::checked_thread_count(threads, "threads");
  if (dump_b) {
    struct stat st {};
    if (::stat(dump_b->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      throw py::value_error("dump_b: " + *dump_b + " is not a directory of per-tensor dumps");
    }
  }
  std::string json;
  try {
    py::gil_scoped_release release;
    std::size_t float_outputs = 0;
    json = cli::drift_json(model::diff_model(m.graph(), values, o, &float_outputs));
  } catch (const cli::ToolError& e) {
    // The model diff names the CLI's options (--a, --b, --dump-b); here they are arguments.
    std::string message = e.what();
    for (const char* option : {"--a: ", "--b: ", "--dump-b: "}) {
      if (message.rfind(option, 0) == 0) {
        std::string name = std::string(option).substr(2);
        if (name == "dump-b: ") name = "dump_b: ";
        message = name + message.substr(std::strlen(option));
      }
    }
    if (e.exit_code() == cli::kExitIoError) {
      PyErr_SetString(PyExc_OSError, message.c_str());  // the GIL is held again here
      throw py::error_already_set();
    }
    throw py::value_error(message);
  }
  return json;
}

}  // namespace

void add_model(py::module_& mod) {
  py::class_<Model, std::shared_ptr<Model>>(mod, "Model")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def_property_readonly("path", &Model::path)
      .def_property_readonly("inputs", [](const Model& m) { return m.tensor_records(m.graph().inputs); })
      .def_property_readonly("outputs", [](const Model& m) { return m.tensor_records(m.graph().outputs); })
      .def_property_readonly("ops", [](const Model& m) {
        py::list out;
        for (std::size_t i = 0; i < m.graph().nodes.size(); ++i) out.append(m.graph().node_label(i));
        return out;
      })
      .def("run", &model_run, py::arg("inputs") = py::none(), py::kw_only(), py::arg("preset") = "tflite-reference",
           py::arg("seed") = 1, py::arg("reference") = false, py::arg("threads") = 1)
      .def("__repr__", [](const Model& m) {
        return "qparity.Model('" + m.path() + "': " + std::to_string(m.graph().nodes.size()) + " ops)";
      });
  mod.def("_diff_json", &diff_json, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("dump_b"),
          py::arg("inputs"), py::arg("seed"), py::arg("per_channel"), py::arg("threads"));
}

}  // namespace qparity::python
