#include "model_explorer_data.h"

#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tool_error.h"

namespace qparity::cli {

MetricChoice default_node_data_metric(const DriftReport& report) {
  MetricChoice c;
  c.metric = report.has_lsb() ? GateMetric::kMaxLsb : GateMetric::kMaxAbs;
  c.text = to_string(c.metric);
  return c;
}

NodeDataExport model_explorer_node_data(const DriftReport& report, const std::vector<std::string>& node_keys,
                                        const MetricChoice& metric, const std::string& option) {
  if (node_keys.size() != report.layers.size()) {
    throw ToolError(fmt::format("{}: {} node keys for {} rows", option, node_keys.size(), report.layers.size()));
  }
  const bool worse_up = larger_is_worse(metric.metric);
  // Per node key, in the order of first appearance (the graph's execution order): the worst value.
  std::vector<std::string> order;
  std::map<std::string, double> value;
  NodeDataExport e;
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    const LayerDrift& l = report.layers[i];
    const DriftMetrics* m = metric.isolated ? (l.isolated ? &*l.isolated : nullptr) : &l.accumulated;
    const std::optional<double> v = m ? metric_value(*m, metric.metric) : std::nullopt;
    if (!v || !std::isfinite(*v)) {
      ++e.left_out;
      continue;
    }
    const auto [it, fresh] = value.emplace(node_keys[i], *v);
    if (fresh) {
      order.push_back(node_keys[i]);
    } else if (worse_up ? *v > it->second : *v < it->second) {
      it->second = *v;
    }
  }
  if (order.empty()) {
    throw ToolError(fmt::format("{}: no op output has a finite {} (LSB metrics need outputs compared as integers, "
                                "real ones known quantization or floats{})",
                                option, metric.text, metric.isolated ? ", iso. a run of B (--b)" : ""));
  }
  nlohmann::ordered_json results = nlohmann::ordered_json::object();
  for (const std::string& key : order) results[key] = {{"value", value[key]}};
  const char* good = "#2e7d32";  // green: the least drift in the file
  const char* mid = "#f9a825";
  const char* bad = "#c62828";   // red: the most
  nlohmann::ordered_json gradient = nlohmann::ordered_json::array();
  gradient.push_back({{"stop", 0}, {"bgColor", worse_up ? good : bad}});
  gradient.push_back({{"stop", 0.5}, {"bgColor", mid}});
  gradient.push_back({{"stop", 1}, {"bgColor", worse_up ? bad : good}});
  nlohmann::ordered_json doc = {{"results", std::move(results)}, {"gradient", std::move(gradient)}};
  e.json = doc.dump(2) + "\n";
  e.nodes = order.size();
  return e;
}

}  // namespace qparity::cli
