#include "probe_set.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "layer_runner.h"
#include "npy.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kFormat = "qparity-probe-1";

// A scale as JSON text that reads back as exactly this float: the exact decimal of the float
// widened to double (a shortest float text read as a double could round differently).
std::string scale_text(float f) { return fmt::format("{}", static_cast<double>(f)); }

// A bias-injection probe before it becomes a layer: 1x1 input at the zero point, filter of 1s,
// so channel c's accumulator is bias[c].
struct InjectionSpec {
  std::string name;
  std::string purpose;
  float input_scale = 1.0f;
  float output_scale = 1.0f;
  int input_zero_point = 0;
  int output_zero_point = 0;
  std::vector<float> filter_scales;
  std::vector<ProbeChannel> channels;  // acc = bias

  void add(float filter_scale, std::int64_t acc, std::string note) {
    filter_scales.push_back(filter_scale);
    const double eff = static_cast<double>(input_scale) * filter_scale / output_scale;
    channels.push_back(ProbeChannel{acc, eff, std::move(note)});
  }
};

std::string layer_json(const std::string& name, const std::string& purpose, float input_scale,
                       const std::vector<float>& filter_scales, float output_scale, int input_zp,
                       int output_zp, bool with_files) {
  std::string scales;
  for (std::size_t i = 0; i < filter_scales.size(); ++i) {
    scales += (i ? ", " : "") + scale_text(filter_scales[i]);
  }
  nlohmann::json comment = purpose;
  std::string out = fmt::format(
      "{{\"type\": \"conv2d\", \"name\": \"{}\", \"comment\": {}, \"padding\": \"VALID\",\n"
      "   \"input_zero_point\": {}, \"output_zero_point\": {},\n"
      "   \"input_scale\": {}, \"output_scale\": {},\n   \"filter_scales\": [{}]",
      name, comment.dump(), input_zp, output_zp, scale_text(input_scale), scale_text(output_scale), scales);
  if (with_files) out += fmt::format(",\n   \"filter\": \"{0}.filter.npy\", \"bias\": \"{0}.bias.npy\"", name);
  return out + "}";
}

Tensor int32_tensor(const std::vector<std::int64_t>& values) {
  Tensor t = make_tensor(DType::kInt32, {values.size()});
  for (std::size_t i = 0; i < values.size(); ++i) t.set_integer(i, values[i]);
  return t;
}

ProbeCase make_case(const std::string& name, const std::string& purpose, float input_scale,
                    const std::vector<float>& filter_scales, float output_scale, int input_zp,
                    int output_zp, Tensor input, Tensor filter, Tensor bias,
                    std::vector<ProbeChannel> channels) {
  LayerSources sources;
  sources.type = LayerType::kConv2D;
  sources.filter = std::move(filter);
  sources.bias = std::move(bias);
  ProbeCase c;
  c.name = name;
  c.purpose = purpose;
  c.layer = parse_layer(layer_json(name, purpose, input_scale, filter_scales, output_scale, input_zp,
                                   output_zp, false),
                        ".", "probe " + name, sources);
  c.input = std::move(input);
  c.channels = std::move(channels);
  return c;
}

ProbeCase make_injection_case(const InjectionSpec& s) {
  Tensor input = make_tensor(DType::kInt8, {1, 1, 1, 1});
  input.set_integer(0, s.input_zero_point);
  Tensor filter = make_tensor(DType::kInt8, {s.channels.size(), 1, 1, 1});
  std::vector<std::int64_t> bias;
  for (std::size_t c = 0; c < s.channels.size(); ++c) {
    filter.set_integer(c, 1);
    bias.push_back(s.channels[c].acc);
  }
  // One scale for all channels is written per tensor: the same values, and a search layer of
  // 65534 channels then derives its multiplier once per preset instead of once per channel.
  std::vector<float> scales = s.filter_scales;
  if (std::all_of(scales.begin(), scales.end(), [&](float f) { return f == scales.front(); })) scales.resize(1);
  return make_case(s.name, s.purpose, s.input_scale, scales, s.output_scale, s.input_zero_point,
                   s.output_zero_point, std::move(input), std::move(filter), int32_tensor(bias), s.channels);
}

InjectionSpec ties_spec() {
  InjectionSpec s;
  s.name = "ties";
  s.purpose = "tie rule: exact ties of both signs at M = 2^30, shift 0, -1, -2 (docs/semantics.md 11.1)";
  s.input_zero_point = -7;
  for (std::int64_t acc : {5, -5, -3, 3, 1, -1, -101, -99}) s.add(0.5f, acc, fmt::format("{}/2", acc));
  for (std::int64_t acc : {10, -10, 6, -6, 2, -2, 14, -14}) s.add(0.25f, acc, fmt::format("{}/4", acc));
  for (std::int64_t acc : {-12, 12, 7, -7, 4, -4, 20, -20}) s.add(0.125f, acc, fmt::format("{}/8", acc));
  return s;
}

InjectionSpec double_rounding_spec() {
  InjectionSpec s;
  s.name = "double_rounding";
  s.purpose = "one rounding or two: non-tie values that double rounding sends the wrong way (docs/semantics.md 11.2)";
  s.input_zero_point = 5;
  for (std::int64_t acc : {135, -135, 405, -405}) s.add(0.0037f, acc, "near x.5, DR rounds the SRDHM result");
  for (std::int64_t acc : {1, -1, 8, -8}) s.add(0.3f, acc, "scale 0.3: SRDHM forms a tie");
  for (std::int64_t acc : {747, -747, 2242, -2242}) s.add(0.00066894531f, acc, "near x.5 at shift -10");
  return s;
}

InjectionSpec zero_point_spec() {
  InjectionSpec s;
  s.name = "zero_point";
  s.purpose = "zero point added before (oneDNN) or after the float rounding: output zero point 3 (docs/semantics.md 11.7)";
  s.output_zero_point = 3;
  for (std::int64_t acc : {1, -1, 3, -3, 5, -5, 7, -7}) s.add(0.5f, acc, fmt::format("{}/2 + 3", acc));
  return s;
}

InjectionSpec wide_values_spec() {
  InjectionSpec s;
  s.name = "wide_values";
  s.purpose = "float32 conversion of accumulators beyond 2^24 (11.7) and NEON's wrapping pre-shift at 2^30 (11.5)";
  const float two_m25 = std::ldexp(1.0f, -25);
  s.add(two_m25, (std::int64_t{1} << 24) + 1, "(2^24+1)/2^25: float(acc) = 2^24 gives 0.5");
  s.add(two_m25, -((std::int64_t{1} << 24) + 1), "-(2^24+1)/2^25");
  s.add(two_m25, 3 * (std::int64_t{1} << 24) + 1, "(3*2^24+1)/2^25");
  s.add(0.5f, std::int64_t{1} << 30, "2^30/2: NEON's shift+1 pre-shift wraps to -2^31 (clamps to -128)");
  s.add(0.5f, -(std::int64_t{1} << 30) - 2, "(-2^30-2)/2: wraps the other way (clamps to 127)");
  return s;
}

// 3x3 x 256 dot products of 32385 per term (input 127 at zero point -128, weights +-127).
ProbeCase accumulator_case() {
  constexpr std::size_t kCin = 256, kTerms = 9 * kCin;
  constexpr std::int64_t kTerm = 255 * 127;
  Tensor input = make_tensor(DType::kInt8, {1, 3, 3, kCin});
  for (std::size_t i = 0; i < input.elements(); ++i) input.set_integer(i, 127);
  Tensor filter = make_tensor(DType::kInt8, {4, 3, 3, kCin});
  auto weight = [&](std::size_t oc, std::size_t i, int w) { filter.set_integer(oc * kTerms + i, w); };
  for (std::size_t i = 0; i < kTerms; ++i) {
    weight(0, i, i < kTerms / 2 ? 127 : -127);  // up to 1152 * 32385 = 37.3M, back to 0
    weight(1, i, i < 32 ? 127 : 0);             // 32 terms: 1036320 (> 2^15, < 2^23)
    weight(2, i, 127);                          // 2304 terms: 74615040 (> 2^23, < 2^31)
    weight(3, i, 127);                          // the same plus a bias of 2^31 - 1 (> 2^31)
  }
  const std::int64_t full = static_cast<std::int64_t>(kTerms) * kTerm;
  const std::vector<float> scales = {std::ldexp(1.0f, -10), std::ldexp(1.0f, -14), std::ldexp(1.0f, -20),
                                     std::ldexp(1.0f, -25)};
  std::vector<ProbeChannel> channels = {
      {0, scales[0], "partial sums reach 3.7e7 (> 2^23) and return to 0: saturating depths <= 24 bits differ"},
      {32 * kTerm, scales[1], "final sum 1036320 > 2^15: 16-bit depths differ"},
      {full, scales[2], "final sum 74615040 > 2^23: 24-bit depths differ"},
      {full + 2147483647, scales[3], "bias 2^31-1 plus 74615040 > 2^31: int32 wraps, sat32 saturates, int64 exact"},
  };
  return make_case("accumulator",
                   "accumulator depth and overflow: partial and final sums beyond 2^15, 2^23 and 2^31", 1.0f,
                   scales, 1.0f, -128, 0, std::move(input), std::move(filter),
                   int32_tensor({0, 0, 0, 2147483647}), std::move(channels));
}

// ---- the search that separates what the hand-made rows leave together -------------------------------

// Refines a partition of the design presets by one column of outputs (one per preset); true if
// some class split.
bool refine(std::vector<int>* classes, const std::vector<std::int64_t>& column) {
  // Class ids are always < classes->size(): a flat table of each class's first member suffices.
  const std::size_t n = classes->size();
  std::vector<std::size_t> first(n, n);
  bool split = false;
  for (std::size_t p = 0; p < n && !split; ++p) {
    std::size_t& f = first[static_cast<std::size_t>((*classes)[p])];
    if (f == n) f = p;
    split = column[p] != column[f];
  }
  if (!split) return false;
  std::map<std::pair<int, std::int64_t>, int> renumber;
  for (std::size_t p = 0; p < n; ++p) {
    const auto key = std::make_pair((*classes)[p], column[p]);
    const auto it = renumber.emplace(key, static_cast<int>(renumber.size())).first;
    (*classes)[p] = it->second;
  }
  return true;
}

// outputs[p][c]: channel c of the case under preset p.
std::vector<std::vector<std::int64_t>> outputs_per_preset(const ProbeCase& c, const std::vector<Preset>& presets) {
  std::vector<std::vector<std::int64_t>> out;
  for (const Preset& p : presets) {
    const Tensor y = run_layer(c.layer, p, c.input);
    std::vector<std::int64_t> v(y.elements());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = y.integer_at(i);
    out.push_back(std::move(v));
  }
  return out;
}

void refine_by_case(std::vector<int>* classes, const ProbeCase& c, const std::vector<Preset>& presets) {
  const auto outs = outputs_per_preset(c, presets);
  std::vector<std::int64_t> column(presets.size());
  for (std::size_t e = 0; e < outs.front().size(); ++e) {
    for (std::size_t p = 0; p < presets.size(); ++p) column[p] = outs[p][e];
    refine(classes, column);
  }
}

// A filter scale near `start` (stepping up float by float) at which TFLite's Q15 reduction of
// the Q31 multiplier and the direct Q15 rounding differ: only when the Q31 mantissa's low half is
// exactly 0x8000 while the exact value lies just below, so it takes a search (about 1 in 2^16).
float q15_reduction_split_scale(float input_scale, float output_scale, float start) {
  float s = start;
  for (int i = 0; i < (1 << 22); ++i, s = std::nextafter(s, 1.0f)) {
    const double eff = static_cast<double>(input_scale) * s / output_scale;
    if (!(reduce_multiplier_q31_to_q15(quantize_multiplier_tflite(eff)) == quantize_multiplier_q15_direct(eff))) {
      return s;
    }
  }
  return start;  // not found: the probe still works, it just cannot split this pair
}

// A precision probe: the §11.6 row as written, then candidate channels over a pool of scales and
// accumulators in a fixed order, keeping each one that splits a class of the partition.
ProbeCase precision_case(const std::string& name, float input_scale, float output_scale, float row_filter_scale,
                         std::int64_t row_acc, bool with_q15_search, std::vector<int>* classes,
                         const std::vector<Preset>& presets) {
  InjectionSpec chosen;
  chosen.name = name;
  chosen.purpose = "multiplier precision (q31, q15, float24) and scale composition (float or double): "
                   "non-power-of-two scales (docs/semantics.md 11.6) and searched separating values";
  chosen.input_scale = input_scale;
  chosen.output_scale = output_scale;
  chosen.add(row_filter_scale, row_acc, "float vs double scale composition (11.6)");

  refine_by_case(classes, make_injection_case(chosen), presets);
  std::vector<float> scales;
  const double ratio = static_cast<double>(output_scale) / input_scale;
  if (with_q15_search) scales.push_back(q15_reduction_split_scale(input_scale, output_scale,
                                                                  static_cast<float>(0.0057 * ratio)));
  for (const double eff : {0.0011, 0.0023, 0.0047, 0.0093, 0.019, 0.037}) {
    scales.push_back(static_cast<float>(eff * ratio));
  }
  // One search layer per scale, accumulators in the order 1, -1, 2, -2, ... up to |output| 110.
  for (const float s : scales) {
    InjectionSpec pool = chosen;
    pool.filter_scales.clear();
    pool.channels.clear();
    const double eff = static_cast<double>(input_scale) * s / output_scale;
    const std::int64_t limit = std::min<std::int64_t>(32767, static_cast<std::int64_t>(110 / eff));
    for (std::int64_t a = 1; a <= limit; ++a) {
      pool.add(s, a, "searched: splits candidates that agreed so far");
      pool.add(s, -a, "searched: splits candidates that agreed so far");
    }
    const auto outs = outputs_per_preset(make_injection_case(pool), presets);
    std::vector<std::int64_t> column(presets.size());
    for (std::size_t c = 0; c < pool.channels.size(); ++c) {
      for (std::size_t p = 0; p < presets.size(); ++p) column[p] = outs[p][c];
      if (refine(classes, column)) chosen.add(pool.filter_scales[c], pool.channels[c].acc, pool.channels[c].note);
    }
  }
  return make_injection_case(chosen);
}

}  // namespace

std::vector<Preset> probe_design_presets() {
  std::vector<Preset> presets = named_presets();
  for (const Preset& p : npu_family(AccumulatorSpec{AccumulatorKind::kInt32, 32})) presets.push_back(p);
  return presets;
}

std::vector<ProbeCase> build_probe_set() {
  const std::vector<Preset> presets = probe_design_presets();
  std::vector<int> classes(presets.size(), 0);
  std::vector<ProbeCase> probes;
  for (const InjectionSpec& s : {ties_spec(), double_rounding_spec(), zero_point_spec(), wide_values_spec()}) {
    probes.push_back(make_injection_case(s));
    refine_by_case(&classes, probes.back(), presets);
  }
  // The three float-vs-double composition rows of docs/semantics.md §11.6, each with its s_in,
  // s_out.
  probes.push_back(precision_case("precision_1", 0.00140596379f, 0.0273668021f, 0.00894607045f, -31549, true,
                                  &classes, presets));
  probes.push_back(precision_case("precision_2", 0.0617987774f, 0.218587115f, 0.00524291256f, 8433, false,
                                  &classes, presets));
  probes.push_back(precision_case("precision_3", 0.0154719995f, 0.0122621255f, 0.000355372089f, -27877, false,
                                  &classes, presets));
  probes.push_back(accumulator_case());
  return probes;
}

void add_probe_files(const std::vector<ProbeCase>& probes, const std::string& dir, OutputFiles* out) {
  nlohmann::ordered_json manifest;
  manifest["format"] = kFormat;
  manifest["about"] = "qparity probe set (docs/semantics.md 14.3). Run every <name>.json layer on the device, save "
                      "its int8 output as <name>.npy in one directory, then: qparity identify --probe DIR "
                      "--observed THAT_DIRECTORY. See README.txt.";
  manifest["probes"] = nlohmann::ordered_json::array();
  for (const ProbeCase& p : probes) {
    const std::string base = dir + "/" + p.name;
    out->add(base + ".input.npy", serialize_npy(p.input));
    out->add(base + ".filter.npy", serialize_npy(p.layer.filter));
    out->add(base + ".bias.npy", serialize_npy(*p.layer.bias));
    const std::string layer = layer_json(p.name, p.purpose, *p.layer.input_scale, p.layer.filter_scales,
                                         *p.layer.output_scale, p.layer.input_zero_point,
                                         p.layer.output_zero_point, true);
    out->add(base + ".json", fmt::format("{{\"input\": \"{}.input.npy\",\n \"layers\": [\n  {}\n ]}}\n", p.name, layer));
    nlohmann::ordered_json entry;
    entry["name"] = p.name;
    entry["stack"] = p.name + ".json";
    entry["observed"] = p.name + ".npy";
    entry["purpose"] = p.purpose;
    entry["channels"] = nlohmann::ordered_json::array();
    for (const ProbeChannel& c : p.channels) {
      nlohmann::ordered_json ch;
      ch["acc"] = c.acc;
      ch["scale"] = c.scale;
      ch["note"] = c.note;
      entry["channels"].push_back(ch);
    }
    manifest["probes"].push_back(entry);
  }
  out->add(dir + "/probe.json", manifest.dump(1) + "\n");
  out->add(dir + "/README.txt", probe_readme(probes));
}

std::vector<ProbeCase> load_probe_set(const std::string& dir) {
  const std::string path = dir + "/probe.json";
  const std::string text = read_text_file(path);
  auto bad = [&](const std::string& problem) { return ToolError(fmt::format("{}: {}", path, problem)); };
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("invalid JSON: {}", e.what()));
  }
  if (!m.is_object() || m.value("format", "") != kFormat || !m.contains("probes") || !m["probes"].is_array()) {
    throw bad(fmt::format("not a probe manifest (expected an object with \"format\": \"{}\" and a \"probes\" array; "
                          "write one with 'qparity probe --output DIR')",
                          kFormat));
  }
  std::vector<ProbeCase> probes;
  try {
    for (const auto& e : m["probes"]) {
      ProbeCase p;
      p.name = e.at("name").get<std::string>();
      p.purpose = e.value("purpose", "");
      const Stack stack = load_stack(dir + "/" + e.at("stack").get<std::string>());
      if (stack.layers.size() != 1 || !stack.input) {
        throw bad(fmt::format("probe '{}': its stack must have an input and exactly one layer", p.name));
      }
      p.layer = stack.layers[0];
      p.input = *stack.input;
      for (const auto& ch : e.at("channels")) {
        p.channels.push_back(ProbeChannel{ch.at("acc").get<std::int64_t>(), ch.at("scale").get<double>(),
                                          ch.value("note", "")});
      }
      if (p.channels.size() != p.layer.out_channels()) {
        throw bad(fmt::format("probe '{}': {} channel notes for {} output channels", p.name, p.channels.size(),
                              p.layer.out_channels()));
      }
      probes.push_back(std::move(p));
    }
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("malformed probe entry: {}", e.what()));
  }
  if (probes.empty()) throw bad("the manifest lists no probes");
  return probes;
}

std::string probe_readme(const std::vector<ProbeCase>& probes) {
  std::string list;
  for (const ProbeCase& p : probes) {
    list += fmt::format("  {:<16} {} output channels; {}\n", p.name, p.channels.size(), p.purpose);
  }
  return fmt::format(
      R"(qparity probe set: identify the int8 arithmetic of a device (docs/semantics.md 14.3)
=============================================================================

Each probe is one CONV_2D layer, int8 in and out, per-channel (axis 0) int8 weights with zero
point 0, int32 bias, no fused activation, padding VALID:

{}
Files, per probe <name>:
  <name>.json         a one-layer qparity stack: scales, zero points, file names (TFLite vocabulary)
  <name>.input.npy    the input, NHWC int8
  <name>.filter.npy   the filter, OHWI int8
  <name>.bias.npy     the bias, int32, one per output channel
  <name>.tflite       the same layer as a one-op .tflite model, int8 in and out (qparity probe
                      --format tflite, the default)
probe.json            the manifest `qparity identify` reads (with each channel's exact accumulator
                      and effective scale, for its report)

On the device
  1. Take <name>.tflite: one CONV_2D whose tensors carry exactly these values and quantization
     parameters (the runtime loads it as is; its input and output tensors are int8). For a
     toolchain that takes no .tflite, build the same layer from <name>.json (input_scale /
     input_zero_point, per-channel filter_scales, output_scale / output_zero_point; bias scale =
     input_scale * filter_scale, bias zero point 0).
  2. Run it through the delegate / NPU under test with <name>.input.npy as input.
  3. Save the int8 output, in NHWC order as the device returned it, as <name>.npy in one
     directory (numpy: np.save("observed/ties.npy", out.astype(np.int8))).
  Make sure the device really ran the layer (no CPU fallback: check the delegate's log).

Then
  qparity identify --probe THIS_DIRECTORY --observed observed/

ranks every named preset and every NPU-family arithmetic (tie rule x multiplier precision x
accumulator depth) by how many output elements it gets wrong, lists the exact matches, the
arithmetics the probe cannot tell apart, and the elements that separate the best candidates.

To see what a preset predicts: qparity run --stack THIS_DIRECTORY/ties.json --preset tflite-reference --output ties.npy

Notes
  * The saturating-accumulator models sum the products in filter order (ky, kx, c), then add the
    bias; a device that sums in another order can match no saturating model on the `accumulator`
    probe even if its depth is right. Its other probes are unaffected (all accumulators there
    fit 16 bits, except wide_values).
  * Channels are independent: a mismatch report names the probe and channel, with the exact
    accumulator and effective scale it tests.
)",
      list);
}

}  // namespace qparity::cli
