// Registration entry points of the benchmark translation units (called from bench_main.cc, so the
// registration order, and hence the output order, is fixed: qparity rows first, then the peers).
#pragma once

#include <string>

namespace qparity_bench {

/// requant/<core>/<isa|reference>/<per_tensor|per_channel>/<int8|int32> and requant_overhead/...
void register_requant_benchmarks();

/// requant/DR-AZ/gemmlowp-<sse4|avx2>/per_tensor/int8.
void register_gemmlowp_peer_benchmarks();

/// Checks that each gemmlowp peer this CPU can run produces exactly qparity's DR-AZ int8 output on
/// every benchmark workload and on a dense sweep of small accumulators (which contains the ties
/// that tell DR-AZ from DR-UP). Returns false with a description of the first mismatch.
bool verify_gemmlowp_peers(std::string* error);

}  // namespace qparity_bench
