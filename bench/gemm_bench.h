// gemm_bench's rows, registered shape by shape by gemm_bench.cc:
//   onednn/<shape>, onednn_vnni/<shape>, xnnpack/<shape>, gemmlowp/<shape>     peers' runs
//   prepare/onednn[_vnni]/<shape>, prepare/xnnpack/<shape>                      peers' preparation
//   qparity/<isa>/<core>/<shape>, pack/qparity/<isa>/<shape>
//   qparity_pairsat/<isa>/<DR-AZ|F32>/<shape>   the pair-saturating accumulator (headline shapes)
//   t2/<onednn|xnnpack>/<shape>, t2/qparity[_tiles]/<isa>/<core>/<shape>     two threads
#pragma once

#include "bench/gemm_shapes.h"

namespace qparity_bench {

/// Which half of the oneDNN rows this process measures: oneDNN fixes its ISA once per process, so
/// the rows capped at AVX512_CORE_VNNI run in a second process (gemm_bench.cc).
enum class OnednnRows { kOwnIsa, kCappedAtAvx512CoreVnni };

/// The peers' rows of `shape`. With kCappedAtAvx512CoreVnni only the onednn_vnni rows.
void register_peer_rows(const GemmBenchShape& shape, OnednnRows onednn_rows);

/// qparity's rows of `shape`: every ISA of supported_isas() x every rounding core, and packing.
void register_qparity_rows(const GemmBenchShape& shape);

/// Two threads, wall time (UseRealTime), for the headline shapes: t2/onednn/<shape> (two OpenMP
/// threads), t2/xnnpack/<shape> (a two-thread pthreadpool).
void register_two_thread_peer_rows(const GemmBenchShape& shape);

/// Two threads, wall time, on qparity's best ISA (active_isa()), every rounding core:
///   t2/qparity/<isa>/<core>/<shape>        gemm_threaded(packed, call, 2)
///   t2/qparity_tiles/<isa>/<core>/<shape>  halves of the tiles cut for two (gemm_tiles) on an
///                                          ExternalThreadPool of two
void register_two_thread_qparity_rows(const GemmBenchShape& shape);

}  // namespace qparity_bench
