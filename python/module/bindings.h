// The parts of the extension module qparity._qparity, each adding its functions to the module
// (module.cc calls them all).
#pragma once

#include <pybind11/pybind11.h>

namespace qparity::python {

namespace py = pybind11;

/// presets(), profiles(), preset_info(), explain() (presets_explain.cc).
void add_presets_and_explain(py::module_& mod);

/// requantize() (requantize.cc).
void add_requantize(py::module_& mod);

/// _run_layer(), behind conv2d, depthwise_conv2d, fully_connected and gemm (layers.cc).
void add_layers(py::module_& mod);

/// Model and _diff_json(), behind diff (model.cc).
void add_model(py::module_& mod);

}  // namespace qparity::python
