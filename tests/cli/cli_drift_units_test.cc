// In-process tests of diff's and identify's building blocks: drift metrics on hand-computed cases,
// the SVG plots (well-formed XML, content, determinism), preset-map parsing, all-or-nothing output
// files, the progress line, and the probe set (round trip through its files, separating power).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tool_test_files.h"

#include "drift_metrics.h"
#include "drift_report.h"
#include "identify.h"
#include "layer_runner.h"
#include "output_files.h"
#include "preset_map.h"
#include "probe_set.h"
#include "progress_bar.h"
#include "svg_plot.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

std::string fresh_dir(const char* what) { return qparity_cli_test::make_temp_dir(std::string("units_") + what); }

std::vector<std::string> directory_entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    ::closedir(d);
  }
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

DriftMetrics drift(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b, std::int64_t zp = 0,
                   std::size_t channels = 0) {
  return compute_drift(a.data(), b.data(), a.size(), zp, channels);
}

// ---- metrics -------------------------------------------------------------------------------------

TEST(DriftMetrics, HandComputedCase) {
  // d = b - a = {0, +1, -1, 0, +3, 0}: 3 of 6 differ, |d| sums to 5, d sums to 3.
  const DriftMetrics m = drift({1, 2, 3, 4, 5, 6}, {1, 3, 2, 4, 8, 6});
  EXPECT_EQ(m.elements, 6u);
  EXPECT_EQ(m.differing, 3u);
  EXPECT_DOUBLE_EQ(m.percent_differing(), 50.0);
  EXPECT_EQ(m.max_abs_diff, 3);
  EXPECT_DOUBLE_EQ(m.mae, 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.mean_diff, 3.0 / 6.0);
  const std::map<std::int64_t, std::uint64_t> expected = {{-1, 1}, {0, 3}, {1, 1}, {3, 1}};
  EXPECT_EQ(m.histogram, expected);
  // cosine: a.b = 1+6+6+16+40+36 = 105; |a|^2 = 91; |b|^2 = 1+9+4+16+64+36 = 130.
  EXPECT_NEAR(m.cosine, 105.0 / std::sqrt(91.0 * 130.0), 1e-15);
}

TEST(DriftMetrics, CosineIsTakenAroundTheZeroPoint) {
  // Around zp = 10 the values are {1, 0} and {0, 1}: orthogonal.
  EXPECT_NEAR(drift({11, 10}, {10, 11}, 10).cosine, 0.0, 1e-15);
  // Opposite vectors.
  EXPECT_NEAR(drift({12, 8}, {8, 12}, 10).cosine, -1.0, 1e-15);
}

TEST(DriftMetrics, CosineOfZeroVectors) {
  EXPECT_EQ(drift({0, 0, 0}, {0, 0, 0}).cosine, 1.0);  // identical: 1
  EXPECT_EQ(drift({0, 0, 0}, {0, 1, 0}).cosine, 0.0);  // one has no direction: 0
  EXPECT_EQ(drift({5, 5}, {5, 5}, 5).cosine, 1.0);     // all at the zero point
}

TEST(DriftMetrics, IdenticalTensorsHaveNoDriftAndCosineExactlyOne) {
  const DriftMetrics m = drift({-128, 3, 77, 127, -5, 9, 13}, {-128, 3, 77, 127, -5, 9, 13}, -3);
  EXPECT_EQ(m.differing, 0u);
  EXPECT_EQ(m.max_abs_diff, 0);
  EXPECT_EQ(m.mae, 0.0);
  EXPECT_EQ(m.cosine, 1.0);
  EXPECT_EQ(m.histogram.size(), 1u);
  EXPECT_EQ(m.histogram.at(0), 7u);
}

TEST(DriftMetrics, PerChannelBreakdownIsOverTheLastAxis) {
  // Two channels interleaved: channel 0 = elements 0, 2, 4; channel 1 = 1, 3, 5.
  const DriftMetrics m = drift({0, 0, 0, 0, 0, 0}, {0, 2, 0, -1, 1, 0}, 0, 2);
  ASSERT_EQ(m.channels.size(), 2u);
  EXPECT_EQ(m.channels[0].differing, 1u);
  EXPECT_EQ(m.channels[0].max_abs_diff, 1);
  EXPECT_DOUBLE_EQ(m.channels[0].mae, 1.0 / 3.0);
  EXPECT_EQ(m.channels[1].differing, 2u);
  EXPECT_EQ(m.channels[1].max_abs_diff, 2);
  EXPECT_DOUBLE_EQ(m.channels[1].mae, 1.0);
}

TEST(DriftMetrics, EmptyTensor) {
  const DriftMetrics m = drift({}, {});
  EXPECT_EQ(m.percent_differing(), 0.0);
  EXPECT_EQ(m.cosine, 1.0);
}

TEST(DriftMetrics, TensorShapesAndDtypesAreChecked) {
  Tensor a = make_tensor(DType::kInt8, {2, 3});
  Tensor b = make_tensor(DType::kInt8, {3, 2});
  try {
    compute_drift(a, b, 0, false, "x.npy", "y.npy");
    FAIL() << "no error";
  } catch (const ToolError& e) {
    EXPECT_STREQ(e.what(), "shapes differ: x.npy [2, 3] vs y.npy [3, 2]");
  }
  Tensor f = make_tensor(DType::kFloat32, {2, 3});
  try {
    compute_drift(a, f, 0, false, "x.npy", "y.npy");
    FAIL() << "no error";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("x.npy is int8 and y.npy is float32: an integer tensor is compared with a "
                                         "float one in real units; give x.npy's scale and zero point"),
              std::string::npos)
        << e.what();
  }
  // Different integer dtypes are not steps of one grid: an error saying what to give.
  Tensor u = make_tensor(DType::kUint8, {2, 3});
  try {
    compute_drift(a, u, 0, false, "x.npy", "y.npy");
    FAIL() << "no error";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("x.npy is int8 but y.npy is uint8"), std::string::npos) << e.what();
  }
  // ... unless both quantizations are known: then in real units only.
  for (std::size_t i = 0; i < 6; ++i) u.set_integer(i, 128);  // real 0, as a's zeros
  u.set_integer(4, 130);                                        // real 2 * (130 - 128) = 4 against 0
  const DriftMetrics q = compare_tensors({&a, "x", Dequantization{2, 0}}, {&u, "y", Dequantization{2, 128}}, 0, false);
  EXPECT_FALSE(q.lsb);
  ASSERT_TRUE(q.real);
  EXPECT_EQ(q.real->differing, 1u);
  EXPECT_EQ(q.real->max_abs_diff, 4.0);
  ASSERT_EQ(q.real->worst.size(), 1u);
  EXPECT_EQ(q.real->worst[0].index, 4u);
  EXPECT_EQ(q.real->cosine, 0.0);  // A is all zero, B is not
  EXPECT_EQ(q.real->sqnr_db, -std::numeric_limits<double>::infinity());
}

TEST(DriftMetrics, SameIntegerDtypeWithScalesHasBothLsbAndRealMetrics) {
  Tensor a = make_tensor(DType::kInt8, {1, 2, 2});
  Tensor b = make_tensor(DType::kInt8, {1, 2, 2});
  a.set_integer(3, 10);
  b.set_integer(3, 12);
  const DriftMetrics m = compare_tensors({&a, "A", Dequantization{0.5, 0}}, {&b, "B", Dequantization{0.5, 0}}, 0, true);
  EXPECT_TRUE(m.lsb);
  EXPECT_EQ(m.max_abs_diff, 2);
  ASSERT_EQ(m.worst.size(), 1u);
  EXPECT_EQ(m.worst[0].index, 3u);
  ASSERT_TRUE(m.real);
  EXPECT_EQ(m.real->max_abs_diff, 1.0);  // 2 LSB * 0.5
  EXPECT_EQ(m.real->mae, 0.25);
  EXPECT_DOUBLE_EQ(m.real->sqnr_db, 10 * std::log10(25.0 / 1.0));  // A: 5^2, noise 1^2
  EXPECT_DOUBLE_EQ(m.real->rel_err, 1.0 / 5.0);
  // Only one side's quantization: an error, not a silent LSB comparison.
  EXPECT_THROW(compare_tensors({&a, "A", Dequantization{0.5, 0}}, {&b, "B", std::nullopt}, 0, false), ToolError);
}

TEST(DriftMetrics, FoldedHistogramPutsOutliersInTheEndBins) {
  const DriftMetrics m = drift({0, 0, 0, 0, 0}, {-9, -1, 0, 2, 5});
  const std::vector<std::uint64_t> bins = folded_histogram(m, 2);  // -2..2
  EXPECT_EQ(bins, (std::vector<std::uint64_t>{1, 1, 1, 0, 2}));
}

TEST(DriftReport, HistogramTextAndCsvJson) {
  DriftReport r;
  r.label_a = "a";
  r.label_b = "b \"quoted\"";
  r.source = "s.json";
  LayerDrift l;
  l.name = "conv,0";
  l.preset_a = "a";
  l.preset_b = "b";
  l.shape = {1, 2, 3};
  l.accumulated = drift({0, 0, 0, 0, 0, 0}, {1, -1, 1, 0, 0, 5});
  l.isolated = drift({0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0});
  r.layers.push_back(l);
  EXPECT_EQ(histogram_text(l.accumulated), "-1:1 +1:2 +5:1");
  EXPECT_EQ(histogram_text(l.accumulated, " ", 2), "-1:1 +1:2 |d|>2:1");
  EXPECT_EQ(histogram_text(drift({1}, {1})), "-");
  const std::string csv = drift_csv(r);
  EXPECT_NE(csv.find("\n0,\"conv,0\",a,b,\"[1, 2, 3]\",6,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",-1:1;+1:2;+5:1,,,,,,,,,,,,,,\n"), std::string::npos) << csv;  // no real-unit metrics
  const std::string json = drift_json(r);
  EXPECT_NE(json.find("\"b\": \"b \\\"quoted\\\"\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"histogram\": [[-1, 1], [0, 2], [1, 2], [5, 1]]"), std::string::npos) << json;
}

// ---- SVG ---------------------------------------------------------------------------------------------

// Minimal well-formedness: one root, every start tag closed in order, attributes quoted, no raw
// '&' or '<' in text. (Not a full XML parser: enough to catch broken generation.)
::testing::AssertionResult well_formed_svg(const std::string& svg) {
  if (svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0) != 0) {
    return ::testing::AssertionFailure() << "bad prolog";
  }
  std::vector<std::string> open;
  std::size_t i = svg.find("<svg ");
  int roots = 0;
  while (i < svg.size()) {
    const std::size_t lt = svg.find('<', i);
    const std::string text = svg.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    const std::regex bad_amp("&(?!(amp|lt|gt|quot|apos);)");
    if (std::regex_search(text, bad_amp)) return ::testing::AssertionFailure() << "raw & in text: " << text;
    if (lt == std::string::npos) break;
    const std::size_t gt = svg.find('>', lt);
    if (gt == std::string::npos) return ::testing::AssertionFailure() << "unterminated tag";
    const std::string tag = svg.substr(lt + 1, gt - lt - 1);
    if (tag.find('<') != std::string::npos) return ::testing::AssertionFailure() << "'<' inside tag " << tag;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) {
        return ::testing::AssertionFailure() << "</" << tag.substr(1) << "> closes "
                                             << (open.empty() ? "nothing" : open.back());
      }
      open.pop_back();
    } else {
      const std::string name = tag.substr(0, tag.find_first_of(" /"));
      static const std::regex attrs(R"(^[a-z]+( [A-Za-z0-9:-]+="[^"<]*")*\s*/?$)");
      if (!std::regex_match(tag, attrs)) return ::testing::AssertionFailure() << "bad tag: <" << tag << ">";
      if (open.empty()) ++roots;
      if (tag.back() != '/') open.push_back(name);
    }
    i = gt + 1;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "unclosed <" << open.back() << ">";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

DriftReport sample_report(bool isolated) {
  DriftReport r;
  r.label_a = "tflite-reference";
  r.label_b = "npu-verisilicon & <friends>";
  r.source = "stack.json";
  for (std::size_t i = 0; i < 7; ++i) {
    LayerDrift l;
    l.index = i;
    l.name = "conv" + std::to_string(i);
    std::vector<std::int64_t> a(100, 0), b(100, 0);
    for (std::size_t k = 0; k < i * 3; ++k) b[k] = (k % 2 ? 1 : -1) * static_cast<std::int64_t>(1 + k % (i + 1));
    l.accumulated = drift(a, b);
    if (isolated) l.isolated = drift(a, std::vector<std::int64_t>(b.begin(), b.begin() + 100));
    r.layers.push_back(l);
  }
  return r;
}

TEST(SvgPlot, HistogramIsWellFormedDeterministicAndComplete) {
  const DriftReport r = sample_report(true);
  const std::string svg = histogram_svg(r);
  EXPECT_TRUE(well_formed_svg(svg));
  EXPECT_EQ(svg, histogram_svg(r));  // deterministic
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    EXPECT_NE(svg.find(">" + std::to_string(i) + " conv" + std::to_string(i) + "<"), std::string::npos) << i;
  }
  EXPECT_NE(svg.find("npu-verisilicon &amp; &lt;friends&gt;"), std::string::npos);
  // Layer 6 has b - a = -1 on 3 of 100 elements (k = 0, 2, ... with k % 7 == 0 -> 1 LSB).
  EXPECT_NE(svg.find("<title>layer 6 conv6, accumulated, b - a = +0: 82 of 100 elements (82.0000%)</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("isolated, b - a"), std::string::npos);
  EXPECT_TRUE(well_formed_svg(histogram_svg(sample_report(false))));
  EXPECT_EQ(histogram_svg(sample_report(false)).find("isolated, b - a"), std::string::npos);
}

TEST(SvgPlot, PropagationIsWellFormedAndCarriesEveryPoint) {
  const DriftReport r = sample_report(true);
  const std::string svg = propagation_svg(r);
  EXPECT_TRUE(well_formed_svg(svg));
  EXPECT_EQ(svg, propagation_svg(r));
  std::size_t points = 0;
  for (std::size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++points;
  EXPECT_EQ(points, 2u * 2u * r.layers.size());  // 2 charts x (accumulated + isolated) x layers
  EXPECT_NE(svg.find("layer 6 conv6, accumulated: 18.0000 % (18 of 100 elements differ"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  // A single layer and an all-zero report still plot.
  DriftReport one;
  one.layers.push_back(r.layers[0]);
  EXPECT_TRUE(well_formed_svg(propagation_svg(one)));
  EXPECT_TRUE(well_formed_svg(histogram_svg(one)));
}

TEST(SvgPlot, WellFormednessCheckCanFail) {
  EXPECT_FALSE(well_formed_svg("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=\"1\"><g></svg>"));
  EXPECT_FALSE(well_formed_svg("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=\"1\">a & b</svg>"));
}

// ---- preset maps ---------------------------------------------------------------------------------------

std::vector<std::string> names(const std::vector<Preset>& presets) {
  std::vector<std::string> out;
  for (const Preset& p : presets) out.push_back(p.name);
  return out;
}

TEST(PresetMap, DefaultAndRanges) {
  const PresetMap m = parse_preset_map("npu-verisilicon, 3-5=tflite-reference,7=ruy-x86", "--b");
  EXPECT_EQ(preset_map_text(m), "npu-verisilicon,3-5=tflite-reference,7=ruy-x86");
  const std::vector<std::string> n = names(resolve_preset_map(m, 9, "--b"));
  EXPECT_EQ(n, (std::vector<std::string>{"npu-verisilicon", "npu-verisilicon", "npu-verisilicon", "tflite-reference",
                                          "tflite-reference", "tflite-reference", "npu-verisilicon", "ruy-x86",
                                          "npu-verisilicon"}));
  const PresetMap open = parse_preset_map("0-1=ruy-arm,2-=npu-he-q31-sat24", "--a");
  EXPECT_EQ(names(resolve_preset_map(open, 4, "--a")),
            (std::vector<std::string>{"ruy-arm", "ruy-arm", "npu-he-q31-sat24", "npu-he-q31-sat24"}));
  EXPECT_TRUE(parse_preset_map("tflite-reference", "--a").uniform());
}

std::string map_error(const std::string& text, std::size_t layers = 6) {
  try {
    resolve_preset_map(parse_preset_map(text, "--b"), layers, "--b");
  } catch (const ToolError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "";
}

TEST(PresetMap, ErrorsNameTheProblem) {
  EXPECT_EQ(map_error(""), "--b: empty; expected PRESET or RANGE=PRESET items separated by commas, RANGE = I, I-J "
                           "or I- (0-based layer indices)");
  EXPECT_EQ(map_error("ruy-x86,,gemmlowp").find("--b: empty item in 'ruy-x86,,gemmlowp'"), 0u);
  EXPECT_EQ(map_error("tflite-reference,ruy-x86"),
            "--b: two default presets ('tflite-reference' and 'ruy-x86'); give one, and RANGE=PRESET for the others");
  EXPECT_EQ(map_error("nope").find("--b: item 'nope': preset 'nope' is unknown; allowed: tflite-reference"), 0u);
  EXPECT_EQ(map_error("ruy-x86,2-x=gemmlowp"),
            "--b: item '2-x=gemmlowp': range '2-x' is not I, I-J or I- with 0-based layer indices");
  EXPECT_EQ(map_error("ruy-x86,-1=gemmlowp").find("--b: item '-1=gemmlowp': range '-1' is not"), 0u);
  EXPECT_EQ(map_error("ruy-x86,5-3=gemmlowp"), "--b: item '5-3=gemmlowp': range 5-3 ends before it starts");
  EXPECT_EQ(map_error("ruy-x86,3=").find("--b: item '3=': no preset"), 0u);
  EXPECT_EQ(map_error("ruy-x86,4-9=gemmlowp"), "--b: range 4-9 is outside the stack, whose 6 layers are 0-5");
  EXPECT_EQ(map_error("ruy-x86,6=gemmlowp"), "--b: range 6 is outside the stack, whose 6 layers are 0-5");
  EXPECT_EQ(map_error("ruy-x86,1-3=gemmlowp,3-4=ruy-arm"), "--b: ranges 1-3 and 3-4 overlap at layer 3");
  EXPECT_EQ(map_error("0-2=gemmlowp,4=ruy-arm"),
            "--b: no preset for layer(s) 3, 5; add a default preset (an item without '=') or a range covering them");
  EXPECT_EQ(map_error("ruy-x86,1-3=gemmlowp"), "");  // valid
}

// ---- output files, progress ---------------------------------------------------------------------------------

TEST(OutputFiles, AllOrNothing) {
  const std::string dir = fresh_dir("out");
  {
    OutputFiles files;
    files.add(dir + "/a.txt", "alpha");
    files.add(dir + "/missing/b.txt", "beta");  // its directory does not exist
    EXPECT_THROW(files.commit(), ToolError);
  }
  EXPECT_TRUE(directory_entries(dir).empty());  // neither a.txt nor a temporary left behind
  OutputFiles ok;
  ok.add(dir + "/a.txt", "alpha");
  ok.add(dir + "/b.txt", "beta");
  ok.commit();
  EXPECT_EQ(slurp(dir + "/a.txt"), "alpha");
  EXPECT_EQ(slurp(dir + "/b.txt"), "beta");
}

TEST(ProgressBar, LineAndEnablement) {
  EXPECT_EQ(progress_line("diff", 5, 20, "conv5", 10), "diff [##........]  5/20  conv5");
  EXPECT_EQ(progress_line("diff", 25, 20, "", 4), "diff [####] 20/20");
  EXPECT_EQ(progress_line("x", 0, 0, "", 3), "x [###] 0/0");
  ::setenv("QPARITY_PROGRESS", "always", 1);
  EXPECT_TRUE(progress_enabled(stderr));
  ::setenv("QPARITY_PROGRESS", "never", 1);
  EXPECT_FALSE(progress_enabled(stderr));
  ::unsetenv("QPARITY_PROGRESS");
  std::FILE* file = std::tmpfile();
  EXPECT_FALSE(progress_enabled(file));  // a file is not a terminal
  {
    ProgressBar bar("t", 3, file);
    bar.update(1, "x");
  }
  EXPECT_EQ(std::ftell(file), 0L);  // nothing drawn
  std::fclose(file);
}

// ---- probe set and identify ---------------------------------------------------------------------------------

// The groups of design presets the probe cannot separate, and why (docs/semantics.md and
// presets.h):
//  * tflite-reference, gemmlowp, cmsis-nn, tosa-double: the same definition (DR-AZ, TFLite Q31,
//    double composition, int32) — different sources, one arithmetic.
//  * tflite-single, cmsis-nn-single, tosa-single, npu-hu-q31-int32: SR-UP with a Q31 multiplier;
//    the TFLite "single build" derivation differs from the double build only for effective scales
//    >= 2^31 (exponent saturation), where no int8 output but 0 is possible.
//  * xnnpack-fp32, onnxruntime, fbgemm: the same definition (F32, float scale and composition);
//    they differ only in the clamp derivation of fused activations, which the probe does not use.
//  * npu-verisilicon, npu-he-q15-int32: an alias.
const std::vector<std::vector<std::string>> kIndistinguishable = {
    {"tflite-reference", "gemmlowp", "cmsis-nn", "tosa-double"},
    {"tflite-single", "cmsis-nn-single", "tosa-single", "npu-hu-q31-int32"},
    {"xnnpack-fp32", "onnxruntime", "fbgemm"},
    {"npu-verisilicon", "npu-he-q15-int32"},
};

const std::vector<std::string>& group_of(const std::string& name) {
  static const std::vector<std::string> none;
  for (const auto& g : kIndistinguishable) {
    for (const auto& n : g) {
      if (n == name) return g;
    }
  }
  return none;
}

std::vector<Tensor> simulate(const std::vector<ProbeCase>& probes, const Preset& p) {
  std::vector<Tensor> out;
  for (const ProbeCase& c : probes) out.push_back(run_layer(c.layer, p, c.input));
  return out;
}

TEST(ProbeSet, FilesRoundTripAndIsDeterministic) {
  const std::vector<ProbeCase> built = build_probe_set();
  const std::string dir = fresh_dir("probe");
  OutputFiles files;
  add_probe_files(built, dir, &files);
  files.commit();
  const std::vector<ProbeCase> loaded = load_probe_set(dir);
  ASSERT_EQ(loaded.size(), built.size());
  for (const char* name : {"tflite-reference", "npu-verisilicon", "onednn", "npu-fl-f24-sat16"}) {
    const Preset p = find_preset(name);
    const std::vector<Tensor> a = simulate(built, p), b = simulate(loaded, p);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].bytes, b[i].bytes) << built[i].name << " under " << name;
      EXPECT_EQ(loaded[i].channels.size(), built[i].channels.size());
    }
  }
  // The same set again (the search is deterministic).
  const std::vector<ProbeCase> again = build_probe_set();
  ASSERT_EQ(again.size(), built.size());
  for (std::size_t i = 0; i < built.size(); ++i) {
    EXPECT_EQ(again[i].layer.filter_scales, built[i].layer.filter_scales);
    EXPECT_EQ(again[i].layer.bias->bytes, built[i].layer.bias->bytes);
  }
  // Outputs stay inside int8 and mostly away from the clamp (the clamp is the signal only in
  // wide_values and accumulator).
  for (const char* name : {"tflite-reference", "npu-verisilicon", "xnnpack-fp32"}) {
    const std::vector<Tensor> y = simulate(built, find_preset(name));
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (built[i].name == "wide_values" || built[i].name == "accumulator") continue;
      for (std::size_t e = 0; e < y[i].elements(); ++e) {
        EXPECT_GT(y[i].integer_at(e), -128) << built[i].name << " " << e;
        EXPECT_LT(y[i].integer_at(e), 127) << built[i].name << " " << e;
      }
    }
  }
}

TEST(ProbeSet, IdentifyRecoversEveryPresetUpToDocumentedEquivalence) {
  const std::vector<ProbeCase> probes = build_probe_set();
  const std::vector<Preset> candidates = identify_candidates(default_identify_accumulators());
  std::vector<std::string> truths;
  for (const Preset& p : named_presets()) truths.push_back(p.name);
  // Every NPU-family member: 5 ties x 3 precisions x 7 accumulators.
  for (const Preset& p : candidates) {
    if (p.name.rfind("npu-", 0) == 0 && p.name != "npu-verisilicon") truths.push_back(p.name);
  }
  for (const std::string& truth : truths) {
    const Identification id = identify(probes, simulate(probes, find_preset(truth)), candidates, nullptr);
    std::vector<std::string> exact;
    for (const CandidateResult& r : id.ranking) {
      if (r.exact()) exact.push_back(id.candidates[r.candidate].name);
    }
    std::vector<std::string> expected = group_of(truth);
    if (expected.empty()) expected = {truth};
    std::sort(exact.begin(), exact.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(exact, expected) << "truth " << truth;
  }
}

TEST(ProbeSet, EquivalenceReasons) {
  EXPECT_EQ(equivalence_reason(find_preset("tflite-reference"), find_preset("gemmlowp")), "identical definition");
  EXPECT_NE(equivalence_reason(find_preset("tflite-single"), find_preset("tosa-single")).find("multiplier"),
            std::string::npos);
}

}  // namespace
}  // namespace qparity::cli
