// The probe layer set of docs/semantics.md §14.3 (`qparity probe` writes it, `qparity identify`
// reads it): small CONV_2D layers whose outputs, once run on a device, tell its arithmetic apart
// from every named preset and every NPU-family combination that can be told apart at all.
//
// Most probes inject accumulators through the bias: a 1x1 input equal to the input zero point and
// a filter of 1s make acc[c] = bias[c] exactly, and a per-channel filter scale gives each output
// channel its own effective scale s_in * s_w[c] / s_out. One output element per channel.
//   ties             power-of-two scales (M = 2^30, shift 0, -1, -2) and accumulators on exact
//                    ties of both signs and near them (§11.1): HU / HAZ / HE / TZ / FL.
//   double_rounding  realistic scales with non-tie values that double rounding gets wrong
//                    (§11.2: 0.0037 with +-135, +-405, ...): one rounding or two, and DR-AZ vs DR-UP.
//   zero_point       output zero point 3 with x.5 values: zero point added before (oneDNN) or after
//                    (XNNPACK, ONNX Runtime, FBGEMM) the float rounding (§11.7).
//   wide_values      accumulators beyond 2^24 (float32 loses the last bit, §11.7) and at 2^30 (NEON's
//                    pre-shift wraps, §11.5, visible as a clamp to -128 instead of 127).
//   precision_1..3   non-power-of-two s_in and s_out (the three float-vs-double rows of §11.6), plus
//                    channels found by a deterministic search that split every pair of candidate
//                    arithmetics still producing the same outputs: Q31 vs Q15 vs float24
//                    multipliers, Q15 reduced from Q31 (TFLite 16x8) vs rounded directly, float vs
//                    double scale composition, truncation/floor with each precision.
//   accumulator      a real 3x3 x 256-channel dot product (input 127, zero point -128, weights
//                    +-127: 32385 per term) whose partial or final sums exceed 2^15, 2^23 and 2^31:
//                    int32 (wrap) vs int64 vs sat16/24/32 vs wrap16/24. Saturating models assume the
//                    products are summed in filter order (ky, kx, c), then the bias.
// Outputs stay inside int8 and away from the clamp, except where the clamp is the signal (the
// NEON wrap, saturated accumulators).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layer.h"
#include "output_files.h"
#include "qparity/presets.h"
#include "tensor.h"

namespace qparity::cli {

/// What one output channel of a probe tests: its exact accumulator (bias plus the exact dot
/// product), its effective scale s_in * s_w / s_out (double composition) and why it is there.
struct ProbeChannel {
  std::int64_t acc = 0;
  double scale = 0;
  std::string note;
};

struct ProbeCase {
  std::string name;     ///< file stem: <name>.json (a one-layer stack), <name>.input.npy, ...
  std::string purpose;  ///< one line
  Layer layer;
  Tensor input;
  std::vector<ProbeChannel> channels;  ///< one per output channel
};

/// The probe set (deterministic: the same set on every run and machine).
std::vector<ProbeCase> build_probe_set();

/// The arithmetics the search separates: every named preset and the NPU family with an int32
/// accumulator (accumulator depths are separated by the hand-made `accumulator` probe).
std::vector<qparity::Preset> probe_design_presets();

/// Queues the probe set's files under `dir`: probe.json (the manifest identify reads),
/// <name>.json (a one-layer stack: `qparity run --stack <name>.json`), <name>.input.npy,
/// <name>.filter.npy, <name>.bias.npy and README.txt.
void add_probe_files(const std::vector<ProbeCase>& probes, const std::string& dir, OutputFiles* out);

/// Reads a probe set written by add_probe_files (the manifest, then each stack). Throws ToolError
/// naming the file.
std::vector<ProbeCase> load_probe_set(const std::string& dir);

/// The README.txt text: how to run the probe on a device and feed `identify`.
std::string probe_readme(const std::vector<ProbeCase>& probes);

}  // namespace qparity::cli
