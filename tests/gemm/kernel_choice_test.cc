// Which micro-kernels a PackedGemm runs a call on (kernels/gemm/packed_gemm.cc, blocking_for), and
// that a call whose kernels read A in different formats from the one packed B gets the reference's
// bits: AMX packs A as 64-byte rows (kRows64, int8 activations as they are) but runs calls of at
// most kNarrowMaxRows rows on AVX-512 VNNI's kDot4 kernel (A + 128 for int8 activations), so the
// activation offset and the folded column terms must follow the kernel, not the PackedGemm.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "isa_coverage.h"
#include "kernels/gemm/packed_gemm_data.h"
#include "kernels/support/packed_access.h"
#include "qparity/gemm.h"
#include "qparity/reference_gemm.h"

namespace {

using namespace qparity;

GemmWeights weights(std::size_t n, std::size_t k, const std::vector<std::int8_t>& b, const RequantParams& p) {
  GemmWeights w;
  w.n = n;
  w.k = k;
  w.b = b.data();
  w.params = &p;
  return w;
}

// The few-row kernel is the ISA's own or its nearest ancestor's that reads the same packed B: every
// x86 path from AVX2 on has one (amx AVX-512 VNNI's, the others their own); the portable kernels
// (scalar, and sse41, which runs them) have none. (Weights of 100: pairs could saturate, so
// the exact int32 model stays on the exact kernels instead of the pair-saturating ones.)
TEST(GemmKernelChoice, FewRowCallsRunAnExactNarrowKernelWhereTheChainHasOne) {
  const std::vector<std::int8_t> b(64 * 128, 100);
  const RequantParams p{1 << 30, -8};
  for (Isa isa : qparity_test::supported_isa_list()) {
    SCOPED_TRACE(to_string(isa));
    const PackedGemm packed(isa, weights(64, 128, b, p), RoundingCore::kDoubleRoundingAwayFromZero);
    const internal::PackedGemmData& d = internal::packed_data(packed);
    const bool expect_narrow = isa != Isa::kScalar && isa != Isa::kSse41;
    ASSERT_EQ(d.narrow.fn != nullptr, expect_narrow);
    if (expect_narrow) {
      EXPECT_TRUE(internal::shares_packed_b(d.narrow.format, d.kernel.format));
      for (std::size_t m = 1; m <= internal::kNarrowMaxRows; ++m) {
        EXPECT_EQ(internal::blocking_for(d, m).kernel, &d.narrow) << "m " << m;
      }
      EXPECT_EQ(internal::blocking_for(d, internal::kNarrowMaxRows + 1).kernel, &d.kernel);
    }
    if (isa == Isa::kAmx) {
      EXPECT_EQ(d.kernel.format, internal::PackFormat::kRows64);
      EXPECT_EQ(d.narrow.format, internal::PackFormat::kDot4);
      EXPECT_EQ(std::string(d.narrow.name).rfind("avx512vnni-", 0), 0u) << d.narrow.name;
    }
    qparity_test::note_isa_exercised(isa);
  }
}

// A set's exact kernel serves K from its exact_min_k on; shorter K runs the nearest ancestor's
// (AMX: AVX-512 VNNI's below 64), with that set's one-panel and row-tail kernels and fused epilogue.
TEST(GemmKernelChoice, ShortKRunsTheAncestorsKernelsBelowTheSetsLeastK) {
  for (Isa isa : qparity_test::supported_isa_list()) {
    SCOPED_TRACE(to_string(isa));
    for (std::size_t k : {1, 16, 27, 32, 60, 63, 64, 65, 300}) {
      const std::vector<std::int8_t> b(16 * k, 100);
      const RequantParams p{1 << 30, -8};
      const PackedGemm packed(isa, weights(16, k, b, p), RoundingCore::kDoubleRoundingAwayFromZero);
      const internal::PackedGemmData& d = internal::packed_data(packed);
      EXPECT_EQ(std::string(d.kernel.name).rfind(std::string(to_string(d.kernel_isa)) + "-", 0), 0u)
          << d.kernel.name << " k " << k;
      if (isa == Isa::kAmx) {
        EXPECT_EQ(d.kernel_isa, k >= 64 ? Isa::kAmx : Isa::kAvx512Vnni) << "k " << k;
        if (k < 64) {  // AVX-512 VNNI's set whole: its one-panel kernel and fused epilogue
          EXPECT_NE(d.one_panel.fn, nullptr) << "k " << k;
          EXPECT_TRUE(d.epilogue.enabled) << "k " << k;
          EXPECT_NE(d.epilogue.fused.get<std::int8_t>(), nullptr) << "k " << k;
        }
      } else if (isa != Isa::kSse41) {
        EXPECT_EQ(d.kernel_isa, isa) << "k " << k;
      }
    }
    qparity_test::note_isa_exercised(isa);
  }
}

// Rows 1..kNarrowMaxRows + 1 (the few-row kernel, then the main one) on every ISA, int8 and uint8
// activations with zero points at both ends of their range, per-tensor and per-channel weight
// zero points, bias: the reference's bits. K = 300 is not a multiple of 64 (AMX's A rows) nor of
// 4 * 16 groups; K = 30 is below AMX's least K (AVX-512 VNNI's kernels under an AMX PackedGemm);
// N = 70 leaves a partial panel.
template <class AType>
void rows_around_the_narrow_limit(std::uint32_t seed, std::size_t k) {
  std::mt19937 rng(seed);
  const std::size_t n = 70;
  std::vector<std::int8_t> b(n * k);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (auto& v : b) v = static_cast<std::int8_t>(byte(rng));
  std::vector<std::int32_t> bias(n), zb(n);
  for (std::size_t j = 0; j < n; ++j) {
    bias[j] = std::uniform_int_distribution<int>(-200000, 200000)(rng);
    zb[j] = byte(rng);
  }
  std::vector<RequantParams> params(n);
  for (auto& q : params) q = RequantParams{std::uniform_int_distribution<int>(1 << 29, (1 << 30) - 1)(rng), -12};
  const std::int32_t lo = std::is_signed<AType>::value ? -128 : 0;
  const std::int32_t hi = std::is_signed<AType>::value ? 127 : 255;
  const OutputType ot = std::is_signed<AType>::value ? OutputType::kInt8 : OutputType::kUint8;
  for (int zp_mode = 0; zp_mode < 3; ++zp_mode) {  // none, per tensor, per channel
    GemmWeights w = weights(n, k, b, params[0]);
    w.bias = bias.data();
    w.params = params.data();
    w.per_channel = true;
    if (zp_mode > 0) {
      w.zero_points = zb.data();
      w.zero_point_per_channel = zp_mode == 2;
    }
    for (Isa isa : qparity_test::supported_isa_list()) {
      const PackedGemm packed(isa, w, RoundingCore::kDoubleRoundingAwayFromZero);
      for (std::size_t m = 1; m <= internal::kNarrowMaxRows + 1; ++m) {
        for (const std::int32_t za : {lo, hi, lo + 77}) {
          std::vector<AType> a(m * k);
          std::uniform_int_distribution<int> act(lo, hi);
          for (auto& v : a) v = static_cast<AType>(act(rng));
          GemmProblem<AType, AType> g;
          g.m = m;
          g.n = n;
          g.k = k;
          g.a = a.data();
          g.a_zero_point = za;
          g.b = b.data();
          g.b_zero_points = w.zero_points;
          g.b_zero_point_per_channel = w.zero_point_per_channel;
          g.bias = bias.data();
          g.params = params.data();
          g.per_channel = true;
          g.output = full_range_output(ot, 3);
          std::vector<AType> want(m * n), got(m * n);
          g.c = want.data();
          reference::gemm(g, RoundingCore::kDoubleRoundingAwayFromZero, AccumulatorSpec{});
          GemmCall<AType, AType> call;
          call.m = m;
          call.a = a.data();
          call.a_zero_point = za;
          call.output = g.output;
          call.c = got.data();
          gemm(packed, call);
          ASSERT_EQ(got, want) << to_string(isa) << " m " << m << " za " << za << " zp mode " << zp_mode;
        }
      }
      qparity_test::note_isa_exercised(isa);
    }
  }
}

TEST(GemmKernelChoice, RowsAroundTheNarrowLimitEqualTheReferenceInt8) {
  for (std::size_t k : {30, 300}) rows_around_the_narrow_limit<std::int8_t>(7, k);
}

TEST(GemmKernelChoice, RowsAroundTheNarrowLimitEqualTheReferenceUint8) {
  for (std::size_t k : {30, 300}) rows_around_the_narrow_limit<std::uint8_t>(8, k);
}

}  // namespace
