// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED in LiteRT.js (TFLite 2.x compiled to WebAssembly)
// against qparity's tflite-xnnpack-wasm profile, on both of TFLite's paths:
//   xnnpack        constant filter: XNNPACK's delegate takes the op (F32 requantization);
//   tflite-kernel  the filter is a graph input: XNNPACK declines it and TFLite's own kernel runs
//                  (CONV_2D / FULLY_CONNECTED single rounding, DEPTHWISE_CONV_2D double rounding).
// Cases: int8 and uint8, per-tensor and per-channel, odd sizes (1, 3, 7, 17), strides, dilations,
// SAME / VALID, every fused activation, zero points at the ends of the range, and power-of-two
// scales that put many accumulators exactly on ties of both signs. Each case also counts how many
// elements another arithmetic would get wrong ("contrast"), to show the comparison can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "model/graph_builder.h"
#include "model/ops/conv_common.h"
#include "oracle_util.h"

namespace qparity_test {
namespace {

using namespace qparity::model;
using qparity::Activation;
using qparity::Padding;
using qparity::Window2D;

struct QuantSet {
  float s_in, s_out;
  std::vector<float> s_w;
  std::int64_t zp_in, zp_out;
};

// Scales: "ties" uses powers of two so that acc * s_in * s_w / s_out is often an exact half;
// otherwise realistic random scales sized so the outputs spread over the range.
QuantSet pick_quant(std::mt19937& rng, bool ties, bool per_channel, std::size_t oc, std::size_t k, DType dt) {
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  QuantSet q;
  const bool u8 = dt == DType::kUint8;
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  std::uniform_int_distribution<int> pick(0, 3);
  auto zp = [&]() -> std::int64_t {
    switch (pick(rng)) {
      case 0: return lo;
      case 1: return hi;
      case 2: return u8 ? 128 : 0;
      default: return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    }
  };
  q.zp_in = zp();
  q.zp_out = zp();
  q.s_in = ties ? 0.0625f : 0.02f * u(rng);
  const std::size_t ns = per_channel ? oc : 1;
  for (std::size_t c = 0; c < ns; ++c) q.s_w.push_back(ties ? std::ldexp(1.0f, -5 - static_cast<int>(c % 3)) : 0.01f * u(rng));
  const float spread = std::sqrt(static_cast<float>(k)) * 64.0f * 64.0f / 40.0f;
  // Ties: effective scale 2^-2 (2^-3, 2^-4 for the other channels) on small data (tie_data), so a
  // quarter or more of the accumulators are exact halves.
  q.s_out = ties ? q.s_in * q.s_w[0] * 4.0f : q.s_in * q.s_w[0] * spread * u(rng);
  return q;
}

Quantization filter_quant(const QuantSet& q, std::size_t axis) {
  if (q.s_w.size() == 1) return GraphBuilder::per_tensor(q.s_w[0], 0);
  return GraphBuilder::per_axis(q.s_w, axis);
}

Tensor bias_tensor(std::mt19937& rng, std::size_t oc, std::int64_t span) {
  return random_tensor(rng, DType::kInt32, {oc}, -span, span);
}

enum class Kind { kConv, kDepthwise, kFc };

// Small data around the zero points for the tie cases: |x - zp| <= 4, |w| <= 4 (uint8 filters: the
// filter zero point is drawn separately, so their range stays whole).
void tie_data(const QuantSet& q, DType dt, std::int64_t* lo, std::int64_t* hi, std::int64_t* wlo, std::int64_t* whi) {
  const std::int64_t tmin = dt == DType::kUint8 ? 0 : -128, tmax = dt == DType::kUint8 ? 255 : 127;
  *lo = std::max(tmin, q.zp_in - 4);
  *hi = std::min(tmax, q.zp_in + 4);
  if (dt == DType::kInt8) {
    *wlo = -4;
    *whi = 4;
  }
}

OracleCase make_case(std::mt19937& rng, Kind kind, bool dynamic, int index) {
  std::uniform_int_distribution<int> coin(0, 1);
  const std::size_t sizes[] = {1, 3, 7, 17};
  const DType dt = index % 3 == 0 ? DType::kUint8 : DType::kInt8;
  const bool per_channel = dt == DType::kInt8 && coin(rng);
  const bool ties = index % 2 == 0;
  const Activation acts[] = {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1};
  const Activation act = acts[std::uniform_int_distribution<int>(0, 3)(rng)];
  std::int64_t lo = dt == DType::kUint8 ? 0 : -128, hi = dt == DType::kUint8 ? 255 : 127;
  // uint8 filters carry a zero point (TFLite's legacy uint8 models); int8 filters are symmetric.
  std::int64_t wlo = dt == DType::kUint8 ? 0 : -127, whi = dt == DType::kUint8 ? 255 : 127;
  GraphBuilder b("oracle case");
  OracleCase c;
  c.profile = "tflite-xnnpack-wasm";
  c.path = dynamic ? "tflite-kernel" : "xnnpack";
  std::ostringstream label;
  label << "case " << index << " ";
  if (kind == Kind::kFc) {
    const std::size_t batch = sizes[std::uniform_int_distribution<int>(0, 2)(rng)];
    const std::size_t depth = sizes[std::uniform_int_distribution<int>(0, 3)(rng)] + 16 * coin(rng);
    const std::size_t oc = sizes[std::uniform_int_distribution<int>(0, 3)(rng)] + 8 * coin(rng) + 24 * (dt == DType::kUint8);
    const QuantSet q = pick_quant(rng, ties, per_channel, oc, depth, dt);
    if (ties) tie_data(q, dt, &lo, &hi, &wlo, &whi);
    const int x = b.tensor("x", dt, {batch, depth}, GraphBuilder::per_tensor(q.s_in, q.zp_in));
    Tensor w = random_tensor(rng, dt, {oc, depth}, wlo, whi);
    Quantization wq = filter_quant(q, 0);
    if (dt == DType::kUint8) wq.zero_points = {std::uniform_int_distribution<std::int64_t>(0, 255)(rng)};
    const int wt = dynamic ? b.tensor("w", dt, {oc, depth}, wq) : b.constant("w", w, wq);
    Quantization bq;
    for (float s : q.s_w) bq.scales.push_back(q.s_in * s);
    bq.zero_points.assign(bq.scales.size(), 0);
    const int bias = b.constant("b", bias_tensor(rng, oc, 2000), bq);
    const int y = b.tensor("y", dt, {}, GraphBuilder::per_tensor(q.s_out, q.zp_out));
    auto o = std::make_shared<FullyConnectedOptions>();
    o->activation = act;
    b.node(OpKind::kFullyConnected, {x, wt, bias}, {y}, o);
    b.input(x);
    if (dynamic) b.input(wt);
    b.output(y);
    c.inputs.push_back(random_tensor(rng, dt, {batch, depth}, lo, hi));
    if (dynamic) c.inputs.push_back(w);
    c.op = std::string("FULLY_CONNECTED ") + qparity::cli::to_string(dt) + (per_channel ? " per-channel" : " per-tensor");
    label << c.op << " " << batch << "x" << depth << "->" << oc;
  } else {
    const std::size_t n = 1 + coin(rng);
    const std::size_t h = sizes[std::uniform_int_distribution<int>(1, 3)(rng)];
    const std::size_t w_ = sizes[std::uniform_int_distribution<int>(1, 3)(rng)];
    const std::size_t ic = kind == Kind::kDepthwise ? sizes[std::uniform_int_distribution<int>(0, 3)(rng)] + 16 * coin(rng)
                                                   : sizes[std::uniform_int_distribution<int>(0, 3)(rng)];
    const std::size_t mult = kind == Kind::kDepthwise ? 1 + static_cast<std::size_t>(coin(rng) && coin(rng)) : 1;
    const std::size_t oc = kind == Kind::kDepthwise ? ic * mult : sizes[std::uniform_int_distribution<int>(0, 3)(rng)] + 8 * coin(rng);
    const std::size_t kh = coin(rng) ? 3 : 1 + 2 * coin(rng) * 2, kw = coin(rng) ? 3 : 1;
    Window2D win;
    win.stride_h = 1 + coin(rng);
    win.stride_w = 1 + coin(rng);
    win.dilation_h = 1 + (coin(rng) && coin(rng));
    win.dilation_w = 1 + (coin(rng) && coin(rng));
    win.padding = coin(rng) ? Padding::kSame : Padding::kValid;
    const std::size_t eh = (kh - 1) * win.dilation_h + 1, ew = (kw - 1) * win.dilation_w + 1;
    if (win.padding == Padding::kValid && (eh > h || ew > w_)) win.padding = Padding::kSame;
    const QuantSet q = pick_quant(rng, ties, per_channel, oc, kh * kw * (kind == Kind::kDepthwise ? 1 : ic), dt);
    if (ties) tie_data(q, dt, &lo, &hi, &wlo, &whi);
    const int x = b.tensor("x", dt, {n, h, w_, ic}, GraphBuilder::per_tensor(q.s_in, q.zp_in));
    const std::vector<std::size_t> fshape =
        kind == Kind::kDepthwise ? std::vector<std::size_t>{1, kh, kw, oc} : std::vector<std::size_t>{oc, kh, kw, ic};
    Tensor w = random_tensor(rng, dt, fshape, wlo, whi);
    Quantization wq = filter_quant(q, kind == Kind::kDepthwise ? 3 : 0);
    if (dt == DType::kUint8) wq.zero_points = {std::uniform_int_distribution<std::int64_t>(0, 255)(rng)};
    const int wt = dynamic ? b.tensor("w", dt, fshape, wq) : b.constant("w", w, wq);
    Quantization bq;
    for (float s : q.s_w) bq.scales.push_back(q.s_in * s);
    bq.zero_points.assign(bq.scales.size(), 0);
    if (bq.scales.size() > 1) bq.axis = 0;
    const int bias = b.constant("b", bias_tensor(rng, oc, 3000), bq);
    const int y = b.tensor("y", dt, {}, GraphBuilder::per_tensor(q.s_out, q.zp_out));
    if (kind == Kind::kDepthwise) {
      auto o = std::make_shared<DepthwiseConv2DOptions>();
      o->window = win;
      o->depth_multiplier = mult;
      o->activation = act;
      b.node(OpKind::kDepthwiseConv2D, {x, wt, bias}, {y}, o);
    } else {
      auto o = std::make_shared<Conv2DOptions>();
      o->window = win;
      o->activation = act;
      b.node(OpKind::kConv2D, {x, wt, bias}, {y}, o);
    }
    b.input(x);
    if (dynamic) b.input(wt);
    b.output(y);
    c.inputs.push_back(random_tensor(rng, dt, {n, h, w_, ic}, lo, hi));
    if (dynamic) c.inputs.push_back(w);
    c.op = std::string(kind == Kind::kDepthwise ? "DEPTHWISE_CONV_2D " : "CONV_2D ") + qparity::cli::to_string(dt) +
           (per_channel ? " per-channel" : " per-tensor");
    label << c.op << " " << n << "x" << h << "x" << w_ << "x" << ic << " k" << kh << "x" << kw << " s" << win.stride_h
          << win.stride_w << " d" << win.dilation_h << win.dilation_w << " " << qparity::to_string(win.padding);
  }
  label << (ties ? " ties" : "") << " act " << activation_text(act) << " path " << c.path;
  c.label = label.str();
  c.graph = b.finish();
  // The other path's arithmetic, and the other rounding build, as contrasts.
  c.contrasts = dynamic ? std::vector<std::string>{"xnnpack-fp32", "tflite-single", "tflite-reference"}
                        : std::vector<std::string>{"tflite-single", "tflite-reference"};
  return c;
}

TEST(TfliteOracle, ConvolutionsAndFullyConnectedBothPaths) {
  std::mt19937 rng(20261125);
  std::vector<OracleCase> cases;
  int index = 0;
  for (Kind kind : {Kind::kConv, Kind::kDepthwise, Kind::kFc}) {
    for (bool dynamic : {false, true}) {
      for (int i = 0; i < 24; ++i) cases.push_back(make_case(rng, kind, dynamic, index++));
    }
  }
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 10000u);
}

}  // namespace
}  // namespace qparity_test
