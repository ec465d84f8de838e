// What every gemm_bench row of one shape computes: the same deterministic operands and the same
// real-valued quantization, given to each implementation in its own vocabulary, and the check
// that an implementation's output equals qparity's reference before it is timed (a fast but wrong
// row must not produce a number).
//
// Quantization (per tensor, as XNNPACK's qs8 fully-connected operator requires): activations int8
// with zero point kInputZeroPoint, weights int8 in [-127, 127] with zero point 0 (TFLite's
// symmetric weights), an int32 bias, output int8 with zero point kOutputZeroPoint over the full
// int8 range. gemmlowp gets the same values shifted to uint8 (+128, zero points too).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/gemm_shapes.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/reference_gemm.h"
#include "qparity/requant_params.h"

namespace qparity_bench {

using qparity::internal::AlignedBuffer;

inline constexpr std::int32_t kInputZeroPoint = -5;
inline constexpr std::int32_t kOutputZeroPoint = 3;
inline constexpr float kInputScale = 0.02f;
inline constexpr float kWeightScale = 0.005f;

struct GemmWorkload {
  const GemmBenchShape* shape = nullptr;
  AlignedBuffer<std::int8_t> a;      ///< M x K
  AlignedBuffer<std::uint8_t> a_u8;  ///< a + 128
  AlignedBuffer<std::int8_t> b;      ///< N x K, in [-127, 127]
  AlignedBuffer<std::uint8_t> b_u8;  ///< b + 128
  std::vector<std::int32_t> bias;    ///< N, accumulator units
  float output_scale = 1.0f;         ///< spreads the results over about +-40 steps
};

/// The workload of `shape`, built once (fixed seed per shape) and kept for the process.
inline const GemmWorkload& gemm_workload(const GemmBenchShape& shape) {
  static std::map<const GemmBenchShape*, std::unique_ptr<GemmWorkload>> cache;
  auto& slot = cache[&shape];
  if (!slot) {
    auto w = std::make_unique<GemmWorkload>();
    w->shape = &shape;
    const std::size_t m = shape.m, n = shape.n, k = shape.k;
    std::mt19937 rng(static_cast<std::uint32_t>(m * 73856093u ^ n * 19349663u ^ k * 83492791u));
    std::uniform_int_distribution<int> a_dist(-128, 127), b_dist(-127, 127),
        bias_dist(-(1 << 14), 1 << 14);
    w->a = AlignedBuffer<std::int8_t>(m * k);
    w->a_u8 = AlignedBuffer<std::uint8_t>(m * k);
    for (std::size_t i = 0; i < m * k; ++i) {
      w->a[i] = static_cast<std::int8_t>(a_dist(rng));
      w->a_u8[i] = static_cast<std::uint8_t>(w->a[i] + 128);
    }
    w->b = AlignedBuffer<std::int8_t>(n * k);
    w->b_u8 = AlignedBuffer<std::uint8_t>(n * k);
    for (std::size_t i = 0; i < n * k; ++i) {
      w->b[i] = static_cast<std::int8_t>(b_dist(rng));
      w->b_u8[i] = static_cast<std::uint8_t>(w->b[i] + 128);
    }
    w->bias.resize(n);
    for (auto& v : w->bias) v = bias_dist(rng);
    // Uniform operands: standard deviations 256 / sqrt(12) and 255 / sqrt(12).
    const double acc_sd = std::sqrt(static_cast<double>(k)) * 73.9 * 73.6;
    w->output_scale =
        static_cast<float>(kInputScale * static_cast<double>(kWeightScale) * acc_sd / 40.0);
    slot = std::move(w);
  }
  return *slot;
}

/// The workload as a qparity problem (int8 in and out, per tensor); `params` must outlive it.
inline qparity::GemmProblem<std::int8_t, std::int8_t> qparity_problem(
    const GemmWorkload& w, const qparity::RequantParams* params, const std::int32_t* bias) {
  qparity::GemmProblem<std::int8_t, std::int8_t> g;
  g.m = w.shape->m;
  g.n = w.shape->n;
  g.k = w.shape->k;
  g.a = w.a.data();
  g.a_zero_point = kInputZeroPoint;
  g.b = w.b.data();
  g.b_layout = qparity::WeightLayout::kNxK;
  g.bias = bias;
  g.params = params;
  g.output = qparity::full_range_output(qparity::OutputType::kInt8, kOutputZeroPoint);
  return g;
}

/// Rows checked against the reference before timing: the first and the last kCheckedRows (the
/// tails of a kernel's M blocking are at the end).
inline constexpr std::size_t kCheckedRows = 8;

/// "" if rows [0, r) and [M - r, M) of `c` (dense M x N) equal qparity::reference::gemm of
/// `problem` under `core` and `accumulator`, otherwise the first difference.
template <class AType, class OutType>
std::string check_against_reference(qparity::GemmProblem<AType, OutType> problem,
                                    qparity::RoundingCore core, const OutType* c,
                                    qparity::AccumulatorSpec accumulator = {}) {
  const std::size_t m = problem.m, n = problem.n, k = problem.k;
  const std::size_t r = m < kCheckedRows ? m : kCheckedRows;
  const AType* a = problem.a;
  for (std::size_t first : {std::size_t{0}, m - r}) {
    AlignedBuffer<OutType> expected(r * n);
    problem.m = r;
    problem.a = a + first * k;
    problem.c = expected.data();
    problem.c_row_stride = 0;
    qparity::reference::gemm(problem, core, accumulator);
    for (std::size_t e = 0; e < r * n; ++e) {
      if (expected[e] != c[first * n + e]) {
        return "output differs from qparity::reference::gemm (" +
               std::string(qparity::to_string(core)) + ", " + qparity::to_string(accumulator) +
               ") at C[" + std::to_string(first + e / n) +
               "][" + std::to_string(e % n) +
               "]: " + std::to_string(static_cast<int>(c[first * n + e])) + " instead of " +
               std::to_string(static_cast<int>(expected[e]));
      }
    }
  }
  return "";
}

/// OPS = 2 * M * N * K per run, as a rate: Google Benchmark prints it as e.g. "OPS=95.1G/s".
inline void set_ops_counter(benchmark::State& state, const GemmBenchShape& s) {
  const double ops =
      2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  state.counters["OPS"] = benchmark::Counter(ops * static_cast<double>(state.iterations()),
                                             benchmark::Counter::kIsRate);
}

}  // namespace qparity_bench
