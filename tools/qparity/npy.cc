#include "npy.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "input_files.h"
#include "output_files.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw ToolError(fmt::format("{}: {}", name, problem));
}

// A printable rendering of a few bytes of the header for error messages (control and non-ASCII
// bytes as \xNN), so a message never carries raw binary to the terminal.
std::string printable(const char* p, std::size_t n, std::size_t limit = 24) {
  std::string out;
  for (std::size_t i = 0; i < n && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (n > limit) out += "...";
  return out;
}

// A strict parser of the header's Python dict literal, limited to what numpy writes: string keys,
// string / True / False / tuple-of-non-negative-integers values.
class HeaderParser {
 public:
  HeaderParser(const char* text, std::size_t size, const std::string& name)
      : p_(text), end_(text + size), begin_(text), name_(name) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
  };

  Header parse() {
    Header h;
    bool has_descr = false, has_fortran = false, has_shape = false;
    skip_blanks();
    expect('{', "the header dict starts with '{'");
    skip_blanks();
    while (!at('}')) {
      const std::string key = parse_string("a quoted key");
      skip_blanks();
      expect(':', "':' after the key");
      skip_blanks();
      if (key == "descr") {
        if (has_descr) error("key 'descr' appears twice");
        h.descr = parse_string("the descr string");
        has_descr = true;
      } else if (key == "fortran_order") {
        if (has_fortran) error("key 'fortran_order' appears twice");
        h.fortran_order = parse_bool();
        has_fortran = true;
      } else if (key == "shape") {
        if (has_shape) error("key 'shape' appears twice");
        h.shape = parse_shape();
        has_shape = true;
      } else {
        error(fmt::format("unknown key '{}'; allowed: 'descr', 'fortran_order', 'shape'",
                          printable(key.data(), key.size())));
      }
      skip_blanks();
      if (at(',')) {
        ++p_;
        skip_blanks();
      } else if (!at('}')) {
        error("expected ',' or '}' after a value");
      }
    }
    ++p_;  // '}'
    // numpy pads with spaces and ends the header with '\n'.
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
    if (p_ != end_) error("unexpected characters after the header dict");
    if (end_ == begin_ || end_[-1] != '\n') error("the header does not end with a newline");
    if (!has_descr) error("missing key 'descr'");
    if (!has_fortran) error("missing key 'fortran_order'");
    if (!has_shape) error("missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(name_, fmt::format("malformed .npy header: {} (at header offset {}: '{}')", what,
                            p_ - begin_, printable(p_, static_cast<std::size_t>(end_ - p_))));
  }

  bool at(char c) const { return p_ < end_ && *p_ == c; }

  void expect(char c, const char* what) {
    if (!at(c)) error(fmt::format("expected {}", what));
    ++p_;
  }

  void skip_blanks() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
  }

  std::string parse_string(const char* what) {
    if (!at('\'') && !at('"')) error(fmt::format("expected {}", what));
    const char quote = *p_++;
    std::string s;
    while (p_ < end_ && *p_ != quote) {
      if (*p_ == '\n') error("unterminated string");
      if (*p_ == '\\') error("escapes are not allowed in strings");
      s += *p_++;
    }
    if (p_ == end_) error("unterminated string");
    ++p_;
    return s;
  }

  bool parse_bool() {
    if (match_word("True")) return true;
    if (match_word("False")) return false;
    error("fortran_order must be True or False");
  }

  bool match_word(const char* word) {
    const std::size_t n = std::strlen(word);
    if (static_cast<std::size_t>(end_ - p_) >= n && std::memcmp(p_, word, n) == 0) {
      p_ += n;
      return true;
    }
    return false;
  }

  std::vector<std::size_t> parse_shape() {
    expect('(', "a shape tuple '(...)'");
    std::vector<std::size_t> shape;
    bool trailing_comma = false;
    skip_blanks();
    while (!at(')')) {
      if (p_ == end_ || *p_ < '0' || *p_ > '9') error("a shape entry must be a non-negative integer");
      std::size_t v = 0;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
        const auto digit = static_cast<std::size_t>(*p_ - '0');
        if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10) error("a shape entry overflows");
        v = v * 10 + digit;
        ++p_;
      }
      if (at('L')) ++p_;  // Python 2 era numpy wrote long integers as 3L
      shape.push_back(v);
      if (shape.size() > 64) error("more than 64 dimensions");
      skip_blanks();
      trailing_comma = false;
      if (at(',')) {
        ++p_;
        trailing_comma = true;
        skip_blanks();
      } else if (!at(')')) {
        error("expected ',' or ')' in the shape");
      }
    }
    ++p_;
    // (3) is the integer 3 in Python, not a tuple; numpy itself rejects it.
    if (shape.size() == 1 && !trailing_comma) error("a 1-d shape is written (n,), not (n)");
    return shape;
  }

  const char* p_;
  const char* end_;
  const char* begin_;
  const std::string& name_;
};

struct DescrEntry {
  const char* descr;
  DType dtype;
};

// '|' means "not applicable" (1-byte types), '<' little-endian, '=' native (little-endian on every
// host this tool builds for, see tensor.cc).
constexpr DescrEntry kDescrs[] = {
    {"|i1", DType::kInt8},    {"<i1", DType::kInt8},    {"=i1", DType::kInt8},
    {"|u1", DType::kUint8},   {"<u1", DType::kUint8},   {"=u1", DType::kUint8},
    {"<i2", DType::kInt16},   {"=i2", DType::kInt16},   {"<i4", DType::kInt32},
    {"=i4", DType::kInt32},   {"<f4", DType::kFloat32}, {"=f4", DType::kFloat32},
    {"<i8", DType::kInt64},   {"=i8", DType::kInt64},   {"<f2", DType::kFloat16},
    {"=f2", DType::kFloat16}, {"<f8", DType::kFloat64}, {"=f8", DType::kFloat64},
};

DType dtype_of_descr(const std::string& descr, const std::string& name) {
  for (const DescrEntry& e : kDescrs) {
    if (descr == e.descr) return e.dtype;
  }
  const std::string shown = printable(descr.data(), descr.size());
  std::string why;
  if (!descr.empty() && descr[0] == '>') {
    why = " (big-endian)";
  } else if (descr.size() >= 2 && descr[1] == 'b') {
    why = " (bool)";
  } else if (descr == "<u2" || descr == "<u4" || descr == "<u8") {
    why = " (unsigned integer width not supported)";
  }
  fail(name, fmt::format("unsupported dtype '{}'{}; allowed: '|i1' (int8), '|u1' (uint8), "
                         "'<i2' (int16), '<i4' (int32), '<i8' (int64), '<f2' (float16), '<f4' (float32), "
                         "'<f8' (float64)",
                         shown, why));
}

const char* descr_of(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return "|i1";
    case DType::kUint8: return "|u1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kFloat32: return "<f4";
    case DType::kInt64: return "<i8";
    case DType::kFloat16: return "<f2";
    case DType::kFloat64: return "<f8";
  }
  return "?";
}

}  // namespace

Tensor parse_npy(const std::uint8_t* data, std::size_t size, const std::string& name) {
  if (size < kMagicSize || std::memcmp(data, kMagic, kMagicSize) != 0) {
    fail(name, fmt::format("not a .npy file: it does not start with the magic \\x93NUMPY (found '{}')",
                           printable(reinterpret_cast<const char*>(data), std::min<std::size_t>(size, 6))));
  }
  if (size < kMagicSize + 2) fail(name, "truncated .npy file: it ends inside the version");
  const unsigned major = data[6], minor = data[7];
  std::size_t len_bytes = 0;
  if (major == 1 && minor == 0) {
    len_bytes = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    len_bytes = 4;
  } else {
    fail(name, fmt::format("unsupported .npy format version {}.{}; allowed: 1.0, 2.0, 3.0", major, minor));
  }
  const std::size_t prefix = kMagicSize + 2 + len_bytes;
  if (size < prefix) fail(name, "truncated .npy file: it ends inside the header length");
  std::size_t header_len = 0;
  for (std::size_t i = 0; i < len_bytes; ++i) header_len |= std::size_t{data[8 + i]} << (8 * i);
  if (header_len > size - prefix) {
    fail(name, fmt::format("truncated .npy file: the header is {} bytes but only {} follow", header_len,
                           size - prefix));
  }
  const char* header = reinterpret_cast<const char*>(data + prefix);
  if (major == 1 || major == 2) {  // 3.0 allows UTF-8; 1.0 and 2.0 are latin-1 (ASCII in practice)
    for (std::size_t i = 0; i < header_len; ++i) {
      if (static_cast<unsigned char>(header[i]) >= 0x80) {
        fail(name, fmt::format("malformed .npy header: non-ASCII byte at header offset {}", i));
      }
    }
  }
  HeaderParser::Header h = HeaderParser(header, header_len, name).parse();
  const DType dtype = dtype_of_descr(h.descr, name);
  if (h.fortran_order) {
    fail(name, "Fortran-order arrays are not supported; allowed: fortran_order False (C order; "
               "save np.ascontiguousarray(a))");
  }
  std::size_t elements = 0;
  if (!checked_elements(h.shape, size_of(dtype), &elements)) {
    fail(name, fmt::format("shape {} is too large (its byte size overflows)", shape_text(h.shape)));
  }
  const std::size_t data_bytes = elements * size_of(dtype);
  const std::size_t available = size - prefix - header_len;
  if (available < data_bytes) {
    fail(name, fmt::format("truncated .npy file: shape {} of {} needs {} data bytes but the file has {}",
                           shape_text(h.shape), to_string(dtype), data_bytes, available));
  }
  if (available > data_bytes) {
    fail(name, fmt::format("{} unexpected bytes after the data of shape {} of {} ({} bytes)",
                           available - data_bytes, shape_text(h.shape), to_string(dtype), data_bytes));
  }
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(h.shape);
  const std::uint8_t* payload = data + prefix + header_len;
  t.bytes.assign(payload, payload + data_bytes);
  return t;
}

Tensor read_npy(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_input_file(path, {"a .npy file"});
  return parse_npy(bytes.data(), bytes.size(), path);
}

std::string serialize_npy(const Tensor& t) {
  std::string shape;
  for (std::size_t d : t.shape) shape += fmt::format("{}, ", d);
  if (t.shape.size() > 1) shape.resize(shape.size() - 2);  // "(3,)" keeps its comma, "(2, 3)" not
  if (t.shape.size() == 1) shape.resize(shape.size() - 1);
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                 descr_of(t.dtype), shape);
  // Pad with spaces so that magic + version + length + header is a multiple of 64 (numpy >= 1.24
  // writes 64; the '\n' is the header's last byte).
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const std::size_t prefix = kMagicSize + 2 + (v2 ? 4 : 2);
  std::size_t total = prefix + dict.size() + 1;
  total = (total + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t len = dict.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  // Through OutputFiles: a temporary next to the target renamed into place, and only ever over a
  // regular file (output_files.h).
  OutputFiles files;
  files.add(path, serialize_npy(t));
  files.commit();
}

}  // namespace qparity::cli
