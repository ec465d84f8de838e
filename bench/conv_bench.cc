// conv_bench: int8 convolution and depthwise throughput of qparity and its peers (oneDNN, XNNPACK),
// one thread, on the shapes of conv_shapes.h; the t2/ rows use two threads on the headline layers
// and mnv2/all and report wall time. Every row reports OPS = 2 * MACs per second ("G/s" =
// GOPS) and names in its label what the implementation ran. See bench/README.md.
//
//   ./bench/conv_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
// oneDNN is measured twice, like gemm_bench: onednn/<shape> with the ISA it picks, onednn_vnni/
// capped at AVX512_CORE_VNNI in a second process (onednn_vnni_rerun.h); --no_onednn_vnni skips it.
#include "bench/conv_bench.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "bench/conv_bench_workload.h"
#include "bench/conv_shapes.h"
#include "bench/onednn_vnni_rerun.h"
#include "bench/peers/available_peers.h"
#include "qparity/isa.h"
#include "qparity/presets.h"

#if defined(QPARITY_PEER_HAVE_ONEDNN)
#include "bench/peers/onednn_conv.h"
#include "bench/peers/onednn_matmul.h"
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
#include "bench/peers/xnnpack_conv.h"
#include "bench/peers/xnnpack_fc.h"
#endif

namespace qparity_bench {

namespace {

void conv_row(benchmark::State& state, const ConvPreparer* prepare, const ConvBenchShape* s,
              int threads) {
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  const qparity_peers::OnednnThreadsScope onednn_threads(threads);  // before oneDNN's creation
#else
  (void)threads;
#endif
  PreparedConv p;
  try {
    p = (*prepare)(*s);
  } catch (const std::exception& e) {
    p.error = e.what();
  }
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  for (auto _ : state) {
    p.run();
    benchmark::ClobberMemory();
  }
  set_conv_ops_counter(state, s->macs());
  state.SetLabel(p.label);
}

/// Every MobileNet v2 layer prepared, then run back to back in each iteration: the time of the
/// whole network's convolutions (each layer's output goes to its own buffer; the layers do not
/// feed each other, so every layer reads inputs of its own shape).
void network_row(benchmark::State& state, const ConvPreparer* prepare, int threads) {
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  const qparity_peers::OnednnThreadsScope onednn_threads(threads);
#else
  (void)threads;
#endif
  std::vector<PreparedConv> layers;
  double macs = 0.0;
  std::string label;
  for (std::size_t i = kFirstMobilenetV2Shape; i < kNumConvBenchShapes; ++i) {
    const ConvBenchShape& s = kConvBenchShapes[i];
    PreparedConv p;
    try {
      p = (*prepare)(s);
    } catch (const std::exception& e) {
      p.error = e.what();
    }
    if (!p.error.empty()) {
      state.SkipWithError((std::string(s.name) + ": " + p.error).c_str());
      return;
    }
    if (label.empty()) label = p.label;
    macs += s.macs();
    layers.push_back(std::move(p));
  }
  for (auto _ : state) {
    for (PreparedConv& p : layers) p.run();
    benchmark::ClobberMemory();
  }
  set_conv_ops_counter(state, macs);
  state.SetLabel(std::to_string(layers.size()) + " layers; first: " + label);
}

#if defined(QPARITY_PEER_HAVE_ONEDNN)

/// oneDNN's own (2.x) model: per-channel output scales s_in * s_w[c] / s_out with the f32 bias in
/// accumulator units added before them; checked as F32-ZPF with scale 1, that bias and the output
/// scale as post_scale (as gemm_bench does).
PreparedConv prepare_onednn(const ConvBenchShape& s) {
  const ConvWorkload& w = conv_workload(s);
  PreparedConv p;
  if (!qparity_peers::onednn_available(&p.error)) return p;
  qparity_peers::OnednnConvQuantization q;
  q.model = qparity_peers::OnednnScaleModel::kOutputScales;
  q.src_zero_point = kConvInputZeroPoint;
  q.dst_zero_point = kConvOutputZeroPoint;
  q.src_scale = kConvInputScale;
  q.wei_scales = w.weight_scales;
  q.dst_scale = w.output_scale;
  q.bias.assign(w.bias.begin(), w.bias.end());  // exact in float (|b| < 2^24)
  std::shared_ptr<qparity_peers::OnednnConv> conv =
      qparity_peers::OnednnConv::create(peer_shape(s), w.filter.data(), q, &p.error);
  if (!conv) return p;
  auto out = std::make_shared<AlignedBuffer<std::int8_t>>(w.output_size());
  conv->run(w.input.data(), out->data());
  // oneDNN without int8 VNNI (an AVX2-only CPU, or ONEDNN_MAX_CPU_ISA=AVX2) stores the filter as
  // round-half-even(w * adjust), adjust = 0.5, and multiplies its output scale by 1 / adjust and
  // the 2.x bias by adjust (OnednnConv::weights_scale_adjust): another arithmetic than the other
  // rows' exact one. It is checked like them, against qparity's reference given that filter and
  // those scales (as tests/oracles/onednn_conv_oracle_test.cc does), and timed with the label
  // "arith=halved-filter", which bench/ratio_table.py does not count as the exact peer.
  const float adjust = conv->weights_scale_adjust();
  const OnednnArithmetic arithmetic = onednn_arithmetic(w, adjust);
  qparity::ConvWeights weights = conv_weights(w, arithmetic.params, /*with_bias=*/false);
  weights.filter = arithmetic.filter.data();
  const std::string mismatch = check_conv_against_reference(
      w, weights, qparity::RoundingCore::kFloat32ZeroPointInside, out->data());
  if (!mismatch.empty()) {
    p.error = "oneDNN " + mismatch +
              (adjust != 1.0f ? " (with its filter halved: " + conv->implementation() + ")" : "");
    return p;
  }
  const std::int8_t* input = w.input.data();
  p.run = [conv, out, input] { conv->run(input, out->data()); };
  p.label = "isa=" + qparity_peers::onednn_effective_isa() + " impl=" + conv->implementation();
  if (adjust != 1.0f) p.label += " arith=halved-filter";
  return p;
}

#endif  // QPARITY_PEER_HAVE_ONEDNN

#if defined(QPARITY_PEER_HAVE_XNNPACK)

/// XNNPACK's per-channel operator (convolution2d_nhwc_qc8, depthwise flag for depthwise layers),
/// the real scales; checked with the `xnnpack-fp32` preset.
PreparedConv prepare_xnnpack(const ConvBenchShape& s, int threads) {
  const ConvWorkload& w = conv_workload(s);
  PreparedConv p;
  if (!qparity_peers::xnnpack_available(&p.error)) return p;
  qparity_peers::XnnpackConvQuantization q;
  q.input_zero_point = kConvInputZeroPoint;
  q.input_scale = kConvInputScale;
  q.kernel_scales = w.weight_scales;
  q.bias = w.bias;
  q.output_zero_point = kConvOutputZeroPoint;
  q.output_scale = w.output_scale;
  std::shared_ptr<qparity_peers::XnnpackConv> conv =
      qparity_peers::XnnpackConv::create(peer_shape(s), w.filter.data(), q, &p.error);
  if (!conv) return p;
  auto out = std::make_shared<AlignedBuffer<std::int8_t>>(w.output_size());
  conv->set_threads(static_cast<std::size_t>(threads));
  conv->run(w.input.data(), out->data());
  const qparity::Preset preset = qparity::find_preset("xnnpack-fp32");
  std::vector<qparity::RequantParams> params;
  for (float s_w : w.weight_scales) {
    params.push_back(qparity::derive_requant_params(preset, kConvInputScale, s_w, w.output_scale));
  }
  const std::string mismatch =
      check_conv_against_reference(w, conv_weights(w, params), preset.core, out->data());
  if (!mismatch.empty()) {
    p.error = "XNNPACK " + mismatch;
    return p;
  }
  const std::int8_t* input = w.input.data();
  p.run = [conv, out, input] { conv->run(input, out->data()); };
  p.label = "isa=" + qparity_peers::xnnpack_gemm_isa() + " (inferred) op=" + conv->operator_name() +
            " threads=" + std::to_string(threads);
  return p;
}

#endif  // QPARITY_PEER_HAVE_XNNPACK

void add_context(bool onednn_vnni_child) {
  benchmark::AddCustomContext("peers_compiled", qparity_peers::compiled_peers());
  benchmark::AddCustomContext("threads",
                              "1 (oneDNN OpenMP threads; no XNNPACK thread pool); 2 in t2/ rows, "
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
  benchmark::AddCustomContext("qparity_supported_isas",
                              qparity::isa_names(qparity::supported_isas(), ","));
  benchmark::AddCustomContext("qparity_rows", "on");
}

}  // namespace

void register_conv_rows(const std::string& prefix, const ConvPreparer& prepare, int threads) {
  // The preparer must outlive the benchmarks, which hold a pointer to it.
  static std::vector<std::unique_ptr<ConvPreparer>> preparers;
  preparers.push_back(std::make_unique<ConvPreparer>(prepare));
  const ConvPreparer* p = preparers.back().get();
  const std::size_t shapes = threads == 1 ? kNumConvBenchShapes : kNumHeadlineConvShapes;
  for (std::size_t i = 0; i < shapes; ++i) {
    const ConvBenchShape& s = kConvBenchShapes[i];
    auto* b = benchmark::RegisterBenchmark((prefix + "/" + s.name).c_str(), conv_row, p, &s, threads);
    if (threads > 1) b->UseRealTime();
  }
  auto* b = benchmark::RegisterBenchmark((prefix + "/mnv2/all").c_str(), network_row, p, threads);
  if (threads > 1) b->UseRealTime();
}

void register_conv_peer_rows(ConvOnednnRows onednn_rows) {
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  register_conv_rows(onednn_rows == ConvOnednnRows::kOwnIsa ? "onednn" : "onednn_vnni",
                     prepare_onednn, 1);
#endif
  if (onednn_rows == ConvOnednnRows::kCappedAtAvx512CoreVnni) return;
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  register_conv_rows("xnnpack", [](const ConvBenchShape& s) { return prepare_xnnpack(s, 1); }, 1);
#endif
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  register_conv_rows("t2/onednn", prepare_onednn, 2);
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  register_conv_rows("t2/xnnpack", [](const ConvBenchShape& s) { return prepare_xnnpack(s, 2); },
                     2);
#endif
}

}  // namespace qparity_bench

int main(int argc, char** argv) {
  using qparity_bench::ConvOnednnRows;
  const bool child = qparity_bench::take_flag(&argc, argv, qparity_bench::kOnednnVnniChildFlag);
  const bool no_onednn_vnni =
      qparity_bench::take_flag(&argc, argv, qparity_bench::kNoOnednnVnniFlag);
  const std::vector<std::string> args(argv + 1, argv + argc);  // before Google Benchmark eats them

  if (child) {
#if defined(QPARITY_PEER_HAVE_ONEDNN)
    // First thing, before oneDNN is touched: afterwards the cap would be refused.
    std::string error;
    if (!qparity_peers::onednn_cap_isa(qparity_bench::kOnednnVnniCap, &error)) {
      std::fprintf(stderr, "conv_bench: onednn_vnni rows skipped: %s\n", error.c_str());
      return 0;
    }
#else
    return 0;
#endif
  }
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  if (!qparity_peers::onednn_set_max_threads(1)) {
    std::fprintf(stderr, "conv_bench: cannot limit oneDNN to one thread; its rows may use more\n");
  }
#endif

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  qparity_bench::add_context(child);

  qparity_bench::register_conv_peer_rows(child ? ConvOnednnRows::kCappedAtAvx512CoreVnni
                                               : ConvOnednnRows::kOwnIsa);
  if (!child) qparity_bench::register_conv_qparity_rows();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

#if defined(QPARITY_PEER_HAVE_ONEDNN)
  if (!child && !no_onednn_vnni) {
    std::vector<std::string> vnni_rows;
    for (const qparity_bench::ConvBenchShape& s : qparity_bench::kConvBenchShapes) {
      vnni_rows.push_back(std::string("onednn_vnni/") + s.name);
    }
    vnni_rows.push_back("onednn_vnni/mnv2/all");
    if (qparity_bench::filter_selects_any(qparity_bench::benchmark_filter(args), vnni_rows)) {
      std::string error;
      const int status = qparity_bench::rerun_for_onednn_vnni(args, &error);
      if (status != 0) {
        std::fprintf(
            stderr, "conv_bench: the onednn_vnni process failed: %s\n",
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
