// float_to_float16 and float_to_bfloat16 (include/qparity/float_formats.h) on all 2^32 float32
// inputs: against the independent grid model (float_formats_check.h) on every finite value of
// both signs, the NaN rule on every NaN, and against the CPU's conversion instructions on every
// pattern where the CPU has them (F16C: every x86 CPU qparity runs on; AVX-512 BF16: Zen 4 and
// later, Cooper Lake, Sapphire Rapids; printed when absent, since no software can stand in for it).
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <gtest/gtest.h>

#include "float_formats_check.h"
#include "qparity/float_formats.h"

namespace qparity_float_formats_test {
namespace {

using qparity::float_to_bfloat16;
using qparity::float_to_bfloat16_daz;
using qparity::float_to_float16;

struct Mismatches {
  std::uint64_t count = 0;
  std::uint32_t first = 0;
  void add(std::uint32_t bits) {
    if (count++ == 0) first = bits;
  }
};

TEST(FloatFormatsExhaustive, Float16AgainstTheGridModel) {
  GridWalker<double (*)(std::uint16_t)> grid{&half_value, 0x7C00, 65536.0};
  Mismatches bad;
  for (std::uint32_t b = 0; b <= 0x7F800000u; ++b) {  // +0 .. +inf in increasing order
    const float x = bits_to_float(b);
    const std::uint16_t expected = b == 0x7F800000u ? 0x7C00 : grid.round(x);
    if (float_to_float16(x) != expected) bad.add(b);
    if (float_to_float16(-x) != (expected | 0x8000)) bad.add(b | 0x80000000u);
  }
  for (std::uint32_t b = 0x7F800001u; b <= 0x7FFFFFFFu; ++b) {  // NaNs: quiet, top payload bits
    const auto expected = static_cast<std::uint16_t>(0x7E00u | ((b >> 13) & 0x3FFu));
    if (float_to_float16(bits_to_float(b)) != expected) bad.add(b);
    if (float_to_float16(bits_to_float(b | 0x80000000u)) != (expected | 0x8000)) bad.add(b | 0x80000000u);
    if (b == 0x7FFFFFFFu) break;
  }
  EXPECT_EQ(bad.count, 0u) << "first at float bits 0x" << std::hex << bad.first;
}

TEST(FloatFormatsExhaustive, BFloat16AgainstTheGridModel) {
  GridWalker<double (*)(std::uint16_t)> grid{&bf16_value, 0x7F80, std::ldexp(1.0, 128)};
  Mismatches bad;
  for (std::uint32_t b = 0; b <= 0x7F800000u; ++b) {
    const float x = bits_to_float(b);
    const std::uint16_t expected = b == 0x7F800000u ? 0x7F80 : grid.round(x);
    if (float_to_bfloat16(x) != expected) bad.add(b);
    if (float_to_bfloat16(-x) != (expected | 0x8000)) bad.add(b | 0x80000000u);
    const std::uint16_t daz = (b & 0x7F800000u) == 0 ? 0 : expected;
    if (float_to_bfloat16_daz(x) != daz) bad.add(b);
  }
  for (std::uint32_t b = 0x7F800001u;; ++b) {
    const auto expected = static_cast<std::uint16_t>((b >> 16) | 0x0040u);
    if (float_to_bfloat16(bits_to_float(b)) != expected) bad.add(b);
    if (b == 0x7FFFFFFFu) break;
  }
  EXPECT_EQ(bad.count, 0u) << "first at float bits 0x" << std::hex << bad.first;
}

#if defined(__x86_64__)
TEST(FloatFormatsExhaustive, Float16AgainstF16cOnEveryPattern) {
  ASSERT_TRUE(cpu_has_f16c()) << "every x86 CPU qparity runs on has F16C; the hardware check must not be skipped";
  Mismatches bad;
  float in[8];
  std::uint16_t hw[8];
  for (std::uint64_t b = 0; b < (1ull << 32); b += 8) {
    for (int k = 0; k < 8; ++k) in[k] = bits_to_float(static_cast<std::uint32_t>(b + k));
    hw_float_to_half8(in, hw);
    for (int k = 0; k < 8; ++k) {
      if (float_to_float16(in[k]) != hw[k]) bad.add(static_cast<std::uint32_t>(b + k));
    }
  }
  EXPECT_EQ(bad.count, 0u) << "first at float bits 0x" << std::hex << bad.first;
  // And the decoder on all 2^16 patterns (NaNs included: both quiet them).
  Mismatches bad_decode;
  std::uint16_t h[8];
  float f[8];
  for (std::uint32_t p = 0; p < 0x10000; p += 8) {
    for (int k = 0; k < 8; ++k) h[k] = static_cast<std::uint16_t>(p + k);
    hw_half_to_float8(h, f);
    for (int k = 0; k < 8; ++k) {
      if (float_bits(qparity::float16_to_float(h[k])) != float_bits(f[k])) bad_decode.add(h[k]);
    }
  }
  EXPECT_EQ(bad_decode.count, 0u) << "first at binary16 bits 0x" << std::hex << bad_decode.first;
}
#endif

TEST(FloatFormatsExhaustive, BFloat16AgainstVcvtneps2bf16OnEveryPattern) {
#if defined(QPARITY_TEST_HAVE_BF16_INTRINSICS)
  if (!cpu_has_avx512bf16()) {
    std::printf("this CPU has no AVX-512 BF16: the bfloat16 conversion was checked against the grid model only\n");
    return;
  }
  Mismatches bad;
  float in[16];
  std::uint16_t hw[16];
  for (std::uint64_t b = 0; b < (1ull << 32); b += 16) {
    for (int k = 0; k < 16; ++k) in[k] = bits_to_float(static_cast<std::uint32_t>(b + k));
    hw_float_to_bf16_16(in, hw);
    for (int k = 0; k < 16; ++k) {
      if (float_to_bfloat16_daz(in[k]) != hw[k]) bad.add(static_cast<std::uint32_t>(b + k));
    }
  }
  EXPECT_EQ(bad.count, 0u) << "first at float bits 0x" << std::hex << bad.first;
#else
  std::printf("built without the AVX-512 BF16 intrinsics (GCC < 12 or clang): grid model only\n");
#endif
}

}  // namespace
}  // namespace qparity_float_formats_test
