// The tool's .npy reader and writer (tools/qparity/npy.h): round trips for every dtype and rank,
// files as numpy writes them (byte for byte, including the writer's output), and one clear error
// for every kind of malformed file, in process and through `qparity run` (exit status, message).
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "npy.h"
#include "tool_error.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::cli::ToolError;

// A .npy file with the given header dict text, padded with spaces to `align` and ended by '\n',
// exactly as numpy's _wrap_header does (align 64 since numpy 1.16; older releases used 16).
std::string npy_file(const std::string& dict, const std::string& data, int version = 1, std::size_t align = 64) {
  const std::size_t prefix = version == 1 ? 10 : 12;
  std::size_t total = prefix + dict.size() + 1;
  total = (total + align - 1) / align * align;
  const std::string header = dict + std::string(total - prefix - dict.size() - 1, ' ') + "\n";
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const std::size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (version != 1) out += std::string(2, '\0');
  return out + header + data;
}

Tensor parse(const std::string& bytes, const std::string& name = "t.npy") {
  return qparity::cli::parse_npy(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), name);
}

// The message of the ToolError parse() throws ("" if it does not throw).
std::string parse_error(const std::string& bytes) {
  try {
    parse(bytes, "bad.npy");
  } catch (const ToolError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "";
}

std::string le32(std::int32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

// ---- numpy's own files ------------------------------------------------------------------------

// np.save(f, np.arange(6, dtype=np.int32).reshape(2, 3)) with numpy 1.26 / 2.x: 128 bytes of
// header (the literal below, 'v' = 118 = header length), then 24 data bytes.
TEST(Npy, ReadsNumpyInt32File) {
  const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string file = std::string("\x93NUMPY\x01\x00v\x00", 10) + dict + std::string(118 - 1 - dict.size(), ' ') + "\n";
  for (int i = 0; i < 6; ++i) file += le32(i - 2);
  ASSERT_EQ(file.size(), 128u + 24u);
  const Tensor t = parse(file);
  EXPECT_EQ(t.dtype, DType::kInt32);
  EXPECT_EQ(t.shape, (std::vector<std::size_t>{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.integer_at(i), i - 2);
  // The writer produces numpy's bytes exactly.
  EXPECT_EQ(qparity::cli::serialize_npy(t), file);
}

TEST(Npy, ReadsAndWritesNumpyFilesOfEveryDtypeByteForByte) {
  struct Case {
    std::string dict, data;
    DType dtype;
    std::vector<std::size_t> shape;
    double first;
  };
  const Case cases[] = {
      // np.array([-1, 2, 127, -128, 0], np.int8)
      {"{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }", std::string("\xff\x02\x7f\x80\x00", 5),
       DType::kInt8, {5}, -1},
      // np.array([[0, 255], [7, 8]], np.uint8)
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }", std::string("\x00\xff\x07\x08", 4),
       DType::kUint8, {2, 2}, 0},
      // np.array([[[-32768]]], np.int16)
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (1, 1, 1), }", std::string("\x00\x80", 2),
       DType::kInt16, {1, 1, 1}, -32768},
      // np.float32(1.5) saved as a 0-d array
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", std::string("\x00\x00\xc0\x3f", 4),
       DType::kFloat32, {}, 1.5},
      // np.array([1.0, -2.0], np.float16): 0x3c00, 0xc000
      {"{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", std::string("\x00\x3c\x00\xc0", 4),
       DType::kFloat16, {2}, 1.0},
      // np.array([0.1]) (numpy's default float64)
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
       std::string("\x9a\x99\x99\x99\x99\x99\xb9\x3f", 8), DType::kFloat64, {1}, 0.1},
      // np.zeros((1, 0, 3), np.int32): no data at all
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1, 0, 3), }", "", DType::kInt32, {1, 0, 3}, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    const std::string file = npy_file(c.dict, c.data);
    const Tensor t = parse(file);
    EXPECT_EQ(t.dtype, c.dtype);
    EXPECT_EQ(t.shape, c.shape);
    if (t.elements() > 0) {
      EXPECT_EQ(t.value_at(0), c.first);
    }
    EXPECT_EQ(qparity::cli::serialize_npy(t), file);
  }
}

TEST(Npy, ReadsOldNumpyAlignmentVersion2And3AndPythonTwoLongs) {
  const std::string data = std::string("\x01\x02\x03", 3);
  // numpy < 1.16 padded the header to 16 bytes; Python 2 numpy wrote shapes as (3L,).
  EXPECT_EQ(parse(npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", data, 1, 16)).elements(), 3u);
  EXPECT_EQ(parse(npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (3L,), }", data, 1, 16)).elements(), 3u);
  EXPECT_EQ(parse(npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", data, 2)).elements(), 3u);
  EXPECT_EQ(parse(npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", data, 3)).elements(), 3u);
  // Key order and the trailing comma are free, as in any Python dict literal.
  const Tensor t = parse(npy_file("{\"shape\": (3,), 'fortran_order': False, 'descr': '|i1'}", data));
  EXPECT_EQ(t.integer_at(2), 3);
}

// ---- round trips ------------------------------------------------------------------------------

TEST(Npy, RoundTripsEveryDtypeAndRankThroughFiles) {
  const std::string dir = make_temp_dir("npy_round_trip");
  const std::vector<std::vector<std::size_t>> shapes = {{}, {7}, {3, 5}, {2, 3, 4}, {1, 4, 3, 2}, {2, 1, 1, 2, 3}};
  int n = 0;
  for (DType d : {DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32, DType::kFloat32, DType::kInt64,
                  DType::kFloat16, DType::kFloat64}) {
    for (const auto& shape : shapes) {
      Tensor t = qparity::cli::make_tensor(d, shape);
      // Distinct bytes everywhere, including the sign bits.
      for (std::size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<std::uint8_t>(i * 37 + 200);
      const std::string path = dir + "/t" + std::to_string(n++) + ".npy";
      qparity::cli::write_npy(path, t);
      const Tensor u = qparity::cli::read_npy(path);
      EXPECT_EQ(u.dtype, t.dtype);
      EXPECT_EQ(u.shape, t.shape);
      EXPECT_EQ(u.bytes, t.bytes);
      // The data starts at a multiple of 64, as numpy writes it.
      const std::string bytes = read_bytes(path);
      EXPECT_EQ((bytes.size() - t.bytes.size()) % 64, 0u);
    }
  }
  // Only the files: no temporary file left behind.
  EXPECT_EQ(list_dir(dir).size(), static_cast<std::size_t>(n));
}

TEST(Npy, WritesVersion2WhenTheHeaderNeedsIt) {
  // A 30000-dimension shape needs a header over 65535 bytes, which only version 2.0 can hold
  // (the reader caps the rank at 64, so this checks the writer alone).
  Tensor t;
  t.dtype = DType::kInt8;
  t.shape.assign(30000, 1);
  t.bytes.assign(1, 42);
  const std::string bytes = qparity::cli::serialize_npy(t);
  EXPECT_EQ(static_cast<int>(bytes[6]), 2);
  EXPECT_EQ(bytes.size() % 64, 1u);
}

TEST(Npy, GeneratedTensorsAreSplitmix64) {
  // splitmix64 from state 0 gives 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, ...;
  // element = min + (r * (max - min + 1)) >> 64, so for [0, 255] the top bytes.
  const Tensor t = qparity::cli::generate_tensor(DType::kUint8, {3}, 0, 0, 255);
  EXPECT_EQ(t.integer_at(0), 0xe2);
  EXPECT_EQ(t.integer_at(1), 0x6e);
  EXPECT_EQ(t.integer_at(2), 0x06);
  const Tensor s = qparity::cli::generate_tensor(DType::kInt32, {1000}, 7, -3, 3);
  std::vector<int> seen(7, 0);
  for (std::size_t i = 0; i < s.elements(); ++i) {
    ASSERT_GE(s.integer_at(i), -3);
    ASSERT_LE(s.integer_at(i), 3);
    ++seen[static_cast<std::size_t>(s.integer_at(i) + 3)];
  }
  for (int count : seen) EXPECT_GT(count, 100);  // every value occurs, roughly uniformly
}

// ---- malformed files --------------------------------------------------------------------------

TEST(Npy, EveryMalformedFileIsOneClearError) {
  const std::string ok_dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  const std::string data = le32(1) + le32(2);
  struct Case {
    std::string bytes;
    std::string expected;  // a part of the message
  };
  const std::string good = npy_file(ok_dict, data);
  const Case cases[] = {
      {"", "not a .npy file"},
      {"PK\x03\x04 zip file", "not a .npy file"},
      {std::string("\x93NUMPY", 6), "ends inside the version"},
      {std::string("\x93NUMPY\x04\x00", 8) + good.substr(8), "unsupported .npy format version 4.0; allowed: 1.0, 2.0, 3.0"},
      {good.substr(0, 9), "ends inside the header length"},
      {good.substr(0, 40), "the header is 118 bytes but only 30 follow"},
      {good.substr(0, good.size() - 3), "needs 8 data bytes but the file has 5"},
      {good + "xyz", "3 unexpected bytes after the data"},
      {npy_file("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }", data), "Fortran-order arrays are not supported"},
      {npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", "\x01\x00"), "unsupported dtype '|b1' (bool); allowed: '|i1'"},
      {npy_file("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", data), "'>i4' (big-endian)"},
      {npy_file("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", data), "'<u2' (unsigned integer width"},
      {npy_file("{'descr': '<i4', 'fortran_order': False}", data), "missing key 'shape'"},
      {npy_file("{'descr': '<i4', 'shape': (2,), }", data), "missing key 'fortran_order'"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", data), "unknown key 'extra'"},
      {npy_file("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", data), "'descr' appears twice"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2), }", data), "a 1-d shape is written (n,)"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }", data), "non-negative integer"},
      {npy_file("{'descr': '<i4', 'fortran_order': 0, 'shape': (2,), }", data), "True or False"},
      {npy_file("{'descr': '<i4' 'fortran_order': False, 'shape': (2,), }", data), "expected ',' or '}'"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), } garbage", data), "after the header dict"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data), "overflows"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data), "too large"},
      {npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x", data), "unterminated string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    const std::string message = parse_error(c.bytes);
    EXPECT_EQ(message.rfind("bad.npy: ", 0), 0u) << message;  // names the file first
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;  // one line
  }
  // A header without the final newline.
  std::string no_newline = good;
  no_newline[10 + 117] = ' ';
  EXPECT_NE(parse_error(no_newline).find("does not end with a newline"), std::string::npos);
}

TEST(Npy, MissingFileIsAnIoError) {
  try {
    qparity::cli::read_npy("/nonexistent/x.npy");
    FAIL() << "no error";
  } catch (const ToolError& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.npy: cannot open"), std::string::npos) << e.what();
  }
}

TEST(Npy, FailedWriteLeavesNoFile) {
  const std::string dir = make_temp_dir("npy_write_fail");
  const Tensor t = qparity::cli::make_tensor(DType::kInt8, {4});
  // The target is an existing directory: refused before anything is written (output_files.h).
  const std::string target = dir + "/is_a_dir";
  ASSERT_EQ(::mkdir(target.c_str(), 0777), 0);
  try {
    qparity::cli::write_npy(target, t);
    FAIL() << "no error";
  } catch (const ToolError& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_NE(std::string(e.what()).find("exists and is a directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"is_a_dir"});
  // A missing directory.
  EXPECT_THROW(qparity::cli::write_npy(dir + "/missing/y.npy", t), ToolError);
}

// ---- through the command line -------------------------------------------------------------------

TEST(Npy, RunReportsMalformedInputFilesWithExitStatus2) {
  const std::string dir = make_temp_dir("npy_cli");
  const std::string params = dir + "/p.json";
  write_bytes(params, R"({"multipliers": 1073741824, "shifts": 0})");
  const std::string filter = dir + "/w.npy";
  write_bytes(filter, npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 2), }", "\x01\x01"));
  struct Case {
    std::string bytes;
    std::string expected;
  };
  const Case cases[] = {
      {"garbage", "not a .npy file"},
      {npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", "\x01"), "truncated .npy file"},
      {npy_file("{'descr': '|i1', 'fortran_order': True, 'shape': (1, 2), }", "\x01\x02"), "Fortran-order"},
      {npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 2), }", "\x01\x00"), "unsupported dtype '|b1'"},
      {npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 2), }", "\x01\x02\x03"), "unexpected bytes after the data"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    const std::string input = dir + "/x.npy";
    write_bytes(input, c.bytes);
    const std::string output = dir + "/y.npy";
    const CliResult r = run_cli({"run", "fully_connected", "--preset", "tflite-reference", "--input", input,
                                 "--filter", filter, "--params", params, "--output", output});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("qparity run: " + input + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_FALSE(file_exists(output));
  }
  const CliResult missing = run_cli({"run", "fully_connected", "--preset", "tflite-reference", "--input",
                                     dir + "/none.npy", "--filter", filter, "--params", params, "--output", dir + "/y.npy"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("none.npy: cannot open: No such file or directory"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace qparity_cli_test
