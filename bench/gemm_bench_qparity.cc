// gemm_bench's qparity rows: the fast GEMM of
// include/qparity/gemm.h on every ISA path this CPU supports x every rounding core, on the same
// workload as the peers, plus the time to pack the weights.
//
//   qparity/<isa>/<core>/<shape>   PackedGemm(isa, weights, core) once, then gemm(packed, call)
//   pack/qparity/<isa>/<shape>     PackedGemm(isa, weights, DR-AZ) construction
//
// Each core gets its parameters from the workload's one effective scale, derived the way the
// presets do: TFLite's QuantizeMultiplier for the fixed-point cores (reduced to Q15 for Q15), the
// float scale for F32 and F32-ZPF. Each row's output is checked against qparity::reference::gemm
// before it is timed.
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/gemm_bench.h"
#include "bench/gemm_bench_workload.h"
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

void qparity_row(benchmark::State& state, qparity::Isa isa, qparity::RoundingCore core,
                 const GemmBenchShape* s) {
  if (!isa_supported(state, isa)) return;
  const GemmWorkload& w = gemm_workload(*s);
  const qparity::RequantParams p = params_for(core, w);
  auto problem = qparity_problem(w, &p, w.bias.data());
  AlignedBuffer<std::int8_t> c(s->m * s->n);
  problem.c = c.data();
  try {
    const qparity::PackedGemm packed(isa, qparity::weights_of(problem), core);
    const auto call = qparity::call_of(problem);
    qparity::gemm(packed, call);
    const std::string mismatch = check_against_reference(problem, core, c.data());
    if (!mismatch.empty()) {
      state.SkipWithError(("qparity " + mismatch).c_str());
      return;
    }
    for (auto _ : state) {
      qparity::gemm(packed, call);
      benchmark::ClobberMemory();
    }
    state.SetLabel("kernel=" + packed.kernel_name());
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
          qparity_row, isa, core, &shape);
    }
  }
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    benchmark::RegisterBenchmark(
        ("pack/qparity/" + std::string(qparity::to_string(isa)) + "/" + name).c_str(),
        qparity_pack_row, isa, &shape);
  }
}

}  // namespace qparity_bench
