// `qparity diff --model ... --model-explorer`: the node data file (model_explorer_data.h) parses,
// has the documented shape (only "results" of {"value": number} and a "gradient" from stop 0 to 1 in
// hex colours), keys every op by its position in the .tflite file's operator list (Model Explorer's
// node id), and carries --json's numbers. A file whose operators are stored in reverse (qparity
// reorders them for execution) shows the keys follow the file, not the execution order. Also: the
// HTML report of a model escapes the names its file holds; .onnx models are refused.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using nlohmann::json;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string source_root() { return QPARITY_SOURCE_DIR; }

struct Demo {
  std::string dir, model, input;
};

// The README stack exported as a .tflite model (20 ops, one output each).
Demo export_demo(const std::string& stack = source_root() + "/examples/npu_drift/stack.json") {
  Demo d;
  d.dir = make_temp_dir("model_explorer");
  d.model = d.dir + "/demo.tflite";
  d.input = d.dir + "/input.npy";
  const CliResult r = run_cli({"export", "--stack", stack, "--output", d.model, "--save-input", d.input});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return d;
}

struct Exported {
  CliResult run;
  json nodes, drift;
};

Exported node_data(const Demo& d, const std::string& model, const std::vector<std::string>& extra = {}) {
  Exported e;
  std::vector<std::string> args = {"diff",           "--model", model,         "--input",   d.input,
                                   "--a",            "tflite-reference",       "--b",       "npu-verisilicon",
                                   "--json",         d.dir + "/drift.json",    "--model-explorer",
                                   d.dir + "/nodes.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  e.run = run_cli(args);
  if (e.run.exit_code == 0) {
    e.nodes = json::parse(read_bytes(d.dir + "/nodes.json"));
    e.drift = json::parse(read_bytes(d.dir + "/drift.json"));
  }
  return e;
}

// The documented shape: {"results": {id: {"value": number}}, "gradient": [{"stop", "bgColor"}...]}.
void expect_node_data_shape(const json& n) {
  ASSERT_TRUE(n.is_object());
  EXPECT_EQ(n.size(), 2u) << n.dump();
  ASSERT_TRUE(n.at("results").is_object());
  for (const auto& [key, result] : n.at("results").items()) {
    EXPECT_TRUE(std::regex_match(key, std::regex("[0-9]+"))) << key;
    ASSERT_TRUE(result.is_object());
    EXPECT_EQ(result.size(), 1u) << result.dump();
    EXPECT_TRUE(result.at("value").is_number()) << result.dump();
  }
  const json& g = n.at("gradient");
  ASSERT_TRUE(g.is_array());
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g.front().at("stop").get<double>(), 0.0);
  EXPECT_EQ(g.back().at("stop").get<double>(), 1.0);
  for (const json& stop : g) {
    EXPECT_TRUE(std::regex_match(stop.at("bgColor").get<std::string>(), std::regex("#[0-9a-f]{6}"))) << stop.dump();
  }
}

TEST(CliModelExplorer, NodeDataKeysOpsByFilePositionWithJsonValues) {
  const Demo d = export_demo();
  const Exported e = node_data(d, d.model);
  ASSERT_EQ(e.run.exit_code, 0) << e.run.err;
  expect_node_data_shape(e.nodes);
  const json& layers = e.drift.at("layers");
  const json& results = e.nodes.at("results");
  ASSERT_EQ(layers.size(), 20u);
  ASSERT_EQ(results.size(), layers.size());
  // An exported model stores its ops in execution order: row i is operator i.
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string id = std::to_string(i);
    ASSERT_TRUE(results.contains(id)) << id;
    EXPECT_EQ(results.at(id).at("value").get<double>(), layers[i].at("accumulated").at("max_abs_diff").get<double>())
        << id;
  }
  EXPECT_TRUE(contains(e.run.out, "wrote " + d.dir + "/nodes.json (20 nodes, max_lsb)")) << e.run.out;
  // Green for the smallest max |diff|, red for the largest.
  EXPECT_EQ(e.nodes.at("gradient").front().at("bgColor"), "#2e7d32");
  EXPECT_EQ(e.nodes.at("gradient").back().at("bgColor"), "#c62828");
}

TEST(CliModelExplorer, MetricOptionChoosesTheValue) {
  const Demo d = export_demo();
  const Exported e = node_data(d, d.model, {"--model-explorer-metric", "iso.cosine"});
  ASSERT_EQ(e.run.exit_code, 0) << e.run.err;
  expect_node_data_shape(e.nodes);
  const json& layers = e.drift.at("layers");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const json& iso = layers[i].at("isolated");
    // Cosine in real units when the output scale is known (drift_gate.h), as --fail-on reads it.
    const double expected = iso.at("real").is_null() ? iso.at("cosine").get<double>()
                                                      : iso.at("real").at("cosine").get<double>();
    EXPECT_EQ(e.nodes.at("results").at(std::to_string(i)).at("value").get<double>(), expected) << i;
  }
  // Larger cosine is less drift: the gradient runs the other way.
  EXPECT_EQ(e.nodes.at("gradient").front().at("bgColor"), "#c62828");
  // A metric that is not one, and the option without a file.
  CliResult r = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "tflite-reference", "--b",
                         "npu-verisilicon", "--model-explorer", d.dir + "/x.json", "--model-explorer-metric", "max"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--model-explorer-metric: 'max' is not a metric; allowed:")) << r.err;
  EXPECT_FALSE(file_exists(d.dir + "/x.json"));
  r = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "tflite-reference", "--b", "npu-verisilicon",
               "--model-explorer-metric", "max_lsb"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "needs --model-explorer")) << r.err;
}

// Little-endian reads and writes of a flatbuffer's scalars.
std::uint32_t u32(const std::string& b, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
std::uint16_t u16(const std::string& b, std::size_t at) {
  std::uint16_t v = 0;
  std::memcpy(&v, b.data() + at, 2);
  return v;
}
// Where field `id` of the table at `table` lies (0 if absent): the table starts with a signed
// offset back to its vtable, whose entries from byte 4 on are the fields' offsets in the table.
std::size_t field(const std::string& b, std::size_t table, int id) {
  std::int32_t back = 0;
  std::memcpy(&back, b.data() + table, 4);
  const std::size_t vtable = table - static_cast<std::size_t>(back);
  if (4u + 2u * static_cast<unsigned>(id) >= u16(b, vtable)) return 0;
  const std::uint16_t off = u16(b, vtable + 4 + 2 * static_cast<std::size_t>(id));
  return off == 0 ? 0 : table + off;
}
std::size_t deref(const std::string& b, std::size_t at) { return at + u32(b, at); }

// The model with subgraph 0's operator list reversed (Model: subgraphs is field 2; SubGraph:
// operators is field 3; a vector is a length followed by offsets relative to each entry).
std::string reverse_operators(std::string b) {
  const std::size_t model = u32(b, 0);
  const std::size_t subgraphs = deref(b, field(b, model, 2));
  const std::size_t subgraph = deref(b, subgraphs + 4);
  const std::size_t ops = deref(b, field(b, subgraph, 3));
  const std::size_t n = u32(b, ops);
  std::vector<std::size_t> target(n);
  for (std::size_t k = 0; k < n; ++k) target[k] = deref(b, ops + 4 + 4 * k);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t entry = ops + 4 + 4 * k;
    const std::size_t to = target[n - 1 - k];
    EXPECT_GT(to, entry);  // offsets point forward
    const std::uint32_t v = static_cast<std::uint32_t>(to - entry);
    std::memcpy(&b[entry], &v, 4);
  }
  return b;
}

TEST(CliModelExplorer, KeysFollowTheFileOrderNotTheExecutionOrder) {
  const Demo d = export_demo();
  const Exported forward = node_data(d, d.model);
  ASSERT_EQ(forward.run.exit_code, 0) << forward.run.err;
  const std::string reversed = d.dir + "/reversed.tflite";
  write_bytes(reversed, reverse_operators(read_bytes(d.model)));
  const Exported back = node_data(d, reversed);
  ASSERT_EQ(back.run.exit_code, 0) << back.run.err;
  expect_node_data_shape(back.nodes);
  // qparity runs the reversed file in the same execution order (the same table, row by row)...
  ASSERT_EQ(back.drift.at("layers"), forward.drift.at("layers"));
  // ...but the op Model Explorer calls "k" in the reversed file is the forward file's "19 - k".
  const json& f = forward.nodes.at("results");
  const json& r = back.nodes.at("results");
  ASSERT_EQ(r.size(), 20u);
  bool any_asymmetric = false;
  for (std::size_t k = 0; k < 20; ++k) {
    EXPECT_EQ(r.at(std::to_string(k)), f.at(std::to_string(19 - k))) << k;
    any_asymmetric = any_asymmetric || f.at(std::to_string(k)) != f.at(std::to_string(19 - k));
  }
  EXPECT_TRUE(any_asymmetric) << "the values must tell the orders apart: " << f.dump();
}

TEST(CliModelExplorer, OnnxModelsAreRefused) {
  const std::string dir = make_temp_dir("model_explorer_onnx");
  const CliResult r = run_cli({"diff", "--model", source_root() + "/tests/fuzz/corpus/onnx/conv_s8_per_channel.onnx",
                               "--a", "tflite-reference", "--b", "npu-verisilicon", "--model-explorer",
                               dir + "/n.json", "--html", dir + "/r.html"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "ids are known for .tflite models only")) << r.err;
  EXPECT_TRUE(list_dir(dir).empty());
}

// The HTML report of a model whose tensor names need escaping: a stack's layer name (which must be
// a file-name-safe word) is exported, then overwritten in the .tflite file by a name of the same
// length that a model file may well hold.
TEST(CliModelExplorer, ModelHtmlReportEscapesNamesFromTheFile) {
  const std::string placeholder = "nasty_placeholder_name_012345678";
  const std::string nasty = "<script>alert(1)</script>&\"q\"'x'";
  ASSERT_EQ(placeholder.size(), nasty.size());
  const std::string dir = make_temp_dir("model_html");
  const std::string stack = dir + "/s.json";
  std::ofstream(stack) << R"({"input": {"seed": 1, "shape": [1, 6, 6, 4], "min": -100, "max": 100},
 "layers": [{"type": "conv2d", "name": ")" << placeholder << R"(", "padding": "SAME",
   "input_scale": 0.05, "output_scale": 0.05, "filter_scales": [0.0011, 0.0013, 0.0009, 0.0012],
   "filter": {"seed": 3, "shape": [4, 3, 3, 4], "min": -127, "max": 127},
   "bias": {"seed": 4, "shape": [4], "min": -2000, "max": 2000}}]}
)";
  const Demo d = export_demo(stack);
  std::string bytes = read_bytes(d.model);
  std::size_t replaced = 0;
  for (std::size_t at = bytes.find(placeholder); at != std::string::npos; at = bytes.find(placeholder, at + 1)) {
    bytes.replace(at, nasty.size(), nasty);
    ++replaced;
  }
  ASSERT_GT(replaced, 0u);
  write_bytes(d.model, bytes);
  const CliResult r = run_cli({"diff", "--model", d.model, "--input", d.input, "--a", "tflite-reference", "--b",
                               "npu-verisilicon", "--html", d.dir + "/r.html", "--json", d.dir + "/d.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(contains(read_bytes(d.dir + "/d.json"), "<script>alert(1)</script>&\\\"q\\\"'x'"));
  const std::string h = read_bytes(d.dir + "/r.html");
  EXPECT_TRUE(contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;q&quot;&apos;x&apos;")) << h;
  EXPECT_FALSE(contains(h, "<script"));
  EXPECT_FALSE(contains(h, "\"q\""));
  EXPECT_TRUE(contains(h, "<dt>model</dt><dd>" + d.model + "</dd>"));
}

}  // namespace
}  // namespace qparity_cli_test
