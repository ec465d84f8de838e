// Oracle: the `xnnpack-fp32` preset against XNNPACK's own signed 8-bit convolution operators,
// conv2d (grouped too) and depthwise (XNN_FLAG_DEPTHWISE_CONVOLUTION).
//
// XNNPACK receives the real scales and composes them itself (float32 s_in * s_w / s_out), packs the
// int32 bias with the input zero point folded in, pads with the input zero point (its own SAME rule
// with XNN_FLAG_TENSORFLOW_SAME_PADDING) and requantizes with its fp32 scheme. qparity receives the
// same real scales through the preset's derivation (derive_requant_params: float composition, F32
// core) and must produce the same int8 bits. Per-tensor cases run
// xnn_create_convolution2d_nhwc_qs8, per-channel ones ..._qc8 (what TFLite's XNNPACK delegate runs
// for int8 models). Activation clamps are quantized the way XNNPACK's subgraph does (the preset's
// kXnnpack clamp derivation) and handed to the operator as output_min / output_max.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/peers/xnnpack_conv.h"
#include "bench/peers/xnnpack_fc.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "qparity/reference_conv2d.h"
#include "tests/oracles/conv_oracle_cases.h"
#include "tests/oracles/conv_oracle_compare.h"

namespace qparity_oracle {
namespace {

using qparity::internal::AlignedBuffer;

struct XnnpackConvCase {
  qparity_peers::ConvShape shape;
  AlignedBuffer<std::int8_t> input, filter;
  qparity_peers::XnnpackConvQuantization q;
  qparity::Activation activation = qparity::Activation::kNone;
};

XnnpackConvCase make_case(const ConvOracleCase& c, const qparity::Preset& preset) {
  CaseRandom rnd(c.name());
  XnnpackConvCase x;
  x.shape = c.shape.shape;
  const std::size_t oc = x.shape.total_out_channels();
  auto& q = x.q;
  int lo = -127, hi = 127;  // TFLite's int8 filters are symmetric: [-127, 127]
  switch (c.variant) {
    case Variant::kPerTensor:
      q.input_zero_point = rnd.uniform(-20, 20);
      q.output_zero_point = rnd.uniform(-10, 10);
      x.activation = qparity::Activation::kRelu;
      break;
    case Variant::kPerChannel:
      q.input_zero_point = -128;
      q.output_zero_point = -128;
      x.activation = qparity::Activation::kRelu6;
      break;
    case Variant::kExtremes:
      // No activation (with zp = 127 a relu would leave the single value 127, which XNNPACK
      // rejects: it wants output_min < output_max); a narrow raw clamp instead.
      q.input_zero_point = 127;
      q.output_zero_point = 127;
      break;
    case Variant::kTies:
    case Variant::kTiesPerTensor:
      q.input_zero_point = 1;
      q.output_zero_point = 3;  // odd: adding it before or after the rounding differs at halves
      lo = -kTieOperandRange;
      hi = kTieOperandRange;
      break;
  }
  const bool ties = c.ties();
  x.input = AlignedBuffer<std::int8_t>(
      rnd.values<std::int8_t>(input_size(x.shape), ties ? q.input_zero_point + lo : -128,
                              ties ? q.input_zero_point + hi : 127));
  x.filter = AlignedBuffer<std::int8_t>(rnd.values<std::int8_t>(filter_size(x.shape), lo, hi));
  const AccumulatorStats st =
      conv_accumulator_stats(x.shape, x.input.data(), q.input_zero_point, x.filter.data());
  q.bias.resize(oc);
  for (std::size_t j = 0; j < oc; ++j) {
    const double noise = ties ? rnd.uniform(-8, 8) : rnd.uniform(-1000, 1000) * 1e-3 * st.sd;
    q.bias[j] = static_cast<std::int32_t>(std::llround(-st.channel_mean[j] + noise));
  }
  q.kernel_scales.resize(c.per_channel() ? oc : 1);
  if (ties) {
    // acc * 2^-2 .. 2^-4 exactly: the float product lands on halves.
    q.input_scale = 0.5f;
    for (std::size_t j = 0; j < q.kernel_scales.size(); ++j)
      q.kernel_scales[j] = std::ldexp(1.0f, -1 - static_cast<int>(j % 3));
    q.output_scale = 1.0f;
  } else {
    q.input_scale = rnd.log_uniform(0.005, 0.05);
    for (float& s : q.kernel_scales) s = rnd.log_uniform(0.002, 0.02);
    q.output_scale = spread_output_scale(q.input_scale, q.kernel_scales[0], st.sd);
    if (x.activation == qparity::Activation::kRelu6) {
      // Put 6.0 about 150 steps above zp = -128 so that both relu6 bounds clip some results.
      q.output_scale = 6.0f / 150.0f;
      q.input_scale = static_cast<float>(4.0 / (st.sd * q.kernel_scales[0]));
    }
  }
  const qparity::OutputParams o = qparity::activation_output_params(
      x.activation, preset.clamp, q.output_scale, q.output_zero_point, qparity::OutputType::kInt8);
  q.output_min = o.qmin;
  q.output_max = o.qmax;
  if (c.variant == Variant::kExtremes) {
    q.output_min = -100;
    q.output_max = 120;
  }
  return x;
}

/// Runs XNNPACK on the case and compares with qparity under `preset_name`. Sets *unavailable (the
/// reason) when XNNPACK cannot run on this machine; the tests fail then.
OracleComparison run_case(const ConvOracleCase& c, const std::string& preset_name,
                          std::string* unavailable) {
  if (!qparity_peers::xnnpack_available(unavailable)) return {};
  const qparity::Preset preset = qparity::find_preset(preset_name);
  // The data and clamps are made with the xnnpack-fp32 preset's clamp rule whatever is compared.
  XnnpackConvCase x = make_case(c, qparity::find_preset("xnnpack-fp32"));
  std::string error;
  auto peer = qparity_peers::XnnpackConv::create(x.shape, x.filter.data(), x.q, &error);
  if (!peer) {
    ADD_FAILURE() << error;
    return {};
  }
  AlignedBuffer<std::int8_t> peer_out(output_size(x.shape));
  peer->run(x.input.data(), peer_out.data());

  std::vector<qparity::RequantParams> params;
  for (float s_w : x.q.kernel_scales) {
    params.push_back(
        qparity::derive_requant_params(preset, x.q.input_scale, s_w, x.q.output_scale));
  }
  qparity::ConvWeights w;
  w.filter = x.filter.data();
  w.bias = x.q.bias.data();
  w.params = params.data();
  w.per_channel = params.size() > 1;
  const qparity::ConvCall<std::int8_t, std::int8_t> call{
      x.input.data(), x.q.input_zero_point,
      qparity::OutputParams{x.q.output_zero_point, x.q.output_min, x.q.output_max}, nullptr};
  if (x.shape.depthwise) {
    return compare_depthwise_with_qparity(
        qparity::DepthwiseConv2DProblem<std::int8_t, std::int8_t>{depthwise_geometry_of(x.shape), w,
                                                                  call},
        preset.core, preset.accumulator, peer_out.data());
  }
  return compare_conv2d_with_qparity(
      qparity::Conv2DProblem<std::int8_t, std::int8_t>{conv_geometry_of(x.shape), w, call},
      preset.core, preset.accumulator, peer_out.data());
}

class XnnpackConvOracle : public ::testing::TestWithParam<ConvOracleCase> {};

TEST_P(XnnpackConvOracle, MatchesXnnpackBitExactly) {
  std::string unavailable;
  const OracleComparison r = run_case(GetParam(), "xnnpack-fp32", &unavailable);
  ASSERT_TRUE(unavailable.empty())
      << "XNNPACK is compiled in (found at configure time) but cannot run: " << unavailable;
  EXPECT_TRUE(r.all_equal());
  EXPECT_GE(r.peer_distinct_values, 5u) << "the outputs barely vary: this case compares little";
}

INSTANTIATE_TEST_SUITE_P(Cases, XnnpackConvOracle, ::testing::ValuesIn(conv_oracle_cases()),
                         OracleCaseName());

// The oracle can tell arithmetics apart: on the ties problems XNNPACK's rndnu preset (SR-UP: halves
// round up) must disagree with XNNPACK's fp32 operators (halves to even), for conv and depthwise.
TEST(XnnpackConvOracleSensitivity, RndnuPresetDisagreesOnTies) {
  for (const char* shape : {"c3x3s2_same_9x9x7to17", "dw3x3s1_same_10x10x7"}) {
    for (const ConvOracleShape& s : conv_oracle_shapes()) {
      if (std::string(s.name) != shape) continue;
      std::string unavailable;
      const OracleComparison r = run_case({s, Variant::kTies}, "xnnpack-rndnu", &unavailable);
      ASSERT_TRUE(unavailable.empty()) << "XNNPACK is compiled in but cannot run: " << unavailable;
      EXPECT_GT(r.reference_mismatches(), 0u) << shape;
    }
  }
}

}  // namespace
}  // namespace qparity_oracle
