// gemm_bench's qparity rows: the fast GEMM of
// include/qparity/gemm.h on every ISA path this CPU supports x every rounding core, on the same
// workload as the peers, plus the time to pack the weights.
//
//   qparity/<isa>/<core>/<shape>   PackedGemm(isa, weights, core) once, then gemm(packed, call)
//   qparity_pairsat/<isa>/<core>/<shape>  the same with the pair-saturating accumulator
//                                  (pairsat16: u8 x s8 pairs summed in int16 with saturation, the
//                                  x86 VPMADDUBSW arithmetic of XNNPACK, ONNX Runtime and oneDNN
//                                  without VNNI), DR-AZ and F32, headline shapes
//   qparity_halved/<isa>/<core>/<shape>  the exact model on the filter halved as oneDNN halves it
//                                  without VNNI (round-half-even(w / 2), in [-64, 64]): weights whose
//                                  pairs cannot saturate run the pair kernel on AVX2 / AVX-512BW
//                                  (packed_gemm.cc), DR-AZ and F32, headline shapes
//   pack/qparity/<isa>/<shape>     PackedGemm(isa, weights, DR-AZ) construction
//   t2/qparity/<isa>/<core>/<shape>        the same, gemm_threaded(packed, call, 2): the library's
//                                          reused tile pool (wall time)
//   t2/qparity_tiles/<isa>/<core>/<shape>  the same, the n tiles cut for two threads
//                                          (gemm_tile_count(packed, m, 2)), [0, n/2) and [n/2, n)
//                                          run with gemm_tiles on an ExternalThreadPool of two
//                                          (wall time)
//
// Each core gets its parameters from the workload's one effective scale, derived the way the
// presets do: TFLite's QuantizeMultiplier for the fixed-point cores (reduced to Q15 for Q15), the
// float scale for F32 and F32-ZPF. Each row's output is checked against qparity::reference::gemm
// before it is timed.
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/external_thread_pool.h"
#include "bench/gemm_bench.h"
#include "bench/gemm_bench_workload.h"
#include "bench/peers/onednn_weight_adjust.h"
#include "qparity/gemm.h"
#include "qparity/isa.h"
#include "qparity/presets.h"

namespace qparity_bench {
namespace {

qparity::RequantParams params_for(qparity::RoundingCore core, const GemmWorkload& w) {
  const qparity::MultiplierDerivation derivation =
      qparity::is_float_core(core) ? qparity::MultiplierDerivation::kFloatScale
                                   : qparity::MultiplierDerivation::kTfliteDoubleBuild;
  const qparity::EffectiveScale eff = qparity::compose_scale(
      qparity::ScaleComposition::kFloat, kInputScale, kWeightScale, w.output_scale);
  return qparity::derive_requant_params(core, derivation, eff);
}

bool isa_supported(benchmark::State& state, qparity::Isa isa) {
  if ((qparity::supported_isas() & qparity::mask_of(isa)) != 0) return true;
  state.SkipWithError((std::string("isa unavailable: ") + qparity::to_string(isa)).c_str());
  return false;
}

/// How a row runs the packed GEMM.
enum class Run { kOneCall, kThreadedTwo, kTilesOnExternalPoolOfTwo };

void qparity_row(benchmark::State& state, qparity::Isa isa, qparity::RoundingCore core,
                 const GemmBenchShape* s, Run run, qparity::AccumulatorSpec accumulator = {},
                 bool halved = false) {
  if (!isa_supported(state, isa)) return;
  const GemmWorkload& w = gemm_workload(*s);
  const qparity::RequantParams p = params_for(core, w);
  auto problem = qparity_problem(w, &p, w.bias.data());
  std::vector<std::int8_t> halved_b;
  if (halved) {  // the filter of oneDNN's convolution without VNNI
    halved_b = qparity_peers::onednn_adjusted_filter(w.b.data(), w.b.size(), 0.5f);
    problem.b = halved_b.data();
  }
  AlignedBuffer<std::int8_t> c(s->m * s->n);
  problem.c = c.data();
  try {
    const qparity::PackedGemm packed(isa, qparity::weights_of(problem), core, accumulator);
    const auto call = qparity::call_of(problem);
    qparity::gemm(packed, call);
    const std::string mismatch = check_against_reference(problem, core, c.data(), accumulator);
    if (!mismatch.empty()) {
      state.SkipWithError(("qparity " + mismatch).c_str());
      return;
    }
    std::string label = "kernel=" + packed.kernel_name();
    if (run == Run::kOneCall) {
      for (auto _ : state) {
        qparity::gemm(packed, call);
        benchmark::ClobberMemory();
      }
    } else if (run == Run::kThreadedTwo) {
      for (auto _ : state) {
        qparity::gemm_threaded(packed, call, 2);
        benchmark::ClobberMemory();
      }
      label += " threads=2 (gemm_threaded)";
    } else {
      ExternalThreadPool pool(2);
      const std::size_t tiles = qparity::gemm_tile_count(packed, s->m, 2);
      const std::function<void(unsigned)> half = [&](unsigned i) {
        qparity::gemm_tiles(packed, call, 2, tiles * i / 2, tiles * (i + 1) / 2);
      };
      for (auto _ : state) {
        if (tiles < 2) {
          qparity::gemm_tiles(packed, call, 2, 0, tiles);  // one tile: the caller, as gemm_threaded
        } else {
          pool.run(half);
        }
        benchmark::ClobberMemory();
      }
      label += " threads=2 (gemm_tiles on an external pool, " + std::to_string(tiles) +
               " tiles cut for 2)";
    }
    state.SetLabel(label);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_ops_counter(state, *s);
}

void qparity_pack_row(benchmark::State& state, qparity::Isa isa, const GemmBenchShape* s) {
  if (!isa_supported(state, isa)) return;
  const GemmWorkload& w = gemm_workload(*s);
  const qparity::RoundingCore core = qparity::RoundingCore::kDoubleRoundingAwayFromZero;
  const qparity::RequantParams p = params_for(core, w);
  const auto weights = qparity::weights_of(qparity_problem(w, &p, w.bias.data()));
  std::size_t bytes = 0;
  try {
    for (auto _ : state) {
      const qparity::PackedGemm packed(isa, weights, core);
      bytes = packed.packed_bytes();
      benchmark::DoNotOptimize(bytes);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetLabel("packed_bytes=" + std::to_string(bytes) + " (core DR-AZ)");
}

}  // namespace

void register_qparity_rows(const GemmBenchShape& shape) {
  const std::string name = shape.name;
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    const std::string isa_name = qparity::to_string(isa);
    for (qparity::RoundingCore core : qparity::kAllRoundingCores) {
      benchmark::RegisterBenchmark(
          ("qparity/" + isa_name + "/" + qparity::to_string(core) + "/" + name).c_str(),
          qparity_row, isa, core, &shape, Run::kOneCall, qparity::AccumulatorSpec{}, false);
    }
  }
  // The pair-saturating accumulator on the headline shapes (issue 19: it should run at the speed
  // of the u8 x s8 pair instruction, bench/peak_bench's vpmaddubsw_pair rows).
  const bool headline = &shape < kGemmBenchShapes + kNumHeadlineGemmShapes;
  for (qparity::Isa isa : qparity::all_isas()) {
    if (!headline || (qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    for (qparity::RoundingCore core : {qparity::RoundingCore::kDoubleRoundingAwayFromZero,
                                       qparity::RoundingCore::kFloat32}) {
      benchmark::RegisterBenchmark(("qparity_pairsat/" + std::string(qparity::to_string(isa)) +
                                    "/" + qparity::to_string(core) + "/" + name)
                                       .c_str(),
                                   qparity_row, isa, core, &shape, Run::kOneCall,
                                   qparity::AccumulatorSpec{qparity::AccumulatorKind::kPairSaturating, 32},
                                   false);
      benchmark::RegisterBenchmark(("qparity_halved/" + std::string(qparity::to_string(isa)) +
                                    "/" + qparity::to_string(core) + "/" + name)
                                       .c_str(),
                                   qparity_row, isa, core, &shape, Run::kOneCall,
                                   qparity::AccumulatorSpec{}, true);
    }
  }
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    benchmark::RegisterBenchmark(
        ("pack/qparity/" + std::string(qparity::to_string(isa)) + "/" + name).c_str(),
        qparity_pack_row, isa, &shape);
  }
}

void register_two_thread_qparity_rows(const GemmBenchShape& shape) {
  const qparity::Isa isa = qparity::active_isa();
  const std::string suffix = std::string("/") + qparity::to_string(isa) + "/";
  for (const auto& [prefix, run] : {std::pair{"t2/qparity", Run::kThreadedTwo},
                                    std::pair{"t2/qparity_tiles", Run::kTilesOnExternalPoolOfTwo}}) {
    for (qparity::RoundingCore core : qparity::kAllRoundingCores) {
      benchmark::RegisterBenchmark(
          (prefix + suffix + qparity::to_string(core) + "/" + shape.name).c_str(), qparity_row,
          isa, core, &shape, run, qparity::AccumulatorSpec{}, false)
          ->UseRealTime();
    }
  }
}

}  // namespace qparity_bench
