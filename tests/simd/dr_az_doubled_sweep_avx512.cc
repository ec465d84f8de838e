// The AVX-512 half of dr_az_doubled_test.cc: rounding/requantize_x86.h's DR-AZ core of the fused
// GEMM and depthwise epilogues (dr_az_doubled_core, high-half mode) on all 2^32 accumulators,
// compiled with the avx512 flags in its own namespace (see the ODR note in rounding/simd_x86.h).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC PR 105593 (see requantize_avx512.cc)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_ISA_NS dr_az_doubled_test_avx512
#include <string>

#include "dr_az_doubled_sweep.h"
#include "qparity/policy_double_rounding.h"
#include "rounding/requantize_x86.h"

namespace qparity_test {

std::string dr_az_doubled_sweep_avx512(const qparity::RequantParams* params) {
  using namespace qparity::internal::dr_az_doubled_test_avx512;
  using qparity::DoubleRoundingAwayFromZero;
  // The registers as the epilogues hold them: the plan of 16 channels (one parameter set per
  // lane), then dr_az_doubled_regs (GEMM: build_plan_with; depthwise: pack_epilogue's same values).
  IntSoA soa;
  const IntSoA::Flags f = soa.fill(qparity::RoundingCore::kDoubleRoundingAwayFromZero, params, 16);
  if (!f.high) return "a parameter set is not in the high-half mode";
  const IntRegs plan = soa.at(0);
  const IntRegs doubled = dr_az_doubled_regs(plan);
  std::string err;
  auto check_scalar = [&](std::int32_t x, const I got) {
    alignas(64) std::int32_t g[16];
    Ops::store(g, got);
    for (int l = 0; l < 16; ++l) {
      const std::int32_t want = DoubleRoundingAwayFromZero::requantize(x, params[l]);
      if (g[l] != want && err.empty()) {
        err = "acc " + std::to_string(x) + " M " + std::to_string(params[l].multiplier) + " shift " +
              std::to_string(params[l].shift) + ": " + std::to_string(g[l]) + ", policy " +
              std::to_string(want);
      }
    }
  };
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32) && err.empty(); ++u) {
    const auto x = static_cast<std::int32_t>(static_cast<std::uint32_t>(u));
    const I xv = Ops::set1(x);
    const I got = f.pre ? dr_az_doubled_core<true>(xv, doubled) : dr_az_doubled_core<false>(xv, doubled);
    // Every accumulator against int_core's 32-bit DR-AZ form (the separate pass's, proven on all
    // accumulators by requantize_exhaustive_test.cc); the scalar policy itself on every 61st
    // accumulator and the 2^20 around 0 and around each int32 limit.
    const I ref = f.pre ? int_core<IntForm::kSignedOffset, true, true, false>(xv, plan)
                        : int_core<IntForm::kSignedOffset, false, true, false>(xv, plan);
    const std::uint32_t v = static_cast<std::uint32_t>(u);
    if (_mm512_cmpneq_epi32_mask(got, ref) != 0 || v % 61 == 0 || v + (1u << 19) < (1u << 20) ||
        v - (1u << 31) + (1u << 19) < (1u << 20)) {
      check_scalar(x, got);
    }
  }
  return err;
}

}  // namespace qparity_test
