// Independent models of the float16 / bfloat16 conversions (include/qparity/float_formats.h) for
// its tests: values decoded with ldexp from the fields, rounding decided by comparing the input
// with the exact midpoint between two neighbouring representable values (walked in increasing
// order, so an exhaustive sweep is linear), and the x86 conversion instructions where the CPU has
// them (F16C's VCVTPS2PH / VCVTPH2PS, AVX-512 BF16's VCVTNEPS2BF16).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace qparity_float_formats_test {

inline float bits_to_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

inline std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

/// The value of a finite, non-negative binary16 pattern from its fields (no bit tricks).
inline double half_value(std::uint16_t h) {
  const int e = (h >> 10) & 0x1F;
  const int m = h & 0x3FF;
  return e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
}

/// The value of a finite, non-negative bfloat16 pattern from its fields.
inline double bf16_value(std::uint16_t b) {
  const int e = (b >> 7) & 0xFF;
  const int m = b & 0x7F;
  return e == 0 ? std::ldexp(m, -133) : std::ldexp(128 + m, e - 134);
}

/// Round-half-even onto a monotonic grid, for inputs visited in increasing order: `next` is the
/// pattern after `current`, `value` decodes a pattern, `top` is the first pattern past the finite
/// ones (infinity), whose value for rounding is the would-be next binade (65536 for binary16).
template <class Decode>
struct GridWalker {
  Decode value;
  std::uint16_t top;
  double top_value;
  std::uint16_t current = 0;

  std::uint16_t round(double x) {
    while (current < top) {
      const double lo = value(current);
      const double hi = current + 1 == top ? top_value : value(static_cast<std::uint16_t>(current + 1));
      const double mid = (lo + hi) / 2;  // exact: both have few significant bits
      if (x > mid || (x == mid && (current & 1u))) {
        ++current;
      } else {
        break;
      }
    }
    return current;
  }
};

/// Whether this CPU converts with F16C / AVX-512 BF16.
inline bool cpu_has_f16c() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("f16c");
#else
  return false;
#endif
}

inline bool cpu_has_avx512bf16() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

#if defined(__x86_64__)
/// 8 floats to binary16 with VCVTPS2PH (round to nearest even, independent of MXCSR).
__attribute__((target("f16c,avx"))) inline void hw_float_to_half8(const float* in, std::uint16_t* out) {
  const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), h);
}

__attribute__((target("f16c,avx"))) inline void hw_half_to_float8(const std::uint16_t* in, float* out) {
  _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))));
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define QPARITY_TEST_HAVE_BF16_INTRINSICS 1
/// 16 floats to bfloat16 with VCVTNEPS2BF16.
__attribute__((target("avx512bf16,avx512f"))) inline void hw_float_to_bf16_16(const float* in, std::uint16_t* out) {
  const __m256bh b = _mm512_cvtneps_pbh(_mm512_loadu_ps(in));
  std::memcpy(out, &b, 32);
}
#endif

}  // namespace qparity_float_formats_test
