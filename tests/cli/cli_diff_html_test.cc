// `qparity diff --html`: the self-contained report. Its structure (the table's cells equal --json's
// numbers as the terminal rounds them, both inline plots, one per-channel block per layer, the
// gates, no URL of any kind), its escaping of names from the inputs (dump file names here; a
// model's tensor names in cli_model_explorer_test.cc), the output-file rules it shares
// with the other outputs (all or nothing, same path twice, non-regular destinations), and that
// headless Chromium renders it with the network blocked into a page that is not blank: the plots'
// series colour and the differing rows' tint are on the screenshot. Chromium (Debian's `chromium`,
// installed by .ci/install-deps) is an oracle: without it the test fails, it does not skip.
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "host_cpu.h"
#include "npy.h"
#include "tensor.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using nlohmann::json;
using qparity::cli::DType;
using qparity::cli::make_tensor;
using qparity::cli::Tensor;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string source_root() { return QPARITY_SOURCE_DIR; }

// The README's 20-layer stack, which drifts under tflite-reference against npu-verisilicon.
std::string readme_stack() { return source_root() + "/examples/npu_drift/stack.json"; }

// A small 3-layer stack with generated tensors.
std::string small_stack(const std::string& dir) {
  std::string layers;
  for (int i = 0; i < 3; ++i) {
    layers += std::string(i ? ",\n" : "") + "{\"type\": \"conv2d\", \"name\": \"c" + std::to_string(i) +
              "\", \"padding\": \"SAME\", \"input_scale\": 0.05, \"output_scale\": 0.05, "
              "\"filter_scales\": [0.0011, 0.0013, 0.0009, 0.0012], "
              "\"filter\": {\"seed\": " + std::to_string(10 + i) +
              ", \"shape\": [4, 3, 3, 4], \"min\": -127, \"max\": 127}, "
              "\"bias\": {\"seed\": " + std::to_string(20 + i) + ", \"shape\": [4], \"min\": -2000, \"max\": 2000}}";
  }
  const std::string path = dir + "/small.json";
  std::ofstream(path) << "{\"input\": {\"seed\": 1, \"shape\": [1, 8, 8, 4], \"min\": -100, \"max\": 100},\n"
                         " \"layers\": [" + layers + "]}\n";
  return path;
}

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) {
      s.replace(at, std::string(from).size(), to);
    }
  }
  return s;
}

// The rows (cell texts, unescaped) of the n-th <table class="CLASS"> of the page.
std::vector<std::vector<std::string>> table_rows(const std::string& html, const std::string& cls, std::size_t n = 0) {
  std::size_t at = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    at = html.find("<table class=\"" + cls + "\">", i == 0 ? 0 : at + 1);
    if (at == std::string::npos) return {};
  }
  const std::size_t end = html.find("</table>", at);
  const std::size_t body = html.find("<tbody>", at);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t tr = html.find("<tr", body); tr < end; tr = html.find("<tr", tr + 1)) {
    const std::size_t tr_end = html.find("</tr>", tr);
    std::vector<std::string> cells;
    for (std::size_t td = html.find("<td", tr); td < tr_end; td = html.find("<td", td + 1)) {
      const std::size_t open = html.find('>', td) + 1;
      cells.push_back(unescape(html.substr(open, html.find("</td>", open) - open)));
    }
    rows.push_back(cells);
  }
  return rows;
}

struct Report {
  std::string dir, html, json_path, html_text;
  json doc;
  CliResult run;
};

Report stack_report(const std::vector<std::string>& extra = {}) {
  Report r;
  r.dir = make_temp_dir("html");
  r.html = r.dir + "/report.html";
  r.json_path = r.dir + "/drift.json";
  std::vector<std::string> args = {"diff", "--stack", readme_stack(), "--a", "tflite-reference", "--b",
                                   "npu-verisilicon", "--json", r.json_path, "--html", r.html, "--worst", "2",
                                   "--fail-on", "max_lsb>100"};
  args.insert(args.end(), extra.begin(), extra.end());
  r.run = run_cli(args);
  r.html_text = read_bytes(r.html);
  const std::string j = read_bytes(r.json_path);
  if (!j.empty()) r.doc = json::parse(j);
  return r;
}

// Nothing in the page may be fetched: no URL, no script, no external stylesheet or font.
void expect_self_contained(const std::string& html) {
  for (const char* forbidden : {"http://", "https://", "<script", " src=", " href=", "url(", "@import", "<link",
                                "<iframe", "<img"}) {
    EXPECT_FALSE(contains(html, forbidden)) << forbidden;
  }
}

TEST(CliDiffHtml, StackReportHoldsTheTablePlotsChannelsAndGates) {
  const Report r = stack_report();
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_TRUE(contains(r.run.out, "wrote " + r.html)) << r.run.out;
  const std::string& h = r.html_text;
  ASSERT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(h, "</html>"));
  expect_self_contained(h);

  // What was compared.
  EXPECT_TRUE(contains(h, "<dt>stack</dt><dd>" + readme_stack() + "</dd>")) << h.substr(0, 2000);
  EXPECT_TRUE(contains(h, "<dt>A</dt><dd>tflite-reference</dd>"));
  EXPECT_TRUE(contains(h, "<dt>B</dt><dd>npu-verisilicon</dd>"));
  EXPECT_TRUE(contains(h, "<dt>CPU</dt><dd>" + qparity::cli::host_cpu_name()));

  // The table: one row per layer, the terminal's cells, which are --json's numbers as it rounds them.
  const auto rows = table_rows(h, "layers");
  const json& layers = r.doc.at("layers");
  ASSERT_EQ(rows.size(), layers.size());
  ASSERT_EQ(rows.size(), 20u);
  bool any_differs = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& l = layers[i];
    const json& iso = l.at("isolated");
    const json& acc = l.at("accumulated");
    const std::vector<std::string> expected = {
        std::to_string(l.at("index").get<int>()),
        l.at("name").get<std::string>(),
        std::to_string(acc.at("elements").get<long>()),
        std::to_string(iso.at("differing").get<long>()),
        fmt::format("{:.3f}", iso.at("percent_differing").get<double>()),
        fmt::format("{:.4f}", iso.at("mae").get<double>()),
        std::to_string(iso.at("max_abs_diff").get<long>()),
        std::to_string(acc.at("differing").get<long>()),
        fmt::format("{:.3f}", acc.at("percent_differing").get<double>()),
        fmt::format("{:.4f}", acc.at("mae").get<double>()),
        std::to_string(acc.at("max_abs_diff").get<long>()),
        fmt::format("{:.6f}", acc.at("cosine").get<double>())};
    ASSERT_EQ(rows[i].size(), expected.size() + 1) << i;  // + the histogram
    for (std::size_t c = 0; c < expected.size(); ++c) EXPECT_EQ(rows[i][c], expected[c]) << "row " << i << " cell " << c;
    any_differs = any_differs || acc.at("differing").get<long>() > 0;
  }
  EXPECT_TRUE(any_differs);
  // Without --per-channel the JSON keeps its shape: no "channels" (the page computes them anyway).
  EXPECT_FALSE(layers[0].at("accumulated").contains("channels"));

  // Both plots inline, without the XML declaration; the per-channel block of every layer (16 channels).
  EXPECT_EQ(count(h, "<svg "), 2u);
  EXPECT_EQ(count(h, "</svg>"), 2u);
  EXPECT_FALSE(contains(h, "<?xml"));
  EXPECT_TRUE(contains(h, "id=\"propagation\""));
  EXPECT_TRUE(contains(h, "id=\"histogram\""));
  EXPECT_EQ(count(h, "<details"), 20u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(table_rows(h, "channels", i).size(), 16u) << i;

  // Located drift, worst elements and the gate, as the terminal prints them.
  EXPECT_TRUE(contains(h, "First difference: layer")) << h;
  EXPECT_TRUE(contains(h, "Worst elements"));
  EXPECT_TRUE(contains(h, "<pre class=\"pass\">--fail-on: the gate passed on every layer.</pre>"));
  EXPECT_TRUE(contains(r.run.out, "--fail-on: the gate passed on every layer."));

}

TEST(CliDiffHtml, FailedGateAndPerChannelMatchTheJson) {
  const Report r = stack_report({"--fail-on", "acc.max_lsb>=1", "--per-channel"});
  ASSERT_EQ(r.run.exit_code, 3) << r.run.err;  // a gate failed: the files are still written
  const std::string& h = r.html_text;
  EXPECT_TRUE(contains(h, "<pre class=\"fail\">FAILED --fail-on:")) << h;
  const json& layers = r.doc.at("layers");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const json& channels = layers[i].at("accumulated").at("channels");
    const auto rows = table_rows(h, "channels", i);
    ASSERT_EQ(rows.size(), channels.size());
    for (std::size_t c = 0; c < rows.size(); ++c) {
      const json& ch = channels[c];
      EXPECT_EQ(rows[c][0], std::to_string(ch.at("channel").get<int>()));
      EXPECT_EQ(rows[c][1], std::to_string(ch.at("elements").get<long>()));
      EXPECT_EQ(rows[c][2], std::to_string(ch.at("differing").get<long>()));
      EXPECT_EQ(rows[c][4], fmt::format("{:.4f}", ch.at("mae").get<double>()));
      EXPECT_EQ(rows[c][5], std::to_string(ch.at("max_abs_diff").get<long>()));
    }
  }
}

TEST(CliDiffHtml, DumpsReportEscapesFileNames) {
  const std::string dir = make_temp_dir("html_dumps");
  const std::string a = dir + "/a", b = dir + "/b";
  ASSERT_EQ(::mkdir(a.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(b.c_str(), 0755), 0);
  Tensor ta = make_tensor(DType::kInt8, {1, 2, 2, 3}), tb = make_tensor(DType::kInt8, {1, 2, 2, 3});
  for (std::size_t i = 0; i < ta.bytes.size(); ++i) {
    ta.bytes[i] = static_cast<std::uint8_t>(i * 7);
    tb.bytes[i] = static_cast<std::uint8_t>(i * 7 + (i % 5 == 0 ? 1 : 0));
  }
  const std::string name = "l0<b>&amp.npy";
  qparity::cli::write_npy(a + "/" + name, ta);
  qparity::cli::write_npy(b + "/" + name, tb);
  const std::string html = dir + "/r.html";
  const CliResult r = run_cli({"diff", "--dump-a", a, "--dump-b", b, "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string h = read_bytes(html);
  expect_self_contained(h);
  EXPECT_TRUE(contains(h, "<dt>dumps</dt><dd>dumps</dd>"));
  EXPECT_TRUE(contains(h, "l0&lt;b&gt;&amp;amp.npy"));
  EXPECT_FALSE(contains(h, "<b>"));
  const auto rows = table_rows(h, "layers");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][1], name);
  EXPECT_EQ(rows[0][3], "3");  // elements 0, 5, 10 differ by one LSB
  EXPECT_EQ(count(h, "<svg "), 2u);
  EXPECT_EQ(count(h, "<details"), 1u);
}

TEST(CliDiffHtml, OutputsAreAllOrNothing) {
  const std::string dir = make_temp_dir("html_outputs");
  const std::string stack = small_stack(dir);
  const std::vector<std::string> base = {"diff", "--stack", stack, "--a", "tflite-reference", "--b", "npu-verisilicon"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  // The same file for --html and --json: a usage error, nothing written.
  CliResult r = with({"--html", dir + "/same", "--json", dir + "/same"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(file_exists(dir + "/same"));
  // A destination that is not a regular file: refused before anything is written.
  r = with({"--json", dir + "/j.json", "--html", "/dev/null"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "/dev/null")) << r.err;
  EXPECT_FALSE(file_exists(dir + "/j.json"));
  r = with({"--html", dir, "--csv", dir + "/c.csv"});  // a directory
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(file_exists(dir + "/c.csv"));
  // A run that fails writes no report.
  r = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b", "no-such-preset", "--html", dir + "/r.html"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(file_exists(dir + "/r.html"));
  // An existing report is replaced whole.
  write_bytes(dir + "/old.html", "stale");
  r = with({"--html", dir + "/old.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(dir + "/old.html").rfind("<!DOCTYPE html>", 0), 0u);
  // Model Explorer node data needs a model.
  r = with({"--model-explorer", dir + "/n.json", "--html", dir + "/r2.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--model-explorer applies to --model only")) << r.err;
  EXPECT_FALSE(file_exists(dir + "/r2.html"));
  r = run_cli({"diff", "--dump-a", dir + "/x.npy", "--dump-b", dir + "/y.npy", "--model-explorer", dir + "/n.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "dumps have no Model Explorer graph")) << r.err;
  EXPECT_FALSE(file_exists(dir + "/n.json"));
}

// Headless Chromium opens the README stack's report with every network path blocked (a proxy that
// refuses, no name resolution) and screenshots it: the page is 1200x2000, far from blank, and shows
// the plots' accumulated series colour (#4e79a7, svg_plot.cc) and the tint of the differing rows
// (#fff3e0, html_report.cc).
TEST(CliDiffHtml, HeadlessChromiumRendersTheReportOffline) {
  const std::string dir = make_temp_dir("html_chromium");
  const std::string html = dir + "/report.html", png = dir + "/shot.png";
  const CliResult r = run_cli({"diff", "--stack", readme_stack(), "--a",
                               "tflite-reference", "--b", "npu-verisilicon", "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CliResult shot;
  try {
    shot = run_program("chromium", {"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                    "--user-data-dir=" + dir + "/profile", "--proxy-server=127.0.0.1:9",
                                    "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1200,2000",
                                    "--screenshot=" + png, "file://" + html},
                       "", {"HOME=" + dir});
  } catch (const std::exception& e) {
    FAIL() << "chromium (Debian package `chromium`, installed by .ci/install-deps) could not be started: "
           << e.what();
  }
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  ASSERT_TRUE(file_exists(png)) << shot.err;
  const CliResult stats = run_program("/usr/bin/python3", {source_root() + "/tests/cli/png_colors.py", png,
                                                           "4e79a7", "fff3e0"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const std::vector<std::string> lines = split_lines(stats.out);
  ASSERT_EQ(lines.size(), 3u) << stats.out;
  const std::vector<std::string> head = tokens(lines[0]);
  ASSERT_EQ(head.size(), 4u);
  EXPECT_EQ(head[0], "1200");
  EXPECT_EQ(head[1], "2000");
  EXPECT_GT(std::stol(head[2]), 100) << "distinct colours: " << stats.out;
  EXPECT_GT(std::stol(head[3]), 1200L * 2000 / 50) << "non-white pixels: " << stats.out;
  EXPECT_GT(std::stol(tokens(lines[1]).at(1)), 100) << "the plots' series colour: " << stats.out;
  EXPECT_GT(std::stol(tokens(lines[2]).at(1)), 100) << "the differing rows' tint: " << stats.out;
}

}  // namespace
}  // namespace qparity_cli_test
