// The probe models in a real TFLite, and `qparity identify` on what it computed: the user's loop
// (`qparity probe --format tflite`, run the models on the device, `qparity identify --model`) with
// LiteRT.js as the device. Each probe model runs as written (XNNPACK's delegate takes the
// convolution: XNNPACK's float32 requantization) and with its filter turned into a graph input
// (TFLite's own CONV_2D kernel: single rounding in the WebAssembly build); identify must list the
// matching arithmetic among its exact matches on every probe and the other one on none of the
// probes that separate them.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli_runner.h"
#include "litert_runner.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "npy.h"
#include "tool_test_files.h"

namespace qparity_test {
namespace {

using namespace qparity::model;
using qparity_cli_test::CliResult;
using qparity_cli_test::make_temp_dir;
using qparity_cli_test::read_bytes;
using qparity_cli_test::run_cli;

std::vector<std::uint8_t> bytes_of(const std::string& path) {
  const std::string s = read_bytes(path);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

void write_file(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

/// The names on identify's "Exact matches (N): a, b, ..." line.
std::set<std::string> exact_matches(const std::string& out) {
  std::set<std::string> names;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("Exact matches", 0) != 0) continue;
    std::string list = l.substr(l.find(':') + 1);
    std::istringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
      const std::size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
      if (b != std::string::npos) names.insert(item.substr(b, e - b + 1));
    }
  }
  return names;
}

struct ProbeCase {
  std::string name, variant, model_path, inputs;  ///< inputs: comma-separated .npy paths
  std::vector<std::uint8_t> model;
  std::vector<Tensor> input_tensors;
  std::string output_file;  ///< the output tensor's dump name
};

TEST(TfliteOracleProbe, IdentifyRecoversTheArithmeticLiteRtRan) {
  const std::string dir = make_temp_dir("oracle_probe");
  const CliResult probe = run_cli({"probe", "--output", dir, "--format", "tflite"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  std::vector<ProbeCase> cases;
  for (const std::string& f : qparity_cli_test::list_dir(dir)) {
    if (f.size() < 8 || f.compare(f.size() - 7, 7, ".tflite") != 0) continue;
    const std::string name = f.substr(0, f.size() - 7);
    const std::string input = dir + "/" + name + ".input.npy";
    Graph g = read_tflite_file(dir + "/" + f);
    ProbeCase as_written{name, "as written", dir + "/" + f, input, bytes_of(dir + "/" + f),
                         {qparity::cli::read_npy(input)}, g.dump_file_name(g.outputs.at(0))};
    cases.push_back(as_written);
    // The filter as a graph input: XNNPACK's delegate declines the node, TFLite's kernel runs it.
    ProbeCase dyn = as_written;
    dyn.variant = "filter as input";
    for (const Node& n : g.nodes) {
      if (n.op != OpKind::kConv2D && n.op != OpKind::kDepthwiseConv2D && n.op != OpKind::kFullyConnected) continue;
      TensorDef& w = g.tensors[static_cast<std::size_t>(n.inputs[1])];
      const std::string wpath = dir + "/" + name + ".dyn_filter.npy";
      qparity::cli::write_npy(wpath, *w.data);
      dyn.input_tensors.push_back(*w.data);
      dyn.inputs += "," + wpath;
      w.data.reset();
      g.inputs.push_back(n.inputs[1]);
    }
    validate(g);
    dyn.model = write_tflite(g);
    dyn.model_path = dir + "/" + name + ".dyn.tflite";
    write_file(dyn.model_path, dyn.model);
    cases.push_back(dyn);
  }
  ASSERT_GE(cases.size(), 16u) << "probe wrote fewer models than expected";

  std::vector<LiteRtJob> jobs;
  for (const ProbeCase& c : cases) jobs.push_back({c.name + " " + c.variant, c.model, c.input_tensors});
  std::string setup_error;
  const std::vector<LiteRtResult> results = run_litert(jobs, &setup_error);
  ASSERT_TRUE(setup_error.empty()) << setup_error;
  ASSERT_EQ(results.size(), cases.size());

  // For each variant: the candidates that match every probe exactly.
  std::map<std::string, std::set<std::string>> every_probe;
  std::map<std::string, bool> first;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ProbeCase& c = cases[i];
    SCOPED_TRACE(c.name + ", " + c.variant);
    ASSERT_TRUE(results[i].ok) << results[i].error;
    ASSERT_EQ(results[i].outputs.size(), 1u);
    const std::string observed = dir + "/observed_" + c.name + (c.variant == "as written" ? "" : "_dyn");
    ASSERT_EQ(::mkdir(observed.c_str(), 0777), 0);
    qparity::cli::write_npy(observed + "/" + c.output_file, results[i].outputs[0]);
    const CliResult id = run_cli({"identify", "--model", c.model_path, "--input", c.inputs, "--observed", observed});
    ASSERT_EQ(id.exit_code, 0) << id.err;
    const std::set<std::string> exact = exact_matches(id.out);
    const std::string want = c.variant == "as written" ? "xnnpack-fp32" : "tflite-single";
    EXPECT_TRUE(exact.count(want)) << "identify did not list " << want << ":\n" << id.out;
    if (!first.count(c.variant)) {
      every_probe[c.variant] = exact;
      first[c.variant] = true;
    } else {
      std::set<std::string> keep;
      for (const std::string& e : every_probe[c.variant]) {
        if (exact.count(e)) keep.insert(e);
      }
      every_probe[c.variant] = keep;
    }
  }
  // Over all probes, the other path's arithmetic and the double rounding of TFLite's reference are
  // ruled out.
  EXPECT_TRUE(every_probe["as written"].count("xnnpack-fp32"));
  EXPECT_FALSE(every_probe["as written"].count("tflite-single"));
  EXPECT_FALSE(every_probe["as written"].count("tflite-reference"));
  EXPECT_TRUE(every_probe["filter as input"].count("tflite-single"));
  EXPECT_FALSE(every_probe["filter as input"].count("xnnpack-fp32"));
  EXPECT_FALSE(every_probe["filter as input"].count("tflite-reference"));
  std::string a, b;
  for (const std::string& e : every_probe["as written"]) a += e + " ";
  for (const std::string& e : every_probe["filter as input"]) b += e + " ";
  std::cout << "probe models in LiteRT.js, exact on every probe: as written {" << a << "}; filter as input {" << b
            << "}\n";
}

}  // namespace
}  // namespace qparity_test
