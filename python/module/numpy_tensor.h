// numpy arrays <-> the tool's tensors (tools/qparity/tensor.h), with the checks every function of
// the module applies to an array argument: its dtype among the allowed ones (TypeError naming the
// argument), native byte order, and C order. Any strided view (a slice, negative strides, Fortran
// order) is accepted and read in C order, as numpy.ascontiguousarray would: c_contiguous() returns
// a C-contiguous array itself (read in place), anything else copied once; tensor_from_array()
// copies into a tensor for the tool's runners, which own their tensors.
#pragma once

#include <initializer_list>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "tensor.h"

namespace qparity::python {

namespace py = pybind11;

/// The tensor dtype of a numpy dtype; false for one the tool has no name for.
bool tensor_dtype_of(const py::dtype& dtype, cli::DType* out);

/// `array` (any object numpy can view without converting values: an ndarray or a buffer) as a
/// C-contiguous ndarray of one of `allowed`. Throws TypeError "<argument>: dtype float64 is not
/// allowed; allowed: int8, uint8" (or naming a non-array, or a non-native byte order).
py::array c_contiguous(const py::handle& array, const char* argument, std::initializer_list<cli::DType> allowed,
                       cli::DType* dtype);

/// The same, as a tensor (the elements are copied into it: the runners own their tensors).
cli::Tensor tensor_from_array(const py::handle& array, const char* argument,
                              std::initializer_list<cli::DType> allowed);

/// A numpy array that takes ownership of the tensor's bytes (no copy).
py::array array_from_tensor(cli::Tensor&& tensor);

/// "int8, uint8": the allowed list of messages.
std::string dtype_list(std::initializer_list<cli::DType> allowed);

}  // namespace qparity::python
