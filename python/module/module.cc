// The extension module qparity._qparity: the library, the CLI's layer runner and the model runner
// exposed to Python. The package (python/qparity/__init__.py) re-exports it and adds the layer
// functions' keyword vocabulary; docstrings and types are in __init__.pyi.
//
// Every function validates its arguments under the GIL, copies nothing it can read in place,
// then releases the GIL for the arithmetic. Nothing here keeps state between calls, so calls are
// thread-safe (a Model is immutable once read; each run has its own runner).
//
// Errors: qparity::InvalidArgument and the tool's ToolError (usage) become ValueError, a ToolError
// about a file (kExitIoError) OSError; bad argument types are TypeError. Their messages are the
// library's and the CLI's, naming the argument and its allowed range.
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "commands.h"
#include "drift_report.h"
#include "explain_trace.h"
#include "layer.h"
#include "layer_runner.h"
#include "model/model_diff.h"
#include "model/node_map.h"
#include "model/runner.h"
#include "model/system.h"
#include "model_inputs.h"
#include "numpy_tensor.h"
#include "preset_params.h"
#include "qparity/presets.h"
#include "qparity/qparity.h"
#include "qparity/version.h"
#include "tool_error.h"

namespace qparity::python {
namespace {

using cli::DType;
using cli::Tensor;

// ---- arguments ------------------------------------------------------------------------------------

/// A preset (or NPU-family member) by name; ValueError "<argument>: preset 'x' is unknown;
/// allowed: ..." otherwise.
Preset preset_named(const std::string& name, const std::string& argument = "preset") {
  try {
    return find_preset(name);
  } catch (const InvalidArgument& e) {
    throw py::value_error(argument + ": " + cli::without_library_prefix(e.what()));
  }
}

/// A preset by name, with its accumulator model replaced when `accumulator` is given.
Preset preset_argument(const std::string& name, const std::optional<std::string>& accumulator) {
  Preset p = preset_named(name);
  if (accumulator) {
    AccumulatorSpec spec;
    if (!detail::parse_npu_accumulator(*accumulator, &spec)) {
      throw py::value_error("accumulator: '" + *accumulator +
                            "' is unknown; allowed: int32, int64, sat16..sat48, wrap16..wrap64");
    }
    p.accumulator = spec;
  }
  return p;
}

/// An integer (Python int or numpy integer; not bool) or a 1-D sequence of them.
std::vector<std::int64_t> integers_argument(const py::handle& value, const char* argument) {
  auto one = [&](const py::handle& v, std::size_t index, bool list) -> std::int64_t {
    if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) {
      throw py::type_error(std::string(argument) + (list ? "[" + std::to_string(index) + "]" : "") +
                           ": expected an integer, got " +
                           std::string(py::str(py::type::handle_of(v).attr("__name__"))));
    }
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr())).ptr(),
                                                     &overflow);
    if (overflow != 0) {
      throw py::value_error(std::string(argument) + ": " + std::string(py::str(v)) +
                            " is out of range; allowed: 64-bit integers");
    }
    return x;
  };
  if (PyIndex_Check(value.ptr()) && !py::isinstance<py::array>(value)) return {one(value, 0, false)};
  if (py::isinstance<py::array>(value) && py::reinterpret_borrow<py::array>(value).ndim() == 0) {
    return {one(value.attr("item")(), 0, false)};
  }
  if (!py::isinstance<py::sequence>(value) && !py::isinstance<py::array>(value)) {
    throw py::type_error(std::string(argument) + ": expected an integer or a 1-D sequence of integers, got " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  for (const py::handle item : value) {
    if (py::isinstance<py::array>(item) && py::reinterpret_borrow<py::array>(item).ndim() != 0) {
      throw py::value_error(std::string(argument) + ": expected a 1-D sequence; allowed: an integer or one per channel");
    }
    out.push_back(one(py::isinstance<py::array>(item) ? item.attr("item")() : py::reinterpret_borrow<py::object>(item),
                      i++, true));
  }
  if (out.empty()) throw py::value_error(std::string(argument) + ": empty; allowed: an integer or one per channel");
  return out;
}

/// A real number or a 1-D sequence of them.
std::vector<double> reals_argument(const py::handle& value, const char* argument) {
  auto one = [&](const py::handle& v, std::size_t index, bool list) -> double {
    if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyIndex_Check(v.ptr()) ||
                                   py::isinstance(v, py::module_::import("numbers").attr("Real")))) {
      throw py::type_error(std::string(argument) + (list ? "[" + std::to_string(index) + "]" : "") +
                           ": expected a real number, got " +
                           std::string(py::str(py::type::handle_of(v).attr("__name__"))));
    }
    return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
  };
  if (py::isinstance<py::array>(value) && py::reinterpret_borrow<py::array>(value).ndim() == 0) {
    return {one(value.attr("item")(), 0, false)};
  }
  if (!py::isinstance<py::sequence>(value) && !py::isinstance<py::array>(value)) return {one(value, 0, false)};
  if (py::isinstance<py::str>(value)) return {one(value, 0, false)};
  std::vector<double> out;
  std::size_t i = 0;
  for (const py::handle item : value) {
    out.push_back(one(py::isinstance<py::array>(item) ? item.attr("item")() : py::reinterpret_borrow<py::object>(item),
                      i++, true));
  }
  if (out.empty()) throw py::value_error(std::string(argument) + ": empty; allowed: a number or one per channel");
  return out;
}

std::int32_t int32_argument(std::int64_t v, const char* argument, std::int64_t lo, std::int64_t hi,
                            const char* note) {
  if (v < lo || v > hi) {
    throw py::value_error(std::string(argument) + " = " + std::to_string(v) + " is out of range; allowed: [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + "] (" + note + ")");
  }
  return static_cast<std::int32_t>(v);
}

DType output_dtype_argument(const std::string& name) {
  DType d{};
  if (!cli::dtype_from_string(name, &d) || (d != DType::kInt8 && d != DType::kUint8 && d != DType::kInt16 &&
                                            d != DType::kInt32)) {
    throw py::value_error("dtype: '" + name + "' is not allowed; allowed: int8, uint8, int16, int32");
  }
  return d;
}

OutputType output_type_of(DType d) {
  switch (d) {
    case DType::kInt8: return OutputType::kInt8;
    case DType::kUint8: return OutputType::kUint8;
    case DType::kInt16: return OutputType::kInt16;
    default: return OutputType::kInt32;
  }
}

// ---- presets and explain ------------------------------------------------------------------------------

py::dict preset_record(const Preset& p) {
  py::dict d;
  d["name"] = p.name;
  d["description"] = p.description;
  d["source"] = p.source;
  d["core"] = to_string(p.core);
  d["formula"] = formula_text(p.core);
  d["tie_rule"] = tie_rule_text(p.core);
  d["derivation"] = to_string(p.derivation);
  d["composition"] = to_string(p.composition);
  d["clamp"] = to_string(p.clamp);
  d["accumulator"] = to_string(p.accumulator);
  return d;
}

py::list presets() {
  py::list out;
  for (const Preset& p : named_presets()) out.append(preset_record(p));
  return out;
}

py::list profiles() {
  py::list out;
  for (const model::Profile& p : model::runtime_profiles()) {
    py::dict d;
    d["name"] = p.name;
    d["description"] = p.description;
    d["source"] = p.source;
    out.append(d);
  }
  return out;
}

py::dict preset_info(const std::string& name) { return preset_record(preset_named(name, "name")); }

// explain's limits are the CLI's (cmd_explain.cc): acc * scale stays an exact dyadic.
constexpr double kExplainScaleMin = 0x1p-64;
constexpr double kExplainScaleMax = 0x1p31;

py::list explain(std::int64_t acc_value, std::optional<double> scale, std::optional<std::int64_t> multiplier,
                 std::optional<std::int64_t> shift, std::int64_t zero_point_value,
                 std::optional<std::vector<std::string>> preset_names) {
  const std::int32_t acc = int32_argument(acc_value, "acc", INT32_MIN, INT32_MAX, "int32 accumulator");
  const std::int32_t zero_point =
      int32_argument(zero_point_value, "zero_point", -32768, 65535, "int8/uint8/int16/uint16 zero points");
  if (scale && (multiplier || shift)) {
    throw py::value_error("scale cannot be combined with multiplier/shift; give either scale or multiplier and shift");
  }
  if (!scale && !(multiplier && shift)) {
    if (multiplier) throw py::value_error("multiplier needs shift");
    if (shift) throw py::value_error("shift needs multiplier");
    throw py::value_error("give either scale or multiplier and shift");
  }
  if (scale && !(std::isfinite(*scale) && *scale >= kExplainScaleMin && *scale <= kExplainScaleMax)) {
    throw py::value_error("scale = " + std::string(py::repr(py::float_(*scale))) +
                          " is out of range; allowed: a finite value in [2^-64, 2^31] (5.42e-20 .. 2147483648)");
  }
  std::int32_t m = 0, s = 0;
  if (!scale) {
    m = int32_argument(*multiplier, "multiplier", 0, kQ31MultiplierMax, "Q31 mantissa");
    s = int32_argument(*shift, "shift", kQ31ShiftMin, kQ31ShiftMax, "TFLite convention, > 0 = left");
  }
  std::vector<Preset> list;
  if (preset_names) {
    if (preset_names->empty()) throw py::value_error("presets: empty; allowed: a list of preset names");
    for (std::size_t i = 0; i < preset_names->size(); ++i) {
      list.push_back(preset_named((*preset_names)[i], "presets[" + std::to_string(i) + "]"));
    }
  } else {
    list = named_presets();
  }
  py::list out;
  for (const Preset& p : list) {
    py::dict row;
    row["preset"] = p.name;
    row["core"] = to_string(p.core);
    try {
      const RequantParams params = scale ? cli::params_from_scale(p, *scale) : cli::params_from_multiplier(p.core, m, s);
      const cli::Trace trace = cli::trace_rounding(p.core, params, acc, zero_point);
      py::list steps;
      for (const cli::TraceStep& st : trace.steps) steps.append(py::make_tuple(st.name, st.value));
      row["params"] = cli::params_text(p.core, params);
      row["steps"] = steps;
      row["result"] = trace.result;
      row["rule"] = trace.rule;
      row["error"] = py::none();
    } catch (const InvalidArgument& e) {
      // As the CLI's table: a preset that cannot represent the scale gets a row with its reason.
      row["params"] = py::none();
      row["steps"] = py::list();
      row["result"] = py::none();
      row["rule"] = py::none();
      row["error"] = cli::without_library_prefix(e.what());
    }
    out.append(row);
  }
  return out;
}

// ---- requantize ---------------------------------------------------------------------------------------

template <class Out>
void requantize_typed(const RequantizeArgs& args, bool reference, Out* dst) {
  if (!reference) {
    qparity::requantize<Out>(args, dst);
    return;
  }
  // The header-only definition (output_stage.h), element by element.
  visit_rounding_core(args.core, [&](auto policy) {
    using Policy = decltype(policy);
    for (std::size_t r = 0; r < args.rows; ++r) {
      for (std::size_t c = 0; c < args.channels; ++c) {
        const RequantParams& p = args.params[args.per_channel ? c : 0];
        dst[r * args.channels + c] =
            static_cast<Out>(requantize_to_output<Policy>(args.acc[r * args.channels + c], p, args.output));
      }
    }
    return 0;
  });
}

py::array requantize(const py::handle& acc_array, const py::object& multiplier, const py::object& shift,
                     const py::object& scale, const std::string& preset_name, std::int64_t zero_point,
                     std::optional<std::int64_t> qmin, std::optional<std::int64_t> qmax,
                     const std::string& dtype_name, bool reference) {
  DType acc_dtype{};
  const py::array acc = c_contiguous(acc_array, "acc", {DType::kInt32}, &acc_dtype);
  const Preset preset = preset_named(preset_name);
  const DType out_dtype = output_dtype_argument(dtype_name);
  const OutputType out_type = output_type_of(out_dtype);

  const bool by_scale = !scale.is_none();
  if (by_scale && (!multiplier.is_none() || !shift.is_none())) {
    throw py::value_error("scale cannot be combined with multiplier/shift; give either scale or multiplier and shift");
  }
  if (!by_scale && (multiplier.is_none() || shift.is_none())) {
    if (!multiplier.is_none()) throw py::value_error("multiplier needs shift");
    if (!shift.is_none()) throw py::value_error("shift needs multiplier");
    throw py::value_error("give either scale or multiplier and shift");
  }
  std::vector<RequantParams> params;
  if (by_scale) {
    const std::vector<double> scales = reals_argument(scale, "scale");
    for (std::size_t i = 0; i < scales.size(); ++i) {
      try {
        params.push_back(cli::params_from_scale(preset, scales[i]));
      } catch (const InvalidArgument& e) {
        const std::string idx = scales.size() > 1 ? "scale[" + std::to_string(i) + "]" : "scale";
        throw py::value_error(idx + " under preset " + preset.name + ": " +
                              cli::without_library_prefix(e.what()));
      }
    }
  } else {
    const std::vector<std::int64_t> ms = integers_argument(multiplier, "multiplier");
    const std::vector<std::int64_t> ss = integers_argument(shift, "shift");
    if (ms.size() != ss.size()) {
      throw py::value_error("multiplier has " + std::to_string(ms.size()) + " value(s) and shift " +
                            std::to_string(ss.size()) + "; allowed: as many shifts as multipliers");
    }
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const std::string idx = ms.size() > 1 ? "[" + std::to_string(i) + "]" : "";
      const std::int32_t m = int32_argument(ms[i], ("multiplier" + idx).c_str(), 0, kQ31MultiplierMax, "Q31 mantissa");
      const std::int32_t s =
          int32_argument(ss[i], ("shift" + idx).c_str(), kQ31ShiftMin, kQ31ShiftMax, "TFLite convention, > 0 = left");
      try {
        params.push_back(cli::params_from_multiplier(preset.core, m, s));
      } catch (const InvalidArgument& e) {
        throw py::value_error("multiplier" + idx + ", shift" + idx + " under preset " + preset.name + ": " +
                              cli::without_library_prefix(e.what()));
      }
    }
  }
  const bool per_channel = params.size() > 1;
  const std::size_t channels = acc.ndim() == 0 ? 1 : static_cast<std::size_t>(acc.shape(acc.ndim() - 1));
  if (per_channel && (acc.ndim() == 0 || channels != params.size())) {
    throw py::value_error("acc: shape " + std::string(py::str(acc_array.attr("shape"))) + " has " +
                          (acc.ndim() == 0 ? std::string("no channel axis") :
                                             std::to_string(channels) + " channel(s) on its last axis") +
                          " but " + std::to_string(params.size()) +
                          " parameters were given; allowed: one (per tensor) or one per channel (last axis)");
  }
  OutputParams output{};
  output.zero_point = int32_argument(zero_point, "zero_point", output_type_min(out_type), output_type_max(out_type),
                                     to_string(out_type));
  output.qmin = int32_argument(qmin.value_or(output_type_min(out_type)), "qmin", output_type_min(out_type),
                               output_type_max(out_type), to_string(out_type));
  output.qmax = int32_argument(qmax.value_or(output_type_max(out_type)), "qmax", output.qmin,
                               output_type_max(out_type), "qmin..type max");

  Tensor out_tensor = cli::make_tensor(out_dtype, std::vector<std::size_t>(acc.shape(), acc.shape() + acc.ndim()));
  RequantizeArgs args;
  args.core = preset.core;
  args.params = params.data();
  args.per_channel = per_channel;
  args.output = output;
  args.channels = channels;
  args.rows = channels == 0 ? 0 : out_tensor.elements() / channels;
  args.acc = static_cast<const std::int32_t*>(acc.data());
  if (out_tensor.elements() != 0) {
    void* dst = out_tensor.bytes.data();
    py::gil_scoped_release release;
    switch (out_dtype) {
      case DType::kInt8: requantize_typed(args, reference, static_cast<std::int8_t*>(dst)); break;
      case DType::kUint8: requantize_typed(args, reference, static_cast<std::uint8_t*>(dst)); break;
      case DType::kInt16: requantize_typed(args, reference, static_cast<std::int16_t*>(dst)); break;
      default: requantize_typed(args, reference, static_cast<std::int32_t*>(dst)); break;
    }
  }
  return array_from_tensor(std::move(out_tensor));
}

// ---- layers -------------------------------------------------------------------------------------------

py::array run_layer(const std::string& type_name, const std::string& params_json, const py::handle& input,
                    const py::handle& filter, const py::handle& bias, const std::string& preset_name,
                    const std::optional<std::string>& accumulator, bool reference) {
  cli::LayerSources sources;
  cli::LayerType type{};
  if (!cli::layer_type_from_string(type_name, &type)) {
    throw py::value_error("type: '" + type_name + "'; allowed: conv2d, depthwise_conv2d, fully_connected");
  }
  sources.type = type;
  const Tensor in = tensor_from_array(input, "input", {DType::kInt8, DType::kUint8});
  sources.filter = tensor_from_array(filter, "filter", {DType::kInt8});
  if (!bias.is_none()) sources.bias = tensor_from_array(bias, "bias", {DType::kInt32});
  const Preset preset = preset_argument(preset_name, accumulator);
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
  {
    py::gil_scoped_release release;
    out = cli::run_layer(layer, preset, in, reference ? cli::Engine::kReference : cli::Engine::kFast);
  }
  return array_from_tensor(std::move(out));
}

// ---- models -------------------------------------------------------------------------------------------

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
                   bool reference) {
  const model::Graph& g = m.graph();
  const std::vector<Tensor> values = m.inputs_argument(inputs, seed);
  const model::NodeMap map = model::parse_node_map(preset, "preset");
  const std::vector<model::System> systems = model::resolve_node_map(map, g, "preset");
  std::vector<Tensor> results(g.tensors.size());
  {
    py::gil_scoped_release release;
    model::Runner runner(g, systems, reference ? model::Engine::kReference : model::Engine::kFast);
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
                      bool per_channel) {
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
}  // namespace qparity::python

PYBIND11_MODULE(_qparity, mod) {
  using namespace qparity;
  using namespace qparity::python;
  mod.doc() = "qparity's compiled core; use the qparity package (see its docstrings).";
  mod.attr("__version__") = std::to_string(kVersionMajor) + "." + std::to_string(kVersionMinor) + "." + std::to_string(kVersionPatch);

  // Exception mapping. Registered translators run newest first; InvalidArgument derives from
  // std::invalid_argument (pybind11: ValueError) but is mapped explicitly for clarity.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cli::ToolError& e) {
      if (e.exit_code() == cli::kExitIoError) {
        PyErr_SetString(PyExc_OSError, e.what());
      } else {
        PyErr_SetString(PyExc_ValueError, e.what());
      }
    } catch (const InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  mod.def("presets", &qparity::python::presets);
  mod.def("preset_info", &preset_info, py::arg("name"));
  mod.def("profiles", &profiles);
  mod.def("explain", &explain, py::arg("acc"), py::kw_only(), py::arg("scale") = py::none(),
          py::arg("multiplier") = py::none(), py::arg("shift") = py::none(), py::arg("zero_point") = 0,
          py::arg("presets") = py::none());
  mod.def("requantize", &qparity::python::requantize, py::arg("acc"), py::arg("multiplier") = py::none(),
          py::arg("shift") = py::none(), py::kw_only(), py::arg("scale") = py::none(),
          py::arg("preset") = "tflite-reference", py::arg("zero_point") = 0, py::arg("qmin") = py::none(),
          py::arg("qmax") = py::none(), py::arg("dtype") = "int8", py::arg("reference") = false);
  mod.def("_run_layer", &run_layer, py::arg("type"), py::arg("params_json"), py::arg("input"), py::arg("filter"),
          py::arg("bias"), py::arg("preset"), py::arg("accumulator"), py::arg("reference"));

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
           py::arg("seed") = 1, py::arg("reference") = false)
      .def("__repr__", [](const Model& m) {
        return "qparity.Model('" + m.path() + "': " + std::to_string(m.graph().nodes.size()) + " ops)";
      });
  mod.def("_diff_json", &diff_json, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("dump_b"),
          py::arg("inputs"), py::arg("seed"), py::arg("per_channel"));
}
