// The extension module qparity._qparity: the library, the CLI's layer runner and the model runner
// exposed to Python (one file per part, bindings.h). The package (python/qparity/__init__.py)
// re-exports it and adds the layer functions' keyword vocabulary; docstrings and types are in
// __init__.pyi.
//
// Every function validates its arguments under the GIL (arrays: numpy_tensor.h),
// then releases the GIL for the arithmetic. Nothing here keeps state between calls, so calls are
// thread-safe (a Model is immutable once read; each run has its own runner).
//
// Errors: qparity::InvalidArgument and the tool's ToolError (usage) become ValueError, a ToolError
// about a file (kExitIoError) OSError; bad argument types are TypeError. Their messages are the
// library's and the CLI's, naming the argument and its allowed range.
#include <string>

#include <pybind11/pybind11.h>

#include "bindings.h"
#include "qparity/error.h"
#include "qparity/version.h"
#include "tool_error.h"

PYBIND11_MODULE(_qparity, mod) {
  using namespace qparity;
  namespace py = pybind11;
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

  python::add_presets_and_explain(mod);
  python::add_requantize(mod);
  python::add_layers(mod);
  python::add_model(mod);
}
