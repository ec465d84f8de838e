#include "model/model_diff.h"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "model/node_map.h"
#include "model/runner.h"
#include "npy.h"
#include "tool_error.h"

namespace qparity::model {

cli::DriftReport diff_model(const Graph& graph, const std::vector<Tensor>& inputs, const ModelDiffOptions& o,
                            std::size_t* other_outputs) {
  using cli::LayerDrift;
  cli::DriftReport report;
  const std::vector<System> sys_a = resolve_node_map(parse_node_map(o.a, "--a"), graph, "--a");
  report.label_a = o.a;
  report.source = graph.source;
  report.per_channel = o.per_channel;  // the JSON lists the per-channel breakdowns
  Runner ra(graph, sys_a, Engine::kFast, o.threads);
  ra.run(inputs);
  std::unique_ptr<Runner> rb, riso;
  std::vector<System> sys_b;
  if (!o.b.empty()) {
    report.label_b = o.b;
    sys_b = resolve_node_map(parse_node_map(o.b, "--b"), graph, "--b");
    rb = std::make_unique<Runner>(graph, sys_b, Engine::kFast, o.threads);
    rb->run(inputs);
    riso = std::make_unique<Runner>(graph, sys_b, Engine::kFast, o.threads);
  } else {
    report.label_b = o.dump_b;
  }
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (o.progress) o.progress(i, graph.node_label(i));
    if (riso) {
      for (int t : node.inputs) {
        if (t >= 0 && !graph.tensors[static_cast<std::size_t>(t)].constant()) riso->set_value(t, ra.value(t));
      }
      riso->run_node(i);
    }
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      const int t = node.outputs[k];
      const TensorDef& def = graph.tensors[static_cast<std::size_t>(t)];
      const bool is_float = cli::is_float(def.dtype);
      // The int32 outputs of accumulate-only conv-like nodes (ONNX ConvInteger / MatMulInteger) are
      // raw accumulators, compared in units of 1; other int32 / int64 outputs are index and shape
      // tensors, not activations.
      const bool accumulators =
          def.dtype == DType::kInt32 &&
          (node.op == OpKind::kConv2D || node.op == OpKind::kDepthwiseConv2D || node.op == OpKind::kFullyConnected);
      if (!is_float && !accumulators && def.dtype != DType::kInt8 && def.dtype != DType::kUint8 &&
          def.dtype != DType::kInt16) {
        ++*other_outputs;
        continue;
      }
      LayerDrift d;
      d.index = i;
      d.name = node.outputs.size() == 1 ? node.name : fmt::format("{}:{}", node.name, k);
      d.preset_a = sys_a[i].name;
      d.preset_b = rb ? sys_b[i].name : std::string("dump");
      d.shape = def.shape;
      d.zero_point = def.quant.zero_point();
      // Integer activations of one scale are compared in real units as well; a dumped B may be
      // float (a device's dequantized output), compared with A's values dequantized.
      std::optional<cli::Dequantization> q;
      if (!is_float && def.quant.scales.size() == 1) {
        q = cli::Dequantization{def.quant.scales[0], def.quant.zero_point()};
      }
      const Tensor& a = ra.value(t);
      const std::string name_a = "A (" + graph.tensor_label(t) + ")";
      if (rb) {
        d.accumulated = cli::compare_tensors({&a, name_a, q}, {&rb->value(t), "B", q}, d.zero_point, o.per_channel);
        d.isolated = cli::compare_tensors({&a, name_a, q}, {&riso->value(t), "B", q}, d.zero_point, o.per_channel);
      } else {
        const std::string path = o.dump_b + "/" + graph.dump_file_name(t);
        const Tensor b = cli::read_npy(path);
        const std::optional<cli::Dequantization> qb = cli::is_float(b.dtype) ? std::nullopt : q;
        const std::optional<cli::Dequantization> qa = cli::is_float(b.dtype) || qb ? q : std::nullopt;
        d.accumulated = cli::compare_tensors({&a, name_a, qa}, {&b, path, qb}, d.zero_point, o.per_channel);
      }
      report.layers.push_back(std::move(d));
    }
  }
  return report;
}

}  // namespace qparity::model
