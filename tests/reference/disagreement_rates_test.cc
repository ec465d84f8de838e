// How often the policies disagree on random data: docs/semantics.md §12.
// x uniform in [-2^16, 2^16), M uniform in [2^30, 2^31), shift = -R; the F32 column uses a 24-bit
// multiplier (M = M24 << 7) so that F32 and SR-UP see the same exact scale. A fixed seed makes the
// test deterministic; the tolerance is 5 binomial standard deviations plus the rounding of the
// printed table (10 % relative) plus 3 events.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "qparity/reference.h"
#include "test_util.h"

namespace {

using namespace qparity;
using qparity_test::Q31;

struct RateRow {
  int r;
  // Percentages as printed in §12.
  double dr_az_vs_sr_up, dr_az_vs_dr_up, sr_up_vs_dr_up, sr_up_vs_sr_even, sr_up_vs_sr_az, f32_vs_sr_up;
};

const RateRow kRows[] = {
    {1, 25.0, 25.0, 25.0, 0, 0, 0.057},       {2, 12.4, 12.5, 12.5, 0, 0, 0.026},
    {3, 6.25, 6.23, 6.24, 0, 0, 0.014},       {4, 3.12, 3.12, 3.10, 0, 0, 0.0068},
    {5, 1.57, 1.56, 1.56, 0, 0, 0.0031},      {6, 0.78, 0.78, 0.78, 0, 0, 0.0015},
    {7, 0.40, 0.39, 0.39, 0, 0, 0.0007},      {8, 0.20, 0.19, 0.20, 0, 0, 0.0004},
    {10, 0.047, 0.048, 0.049, 0, 0, 0.00005}, {12, 0.013, 0.012, 0.013, 0, 0, 0.00005},
    {16, 0.0014, 0.0007, 0.0009, 0, 0, 0},
};

constexpr std::uint64_t kSamples = 2000000;  // as in §12

void ExpectRate(const char* what, std::uint64_t count, double table_percent) {
  const double p = table_percent / 100.0;
  const double expected = p * kSamples;
  const double sigma = std::sqrt(kSamples * p * (1 - p));
  const double tol = 5 * sigma + 0.10 * expected + 3;
  EXPECT_NEAR(static_cast<double>(count), expected, tol)
      << what << ": observed " << 100.0 * count / kSamples << " %, table " << table_percent << " %";
}

class DisagreementRates : public ::testing::TestWithParam<RateRow> {};

TEST_P(DisagreementRates, MatchesTable12) {
  const RateRow row = GetParam();
  std::mt19937_64 rng(0x5eed0000u + row.r);
  std::uniform_int_distribution<std::int32_t> xs(-(1 << 16), (1 << 16) - 1);
  std::uniform_int_distribution<std::int32_t> ms(1 << 30, 2147483647);
  std::uniform_int_distribution<std::int32_t> m24s(1 << 23, (1 << 24) - 1);
  std::uint64_t az_sr = 0, az_up = 0, sr_up = 0, sr_even = 0, sr_az = 0, f32_sr = 0, max_diff = 0;
  for (std::uint64_t i = 0; i < kSamples; ++i) {
    const std::int32_t x = xs(rng);
    const RequantParams p = Q31(ms(rng), -row.r);
    const std::int32_t a = DoubleRoundingAwayFromZero::requantize(x, p);
    const std::int32_t u = DoubleRoundingUpward::requantize(x, p);
    const std::int32_t s = SingleRoundingUpward::requantize(x, p);
    az_sr += a != s;
    az_up += a != u;
    sr_up += s != u;
    sr_even += s != SingleRoundingToEven::requantize(x, p);
    sr_az += s != SingleRoundingAwayFromZero::requantize(x, p);
    const std::uint64_t d = static_cast<std::uint64_t>(std::abs(std::int64_t{a} - s));
    max_diff = d > max_diff ? d : max_diff;
    // F32 vs SR-UP on the same exact 24-bit scale.
    const std::int32_t m24 = m24s(rng);
    const RequantParams q = Q31(m24 << 7, -row.r);
    const float scale = std::ldexp(static_cast<float>(m24), -23 - row.r - 1);
    RequantParams f;
    f.scale = scale;
    f32_sr += Float32Rounding::requantize(x, f) != SingleRoundingUpward::requantize(x, q);
  }
  ExpectRate("DR-AZ != SR-UP", az_sr, row.dr_az_vs_sr_up);
  ExpectRate("DR-AZ != DR-UP", az_up, row.dr_az_vs_dr_up);
  ExpectRate("SR-UP != DR-UP", sr_up, row.sr_up_vs_dr_up);
  ExpectRate("SR-UP != SR-EVEN", sr_even, row.sr_up_vs_sr_even);
  ExpectRate("SR-UP != SR-AZ", sr_az, row.sr_up_vs_sr_az);
  ExpectRate("F32 != SR-UP (same 24-bit scale)", f32_sr, row.f32_vs_sr_up);
  // "always by exactly 1 LSB" (§1).
  EXPECT_LE(max_diff, 1u);
  std::printf("R=%d: DR-AZ!=SR-UP %.4f%%  DR-AZ!=DR-UP %.4f%%  SR-UP!=DR-UP %.4f%%  SR-UP!=SR-EVEN %.4f%%  "
              "SR-UP!=SR-AZ %.4f%%  F32!=SR-UP %.5f%%\n",
              row.r, 100.0 * az_sr / kSamples, 100.0 * az_up / kSamples, 100.0 * sr_up / kSamples,
              100.0 * sr_even / kSamples, 100.0 * sr_az / kSamples, 100.0 * f32_sr / kSamples);
}

INSTANTIATE_TEST_SUITE_P(Reference, DisagreementRates, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<RateRow>& info) {
                           return "R" + std::to_string(info.param.r);
                         });

}  // namespace
