// `qparity export --zoo NAME --format onnx-qlinear|onnx-qdq`: the file is the writer's bytes for
// the zoo graph (the saved input NCHW, uint8 shifted by 128), `run --model` on it works, and bad
// combinations exit 2 naming the option with nothing written.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "cli_runner.h"
#include "model/onnx/onnx_writer.h"
#include "model/zoo.h"
#include "npy.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

std::vector<std::uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CliOnnxExport, ZooModelsAsOnnx) {
  const std::string dir = make_temp_dir("onnx_export");
  using namespace qparity::model;
  ZooOptions zo;
  zo.seed = 4;
  zo.input_size = 32;
  zo.softmax = false;
  struct Case {
    const char* zoo;
    const char* format;
    const char* activations;
    Graph graph;
    OnnxForm form;
  };
  const Case cases[] = {{"mobilenet_v2", "onnx-qlinear", "int8", mobilenet_v2(zo), OnnxForm::kQLinear},
                        {"resnet18", "onnx-qdq", "uint8", resnet18(zo), OnnxForm::kQdq}};
  for (const Case& c : cases) {
    const std::string model = dir + "/" + c.zoo + ".onnx", input = dir + "/" + c.zoo + ".npy";
    const CliResult r = run_cli({"export", "--zoo", c.zoo, "--format", c.format, "--activations", c.activations,
                                 "--input-size", "32", "--seed", "4", "--output", model, "--save-input", input});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Graph g = c.graph;
    g.source = c.zoo;
    OnnxWriteOptions wo;
    wo.form = c.form;
    wo.activations = std::string(c.activations) == "uint8" ? qparity::cli::DType::kUint8 : qparity::cli::DType::kInt8;
    wo.producer = "qparity export of zoo " + std::string(c.zoo) + " (input 32, seed 4)";
    EXPECT_EQ(file_bytes(model), write_onnx(g, wo)) << c.zoo;
    const qparity::cli::Tensor x = qparity::cli::read_npy(input);
    EXPECT_EQ(x.shape, (std::vector<std::size_t>{1, 3, 32, 32}));
    EXPECT_EQ(x.dtype, wo.activations);
    const std::string out = dir + "/" + c.zoo + "_y.npy";
    const CliResult run = run_cli({"run", "--model", model, "--input", input, "--preset", "ort-cpu", "--output", out});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(qparity::cli::read_npy(out).shape, (std::vector<std::size_t>{1, 1000}));
  }
  const std::string bad = dir + "/bad.onnx";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"export", "--zoo", "resnet18", "--format", "onnx-qlinear", "--output", bad},
        {"export", "--zoo", "vgg", "--format", "onnx-qdq", "--output", bad},
        {"export", "--zoo", "resnet18", "--format", "onnx-qdq", "--output", dir + "/bad.tflite"},
        {"export", "--zoo", "resnet18", "--format", "onnx", "--output", bad}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << " " << args[4];
    EXPECT_NE(r.err.find("qparity export:"), std::string::npos) << r.err;
    EXPECT_FALSE(std::ifstream(bad).good());
  }
}

}  // namespace
}  // namespace qparity_cli_test
