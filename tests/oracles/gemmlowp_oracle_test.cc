// Oracle: the `gemmlowp` preset against gemmlowp's GEMM with its fixed-point output pipeline
// (bias, OutputStageScaleInt32ByFixedPointAndExponent[PC], clamp, saturating cast to uint8).
//
// gemmlowp does not derive multipliers: TFLite does, and passes (M, exponent) per tensor or per
// channel. The test derives them with the preset (derive_requant_params: double composition,
// TFLite QuantizeMultiplier) and hands the same integers to both sides, so what is checked is the
// DR-AZ core, the accumulator, the zero-point handling and the output stage.
//
// gemmlowp's x86 kernels are uint8 x uint8. qparity's weights are int8, so the weights and their
// zero points are shifted by -128 on qparity's side: (w - 128) - (zp - 128) = w - zp, the same
// accumulator. Activations and output stay uint8 on both sides (GemmProblem<uint8_t, uint8_t>).
// Both gemmlowp builds are checked: AVX2 on every case, SSE4.1 on the per-tensor cases (its
// output stage has no per-channel exponent).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/peers/gemmlowp_gemm.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/output_stage.h"
#include "qparity/presets.h"
#include "qparity/reference_gemm.h"
#include "tests/oracles/oracle_cases.h"
#include "tests/oracles/oracle_compare.h"

namespace qparity_oracle {
namespace {

using qparity::internal::AlignedBuffer;
using qparity_peers::GemmlowpKernel;

struct GemmlowpCase {
  qparity_peers::GemmShape shape;
  AlignedBuffer<std::uint8_t> a, weights;  // M x K, N x K
  float input_scale = 1.0f, output_scale = 1.0f;
  std::vector<float> weight_scales;
  qparity_peers::GemmlowpQuantization q;  // multipliers and exponents filled per preset
};

GemmlowpCase make_case(const OracleCase& c) {
  CaseRandom rnd(c);
  GemmlowpCase x;
  x.shape = c.shape;
  const std::size_t m = c.shape.m, n = c.shape.n, k = c.shape.k;
  auto& q = x.q;
  const bool ties = c.ties();
  switch (c.variant) {
    case Variant::kPerTensor:
      q.lhs_zero_point = rnd.uniform(100, 150);
      q.rhs_zero_points = {rnd.uniform(100, 150)};
      q.output_zero_point = rnd.uniform(120, 136);
      break;
    case Variant::kPerChannel:
      q.lhs_zero_point = 0;
      q.rhs_zero_points = rnd.values<std::int32_t>(n, 0, 255);
      q.rhs_zero_points[0] = 0;  // both extremes of the range, whatever N
      q.rhs_zero_points[n - 1] = 255;
      q.output_zero_point = 0;
      q.clamp_min = 10;
      q.clamp_max = 240;
      break;
    case Variant::kExtremes:
      q.lhs_zero_point = 255;
      q.rhs_zero_points.assign(n, 255);
      q.output_zero_point = 255;
      q.clamp_min = 20;
      q.clamp_max = 250;
      break;
    case Variant::kTies:
    case Variant::kTiesPerTensor:
      q.lhs_zero_point = 129;
      q.rhs_zero_points = {127};
      q.output_zero_point = 131;
      break;
  }
  const int r = kTieOperandRange;
  x.a = AlignedBuffer<std::uint8_t>(rnd.values<std::uint8_t>(m * k, ties ? q.lhs_zero_point - r : 0,
                                                             ties ? q.lhs_zero_point + r : 255));
  x.weights = AlignedBuffer<std::uint8_t>(rnd.values<std::uint8_t>(
      n * k, ties ? q.rhs_zero_points[0] - r : 0, ties ? q.rhs_zero_points[0] + r : 255));
  const AccumulatorStats st =
      accumulator_stats(x.a.data(), x.weights.data(), c.shape, q.lhs_zero_point, q.rhs_zero_points);
  q.bias.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double noise = ties ? rnd.uniform(-8, 8) : rnd.uniform(-1000, 1000) * 1e-3 * st.sd;
    q.bias[j] = static_cast<std::int32_t>(std::llround(-st.channel_mean[j] + noise));
  }
  x.weight_scales.resize(c.per_channel() ? n : 1);
  if (ties) {
    // Effective scales 2^-2 .. 2^-4 (halves at both rounding stages), or, for K <= 7, 2, 1 and
    // 1/2: a left shift (exponent > 0) next to a right one.
    x.input_scale = 0.5f;
    for (std::size_t j = 0; j < x.weight_scales.size(); ++j) {
      x.weight_scales[j] = std::ldexp(1.0f, -1 - static_cast<int>(j % 3));
    }
    x.output_scale = k <= 7 ? 0.125f : 1.0f;
  } else {
    x.input_scale = rnd.log_uniform(0.005, 0.05);
    for (float& s : x.weight_scales) s = rnd.log_uniform(0.002, 0.02);
    x.output_scale = spread_output_scale(x.input_scale, x.weight_scales[0], st.sd);
  }
  return x;
}

/// Runs gemmlowp (`kernel`) on the case and compares with qparity under `preset_name`, whose
/// derivation also gives gemmlowp its multipliers. Sets *skip (the reason; the tests fail then) when the CPU
/// lacks `kernel`.
OracleComparison run_case(const OracleCase& c, GemmlowpKernel kernel,
                          const std::string& preset_name, std::string* skip) {
  if (!qparity_peers::gemmlowp_kernel_supported(kernel)) {
    *skip = std::string("this CPU cannot run gemmlowp's ") + qparity_peers::to_string(kernel) +
            " build";
    return {};
  }
  GemmlowpCase x = make_case(c);
  const qparity::Preset preset = qparity::find_preset(preset_name);
  std::vector<qparity::RequantParams> params;
  x.q.multipliers.clear();
  x.q.exponents.clear();
  for (float s_w : x.weight_scales) {
    params.push_back(qparity::derive_requant_params(preset, x.input_scale, s_w, x.output_scale));
    x.q.multipliers.push_back(params.back().multiplier);
    x.q.exponents.push_back(params.back().shift);
  }
  std::string error;
  auto peer = qparity_peers::GemmlowpGemm::create(x.shape, x.weights.data(), x.q, kernel, &error);
  if (!peer) {
    ADD_FAILURE() << error;
    return {};
  }
  AlignedBuffer<std::uint8_t> peer_c(x.shape.m * x.shape.n);
  peer->run(x.a.data(), peer_c.data());

  // qparity's int8 weights: every uint8 weight and weight zero point minus 128.
  AlignedBuffer<std::int8_t> weights_s8(x.shape.n * x.shape.k);
  for (std::size_t i = 0; i < weights_s8.size(); ++i) {
    weights_s8[i] = static_cast<std::int8_t>(static_cast<int>(x.weights[i]) - 128);
  }
  std::vector<std::int32_t> zero_points_s8;
  for (std::int32_t zp : x.q.rhs_zero_points) zero_points_s8.push_back(zp - 128);

  qparity::GemmProblem<std::uint8_t, std::uint8_t> g;
  g.m = x.shape.m;
  g.n = x.shape.n;
  g.k = x.shape.k;
  g.a = x.a.data();
  g.a_zero_point = x.q.lhs_zero_point;
  g.b = weights_s8.data();
  g.b_layout = qparity::WeightLayout::kNxK;
  g.b_zero_points = zero_points_s8.data();
  g.b_zero_point_per_channel = zero_points_s8.size() > 1;
  g.bias = x.q.bias.data();
  g.params = params.data();
  g.per_channel = params.size() > 1;
  g.output = qparity::OutputParams{x.q.output_zero_point, x.q.clamp_min, x.q.clamp_max};
  return compare_with_qparity(g, preset.core, preset.accumulator, peer_c.data());
}

std::vector<OracleCase> per_tensor_cases() {
  std::vector<OracleCase> cases;
  for (const OracleCase& c : oracle_cases()) {
    if (!c.per_channel()) cases.push_back(c);
  }
  return cases;
}

class GemmlowpAvx2Oracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(GemmlowpAvx2Oracle, MatchesGemmlowpBitExactly) {
  std::string skip;
  const OracleComparison r = run_case(GetParam(), GemmlowpKernel::kAvx2, "gemmlowp", &skip);
  // gemmlowp is compiled in, so every x86-64 CPU this project targets must run the build.
  ASSERT_TRUE(skip.empty()) << skip;
  EXPECT_TRUE(r.all_equal());
}

INSTANTIATE_TEST_SUITE_P(Cases, GemmlowpAvx2Oracle, ::testing::ValuesIn(oracle_cases()),
                         OracleCaseName());

class GemmlowpSse41Oracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(GemmlowpSse41Oracle, MatchesGemmlowpBitExactly) {
  std::string skip;
  const OracleComparison r = run_case(GetParam(), GemmlowpKernel::kSse41, "gemmlowp", &skip);
  // gemmlowp is compiled in, so every x86-64 CPU this project targets must run the build.
  ASSERT_TRUE(skip.empty()) << skip;
  EXPECT_TRUE(r.all_equal());
}

INSTANTIATE_TEST_SUITE_P(Cases, GemmlowpSse41Oracle, ::testing::ValuesIn(per_tensor_cases()),
                         OracleCaseName());

// The oracle can tell arithmetics apart: ruy's x86 kernels (`ruy-x86`, DR-UP) round the second
// stage's negative halves up where gemmlowp's RoundingDivideByPOT rounds them away from zero.
TEST(GemmlowpOracleSensitivity, DrUpPresetDisagreesOnTies) {
  GemmlowpKernel kernel;
  ASSERT_TRUE(qparity_peers::best_gemmlowp_kernel(&kernel)) << "no gemmlowp build runs on this CPU";
  std::string skip;
  const OracleComparison r =
      run_case({{17, 63, 63}, Variant::kTiesPerTensor}, kernel, "ruy-x86", &skip);
  // gemmlowp is compiled in, so every x86-64 CPU this project targets must run the build.
  ASSERT_TRUE(skip.empty()) << skip;
  EXPECT_GT(r.reference_mismatches(), 0u);
}

}  // namespace
}  // namespace qparity_oracle
