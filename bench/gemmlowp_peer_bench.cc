// The gemmlowp peer rows, requant/DR-AZ/gemmlowp-<sse4|avx2>/per_tensor/int8, on the same
// workloads and parameters as qparity's requant/DR-AZ/<isa>/per_tensor/int8 rows, and the start-up
// check that the peer computes exactly what qparity computes (so the comparison is honest).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/bench_common.h"
#include "bench/gemmlowp_peer.h"
#include "bench/requant_bench.h"
#include "qparity/requantize.h"

namespace qparity_bench {
namespace {

using qparity::RoundingCore;

using PeerKernel = void (*)(const GemmlowpPeerParams&, const std::int32_t*, std::size_t,
                            std::int8_t*);

struct Peer {
  const char* name;  ///< row name component
  PeerKernel kernel;
  bool (*available)();
};

const Peer kPeers[] = {
    {"gemmlowp-sse4", &gemmlowp_requantize_sse4, &cpu_has_sse41},
    {"gemmlowp-avx2", &gemmlowp_requantize_avx2, &cpu_has_avx2},
};

constexpr RoundingCore kCore = RoundingCore::kDoubleRoundingAwayFromZero;

GemmlowpPeerParams peer_params(const qparity::RequantParams& p, const qparity::OutputParams& o) {
  GemmlowpPeerParams g;
  g.multiplier = p.multiplier;
  g.right_shift = -p.shift;
  g.zero_point = o.zero_point;
  g.qmin = o.qmin;
  g.qmax = o.qmax;
  return g;
}

/// Compares peer and qparity (scalar path) on `acc`; describes the first mismatch in *error.
bool compare_on(const Peer& peer, const std::int32_t* acc, std::size_t n,
                const qparity::RequantParams& p, const std::string& what, std::string* error) {
  const qparity::OutputParams out = output_params_for<std::int8_t>();
  if (p.shift > 0 || p.shift < -31) {
    *error = std::string(peer.name) + ": shift " + std::to_string(p.shift) +
             " is outside the peer's right-shift-only range [-31, 0]";
    return false;
  }
  qparity::RequantizeArgs args;
  args.core = kCore;
  args.params = &p;
  args.output = out;
  args.rows = 1;
  args.channels = n;
  args.acc = acc;
  AlignedBuffer<std::int8_t> expected(n), got(n);
  qparity::requantize<std::int8_t>(qparity::Isa::kScalar, args, expected.data());
  peer.kernel(peer_params(p, out), acc, n, got.data());
  for (std::size_t i = 0; i < n; ++i) {
    if (expected[i] != got[i]) {
      *error = std::string(peer.name) + " differs from qparity DR-AZ (scalar) on " + what +
               " at element " + std::to_string(i) + ": acc = " + std::to_string(acc[i]) +
               ", multiplier = " + std::to_string(p.multiplier) +
               ", shift = " + std::to_string(p.shift) +
               ", zero_point = " + std::to_string(out.zero_point) +
               ": qparity = " + std::to_string(expected[i]) +
               ", peer = " + std::to_string(got[i]);
      return false;
    }
  }
  return true;
}

void peer_benchmark(benchmark::State& state, const Peer* peer) {
  if (!peer->available()) {
    state.SkipWithError((std::string("isa unavailable: ") + peer->name).c_str());
    return;
  }
  const Workload& w = get_workload(static_cast<std::size_t>(state.range(0)),
                                   static_cast<std::size_t>(state.range(1)));
  const auto params = make_params(kCore, w, /*per_channel=*/false);
  const GemmlowpPeerParams g = peer_params(params[0], output_params_for<std::int8_t>());
  AlignedBuffer<std::int8_t> dst(w.size());
  for (auto _ : state) {
    peer->kernel(g, w.acc.data(), w.size(), dst.data());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_rate_counters<std::int8_t>(state, w.size());
}

}  // namespace

bool verify_gemmlowp_peers(std::string* error) {
  // Every accumulator in [-2^17, 2^17]: with R around 7..10 this holds thousands of ties of both
  // signs in both roundings, and most results fall inside the int8 range (no clamp masking).
  constexpr std::int32_t kSweep = 1 << 17;
  std::vector<std::int32_t> sweep;
  for (std::int32_t x = -kSweep; x <= kSweep; ++x) sweep.push_back(x);
  for (const Peer& peer : kPeers) {
    if (!peer.available()) continue;
    for (const BlockShape& shape : kBlockShapes) {
      const Workload& w = get_workload(static_cast<std::size_t>(shape.rows),
                                       static_cast<std::size_t>(shape.channels));
      const auto params = make_params(kCore, w, /*per_channel=*/false);
      const std::string what = "the " + std::to_string(shape.rows) + "x" +
                               std::to_string(shape.channels) + " benchmark workload";
      if (!compare_on(peer, w.acc.data(), w.size(), params[0], what, error)) return false;
      // The same sweep with each channel's parameters (covers many shifts and multipliers).
      const auto pc = make_params(kCore, w, /*per_channel=*/true);
      for (std::size_t c = 0; c < w.channels; c += 37) {
        if (!compare_on(peer, sweep.data(), sweep.size(), pc[c],
                        "the accumulator sweep [-2^17, 2^17]", error)) {
          return false;
        }
      }
      if (!compare_on(peer, sweep.data(), sweep.size(), params[0],
                      "the accumulator sweep [-2^17, 2^17]", error)) {
        return false;
      }
    }
  }
  return true;
}

void register_gemmlowp_peer_benchmarks() {
  for (const Peer& peer : kPeers) {
    apply_block_shapes(benchmark::RegisterBenchmark(
        (std::string("requant/DR-AZ/") + peer.name + "/per_tensor/int8").c_str(), peer_benchmark,
        &peer));
  }
}

}  // namespace qparity_bench
