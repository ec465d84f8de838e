// The 16 parameter sets per rounding core that the exhaustive tests run over all accumulators.
//
// Fixed-point cores (DR-*, SR-*, TRUNC, FLOOR): shift extremes -31 and 30, -1 and 0; multipliers
// 0, 1, 2^30 (power of two: exact ties) and 2^31 - 1; realistic TFLite multipliers
// (docs/semantics.md §11.2, §11.8); left shifts that make the pre-shift wrap (DR-*, SR-UP-NEON) and
// results that wrap mod 2^32 (SR-* with shift > 0).
// Q15: its own range, multiplier [0, 32767] and shift [-47, 13], same kinds of values.
// F32 / F32-ZPF: exact power-of-two scales (ties), realistic float-composed scales (§11.6), tiny
// and huge scales (products that overflow int32 and float), biases and post-scales of oneDNN's
// two-step form.
#pragma once

#include <cstdint>
#include <vector>

#include "qparity/requant_params.h"

namespace qparity_test {

inline qparity::RequantParams q31(std::int32_t multiplier, std::int32_t shift) {
  qparity::RequantParams p;
  p.multiplier = multiplier;
  p.shift = shift;
  return p;
}

inline qparity::RequantParams f32(float scale, float bias = 0.0f, float post_scale = 1.0f) {
  qparity::RequantParams p;
  p.scale = scale;
  p.bias = bias;
  p.post_scale = post_scale;
  return p;
}

inline std::vector<qparity::RequantParams> exhaustive_params(qparity::RoundingCore core) {
  using qparity::RoundingCore;
  constexpr std::int32_t kMax = 2147483647;
  constexpr std::int32_t k2p30 = 1 << 30;
  switch (core) {
    case RoundingCore::kQ15:
      return {q31(16384, 0),  q31(16384, -1),  q31(16384, -47), q31(16384, 13),
              q31(32767, -47), q31(32767, 13), q31(32767, 0),   q31(0, 0),
              q31(0, -47),    q31(1, 13),      q31(25891, -6),  q31(19626, -8),
              q31(29290, -1), q31(32767, -16), q31(12345, 5),   q31(16384, -31)};
    case RoundingCore::kFloat32:
      return {f32(0.5f),         f32(0.25f),        f32(1.0f),        f32(0x1p-31f),
              f32(1.5f),         f32(0.0037f),      f32(0.3f),        f32(255.9f),
              f32(1e10f),        f32(1e-30f),       f32(0x1p-24f),    f32(0.000459602539f),
              f32(3.0f),         f32(1.0f / 3.0f),  f32(65536.0f),    f32(3.0e38f)};
    case RoundingCore::kFloat32ZeroPointInside:
      return {f32(0.5f),
              f32(0.25f),
              f32(1.0f),
              f32(0x1p-31f),
              f32(1.5f, 0.5f),
              f32(0.0037f, 0.25f, 1.0f / 0.0273668021f),
              f32(0.3f, -0.5f, 2.0f),
              f32(1e10f),
              f32(1e-30f, 1e-30f, 1e10f),
              f32(0.5f, 0.5f),
              f32(0.5f, -0.5f, 0.5f),
              f32(1.0f, 1e9f),
              f32(1.0f, -3e9f),
              f32(0x1p-24f, 0.5f, 3.0f),
              f32(0.00140596379f * 0.00894607045f, 0.1f, 1.0f / 0.0273668021f),
              f32(65536.0f, 0.0f, 65536.0f)};
    default:  // the Q31 fixed-point cores
      return {q31(k2p30, 0),      q31(k2p30, -1),       q31(k2p30, -31),      q31(k2p30, 30),
              q31(kMax, -31),     q31(kMax, 30),        q31(kMax, 0),         q31(0, 0),
              q31(0, -31),        q31(1, -31),          q31(2034096511, -8),  q31(1288490189, -1),
              q31(1471026299, -10), q31(1844674407, -31), q31(1610612736, 1), q31(1500000000, 7)};
  }
}

}  // namespace qparity_test
