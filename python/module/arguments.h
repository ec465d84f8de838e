// Python arguments -> C++ values, with the module's error messages: TypeError for a wrong type,
// ValueError naming the argument and its allowed range for a wrong value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "tensor.h"

namespace qparity::python {

namespace py = pybind11;

/// A preset (or NPU-family member) by name; ValueError "<argument>: preset 'x' is unknown;
/// allowed: ..." otherwise.
Preset preset_named(const std::string& name, const std::string& argument = "preset");

/// A preset by name, with its accumulator model replaced when `accumulator` is given
/// ("int32", "int64", "sat16".."sat48", "wrap16".."wrap64").
Preset preset_argument(const std::string& name, const std::optional<std::string>& accumulator);

/// An integer (Python int or numpy integer; not bool) or a 1-D sequence of them.
std::vector<std::int64_t> integers_argument(const py::handle& value, const char* argument);

/// A real number or a 1-D sequence of them.
std::vector<double> reals_argument(const py::handle& value, const char* argument);

/// `v` as int32 when in [lo, hi]; ValueError "<argument> = v is out of range; allowed: [lo, hi] (note)".
std::int32_t int32_argument(std::int64_t v, const char* argument, std::int64_t lo, std::int64_t hi,
                            const char* note);

/// An output dtype name: int8, uint8, int16 or int32.
cli::DType output_dtype_argument(const std::string& name);

/// The library's output type of an output dtype.
OutputType output_type_of(cli::DType d);

}  // namespace qparity::python
