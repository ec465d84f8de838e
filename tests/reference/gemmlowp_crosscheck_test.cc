// gemmlowp cross-check, EXHAUSTIVE (label exhaustive): qparity's saturating_rounding_doubling_high_mul,
// rounding_divide_by_pot and DR-AZ policy against gemmlowp's own scalar
// SaturatingRoundingDoublingHighMul / RoundingDivideByPOT (Debian libgemmlowp-dev) for ALL 2^32
// int32 inputs, one GoogleTest case per parameter so that `ctest -j` runs them in parallel.
// docs/semantics.md §2.1, §2.2, §3.2, §13.
#include "gemmlowp_crosscheck.h"

namespace {

using namespace gemmlowp_crosscheck;

#define QPARITY_SRDHM_TEST(Name, M) \
  TEST(ReferenceGemmlowpExhaustive, Srdhm_##Name) { CheckSrdhm(M, 1); }
QPARITY_GEMMLOWP_SRDHM_CASES(QPARITY_SRDHM_TEST)

#define QPARITY_RDBPOT_TEST(E) \
  TEST(ReferenceGemmlowpExhaustive, Rdbpot_Exponent##E) { CheckRdbpot(E, 1); }
QPARITY_GEMMLOWP_RDBPOT_CASES(QPARITY_RDBPOT_TEST)

#define QPARITY_DR_TEST(Name, M, Shift) \
  TEST(ReferenceGemmlowpExhaustive, DrAz_##Name) { CheckDoubleRoundingAwayFromZero<Shift>(M, 1); }
QPARITY_GEMMLOWP_DR_CASES(QPARITY_DR_TEST)

}  // namespace
