// conv_bench's rows (bench/README.md):
//   onednn/<shape>, onednn_vnni/<shape>, xnnpack/<shape>      peers, one layer per row
//   qparity/<isa>/<core>/<shape>
//   qparity_halved/<isa>/F32-ZPF/<shape>                      oneDNN's arithmetic without int8 VNNI
//                                                             (its filter halved)
//   <same prefixes>/mnv2/all                                  every MobileNet v2 layer, back to
//   back
//   t2/<onednn|xnnpack|qparity|qparity_tiles>/...             two threads, wall time
// Each row prepares its implementation once (outside the timing), checks its output against
// qparity's reference, then runs it on the calling thread.
#pragma once

#include <functional>
#include <string>

#include "bench/conv_shapes.h"

namespace qparity_bench {

/// One implementation prepared for one layer: `run` computes the layer into a buffer it owns (its
/// closure holds the operator and the output). A non-empty `error` (creation failed, or the output
/// differs from the reference) skips the row.
struct PreparedConv {
  std::function<void()> run;
  std::string label;
  std::string error;
};

using ConvPreparer = std::function<PreparedConv(const ConvBenchShape&)>;

/// Registers `<prefix>/<shape>` for every shape and `<prefix>/mnv2/all` (the sum of the MobileNet
/// v2 layers: each iteration runs all of them). threads > 1 (the t2/ rows: oneDNN gets that many
/// OpenMP threads, the preparer does the rest): only the headline shapes and mnv2/all, timed in
/// wall time (UseRealTime).
void register_conv_rows(const std::string& prefix, const ConvPreparer& prepare, int threads);

/// Which half of the oneDNN rows this process measures (oneDNN fixes its ISA once per process).
enum class ConvOnednnRows { kOwnIsa, kCappedAtAvx512CoreVnni };

/// The peers' rows. With kCappedAtAvx512CoreVnni only onednn_vnni's.
void register_conv_peer_rows(ConvOnednnRows onednn_rows);

/// qparity's rows: every ISA of supported_isas() x every rounding core; and on the best ISA
/// (active_isa()) x every core, two threads:
///   t2/qparity/<isa>/<core>/...        conv2d_threaded / depthwise_conv2d_threaded(..., 2)
///   t2/qparity_tiles/<isa>/<core>/...  the tile halves on one ExternalThreadPool of two
void register_conv_qparity_rows();

}  // namespace qparity_bench
