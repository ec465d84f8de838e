#include "tensor.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "memory_limit.h"
#include "qparity/float_formats.h"
#include "tool_error.h"

// Element bytes are stored little-endian (the .npy descr the tool writes says '<'); the library
// reads them through typed pointers, so the host must be little-endian too.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "qparity's tool assumes a little-endian host");

namespace qparity::cli {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return "int8";
    case DType::kUint8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kFloat32: return "float32";
    case DType::kInt64: return "int64";
    case DType::kFloat16: return "float16";
    case DType::kFloat64: return "float64";
  }
  return "?";
}

std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUint8: return 1;
    case DType::kInt16:
    case DType::kFloat16: return 2;
    case DType::kInt32:
    case DType::kFloat32: return 4;
    case DType::kInt64:
    case DType::kFloat64: return 8;
  }
  return 1;
}

bool is_float(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
}

bool dtype_from_string(const std::string& text, DType* out) {
  for (DType d : {DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32, DType::kFloat32,
                  DType::kInt64, DType::kFloat16, DType::kFloat64}) {
    if (text == to_string(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

std::int64_t dtype_min(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return -128;
    case DType::kUint8: return 0;
    case DType::kInt16: return -32768;
    case DType::kInt32:
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64: return std::numeric_limits<std::int32_t>::min();
    case DType::kInt64: return std::numeric_limits<std::int64_t>::min();
  }
  return 0;
}

std::int64_t dtype_max(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return 127;
    case DType::kUint8: return 255;
    case DType::kInt16: return 32767;
    case DType::kInt32:
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64: return std::numeric_limits<std::int32_t>::max();
    case DType::kInt64: return std::numeric_limits<std::int64_t>::max();
  }
  return 0;
}

bool checked_elements(const std::vector<std::size_t>& shape, std::size_t element_size,
                      std::size_t* elements) {
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) return false;
    n *= d;
  }
  if (element_size != 0 && n > std::numeric_limits<std::size_t>::max() / element_size) return false;
  *elements = n;
  return true;
}

std::size_t Tensor::elements() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;  // make_tensor / parse_npy checked it does not overflow
  return n;
}

std::int64_t Tensor::integer_at(std::size_t i) const {
  const std::uint8_t* p = bytes.data() + i * size_of(dtype);
  switch (dtype) {
    case DType::kInt8: return static_cast<std::int8_t>(p[0]);
    case DType::kUint8: return p[0];
    case DType::kInt16: {
      std::int16_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kInt32: {
      std::int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kInt64: {
      std::int64_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64: break;
  }
  throw ToolError(fmt::format("a {} tensor has no integer elements; allowed: int8, uint8, int16, int32, int64",
                              to_string(dtype)));
}

double Tensor::value_at(std::size_t i) const {
  switch (dtype) {
    case DType::kFloat16: {
      std::uint16_t h;
      std::memcpy(&h, bytes.data() + i * 2, sizeof h);
      return float16_to_float(h);
    }
    case DType::kFloat32: {
      float v;
      std::memcpy(&v, bytes.data() + i * 4, sizeof v);
      return v;
    }
    case DType::kFloat64: {
      double v;
      std::memcpy(&v, bytes.data() + i * 8, sizeof v);
      return v;
    }
    case DType::kInt8:
    case DType::kUint8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64: break;
  }
  return static_cast<double>(integer_at(i));
}

void Tensor::set_integer(std::size_t i, std::int64_t v) {
  std::uint8_t* p = bytes.data() + i * size_of(dtype);
  switch (dtype) {
    case DType::kInt8:
    case DType::kUint8: p[0] = static_cast<std::uint8_t>(v); return;
    case DType::kInt16: {
      const auto x = static_cast<std::int16_t>(v);
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case DType::kInt32: {
      const auto x = static_cast<std::int32_t>(v);
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case DType::kFloat32: {
      const auto x = static_cast<float>(v);
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case DType::kFloat16: {
      const std::uint16_t x = float_to_float16(static_cast<float>(v));
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case DType::kFloat64: {
      const auto x = static_cast<double>(v);
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case DType::kInt64: std::memcpy(p, &v, sizeof v); return;
  }
}

Tensor make_tensor(DType dtype, std::vector<std::size_t> shape) {
  std::size_t n = 0;
  if (!checked_elements(shape, size_of(dtype), &n)) {
    throw ToolError(fmt::format("a {} tensor of shape {} is too large (its size overflows)",
                                to_string(dtype), shape_text(shape)));
  }
  const char* article = to_string(dtype)[0] == 'i' ? "an" : "a";  // an int8, a uint8, a float32
  check_memory(static_cast<std::uint64_t>(n) * size_of(dtype),
               fmt::format("{} {} tensor of shape {}", article, to_string(dtype), shape_text(shape)));
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.assign(n * size_of(dtype), 0);
  return t;
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

namespace {

__extension__ typedef unsigned __int128 UInt128;  // GCC/Clang; -Wpedantic would flag a bare __int128

// splitmix64 (Steele, Lea, Flood 2014; the reference C code by Vigna): one 64-bit state, every
// output a fixed function of (seed, index), so any language can reproduce the tensors.
std::uint64_t splitmix64_next(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

Tensor generate_tensor(DType dtype, std::vector<std::size_t> shape, std::uint64_t seed,
                       std::int64_t min, std::int64_t max) {
  if (is_float(dtype) || dtype == DType::kInt64) {
    throw ToolError("generated tensors are integer tensors; allowed dtypes: int8, uint8, int16, int32");
  }
  if (min > max || min < dtype_min(dtype) || max > dtype_max(dtype)) {
    throw ToolError(fmt::format("min = {}, max = {} is not a range of {}; allowed: {} <= min <= max <= {}",
                                min, max, to_string(dtype), dtype_min(dtype), dtype_max(dtype)));
  }
  Tensor t = make_tensor(dtype, std::move(shape));
  const auto span = static_cast<UInt128>(max - min) + 1;  // <= 2^32
  std::uint64_t state = seed;
  const std::size_t n = t.elements();
  for (std::size_t i = 0; i < n; ++i) {
    // floor(r * span / 2^64): the multiply-high maps [0, 2^64) onto [0, span) without the
    // division's bias toward small values being larger than span / 2^64.
    const auto offset = static_cast<std::int64_t>((splitmix64_next(&state) * span) >> 64);
    t.set_integer(i, min + offset);
  }
  return t;
}

}  // namespace qparity::cli
