// The tool's tensor: a dtype, a shape and the elements as raw little-endian bytes in C order, which
// is exactly the payload of a .npy file (npy.h) and what the layer runner hands to the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qparity::cli {

/// The element types the tool reads and writes (.npy descr |i1 |u1 <i2 <i4 <f4 <i8 <f2 <f8). int64
/// is for the index tensors of models (shapes, paddings, axes), not for activations; float16 and
/// float64 are for comparing float dumps (a GPU's FP16 output, numpy's default float64).
enum class DType : std::uint8_t { kInt8, kUint8, kInt16, kInt32, kFloat32, kInt64, kFloat16, kFloat64 };

/// "int8", "uint8", "int16", "int32", "float32", "int64", "float16", "float64".
const char* to_string(DType dtype);

/// Bytes per element: 1, 1, 2, 4, 4, 8, 2, 8.
std::size_t size_of(DType dtype);

/// float16, float32 or float64.
bool is_float(DType dtype);

/// Parses the names to_string prints; false for anything else.
bool dtype_from_string(const std::string& text, DType* out);

/// Smallest and largest value of an integer dtype (float32: -2^31 .. 2^31-1 is NOT implied;
/// callers only ask for integer dtypes).
std::int64_t dtype_min(DType dtype);
std::int64_t dtype_max(DType dtype);

struct Tensor {
  DType dtype = DType::kInt8;
  std::vector<std::size_t> shape;   ///< empty for a 0-d (scalar) tensor, which has 1 element
  std::vector<std::uint8_t> bytes;  ///< elements() * size_of(dtype) bytes, C order, little-endian

  /// Product of the shape (1 for a 0-d tensor).
  std::size_t elements() const;
  /// Element i of an integer tensor, sign- or zero-extended. Throws ToolError for a float dtype.
  std::int64_t integer_at(std::size_t i) const;
  /// Element i as a double (exact for every dtype but int64 beyond 2^53).
  double value_at(std::size_t i) const;
  /// Stores v (which must fit the integer dtype; it is truncated to the dtype's width otherwise).
  void set_integer(std::size_t i, std::int64_t v);
};

/// A zero-filled tensor. Throws ToolError if the element count or byte size overflows size_t.
Tensor make_tensor(DType dtype, std::vector<std::size_t> shape);

/// "[1, 56, 56, 64]" ("[]" for a 0-d tensor).
std::string shape_text(const std::vector<std::size_t>& shape);

/// Product of `shape`; false if it overflows size_t (or the byte size for `element_size` does).
bool checked_elements(const std::vector<std::size_t>& shape, std::size_t element_size,
                      std::size_t* elements);

/// The deterministic, platform-independent generator of seeded tensors (SCHEMA.md "Generated
/// tensors"): element i is  min + floor(r_i * (max - min + 1) / 2^64)  where r_0, r_1, ... are the
/// successive outputs of splitmix64 started from state `seed`. Requires min <= max within the
/// integer dtype (float32 is not generated). Throws ToolError on a bad range or shape.
Tensor generate_tensor(DType dtype, std::vector<std::size_t> shape, std::uint64_t seed,
                       std::int64_t min, std::int64_t max);

}  // namespace qparity::cli
