// presets(), profiles(), preset_info() and explain(): the records of `qparity list` and the traces
// of `qparity explain` (explain_trace.h, preset_params.h: the CLI's own code).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "arguments.h"
#include "bindings.h"
#include "explain_trace.h"
#include "model/system.h"
#include "preset_params.h"
#include "qparity/presets.h"

namespace qparity::python {
namespace {

using cli::DType;
using cli::Tensor;

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

}  // namespace

void add_presets_and_explain(py::module_& mod) {
  mod.def("presets", &python::presets);
  mod.def("preset_info", &preset_info, py::arg("name"));
  mod.def("profiles", &profiles);
  mod.def("explain", &explain, py::arg("acc"), py::kw_only(), py::arg("scale") = py::none(),
          py::arg("multiplier") = py::none(), py::arg("shift") = py::none(), py::arg("zero_point") = 0,
          py::arg("presets") = py::none());
}

}  // namespace qparity::python
