#include "drift_locate.h"

#include <algorithm>
#include <cmath>

#include "table.h"
#include "value_drift.h"

namespace qparity::cli {
namespace {

template <class... Args>
void put(fmt::memory_buffer& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

std::string layer_name(const LayerDrift& l) {
  return l.name.empty() ? fmt::format("layer {}", l.index) : fmt::format("layer {} ({})", l.index, l.name);
}

std::string coordinates_text(std::size_t index, const std::vector<std::size_t>& shape) {
  return fmt::format("[{}]", fmt::join(coordinates_of(index, shape), ", "));
}

std::string value_text(double v, bool lsb) {
  if (lsb) return fmt::format("{}", static_cast<long long>(v));
  if (std::isnan(v)) return "nan";
  return real_metric_text(v, 7);
}

// "A 17, B 19 (+2 LSB)" / "A 0.25, B 0.2578125 (+0.0078125)".
std::string pair_text(const ElementPair& e, bool lsb) {
  std::string d;
  if (lsb) {
    d = fmt::format("{:+} LSB", static_cast<long long>(e.b - e.a));
  } else if (std::isfinite(e.a) && std::isfinite(e.b)) {
    d = fmt::format("{:+.7g}", e.b - e.a);
  } else {
    d = "non-finite";
  }
  return fmt::format("A {}, B {} ({})", value_text(e.a, lsb), value_text(e.b, lsb), d);
}

// The comparison that locates a layer's drift: in LSBs when the layer has them, else in real units.
struct Located {
  std::uint64_t differing = 0;
  double percent = 0;
  const std::vector<ElementPair>* worst = nullptr;
  bool lsb = true;
};

Located located(const DriftMetrics& m) {
  if (m.lsb) return {m.differing, m.percent_differing(), &m.worst, true};
  if (m.real) return {m.real->differing, m.real->percent_differing(), &m.real->worst, false};
  return {};
}

}  // namespace

void render_first_difference(const DriftReport& report, fmt::memory_buffer& out) {
  for (const LayerDrift& l : report.layers) {
    const Located d = located(l.accumulated);
    if (d.differing == 0) continue;
    put(out, "First difference: {}, {} of {} element{} ({:.3f}%)", layer_name(l), d.differing, l.accumulated.elements,
        l.accumulated.elements == 1 ? "" : "s", d.percent);
    if (d.worst != nullptr && !d.worst->empty()) {
      put(out, "; worst at {}: {}", coordinates_text(d.worst->front().index, l.shape), pair_text(d.worst->front(), d.lsb));
    }
    put(out, ".\n");
    return;
  }
  const std::size_t n = report.layers.size();
  put(out, "No difference: A and B agree on every element of {} {}.\n", n == 1 ? "the" : fmt::format("all {}", n),
      n == 1 ? "layer" : "layers");
}

void render_worst_elements(const DriftReport& report, std::size_t count, fmt::memory_buffer& out) {
  bool any = false;
  for (const LayerDrift& l : report.layers) {
    const Located d = located(l.accumulated);
    if (d.differing == 0 || d.worst == nullptr) continue;
    if (!any) {
      put(out, "\nWorst elements (accumulated; coordinates in the compared shape, {}):\n",
          report.has_lsb() ? "integers as stored" : "real units");
      any = true;
    }
    put(out, "  {} {}:\n", layer_name(l), shape_text(l.shape));
    const std::size_t shown = std::min(count, d.worst->size());
    for (std::size_t i = 0; i < shown; ++i) {
      put(out, "    {:<20} {}\n", coordinates_text((*d.worst)[i].index, l.shape), pair_text((*d.worst)[i], d.lsb));
    }
    if (d.differing > shown) put(out, "    ... {} more differing\n", d.differing - shown);
  }
}

void render_channel_tables(const DriftReport& report, std::size_t max_channels, fmt::memory_buffer& out) {
  for (const LayerDrift& l : report.layers) {
    const DriftMetrics& m = l.accumulated;
    if (!m.lsb || m.differing == 0 || m.channels.empty()) continue;
    std::vector<std::size_t> order;
    for (std::size_t c = 0; c < m.channels.size(); ++c) {
      if (m.channels[c].differing > 0) order.push_back(c);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return m.channels[x].differing > m.channels[y].differing;
    });
    put(out, "\nPer channel, {}: {} of {} channel{} differ (accumulated, last axis)\n", layer_name(l), order.size(),
        m.channels.size(), m.channels.size() == 1 ? "" : "s");
    Table table({"channel", "elements", "diff", "%", "mae", "max"});
    for (std::size_t c = 0; c < 6; ++c) table.set_align(c, Table::Align::kRight);
    for (std::size_t i = 0; i < order.size() && i < max_channels; ++i) {
      const ChannelDrift& ch = m.channels[order[i]];
      table.add_row({std::to_string(order[i]), std::to_string(ch.elements), std::to_string(ch.differing),
                     fmt::format("{:.2f}", ch.elements ? 100.0 * static_cast<double>(ch.differing) /
                                                             static_cast<double>(ch.elements)
                                                       : 0.0),
                     fmt::format("{:.4f}", ch.mae), std::to_string(ch.max_abs_diff)});
    }
    table.render(out);
    if (order.size() > max_channels) put(out, "  ... and {} more channels with differences\n", order.size() - max_channels);
  }
}

void render_gate_failures(const DriftReport& report, const std::vector<GateFailure>& failures,
                          std::size_t max_lines, fmt::memory_buffer& out) {
  if (failures.empty()) return;
  const LayerDrift& first = report.layers[failures.front().row];
  std::size_t layers = 0;
  for (std::size_t i = 0; i < failures.size(); ++i) {
    if (i == 0 || failures[i].row != failures[i - 1].row) ++layers;
  }
  put(out, "\nFAILED --fail-on: {} check{} in {} layer{}; first beyond the tolerance: {}.\n", failures.size(),
      failures.size() == 1 ? "" : "s", layers, layers == 1 ? "" : "s", layer_name(first));
  for (std::size_t i = 0; i < failures.size() && i < max_lines; ++i) {
    const GateFailure& f = failures[i];
    put(out, "  {}: {}{} = {} (fails '{}')\n", layer_name(report.layers[f.row]), f.gate->isolated ? "iso." : "",
        to_string(f.gate->metric), real_metric_text(f.value, 7), f.gate->text);
  }
  if (failures.size() > max_lines) put(out, "  ... {} more\n", failures.size() - max_lines);
}

}  // namespace qparity::cli
