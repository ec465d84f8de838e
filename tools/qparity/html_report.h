// `qparity diff --html`: the whole drift report as one self-contained HTML page, to attach to a
// bug report or a CI artifact and open anywhere without network access.
//
// The page holds what was compared (the source, A and B, the CPU), the per-layer tables with the
// terminal's cells (drift_report.h: the same numbers as the table and, rounded alike, as --json),
// the located drift (first difference, worst elements) and the --fail-on results as the terminal
// prints them, both plots inlined as SVG (svg_plot.h), and the per-channel breakdown of every layer
// compared in LSBs in a collapsible <details> block. Styling is one inline <style> element; there is
// no script, no external stylesheet, font or image, and no URL of any kind (the inline SVG drops
// its xmlns, which the HTML parser does not need), so the page renders the same offline. Every
// text that comes from the inputs (tensor and layer names from model files, paths, preset maps)
// is escaped for HTML, so a name like `<script>` shows as text.
#pragma once

#include <string>

#include "drift_report.h"

namespace qparity::cli {

/// What the terminal prints around the table, rendered into the page as preformatted text.
struct HtmlReportText {
  std::string source_kind;  ///< "model", "stack" or "dumps": what DriftReport::source names
  std::string host;         ///< the CPU (and active SIMD path) the comparison ran on
  std::string version;      ///< "qparity 0.1.0"
  std::string findings;     ///< the first difference and the growth sentence
  std::string worst;        ///< --worst's lines, or empty
  std::string gates;        ///< --fail-on's results, or empty without gates
  bool gates_failed = false;
  std::string note;         ///< anything else the terminal says (outputs left out), or empty
};

/// The page. Deterministic for the same inputs (no time, no addresses).
std::string drift_html(const DriftReport& report, const HtmlReportText& text);

/// An inline SVG for HTML from one of svg_plot.h's documents: without the XML declaration and the
/// xmlns attribute (an HTML parser puts <svg> in the SVG namespace by itself).
std::string inline_svg(const std::string& svg_document);

}  // namespace qparity::cli
