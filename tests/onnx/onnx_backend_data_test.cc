// The ONNX backend node tests of Debian's libonnx-testdata for the quantized operators (QLinearConv,
// QLinearMatMul, ConvInteger, MatMulInteger, QuantizeLinear, DequantizeLinear): each directory's
// model.onnx read by qparity's reader, run on test_data_set_*/input_*.pb and compared bit for bit with
// output_*.pb, or refused with the reader's own error, which the table below states exactly.
//
// The backend tests feed every operand as a graph input (scales, zero points, weights too), and most
// of them import opset 10. qparity reads deployed models, whose quantization parameters and weights
// are constants, from opset 13 on. So each shipped file is first checked to be refused with the
// reader's message (opset or "not an initializer"), then run in its "folded" form: inputs 1.. become
// initializers holding the test data's values (input 0, the activation, stays a graph input), and an
// opset below 13 is raised to 13, which changes no definition here (QLinearConv, QLinearMatMul,
// ConvInteger and MatMulInteger have one version from opset 10 to 20). Label unit; a machine without
// the package fails, naming it.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model/onnx/onnx_reader.h"
#include "onnx_test_support.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

namespace fs = std::filesystem;
using qparity::cli::DType;
using qparity::cli::Tensor;

const fs::path kNodeDir = QPARITY_ONNX_TESTDATA_DIR;

struct BackendCase {
  const char* dir;
  const char* shipped;  ///< the reader's error on the file as shipped
  const char* folded;   ///< the reader's error on the folded file; nullptr: it runs and must match
};

constexpr const char* kOpset10 = "imports opset 10 of the default domain; allowed: 13 or later";
constexpr const char* kNotConstant = "is not an initializer; allowed: a constant";

// Measured with this reader; a change of behaviour (a refusal lifted or a new one) fails the test.
// QLinearMatMul with a 3-D b runs as BATCH_MATMUL (uint8: ONNX Runtime's profiles only, so
// tflite-reference refuses it). QuantizeLinear of a float graph input and
// DequantizeLinear to a float graph output run (QUANTIZE / DEQUANTIZE nodes; per axis under ONNX
// Runtime's profiles only, so tflite-reference refuses the _axis ones); their float outputs are
// compared bit for bit.
const BackendCase kCases[] = {
    {"test_qlinearconv", kOpset10, nullptr},
    {"test_qlinearmatmul_2D", kOpset10, nullptr},
    {"test_qlinearmatmul_3D", kOpset10, nullptr},
    {"test_convinteger_with_padding", kOpset10, nullptr},
    {"test_convinteger_without_padding", kOpset10, nullptr},
    {"test_basic_convinteger", kOpset10, nullptr},
    {"test_matmulinteger", kOpset10, nullptr},
    {"test_quantizelinear", kNotConstant, nullptr},
    {"test_quantizelinear_axis", kNotConstant, nullptr},
    {"test_dequantizelinear", kNotConstant, nullptr},
    {"test_dequantizelinear_axis", kNotConstant, nullptr},
};

std::string file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) ADD_FAILURE() << "cannot read " << p;
  return std::string(std::istreambuf_iterator<char>(f), {});
}

onnx::TensorProto read_tensor(const fs::path& p) {
  onnx::TensorProto t;
  if (!t.ParseFromString(file_bytes(p))) ADD_FAILURE() << p << " is not a TensorProto";
  return t;
}

// The test data's tensors (all raw_data, little-endian) as qparity tensors.
Tensor to_tensor(const onnx::TensorProto& t, const fs::path& p) {
  DType dtype{};
  switch (t.data_type()) {
    case onnx::TensorProto_DataType_UINT8: dtype = DType::kUint8; break;
    case onnx::TensorProto_DataType_INT8: dtype = DType::kInt8; break;
    case onnx::TensorProto_DataType_INT32: dtype = DType::kInt32; break;
    case onnx::TensorProto_DataType_FLOAT: dtype = DType::kFloat32; break;
    default: ADD_FAILURE() << p << ": element type " << t.data_type() << " not handled by this test"; return {};
  }
  std::vector<std::size_t> shape;
  for (std::int64_t d : t.dims()) shape.push_back(static_cast<std::size_t>(d));
  Tensor out = qparity::cli::make_tensor(dtype, shape);
  if (!t.has_raw_data() || t.raw_data().size() != out.bytes.size()) {
    ADD_FAILURE() << p << ": expected " << out.bytes.size() << " bytes of raw_data";
    return out;
  }
  std::memcpy(out.bytes.data(), t.raw_data().data(), out.bytes.size());
  return out;
}

std::vector<std::uint8_t> as_bytes(const onnx::ModelProto& m) {
  const std::string s = m.SerializeAsString();
  return {s.begin(), s.end()};
}

// Graph inputs 1.. replaced by initializers with the data set's values; opset raised to 13.
onnx::ModelProto folded(onnx::ModelProto m, const fs::path& set) {
  onnx::GraphProto* g = m.mutable_graph();
  for (int i = 1; i < g->input_size(); ++i) {
    onnx::TensorProto t = read_tensor(set / ("input_" + std::to_string(i) + ".pb"));
    t.set_name(g->input(i).name());
    *g->add_initializer() = t;
  }
  while (g->input_size() > 1) g->mutable_input()->RemoveLast();
  for (onnx::OperatorSetIdProto& op : *m.mutable_opset_import()) {
    if ((op.domain().empty() || op.domain() == "ai.onnx") && op.version() < 13) op.set_version(13);
  }
  return m;
}

std::vector<fs::path> data_sets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

struct Outcome {
  std::size_t elements = 0, wrong = 0;  ///< under the profile asked for
  std::size_t off_by_one = 0;           ///< mismatches found once one expected element is moved by 1
};

// The folded model of `c` run on every data set under `profile`, compared with output_*.pb; also with
// each data set's first expected element moved by one (the comparison must see exactly that).
Outcome run_folded(const BackendCase& c, const onnx::ModelProto& shipped, const std::string& profile) {
  Outcome r;
  const fs::path dir = kNodeDir / c.dir;
  for (const fs::path& set : data_sets(dir)) {
    const std::vector<std::uint8_t> bytes = as_bytes(folded(shipped, set));
    const qparity::model::Graph g = qparity::model::read_onnx(bytes, (dir / "model.onnx").string());
    const Tensor x = to_tensor(read_tensor(set / "input_0.pb"), set / "input_0.pb");
    const std::vector<Tensor> ours = run_qparity(g, {x}, profile);
    EXPECT_EQ(ours.size(), static_cast<std::size_t>(shipped.graph().output_size()));
    for (std::size_t o = 0; o < ours.size(); ++o) {
      const fs::path want_path = set / ("output_" + std::to_string(o) + ".pb");
      Tensor want = to_tensor(read_tensor(want_path), want_path);
      std::string first;
      r.wrong += mismatches(want, ours[o], &first);
      r.elements += want.elements();
      if (!first.empty() && profile == "ort-cpu") ADD_FAILURE() << want_path << " (\"ORT\" there is the expected file): " << first;
      if (want.dtype == DType::kFloat32) {  // the next float up
        float v = 0;
        std::memcpy(&v, want.bytes.data(), 4);
        v = std::nextafter(v, INFINITY);
        std::memcpy(want.bytes.data(), &v, 4);
      } else {
        const std::int64_t v = want.integer_at(0);
        want.set_integer(0, v == qparity::cli::dtype_max(want.dtype) ? v - 1 : v + 1);
      }
      r.off_by_one += mismatches(want, ours[o], &first);
    }
  }
  return r;
}

TEST(OnnxBackendData, PackageIsInstalled) {
  ASSERT_TRUE(fs::is_directory(kNodeDir))
      << kNodeDir << " is missing: install Debian's libonnx-testdata (.ci/install-deps does)";
}

TEST(OnnxBackendData, EachNodeTestPassesOrIsRefusedAsListed) {
  ASSERT_TRUE(fs::is_directory(kNodeDir))
      << kNodeDir << " is missing: install Debian's libonnx-testdata (.ci/install-deps does)";
  std::printf("%-34s %-7s %-8s %-10s %-12s %s\n", "directory", "result", "elements", "ort-cpu", "tflite-ref",
              "one expected element moved / refusal");
  for (const BackendCase& c : kCases) {
    SCOPED_TRACE(c.dir);
    const fs::path dir = kNodeDir / c.dir;
    ASSERT_TRUE(fs::is_regular_file(dir / "model.onnx")) << dir << " has no model.onnx";
    onnx::ModelProto shipped;
    ASSERT_TRUE(shipped.ParseFromString(file_bytes(dir / "model.onnx"))) << dir / "model.onnx";
    const std::string shipped_error = read_error(as_bytes(shipped));
    EXPECT_NE(shipped_error.find(c.shipped), std::string::npos) << shipped_error;
    const std::vector<fs::path> sets = data_sets(dir);
    ASSERT_FALSE(sets.empty()) << dir << " has no test_data_set_*";
    if (c.folded != nullptr) {
      for (const fs::path& set : sets) {
        const std::string error = read_error(as_bytes(folded(shipped, set)));
        EXPECT_NE(error.find(c.folded), std::string::npos) << error;
      }
      std::printf("%-34s %-7s %-8s %-10s %-12s %s\n", c.dir, "refused", "-", "-", "-", c.folded);
      continue;
    }
    for (const fs::path& set : sets) ASSERT_EQ(read_error(as_bytes(folded(shipped, set))), "(no error)");
    const Outcome ort = run_folded(c, shipped, "ort-cpu");
    std::string tfl_column;  // tflite-reference: a contrast, or its refusal (per-axis Q / DQ)
    try {
      tfl_column = std::to_string(run_folded(c, shipped, "tflite-reference").wrong) + " wrong";
    } catch (const qparity::cli::ToolError&) {
      tfl_column = "refused";
    }
    EXPECT_EQ(ort.wrong, 0u);
    EXPECT_EQ(ort.off_by_one, sets.size());  // the comparison sees a one-step change of one element
    std::printf("%-34s %-7s %-8zu %-10s %-12s %zu of %zu data sets\n", c.dir, "passed", ort.elements,
                (std::to_string(ort.wrong) + " wrong").c_str(), tfl_column.c_str(),
                ort.off_by_one, sets.size());
  }
}

}  // namespace
}  // namespace qparity_test
