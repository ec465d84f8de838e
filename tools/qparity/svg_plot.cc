#include "svg_plot.h"

#include <algorithm>
#include <cmath>
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
  const std::size_t columns = std::min<std::size_t>(std::max<std::size_t>(n, 1), 5);
  const std::size_t rows = (std::max<std::size_t>(n, 1) + columns - 1) / columns;
  const double panel_w = 230, panel_h = 170, top = 70, left = 10;
  const double plot_x = 44, plot_y = 22, plot_w = panel_w - plot_x - 12, plot_h = panel_h - plot_y - 34;
  Svg svg(left * 2 + panel_w * columns, top + panel_h * rows + 10);
  svg.text(left, 22, fmt::format("Difference b - a in LSBs per layer: A = {}, B = {}", report.label_a,
                                 report.label_b), 14, "start", " font-weight=\"bold\"");
  svg.text(left, 40,
           fmt::format("Bars: fraction of the layer's output elements, log scale; bins -{0}..{0} "
                       "(the end bins also count larger differences).",
                       limit), 11);
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
      if ((0 - dec) % (low_decade < -4 ? 2 : 1) == 0) {
        svg.text(ox + plot_x - 3, y + 4, dec == 0 ? "100%" : fmt::format("1e{}", dec), 9, "end");
      }
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
        svg.text(bx + bin_w / 2, oy + plot_y + plot_h + 12, d == 0 ? std::string("0") : fmt::format("{:+}", d),
                 9, "middle");
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
  const double width = 760, left = 70, right = 20, top = 100, chart_h = 220, gap = 60;
  const double plot_w = width - left - right;
  Svg svg(width, top + 2 * chart_h + gap + 50);
  svg.text(12, 22, fmt::format("Drift through the layers: A = {}, B = {}", report.label_a, report.label_b),
           14, "start", " font-weight=\"bold\"");
  svg.text(12, 40, fmt::format("Source: {}", report.source), 11);
  legend(svg, 12, 58, iso, true);

  auto x_of = [&](std::size_t i) {
    return n <= 1 ? left + plot_w / 2 : left + plot_w * static_cast<double>(i) / (n - 1);
  };
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
  for (int c = 0; c < 2; ++c) {
    const Series& s = charts[c];
    const double oy = top + c * (chart_h + gap);
    double max_value = 0;
    for (const LayerDrift& l : report.layers) {
      max_value = std::max(max_value, s.value(l.accumulated));
      if (l.isolated) max_value = std::max(max_value, s.value(*l.isolated));
    }
    const double step = nice_step(max_value > 0 ? max_value : 1, 5);
    const double top_value = std::max(step, std::ceil(max_value / step - 1e-9) * step);
    auto y_of = [&](double v) { return oy + chart_h * (1 - v / top_value); };
    svg.text(left, oy - 8, s.title, 12, "start", " font-weight=\"bold\"");
    svg.rect(left, oy, plot_w, chart_h, "none", "", "#bbbbbb");
    for (int t = 0; t * step <= top_value + step * 1e-9; ++t) {
      const double v = t * step, y = y_of(v);
      if (t > 0) svg.line(left, y, left + plot_w, y, "#eeeeee");
      svg.text(left - 6, y + 4, tick_text(v, step), 10, "end");
    }
    const std::size_t label_every = n > 25 ? (n + 24) / 25 : 1;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % label_every == 0 || i + 1 == n) {
        svg.text(x_of(i), oy + chart_h + 14, std::to_string(report.layers[i].index), 10, "middle");
      }
    }
    svg.text(left + plot_w / 2, oy + chart_h + 30, "layer", 10, "middle");
    auto draw = [&](bool isolated_series) {
      std::vector<std::pair<double, double>> points;
      for (const LayerDrift& l : report.layers) {
        const DriftMetrics* m = isolated_series ? (l.isolated ? &*l.isolated : nullptr) : &l.accumulated;
        if (m == nullptr) continue;
        points.emplace_back(x_of(&l - report.layers.data()), y_of(s.value(*m)));
      }
      const char* color = isolated_series ? kIsolatedColor : kAccumulatedColor;
      if (points.size() > 1) svg.polyline(points, color, isolated_series ? "6,4" : nullptr);
      for (const LayerDrift& l : report.layers) {
        const DriftMetrics* m = isolated_series ? (l.isolated ? &*l.isolated : nullptr) : &l.accumulated;
        if (m == nullptr) continue;
        svg.circle(x_of(&l - report.layers.data()), y_of(s.value(*m)), 3, color,
                   fmt::format("layer {}, {}: {:.4f} {} ({} of {} elements differ, MAE {:.4f}, max {})",
                               layer_title(l), isolated_series ? "isolated" : "accumulated", s.value(*m),
                               s.unit, m->differing, m->elements, m->mae, m->max_abs_diff));
      }
    };
    if (iso) draw(true);
    draw(false);
  }
  return svg.finish();
}

}  // namespace qparity::cli
