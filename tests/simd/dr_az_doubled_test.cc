// The AVX-512 DR-AZ core of the fused GEMM and depthwise epilogues (rounding/requantize_x86.h
// dr_az_doubled_core: an unsigned product by 2M and a logical / arithmetic shift pair, which
// leaves int32 for x' >= 0 and large M) on all 2^32 accumulators, 32 parameter sets in the
// high-half mode (shift <= -1): the exhaustive sets of exhaustive_params.h with shift <= -1, M
// at and around 2^30 (power of two: exact ties), M near 2^31 with small R (where T passes 2^31),
// R from 1 to 31, M = 0, 1, 2, 3.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dr_az_doubled_sweep.h"
#include "qparity/isa.h"

namespace {

qparity::RequantParams q31(std::int32_t m, std::int32_t shift) {
  qparity::RequantParams p;
  p.multiplier = m;
  p.shift = shift;
  return p;
}

constexpr std::int32_t kMax = 2147483647;
constexpr std::int32_t k30 = 1 << 30;

bool has_avx512() {
  return (qparity::supported_isas() & qparity::mask_of(qparity::Isa::kAvx512)) != 0;
}

TEST(DrAzDoubledCore, EveryAccumulatorExhaustiveSets) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU";
  const std::vector<qparity::RequantParams> p = {
      q31(k30, -1),  q31(k30, -31), q31(kMax, -31), q31(0, -31), q31(1, -31), q31(2034096511, -8),
      q31(1288490189, -1), q31(1471026299, -10), q31(1844674407, -31), q31(kMax, -1), q31(kMax, -2),
      q31(kMax, -3), q31(kMax, -5), q31(k30, -2), q31(k30 + 1, -2), q31(0, -1)};
  EXPECT_EQ(qparity_test::dr_az_doubled_sweep_avx512(p.data()), "");
}

TEST(DrAzDoubledCore, EveryAccumulatorMoreSets) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU";
  const std::vector<qparity::RequantParams> p = {
      q31(kMax - 1, -2), q31(kMax, -30), q31(k30 - 1, -1), q31(k30 - 1, -3), q31(1, -1), q31(2, -1),
      q31(3, -2), q31(kMax / 3, -4), q31(1500000000, -7), q31(2000000000, -12), q31(k30 + (k30 >> 1), -16),
      q31(1073741825, -20), q31(1999999999, -24), q31(kMax - 7, -27), q31(123456789, -6),
      q31(2147418112, -9)};
  EXPECT_EQ(qparity_test::dr_az_doubled_sweep_avx512(p.data()), "");
}

}  // namespace
