// requantize(): the compiled library's requantization (or, with reference=True, the header-only
// definition element by element) on an int32 array read in place, per tensor or per channel (last
// axis), with the parameters `qparity requant` derives (preset_params.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arguments.h"
#include "bindings.h"
#include "numpy_tensor.h"
#include "preset_params.h"
#include "qparity/presets.h"
#include "qparity/requantize.h"

namespace qparity::python {
namespace {

using cli::DType;
using cli::Tensor;

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

}  // namespace

void add_requantize(py::module_& mod) {
  mod.def("requantize", &python::requantize, py::arg("acc"), py::arg("multiplier") = py::none(),
          py::arg("shift") = py::none(), py::kw_only(), py::arg("scale") = py::none(),
          py::arg("preset") = "tflite-reference", py::arg("zero_point") = 0, py::arg("qmin") = py::none(),
          py::arg("qmax") = py::none(), py::arg("dtype") = "int8", py::arg("reference") = false);
}

}  // namespace qparity::python
