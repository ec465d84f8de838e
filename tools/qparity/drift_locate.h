// Where the drift is (`qparity diff`'s text after the table): the first layer whose outputs
// differ, the worst elements with their coordinates and both values, the per-channel breakdown on
// the terminal, and the gates that failed.
#pragma once

#include <cstddef>
#include <vector>

#include <fmt/format.h>

#include "drift_gate.h"
#include "drift_report.h"

namespace qparity::cli {

/// "First difference: layer 3 (conv2), 412 of 3136 elements (13.138%), worst at [0, 5, 7, 12]:
/// A 17, B 19 (+2 LSB)." or "No difference: ..." — over the accumulated metrics in layer order.
void render_first_difference(const DriftReport& report, fmt::memory_buffer& out);

/// Per differing layer, up to `count` worst elements: coordinates, A, B and b - a (LSBs for
/// integer comparisons, real units otherwise).
void render_worst_elements(const DriftReport& report, std::size_t count, fmt::memory_buffer& out);

/// Per layer with per-channel metrics that differs: its channels with differences, most differing
/// first, up to `max_channels` of them and a count of the rest.
void render_channel_tables(const DriftReport& report, std::size_t max_channels, fmt::memory_buffer& out);

/// The failed gates: the first layer that fails one, then up to `max_lines` failures and a count
/// of the rest.
void render_gate_failures(const DriftReport& report, const std::vector<GateFailure>& failures,
                          std::size_t max_lines, fmt::memory_buffer& out);

}  // namespace qparity::cli
