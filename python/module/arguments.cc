#include "arguments.h"

#include <pybind11/numpy.h>

#include "preset_params.h"

namespace qparity::python {

using cli::DType;

/// A preset (or NPU-family member) by name; ValueError "<argument>: preset 'x' is unknown;
/// allowed: ..." otherwise.
Preset preset_named(const std::string& name, const std::string& argument) {
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

}  // namespace qparity::python
