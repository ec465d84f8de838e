// Oracle: the `onednn` preset against oneDNN's int8 convolution (s8 or u8 activations, s8
// filter, s8 or u8 output), conv2d, grouped and depthwise (oneDNN grouped convolutions).
//
// oneDNN receives real f32 scales (src, per-tensor or per-channel weights, dst), src and dst zero
// points (oneDNN 2.x convolutions take no weight zero point), an f32 bias and an activation, and
// does all the float arithmetic in its kernel. qparity receives the same values through the
// preset's own derivation, exactly as the GEMM oracle (onednn_oracle_test.cc) does:
//   * OnednnConvTwoStepOracle: oneDNN 3.x's model, which the `onednn` preset reproduces
//     (derive_requant_params: two-step float composition, the f32 bias in RequantParams::bias,
//     F32-ZPF core; activation_output_params with the preset's kOnednn clamp).
//   * OnednnConvOutputScalesOracle: oneDNN 2.x's own model, v = (float(acc) + bias) * output_scale;
//     its parameters written out for the same F32-ZPF core: scale = 1 (exact), bias = the
//     accumulator-unit bias, post_scale = float(float(s_in * s_w) / s_out).
// Both run every case with s8 -> s8; OnednnConvUnsignedOracle runs u8 -> u8 (two-step model).
//
// Where oneDNN has no VNNI (an AVX2-only CPU: "jit_uni_int8:avx2") its arithmetic changes, and the
// tests follow it rather than skip it: s8 activations get a halved filter and a doubled output
// scale (OnednnConv::weights_scale_adjust; qparity is given the same filter and scales), u8
// activations saturating int16 pair sums (the u8 cases then draw activations below 128, where no
// pair can saturate). Depthwise layers of fewer than 8 channels are not compared there (run_case).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/peers/onednn_conv.h"
#include "bench/peers/onednn_matmul.h"
#include "bench/peers/onednn_weight_adjust.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "qparity/reference_conv2d.h"
#include "tests/oracles/conv_oracle_cases.h"
#include "tests/oracles/conv_oracle_compare.h"

namespace qparity_oracle {
namespace {

using qparity::internal::AlignedBuffer;
using qparity_peers::OnednnActivation;
using qparity_peers::OnednnScaleModel;

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

template <class AType>
struct OnednnConvCase {
  qparity_peers::ConvShape shape;
  AlignedBuffer<AType> input;
  AlignedBuffer<std::int8_t> filter;
  qparity_peers::OnednnConvQuantization q;
};

template <class AType, class OutType>
OnednnConvCase<AType> make_case(const ConvOracleCase& c, OnednnScaleModel model, bool with_bias,
                                bool unsaturated_u8_pairs) {
  constexpr bool kSrcU8 = std::is_same<AType, std::uint8_t>::value;
  constexpr bool kDstU8 = std::is_same<OutType, std::uint8_t>::value;
  constexpr int kAMin = kSrcU8 ? 0 : -128, kOMin = kDstU8 ? 0 : -128;
  CaseRandom rnd(c.name() + (kSrcU8 ? "_u8" : ""));
  OnednnConvCase<AType> x;
  x.shape = c.shape.shape;
  const std::size_t oc = x.shape.total_out_channels();
  auto& q = x.q;
  q.model = model;
  q.src_unsigned = kSrcU8;
  q.dst_unsigned = kDstU8;
  const bool two_step = model == OnednnScaleModel::kTwoStepScales;
  int lo = -128, hi = 127;  // oneDNN takes the whole int8 range for weights
  switch (c.variant) {
    case Variant::kPerTensor:
      q.src_zero_point = kAMin + 128 + rnd.uniform(-20, 20);
      q.dst_zero_point = kOMin + 128 + rnd.uniform(-10, 10);
      if (two_step) q.activation = OnednnActivation::kRelu;
      break;
    case Variant::kPerChannel:
      q.src_zero_point = kAMin;
      q.dst_zero_point = kOMin + 255;
      break;
    case Variant::kExtremes:
      q.src_zero_point = kAMin + 255;
      q.dst_zero_point = kOMin;
      if (two_step) q.activation = OnednnActivation::kRelu6;
      break;
    case Variant::kTies:
    case Variant::kTiesPerTensor:
      q.src_zero_point = kAMin + 129;
      q.dst_zero_point =
          kOMin + 131;  // odd: adding it before or after the rounding differs at halves
      lo = -kTieOperandRange;
      hi = kTieOperandRange;
      break;
  }
  const bool ties = c.ties();
  // u8 activations up to 127: 127 * 128 * 2 = 32512, so no int16 pair sum can saturate.
  const int a_max = kSrcU8 && unsaturated_u8_pairs ? 127 : kAMin + 255;
  x.input = AlignedBuffer<AType>(rnd.values<AType>(input_size(x.shape),
                                                   ties ? q.src_zero_point + lo : kAMin,
                                                   ties ? q.src_zero_point + hi : a_max));
  x.filter = AlignedBuffer<std::int8_t>(rnd.values<std::int8_t>(filter_size(x.shape), lo, hi));
  const AccumulatorStats st =
      conv_accumulator_stats(x.shape, x.input.data(), q.src_zero_point, x.filter.data());
  q.wei_scales.resize(c.per_channel() ? oc : 1);
  if (ties) {
    // Every product and inverse is a power of two: float(acc) * 2^-a * 2^-b lands on halves.
    q.src_scale = 0.5f;
    for (std::size_t j = 0; j < q.wei_scales.size(); ++j)
      q.wei_scales[j] = std::ldexp(1.0f, -1 - static_cast<int>(j % 3));
    q.dst_scale = 1.0f;
  } else {
    for (float& s : q.wei_scales) s = rnd.log_uniform(0.002, 0.02);
    q.src_scale = rnd.log_uniform(0.005, 0.05);
    q.dst_scale = spread_output_scale(q.src_scale, q.wei_scales[0], st.sd);
    if (c.variant == Variant::kExtremes) {
      // relu6's bound 150 steps above the lowest zero point, real values of a few units: both
      // relu6 bounds clip some results.
      q.dst_scale = 6.0f / 150.0f;
      q.src_scale = static_cast<float>(4.0 / (st.sd * q.wei_scales[0]));
    }
  }
  if (with_bias) {
    q.bias.resize(oc);
    for (std::size_t j = 0; j < oc; ++j) {
      // Re-centre each channel plus a spread of its own; for ties a whole number of accumulator
      // steps so that halves stay halves. Real units (two-step) or accumulator units (2.x model).
      const double steps = ties ? std::round(-st.channel_mean[j]) + rnd.uniform(-8, 8)
                                : -st.channel_mean[j] + rnd.uniform(-1000, 1000) * 1e-3 * st.sd;
      const float s_w = q.wei_scales[c.per_channel() ? j : 0];
      q.bias[j] =
          two_step ? static_cast<float>(steps) * (q.src_scale * s_w) : static_cast<float>(steps);
    }
  }
  return x;
}

/// qparity's parameters for oneDNN's arithmetic. With a weight adjustment (oneDNN without VNNI:
/// 0.5), oneDNN multiplies its output scale by 1 / adjust and the 2.x model's bias (accumulator
/// units) by adjust; both are powers of two, so the weight scale s_w / adjust and the bias
/// bias * adjust give qparity the same float values.
template <class AType>
std::vector<qparity::RequantParams> qparity_params(const OnednnConvCase<AType>& x,
                                                   const qparity::Preset& preset,
                                                   float weights_adjust) {
  const std::size_t oc = x.shape.total_out_channels();
  std::vector<qparity::RequantParams> params(oc);
  for (std::size_t j = 0; j < oc; ++j) {
    const float s_w = x.q.wei_scales[x.q.wei_scales.size() == 1 ? 0 : j] / weights_adjust;
    float bias = x.q.bias.empty() ? 0.0f : x.q.bias[j];
    if (x.q.model != OnednnScaleModel::kTwoStepScales) bias *= weights_adjust;
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

/// Runs oneDNN on the case and compares with qparity under `preset_name`. Sets *unavailable when
/// oneDNN cannot run here (the tests fail then), and *skipped, with the reason, for the one
/// configuration where oneDNN is known to disagree with itself (the comparison is empty then).
template <class AType, class OutType>
OracleComparison run_case(const ConvOracleCase& c, OnednnScaleModel model, bool with_bias,
                          const std::string& preset_name, std::string* unavailable,
                          std::string* skipped) {
  if (!qparity_peers::onednn_available(unavailable)) return {};
  OnednnConvCase<AType> x = make_case<AType, OutType>(c, model, with_bias, false);
  std::string error;
  auto peer = qparity_peers::OnednnConv::create(x.shape, x.filter.data(), x.q, &error);
  if (!peer) {
    ADD_FAILURE() << error;
    return {};
  }
  const bool pre_vnni = !qparity_peers::onednn_has_int8_vnni();
  if (pre_vnni && x.shape.depthwise && x.shape.multiplier == 1 && x.shape.in_channels < 8) {
    // Seen with oneDNN 2.6 on AVX2 (Zen 1), s8 and u8: 3, 4, 5 and 7 channels (one padded
    // 8-channel block) differ by 1-2 LSB even at ties in the two-step model, and the 2.x model's
    // 5x5 stride-1 layer with 5 channels by the whole output range; 9, 16, 32 and 33 channels, and
    // depth multipliers 2 and 3 (which oneDNN runs as grouped convolutions), match bit-exactly.
    *skipped = "oneDNN's depthwise kernel without VNNI (" + peer->implementation() +
               ") disagrees with every arithmetic we know on layers of fewer than 8 channels: "
               "not compared on this CPU (compared where oneDNN has VNNI)";
    return {};
  }
  if (pre_vnni && std::is_same<AType, std::uint8_t>::value) {
    // oneDNN without VNNI sums u8 * s8 pairs in int16 with saturation (VPMADDUBSW; only s8
    // activations get the halved filter that prevents it). That is the pairsat16 model, but with
    // pairs formed per tap over padded channels and padded taps skipped, which qparity's
    // pairsat16 (pairs along the (fy, fx, ic) order, padded taps reading the zero point) does not
    // follow: compare where no pair can saturate instead.
    x = make_case<AType, OutType>(c, model, with_bias, true);
    peer = qparity_peers::OnednnConv::create(x.shape, x.filter.data(), x.q, &error);
    if (!peer) {
      ADD_FAILURE() << error;
      return {};
    }
  }
  AlignedBuffer<OutType> peer_out(output_size(x.shape));
  peer->run(x.input.data(), peer_out.data());

  // oneDNN without VNNI computes with a halved filter (OnednnConv::weights_scale_adjust): qparity
  // is given that filter and the matching scales, so the comparison stays bit-exact there too.
  const float adjust = peer->weights_scale_adjust();
  const std::vector<std::int8_t> filter =
      qparity_peers::onednn_adjusted_filter(x.filter.data(), x.filter.size(), adjust);
  const qparity::Preset preset = qparity::find_preset(preset_name);
  const std::vector<qparity::RequantParams> params = qparity_params(x, preset, adjust);
  qparity::ConvWeights w;
  w.filter = filter.data();
  w.params = params.data();
  w.per_channel = true;
  const qparity::OutputType out_type = std::is_same<OutType, std::uint8_t>::value
                                           ? qparity::OutputType::kUint8
                                           : qparity::OutputType::kInt8;
  const qparity::ConvCall<AType, OutType> call{
      x.input.data(), x.q.src_zero_point,
      qparity::activation_output_params(to_qparity(x.q.activation), preset.clamp, x.q.dst_scale,
                                        x.q.dst_zero_point, out_type),
      nullptr};
  if (x.shape.depthwise) {
    return compare_depthwise_with_qparity(
        qparity::DepthwiseConv2DProblem<AType, OutType>{depthwise_geometry_of(x.shape), w, call},
        preset.core, preset.accumulator, peer_out.data());
  }
  return compare_conv2d_with_qparity(
      qparity::Conv2DProblem<AType, OutType>{conv_geometry_of(x.shape), w, call}, preset.core,
      preset.accumulator, peer_out.data());
}

#define QPARITY_EXPECT_ONEDNN_RUNS(unavailable) \
  ASSERT_TRUE((unavailable).empty())            \
      << "oneDNN is compiled in (found at configure time) but cannot run: " << (unavailable)

class OnednnConvTwoStepOracle : public ::testing::TestWithParam<ConvOracleCase> {};

TEST_P(OnednnConvTwoStepOracle, MatchesOnednnBitExactly) {
  std::string unavailable, skipped;
  const OracleComparison r =
      run_case<std::int8_t, std::int8_t>(GetParam(), OnednnScaleModel::kTwoStepScales,
                                         /*with_bias=*/true, "onednn", &unavailable, &skipped);
  QPARITY_EXPECT_ONEDNN_RUNS(unavailable);
  if (!skipped.empty()) GTEST_SKIP() << skipped;
  EXPECT_TRUE(r.all_equal());
  EXPECT_GE(r.peer_distinct_values, 5u) << "the outputs barely vary: this case compares little";
}

INSTANTIATE_TEST_SUITE_P(Cases, OnednnConvTwoStepOracle, ::testing::ValuesIn(conv_oracle_cases()),
                         OracleCaseName());

class OnednnConvOutputScalesOracle : public ::testing::TestWithParam<ConvOracleCase> {};

TEST_P(OnednnConvOutputScalesOracle, MatchesOnednnBitExactly) {
  std::string unavailable, skipped;
  const OracleComparison r =
      run_case<std::int8_t, std::int8_t>(GetParam(), OnednnScaleModel::kOutputScales,
                                         /*with_bias=*/true, "onednn", &unavailable, &skipped);
  QPARITY_EXPECT_ONEDNN_RUNS(unavailable);
  if (!skipped.empty()) GTEST_SKIP() << skipped;
  EXPECT_TRUE(r.all_equal());
  EXPECT_GE(r.peer_distinct_values, 5u) << "the outputs barely vary: this case compares little";
}

INSTANTIATE_TEST_SUITE_P(Cases, OnednnConvOutputScalesOracle,
                         ::testing::ValuesIn(conv_oracle_cases()), OracleCaseName());

class OnednnConvUnsignedOracle : public ::testing::TestWithParam<ConvOracleCase> {};

TEST_P(OnednnConvUnsignedOracle, MatchesOnednnBitExactly) {
  std::string unavailable, skipped;
  const OracleComparison r =
      run_case<std::uint8_t, std::uint8_t>(GetParam(), OnednnScaleModel::kTwoStepScales,
                                           /*with_bias=*/true, "onednn", &unavailable, &skipped);
  QPARITY_EXPECT_ONEDNN_RUNS(unavailable);
  if (!skipped.empty()) GTEST_SKIP() << skipped;
  EXPECT_TRUE(r.all_equal());
  EXPECT_GE(r.peer_distinct_values, 5u) << "the outputs barely vary: this case compares little";
}

INSTANTIATE_TEST_SUITE_P(Cases, OnednnConvUnsignedOracle, ::testing::ValuesIn(conv_oracle_cases()),
                         OracleCaseName());

// The oracle can tell arithmetics apart: without a bias and with power-of-two scales, the
// `xnnpack-fp32` preset differs from `onednn` only in where the odd output zero point is added
// (after the rounding instead of before it). oneDNN must disagree with it, conv and depthwise.
// (The depthwise layer has 32 channels: one with fewer than 8 is not compared without VNNI.)
TEST(OnednnConvOracleSensitivity, ZeroPointAfterRoundingDisagreesOnTies) {
  int compared = 0;
  for (const char* shape : {"c3x3s2_same_9x9x7to17", "dw3x3s1_explicit_7x7x32"}) {
    for (const ConvOracleShape& s : conv_oracle_shapes()) {
      if (std::string(s.name) != shape) continue;
      std::string unavailable, skipped;
      const OracleComparison r = run_case<std::int8_t, std::int8_t>(
          {s, Variant::kTies}, OnednnScaleModel::kTwoStepScales,
          /*with_bias=*/false, "xnnpack-fp32", &unavailable, &skipped);
      QPARITY_EXPECT_ONEDNN_RUNS(unavailable);
      ASSERT_TRUE(skipped.empty()) << skipped;
      EXPECT_GT(r.reference_mismatches(), 0u) << shape;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 2) << "a shape named here is no longer in conv_oracle_shapes()";
}

// tests/oracles/CMakeLists.txt runs this binary again with ONEDNN_MAX_CPU_ISA below VNNI and sets
// QPARITY_EXPECT_ONEDNN_WITHOUT_VNNI=1 there: the cap must have taken effect, or those runs would
// compare the VNNI arithmetic a second time and prove nothing about the halved filter.
TEST(OnednnConvOracleCaps, OnednnRunsWithoutVnniWhereTheTestAsksForIt) {
  const char* expect = std::getenv("QPARITY_EXPECT_ONEDNN_WITHOUT_VNNI");
  if (expect == nullptr || std::string(expect) != "1") GTEST_SKIP() << "no cap asked for";
  std::string unavailable;
  ASSERT_TRUE(qparity_peers::onednn_available(&unavailable)) << unavailable;
  EXPECT_FALSE(qparity_peers::onednn_has_int8_vnni())
      << "ONEDNN_MAX_CPU_ISA did not take oneDNN below VNNI: "
      << qparity_peers::onednn_effective_isa();
}

}  // namespace
}  // namespace qparity_oracle
