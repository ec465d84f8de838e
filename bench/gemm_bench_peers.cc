// gemm_bench's peer rows: oneDNN int8 matmul, XNNPACK qs8 fully-connected and gemmlowp, each
// prepared once per row (outside the timing), checked against qparity's reference on its first
// and last rows, then run in the timed loop on the calling thread.
//
// Each peer gets the workload in its own vocabulary (gemm_bench_workload.h):
//   oneDNN:   s8 x s8 -> s8, its 2.x quantization model (output scale = s_in * s_w / s_out, f32
//             bias added before it), src and dst zero points; checked as F32-ZPF. The t2/ rows
//             give it two OpenMP threads.
//   XNNPACK:  xnn_create_fully_connected_nc_qs8 with the real scales; checked with the
//             `xnnpack-fp32` preset. The t2/ rows give it a two-thread pthreadpool.
//   gemmlowp: uint8 operands (+128), the `gemmlowp` preset's multiplier and exponent; checked as
//             DR-AZ. It packs both operands on every run (it has no pre-packed weight form).
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/gemm_bench.h"
#include "bench/gemm_bench_workload.h"
#include "qparity/presets.h"

#if defined(QPARITY_PEER_HAVE_ONEDNN)
#include "bench/peers/onednn_matmul.h"
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
#include "bench/peers/xnnpack_fc.h"
#endif
#if defined(QPARITY_PEER_HAVE_GEMMLOWP)
#include "bench/peers/gemmlowp_gemm.h"
#endif

namespace qparity_bench {
namespace {

using qparity_peers::GemmShape;

GemmShape peer_shape(const GemmBenchShape& s) { return GemmShape{s.m, s.n, s.k}; }

#if defined(QPARITY_PEER_HAVE_ONEDNN)

qparity_peers::OnednnMatmulQuantization onednn_quantization(const GemmWorkload& w) {
  qparity_peers::OnednnMatmulQuantization q;
  q.model = qparity_peers::OnednnScaleModel::kOutputScales;
  q.src_zero_point = kInputZeroPoint;
  q.dst_zero_point = kOutputZeroPoint;
  q.src_scale = kInputScale;
  q.wei_scales = {kWeightScale};
  q.dst_scale = w.output_scale;
  q.bias.assign(w.bias.begin(), w.bias.end());  // accumulator units, exact in float (|b| < 2^24)
  return q;
}

void onednn_row(benchmark::State& state, const GemmBenchShape* s, int threads) {
  const GemmWorkload& w = gemm_workload(*s);
  const qparity_peers::OnednnThreadsScope thread_scope(threads);
  std::string error;
  if (!qparity_peers::onednn_available(&error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const auto q = onednn_quantization(w);
  auto matmul = qparity_peers::OnednnMatmul::create(peer_shape(*s), w.b.data(), q, &error);
  if (!matmul) {
    state.SkipWithError(error.c_str());
    return;
  }
  AlignedBuffer<std::int8_t> c(s->m * s->n);
  try {
    matmul->run(w.a.data(), c.data());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  // oneDNN 2.x: v = (float(acc) + bias) * output_scale + zp, rounded half to even: F32-ZPF with
  // scale 1 (exact), the bias, and the output scale as post_scale.
  qparity::RequantParams p;
  p.scale = 1.0f;
  p.post_scale = (q.src_scale * q.wei_scales[0]) / q.dst_scale;
  std::vector<qparity::RequantParams> params(s->n, p);
  for (std::size_t j = 0; j < s->n; ++j) params[j].bias = q.bias[j];
  auto problem = qparity_problem(w, params.data(), nullptr);
  problem.per_channel = true;
  const std::string mismatch =
      check_against_reference(problem, qparity::RoundingCore::kFloat32ZeroPointInside, c.data());
  if (!mismatch.empty()) {
    state.SkipWithError(("oneDNN " + mismatch).c_str());
    return;
  }
  for (auto _ : state) {
    matmul->run(w.a.data(), c.data());
    benchmark::ClobberMemory();
  }
  set_ops_counter(state, *s);
  state.SetLabel("isa=" + qparity_peers::onednn_effective_isa() +
                 " impl=" + matmul->implementation() + " threads=" + std::to_string(threads));
}

void onednn_prepare_row(benchmark::State& state, const GemmBenchShape* s) {
  const GemmWorkload& w = gemm_workload(*s);
  std::string error;
  if (!qparity_peers::onednn_available(&error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const auto q = onednn_quantization(w);
  // Without the primitive cache every creation generates the kernel again, as a first run does.
  const int capacity = qparity_peers::onednn_set_primitive_cache_capacity(0);
  std::string implementation;
  for (auto _ : state) {
    auto matmul = qparity_peers::OnednnMatmul::create(peer_shape(*s), w.b.data(), q, &error);
    if (!matmul) {
      state.SkipWithError(error.c_str());
      break;
    }
    implementation = matmul->implementation();
    benchmark::DoNotOptimize(matmul.get());
  }
  qparity_peers::onednn_set_primitive_cache_capacity(capacity);
  state.SetLabel("isa=" + qparity_peers::onednn_effective_isa() + " impl=" + implementation +
                 " (primitive descriptor, JIT, weight reorder; primitive cache off)");
}

#endif  // QPARITY_PEER_HAVE_ONEDNN

#if defined(QPARITY_PEER_HAVE_XNNPACK)

qparity_peers::XnnpackFcQuantization xnnpack_quantization(const GemmWorkload& w) {
  qparity_peers::XnnpackFcQuantization q;
  q.input_zero_point = kInputZeroPoint;
  q.input_scale = kInputScale;
  q.kernel_scales = {kWeightScale};
  q.bias = w.bias;
  q.output_zero_point = kOutputZeroPoint;
  q.output_scale = w.output_scale;
  return q;
}

void xnnpack_row(benchmark::State& state, const GemmBenchShape* s, int threads) {
  const GemmWorkload& w = gemm_workload(*s);
  std::string error;
  if (!qparity_peers::xnnpack_available(&error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  auto fc = qparity_peers::XnnpackFullyConnected::create(peer_shape(*s), w.b.data(),
                                                         xnnpack_quantization(w), &error);
  if (!fc) {
    state.SkipWithError(error.c_str());
    return;
  }
  AlignedBuffer<std::int8_t> c(s->m * s->n);
  try {
    fc->set_threads(static_cast<std::size_t>(threads));
    fc->run(w.a.data(), c.data());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const qparity::Preset preset = qparity::find_preset("xnnpack-fp32");
  const qparity::RequantParams p =
      qparity::derive_requant_params(preset, kInputScale, kWeightScale, w.output_scale);
  const std::string mismatch =
      check_against_reference(qparity_problem(w, &p, w.bias.data()), preset.core, c.data());
  if (!mismatch.empty()) {
    state.SkipWithError(("XNNPACK " + mismatch).c_str());
    return;
  }
  for (auto _ : state) {
    fc->run(w.a.data(), c.data());
    benchmark::ClobberMemory();
  }
  set_ops_counter(state, *s);
  state.SetLabel("isa=" + qparity_peers::xnnpack_gemm_isa() + " (inferred) op=" +
                 fc->operator_name() + " threads=" + std::to_string(threads));
}

void xnnpack_prepare_row(benchmark::State& state, const GemmBenchShape* s) {
  const GemmWorkload& w = gemm_workload(*s);
  std::string error;
  if (!qparity_peers::xnnpack_available(&error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const auto q = xnnpack_quantization(w);
  for (auto _ : state) {
    auto fc = qparity_peers::XnnpackFullyConnected::create(peer_shape(*s), w.b.data(), q, &error);
    if (!fc) {
      state.SkipWithError(error.c_str());
      break;
    }
    benchmark::DoNotOptimize(fc.get());
  }
  state.SetLabel("isa=" + qparity_peers::xnnpack_gemm_isa() +
                 " (inferred) (operator creation: weight and bias packing, then deletion)");
}

#endif  // QPARITY_PEER_HAVE_XNNPACK

#if defined(QPARITY_PEER_HAVE_GEMMLOWP)

void gemmlowp_row(benchmark::State& state, const GemmBenchShape* s) {
  const GemmWorkload& w = gemm_workload(*s);
  qparity_peers::GemmlowpKernel kernel;
  if (!qparity_peers::best_gemmlowp_kernel(&kernel)) {
    state.SkipWithError("gemmlowp: this CPU has neither SSE4.1 nor AVX2");
    return;
  }
  const qparity::Preset preset = qparity::find_preset("gemmlowp");
  const qparity::RequantParams p =
      qparity::derive_requant_params(preset, kInputScale, kWeightScale, w.output_scale);
  qparity_peers::GemmlowpQuantization q;
  q.lhs_zero_point = kInputZeroPoint + 128;
  q.rhs_zero_points = {128};
  q.bias = w.bias;
  q.multipliers = {p.multiplier};
  q.exponents = {p.shift};
  q.output_zero_point = kOutputZeroPoint + 128;
  std::string error;
  auto gemm = qparity_peers::GemmlowpGemm::create(peer_shape(*s), w.b_u8.data(), q, kernel, &error);
  if (!gemm) {
    state.SkipWithError(error.c_str());
    return;
  }
  AlignedBuffer<std::uint8_t> c(s->m * s->n);
  gemm->run(w.a_u8.data(), c.data());
  // The uint8 problem on qparity's side: int8 weights with zero point 0 are the uint8 weights
  // with zero point 128 (both shifted by 128); activations and output stay uint8.
  qparity::GemmProblem<std::uint8_t, std::uint8_t> g;
  g.m = s->m;
  g.n = s->n;
  g.k = s->k;
  g.a = w.a_u8.data();
  g.a_zero_point = q.lhs_zero_point;
  g.b = w.b.data();
  g.b_layout = qparity::WeightLayout::kNxK;
  g.bias = w.bias.data();
  g.params = &p;
  g.output = qparity::full_range_output(qparity::OutputType::kUint8, q.output_zero_point);
  const std::string mismatch = check_against_reference(g, preset.core, c.data());
  if (!mismatch.empty()) {
    state.SkipWithError(("gemmlowp " + mismatch).c_str());
    return;
  }
  for (auto _ : state) {
    gemm->run(w.a_u8.data(), c.data());
    benchmark::ClobberMemory();
  }
  set_ops_counter(state, *s);
  state.SetLabel(std::string("isa=") + qparity_peers::to_string(kernel) + " kernel=\"" +
                 gemm->kernel_name() + "\" (uint8; packs A and B every run)");
}

#endif  // QPARITY_PEER_HAVE_GEMMLOWP

}  // namespace

void register_peer_rows(const GemmBenchShape& shape, OnednnRows onednn_rows) {
  const std::string name = shape.name;
  const GemmBenchShape* s = &shape;
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  const std::string onednn = onednn_rows == OnednnRows::kOwnIsa ? "onednn" : "onednn_vnni";
  benchmark::RegisterBenchmark((onednn + "/" + name).c_str(), onednn_row, s, 1);
#endif
  if (onednn_rows == OnednnRows::kCappedAtAvx512CoreVnni) {
#if defined(QPARITY_PEER_HAVE_ONEDNN)
    benchmark::RegisterBenchmark(("prepare/" + onednn + "/" + name).c_str(), onednn_prepare_row, s);
#endif
    return;
  }
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  benchmark::RegisterBenchmark(("xnnpack/" + name).c_str(), xnnpack_row, s, 1);
#endif
#if defined(QPARITY_PEER_HAVE_GEMMLOWP)
  benchmark::RegisterBenchmark(("gemmlowp/" + name).c_str(), gemmlowp_row, s);
#endif
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  benchmark::RegisterBenchmark(("prepare/" + onednn + "/" + name).c_str(), onednn_prepare_row, s);
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  benchmark::RegisterBenchmark(("prepare/xnnpack/" + name).c_str(), xnnpack_prepare_row, s);
#endif
}

void register_two_thread_peer_rows(const GemmBenchShape& shape) {
  const std::string name = shape.name;
  (void)name;
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  benchmark::RegisterBenchmark(("t2/onednn/" + name).c_str(), onednn_row, &shape, 2)
      ->UseRealTime();
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  benchmark::RegisterBenchmark(("t2/xnnpack/" + name).c_str(), xnnpack_row, &shape, 2)
      ->UseRealTime();
#endif
}

}  // namespace qparity_bench
