// Oracle: the `onednn` preset against oneDNN's int8 matmul (s8 x s8 -> s8).
//
// oneDNN receives real f32 scales (src, per-tensor or per-channel weights, dst), zero points for
// src, weights (oneDNN 2.x: one for all channels) and dst, an f32 bias and an activation, and does
// all the float arithmetic in its JIT kernel. qparity receives the same values through the
// preset's own derivation (derive_requant_params: two-step float composition, f32 bias in
// RequantParams::bias, F32-ZPF core; activation_output_params with the preset's kOnednn clamp).
//
// Two quantization models (see bench/peers/onednn_matmul.h):
//   * OnednnTwoStepOracle: oneDNN 3.x's model (scales per argument, bias after src x wei scale,
//     dst scale applied as 1/s_out), which the `onednn` preset reproduces, assembled from oneDNN
//     2.6's attributes (output scales = float(s_in * s_w), binary-add bias, eltwise post-ops).
//   * OnednnOutputScalesOracle: oneDNN 2.x's own model, v = (float(acc) + bias) * output_scale.
//     No preset derives this one; the test writes its parameters for the same F32-ZPF core:
//     scale = 1 (float(acc) * 1 is exact), bias = the accumulator-unit bias, post_scale = the
//     output scale float(float(s_in * s_w) / s_out).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/peers/onednn_matmul.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "qparity/reference_gemm.h"
#include "tests/oracles/oracle_cases.h"
#include "tests/oracles/oracle_compare.h"

namespace qparity_oracle {
namespace {

using qparity::internal::AlignedBuffer;
using qparity_peers::OnednnActivation;
using qparity_peers::OnednnScaleModel;

struct OnednnCase {
  qparity_peers::GemmShape shape;
  AlignedBuffer<std::int8_t> a, weights;  // M x K, N x K
  qparity_peers::OnednnMatmulQuantization q;
};

qparity::Activation to_qparity(OnednnActivation a) {
  switch (a) {
    case OnednnActivation::kNone:
      return qparity::Activation::kNone;
    case OnednnActivation::kRelu:
      return qparity::Activation::kRelu;
    case OnednnActivation::kRelu6:
      return qparity::Activation::kRelu6;
  }
  return qparity::Activation::kNone;
}

OnednnCase make_case(const OracleCase& c, OnednnScaleModel model, bool with_bias) {
  CaseRandom rnd(c);
  OnednnCase x;
  x.shape = c.shape;
  const std::size_t m = c.shape.m, n = c.shape.n, k = c.shape.k;
  auto& q = x.q;
  q.model = model;
  const bool two_step = model == OnednnScaleModel::kTwoStepScales;
  int lo = -128, hi = 127;
  switch (c.variant) {
    case Variant::kPerTensor:
      q.src_zero_point = rnd.uniform(-20, 20);
      q.wei_zero_point = rnd.uniform(-3, 3);
      q.dst_zero_point = rnd.uniform(-10, 10);
      if (two_step) q.activation = OnednnActivation::kRelu;
      break;
    case Variant::kPerChannel:
      q.src_zero_point = -128;
      q.wei_zero_point = -128;
      q.dst_zero_point = 127;
      break;
    case Variant::kExtremes:
      q.src_zero_point = 127;
      q.wei_zero_point = 127;
      q.dst_zero_point = -128;
      if (two_step) q.activation = OnednnActivation::kRelu6;
      break;
    case Variant::kTies:
    case Variant::kTiesPerTensor:
      q.src_zero_point = 1;
      q.wei_zero_point = -1;
      q.dst_zero_point = 3;  // odd: adding it before or after the rounding differs at halves
      lo = -kTieOperandRange;
      hi = kTieOperandRange;
      break;
  }
  const bool ties = c.ties();
  x.a = AlignedBuffer<std::int8_t>(rnd.values<std::int8_t>(m * k, ties ? q.src_zero_point + lo : lo,
                                                           ties ? q.src_zero_point + hi : hi));
  x.weights = AlignedBuffer<std::int8_t>(rnd.values<std::int8_t>(
      n * k, ties ? q.wei_zero_point + lo : lo, ties ? q.wei_zero_point + hi : hi));
  const AccumulatorStats st = accumulator_stats(x.a.data(), x.weights.data(), c.shape,
                                                q.src_zero_point, {q.wei_zero_point});
  const std::size_t scales = c.per_channel() ? n : 1;
  q.wei_scales.resize(scales);
  if (ties) {
    // Every product and inverse is a power of two: float(acc) * 2^-a * 2^-b lands on halves.
    q.src_scale = 0.5f;
    for (std::size_t j = 0; j < scales; ++j) {
      q.wei_scales[j] = std::ldexp(1.0f, -1 - static_cast<int>(j % 3));
    }
    q.dst_scale = 1.0f;
  } else {
    for (float& s : q.wei_scales) s = rnd.log_uniform(0.002, 0.02);
    q.src_scale = rnd.log_uniform(0.005, 0.05);
    q.dst_scale = spread_output_scale(q.src_scale, q.wei_scales[0], st.sd);
    if (c.variant == Variant::kExtremes) {
      // Put the relu6 bound inside the int8 range (6 / s_out = 150 steps above zp = -128) and make
      // real values of a few units, so that both relu6 bounds clip some results.
      q.dst_scale = 6.0f / 150.0f;
      q.src_scale = static_cast<float>(4.0 / (st.sd * q.wei_scales[0]));
    }
  }
  if (with_bias) {
    q.bias.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      // Re-centre each channel (its zero points shift it) plus a spread of its own; for ties, a
      // whole number of accumulator steps so that halves stay halves. In the unit the model
      // reads: real (s_in * s_w) for the two-step model, accumulator units for the 2.x model.
      const double steps = ties ? std::round(-st.channel_mean[j]) + rnd.uniform(-8, 8)
                                : -st.channel_mean[j] + rnd.uniform(-1000, 1000) * 1e-3 * st.sd;
      const float s_w = q.wei_scales[c.per_channel() ? j : 0];
      q.bias[j] =
          two_step ? static_cast<float>(steps) * (q.src_scale * s_w) : static_cast<float>(steps);
    }
  }
  return x;
}

/// The qparity side of the case: the preset's derivation (two-step model), or the 2.x model's
/// parameters written out (output-scales model; `preset` then only names the core).
std::vector<qparity::RequantParams> qparity_params(const OnednnCase& x,
                                                   const qparity::Preset& preset) {
  const std::size_t n = x.shape.n;
  std::vector<qparity::RequantParams> params(n);
  for (std::size_t j = 0; j < n; ++j) {
    const float s_w = x.q.wei_scales[x.q.wei_scales.size() == 1 ? 0 : j];
    const float bias = x.q.bias.empty() ? 0.0f : x.q.bias[j];
    if (x.q.model == OnednnScaleModel::kTwoStepScales) {
      params[j] = qparity::derive_requant_params(preset, x.q.src_scale, s_w, x.q.dst_scale, bias);
    } else {
      params[j].scale = 1.0f;
      params[j].bias = bias;
      params[j].post_scale = (x.q.src_scale * s_w) / x.q.dst_scale;
    }
  }
  return params;
}

/// Runs oneDNN on the case and compares with qparity under `preset_name`. Sets *skip (the reason; the tests fail then) when oneDNN
/// cannot run here.
OracleComparison run_case(const OracleCase& c, OnednnScaleModel model, bool with_bias,
                          const std::string& preset_name, std::string* skip) {
  if (!qparity_peers::onednn_available(skip)) return {};
  OnednnCase x = make_case(c, model, with_bias);
  std::string error;
  auto peer = qparity_peers::OnednnMatmul::create(x.shape, x.weights.data(), x.q, &error);
  if (!peer) {
    ADD_FAILURE() << error;
    return {};
  }
  AlignedBuffer<std::int8_t> peer_c(x.shape.m * x.shape.n);
  peer->run(x.a.data(), peer_c.data());

  const qparity::Preset preset = qparity::find_preset(preset_name);
  const std::vector<qparity::RequantParams> params = qparity_params(x, preset);
  const std::int32_t wei_zero_point = x.q.wei_zero_point;
  qparity::GemmProblem<std::int8_t, std::int8_t> g;
  g.m = x.shape.m;
  g.n = x.shape.n;
  g.k = x.shape.k;
  g.a = x.a.data();
  g.a_zero_point = x.q.src_zero_point;
  g.b = x.weights.data();
  g.b_layout = qparity::WeightLayout::kNxK;
  g.b_zero_points = &wei_zero_point;
  g.params = params.data();
  g.per_channel = true;
  g.output =
      qparity::activation_output_params(to_qparity(x.q.activation), preset.clamp, x.q.dst_scale,
                                        x.q.dst_zero_point, qparity::OutputType::kInt8);
  return compare_with_qparity(g, preset.core, preset.accumulator, peer_c.data());
}

class OnednnTwoStepOracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(OnednnTwoStepOracle, MatchesOnednnBitExactly) {
  std::string skip;
  const OracleComparison r =
      run_case(GetParam(), OnednnScaleModel::kTwoStepScales, /*with_bias=*/true, "onednn", &skip);
  ASSERT_TRUE(skip.empty()) << "oneDNN is compiled in (found at configure time) but cannot run: " << skip;
  EXPECT_TRUE(r.all_equal());
}

INSTANTIATE_TEST_SUITE_P(Cases, OnednnTwoStepOracle, ::testing::ValuesIn(oracle_cases()),
                         OracleCaseName());

class OnednnOutputScalesOracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(OnednnOutputScalesOracle, MatchesOnednnBitExactly) {
  std::string skip;
  const OracleComparison r =
      run_case(GetParam(), OnednnScaleModel::kOutputScales, /*with_bias=*/true, "onednn", &skip);
  ASSERT_TRUE(skip.empty()) << "oneDNN is compiled in (found at configure time) but cannot run: " << skip;
  EXPECT_TRUE(r.all_equal());
}

INSTANTIATE_TEST_SUITE_P(Cases, OnednnOutputScalesOracle, ::testing::ValuesIn(oracle_cases()),
                         OracleCaseName());

// The oracle can tell arithmetics apart: without a bias and with power-of-two scales, the
// `xnnpack-fp32` preset differs from `onednn` only in where the (odd) output zero point is added:
// after the rounding (F32) instead of before it (F32-ZPF). oneDNN must disagree with it.
TEST(OnednnOracleSensitivity, ZeroPointAfterRoundingDisagreesOnTies) {
  std::string skip;
  const OracleComparison r =
      run_case({{17, 63, 7}, Variant::kTies}, OnednnScaleModel::kTwoStepScales,
               /*with_bias=*/false, "xnnpack-fp32", &skip);
  ASSERT_TRUE(skip.empty()) << "oneDNN is compiled in (found at configure time) but cannot run: " << skip;
  EXPECT_GT(r.reference_mismatches(), 0u);
}

}  // namespace
}  // namespace qparity_oracle
