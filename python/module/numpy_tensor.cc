#include "numpy_tensor.h"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace qparity::python {

bool tensor_dtype_of(const py::dtype& dtype, cli::DType* out) {
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  if (kind == 'i' && size == 1) *out = cli::DType::kInt8;
  else if (kind == 'u' && size == 1) *out = cli::DType::kUint8;
  else if (kind == 'i' && size == 2) *out = cli::DType::kInt16;
  else if (kind == 'i' && size == 4) *out = cli::DType::kInt32;
  else if (kind == 'i' && size == 8) *out = cli::DType::kInt64;
  else if (kind == 'f' && size == 4) *out = cli::DType::kFloat32;
  else if (kind == 'f' && size == 2) *out = cli::DType::kFloat16;
  else if (kind == 'f' && size == 8) *out = cli::DType::kFloat64;
  else return false;
  return true;
}

std::string dtype_list(std::initializer_list<cli::DType> allowed) {
  std::string s;
  for (cli::DType d : allowed) s += (s.empty() ? "" : ", ") + std::string(cli::to_string(d));
  return s;
}

py::array c_contiguous(const py::handle& array, const char* argument, std::initializer_list<cli::DType> allowed,
                       cli::DType* dtype) {
  if (!py::isinstance<py::array>(array)) {
    throw py::type_error(std::string(argument) + ": expected a numpy array, got " +
                         std::string(py::str(py::type::handle_of(array).attr("__name__"))) +
                         "; allowed dtypes: " + dtype_list(allowed));
  }
  const auto a = py::reinterpret_borrow<py::array>(array);
  cli::DType d{};
  bool ok = tensor_dtype_of(a.dtype(), &d);
  if (ok) {
    ok = false;
    for (cli::DType x : allowed) ok = ok || x == d;
  }
  if (!ok) {
    throw py::type_error(std::string(argument) + ": dtype " + std::string(py::str(a.dtype())) +
                         " is not allowed; allowed: " + dtype_list(allowed));
  }
  if (a.dtype().itemsize() > 1 && !a.dtype().attr("isnative").cast<bool>()) {
    throw py::type_error(std::string(argument) + ": dtype " + std::string(py::str(a.dtype())) +
                         " is not in the machine's byte order; allowed: native " + dtype_list(allowed) +
                         " (convert with arr.astype(arr.dtype.newbyteorder('=')))");
  }
  *dtype = d;
  // NPY_ARRAY_C_CONTIGUOUS | ENSUREARRAY: the array itself when it already is C-contiguous.
  return py::array::ensure(a, py::array::c_style);
}

cli::Tensor tensor_from_array(const py::handle& array, const char* argument,
                              std::initializer_list<cli::DType> allowed) {
  cli::Tensor t;
  const py::array a = c_contiguous(array, argument, allowed, &t.dtype);
  t.shape.assign(a.shape(), a.shape() + a.ndim());
  t.bytes.resize(static_cast<std::size_t>(a.nbytes()));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), a.data(), t.bytes.size());
  return t;
}

py::array array_from_tensor(cli::Tensor&& tensor) {
  auto* owned = new cli::Tensor(std::move(tensor));
  py::capsule owner(owned, [](void* p) { delete static_cast<cli::Tensor*>(p); });
  py::dtype dtype;
  switch (owned->dtype) {
    case cli::DType::kInt8: dtype = py::dtype::of<std::int8_t>(); break;
    case cli::DType::kUint8: dtype = py::dtype::of<std::uint8_t>(); break;
    case cli::DType::kInt16: dtype = py::dtype::of<std::int16_t>(); break;
    case cli::DType::kInt32: dtype = py::dtype::of<std::int32_t>(); break;
    case cli::DType::kFloat32: dtype = py::dtype::of<float>(); break;
    case cli::DType::kInt64: dtype = py::dtype::of<std::int64_t>(); break;
    case cli::DType::kFloat16: dtype = py::dtype("float16"); break;
    case cli::DType::kFloat64: dtype = py::dtype::of<double>(); break;
  }
  std::vector<py::ssize_t> shape(owned->shape.begin(), owned->shape.end());
  return py::array(dtype, shape, {}, owned->bytes.data(), owner);
}

}  // namespace qparity::python
