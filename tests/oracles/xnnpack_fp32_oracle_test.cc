// Oracle: the `xnnpack-fp32` preset against XNNPACK's own signed 8-bit fully-connected operator.
//
// XNNPACK receives the real scales and composes them itself (float32 s_in * s_w / s_out), packs
// the int32 bias with the input zero point folded in, and requantizes with its fp32 scheme. qparity
// receives the same real scales through the preset's derivation (derive_requant_params: float
// composition, float-scale "multiplier", F32 core) and must produce the same int8 bits.
// Per-tensor problems run xnn_create_fully_connected_nc_qs8; per-channel ones a 1x1
// xnn_create_convolution2d_nhwc_qc8, the only per-channel int8 GEMM in this XNNPACK (2022-02).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/peers/xnnpack_fc.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "qparity/reference_gemm.h"
#include "tests/oracles/oracle_cases.h"
#include "tests/oracles/oracle_compare.h"

namespace qparity_oracle {
namespace {

using qparity::internal::AlignedBuffer;

/// One problem in both vocabularies: XNNPACK's (real scales) and the data qparity needs.
struct XnnpackCase {
  qparity_peers::GemmShape shape;
  AlignedBuffer<std::int8_t> a, weights;  // M x K, N x K
  qparity_peers::XnnpackFcQuantization q;
};

XnnpackCase make_case(const OracleCase& c) {
  CaseRandom rnd(c);
  XnnpackCase x;
  x.shape = c.shape;
  const std::size_t m = c.shape.m, n = c.shape.n, k = c.shape.k;
  auto& q = x.q;
  int lo = -128, hi = 127;
  switch (c.variant) {
    case Variant::kPerTensor:
      q.input_zero_point = rnd.uniform(-20, 20);
      q.output_zero_point = rnd.uniform(-10, 10);
      break;
    case Variant::kPerChannel:
      q.input_zero_point = -128;
      q.output_zero_point = -128;
      q.output_min = -120;
      q.output_max = 100;
      break;
    case Variant::kExtremes:
      q.input_zero_point = 127;
      q.output_zero_point = 127;
      q.output_min = -100;
      q.output_max = 120;
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
  x.a = AlignedBuffer<std::int8_t>(rnd.values<std::int8_t>(
      m * k, ties ? q.input_zero_point + lo : -128, ties ? q.input_zero_point + hi : 127));
  x.weights = AlignedBuffer<std::int8_t>(rnd.values<std::int8_t>(n * k, lo, hi));
  const AccumulatorStats st =
      accumulator_stats(x.a.data(), x.weights.data(), c.shape, q.input_zero_point, {0});
  q.bias.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    // Re-centre each channel (its zero points shift it), then add a spread of its own.
    const double noise = ties ? rnd.uniform(-8, 8) : rnd.uniform(-1000, 1000) * 1e-3 * st.sd;
    q.bias[j] = static_cast<std::int32_t>(std::llround(-st.channel_mean[j] + noise));
  }
  const std::size_t scales = c.per_channel() ? n : 1;
  q.kernel_scales.resize(scales);
  if (ties) {
    // acc * 2^-2 .. 2^-4 exactly: the float product lands on halves.
    q.input_scale = 0.5f;
    for (std::size_t j = 0; j < scales; ++j) {
      q.kernel_scales[j] = std::ldexp(1.0f, -1 - static_cast<int>(j % 3));
    }
    q.output_scale = 1.0f;
  } else {
    q.input_scale = rnd.log_uniform(0.005, 0.05);
    for (float& s : q.kernel_scales) s = rnd.log_uniform(0.002, 0.02);
    q.output_scale = spread_output_scale(q.input_scale, q.kernel_scales[0], st.sd);
  }
  return x;
}

/// Runs XNNPACK on the case and compares with qparity under `preset_name`'s arithmetic.
/// Sets *skip (the reason) when XNNPACK cannot run on this machine; the tests fail then.
OracleComparison run_case(const OracleCase& c, const std::string& preset_name, std::string* skip) {
  if (!qparity_peers::xnnpack_available(skip)) return {};
  XnnpackCase x = make_case(c);
  std::string error;
  auto peer = qparity_peers::XnnpackFullyConnected::create(x.shape, x.weights.data(), x.q, &error);
  if (!peer) {
    ADD_FAILURE() << error;
    return {};
  }
  AlignedBuffer<std::int8_t> peer_c(x.shape.m * x.shape.n);
  peer->run(x.a.data(), peer_c.data());

  const qparity::Preset preset = qparity::find_preset(preset_name);
  std::vector<qparity::RequantParams> params;
  for (float s_w : x.q.kernel_scales) {
    params.push_back(
        qparity::derive_requant_params(preset, x.q.input_scale, s_w, x.q.output_scale));
  }
  qparity::GemmProblem<std::int8_t, std::int8_t> g;
  g.m = x.shape.m;
  g.n = x.shape.n;
  g.k = x.shape.k;
  g.a = x.a.data();
  g.a_zero_point = x.q.input_zero_point;
  g.b = x.weights.data();
  g.b_layout = qparity::WeightLayout::kNxK;
  g.bias = x.q.bias.data();
  g.params = params.data();
  g.per_channel = params.size() > 1;
  g.output = qparity::OutputParams{x.q.output_zero_point, x.q.output_min, x.q.output_max};
  return compare_with_qparity(g, preset.core, preset.accumulator, peer_c.data());
}

class XnnpackFp32Oracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(XnnpackFp32Oracle, MatchesXnnpackBitExactly) {
  std::string skip;
  const OracleComparison r = run_case(GetParam(), "xnnpack-fp32", &skip);
  ASSERT_TRUE(skip.empty()) << "XNNPACK is compiled in (found at configure time) but cannot run: " << skip;
  EXPECT_TRUE(r.all_equal());
}

INSTANTIATE_TEST_SUITE_P(Cases, XnnpackFp32Oracle, ::testing::ValuesIn(oracle_cases()),
                         OracleCaseName());

// The oracle can tell arithmetics apart: on the ties problems, XNNPACK's rndnu scheme (SR-UP on
// the float scale's mantissa: halves round up) must disagree with XNNPACK's fp32 operator
// (halves round to even).
TEST(XnnpackFp32OracleSensitivity, RndnuPresetDisagreesOnTies) {
  std::string skip;
  const OracleComparison r = run_case({{17, 63, 7}, Variant::kTies}, "xnnpack-rndnu", &skip);
  ASSERT_TRUE(skip.empty()) << "XNNPACK is compiled in (found at configure time) but cannot run: " << skip;
  EXPECT_GT(r.reference_mismatches(), 0u);
}

}  // namespace
}  // namespace qparity_oracle
