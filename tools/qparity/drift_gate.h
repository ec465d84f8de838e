// Tolerance gates on a drift report (`qparity diff --fail-on`), so that the tool can guard a CI
// job: each gate is a condition that FAILS the run when a layer meets it, e.g.
//   max_lsb>1      some layer's accumulated max |b - a| exceeds one LSB
//   cosine<0.999   some layer's accumulated cosine similarity is below 0.999
//   iso.sqnr<30    some layer's isolated SQNR is below 30 dB
// Grammar: [iso.|acc.]METRIC OP NUMBER, OP one of > >= < <= == !=, no spaces needed. Metrics:
//   percent   % of elements differing (LSB comparison, else real)
//   max_lsb   max |b - a| in LSBs          mae_lsb   mean |b - a| in LSBs
//   cosine    cosine similarity (real units when known, else around the zero point in LSBs)
//   max_abs   max |b - a| in real units    mae       mean |b - a| in real units
//   rmse      root mean square of b - a    sqnr      SQNR in dB    rel_err   |b - a| / |a|
// A gate applies to the layers whose metrics include its metric (LSB metrics: layers compared as
// integers; real ones: float layers and integers with known quantization); a gate that applies to
// no layer of the report is an error, not a silent pass.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "drift_report.h"

namespace qparity::cli {

enum class GateMetric { kPercent, kMaxLsb, kMaeLsb, kCosine, kMaxAbs, kMae, kRmse, kSqnr, kRelErr };
enum class GateComparison { kGreater, kGreaterEqual, kLess, kLessEqual, kEqual, kNotEqual };

struct DriftGate {
  std::string text;        ///< as the user wrote it
  bool isolated = false;   ///< iso.: the isolated metrics (stacks and models with --b)
  GateMetric metric = GateMetric::kMaxLsb;
  GateComparison comparison = GateComparison::kGreater;
  double threshold = 0;
};

/// Parses the gates (each item may itself hold several gates separated by commas). Throws
/// ToolError "<option>: ..." naming the item, the metrics and the comparisons allowed.
std::vector<DriftGate> parse_drift_gates(const std::vector<std::string>& items, const std::string& option);

struct GateFailure {
  std::size_t row = 0;  ///< index into DriftReport::layers
  const DriftGate* gate = nullptr;
  double value = 0;
};

/// Every (layer, gate) pair whose condition holds, in layer order. Throws ToolError when a gate
/// applies to no layer of the report (its metric is missing everywhere).
std::vector<GateFailure> evaluate_drift_gates(const DriftReport& report, const std::vector<DriftGate>& gates);

/// The value of `metric` in one side's metrics, if they have it (LSB metrics: an integer
/// comparison; real ones: floats or integers of known quantization; cosine: real if known, else
/// around the zero point in LSBs; percent: LSB if known, else real).
std::optional<double> metric_value(const DriftMetrics& m, GateMetric metric);

/// A metric chosen by name for export: "[iso.|acc.]METRIC" with the names of the gates.
struct MetricChoice {
  bool isolated = false;
  GateMetric metric = GateMetric::kMaxLsb;
  std::string text;  ///< as the user wrote it
};
/// Throws ToolError "<option>: ..." naming the text and the metrics allowed.
MetricChoice parse_metric_choice(const std::string& text, const std::string& option);

/// Whether a larger value of the metric means more drift (cosine and SQNR: a smaller one).
bool larger_is_worse(GateMetric metric);

/// "max_lsb", "cosine", ... and ">", "<=", ...
const char* to_string(GateMetric metric);
const char* to_string(GateComparison comparison);

}  // namespace qparity::cli
