// Whole models written by qparity's ONNX writer (model/onnx/onnx_writer.h) in the real ONNX Runtime
// (npm onnxruntime-node, CPU execution provider, one thread) against qparity's reader and runner,
// every output element:
//   * the zoo's MobileNet v2 (without its final SOFTMAX) in operator form (QLinearConv,
//     QLinearAdd, QLinearGlobalAveragePool, a 1x1 QLinearConv for the classifier), int8 and uint8
//     activations;
//   * the zoo's ResNet-18 in QDQ form (DequantizeLinear / QuantizeLinear around Conv, MaxPool,
//     Add, GlobalAveragePool, Flatten, Reshape; the classifier a 1x1 Conv), int8 and uint8 activations;
// at graph optimization level `all` under profile ort-cpu and `disabled` under ort-cpu-unfused, at
// a reduced input size (64x64) so that the test takes seconds. Before ORT runs, each written model
// is read back and checked against the zoo graph it was written from, under the onnxruntime preset
// (one arithmetic for every node, so both graphs must give the same bits; uint8: + 128). A contrast
// (the int8 QDQ model under the onnxruntime preset, i.e. as if ORT fused all its int8 convolutions,
// where it fuses only those between single-consumer pairs) must differ from ORT, so the comparison
// can fail. Label oracle; fails (never
// skips) without node or the npm package.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/onnx/onnx_writer.h"
#include "model/runner.h"
#include "model/zoo.h"
#include "onnx_test_support.h"
#include "oracle_tally.h"
#include "ort_runner.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
using namespace qparity::model;

constexpr std::size_t kInputSize = 64;

// The int8 tensor `t` as the uint8 one the uint8 export computes (every value + 128).
Tensor plus_128_as_uint8(const Tensor& t) {
  Tensor u = qparity::cli::make_tensor(DType::kUint8, t.shape);
  for (std::size_t i = 0; i < t.elements(); ++i) u.set_integer(i, t.integer_at(i) + 128);
  return u;
}

struct ModelCase {
  std::string label;
  Graph source;        // the zoo graph (NHWC, int8)
  OnnxWriteOptions write;
  Tensor input_nchw;   // what ORT and the read-back graph get
  Tensor input_nhwc;   // the same int8 values for the source graph
  std::vector<std::uint8_t> bytes;
};

ModelCase make_case(const std::string& name, Graph g, OnnxForm form, DType activations, std::uint64_t seed) {
  ModelCase c;
  c.label = name + " " + onnx_form_name(form) + (activations == DType::kUint8 ? " u8" : " s8");
  c.source = std::move(g);
  c.write.form = form;
  c.write.activations = activations;
  const std::size_t s = kInputSize;
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  std::uniform_int_distribution<int> d(-128, 127);
  c.input_nhwc = qparity::cli::make_tensor(DType::kInt8, {1, s, s, 3});
  c.input_nchw = qparity::cli::make_tensor(activations, {1, 3, s, s});
  for (std::size_t y = 0; y < s; ++y) {
    for (std::size_t x = 0; x < s; ++x) {
      for (std::size_t ch = 0; ch < 3; ++ch) {
        const int v = d(rng);
        c.input_nhwc.set_integer((y * s + x) * 3 + ch, v);
        c.input_nchw.set_integer((ch * s + y) * s + x, activations == DType::kUint8 ? v + 128 : v);
      }
    }
  }
  c.bytes = write_onnx(c.source, c.write);
  return c;
}

std::vector<ModelCase> cases() {
  ZooOptions zo;
  zo.seed = 7;
  zo.input_size = kInputSize;
  zo.softmax = false;
  std::vector<ModelCase> out;
  for (DType t : {DType::kInt8, DType::kUint8}) {
    out.push_back(make_case("mobilenet_v2", mobilenet_v2(zo), OnnxForm::kQLinear, t, 11));
    out.push_back(make_case("resnet18", resnet18(zo), OnnxForm::kQdq, t, 12));
  }
  return out;
}

TEST(OnnxWholeModels, WrittenModelsReadBackToTheSourceBits) {
  for (const ModelCase& c : cases()) {
    const Graph back = read_onnx(c.bytes, c.label);
    const std::vector<Tensor> want = run_qparity(c.source, {c.input_nhwc}, "onnxruntime");
    const std::vector<Tensor> got = run_qparity(back, {c.input_nchw}, "onnxruntime");
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(got.size(), 1u);
    std::string first;
    const std::size_t bad =
        mismatches(c.write.activations == DType::kUint8 ? plus_128_as_uint8(want[0]) : want[0], got[0], &first);
    EXPECT_EQ(bad, 0u) << c.label << ": the read-back model differs from the zoo graph: " << first;
    tally(c.label, "read back", "onnxruntime (= zoo graph)", got[0].elements(), bad);
  }
}

TEST(OnnxWholeModels, BitExactWithOnnxRuntime) {
  const std::vector<ModelCase> all = cases();
  std::size_t contrast_wrong = 0, contrast_elements = 0;
  std::vector<OrtJob> jobs;
  for (const ModelCase& c : all) jobs.push_back({c.label, c.bytes, {c.input_nchw}});
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const Graph& g) {
      const ModelCase& c = all[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, {c.input_nchw}, profile));
      if (ours.wrong != 0) ADD_FAILURE() << c.label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      tally(c.label, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      std::printf("%s, ORT opt %s, %s: %zu elements, %zu mismatches\n", c.label.c_str(), opt, profile.c_str(),
                  ours.elements, ours.wrong);
      if (c.write.form == OnnxForm::kQdq && c.write.activations == DType::kInt8) {
        // ORT runs most of these int8 Conv groups in float32 at both levels: the QLinear arithmetic differs.
        const std::size_t wrong = compare_outputs(ort, run_qparity(g, {c.input_nchw}, "onnxruntime")).wrong;
        tally(c.label, std::string("ORT opt ") + opt, "onnxruntime (contrast)", ours.elements, wrong);
        contrast_wrong += wrong;
        contrast_elements += ours.elements;
      }
      return ours.elements;
    });
  }
  EXPECT_GT(contrast_wrong, 0u) << "the int8 QDQ ResNet-18 under the onnxruntime preset agrees with ORT on all "
                                << contrast_elements << " elements, so this comparison could not fail";
}

}  // namespace
}  // namespace qparity_test
