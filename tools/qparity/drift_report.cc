#include "drift_report.h"

#include <cstdio>
#include <limits>

#include "table.h"
#include "tensor.h"

namespace qparity::cli {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// A double that JSON can hold (NaN and infinities cannot occur in the metrics, but never emit an
// invalid document): the shortest text that reads back to the same value.
std::string json_number(double v) {
  if (!(v == v) || v > 1e308 || v < -1e308) return "null";
  return fmt::format("{}", v);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string percent_text(const DriftMetrics& m) { return fmt::format("{:.3f}", m.percent_differing()); }

// A metric that may be infinite (SQNR, relative error): JSON has no infinity, so "inf" / "-inf"
// as strings (the schema says so).
std::string json_extended_number(double v) {
  if (v == std::numeric_limits<double>::infinity()) return "\"inf\"";
  if (v == -std::numeric_limits<double>::infinity()) return "\"-inf\"";
  return json_number(v);
}

std::string coordinates_json(std::size_t index, const std::vector<std::size_t>& shape) {
  return fmt::format("[{}]", fmt::join(coordinates_of(index, shape), ", "));
}

std::string worst_json(const std::vector<ElementPair>& worst, const std::vector<std::size_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < worst.size(); ++i) {
    out += fmt::format("{}{{\"at\": {}, \"a\": {}, \"b\": {}}}", i ? ", " : "",
                       coordinates_json(worst[i].index, shape), json_extended_number(worst[i].a),
                       json_extended_number(worst[i].b));
  }
  return out + "]";
}

std::string real_json(const ValueDrift& r, const std::vector<std::size_t>& shape) {
  return fmt::format(
      "{{\"differing\": {}, \"percent_differing\": {}, \"nonfinite_mismatch\": {}, \"max_abs_diff\": {}, "
      "\"mae\": {}, \"mean_diff\": {}, \"rmse\": {}, \"cosine\": {}, \"sqnr_db\": {}, \"rel_err\": {}, "
      "\"worst\": {}}}",
      r.differing, json_number(r.percent_differing()), r.nonfinite_mismatch, json_number(r.max_abs_diff),
      json_number(r.mae), json_number(r.mean_diff), json_number(r.rmse), json_number(r.cosine),
      json_extended_number(r.sqnr_db), json_extended_number(r.rel_err), worst_json(r.worst, shape));
}

std::string metrics_json(const DriftMetrics& m, bool per_channel, const std::vector<std::size_t>& shape) {
  const std::string real = m.real ? real_json(*m.real, shape) : "null";
  if (!m.lsb) {
    return fmt::format("{{\"elements\": {}, \"lsb\": false, \"real\": {}}}", m.elements, real);
  }
  std::string out = fmt::format(
      "{{\"elements\": {}, \"lsb\": true, \"differing\": {}, \"percent_differing\": {}, \"max_abs_diff\": {}, "
      "\"mae\": {}, \"mean_diff\": {}, \"cosine\": {}, \"real\": {}, \"worst\": {}, \"histogram\": [",
      m.elements, m.differing, json_number(m.percent_differing()), m.max_abs_diff,
      json_number(m.mae), json_number(m.mean_diff), json_number(m.cosine), real, worst_json(m.worst, shape));
  bool first = true;
  for (const auto& [d, count] : m.histogram) {
    out += fmt::format("{}[{}, {}]", first ? "" : ", ", d, count);
    first = false;
  }
  out += "]";
  if (per_channel) {
    out += ", \"channels\": [";
    for (std::size_t c = 0; c < m.channels.size(); ++c) {
      const ChannelDrift& ch = m.channels[c];
      out += fmt::format("{}{{\"channel\": {}, \"elements\": {}, \"differing\": {}, "
                         "\"max_abs_diff\": {}, \"mae\": {}}}",
                         c == 0 ? "" : ", ", c, ch.elements, ch.differing, ch.max_abs_diff,
                         json_number(ch.mae));
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace

bool DriftReport::has_isolated() const {
  for (const LayerDrift& l : layers) {
    if (l.isolated) return true;
  }
  return false;
}

bool DriftReport::mixed_presets() const {
  for (const LayerDrift& l : layers) {
    if (l.preset_a != layers.front().preset_a || l.preset_b != layers.front().preset_b) return true;
  }
  return false;
}

std::string histogram_text(const DriftMetrics& m, const char* separator, std::int64_t limit) {
  std::string out;
  std::uint64_t beyond = 0;
  for (const auto& [d, count] : m.histogram) {
    if (d == 0) continue;
    if (limit > 0 && (d > limit || d < -limit)) {
      beyond += count;
      continue;
    }
    if (!out.empty()) out += separator;
    out += fmt::format("{:+}:{}", d, count);
  }
  if (beyond > 0) out += fmt::format("{}|d|>{}:{}", out.empty() ? "" : separator, limit, beyond);
  return out.empty() ? "-" : out;
}

bool DriftReport::has_lsb() const {
  for (const LayerDrift& l : layers) {
    if (l.accumulated.lsb) return true;
  }
  return false;
}

bool DriftReport::has_real() const {
  for (const LayerDrift& l : layers) {
    if (l.accumulated.real) return true;
  }
  return false;
}

std::string real_metric_text(double v, int digits) {
  if (v == std::numeric_limits<double>::infinity()) return "inf";
  if (v == -std::numeric_limits<double>::infinity()) return "-inf";
  return fmt::format("{:.{}g}", v, digits);
}

namespace {

// The columns both tables start with: layer, name, the presets when a map mixes them, elements.
std::vector<std::string> leading_headers(bool mixed) {
  std::vector<std::string> h = {"layer", "name"};
  if (mixed) {
    h.push_back("A");
    h.push_back("B");
  }
  h.push_back("elements");
  return h;
}

std::vector<std::string> leading_cells(const LayerDrift& l, bool mixed) {
  std::vector<std::string> row = {std::to_string(l.index), l.name};
  if (mixed) {
    row.push_back(l.preset_a);
    row.push_back(l.preset_b);
  }
  row.push_back(std::to_string(l.accumulated.elements));
  return row;
}

}  // namespace

DriftTableCells lsb_table_cells(const DriftReport& report) {
  const bool iso = report.has_isolated();
  const bool mixed = report.mixed_presets();
  DriftTableCells t;
  t.headers = leading_headers(mixed);
  t.first_number = mixed ? 4 : 2;
  if (iso) {
    for (const char* h : {"iso.diff", "iso.%", "iso.mae", "iso.max"}) t.headers.push_back(h);
  }
  for (const char* h : {"acc.diff", "acc.%", "acc.mae", "acc.max", "acc.cosine", "acc.b-a"}) {
    t.headers.push_back(h);
  }
  for (const LayerDrift& l : report.layers) {
    if (!l.accumulated.lsb) continue;
    std::vector<std::string> row = leading_cells(l, mixed);
    if (iso) {
      if (l.isolated && l.isolated->lsb) {
        row.push_back(std::to_string(l.isolated->differing));
        row.push_back(percent_text(*l.isolated));
        row.push_back(fmt::format("{:.4f}", l.isolated->mae));
        row.push_back(std::to_string(l.isolated->max_abs_diff));
      } else {
        for (int i = 0; i < 4; ++i) row.push_back("-");
      }
    }
    const DriftMetrics& a = l.accumulated;
    row.push_back(std::to_string(a.differing));
    row.push_back(percent_text(a));
    row.push_back(fmt::format("{:.4f}", a.mae));
    row.push_back(std::to_string(a.max_abs_diff));
    row.push_back(fmt::format("{:.6f}", a.cosine));
    row.push_back(histogram_text(a, " ", 2));
    t.rows.push_back(std::move(row));
  }
  return t;
}

DriftTableCells real_table_cells(const DriftReport& report) {
  const bool iso = report.has_isolated();
  const bool mixed = report.mixed_presets();
  DriftTableCells t;
  t.headers = leading_headers(mixed);
  t.first_number = mixed ? 4 : 2;
  if (iso) {
    for (const char* h : {"iso.%", "iso.max", "iso.sqnr"}) t.headers.push_back(h);
  }
  for (const char* h : {"acc.%", "acc.mae", "acc.max", "acc.rmse", "acc.cosine", "acc.sqnr", "acc.rel"}) {
    t.headers.push_back(h);
  }
  for (const LayerDrift& l : report.layers) {
    if (!l.accumulated.real) continue;
    std::vector<std::string> row = leading_cells(l, mixed);
    if (iso) {
      if (l.isolated && l.isolated->real) {
        const ValueDrift& r = *l.isolated->real;
        row.push_back(fmt::format("{:.3f}", r.percent_differing()));
        row.push_back(real_metric_text(r.max_abs_diff, 4));
        row.push_back(real_metric_text(r.sqnr_db, 4));
      } else {
        for (int i = 0; i < 3; ++i) row.push_back("-");
      }
    }
    const ValueDrift& r = *l.accumulated.real;
    row.push_back(fmt::format("{:.3f}", r.percent_differing()));
    row.push_back(real_metric_text(r.mae, 4));
    row.push_back(real_metric_text(r.max_abs_diff, 4));
    row.push_back(real_metric_text(r.rmse, 4));
    row.push_back(fmt::format("{:.6f}", r.cosine));
    row.push_back(real_metric_text(r.sqnr_db, 4));
    row.push_back(real_metric_text(r.rel_err, 3));
    t.rows.push_back(std::move(row));
  }
  return t;
}

const char* real_table_note() {
  return "In real units (float values; integers dequantized with their own scale and zero point): % differing, MAE, "
         "max |diff|, RMSE, cosine, SQNR (dB, of A over B - A), relative error |B - A| / |A|.";
}

namespace {

// Numbers right-aligned, names left-aligned; the LSB table's last column (the histogram) too.
void render_cells(const DriftTableCells& cells, bool last_left, fmt::memory_buffer& out) {
  Table table(cells.headers);
  const std::size_t end = cells.headers.size() - (last_left ? 1 : 0);
  for (std::size_t c = cells.first_number; c < end; ++c) table.set_align(c, Table::Align::kRight);
  table.set_align(0, Table::Align::kRight);
  for (const std::vector<std::string>& row : cells.rows) table.add_row(row);
  table.render(out);
}

}  // namespace

void render_drift_table(const DriftReport& report, fmt::memory_buffer& out) {
  const bool lsb = report.has_lsb(), real = report.has_real();
  if (lsb) render_cells(lsb_table_cells(report), true, out);
  if (real) {
    if (lsb) fmt::format_to(std::back_inserter(out), "\n");
    fmt::format_to(std::back_inserter(out), "{}\n", real_table_note());
    render_cells(real_table_cells(report), false, out);
  }
}

std::string drift_csv(const DriftReport& report) {
  std::string out =
      "layer,name,preset_a,preset_b,shape,elements,"
      "iso_differing,iso_percent,iso_max_abs_diff,iso_mae,iso_mean_diff,iso_cosine,"
      "acc_differing,acc_percent,acc_max_abs_diff,acc_mae,acc_mean_diff,acc_cosine,acc_histogram,"
      "iso_real_percent,iso_real_max_abs_diff,iso_real_mae,iso_real_rmse,iso_real_cosine,iso_real_sqnr_db,"
      "iso_real_rel_err,"
      "acc_real_percent,acc_real_max_abs_diff,acc_real_mae,acc_real_rmse,acc_real_cosine,acc_real_sqnr_db,"
      "acc_real_rel_err\n";
  auto metrics = [](const DriftMetrics& m) {
    if (!m.lsb) return std::string(",,,,,");
    return fmt::format("{},{},{},{},{},{}", m.differing, m.percent_differing(), m.max_abs_diff,
                       m.mae, m.mean_diff, m.cosine);
  };
  auto real = [](const DriftMetrics* m) {
    if (m == nullptr || !m->real) return std::string(",,,,,,");
    const ValueDrift& r = *m->real;
    return fmt::format("{},{},{},{},{},{},{}", r.percent_differing(), r.max_abs_diff, r.mae, r.rmse, r.cosine,
                       real_metric_text(r.sqnr_db, 17), real_metric_text(r.rel_err, 17));
  };
  for (const LayerDrift& l : report.layers) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", l.index, csv_field(l.name),
                       csv_field(l.preset_a), csv_field(l.preset_b), csv_field(shape_text(l.shape)),
                       l.accumulated.elements, l.isolated ? metrics(*l.isolated) : ",,,,,",
                       metrics(l.accumulated),
                       l.accumulated.lsb ? csv_field(histogram_text(l.accumulated, ";")) : std::string(),
                       real(l.isolated ? &*l.isolated : nullptr), real(&l.accumulated));
  }
  return out;
}

std::string drift_json(const DriftReport& report) {
  std::string out = fmt::format("{{\n  \"a\": {},\n  \"b\": {},\n  \"source\": {},\n  \"layers\": [",
                                json_string(report.label_a), json_string(report.label_b),
                                json_string(report.source));
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    const LayerDrift& l = report.layers[i];
    std::string shape = "[";
    for (std::size_t d = 0; d < l.shape.size(); ++d) shape += fmt::format("{}{}", d ? ", " : "", l.shape[d]);
    shape += "]";
    out += fmt::format(
        "{}\n    {{\"index\": {}, \"name\": {}, \"preset_a\": {}, \"preset_b\": {}, \"shape\": {}, "
        "\"zero_point\": {},\n     \"isolated\": {},\n     \"accumulated\": {}}}",
        i == 0 ? "" : ",", l.index, json_string(l.name), json_string(l.preset_a),
        json_string(l.preset_b), shape, l.zero_point,
        l.isolated ? metrics_json(*l.isolated, report.per_channel, l.shape) : "null",
        metrics_json(l.accumulated, report.per_channel, l.shape));
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace qparity::cli
