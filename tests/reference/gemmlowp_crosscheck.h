// Shared body of the gemmlowp cross-check (gemmlowp_crosscheck_test.cc: all 2^32 int32 inputs,
// label exhaustive; gemmlowp_crosscheck_strided_test.cc: a strided subset, label unit).
//
// The other side is gemmlowp's own scalar code from the Debian package (libgemmlowp-dev,
// /usr/include/gemmlowp/fixedpoint/fixedpoint.h): gemmlowp::SaturatingRoundingDoublingHighMul and
// gemmlowp::RoundingDivideByPOT, and DR-AZ composed from them exactly as TFLite's
// MultiplyByQuantizedMultiplier does: RDBPOT(SRDHM(x * 2^L wrapping, M), R)
// (docs/semantics.md §3.2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fixedpoint/fixedpoint.h"
#include "qparity/fixed_point.h"
#include "qparity/policy_double_rounding.h"

namespace gemmlowp_crosscheck {

// Extra inputs always checked (the strided sweep could step over them).
inline std::vector<std::int32_t> EdgeInputs() {
  std::vector<std::int32_t> v;
  const std::int64_t centres[] = {0, 1 << 29, -(1 << 29), 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN};
  for (std::int64_t c : centres) {
    for (std::int64_t d = -4096; d <= 4096; ++d) {
      const std::int64_t x = c + d;
      if (x >= INT32_MIN && x <= INT32_MAX) v.push_back(static_cast<std::int32_t>(x));
    }
  }
  return v;
}

// Counts, branch-free, the x in [begin, end) where ours(x) != theirs(x) and where ours(x) != 0.
// Blocks of 2^16 with 32-bit counters and a 32-bit induction variable let the compiler vectorize
// the loop. Both sides stay the scalar C++ functions; only the compiler's auto-vectorization of
// the loop around them changes.
#define QPARITY_COUNT_RANGE_BODY                                                              \
  for (std::int64_t block = begin; block < end; block += 65536) {                              \
    const std::uint32_t n = static_cast<std::uint32_t>(end - block < 65536 ? end - block : 65536); \
    const std::uint32_t x0 = static_cast<std::uint32_t>(block);                                 \
    std::uint32_t mis = 0, nz = 0;                                                             \
    for (std::uint32_t j = 0; j < n; ++j) {                                                    \
      const std::int32_t x = static_cast<std::int32_t>(x0 + j);                                 \
      const std::int32_t a = ours(x);                                                          \
      const std::int32_t b = theirs(x);                                                        \
      mis += a != b;                                                                           \
      nz += a != 0;                                                                            \
    }                                                                                          \
    *mismatches += mis;                                                                        \
    *nonzero += nz;                                                                            \
  }

template <class Ours, class Theirs>
void CountRangeBaseline(std::int64_t begin, std::int64_t end, Ours ours, Theirs theirs,
                        std::uint64_t* mismatches, std::uint64_t* nonzero) {
  QPARITY_COUNT_RANGE_BODY
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define QPARITY_CROSSCHECK_AVX2 1
// The same loop compiled for AVX2 (vpmuldq makes the 64-bit products of SRDHM vectorizable):
// 2-3x faster; chosen at run time only on CPUs that have AVX2.
template <class Ours, class Theirs>
__attribute__((target("avx2"))) void CountRangeAvx2(std::int64_t begin, std::int64_t end,
                                                    Ours ours, Theirs theirs,
                                                    std::uint64_t* mismatches,
                                                    std::uint64_t* nonzero) {
  QPARITY_COUNT_RANGE_BODY
}
#endif
#undef QPARITY_COUNT_RANGE_BODY

template <class Ours, class Theirs>
void CountRange(std::int64_t begin, std::int64_t end, Ours ours, Theirs theirs,
                std::uint64_t* mismatches, std::uint64_t* nonzero) {
#ifdef QPARITY_CROSSCHECK_AVX2
  if (__builtin_cpu_supports("avx2")) {
    CountRangeAvx2(begin, end, ours, theirs, mismatches, nonzero);
    return;
  }
#endif
  CountRangeBaseline(begin, end, ours, theirs, mismatches, nonzero);
}

// Compares ours(x) and theirs(x) for every int32 x when stride = 1; otherwise for the x of the
// form INT32_MIN + i * stride (plus a run of 64 consecutive values at each such point, so that the
// low bits vary) and for the edge inputs. Reports the mismatch count and the first mismatch.
// expected_nonzero: some output must be nonzero (so a sweep of a constant function is visible).
template <class Ours, class Theirs>
void Sweep(const char* what, std::uint32_t stride, bool expected_nonzero, Ours ours, Theirs theirs) {
  std::uint64_t mismatches = 0, nonzero = 0, checked = 0;
  const std::int64_t lo = INT32_MIN, hi = std::int64_t{INT32_MAX} + 1;
  if (stride == 1) {
    CountRange(lo, hi, ours, theirs, &mismatches, &nonzero);
    checked = hi - lo;
  } else {
    for (std::int64_t start = lo; start < hi; start += stride) {
      const std::int64_t end = start + 64 < hi ? start + 64 : hi;
      CountRange(start, end, ours, theirs, &mismatches, &nonzero);
      checked += end - start;
    }
  }
  for (std::int32_t x : EdgeInputs()) {
    CountRange(x, std::int64_t{x} + 1, ours, theirs, &mismatches, &nonzero);
    ++checked;
  }
  std::string first;
  if (mismatches != 0) {
    // Slow path, only on failure: find the first mismatch to report it.
    for (std::int64_t i = lo; i < hi; ++i) {
      const std::int32_t x = static_cast<std::int32_t>(i);
      if (ours(x) != theirs(x)) {
        first = "; first mismatch at x = " + std::to_string(x) + ": qparity " +
                std::to_string(ours(x)) + ", gemmlowp " + std::to_string(theirs(x));
        break;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " mismatches of " << checked << first;
  if (expected_nonzero) {
    EXPECT_GT(nonzero, 0u) << what << ": every output was 0";
  }
  if (stride == 1) {
    EXPECT_EQ(checked, (std::uint64_t{1} << 32) + EdgeInputs().size());
  }
}

inline void CheckSrdhm(std::int32_t m, std::uint32_t stride) {
  Sweep("SRDHM(x, M)", stride, m != 0,
        [m](std::int32_t x) { return qparity::saturating_rounding_doubling_high_mul(x, m); },
        [m](std::int32_t x) { return gemmlowp::SaturatingRoundingDoublingHighMul(x, m); });
}

inline void CheckRdbpot(int exponent, std::uint32_t stride) {
  Sweep("RDBPOT(x, e)", stride, true,
        [exponent](std::int32_t x) { return qparity::rounding_divide_by_pot(x, exponent); },
        [exponent](std::int32_t x) { return gemmlowp::RoundingDivideByPOT(x, exponent); });
}

// DR-AZ = RDBPOT(SRDHM(x << L, M), R) with gemmlowp's functions and a wrapping left shift
// (TFLite: x * (1 << L), marked no-sanitize). The shift is a template parameter so that the
// compiler sees constant shift amounts (this is what lets the sweep vectorize).
template <int kShift>
void CheckDoubleRoundingAwayFromZero(std::int32_t m, std::uint32_t stride) {
  constexpr int kLeft = kShift > 0 ? kShift : 0;
  constexpr int kRight = kShift > 0 ? 0 : -kShift;
  Sweep("DR-AZ", stride, m != 0,
        [m](std::int32_t x) {
          qparity::RequantParams p;
          p.multiplier = m;
          p.shift = kShift;
          return qparity::DoubleRoundingAwayFromZero::requantize(x, p);
        },
        [m](std::int32_t x) {
          const std::int32_t shifted =
              static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << kLeft);
          return gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(shifted, m),
                                               kRight);
        });
}

// The parameter sets, shared by both executables. Realistic multipliers are TFLite's
// QuantizeMultiplier of the §11.2 / §11.6 scales.
#define QPARITY_GEMMLOWP_SRDHM_CASES(X) \
  X(Zero, 0)                            \
  X(One, 1)                             \
  X(MinusOne, -1)                       \
  X(TwoPow30, 1 << 30)                  \
  X(Int32Max, INT32_MAX)                \
  X(Int32Min, INT32_MIN)                \
  X(Scale0p0037, 2034096511)            \
  X(Scale0p3, 1288490189)               \
  X(Scale0p000668945, 1471026299)       \
  X(Scale0p0123456789, 1696777188)

#define QPARITY_GEMMLOWP_RDBPOT_CASES(X) X(0) X(1) X(5) X(31)

// (name, multiplier, shift): every shift of the brief with the realistic 0.0037 multiplier, plus
// the extreme multipliers at a few shifts.
#define QPARITY_GEMMLOWP_DR_CASES(X)                  \
  X(Scale0p0037_ShiftMinus31, 2034096511, -31)        \
  X(Scale0p0037_ShiftMinus8, 2034096511, -8)          \
  X(Scale0p0037_ShiftMinus1, 2034096511, -1)          \
  X(Scale0p0037_Shift0, 2034096511, 0)                \
  X(Scale0p0037_Shift1, 2034096511, 1)                \
  X(Scale0p0037_Shift30, 2034096511, 30)              \
  X(Int32Max_ShiftMinus31, INT32_MAX, -31)            \
  X(Int32Max_Shift1, INT32_MAX, 1)                    \
  X(TwoPow30_ShiftMinus1, 1 << 30, -1)                \
  X(TwoPow30_Shift0, 1 << 30, 0)

}  // namespace gemmlowp_crosscheck
