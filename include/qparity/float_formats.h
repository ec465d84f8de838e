// The 16-bit float formats GPUs, NPUs and AI accelerators store activations in, converted to and
// from float32 in portable code (no F16C or AVX-512 BF16 needed): the reference that the
// precision-emulating arithmetics and the tool's float16 dumps use, and the oracle their SIMD
// conversions are checked against. docs/semantics.md §23.
//
// binary16 (IEEE 754-2008 half precision): 1 sign, 5 exponent (bias 15), 10 fraction bits; normal
// numbers 2^-14 .. 65504, subnormals down to 2^-24.
//   float16_to_float   exact (every binary16 value is a float32); a NaN keeps its sign and payload
//                      and comes out quiet (VCVTPH2PS, ARM's FCVT).
//   float_to_float16   round to nearest, ties to even, on the 11-bit significand, with gradual
//                      underflow (subnormal results rounded the same way) and overflow to
//                      infinity from 65520 up (65504 + half an ulp, which ties to even = infinity).
//                      NaN stays NaN: sign kept, the quiet bit set, the top 9 payload bits kept
//                      (what x86's VCVTPS2PH and ARM's FCVT do, so a signalling NaN's payload is
//                      not lost). Independent of the floating-point environment (MXCSR's rounding
//                      mode and FTZ/DAZ are not consulted).
// bfloat16: the top 16 bits of a float32 (1 sign, 8 exponent, 7 fraction bits).
//   bfloat16_to_float  exact.
//   float_to_bfloat16  round to nearest, ties to even, on the 8-bit significand, subnormals kept
//                      (rounded like normals), overflow to infinity; NaN: sign and top 7 payload
//                      bits kept, the quiet bit set (PyTorch's and TensorFlow's rounding
//                      conversion). x86's VCVTNEPS2BF16 differs on subnormal inputs only: it
//                      flushes them to a signed zero (float_to_bfloat16_daz below).
#pragma once

#include <cstdint>
#include <cstring>

namespace qparity {

/// The float32 value of the binary16 bit pattern `h` (exact).
inline float float16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t fraction = h & 0x3FFu;
  std::uint32_t bits = 0;
  if (exponent == 0x1F) {
    // Infinity, or a NaN: payload kept, quiet bit set (as VCVTPH2PS and ARM's FCVT do).
    bits = sign | 0x7F800000u | (fraction << 13) | (fraction != 0 ? 0x00400000u : 0u);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (fraction << 13);  // 112 = 127 - 15
  } else if (fraction == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal: fraction * 2^-24. Normalise: shift until the implicit bit (bit 10) is set.
    std::uint32_t e = 113;  // the exponent field of 2^-14, decremented once per shift
    while ((fraction & 0x400u) == 0) {
      fraction <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((fraction & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The binary16 bit pattern nearest to `f` (ties to even; see the header comment for NaN,
/// overflow and underflow).
inline std::uint16_t float_to_float16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) {  // NaN: quiet, top payload bits kept
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
  }
  if (abs >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // >= 65536 or inf
  const std::uint32_t exponent = abs >> 23;
  if (exponent >= 113) {
    // Normal binary16 range (2^-14 and up): drop 13 fraction bits with round-half-even; a carry out
    // of the fraction increments the exponent, up to infinity (65520 and above), as it must.
    const std::uint32_t rebased = abs - (112u << 23);
    const std::uint32_t half = rebased >> 13;
    const std::uint32_t rest = rebased & 0x1FFFu;
    const std::uint32_t round_up = rest > 0x1000u || (rest == 0x1000u && (half & 1u));
    return static_cast<std::uint16_t>(sign | (half + round_up));
  }
  if (exponent < 102) return sign;  // below 2^-25: rounds to zero (2^-25 itself ties to even 0)
  // Subnormal result: the significand with its implicit bit, shifted to units of 2^-24.
  const std::uint32_t significand = (abs & 0x7FFFFFu) | 0x800000u;
  const std::uint32_t shift = 126 - exponent;  // 14 .. 24 bits dropped
  const std::uint32_t kept = significand >> shift;
  const std::uint32_t rest = significand & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  const std::uint32_t round_up = rest > halfway || (rest == halfway && (kept & 1u));
  return static_cast<std::uint16_t>(sign | (kept + round_up));  // may carry into the smallest normal
}

/// The float32 value of the bfloat16 bit pattern `b` (exact).
inline float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The bfloat16 bit pattern nearest to `f` (ties to even; NaN quieted).
inline std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  // Adding 0x7FFF plus the kept part's lowest bit rounds half to even; a carry propagates into the
  // exponent (and up to infinity), which is the correct rounding of the largest values.
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

/// x86 VCVTNEPS2BF16's conversion: float_to_bfloat16 after flushing a subnormal input to a signed
/// zero (the instruction treats denormal inputs as zero regardless of MXCSR.DAZ).
inline std::uint16_t float_to_bfloat16_daz(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7F800000u) == 0) return static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  return float_to_bfloat16(f);
}

}  // namespace qparity
