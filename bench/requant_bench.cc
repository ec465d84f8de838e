// qparity requantization throughput: every rounding core x every ISA x {per-tensor, per-channel} x
// {int8, int32} through the forced-ISA entry point qparity::requantize<Out>(isa, args, dst), plus a
// "reference" row per core (the header policy in a plain loop, compiled for the baseline in this
// translation unit) for context.
//
// Names: requant/<core>/<isa|reference>/<per_tensor|per_channel>/<int8|int32>/rows:R/channels:C.
// Before timing, each row checks its output against the reference loop and skips with an error on
// a mismatch, so a fast but wrong path can never produce a number.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/bench_common.h"
#include "bench/requant_bench.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/requantize.h"

namespace qparity_bench {
namespace {

using qparity::Isa;
using qparity::RequantizeArgs;
using qparity::RoundingCore;

// The header policy in a plain loop: dst = saturating_cast<Out>(requantize_to_output<P>(...)).
template <class Policy, class Out>
void reference_loop(const RequantizeArgs& a, Out* dst) {
  const std::size_t acc_stride = a.acc_row_stride ? a.acc_row_stride : a.channels;
  const std::size_t dst_stride = a.dst_row_stride ? a.dst_row_stride : a.channels;
  for (std::size_t r = 0; r < a.rows; ++r) {
    const std::int32_t* acc = a.acc + r * acc_stride;
    Out* out = dst + r * dst_stride;
    for (std::size_t c = 0; c < a.channels; ++c) {
      const qparity::RequantParams& p = a.params[a.per_channel ? c : 0];
      out[c] = qparity::saturating_cast<Out>(qparity::requantize_to_output<Policy>(acc[c], p, a.output));
    }
  }
}

template <class Out>
void reference_requantize(const RequantizeArgs& a, Out* dst) {
  qparity::visit_rounding_core(a.core, [&](auto policy) { reference_loop<decltype(policy)>(a, dst); });
}

/// Everything a row needs, built outside the timed loop.
template <class Out>
struct Setup {
  const Workload& w;
  std::vector<qparity::RequantParams> params;
  RequantizeArgs args;
  AlignedBuffer<Out> dst;
  AlignedBuffer<Out> expected;

  Setup(benchmark::State& state, RoundingCore core, bool per_channel)
      : w(get_workload(static_cast<std::size_t>(state.range(0)),
                       static_cast<std::size_t>(state.range(1)))),
        params(make_params(core, w, per_channel)),
        args(make_args(core, params, per_channel, output_params_for<Out>(), w)),
        dst(w.size()),
        expected(w.size()) {
    reference_requantize(args, expected.data());
  }

  bool matches() const {
    return std::memcmp(dst.data(), expected.data(), w.size() * sizeof(Out)) == 0;
  }
};

template <class Out>
void requant_benchmark(benchmark::State& state, RoundingCore core, Isa isa, bool per_channel) {
  if (!check_isa(state, isa)) return;
  Setup<Out> s(state, core, per_channel);
  try {
    qparity::requantize<Out>(isa, s.args, s.dst.data());
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("requantize threw: ") + e.what()).c_str());
    return;
  }
  if (!s.matches()) {
    state.SkipWithError("output differs from the reference loop (not timed)");
    return;
  }
  for (auto _ : state) {
    qparity::requantize<Out>(isa, s.args, s.dst.data());
    benchmark::DoNotOptimize(s.dst.data());
    benchmark::ClobberMemory();
  }
  set_rate_counters<Out>(state, s.w.size());
}

template <class Out>
void reference_benchmark(benchmark::State& state, RoundingCore core, bool per_channel) {
  Setup<Out> s(state, core, per_channel);
  for (auto _ : state) {
    reference_requantize(s.args, s.dst.data());
    benchmark::DoNotOptimize(s.dst.data());
    benchmark::ClobberMemory();
  }
  set_rate_counters<Out>(state, s.w.size());
}

// The cost of the public entry points on a tiny block: run-time dispatch (active ISA) against the
// forced-ISA overload. Both validate their arguments on every call.
void dispatch_benchmark(benchmark::State& state, bool forced) {
  const Workload& w = get_workload(1, 16);
  const RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;
  const auto params = make_params(core, w, false);
  const RequantizeArgs args = make_args(core, params, false, output_params_for<std::int8_t>(), w);
  AlignedBuffer<std::int8_t> dst(w.size());
  const Isa isa = qparity::active_isa();
  for (auto _ : state) {
    if (forced) {
      qparity::requantize<std::int8_t>(isa, args, dst.data());
    } else {
      qparity::requantize<std::int8_t>(args, dst.data());
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_rate_counters<std::int8_t>(state, w.size());
  state.SetLabel(std::string("active isa: ") + qparity::to_string(isa));
}

std::string row_name(RoundingCore core, const char* isa, bool per_channel, const char* out) {
  return std::string("requant/") + qparity::to_string(core) + "/" + isa + "/" +
         (per_channel ? "per_channel" : "per_tensor") + "/" + out;
}

template <class Out>
void register_core(RoundingCore core) {
  for (bool per_channel : {false, true}) {
    apply_block_shapes(benchmark::RegisterBenchmark(
        row_name(core, "reference", per_channel, output_name<Out>()).c_str(),
        reference_benchmark<Out>, core, per_channel));
  }
  for (Isa isa : qparity::all_isas()) {
    for (bool per_channel : {false, true}) {
      apply_block_shapes(benchmark::RegisterBenchmark(
          row_name(core, qparity::to_string(isa), per_channel, output_name<Out>()).c_str(),
          requant_benchmark<Out>, core, isa, per_channel));
    }
  }
}

}  // namespace

void register_requant_benchmarks() {
  for (RoundingCore core : qparity::kAllRoundingCores) {
    register_core<std::int8_t>(core);
    register_core<std::int32_t>(core);
  }
  benchmark::RegisterBenchmark("requant_overhead/DR-AZ/dispatch/per_tensor/int8/1x16",
                               dispatch_benchmark, false);
  benchmark::RegisterBenchmark("requant_overhead/DR-AZ/forced/per_tensor/int8/1x16",
                               dispatch_benchmark, true);
}

}  // namespace qparity_bench
