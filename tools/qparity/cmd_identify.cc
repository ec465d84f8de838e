// `qparity identify`: ranks every named preset and every NPU-family arithmetic (tie rule x multiplier
// precision x accumulator depth) by how many of a device's observed outputs it reproduces
// (identify.h), reports the exact matches, the candidates the data cannot tell apart and why, and
// the elements that separate the best candidates.
//
//   qparity identify --probe DIR --observed OBS      the probe set of `qparity probe`; OBS/<name>.npy
//   qparity identify --stack s.json --observed OBS   any stack: OBS is the last layer's output (.npy)
//                                                    of a one-layer stack, or a directory of every
//                                                    layer's output named as `run --all-outputs`
//                                                    names them; layer i is fed the observed output of
//                                                    layer i-1, so each layer is judged on its own.
//   qparity identify --model m.tflite --input x.npy --observed OBS
//                                                    a model the device ran: OBS holds its tensors as
//                                                    `run --model --all-outputs` names them; each op
//                                                    with integer outputs is run alone on the observed
//                                                    values of its inputs (every node under one
//                                                    candidate preset and the op style it implies).
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "identify.h"
#include "input_files.h"
#include "layer_runner.h"
#include "model/runner.h"
#include "model_inputs.h"
#include "npy.h"
#include "plural.h"
#include "progress_bar.h"
#include "table.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "identify";
constexpr std::size_t kMaxSeparatingRows = 30;

std::vector<AccumulatorSpec> parse_accumulators(const std::string& text) {
  std::vector<AccumulatorSpec> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    AccumulatorSpec spec;
    if (!qparity::detail::parse_npu_accumulator(item, &spec)) {
      throw ToolError(fmt::format("--accumulators: '{}' is not an accumulator model; allowed: int32, int64, "
                                  "sat16..sat48, wrap16..wrap64, separated by commas",
                                  item));
    }
    out.push_back(spec);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The probe cases and observed outputs of the two input modes.
void load_inputs(const IdentifyOptions& o, std::vector<ProbeCase>* cases, std::vector<Tensor>* observed,
                 std::string* what, std::vector<std::string>* missing) {
  if (!o.probe.empty()) {
    if (!o.stack.empty() || !o.input.empty()) throw ToolError("give --probe or --stack (with --input), not both");
    *cases = load_probe_set(o.probe);
    if (!is_directory(o.observed)) {
      throw ToolError(fmt::format("--observed: {} is not a directory (with --probe it holds <name>.npy per probe)",
                                  o.observed));
    }
    // A device run often loses a probe or two (an op the delegate refused, a crashed case): rank on
    // the probes whose outputs are there and say which are missing.
    const std::vector<ProbeCase> all = std::move(*cases);
    cases->clear();
    for (const ProbeCase& c : all) {
      const std::string path = o.observed + "/" + c.name + ".npy";
      if (::access(path.c_str(), F_OK) != 0) {
        missing->push_back(c.name);
        continue;
      }
      observed->push_back(read_npy(path));
      cases->push_back(c);
    }
    if (cases->empty()) {
      throw ToolError(fmt::format("--observed: {} holds none of the {} probe outputs (<name>.npy, e.g. {}.npy)",
                                  o.observed, all.size(), all.empty() ? "conv" : all.front().name));
    }
    *what = fmt::format("probe set {}", o.probe);
    return;
  }
  if (o.stack.empty()) throw ToolError("give --probe DIR or --stack FILE (see --help)");
  const Stack stack = load_stack(o.stack);
  Tensor input;
  if (!o.input.empty()) {
    input = read_npy(o.input);
  } else if (stack.input) {
    input = *stack.input;
  } else {
    throw ToolError(fmt::format("{} has no \"input\"; give --input x.npy", o.stack));
  }
  if (is_directory(o.observed)) {
    for (std::size_t i = 0; i < stack.layers.size(); ++i) {
      observed->push_back(read_npy(o.observed + "/" +
                                   layer_output_file_name(i, stack.layers.size(), stack.layers[i])));
    }
  } else if (stack.layers.size() == 1) {
    observed->push_back(read_npy(o.observed));
  } else {
    throw ToolError(fmt::format("--observed: {} is not a directory; a stack of {} layers needs a directory of "
                                "every layer's output (named as 'qparity run --all-outputs' names them)",
                                o.observed, stack.layers.size()));
  }
  for (std::size_t i = 0; i < stack.layers.size(); ++i) {
    ProbeCase c;
    c.name = fmt::format("{}_{}", i, stack.layers[i].name);
    c.layer = stack.layers[i];
    c.input = i == 0 ? input : (*observed)[i - 1];
    cases->push_back(std::move(c));
  }
  *what = fmt::format("stack {}", o.stack);
}

// Model mode: one case per op output with an integer type; cases holds names only (no layer).
struct ModelCases {
  model::Graph graph;
  std::vector<Tensor> inputs;                // the graph inputs
  std::vector<std::pair<std::size_t, int>> outputs;  // (node, output tensor) per case
  std::map<int, Tensor> observed_by_tensor;  // every observed tensor read
};

void load_model_inputs(const IdentifyOptions& o, ModelCases* mc, std::vector<ProbeCase>* cases,
                       std::vector<Tensor>* observed, std::string* what) {
  if (!o.probe.empty() || !o.stack.empty()) throw ToolError("give --model, --probe or --stack, one of them");
  if (o.input.empty()) throw ToolError("--model needs --input: the inputs the device was given (.npy, comma-separated)");
  if (!is_directory(o.observed)) {
    throw ToolError(fmt::format("--observed: {} is not a directory (with --model it holds the device's tensors, "
                                "named as 'qparity run --model --all-outputs' names them)", o.observed));
  }
  mc->graph = load_model(o.model);
  const model::Graph& g = mc->graph;
  mc->inputs = model_inputs(g, o.input, 0);
  auto observed_tensor = [&](int t) -> const Tensor& {
    auto it = mc->observed_by_tensor.find(t);
    if (it != mc->observed_by_tensor.end()) return it->second;
    const std::string path = o.observed + "/" + g.dump_file_name(t);
    Tensor v = read_npy(path);
    const model::TensorDef& d = g.tensors[static_cast<std::size_t>(t)];
    if (v.dtype != d.dtype || v.shape != d.shape) {
      throw ToolError(fmt::format("--observed: {} is {} {}; {} is {} {}", path, to_string(v.dtype), shape_text(v.shape),
                                  g.tensor_label(t), to_string(d.dtype), shape_text(d.shape)));
    }
    return mc->observed_by_tensor.emplace(t, std::move(v)).first->second;
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (int t : g.nodes[i].outputs) {
      if (g.tensors[static_cast<std::size_t>(t)].dtype == DType::kFloat32) continue;
      // Each op is judged on the device's own inputs: every produced input must be observed too.
      for (int in : g.nodes[i].inputs) {
        if (in >= 0 && g.producer(in) >= 0) observed_tensor(in);
      }
      mc->outputs.emplace_back(i, t);
      ProbeCase c;
      c.name = g.node_label(i);
      cases->push_back(std::move(c));
      observed->push_back(observed_tensor(t));
    }
  }
  if (cases->empty()) throw ToolError(fmt::format("{} has no op with an integer output to judge", o.model));
  *what = fmt::format("model {}", o.model);
}

}  // namespace

CLI::App* add_identify_command(CLI::App& app, IdentifyOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "identify",
      "Rank every named preset and every NPU-family arithmetic (tie rule x multiplier precision x "
      "accumulator depth) by how many of a device's observed outputs it reproduces.");
  sub->add_option("--probe", o->probe, "A probe directory written by 'qparity probe --output DIR'")->type_name("DIR");
  sub->add_option("--stack", o->stack, "Or a stack JSON whose layers the device ran")->type_name("FILE");
  sub->add_option("--model", o->model, "Or a .tflite or .onnx model the device ran (--observed: its tensors by name)")
      ->type_name("FILE");
  sub->add_option("--input", o->input, "With --stack: the input .npy (default: the stack's \"input\")")
      ->type_name("FILE");
  sub->add_option("--observed", o->observed,
                  "The device's outputs: with --probe a directory of <name>.npy; with --stack a directory "
                  "of every layer's output (names as 'run --all-outputs' writes them) or, for one layer, "
                  "its .npy")
      ->required()
      ->type_name("PATH");
  sub->add_option("--accumulators", o->accumulators,
                  "NPU-family accumulator models to rank, comma-separated (int32, int64, satN, wrapN)")
      ->type_name("LIST")
      ->capture_default_str();
  sub->add_option("--top", o->top, "Candidate groups shown in the ranking and the separation table")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 200));
  sub->footer(
      "Candidates whose outputs are identical on every observed element form one group: the data\n"
      "cannot tell them apart; the report lists them and the axes on which their definitions differ.\n"
      "Exit status: 0 success (also when nothing matches exactly; the report says so), 1 I/O error,\n"
      "2 invalid usage or input (missing files, shape mismatch, unknown accumulator).");
  return sub;
}

int run_identify(const IdentifyOptions& options) {
  try {
    const std::vector<AccumulatorSpec> accumulators = parse_accumulators(options.accumulators);
    std::vector<ProbeCase> cases;
    std::vector<Tensor> observed;
    std::string what;
    std::vector<std::string> missing;  // probes without an observed output
    ModelCases mc;
    const bool model_mode = !options.model.empty();
    if (model_mode) {
      load_model_inputs(options, &mc, &cases, &observed, &what);
    } else {
      load_inputs(options, &cases, &observed, &what, &missing);
    }
    const std::vector<Preset> candidates = identify_candidates(accumulators);
    ProgressBar progress("identify", candidates.size());
    Identification id;
    if (model_mode) {
      std::vector<std::string> names;
      for (const ProbeCase& c : cases) names.push_back(c.name);
      std::unique_ptr<model::Runner> runner;
      std::size_t runner_candidate = candidates.size();
      id = identify_with(names, observed, candidates, [&](std::size_t c, std::size_t k) {
        if (runner_candidate != c) {
          runner.reset();
          runner_candidate = c;
          runner = std::make_unique<model::Runner>(mc.graph, std::vector<model::System>{model::system_of_preset(candidates[c])});
        }
        const model::Graph& g = mc.graph;
        const std::size_t node = mc.outputs[k].first;
        for (int in : g.nodes[node].inputs) {
          if (in < 0 || g.tensors[static_cast<std::size_t>(in)].constant()) continue;
          if (g.producer(in) >= 0) {
            runner->set_value(in, mc.observed_by_tensor.at(in));
          } else {
            for (std::size_t gi = 0; gi < g.inputs.size(); ++gi) {
              if (g.inputs[gi] == in) runner->set_value(in, mc.inputs[gi]);
            }
          }
        }
        runner->run_node(node);
        return runner->value(mc.outputs[k].second);
      }, &progress);
    } else {
      id = identify(cases, observed, candidates, &progress);
    }
    const std::uint64_t elements = id.ranking.empty() ? 0 : id.ranking.front().elements;

    fmt::memory_buffer out;
    auto put = [&](auto&&... args) { fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...); };
    put("{}\n\n", wrap_words(fmt::format("identify: {} candidates ({} named presets + NPU family x {} accumulator "
                                         "models) on {}: {}, {} output elements; {} distinguishable groups",
                                         candidates.size(), named_presets().size(), accumulators.size(), what,
                                         count_of(cases.size(), "layer"), elements, id.group_count),
                             110, "  "));
    if (!missing.empty()) {
      put("Ranked on {} of {} probes; no observed output for {}.\n\n", cases.size(), cases.size() + missing.size(),
          wrap_list(missing, 100, "  "));
    }

    // Groups in ranking order, with their members.
    std::vector<std::size_t> group_order;
    std::set<std::size_t> seen;
    for (const CandidateResult& r : id.ranking) {
      if (seen.insert(r.group).second) group_order.push_back(r.group);
    }
    auto first_of = [&](std::size_t group) -> const CandidateResult& {
      for (const CandidateResult& r : id.ranking) {
        if (r.group == group) return r;
      }
      return id.ranking.front();
    };
    std::vector<std::string> exact;
    for (const CandidateResult& r : id.ranking) {
      if (r.exact()) exact.push_back(id.candidates[r.candidate].name);
    }
    if (exact.empty()) {
      const CandidateResult& best = id.ranking.front();
      put("No exact match. Closest: {} ({} of {} elements differ, MAE {:.4f} LSB).\n", id.candidates[best.candidate].name,
          best.differing, best.elements, best.mae);
    } else {
      put("Exact matches ({}): {}\n", exact.size(), fmt::join(exact, ", "));
    }

    Table ranking({"rank", "candidate", "differing", "%", "mae", "indistinguishable on this data from"});
    for (std::size_t c : {2u, 3u, 4u}) ranking.set_align(c, Table::Align::kRight);
    ranking.set_align(0, Table::Align::kRight);
    const std::size_t shown = std::min(options.top, group_order.size());
    struct LongGroup {
      std::size_t rank;
      std::string head;
      std::vector<std::string> members;
    };
    std::vector<LongGroup> long_groups;
    for (std::size_t g = 0; g < shown; ++g) {
      const CandidateResult& r = first_of(group_order[g]);
      std::vector<std::string> members = group_members(id, r.group);
      members.erase(members.begin());
      if (!r.error.empty()) {
        ranking.add_row({std::to_string(g + 1), id.candidates[r.candidate].name, "-", "-", "-", r.error});
        continue;
      }
      // The table cell stays short (the first three names, NPU variants folded); the whole group
      // is listed, wrapped, below the table.
      const std::vector<std::string> folded = fold_preset_names(members);
      std::string cell;
      for (std::size_t k = 0; k < folded.size() && k < 3; ++k) cell += (k ? ", " : "") + folded[k];
      if (folded.size() > 3 || cell.size() > 60) {
        cell.clear();
        for (std::size_t k = 0; k < folded.size() && cell.size() < 40; ++k) {
          if (folded[k].find('{') != std::string::npos) continue;  // folded families go below
          cell += (cell.empty() ? "" : ", ") + folded[k];
        }
        cell += fmt::format("{}{} in all (below)", cell.empty() ? "" : " ... ", count_of(members.size(), "candidate"));
        long_groups.push_back({g + 1, id.candidates[r.candidate].name, folded});
      }
      ranking.add_row({std::to_string(g + 1), id.candidates[r.candidate].name, std::to_string(r.differing),
                       fmt::format("{:.2f}", r.elements ? 100.0 * r.differing / r.elements : 0.0),
                       fmt::format("{:.4f}", r.mae), cell});
    }
    put("\nRanking (one row per group of candidates with identical outputs; {} of {} groups):\n", shown,
        group_order.size());
    ranking.render(out);
    for (const LongGroup& lg : long_groups) {
      put("\n#{} {} = {}\n", lg.rank, lg.head, wrap_list(lg.members, 100, "    "));
    }

    // Why the members of the shown groups are indistinguishable.
    // NPU variants of one group are summarised (a group can hold dozens that differ only in
    // multiplier precision or accumulator depth); the named presets are explained one by one.
    bool any_group = false;
    auto npu_variant = [](const std::string& name) {
      return name.compare(0, 4, "npu-") == 0 && name != kNpuVerisiliconName;
    };
    for (std::size_t g = 0; g < shown; ++g) {
      const CandidateResult& r = first_of(group_order[g]);
      const Preset& head = id.candidates[r.candidate];
      std::size_t npu_folded = 0;
      std::set<std::string> npu_axes;
      for (const CandidateResult& m : id.ranking) {
        if (m.group != r.group || m.candidate == r.candidate) continue;
        const Preset& other = id.candidates[m.candidate];
        if (!any_group) put("\nIndistinguishable on this data:\n");
        any_group = true;
        if (npu_variant(head.name) && npu_variant(other.name)) {
          ++npu_folded;
          if (head.core != other.core) npu_axes.insert("tie rule");
          if (head.derivation != other.derivation) npu_axes.insert("multiplier precision");
          if (head.accumulator.kind != other.accumulator.kind || head.accumulator.bits != other.accumulator.bits) {
            npu_axes.insert("accumulator model");
          }
          continue;
        }
        put("{}\n", wrap_words(fmt::format("  {} = {}: {}", head.name, other.name,
                                           head.name == kNpuVerisiliconName || other.name == kNpuVerisiliconName
                                               ? std::string("npu-verisilicon is an alias")
                                               : equivalence_reason(head, other)),
                               110, "      "));
      }
      if (npu_folded > 0) {
        put("{}\n", wrap_words(fmt::format("  {} = {} that differ from it only in {}: the outputs observed do not "
                                           "separate them",
                                           head.name, count_of(npu_folded, "other NPU variant"),
                                           fmt::join(npu_axes, " and ")),
                               110, "      "));
      }
    }

    // Elements on which the shown groups (or the observation) disagree.
    const std::size_t columns = std::min<std::size_t>(shown, 6);
    std::vector<std::string> headers = {"layer", "element", "acc", "scale", "observed"};
    for (std::size_t g = 0; g < columns; ++g) headers.push_back(fmt::format("#{}", g + 1));
    Table separating(headers);
    for (std::size_t c = 1; c < headers.size(); ++c) separating.set_align(c, Table::Align::kRight);
    std::size_t rows = 0, total = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      for (std::size_t e = 0; e < observed[i].elements(); ++e) {
        const std::int64_t o = observed[i].integer_at(e);
        std::vector<std::string> row;
        bool differ = false;
        for (std::size_t g = 0; g < columns; ++g) {
          const CandidateResult& r = first_of(group_order[g]);
          if (!r.error.empty()) {
            row.push_back("-");
            continue;
          }
          const std::int64_t v = r.outputs[i].integer_at(e);
          differ = differ || v != o;
          row.push_back(v == o ? fmt::format("{}", v) : fmt::format("{}*", v));
        }
        if (!differ) continue;
        ++total;
        if (rows >= kMaxSeparatingRows) continue;
        ++rows;
        const bool has_layer = !cases[i].channels.empty();
        const std::size_t channel = has_layer && cases[i].layer.out_channels() ? e % cases[i].layer.out_channels() : 0;
        const bool noted = has_layer && channel < cases[i].channels.size();
        std::vector<std::string> cells = {cases[i].name, std::to_string(e),
                                          noted ? std::to_string(cases[i].channels[channel].acc) : "-",
                                          noted ? fmt::format("{:.9g}", cases[i].channels[channel].scale) : "-",
                                          std::to_string(o)};
        cells.insert(cells.end(), row.begin(), row.end());
        separating.add_row(std::move(cells));
      }
    }
    if (total > 0) {
      put("\nElements separating the top {} groups (* = differs from the observed value; {} such elements{}):\n",
          columns, total, total > rows ? fmt::format(", first {} shown", rows) : "");
      std::vector<std::string> legend;
      for (std::size_t g = 0; g < columns; ++g) {
        legend.push_back(fmt::format("#{} {}", g + 1, id.candidates[first_of(group_order[g]).candidate].name));
      }
      put("  {}\n", fmt::join(legend, ", "));
      separating.render(out);
    }
    return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
  } catch (const ToolError& e) {
    print_error(kCommand, e.what());
    return e.exit_code();
  }
}

}  // namespace qparity::cli
