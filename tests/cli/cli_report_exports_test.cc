// The report's exports in process: Model Explorer node data (an op with several outputs gets the
// worst of them, in the metric's direction; rows without the metric or with an infinite value are
// left out and counted; a metric no row has is an error naming the option) and the inline SVG the
// HTML report embeds (no XML declaration, no namespace URL).
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "drift_gate.h"
#include "drift_report.h"
#include "html_report.h"
#include "model_explorer_data.h"
#include "svg_plot.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

LayerDrift lsb_row(std::size_t index, std::int64_t max_lsb, double cosine) {
  LayerDrift l;
  l.index = index;
  l.name = "op" + std::to_string(index);
  l.shape = {1, 2};
  l.accumulated.elements = 2;
  l.accumulated.differing = max_lsb > 0 ? 1 : 0;
  l.accumulated.max_abs_diff = max_lsb;
  l.accumulated.cosine = cosine;
  l.accumulated.histogram = {{0, 2 - l.accumulated.differing}};
  if (max_lsb > 0) l.accumulated.histogram[max_lsb] = 1;
  return l;
}

LayerDrift float_row(std::size_t index, double sqnr) {
  LayerDrift l;
  l.index = index;
  l.name = "f" + std::to_string(index);
  l.shape = {2};
  l.accumulated.lsb = false;
  l.accumulated.elements = 2;
  ValueDrift r;
  r.elements = 2;
  r.sqnr_db = sqnr;
  l.accumulated.real = r;
  return l;
}

TEST(ModelExplorerData, SeveralOutputsGiveTheWorstAndGapsAreCounted) {
  DriftReport report;
  report.layers = {lsb_row(0, 1, 0.99), lsb_row(1, 3, 0.97), lsb_row(1, 2, 0.95), float_row(2, 40)};
  const std::vector<std::string> keys = {"0", "7", "7", "9"};
  NodeDataExport e = model_explorer_node_data(report, keys, default_node_data_metric(report), "--x");
  nlohmann::json j = nlohmann::json::parse(e.json);
  EXPECT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"]["0"]["value"], 1.0);
  EXPECT_EQ(j["results"]["7"]["value"], 3.0);  // max of 3 and 2: more LSBs is worse
  EXPECT_EQ(e.nodes, 2u);
  EXPECT_EQ(e.left_out, 1u);  // the float row has no max_lsb

  MetricChoice cosine = parse_metric_choice("cosine", "--x");
  e = model_explorer_node_data(report, keys, cosine, "--x");
  j = nlohmann::json::parse(e.json);
  EXPECT_EQ(j["results"]["7"]["value"], 0.95);  // min of 0.97 and 0.95: a smaller cosine is worse
  EXPECT_EQ(j["results"]["9"]["value"], 1.0);   // the float row's real cosine
  EXPECT_EQ(j["gradient"][0]["bgColor"], "#c62828");

  report.layers.push_back(float_row(3, std::numeric_limits<double>::infinity()));
  e = model_explorer_node_data(report, {"0", "7", "7", "9", "10"}, parse_metric_choice("acc.sqnr", "--x"), "--x");
  j = nlohmann::json::parse(e.json);
  EXPECT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"]["9"]["value"], 40.0);
  EXPECT_EQ(e.left_out, 4u);  // three integer rows without real metrics, one infinite SQNR

  // No row has the metric: an error, not an empty file.
  try {
    model_explorer_node_data(report, {"0", "7", "7", "9", "10"}, parse_metric_choice("iso.max_lsb", "--x"), "--x");
    FAIL() << "expected an error";
  } catch (const ToolError& err) {
    EXPECT_NE(std::string(err.what()).find("--x: no op output has a finite iso.max_lsb"), std::string::npos)
        << err.what();
  }
  EXPECT_THROW(parse_metric_choice("iso.nope", "--x"), ToolError);
}

TEST(HtmlReport, InlineSvgHasNoDeclarationAndNoNamespaceUrl) {
  DriftReport report;
  report.layers = {lsb_row(0, 1, 0.99), lsb_row(1, 2, 0.98)};
  for (const std::string& svg : {histogram_svg(report), propagation_svg(report)}) {
    ASSERT_EQ(svg.rfind("<?xml", 0), 0u);
    const std::string inline_form = inline_svg(svg);
    EXPECT_EQ(inline_form.rfind("<svg ", 0), 0u) << inline_form.substr(0, 100);
    EXPECT_EQ(inline_form.find("http"), std::string::npos);
    EXPECT_EQ(inline_form.size(), svg.size() - svg.find("<svg ") - std::string(" xmlns=\"http://www.w3.org/2000/svg\"").size());
  }
}

}  // namespace
}  // namespace qparity::cli
