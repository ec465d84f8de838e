// `qparity identify`: which arithmetic produced a device's outputs. Every candidate (a named preset
// or an NPU-family member) runs every probe case on the case's input; its score is how many output
// elements differ from the observed ones (and their mean absolute difference). Candidates whose
// outputs are identical on every element form an equivalence group: the probe cannot tell them
// apart, and the report says so instead of pretending to pick one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "probe_set.h"
#include "progress_bar.h"
#include "qparity/presets.h"
#include "tensor.h"

namespace qparity::cli {

/// The accumulator models of the NPU family identify ranks by default.
std::vector<qparity::AccumulatorSpec> default_identify_accumulators();

/// Every named preset, then npu_family(acc) for each accumulator in order.
std::vector<qparity::Preset> identify_candidates(const std::vector<qparity::AccumulatorSpec>& accumulators);

struct CandidateResult {
  std::size_t candidate = 0;     ///< index into Identification::candidates
  std::uint64_t differing = 0;   ///< elements differing from the observed outputs, over all cases
  std::uint64_t elements = 0;
  double mae = 0;                ///< mean |simulated - observed| over all elements
  std::size_t group = 0;         ///< equivalence group (identical outputs on every case)
  std::string error;             ///< non-empty if the candidate cannot run a case (e.g. a scale it
                                 ///< cannot represent); then it ranks last
  std::vector<Tensor> outputs;   ///< one per case
  bool exact() const { return error.empty() && differing == 0; }
};

struct Identification {
  std::vector<qparity::Preset> candidates;
  std::vector<CandidateResult> ranking;  ///< best first: fewest differing, then lowest MAE, then order
  std::size_t group_count = 0;
};

/// Scores every candidate on the cases against `observed` (one tensor per case, each of the
/// case's output shape; checked here with a ToolError naming the case). `progress` may be null.
Identification identify(const std::vector<ProbeCase>& cases, const std::vector<Tensor>& observed,
                        const std::vector<qparity::Preset>& candidates, ProgressBar* progress);

/// The same over any cases: `run(candidate, case)` computes case `case`'s output under candidate
/// `candidate` (throwing ToolError when the candidate cannot run it); candidates are visited in
/// order, each with every case in order. `names` names the cases in messages.
Identification identify_with(const std::vector<std::string>& names, const std::vector<Tensor>& observed,
                             const std::vector<qparity::Preset>& candidates,
                             const std::function<Tensor(std::size_t, std::size_t)>& run,
                             ProgressBar* progress);

/// The members of ranking entry `r`'s group, in ranking order (names).
std::vector<std::string> group_members(const Identification& id, std::size_t group);

/// Preset names with the NPU family's members folded by tie rule and multiplier precision:
/// {"tflite-reference", "npu-he-q15-int32", "npu-he-q15-sat24", "npu-hu-q31-int32"} ->
/// {"tflite-reference", "npu-he-q15-{int32|sat24}", "npu-hu-q31-int32"} (order of first appearance).
std::vector<std::string> fold_preset_names(const std::vector<std::string>& names);

/// `items` joined with ", " and broken into lines of at most `width` characters, each line after
/// the first starting with `indent`.
std::string wrap_list(const std::vector<std::string>& items, std::size_t width, const std::string& indent);

/// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole),
/// each line after the first starting with `indent`.
std::string wrap_words(const std::string& text, std::size_t width, const std::string& indent);

/// Why candidates that behave identically on the probe are the same or differ: "identical
/// definition", or the axes on which their definitions differ ("derivation tflite-q31 vs
/// tflite-q31-single-build").
std::string equivalence_reason(const qparity::Preset& a, const qparity::Preset& b);

}  // namespace qparity::cli
