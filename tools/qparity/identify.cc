#include "identify.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "layer_runner.h"
#include "tool_error.h"

namespace qparity::cli {

std::vector<AccumulatorSpec> default_identify_accumulators() {
  return {{AccumulatorKind::kInt32, 32},      {AccumulatorKind::kInt64, 64},
          {AccumulatorKind::kSaturating, 16}, {AccumulatorKind::kSaturating, 24},
          {AccumulatorKind::kSaturating, 32}, {AccumulatorKind::kWrapping, 16},
          {AccumulatorKind::kWrapping, 24}};
}

std::vector<Preset> identify_candidates(const std::vector<AccumulatorSpec>& accumulators) {
  std::vector<Preset> out = named_presets();
  for (const AccumulatorSpec& a : accumulators) {
    for (const Preset& p : npu_family(a)) out.push_back(p);
  }
  return out;
}

Identification identify(const std::vector<ProbeCase>& cases, const std::vector<Tensor>& observed,
                        const std::vector<Preset>& candidates, ProgressBar* progress) {
  if (observed.size() != cases.size()) {
    throw ToolError(fmt::format("{} observed outputs for {} probe cases", observed.size(), cases.size()));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::vector<std::size_t> expected = output_shape(cases[i].layer, cases[i].input.shape);
    if (observed[i].shape != expected) {
      throw ToolError(fmt::format("observed output of '{}' has shape {}; the layer gives {}", cases[i].name,
                                  shape_text(observed[i].shape), shape_text(expected)));
    }
    const DType want = cases[i].layer.output_dtype.value_or(cases[i].input.dtype);
    if (observed[i].dtype != want) {
      std::string hint = "save the device's output in the layer's type";
      if ((want == DType::kInt8 && observed[i].dtype == DType::kUint8) ||
          (want == DType::kUint8 && observed[i].dtype == DType::kInt8)) {
        hint = fmt::format("if the device stores the same tensor as {} with the zero point moved by 128, convert it "
                           "(numpy: (x.astype(np.int16) {} 128).astype(np.{}))",
                           to_string(observed[i].dtype), want == DType::kInt8 ? "-" : "+", to_string(want));
      } else if (is_float(observed[i].dtype)) {
        hint = "identify compares the stored integers; quantize the device's output with the layer's output scale "
               "and zero point, or compare it in real units with `qparity diff --dump-a ... --scale-a ...`";
      }
      throw ToolError(fmt::format("observed output of '{}' is {}; the layer's output is {}: {}", cases[i].name,
                                  to_string(observed[i].dtype), to_string(want), hint));
    }
  }
  std::vector<std::string> names;
  for (const ProbeCase& c : cases) names.push_back(c.name);
  return identify_with(names, observed, candidates,
                       [&](std::size_t c, std::size_t i) { return run_layer(cases[i].layer, candidates[c], cases[i].input); },
                       progress);
}

Identification identify_with(const std::vector<std::string>& names, const std::vector<Tensor>& observed,
                             const std::vector<Preset>& candidates,
                             const std::function<Tensor(std::size_t, std::size_t)>& run, ProgressBar* progress) {
  Identification id;
  id.candidates = candidates;
  std::map<std::vector<std::int64_t>, std::size_t> groups;  // all outputs -> group
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (progress) progress->update(c, candidates[c].name);
    CandidateResult r;
    r.candidate = c;
    std::vector<std::int64_t> signature;
    std::uint64_t sum_abs = 0;
    for (std::size_t i = 0; i < names.size() && r.error.empty(); ++i) {
      try {
        Tensor y = run(c, i);
        if (y.shape != observed[i].shape) {
          throw ToolError(fmt::format("observed output of '{}' has shape {}; the candidate gives {}", names[i],
                                      shape_text(observed[i].shape), shape_text(y.shape)));
        }
        for (std::size_t e = 0; e < y.elements(); ++e) {
          const std::int64_t v = y.integer_at(e), o = observed[i].integer_at(e);
          signature.push_back(v);
          if (v != o) ++r.differing;
          sum_abs += static_cast<std::uint64_t>(v > o ? v - o : o - v);
          ++r.elements;
        }
        r.outputs.push_back(std::move(y));
      } catch (const ToolError& e) {
        r.error = fmt::format("cannot run '{}': {}", names[i], e.what());
      }
    }
    if (!r.error.empty()) {
      signature.assign(1, static_cast<std::int64_t>(c));  // a group of its own
      signature.push_back(-1);
    }
    r.mae = r.elements ? static_cast<double>(sum_abs) / static_cast<double>(r.elements) : 0;
    r.group = groups.emplace(signature, groups.size()).first->second;
    id.ranking.push_back(std::move(r));
  }
  if (progress) progress->finish();
  id.group_count = groups.size();
  std::stable_sort(id.ranking.begin(), id.ranking.end(), [](const CandidateResult& a, const CandidateResult& b) {
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    if (a.differing != b.differing) return a.differing < b.differing;
    return a.mae < b.mae;
  });
  return id;
}

std::vector<std::string> group_members(const Identification& id, std::size_t group) {
  std::vector<std::string> out;
  for (const CandidateResult& r : id.ranking) {
    if (r.group == group) out.push_back(id.candidates[r.candidate].name);
  }
  return out;
}

std::string equivalence_reason(const Preset& a, const Preset& b) {
  std::vector<std::string> axes;
  if (a.core != b.core) axes.push_back(fmt::format("core {} vs {}", to_string(a.core), to_string(b.core)));
  if (a.derivation != b.derivation) {
    axes.push_back(fmt::format("multiplier {} vs {}", to_string(a.derivation), to_string(b.derivation)));
  }
  if (a.composition != b.composition) {
    axes.push_back(fmt::format("scale composition {} vs {}", to_string(a.composition), to_string(b.composition)));
  }
  if (a.clamp != b.clamp) axes.push_back("activation-bound quantization (no fused activation in the probe)");
  if (a.accumulator.kind != b.accumulator.kind || a.accumulator.bits != b.accumulator.bits) {
    axes.push_back(fmt::format("accumulator {} vs {}", to_string(a.accumulator), to_string(b.accumulator)));
  }
  if (axes.empty()) return "identical definition";
  std::string out = "differ only in ";
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + axes[i];
  return out + ", which gives the same bits on every probe element";
}

std::vector<std::string> fold_preset_names(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  std::map<std::string, std::size_t> family_at;  // "npu-he-q15" -> index in out
  std::map<std::string, std::vector<std::string>> accumulators;
  for (const std::string& n : names) {
    // npu-<tie>-<precision>-<accumulator>: three dashes after "npu".
    const std::size_t d1 = n.compare(0, 4, "npu-") == 0 ? n.find('-', 4) : std::string::npos;
    const std::size_t d2 = d1 == std::string::npos ? d1 : n.find('-', d1 + 1);
    if (d2 == std::string::npos || n.find('-', d2 + 1) != std::string::npos) {
      out.push_back(n);
      continue;
    }
    const std::string family = n.substr(0, d2);
    if (!family_at.count(family)) {
      family_at[family] = out.size();
      out.emplace_back();
    }
    accumulators[family].push_back(n.substr(d2 + 1));
  }
  for (const auto& [family, at] : family_at) {
    const std::vector<std::string>& acc = accumulators[family];
    out[at] = acc.size() == 1 ? family + "-" + acc[0] : fmt::format("{}-{{{}}}", family, fmt::join(acc, "|"));
  }
  return out;
}

std::string wrap_list(const std::vector<std::string>& items, std::size_t width, const std::string& indent) {
  std::string out, line;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (!line.empty() && line.size() + 1 + piece.size() > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + piece;
  }
  return out + line;
}

std::string wrap_words(const std::string& text, std::size_t width, const std::string& indent) {
  // The text's own leading spaces stay on its first line.
  std::size_t start = text.find_first_not_of(' ');
  if (start == std::string::npos) return text;
  std::string out, line = text.substr(0, start);
  const std::string lead = line;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const bool fresh = line == lead || line == indent;  // nothing but indentation yet
    if (!fresh && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
    }
    line += (line == lead || line == indent ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}

}  // namespace qparity::cli
