// The graph runner on several threads (Runner(..., threads)): the zoo models (tools/model/zoo.h),
// as built and as read back from the ONNX writer's two forms, give every tensor the bits of one
// thread under the profiles whose convolutions take the threaded path (the int8 QDQ form's float32
// convolutions included), and pool workers really ran tiles. Small inputs (64x64) keep it fast; the pool is forced so that their small layers
// still split.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/onnx/onnx_writer.h"
#include "model/runner.h"
#include "model/zoo.h"
#include "tests/support/tile_pool_probe.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::cli::DType;
using qparity::cli::Tensor;

std::vector<System> systems_of(const Graph& g, const std::string& profile) {
  return resolve_node_map(parse_node_map(profile, "profile"), g, "profile");
}

/// Runs `g` on 1 and on `threads` threads and compares every tensor.
void expect_same_tensors(const Graph& g, const std::string& profile, const Tensor& input, unsigned threads) {
  Runner one(g, systems_of(g, profile));
  one.run({input});
  Runner many(g, systems_of(g, profile), Engine::kFast, threads);
  const bool worker_ran = qparity_test::a_worker_ran_during([&] { many.run({input}); });
  EXPECT_TRUE(worker_ran) << g.source << " " << profile << " threads " << threads;
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    const int ti = static_cast<int>(t);
    EXPECT_TRUE(many.value(ti).bytes == one.value(ti).bytes)
        << g.source << " " << profile << " threads " << threads << ": " << g.tensor_label(ti);
  }
}

ZooOptions small_zoo() {
  ZooOptions zo;
  zo.seed = 7;
  zo.input_size = 64;
  zo.classes = 50;
  return zo;
}

TEST(RunnerThreads, ZooModelsGiveTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  const ZooOptions zo = small_zoo();
  const Tensor image = qparity::cli::generate_tensor(DType::kInt8, {1, 64, 64, 3}, 3, -128, 127);
  for (const Graph& g : {mobilenet_v2(zo), resnet18(zo), resnet_blocks(zo, 2, 32)}) {
    for (const char* profile : {"tflite-xnnpack-x86", "tflite-reference"}) {
      for (unsigned threads : {2u, 3u}) expect_same_tensors(g, profile, image, threads);
    }
  }
}

TEST(RunnerThreads, OnnxZooModelsGiveTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  ZooOptions zo = small_zoo();
  zo.softmax = false;
  struct Form {
    const char* name;
    Graph graph;
    OnnxForm form;
    DType activations;
  };
  const Form forms[] = {{"mnv2_qlinear_s8", mobilenet_v2(zo), OnnxForm::kQLinear, DType::kInt8},
                        {"resnet18_qdq_u8", resnet18(zo), OnnxForm::kQdq, DType::kUint8}};
  for (const Form& f : forms) {
    OnnxWriteOptions wo;
    wo.form = f.form;
    wo.activations = f.activations;
    const Graph g = read_onnx(write_onnx(f.graph, wo), f.name);
    const bool u8 = f.activations == DType::kUint8;
    const Tensor input = qparity::cli::generate_tensor(f.activations, {1, 3, 64, 64}, 5, u8 ? 0 : -128, u8 ? 255 : 127);
    for (const char* profile : {"ort-cpu", "tflite-xnnpack-x86"}) expect_same_tensors(g, profile, input, 2);
  }
}

// The int8 QDQ form under ort-cpu: ONNX Runtime does not fuse int8 QDQ convolutions on x86, so every
// Conv and the MatMul run the unfused float32 engine (tools/model/onnx/ort_qdq_float.cc), whose
// qdq_fma kernel calls split over output pixels (never over K): the same bits on 2 and 3 threads.
TEST(RunnerThreads, OnnxInt8QdqFloatConvsGiveTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  ZooOptions zo = small_zoo();
  zo.softmax = false;
  OnnxWriteOptions wo;
  wo.form = OnnxForm::kQdq;
  wo.activations = DType::kInt8;
  const Graph g = read_onnx(write_onnx(resnet18(zo), wo), "resnet18_qdq_s8");
  const Tensor input = qparity::cli::generate_tensor(DType::kInt8, {1, 3, 64, 64}, 5, -128, 127);
  for (unsigned threads : {2u, 3u}) expect_same_tensors(g, "ort-cpu", input, threads);
}

TEST(RunnerThreads, ThreadCountOutsideTheRangeIsAnError) {
  const Graph g = resnet_blocks(small_zoo(), 1, 16);
  for (unsigned bad : {0u, 65u}) {
    try {
      Runner r(g, systems_of(g, "tflite-reference"), Engine::kFast, bad);
      ADD_FAILURE() << bad << " threads accepted";
    } catch (const qparity::cli::ToolError& e) {
      EXPECT_NE(std::string(e.what()).find("allowed: 1..64"), std::string::npos) << e.what();
    }
  }
  try {
    checked_thread_count(-3, "--threads");
    ADD_FAILURE() << "-3 accepted";
  } catch (const qparity::cli::ToolError& e) {
    EXPECT_STREQ(e.what(), "--threads -3: allowed: 1..64");
  }
  EXPECT_EQ(checked_thread_count(64, "--threads"), 64u);
}

}  // namespace
