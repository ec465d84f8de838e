// gemm_bench: int8 GEMM throughput of qparity and its peers (oneDNN, XNNPACK, gemmlowp), one
// thread, on the shapes of gemm_shapes.h; the t2/ rows use two threads on the headline shapes and
// report wall time. Every row reports OPS = 2*M*N*K per second ("G/s" =
// GOPS) and names in its label the ISA the implementation used. See bench/README.md.
//
//   ./bench/gemm_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// oneDNN is measured twice: onednn/<shape> with the ISA it picks, onednn_vnni/<shape> capped at
// AVX512_CORE_VNNI, which needs a second process (onednn_vnni_rerun.h); --no_onednn_vnni skips it.
#include "bench/gemm_bench.h"

#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/gemm_shapes.h"
#include "bench/onednn_vnni_rerun.h"
#include "bench/peers/available_peers.h"
#include "qparity/isa.h"

#if defined(QPARITY_PEER_HAVE_ONEDNN)
#include "bench/peers/onednn_matmul.h"
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
#include "bench/peers/xnnpack_fc.h"
#endif
#if defined(QPARITY_PEER_HAVE_GEMMLOWP)
#include "bench/peers/gemmlowp_gemm.h"
#endif

namespace {

/// The process's context lines: what is compiled in and which ISA each implementation uses.
void add_context(bool onednn_vnni_child) {
  benchmark::AddCustomContext("peers_compiled", qparity_peers::compiled_peers());
  benchmark::AddCustomContext("threads",
                              "1 (oneDNN OpenMP threads, gemmlowp and XNNPACK pools); 2 in t2/ rows, "
                              "which report wall time");
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  benchmark::AddCustomContext("onednn_version", qparity_peers::onednn_version());
  benchmark::AddCustomContext(
      "onednn_isa",
      qparity_peers::onednn_effective_isa() + (onednn_vnni_child ? " (capped)" : " (own choice)"));
#endif
  if (onednn_vnni_child) return;
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  benchmark::AddCustomContext("xnnpack_isa", qparity_peers::xnnpack_gemm_isa() + " (inferred)");
#endif
#if defined(QPARITY_PEER_HAVE_GEMMLOWP)
  qparity_peers::GemmlowpKernel kernel;
  benchmark::AddCustomContext("gemmlowp_isa", qparity_peers::best_gemmlowp_kernel(&kernel)
                                                  ? qparity_peers::to_string(kernel)
                                                  : "none");
#endif
  benchmark::AddCustomContext("qparity_supported_isas",
                              qparity::isa_names(qparity::supported_isas(), ","));
  benchmark::AddCustomContext("qparity_rows", "on");
}

}  // namespace

int main(int argc, char** argv) {
  using qparity_bench::OnednnRows;
  const bool child = qparity_bench::take_flag(&argc, argv, qparity_bench::kOnednnVnniChildFlag);
  const bool no_onednn_vnni =
      qparity_bench::take_flag(&argc, argv, qparity_bench::kNoOnednnVnniFlag);
  const std::vector<std::string> args(argv + 1, argv + argc);  // before Google Benchmark eats them

  if (child) {
#if defined(QPARITY_PEER_HAVE_ONEDNN)
    // First thing, before oneDNN is touched: afterwards the cap would be refused.
    std::string error;
    if (!qparity_peers::onednn_cap_isa(qparity_bench::kOnednnVnniCap, &error)) {
      std::fprintf(stderr, "gemm_bench: onednn_vnni rows skipped: %s\n", error.c_str());
      return 0;
    }
#else
    return 0;
#endif
  }
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  if (!qparity_peers::onednn_set_max_threads(1)) {
    std::fprintf(stderr, "gemm_bench: cannot limit oneDNN to one thread; its rows may use more\n");
  }
#endif

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context(child);

  const OnednnRows onednn_rows = child ? OnednnRows::kCappedAtAvx512CoreVnni : OnednnRows::kOwnIsa;
  for (const qparity_bench::GemmBenchShape& shape : qparity_bench::kGemmBenchShapes) {
    qparity_bench::register_peer_rows(shape, onednn_rows);
    if (!child) qparity_bench::register_qparity_rows(shape);
  }
  if (!child) {
    for (std::size_t i = 0; i < qparity_bench::kNumHeadlineGemmShapes; ++i) {
      qparity_bench::register_two_thread_peer_rows(qparity_bench::kGemmBenchShapes[i]);
      qparity_bench::register_two_thread_qparity_rows(qparity_bench::kGemmBenchShapes[i]);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

#if defined(QPARITY_PEER_HAVE_ONEDNN)
  if (!child && !no_onednn_vnni) {
    std::vector<std::string> vnni_rows;
    for (const qparity_bench::GemmBenchShape& shape : qparity_bench::kGemmBenchShapes) {
      vnni_rows.push_back(std::string("onednn_vnni/") + shape.name);
      vnni_rows.push_back(std::string("prepare/onednn_vnni/") + shape.name);
    }
    if (qparity_bench::filter_selects_any(qparity_bench::benchmark_filter(args), vnni_rows)) {
      std::string error;
      const int status = qparity_bench::rerun_for_onednn_vnni(args, &error);
      if (status != 0) {
        std::fprintf(
            stderr, "gemm_bench: the onednn_vnni process failed: %s\n",
            status < 0 ? error.c_str() : ("exit status " + std::to_string(status)).c_str());
        return 1;
      }
    }
  }
#else
  (void)no_onednn_vnni;
#endif
  return 0;
}
