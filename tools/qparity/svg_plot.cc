#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kAccumulatedColor = "#4e79a7";  // blue
constexpr const char* kIsolatedColor = "#f28e2b";     // orange
constexpr const char* kFont = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

// Coordinates with two decimals: enough for a screen, and the same text on every platform.
std::string num(double v) {
  const double r = std::round(v * 100) / 100;
  return fmt::format("{:.2f}", r == 0 ? 0.0 : r);  // never "-0.00"
}

class Svg {
 public:
  Svg(double width, double height) {
    out_ = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\">\n"
        "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
        num(width), num(height));
  }
  void text(double x, double y, const std::string& s, double size = 11,
            const char* anchor = "start", const char* extra = "") {
    out_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" {} text-anchor=\"{}\"{}>{}</text>\n",
                        num(x), num(y), num(size), kFont, anchor, extra, xml_escape(s));
  }
  void line(double x1, double y1, double x2, double y2, const char* color, double width = 1,
            const char* dash = nullptr) {
    out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n",
                        num(x1), num(y1), num(x2), num(y2), color, num(width),
                        dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : std::string());
  }
  void rect(double x, double y, double w, double h, const char* fill, const std::string& title = "",
            const char* stroke = nullptr) {
    const std::string attrs =
        fmt::format("x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}", num(x), num(y),
                    num(w), num(h), fill,
                    stroke ? fmt::format(" stroke=\"{}\"", stroke) : std::string());
    if (title.empty()) {
      out_ += fmt::format("<rect {}/>\n", attrs);
    } else {
      out_ += fmt::format("<rect {}><title>{}</title></rect>\n", attrs, xml_escape(title));
    }
  }
  void polyline(const std::vector<std::pair<double, double>>& points, const char* color,
                const char* dash) {
    std::string pts;
    for (const auto& [x, y] : points) pts += (pts.empty() ? "" : " ") + num(x) + "," + num(y);
    out_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
                        pts, color, dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : std::string());
  }
  void circle(double x, double y, double r, const char* fill, const std::string& title) {
    out_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n",
                        num(x), num(y), num(r), fill, xml_escape(title));
  }
  std::string finish() { return out_ + "</svg>\n"; }

 private:
  std::string out_;
};

// A "nice" tick step (1, 2 or 5 times a power of ten) giving at most about `max_ticks` ticks up to
// `max_value`.
double nice_step(double max_value, int max_ticks) {
  if (max_value <= 0) return 1;
  const double raw = max_value / max_ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

std::string tick_text(double v, double step) {
  if (step >= 1) return fmt::format("{:.0f}", v);
  const int decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", v, decimals);
}

void legend(Svg& svg, double x, double y, bool isolated, bool lines) {
  auto entry = [&](double at, const char* color, const char* dash, const std::string& label) {
    if (lines) {
      svg.line(at, y - 4, at + 24, y - 4, color, 2, dash);
    } else {
      svg.rect(at + 6, y - 10, 12, 10, color);
    }
    svg.text(at + 30, y, label);
  };
  entry(x, kAccumulatedColor, nullptr, "accumulated (each side fed its own previous output)");
  if (isolated) entry(x + 340, kIsolatedColor, "6,4", "isolated (both fed A's previous output)");
}

std::string layer_title(const LayerDrift& l) { return fmt::format("{} {}", l.index, l.name); }

// 10^decade of the elements as a percentage: "100%", "10%", "1%", "0.1%", "0.001%" (one unit on
// the axis).
std::string percent_decade(int decade) {
  const int p = decade + 2;  // 10^decade = 10^(decade + 2) %
  if (p >= 0) return fmt::format("{:.0f}%", std::pow(10.0, p));
  return fmt::format("{:.{}f}%", std::pow(10.0, p), -p);
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {

// The plots show drift in LSBs: the layers compared as integers of one grid. Float comparisons
// (real units only) are in the table, the CSV and the JSON.
DriftReport lsb_layers(const DriftReport& report, const char* plot) {
  DriftReport out = report;
  out.layers.clear();
  for (const LayerDrift& l : report.layers) {
    if (l.accumulated.lsb) out.layers.push_back(l);
  }
  if (out.layers.empty()) {
    throw ToolError(fmt::format("{} plots drift in LSBs, and no layer here was compared as integers (float "
                                "tensors, or integer tensors of different types, are compared in real units: "
                                "see the table, --csv or --json)",
                                plot));
  }
  return out;
}

}  // namespace

std::string histogram_svg(const DriftReport& full_report) {
  const DriftReport report = lsb_layers(full_report, "--svg-histogram");
  const std::size_t n = report.layers.size();
  const bool iso = report.has_isolated();
  std::int64_t limit = 1;
  double min_fraction = 1;  // smallest non-zero bin fraction: the bottom of the log axis
  for (const LayerDrift& l : report.layers) {
    for (const DriftMetrics* m : {&l.accumulated, l.isolated ? &*l.isolated : nullptr}) {
      if (m == nullptr || m->elements == 0) continue;
      limit = std::max(limit, std::min<std::int64_t>(m->max_abs_diff, 8));
      for (const auto& [d, count] : m->histogram) {
        min_fraction = std::min(min_fraction, static_cast<double>(count) / m->elements);
      }
    }
  }
  // The axis spans whole decades from below the smallest bin to 100 %.
  const int low_decade = std::min(-1, static_cast<int>(std::floor(std::log10(min_fraction))));
  bool clipped = false;  // some difference lies beyond the end bins, which then count it
  for (const LayerDrift& l : report.layers) {
    for (const DriftMetrics* m : {&l.accumulated, l.isolated ? &*l.isolated : nullptr}) {
      if (m != nullptr && m->max_abs_diff > limit) clipped = true;
    }
  }
  const std::size_t columns = std::min<std::size_t>(std::max<std::size_t>(n, 1), 5);
  const std::size_t rows = (std::max<std::size_t>(n, 1) + columns - 1) / columns;
  const double panel_w = 230, panel_h = 170, top = 70, left = 10;
  const double plot_x = 52, plot_y = 22, plot_w = panel_w - plot_x - 12, plot_h = panel_h - plot_y - 34;
  const std::string title =
      fmt::format("Difference b - a in LSBs per layer: A = {}, B = {}", report.label_a, report.label_b);
  const std::string subtitle =
      clipped ? fmt::format("Bars: % of the layer's output elements, log scale; bins -{0}..+{0}, the end bins "
                            "counting every larger difference (<=-{0}, >=+{0}).",
                            limit)
              : fmt::format("Bars: % of the layer's output elements, log scale; bins -{0}..+{0}.", limit);
  // Wide enough for the title, the subtitle and the legend whatever the number of panels (about
  // 0.6 em per character of the 14 px title, 0.55 em of the 11 px lines).
  const double width = std::max({left * 2 + panel_w * columns, 24 + 8.4 * static_cast<double>(title.size()),
                                 24 + 6.1 * static_cast<double>(subtitle.size()), iso ? 700.0 : 360.0});
  Svg svg(width, top + panel_h * rows + 10);
  svg.text(left, 22, title, 14, "start", " font-weight=\"bold\"");
  svg.text(left, 40, subtitle, 11);
  legend(svg, left, 58, iso, false);
  const std::size_t bins = static_cast<std::size_t>(2 * limit + 1);
  const double bin_w = plot_w / bins;
  auto y_of = [&](double fraction) {
    const double t = (std::log10(fraction) - low_decade) / (0 - low_decade);
    return plot_y + plot_h * (1 - std::max(0.0, std::min(1.0, t)));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const LayerDrift& l = report.layers[i];
    const double ox = left + panel_w * (i % columns), oy = top + panel_h * (i / columns);
    svg.text(ox + plot_x, oy + 14, layer_title(l), 11, "start", " font-weight=\"bold\"");
    svg.rect(ox + plot_x, oy + plot_y, plot_w, plot_h, "none", "", "#bbbbbb");
    for (int dec = low_decade; dec <= 0; ++dec) {
      const double y = oy + y_of(std::pow(10.0, dec));
      if (dec > low_decade && dec < 0) svg.line(ox + plot_x, y, ox + plot_x + plot_w, y, "#eeeeee");
      // Label every decade when there are few, every other one otherwise (top always).
      if ((0 - dec) % (low_decade < -4 ? 2 : 1) == 0) svg.text(ox + plot_x - 3, y + 4, percent_decade(dec), 9, "end");
    }
    const std::vector<std::uint64_t> acc = folded_histogram(l.accumulated, limit);
    const std::vector<std::uint64_t> isolated =
        l.isolated ? folded_histogram(*l.isolated, limit) : std::vector<std::uint64_t>();
    for (std::size_t b = 0; b < bins; ++b) {
      const std::int64_t d = static_cast<std::int64_t>(b) - limit;
      const double bx = ox + plot_x + bin_w * b;
      auto bar = [&](std::uint64_t count, std::uint64_t elements, double x, double w, const char* color,
                     const char* kind) {
        if (count == 0 || elements == 0) return;
        const double fraction = static_cast<double>(count) / elements;
        const double y = oy + y_of(fraction);
        svg.rect(x, y, w, oy + plot_y + plot_h - y, color,
                 fmt::format("layer {}, {}, b - a = {:+}{}: {} of {} elements ({:.4f}%)", layer_title(l),
                             kind, d, (d == -limit || d == limit) && limit > 1 ? " or beyond" : "", count,
                             elements, 100 * fraction));
      };
      if (iso) {
        bar(acc[b], l.accumulated.elements, bx + bin_w * 0.1, bin_w * 0.4, kAccumulatedColor, "accumulated");
        if (l.isolated) {
          bar(isolated[b], l.isolated->elements, bx + bin_w * 0.5, bin_w * 0.4, kIsolatedColor, "isolated");
        }
      } else {
        bar(acc[b], l.accumulated.elements, bx + bin_w * 0.15, bin_w * 0.7, kAccumulatedColor, "accumulated");
      }
      // x labels: every bin when there are few, else the ends, 0 and even values.
      if (bins <= 9 || d % 2 == 0 || d == -limit || d == limit) {
        std::string label = d == 0 ? std::string("0") : fmt::format("{:+}", d);
        if (clipped && d == -limit) label = fmt::format("\u2264{}", d);   // <= -limit
        if (clipped && d == limit) label = fmt::format("\u2265+{}", d);   // >= +limit
        svg.text(bx + bin_w / 2, oy + plot_y + plot_h + 12, label, 9, "middle");
      }
    }
    svg.text(ox + plot_x + plot_w / 2, oy + plot_y + plot_h + 25, "b - a (LSB)", 9, "middle");
  }
  return svg.finish();
}

std::string propagation_svg(const DriftReport& full_report) {
  const DriftReport report = lsb_layers(full_report, "--svg-propagation");
  const std::size_t n = report.layers.size();
  const bool iso = report.has_isolated();
  // One column per series, each with its own scale: the isolated drift (what one layer adds) is
  // often a hundredth of the accumulated one and would lie flat on a shared axis.
  const std::size_t columns = iso ? 2 : 1;
  const double width = iso ? 1000 : 760, left = 70, right = 20, col_gap = 70, top = 112, chart_h = 200, gap = 64;
  const double col_w = (width - left - right - col_gap * static_cast<double>(columns - 1)) / static_cast<double>(columns);

  // Layers whose arithmetic differs from the map's default (the most frequent preset of each side):
  // shaded, so that a per-layer preset map's exceptions are visible on the curve.
  auto most_frequent = [&](bool side_b) {
    std::map<std::string, std::size_t> count;
    for (const LayerDrift& l : report.layers) ++count[side_b ? l.preset_b : l.preset_a];
    std::string best;
    std::size_t best_n = 0;
    for (const auto& [name, c] : count) {
      if (c > best_n) best = name, best_n = c;
    }
    return best;
  };
  const std::string default_a = most_frequent(false), default_b = most_frequent(true);
  std::vector<bool> other(n, false);
  std::size_t others = 0;
  for (std::size_t i = 0; i < n; ++i) {
    other[i] = report.layers[i].preset_a != default_a || report.layers[i].preset_b != default_b;
    others += other[i];
  }

  Svg svg(width, top + 2 * chart_h + gap + 50);
  svg.text(12, 22, fmt::format("Drift through the layers: A = {}, B = {}", report.label_a, report.label_b),
           14, "start", " font-weight=\"bold\"");
  svg.text(12, 40, fmt::format("Source: {}", report.source), 11);
  legend(svg, 12, 58, iso, true);
  if (others > 0) {
    svg.rect(12, 70, 24, 12, "#e8e8e8");
    svg.text(42, 80, fmt::format("shaded: {} layer{} whose arithmetic differs from the default (A {}, B {})", others,
                                 others == 1 ? "" : "s", default_a, default_b), 11);
  }

  struct Series {
    const char* title;
    const char* unit;
    double (*value)(const DriftMetrics&);
  };
  const Series charts[2] = {
      {"Elements differing (% of the layer's output)", "%",
       [](const DriftMetrics& m) { return m.percent_differing(); }},
      {"Mean absolute difference (LSB)", "LSB", [](const DriftMetrics& m) { return m.mae; }},
  };
  for (std::size_t col = 0; col < columns; ++col) {
    const bool isolated_series = iso && col == 1;
    const double ox = left + static_cast<double>(col) * (col_w + col_gap);
    auto x_of = [&](std::size_t i) {
      return n <= 1 ? ox + col_w / 2 : ox + col_w * static_cast<double>(i) / static_cast<double>(n - 1);
    };
    const double half_step = n <= 1 ? col_w / 4 : col_w / static_cast<double>(n - 1) / 2;
    auto metrics_of = [&](const LayerDrift& l) -> const DriftMetrics* {
      return isolated_series ? (l.isolated ? &*l.isolated : nullptr) : &l.accumulated;
    };
    for (int c = 0; c < 2; ++c) {
      const Series& s = charts[c];
      const double oy = top + c * (chart_h + gap);
      double max_value = 0;
      for (const LayerDrift& l : report.layers) {
        if (const DriftMetrics* m = metrics_of(l)) max_value = std::max(max_value, s.value(*m));
      }
      const double step = nice_step(max_value > 0 ? max_value : 1, 5);
      const double top_value = std::max(step, std::ceil(max_value / step - 1e-9) * step);
      auto y_of = [&](double v) { return oy + chart_h * (1 - v / top_value); };
      svg.text(ox, oy - 8, fmt::format("{}: {}", isolated_series ? "Isolated" : "Accumulated", s.title), 12, "start",
               " font-weight=\"bold\"");
      for (std::size_t i = 0; i < n; ++i) {
        if (!other[i]) continue;
        const double x0 = std::max(ox, x_of(i) - half_step), x1 = std::min(ox + col_w, x_of(i) + half_step);
        svg.rect(x0, oy, x1 - x0, chart_h, "#e8e8e8",
                 fmt::format("layer {}: A {}, B {}", layer_title(report.layers[i]), report.layers[i].preset_a,
                             report.layers[i].preset_b));
      }
      svg.rect(ox, oy, col_w, chart_h, "none", "", "#bbbbbb");
      for (int t = 0; t * step <= top_value + step * 1e-9; ++t) {
        const double v = t * step, y = y_of(v);
        if (t > 0) svg.line(ox, y, ox + col_w, y, "#eeeeee");
        svg.text(ox - 6, y + 4, tick_text(v, step), 10, "end");
      }
      const std::size_t label_every = n > 20 ? (n + 19) / 20 : 1;
      for (std::size_t i = 0; i < n; ++i) {
        if (i % label_every == 0 || i + 1 == n) {
          svg.text(x_of(i), oy + chart_h + 14, std::to_string(report.layers[i].index), 10, "middle");
        }
      }
      svg.text(ox + col_w / 2, oy + chart_h + 30, "layer", 10, "middle");
      std::vector<std::pair<double, double>> points;
      for (std::size_t i = 0; i < n; ++i) {
        if (const DriftMetrics* m = metrics_of(report.layers[i])) points.emplace_back(x_of(i), y_of(s.value(*m)));
      }
      const char* color = isolated_series ? kIsolatedColor : kAccumulatedColor;
      if (points.size() > 1) svg.polyline(points, color, isolated_series ? "6,4" : nullptr);
      for (std::size_t i = 0; i < n; ++i) {
        const LayerDrift& l = report.layers[i];
        const DriftMetrics* m = metrics_of(l);
        if (m == nullptr) continue;
        svg.circle(x_of(i), y_of(s.value(*m)), 3, color,
                   fmt::format("layer {}, {}: {:.4f} {} ({} of {} elements differ, MAE {:.4f}, max {})",
                               layer_title(l), isolated_series ? "isolated" : "accumulated", s.value(*m), s.unit,
                               m->differing, m->elements, m->mae, m->max_abs_diff));
      }
    }
  }
  return svg.finish();
}

}  // namespace qparity::cli
