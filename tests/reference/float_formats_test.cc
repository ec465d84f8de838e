// The float16 / bfloat16 conversions of include/qparity/float_formats.h: every binary16 and
// bfloat16 pattern decoded, known cases (ties, overflow, gradual underflow, NaN payloads), and a
// strided sweep of float32 inputs against the independent grid model and, where the CPU has them,
// the F16C / AVX-512 BF16 instructions. The sweep over all 2^32 inputs is
// float_formats_exhaustive_test.cc (label exhaustive).
#include "qparity/float_formats.h"

#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "float_formats_check.h"

namespace qparity_float_formats_test {
namespace {

using qparity::bfloat16_to_float;
using qparity::float16_to_float;
using qparity::float_to_bfloat16;
using qparity::float_to_bfloat16_daz;
using qparity::float_to_float16;

TEST(Float16, EveryPatternDecodesToItsFieldValue) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto p = static_cast<std::uint16_t>(h);
    const float f = float16_to_float(p);
    const std::uint16_t magnitude = p & 0x7FFF;
    if (magnitude > 0x7C00) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      // The payload lands in the top fraction bits, quiet.
      EXPECT_EQ((float_bits(f) >> 13) & 0x3FF, (p & 0x3FFu) | 0x200u) << std::hex << h;
    } else if (magnitude == 0x7C00) {
      EXPECT_TRUE(std::isinf(f)) << std::hex << h;
    } else {
      EXPECT_EQ(static_cast<double>(std::fabs(f)), half_value(magnitude)) << std::hex << h;
    }
    EXPECT_EQ(std::signbit(f), (p & 0x8000) != 0) << std::hex << h;
    // Every non-NaN pattern survives the round trip; a NaN keeps its sign and payload and is quiet.
    const std::uint16_t back = float_to_float16(f);
    if (magnitude > 0x7C00) {
      EXPECT_EQ(back, p | 0x0200u) << std::hex << h;
    } else {
      EXPECT_EQ(back, p) << std::hex << h;
    }
  }
}

TEST(Float16, KnownRoundings) {
  EXPECT_EQ(float_to_float16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_float16(0.1f), 0x2E66);               // 0.0999755859375
  EXPECT_EQ(float_to_float16(65504.0f), 0x7BFF);           // the largest finite
  EXPECT_EQ(float_to_float16(65519.996f), 0x7BFF);         // just below the tie
  EXPECT_EQ(float_to_float16(65520.0f), 0x7C00);           // the tie rounds to even = infinity
  EXPECT_EQ(float_to_float16(-1e9f), 0xFC00);
  EXPECT_EQ(float_to_float16(1.0f + 1.0f / 2048), 0x3C00);  // tie between 1 and 1 + 2^-10: even (1)
  EXPECT_EQ(float_to_float16(1.0f + 3.0f / 2048), 0x3C02);  // tie between 1 + 2^-10 and 1 + 2^-9: even
  EXPECT_EQ(float_to_float16(std::ldexp(1.0f, -24)), 0x0001);     // the smallest subnormal
  EXPECT_EQ(float_to_float16(std::ldexp(1.0f, -25)), 0x0000);     // half of it ties to even (0)
  EXPECT_EQ(float_to_float16(std::ldexp(1.5f, -25)), 0x0001);     // above the tie
  EXPECT_EQ(float_to_float16(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 ulp ties to even (2)
  EXPECT_EQ(float_to_float16(-std::ldexp(1.0f, -26)), 0x8000);    // signed zero
  EXPECT_EQ(float_to_float16(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(float_to_float16(bits_to_float(0x7F800001u)), 0x7E00);  // signalling NaN quieted
  EXPECT_EQ(float_to_float16(bits_to_float(0xFFC02000u)), 0xFE01);  // payload top bits kept
}

TEST(BFloat16, KnownRoundingsAndTheDazVariant) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bfloat16(bits_to_float(0x3F808000u)), 0x3F80);  // tie, even below
  EXPECT_EQ(float_to_bfloat16(bits_to_float(0x3F818000u)), 0x3F82);  // tie, even above
  EXPECT_EQ(float_to_bfloat16(bits_to_float(0x3F808001u)), 0x3F81);
  EXPECT_EQ(float_to_bfloat16(bits_to_float(0x7F7FFFFFu)), 0x7F80);  // FLT_MAX rounds to infinity
  EXPECT_EQ(float_to_bfloat16(bits_to_float(0x7F800001u)), 0x7FC0);  // NaN quieted
  EXPECT_EQ(float_to_bfloat16(bits_to_float(0x00018000u)), 0x0002);  // a subnormal, tie to even
  EXPECT_EQ(float_to_bfloat16_daz(bits_to_float(0x00018000u)), 0x0000);
  EXPECT_EQ(float_to_bfloat16_daz(bits_to_float(0x80018000u)), 0x8000);
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto p = static_cast<std::uint16_t>(b);
    const float f = bfloat16_to_float(p);
    if ((p & 0x7FFF) > 0x7F80) continue;
    if ((p & 0x7FFF) < 0x7F80) {
      EXPECT_EQ(static_cast<double>(std::fabs(f)), bf16_value(p & 0x7FFF)) << std::hex << b;
    }
    EXPECT_EQ(float_to_bfloat16(f), p) << std::hex << b;
  }
}

// Every 4099th float32 pattern (a prime stride: all exponents, fractions and both signs) against
// the grid model, and against the hardware where present.
TEST(FloatFormats, StridedSweepAgainstTheGridModelAndHardware) {
  GridWalker<double (*)(std::uint16_t)> half{&half_value, 0x7C00, 65536.0};
  GridWalker<double (*)(std::uint16_t)> bf16{&bf16_value, 0x7F80, std::ldexp(1.0, 128)};
  std::uint64_t checked = 0;
  for (std::uint32_t b = 0; b < 0x7F800000u; b += 4099) {
    const float x = bits_to_float(b);
    const std::uint16_t h = half.round(x), r = bf16.round(x);
    ASSERT_EQ(float_to_float16(x), h) << std::hex << b;
    ASSERT_EQ(float_to_float16(-x), h | 0x8000) << std::hex << b;
    ASSERT_EQ(float_to_bfloat16(x), r) << std::hex << b;
    ASSERT_EQ(float_to_bfloat16(-x), r | 0x8000) << std::hex << b;
    ++checked;
  }
  EXPECT_GT(checked, 500000u);
#if defined(__x86_64__)
  ASSERT_TRUE(cpu_has_f16c()) << "every x86 CPU qparity runs on has F16C; the hardware check must not be skipped";
  float in[8];
  std::uint16_t hw[8];
  for (std::uint64_t b = 0; b < (1ull << 32); b += 8 * 4099) {
    for (int k = 0; k < 8; ++k) in[k] = bits_to_float(static_cast<std::uint32_t>(b + 977u * k));
    hw_float_to_half8(in, hw);
    for (int k = 0; k < 8; ++k) ASSERT_EQ(float_to_float16(in[k]), hw[k]) << std::hex << float_bits(in[k]);
  }
#endif
}

}  // namespace
}  // namespace qparity_float_formats_test
