// The result of `qparity diff`: per layer (or per pair of dumps), the drift of B against A, and
// its renderings as an aligned terminal table, CSV and JSON (the SVG plots are in svg_plot.h).
//
// Isolated drift: layer i under B fed A's output of layer i-1 (the same input as A's layer i), so
// it measures what layer i's arithmetic alone changes. Accumulated drift: each side fed its own
// previous output, as two devices running the whole network would be. Layer 0 has both equal.
// Dumps give only accumulated drift (nothing can be re-run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "drift_metrics.h"

namespace qparity::cli {

struct LayerDrift {
  std::size_t index = 0;    ///< 0-based, as the stack's "layers" array and run's output file names
  std::string name;         ///< the layer's name, or the dump's file name
  std::string preset_a;     ///< empty for dumps
  std::string preset_b;
  std::vector<std::size_t> shape;
  std::int64_t zero_point = 0;  ///< the output zero point the cosine is taken around
  std::optional<DriftMetrics> isolated;
  DriftMetrics accumulated;
};

struct DriftReport {
  std::string label_a;  ///< what A is: "tflite-reference", a preset map, or a dump path
  std::string label_b;
  std::string source;   ///< the stack file, or "dumps"
  std::vector<LayerDrift> layers;
  bool per_channel = false;  ///< the metrics carry per-channel breakdowns (JSON lists them)

  /// Whether any layer has isolated metrics (stack mode).
  bool has_isolated() const;
  /// Whether any layer has integer (LSB) metrics, or metrics in real units.
  bool has_lsb() const;
  bool has_real() const;
  /// Whether A's or B's preset differs between layers (a preset map): the table then names them.
  bool mixed_presets() const;
};

/// The aligned tables. In LSBs, one row per layer with integer metrics: isolated and accumulated
/// differing (count and %), MAE and max |diff|, accumulated cosine and the accumulated histogram's
/// non-zero bins. In real units, one row per layer with real metrics (value_drift.h).
void render_drift_table(const DriftReport& report, fmt::memory_buffer& out);

/// The cells of those tables, as the terminal shows them (render_drift_table) and the HTML report
/// repeats them (html_report.h): the LSB table over the layers with integer metrics, the real-unit
/// table over the layers with real metrics. Columns from `first_number` on hold numbers.
struct DriftTableCells {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::size_t first_number = 2;
};
DriftTableCells lsb_table_cells(const DriftReport& report);
DriftTableCells real_table_cells(const DriftReport& report);
/// The sentence that introduces the real-unit table (what its columns mean).
const char* real_table_note();

/// One header line, one row per layer (columns listed in the file's header line; isolated
/// columns empty for dumps; histogram as "d:count" pairs separated by ';').
std::string drift_csv(const DriftReport& report);

/// {"a", "b", "source", "layers": [{"index", "name", "preset_a", "preset_b", "shape",
/// "zero_point", "isolated": metrics | null, "accumulated": metrics}]} with metrics
/// {"elements", "lsb": true, "differing", "percent_differing", "max_abs_diff", "mae", "mean_diff",
/// "cosine", "real": real | null, "worst": [{"at": [n, h, w, c], "a", "b"}, ...],
/// "histogram": [[b - a, count], ...], "channels": [...] (only with per_channel)}, or
/// {"elements", "lsb": false, "real": real} for float comparisons; real = {"differing",
/// "percent_differing", "nonfinite_mismatch", "max_abs_diff", "mae", "mean_diff", "rmse",
/// "cosine", "sqnr_db", "rel_err", "worst"}, where sqnr_db and rel_err may be the strings "inf" /
/// "-inf" (JSON has no infinity) and worst values may be "inf", "-inf" or null (NaN).
std::string drift_json(const DriftReport& report);

/// A real-unit metric with `digits` significant digits, "inf" / "-inf" for infinities.
std::string real_metric_text(double v, int digits);

/// "-1:12 +1:30" (the non-zero bins of a histogram, ascending), or "-" if there are none. With
/// `limit` > 0, bins beyond +-limit are summed into one "|d|>limit:N" item (the table's width).
std::string histogram_text(const DriftMetrics& m, const char* separator = " ", std::int64_t limit = 0);

}  // namespace qparity::cli
