// Helpers shared by the requantization benchmarks: aligned buffers, the deterministic workload
// (accumulators and per-channel scales), parameter derivation per rounding core, ISA availability
// checks and the rate counters.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "kernels/support/aligned_buffer.h"
#include "qparity/isa.h"
#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "qparity/requant_params.h"
#include "qparity/requantize.h"

namespace qparity_bench {

using qparity::internal::AlignedBuffer;

// --- Workload ------------------------------------------------------------------------------------

/// Accumulators are uniform in [-kAccRange, kAccRange]; effective scales log-uniform in
/// [kScaleMin, kScaleMax] (a typical s_in * s_w / s_out of an int8 conv layer).
inline constexpr std::int32_t kAccRange = 1 << 20;
inline constexpr double kScaleMin = 1e-3;
inline constexpr double kScaleMax = 1e-2;
/// Output zero point of the int8 rows (nonzero, so the add is not optimized away or trivial).
inline constexpr std::int32_t kOutputZeroPoint = -7;

/// Block shapes: rows x channels. 64 x 256 = 16K accumulators (64 KiB in, 16 KiB int8 out) lives in
/// L2; 8 x 256 = 2K accumulators (8 KiB in) lives in L1.
struct BlockShape {
  std::int64_t rows;
  std::int64_t channels;
};
inline constexpr BlockShape kBlockShapes[] = {{64, 256}, {8, 256}};

struct Workload {
  std::size_t rows = 0;
  std::size_t channels = 0;
  AlignedBuffer<std::int32_t> acc{0};
  std::vector<double> channel_scales;  ///< one per channel
  double tensor_scale = 0.0;

  std::size_t size() const { return rows * channels; }
};

/// The deterministic (fixed seed per shape) workload of a shape, built once and cached.
inline const Workload& get_workload(std::size_t rows, std::size_t channels) {
  static std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<Workload>> cache;
  auto& slot = cache[{rows, channels}];
  if (!slot) {
    auto w = std::make_unique<Workload>();
    w->rows = rows;
    w->channels = channels;
    w->acc = AlignedBuffer<std::int32_t>(rows * channels);
    std::mt19937 rng(static_cast<std::uint32_t>(0x9E3779B9u ^ (rows * 7919u + channels)));
    std::uniform_int_distribution<std::int32_t> acc_dist(-kAccRange, kAccRange);
    for (std::size_t i = 0; i < w->size(); ++i) w->acc[i] = acc_dist(rng);
    std::uniform_real_distribution<double> log_scale(std::log(kScaleMin), std::log(kScaleMax));
    w->channel_scales.resize(channels);
    for (double& s : w->channel_scales) s = std::exp(log_scale(rng));
    w->tensor_scale = std::exp(log_scale(rng));
    slot = std::move(w);
  }
  return *slot;
}

/// Parameters of `core` for the workload: one entry (per-tensor) or one per channel. Q31 cores use
/// quantize_multiplier_tflite (Q15 reduces it as TFLite does); F32 cores read the float scale.
inline std::vector<qparity::RequantParams> make_params(qparity::RoundingCore core,
                                                       const Workload& w, bool per_channel) {
  const qparity::MultiplierDerivation derivation =
      qparity::is_float_core(core) ? qparity::MultiplierDerivation::kFloatScale
                                   : qparity::MultiplierDerivation::kTfliteDoubleBuild;
  std::vector<qparity::RequantParams> params;
  if (per_channel) {
    for (double s : w.channel_scales) {
      params.push_back(qparity::derive_requant_params(core, derivation, qparity::EffectiveScale{s}));
    }
  } else {
    params.push_back(
        qparity::derive_requant_params(core, derivation, qparity::EffectiveScale{w.tensor_scale}));
  }
  return params;
}

/// int8 rows: nonzero zero point, clamp to the int8 range. int32 rows: the raw core result.
template <class Out>
qparity::OutputParams output_params_for() {
  if (std::is_same<Out, std::int32_t>::value) return qparity::OutputParams{};
  return qparity::full_range_output(qparity::OutputType::kInt8, kOutputZeroPoint);
}

template <class Out>
const char* output_name() {
  return std::is_same<Out, std::int32_t>::value ? "int32" : "int8";
}

/// Requantization arguments over a dense workload; `params` must outlive the result.
inline qparity::RequantizeArgs make_args(qparity::RoundingCore core,
                                         const std::vector<qparity::RequantParams>& params,
                                         bool per_channel, const qparity::OutputParams& output,
                                         const Workload& w) {
  qparity::RequantizeArgs a;
  a.core = core;
  a.params = params.data();
  a.per_channel = per_channel;
  a.output = output;
  a.rows = w.rows;
  a.channels = w.channels;
  a.acc = w.acc.data();
  return a;
}

// --- ISA availability ----------------------------------------------------------------------------

/// True if qparity can run `isa` here; otherwise skips the benchmark with "isa unavailable: ..."
/// (XNNPACK's CheckArchFlags) and returns false.
inline bool check_isa(benchmark::State& state, qparity::Isa isa) {
  if ((qparity::supported_isas() & qparity::mask_of(isa)) != 0) return true;
  const bool compiled = (qparity::compiled_isas() & qparity::mask_of(isa)) != 0;
  const std::string msg = std::string("isa unavailable: ") + qparity::to_string(isa) +
                          (compiled ? " (not supported by this CPU/OS)"
                                    : " (not compiled into qparity)");
  state.SkipWithError(msg.c_str());
  return false;
}

/// CPU checks for the peers, which do not go through qparity's dispatch. GCC/Clang's
/// __builtin_cpu_supports also checks that the OS saves the YMM state (XGETBV).
inline bool cpu_has_sse41() { return __builtin_cpu_supports("sse4.1"); }
inline bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

// --- Counters ------------------------------------------------------------------------------------

/// items = elements requantized; bytes = accumulators read + outputs written; "Gelem/s" = items
/// per second / 1e9 (kIsRate divides by the measured time).
template <class Out>
void set_rate_counters(benchmark::State& state, std::size_t elements_per_iteration) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  const auto elements = iterations * static_cast<std::int64_t>(elements_per_iteration);
  state.SetItemsProcessed(elements);
  state.SetBytesProcessed(elements * static_cast<std::int64_t>(sizeof(std::int32_t) + sizeof(Out)));
  state.counters["Gelem/s"] =
      benchmark::Counter(static_cast<double>(elements) * 1e-9, benchmark::Counter::kIsRate);
}

/// Applies the block shapes as Args({rows, channels}) named rows:/channels:.
inline benchmark::internal::Benchmark* apply_block_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "channels"});
  for (const BlockShape& s : kBlockShapes) b->Args({s.rows, s.channels});
  return b;
}

}  // namespace qparity_bench
