#include "drift_gate.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr GateMetric kMetrics[] = {GateMetric::kPercent, GateMetric::kMaxLsb, GateMetric::kMaeLsb,
                                   GateMetric::kCosine,  GateMetric::kMaxAbs, GateMetric::kMae,
                                   GateMetric::kRmse,    GateMetric::kSqnr,   GateMetric::kRelErr};
// Two-character comparisons first, so that ">=" is not read as ">" followed by "=1".
constexpr GateComparison kComparisons[] = {GateComparison::kGreaterEqual, GateComparison::kLessEqual,
                                           GateComparison::kEqual,        GateComparison::kNotEqual,
                                           GateComparison::kGreater,      GateComparison::kLess};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string metric_names() {
  std::string out;
  for (GateMetric m : kMetrics) out += fmt::format("{}{}", out.empty() ? "" : ", ", to_string(m));
  return out;
}

bool find_metric(const std::string& name, GateMetric* metric) {
  for (GateMetric m : kMetrics) {
    if (name == to_string(m)) {
      *metric = m;
      return true;
    }
  }
  return false;
}

DriftGate parse_gate(const std::string& item, const std::string& option) {
  const std::string text = trim(item);
  auto fail = [&](const std::string& why) {
    throw ToolError(fmt::format("{}: '{}' {}; a gate is [iso.|acc.]METRIC OP NUMBER with METRIC one of {} and OP "
                                "one of > >= < <= == != (e.g. 'max_lsb>1', 'cosine<0.999')",
                                option, text, why, metric_names()));
  };
  DriftGate g;
  g.text = text;
  std::size_t op_at = std::string::npos, op_len = 0;
  for (GateComparison c : kComparisons) {
    const std::string op = to_string(c);
    const std::size_t at = text.find(op);
    if (at != std::string::npos && (op_at == std::string::npos || at < op_at)) {
      op_at = at;
      op_len = op.size();
      g.comparison = c;
    }
  }
  if (op_at == std::string::npos) fail("has no comparison");
  std::string name = trim(text.substr(0, op_at));
  const std::string number = trim(text.substr(op_at + op_len));
  if (name.rfind("iso.", 0) == 0) {
    g.isolated = true;
    name = name.substr(4);
  } else if (name.rfind("acc.", 0) == 0) {
    name = name.substr(4);
  }
  if (!find_metric(name, &g.metric)) fail(fmt::format("names no known metric ('{}')", name));
  if (number.empty()) fail("has no number after the comparison");
  errno = 0;
  char* end = nullptr;
  g.threshold = std::strtod(number.c_str(), &end);
  if (end == nullptr || *end != '\0' || errno == ERANGE || !std::isfinite(g.threshold)) {
    fail(fmt::format("has '{}' where a finite number belongs", number));
  }
  return g;
}

}  // namespace

std::optional<double> metric_value(const DriftMetrics& m, GateMetric metric) {
  switch (metric) {
    case GateMetric::kPercent:
      if (m.lsb) return m.percent_differing();
      if (m.real) return m.real->percent_differing();
      return std::nullopt;
    case GateMetric::kMaxLsb:
      if (m.lsb) return static_cast<double>(m.max_abs_diff);
      return std::nullopt;
    case GateMetric::kMaeLsb:
      if (m.lsb) return m.mae;
      return std::nullopt;
    case GateMetric::kCosine:
      if (m.real) return m.real->cosine;
      if (m.lsb) return m.cosine;
      return std::nullopt;
    case GateMetric::kMaxAbs:
      if (m.real) return m.real->max_abs_diff;
      return std::nullopt;
    case GateMetric::kMae:
      if (m.real) return m.real->mae;
      return std::nullopt;
    case GateMetric::kRmse:
      if (m.real) return m.real->rmse;
      return std::nullopt;
    case GateMetric::kSqnr:
      if (m.real) return m.real->sqnr_db;
      return std::nullopt;
    case GateMetric::kRelErr:
      if (m.real) return m.real->rel_err;
      return std::nullopt;
  }
  return std::nullopt;
}

namespace {

bool holds(double value, GateComparison c, double threshold) {
  switch (c) {
    case GateComparison::kGreater: return value > threshold;
    case GateComparison::kGreaterEqual: return value >= threshold;
    case GateComparison::kLess: return value < threshold;
    case GateComparison::kLessEqual: return value <= threshold;
    case GateComparison::kEqual: return value == threshold;
    case GateComparison::kNotEqual: return value != threshold;
  }
  return false;
}

}  // namespace

MetricChoice parse_metric_choice(const std::string& text, const std::string& option) {
  MetricChoice c;
  c.text = trim(text);
  std::string name = c.text;
  if (name.rfind("iso.", 0) == 0) {
    c.isolated = true;
    name = name.substr(4);
  } else if (name.rfind("acc.", 0) == 0) {
    name = name.substr(4);
  }
  if (!find_metric(name, &c.metric)) {
    throw ToolError(fmt::format("{}: '{}' is not a metric; allowed: [iso.|acc.]METRIC with METRIC one of {}", option,
                                c.text, metric_names()));
  }
  return c;
}

bool larger_is_worse(GateMetric metric) { return metric != GateMetric::kCosine && metric != GateMetric::kSqnr; }

const char* to_string(GateMetric metric) {
  switch (metric) {
    case GateMetric::kPercent: return "percent";
    case GateMetric::kMaxLsb: return "max_lsb";
    case GateMetric::kMaeLsb: return "mae_lsb";
    case GateMetric::kCosine: return "cosine";
    case GateMetric::kMaxAbs: return "max_abs";
    case GateMetric::kMae: return "mae";
    case GateMetric::kRmse: return "rmse";
    case GateMetric::kSqnr: return "sqnr";
    case GateMetric::kRelErr: return "rel_err";
  }
  return "?";
}

const char* to_string(GateComparison comparison) {
  switch (comparison) {
    case GateComparison::kGreater: return ">";
    case GateComparison::kGreaterEqual: return ">=";
    case GateComparison::kLess: return "<";
    case GateComparison::kLessEqual: return "<=";
    case GateComparison::kEqual: return "==";
    case GateComparison::kNotEqual: return "!=";
  }
  return "?";
}

std::vector<DriftGate> parse_drift_gates(const std::vector<std::string>& items, const std::string& option) {
  std::vector<DriftGate> gates;
  for (const std::string& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      const std::size_t comma = item.find(',', start);
      const std::string part = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (trim(part).empty()) throw ToolError(fmt::format("{}: '{}' has an empty gate", option, item));
      gates.push_back(parse_gate(part, option));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return gates;
}

std::vector<GateFailure> evaluate_drift_gates(const DriftReport& report, const std::vector<DriftGate>& gates) {
  std::vector<GateFailure> failures;
  std::vector<bool> applied(gates.size(), false);
  for (std::size_t row = 0; row < report.layers.size(); ++row) {
    const LayerDrift& l = report.layers[row];
    for (std::size_t g = 0; g < gates.size(); ++g) {
      const DriftMetrics* m = gates[g].isolated ? (l.isolated ? &*l.isolated : nullptr) : &l.accumulated;
      if (m == nullptr) continue;
      const std::optional<double> v = metric_value(*m, gates[g].metric);
      if (!v) continue;
      applied[g] = true;
      if (holds(*v, gates[g].comparison, gates[g].threshold)) failures.push_back({row, &gates[g], *v});
    }
  }
  for (std::size_t g = 0; g < gates.size(); ++g) {
    if (applied[g]) continue;
    const bool real_metric = gates[g].metric == GateMetric::kMaxAbs || gates[g].metric == GateMetric::kMae ||
                             gates[g].metric == GateMetric::kRmse || gates[g].metric == GateMetric::kSqnr ||
                             gates[g].metric == GateMetric::kRelErr;
    std::string why;
    if (gates[g].isolated && !report.has_isolated()) {
      why = "this comparison has no isolated metrics (dumps give accumulated drift only)";
    } else if (real_metric) {
      why = "no layer was compared in real units (float tensors, or integers whose scale and zero point are known: "
            "--scale-a/--zp-a and --scale-b/--zp-b for dumps)";
    } else {
      why = "no layer was compared as integers of one type (LSB metrics)";
    }
    throw ToolError(fmt::format("--fail-on: '{}' applies to no layer: {}", gates[g].text, why));
  }
  return failures;
}

}  // namespace qparity::cli
