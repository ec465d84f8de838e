// What every conv_bench row of one shape computes: the same deterministic operands and the same
// real-valued quantization, given to each implementation in its own vocabulary, and the check that
// an implementation's output equals qparity's reference before it is timed (a fast but wrong row
// must not produce a number).
//
// Quantization (TFLite's int8 conv: per-channel weights): activations int8 with zero point
// kInputZeroPoint, filter int8 in [-127, 127] with zero point 0 and one scale per output channel,
// an int32 bias, output int8 with zero point kOutputZeroPoint over the full int8 range.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/conv_shapes.h"
#include "bench/peers/conv_shape.h"
#include "bench/peers/onednn_weight_adjust.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/conv_geometry.h"
#include "qparity/reference_conv2d.h"
#include "qparity/requant_params.h"

namespace qparity_bench {

using qparity::internal::AlignedBuffer;

inline constexpr std::int32_t kConvInputZeroPoint = -5;
inline constexpr std::int32_t kConvOutputZeroPoint = 3;
inline constexpr float kConvInputScale = 0.02f;

struct ConvWorkload {
  const ConvBenchShape* shape = nullptr;
  AlignedBuffer<std::int8_t> input;   ///< NHWC, 1 x in_h x in_w x in_c
  AlignedBuffer<std::int8_t> filter;  ///< OHWI (conv) or 1HWO (depthwise), in [-127, 127]
  std::vector<std::int32_t> bias;     ///< out_c, accumulator units
  std::vector<float> weight_scales;   ///< out_c
  float output_scale = 1.0f;          ///< spreads the results over about +-40 steps

  std::size_t output_size() const { return shape->out_h() * shape->out_w() * shape->out_c; }
};

/// The workload of `shape`, built once (fixed seed per shape) and kept for the process.
inline const ConvWorkload& conv_workload(const ConvBenchShape& shape) {
  static std::map<const ConvBenchShape*, std::unique_ptr<ConvWorkload>> cache;
  auto& slot = cache[&shape];
  if (!slot) {
    auto w = std::make_unique<ConvWorkload>();
    w->shape = &shape;
    const std::size_t k = shape.kernel * shape.kernel * (shape.depthwise ? 1 : shape.in_c);
    std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>{}(shape.name)));
    std::uniform_int_distribution<int> a_dist(-128, 127), w_dist(-127, 127),
        bias_dist(-(1 << 14), 1 << 14);
    std::uniform_real_distribution<double> log_scale(std::log(0.002), std::log(0.02));
    w->input = AlignedBuffer<std::int8_t>(shape.in_h * shape.in_w * shape.in_c);
    for (std::size_t i = 0; i < w->input.size(); ++i)
      w->input[i] = static_cast<std::int8_t>(a_dist(rng));
    w->filter = AlignedBuffer<std::int8_t>(shape.out_c * k);
    for (std::size_t i = 0; i < w->filter.size(); ++i)
      w->filter[i] = static_cast<std::int8_t>(w_dist(rng));
    w->bias.resize(shape.out_c);
    for (auto& v : w->bias) v = bias_dist(rng);
    w->weight_scales.resize(shape.out_c);
    for (auto& s : w->weight_scales) s = static_cast<float>(std::exp(log_scale(rng)));
    // Uniform operands: standard deviations 256 / sqrt(12) and 255 / sqrt(12); the median weight
    // scale (0.0063) sets the output step.
    const double acc_sd = std::sqrt(static_cast<double>(k)) * 73.9 * 73.6;
    w->output_scale = static_cast<float>(kConvInputScale * 0.0063 * acc_sd / 40.0);
    slot = std::move(w);
  }
  return *slot;
}

inline qparity_peers::ConvShape peer_shape(const ConvBenchShape& s) {
  qparity_peers::ConvShape c;
  c.in_h = s.in_h;
  c.in_w = s.in_w;
  c.in_channels = s.in_c;
  c.out_channels = s.out_c;
  c.depthwise = s.depthwise;
  c.multiplier = 1;
  c.groups = 1;
  c.kernel_h = c.kernel_w = s.kernel;
  c.stride_h = c.stride_w = s.stride;
  c.tf_same = true;
  return c;
}

inline qparity::Window2D window_of(const ConvBenchShape& s) {
  qparity::Window2D w;
  w.kernel_h = w.kernel_w = s.kernel;
  w.stride_h = w.stride_w = s.stride;
  w.padding = qparity::Padding::kSame;
  return w;
}

inline qparity::Conv2DGeometry conv_geometry(const ConvBenchShape& s) {
  qparity::Conv2DGeometry g;
  g.in_h = s.in_h;
  g.in_w = s.in_w;
  g.in_channels = s.in_c;
  g.out_channels = s.out_c;
  g.window = window_of(s);
  return g;
}

inline qparity::DepthwiseConv2DGeometry depthwise_geometry(const ConvBenchShape& s) {
  qparity::DepthwiseConv2DGeometry g;
  g.in_h = s.in_h;
  g.in_w = s.in_w;
  g.in_channels = s.in_c;
  g.window = window_of(s);
  return g;
}

/// The workload's weights for qparity: `params` (1 or out_c entries) must outlive the result.
/// `with_bias` false for oneDNN's 2.x model, whose f32 bias goes into the params instead.
inline qparity::ConvWeights conv_weights(const ConvWorkload& w,
                                         const std::vector<qparity::RequantParams>& params,
                                         bool with_bias = true) {
  qparity::ConvWeights cw;
  cw.filter = w.filter.data();
  cw.bias = with_bias ? w.bias.data() : nullptr;
  cw.params = params.data();
  cw.per_channel = params.size() > 1;
  return cw;
}

/// oneDNN 2.x's own arithmetic on the workload, with its filter multiplied by `adjust` as its
/// weight reorder does (bench/peers/onednn_weight_adjust.h: 0.5 on ISAs without int8 VNNI, 1
/// elsewhere), in qparity's terms: the `onednn` preset's core F32-ZPF with scale 1, the f32 bias
/// in accumulator units times `adjust` as `bias` (exact: a power of two) and the output scale
/// (s_in * (s_w[c] / adjust)) / s_out as `post_scale` (oneDNN divides the weight scale by the
/// adjustment); no int32 bias (conv_weights(..., with_bias = false)) and `filter` instead of the
/// workload's. Both the oneDNN rows' check and the qparity_halved rows compute this.
struct OnednnArithmetic {
  std::vector<std::int8_t> filter;
  std::vector<qparity::RequantParams> params;  ///< out_c, core F32-ZPF
};

inline OnednnArithmetic onednn_arithmetic(const ConvWorkload& w, float adjust) {
  const std::size_t out_c = w.shape->out_c;
  OnednnArithmetic a;
  a.filter = qparity_peers::onednn_adjusted_filter(w.filter.data(), w.filter.size(), adjust);
  a.params.resize(out_c);
  for (std::size_t c = 0; c < out_c; ++c) {
    a.params[c].scale = 1.0f;
    a.params[c].bias = static_cast<float>(w.bias[c]) * adjust;  // exact (|b| < 2^24)
    a.params[c].post_scale = (kConvInputScale * (w.weight_scales[c] / adjust)) / w.output_scale;
  }
  return a;
}

/// Output rows compared with the reference before timing: the first and the last kCheckedRows
/// (they hold the padded borders, and the last is where a kernel's row blocking ends).
inline constexpr std::size_t kCheckedConvRows = 2;

/// "" if output rows [0, r) and [out_h - r, out_h) of `out` (NHWC) equal the reference convolution
/// of the workload under `core` (int32 accumulator), otherwise the first difference. Only the input
/// rows those outputs read are convolved: the window is re-expressed with explicit padding over
/// that band of the input, so that checking a 112x112 layer costs two rows, not the whole layer.
inline std::string check_conv_against_reference(const ConvWorkload& w,
                                                const qparity::ConvWeights& weights,
                                                qparity::RoundingCore core,
                                                const std::int8_t* out) {
  const ConvBenchShape& s = *w.shape;
  const qparity::ResolvedWindow r = qparity::resolve_window(window_of(s), s.in_h, s.in_w);
  const std::size_t rows = std::min(kCheckedConvRows, r.out_h);
  const std::size_t row_size = r.out_w * s.out_c;
  for (const std::size_t first : {std::size_t{0}, r.out_h - rows}) {
    // Padded input rows [y0, y1) feed output rows [first, first + rows).
    const long y0 = static_cast<long>(first * s.stride) - static_cast<long>(r.pad_top);
    const long y1 =
        static_cast<long>((first + rows - 1) * s.stride + s.kernel) - static_cast<long>(r.pad_top);
    const long in0 = std::max(y0, 0L), in1 = std::min(y1, static_cast<long>(s.in_h));
    qparity::Window2D win = window_of(s);
    win.padding = qparity::Padding::kExplicit;
    win.pad_top = static_cast<std::size_t>(in0 - y0);
    win.pad_bottom = static_cast<std::size_t>(y1 - in1);
    win.pad_left = r.pad_left;
    win.pad_right = r.pad_right;
    const std::int8_t* band = w.input.data() + static_cast<std::size_t>(in0) * s.in_w * s.in_c;
    std::vector<std::int8_t> expected(rows * row_size);
    const qparity::ConvCall<std::int8_t, std::int8_t> call{
        band, kConvInputZeroPoint,
        qparity::full_range_output(qparity::OutputType::kInt8, kConvOutputZeroPoint),
        expected.data()};
    const qparity::AccumulatorSpec int32{};
    if (s.depthwise) {
      qparity::DepthwiseConv2DGeometry g = depthwise_geometry(s);
      g.in_h = static_cast<std::size_t>(in1 - in0);
      g.window = win;
      qparity::reference::depthwise_conv2d(
          qparity::DepthwiseConv2DProblem<std::int8_t, std::int8_t>{g, weights, call}, core, int32);
    } else {
      qparity::Conv2DGeometry g = conv_geometry(s);
      g.in_h = static_cast<std::size_t>(in1 - in0);
      g.window = win;
      qparity::reference::conv2d(qparity::Conv2DProblem<std::int8_t, std::int8_t>{g, weights, call},
                                 core, int32);
    }
    for (std::size_t e = 0; e < expected.size(); ++e) {
      const std::int8_t got = out[first * row_size + e];
      if (got != expected[e]) {
        const std::size_t pixel = e / s.out_c;
        return "output differs from qparity::reference (" + std::string(qparity::to_string(core)) +
               ") at out[" + std::to_string(first + pixel / r.out_w) + "][" +
               std::to_string(pixel % r.out_w) + "][" + std::to_string(e % s.out_c) +
               "]: " + std::to_string(static_cast<int>(got)) + " instead of " +
               std::to_string(static_cast<int>(expected[e]));
      }
    }
  }
  return "";
}

/// OPS = 2 * MACs per run, as a rate: Google Benchmark prints it as e.g. "OPS=95.1G/s".
inline void set_conv_ops_counter(benchmark::State& state, double macs_per_run) {
  state.counters["OPS"] = benchmark::Counter(
      2.0 * macs_per_run * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace qparity_bench
