#include "html_report.h"

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "svg_plot.h"
#include "tensor.h"

namespace qparity::cli {
namespace {

// Only generic font families and colours: nothing the page would have to fetch.
constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:24px;color:#1a1a1a;background:#fff}
h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccc}
dl.what{display:grid;grid-template-columns:max-content auto;gap:4px 16px;margin:0}
dl.what dt{font-weight:bold}dl.what dd{margin:0;font-family:monospace;word-break:break-all}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{border:1px solid #d0d0d0;padding:3px 7px;white-space:nowrap}th{background:#eef1f5;text-align:left}
td.n{text-align:right;font-family:monospace}tr.d td{background:#fff3e0}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:10px;font-size:13px;white-space:pre-wrap}
pre.fail{border-color:#d32f2f;background:#fdecea}pre.pass{border-color:#388e3c;background:#edf7ed}
.plot{overflow-x:auto;margin:8px 0}details{margin:4px 0}summary{cursor:pointer;font-family:monospace}
p.note{color:#555;font-size:13px}
)";

template <class... Args>
void put(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

std::string esc(const std::string& s) { return xml_escape(s); }

void table_html(const DriftTableCells& cells, std::string& out) {
  // The accumulated "diff" column marks the rows that differ (tinted).
  std::size_t diff_column = cells.headers.size();
  for (std::size_t c = 0; c < cells.headers.size(); ++c) {
    if (cells.headers[c] == "acc.diff" || cells.headers[c] == "acc.%") {
      diff_column = c;
      break;
    }
  }
  out += "<table class=\"layers\">\n<thead><tr>";
  for (const std::string& h : cells.headers) put(out, "<th>{}</th>", esc(h));
  out += "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : cells.rows) {
    const bool differs = diff_column < row.size() && row[diff_column].find_first_not_of("0.") != std::string::npos;
    out += differs ? "<tr class=\"d\">" : "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool number = c == 0 || (c >= cells.first_number && cells.headers[c] != "acc.b-a");
      put(out, "<td{}>{}</td>", number ? " class=\"n\"" : "", esc(row[c]));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
}

void channels_html(const DriftReport& report, std::string& out) {
  bool any = false;
  for (const LayerDrift& l : report.layers) {
    const DriftMetrics& m = l.accumulated;
    if (!m.lsb || m.channels.empty()) continue;
    any = true;
    std::size_t differing = 0;
    for (const ChannelDrift& ch : m.channels) differing += ch.differing > 0 ? 1 : 0;
    put(out, "<details{}><summary>layer {} ({}) {}: {} of {} channel{} differ</summary>\n", differing > 0 ? " open" : "",
        l.index, esc(l.name), esc(shape_text(l.shape)), differing, m.channels.size(),
        m.channels.size() == 1 ? "" : "s");
    out += "<table class=\"channels\">\n<thead><tr><th>channel</th><th>elements</th><th>diff</th><th>%</th>"
           "<th>mae</th><th>max</th></tr></thead>\n<tbody>\n";
    for (std::size_t c = 0; c < m.channels.size(); ++c) {
      const ChannelDrift& ch = m.channels[c];
      const double percent =
          ch.elements ? 100.0 * static_cast<double>(ch.differing) / static_cast<double>(ch.elements) : 0.0;
      put(out,
          "<tr{}><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.2f}</td>"
          "<td class=\"n\">{:.4f}</td><td class=\"n\">{}</td></tr>\n",
          ch.differing > 0 ? " class=\"d\"" : "", c, ch.elements, ch.differing, percent, ch.mae, ch.max_abs_diff);
    }
    out += "</tbody></table>\n</details>\n";
  }
  if (!any) {
    out += "<p class=\"note\">No layer was compared as integers, so there is no per-channel breakdown (it counts "
           "LSB differences over the last axis).</p>\n";
  }
}

void pre(const std::string& text, const char* cls, std::string& out) {
  std::string t = text;
  while (!t.empty() && t.front() == '\n') t.erase(t.begin());
  while (!t.empty() && t.back() == '\n') t.pop_back();
  put(out, "<pre{}>{}</pre>\n", cls ? fmt::format(" class=\"{}\"", cls) : std::string(), esc(t));
}

}  // namespace

std::string inline_svg(const std::string& svg_document) {
  std::string s = svg_document;
  if (s.rfind("<?xml", 0) == 0) {
    const std::size_t end = s.find("?>");
    s.erase(0, end == std::string::npos ? s.size() : end + 2);
    while (!s.empty() && s.front() == '\n') s.erase(s.begin());
  }
  const std::string xmlns = " xmlns=\"http://www.w3.org/2000/svg\"";
  const std::size_t at = s.find(xmlns);
  if (at != std::string::npos && at < s.find('>')) s.erase(at, xmlns.size());
  return s;
}

std::string drift_html(const DriftReport& report, const HtmlReportText& text) {
  std::string out;
  const std::size_t rows = report.layers.size();
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  put(out, "<title>qparity diff: {}</title>\n", esc(report.source));
  put(out, "<style>\n{}</style>\n</head>\n<body>\n", kStyle);
  put(out, "<h1>qparity diff: {}</h1>\n", esc(report.source));

  out += "<h2 id=\"compared\">What was compared</h2>\n<dl class=\"what\">\n";
  put(out, "<dt>{}</dt><dd>{}</dd>\n", esc(text.source_kind), esc(report.source));
  put(out, "<dt>A</dt><dd>{}</dd>\n<dt>B</dt><dd>{}</dd>\n", esc(report.label_a), esc(report.label_b));
  put(out, "<dt>rows</dt><dd>{}</dd>\n", rows);
  put(out, "<dt>CPU</dt><dd>{}</dd>\n<dt>tool</dt><dd>{}</dd>\n</dl>\n", esc(text.host), esc(text.version));
  if (report.has_isolated()) {
    out += "<p class=\"note\">iso = the layer under B fed A's previous output (its own drift); acc = each side fed "
           "its own previous output (what a device run shows).</p>\n";
  }

  out += "<h2 id=\"findings\">Where the drift is</h2>\n";
  pre(text.findings, nullptr, out);
  if (!text.gates.empty()) {
    out += "<h2 id=\"gates\">--fail-on</h2>\n";
    pre(text.gates, text.gates_failed ? "fail" : "pass", out);
  }

  out += "<h2 id=\"table\">Per layer</h2>\n";
  if (report.has_lsb()) {
    out += "<p class=\"note\">diff = elements differing, % of the layer's elements, mae/max in LSBs, b-a = histogram "
           "of the non-zero differences.</p>\n";
    table_html(lsb_table_cells(report), out);
  }
  if (report.has_real()) {
    put(out, "<p class=\"note\">{}</p>\n", esc(real_table_note()));
    table_html(real_table_cells(report), out);
  }
  if (!text.note.empty()) put(out, "<p class=\"note\">{}</p>\n", esc(text.note));

  out += "<h2 id=\"plots\">Plots</h2>\n";
  if (report.has_lsb()) {
    put(out, "<div class=\"plot\" id=\"propagation\">\n{}</div>\n", inline_svg(propagation_svg(report)));
    put(out, "<div class=\"plot\" id=\"histogram\">\n{}</div>\n", inline_svg(histogram_svg(report)));
  } else {
    out += "<p class=\"note\">The plots show drift in LSBs, and no layer was compared as integers.</p>\n";
  }

  if (!text.worst.empty()) {
    out += "<h2 id=\"worst\">Worst elements</h2>\n";
    pre(text.worst, nullptr, out);
  }

  out += "<h2 id=\"channels\">Per channel (accumulated, last axis)</h2>\n";
  channels_html(report, out);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace qparity::cli
