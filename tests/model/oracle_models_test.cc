// Whole models in LiteRT.js against qparity's tflite-xnnpack-wasm profile, every output element:
//   * MobileNet v2 (224x224, seeded weights, per-channel int8, residual ADDs, MEAN, FULLY_CONNECTED,
//     SOFTMAX), as written (XNNPACK takes the convolutions), and with every filter turned into a
//     graph input (TFLite's own conv / depthwise / FC kernels run, XNNPACK the rest);
//   * a ResNet-style stack of basic blocks (7x7/2 stem, MAX_POOL_2D, residual ADD + RELU);
//   * the 20-layer demo stack of the README (examples/npu_drift/stack.json) exported as a model.
// The tests also check the models are not degenerate (outputs spread over many values), so that a
// saturated or constant network cannot pass by accident.
#include <gtest/gtest.h>

#include <set>

#include "layer.h"
#include "model/node_map.h"
#include "model/runner.h"
#include "model/zoo.h"
#include "oracle_util.h"
#include "stack_model.h"

namespace qparity_test {
namespace {

using namespace qparity::model;

// Every conv-like node's filter becomes a graph input (TFLite's XNNPACK delegate declines ops whose
// filter is computed at run time); its data is appended to `inputs`.
Graph with_filters_as_inputs(Graph g, std::vector<Tensor>* inputs) {
  for (const Node& n : g.nodes) {
    if (n.op != OpKind::kConv2D && n.op != OpKind::kDepthwiseConv2D && n.op != OpKind::kFullyConnected) continue;
    TensorDef& f = g.tensors[static_cast<std::size_t>(n.inputs[1])];
    inputs->push_back(*f.data);
    f.data.reset();
    g.inputs.push_back(n.inputs[1]);
  }
  validate(g);
  return g;
}

std::size_t distinct_values(const Tensor& t) {
  std::set<double> v;
  for (std::size_t i = 0; i < t.elements(); ++i) v.insert(t.value_at(i));
  return v.size();
}

OracleCase model_case(const std::string& op, const std::string& path, Graph g, std::vector<Tensor> inputs) {
  OracleCase c;
  c.op = op;
  c.path = path;
  c.profile = "tflite-xnnpack-wasm";
  c.label = op + " (" + path + ")";
  c.graph = std::move(g);
  c.inputs = std::move(inputs);
  c.contrasts = {"tflite-builtin-wasm", "tflite-reference"};
  return c;
}

TEST(TfliteOracleModels, MobileNetV2ResNetBlocksAndTheDemoStack) {
  std::mt19937 rng(7);
  std::vector<OracleCase> cases;
  ZooOptions zo;
  zo.seed = 11;
  zo.input_size = 224;
  const Graph mnv2 = mobilenet_v2(zo);
  const Tensor image = random_tensor(rng, DType::kInt8, {1, 224, 224, 3}, -128, 127);
  cases.push_back(model_case("MobileNet v2 224", "as written", mnv2, {image}));
  std::vector<Tensor> dyn_inputs = {image};
  Graph mnv2_dyn = with_filters_as_inputs(mnv2, &dyn_inputs);
  cases.push_back(model_case("MobileNet v2 224", "filters as inputs", std::move(mnv2_dyn), std::move(dyn_inputs)));
  zo.input_size = 112;
  zo.classes = 100;
  const Graph resnet = resnet_blocks(zo, 4, 64);
  cases.push_back(model_case("ResNet blocks 112", "as written", resnet,
                             {random_tensor(rng, DType::kInt8, {1, 112, 112, 3}, -128, 127)}));
  const qparity::cli::Stack stack = qparity::cli::load_stack(QPARITY_SOURCE_DIR "/examples/npu_drift/stack.json");
  cases.push_back(model_case("demo stack (20 CONV_2D)", "as written",
                             qparity::cli::stack_graph(stack, "examples/npu_drift/stack.json"), {*stack.input}));
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 1000u);

  // Not degenerate: under tflite-xnnpack-wasm, every conv output of MobileNet v2 spreads over many
  // values and the classifier's probabilities are not all equal.
  Runner r(mnv2, resolve_node_map(parse_node_map("tflite-xnnpack-wasm", "profile"), mnv2, "profile"));
  r.run({image});
  for (std::size_t i = 0; i < mnv2.nodes.size(); ++i) {
    const Node& n = mnv2.nodes[i];
    if (n.op != OpKind::kConv2D && n.op != OpKind::kDepthwiseConv2D) continue;
    EXPECT_GE(distinct_values(r.value(n.outputs[0])), 24u) << mnv2.node_label(i);
  }
  EXPECT_GE(distinct_values(r.value(mnv2.outputs[0])), 3u) << "softmax output";
}

}  // namespace
}  // namespace qparity_test
