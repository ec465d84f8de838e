// gemmlowp cross-check, QUICK (label unit): the same comparisons as gemmlowp_crosscheck_test.cc
// on a strided subset of the int32 inputs (runs of 64 consecutive values every 65521, plus dense
// windows around 0, ±2^29, ±2^30 and the int32 extremes). docs/semantics.md §2.1, §2.2, §3.2.
#include <gtest/gtest-spi.h>

#include "gemmlowp_crosscheck.h"

namespace {

using namespace gemmlowp_crosscheck;

constexpr std::uint32_t kStride = 65521;  // prime: the 64-value runs visit varied low bits

#define QPARITY_SRDHM_TEST(Name, M) \
  TEST(ReferenceGemmlowpStrided, Srdhm_##Name) { CheckSrdhm(M, kStride); }
QPARITY_GEMMLOWP_SRDHM_CASES(QPARITY_SRDHM_TEST)

#define QPARITY_RDBPOT_TEST(E) \
  TEST(ReferenceGemmlowpStrided, Rdbpot_Exponent##E) { CheckRdbpot(E, kStride); }
QPARITY_GEMMLOWP_RDBPOT_CASES(QPARITY_RDBPOT_TEST)

TEST(ReferenceGemmlowpStrided, RdbpotEveryExponent) {
  for (int e = 0; e <= 31; ++e) {
    SCOPED_TRACE(e);
    CheckRdbpot(e, kStride * 4);
  }
}

#define QPARITY_DR_TEST(Name, M, Shift) \
  TEST(ReferenceGemmlowpStrided, DrAz_##Name) { CheckDoubleRoundingAwayFromZero<Shift>(M, kStride); }
QPARITY_GEMMLOWP_DR_CASES(QPARITY_DR_TEST)

// The sweep can fail: a half-up shift is not gemmlowp's RDBPOT (they differ on negative ties),
// and a constant-zero function is flagged when nonzero output is expected.
TEST(ReferenceGemmlowpStrided, SweepDetectsAMutant) {
  EXPECT_NONFATAL_FAILURE(
      Sweep("mutant", kStride, true,
            [](std::int32_t x) { return qparity::rounding_shift_right_half_up(x, 1); },
            [](std::int32_t x) { return gemmlowp::RoundingDivideByPOT(x, 1); }),
      "mismatches");
  EXPECT_NONFATAL_FAILURE(
      Sweep("zero", kStride, true, [](std::int32_t) { return 0; }, [](std::int32_t) { return 0; }),
      "every output was 0");
}

}  // namespace
