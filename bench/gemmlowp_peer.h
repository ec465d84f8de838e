// The gemmlowp peer: per-tensor DR-AZ requantization written with gemmlowp's SIMD fixed-point
// primitives (fixedpoint/fixedpoint_sse.h, fixedpoint_avx.h), the way a gemmlowp output pipeline
// (OutputStageScaleInt32ByFixedPointAndExponent, offset, OutputStageClamp,
// OutputStageSaturatingCastToInt8) evaluates it:
//   y = saturate_int8(clamp(RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc, M), R) + zp,
//                          qmin, qmax))
// Each ISA variant lives in its own translation unit compiled with that ISA's flags; this header
// uses baseline types only, so it is safe to include anywhere.
//
// Per-channel is not offered: gemmlowp's x86 RoundingDivideByPOT takes one scalar exponent per
// register (only its NEON back-end has a per-lane shift), so a per-channel shift along the
// contiguous dimension has no natural gemmlowp form.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qparity_bench {

struct GemmlowpPeerParams {
  std::int32_t multiplier = 0;  ///< Q31, >= 0
  int right_shift = 0;          ///< R = -shift in [0, 31] (left shifts are not handled)
  std::int32_t zero_point = 0;
  std::int32_t qmin = -128;     ///< inclusive, zero point included, within int8
  std::int32_t qmax = 127;
};

/// SSE4.1 (__m128i, 16 elements per iteration). Requires an SSE4.1 CPU.
void gemmlowp_requantize_sse4(const GemmlowpPeerParams& p, const std::int32_t* acc, std::size_t n,
                              std::int8_t* dst);

/// AVX2 (__m256i, 32 elements per iteration). Requires an AVX2 CPU.
void gemmlowp_requantize_avx2(const GemmlowpPeerParams& p, const std::int32_t* acc, std::size_t n,
                              std::int8_t* dst);

}  // namespace qparity_bench
