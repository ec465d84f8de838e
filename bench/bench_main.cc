// requant_bench entry point: verifies the gemmlowp peers against qparity, registers every row in a
// fixed order, records the ISA context and runs Google Benchmark.
//
//   ./bench/requant_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                         --benchmark_min_time=0.2
#include <cstdio>
#include <string>

#include <benchmark/benchmark.h>

#include "bench/requant_bench.h"
#include "qparity/isa.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  std::string error;
  if (!qparity_bench::verify_gemmlowp_peers(&error)) {
    std::fprintf(stderr, "requant_bench: gemmlowp peer check failed, refusing to benchmark: %s\n",
                 error.c_str());
    return 1;
  }

  benchmark::AddCustomContext("qparity_compiled_isas",
                              qparity::isa_names(qparity::compiled_isas(), ","));
  benchmark::AddCustomContext("qparity_supported_isas",
                              qparity::isa_names(qparity::supported_isas(), ","));
  benchmark::AddCustomContext("qparity_active_isa", qparity::to_string(qparity::active_isa()));

  qparity_bench::register_requant_benchmarks();
  qparity_bench::register_gemmlowp_peer_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
