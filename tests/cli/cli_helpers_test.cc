// In-process tests of the tool's building blocks: number and line parsing, the line reader,
// exact decimals, and the per-core traces of `explain` (result always equal to the policy's).
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "csv_input.h"
#include "exact_decimal.h"
#include "explain_trace.h"
#include "natural_order.h"
#include "preset_params.h"
#include "qparity/reference.h"

namespace qparity::cli {
namespace {

TEST(CliCsvInput, ParseInt64IsStrict) {
  std::int64_t v = 0;
  EXPECT_EQ(parse_int64("42", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(parse_int64("  -7\t", &v), ParseStatus::kOk);
  EXPECT_EQ(v, -7);
  EXPECT_EQ(parse_int64("+9", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 9);
  EXPECT_EQ(parse_int64("-9223372036854775808", &v), ParseStatus::kOk);
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_EQ(parse_int64("9223372036854775808", &v), ParseStatus::kOutOfRange);
  for (const char* bad : {"", " ", "1.0", "1e3", "0x10", "12a", "a12", "1 2", "+-1", "++1", "-"}) {
    EXPECT_EQ(parse_int64(bad, &v), ParseStatus::kNotANumber) << bad;
  }
}

TEST(CliCsvInput, ParseDouble) {
  double v = 0;
  EXPECT_EQ(parse_double("0.0037", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 0.0037);
  EXPECT_EQ(parse_double(" 1e-3 ", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 1e-3);
  EXPECT_EQ(parse_double("+2.5", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 2.5);
  EXPECT_EQ(parse_double("1e999", &v), ParseStatus::kOutOfRange);
  for (const char* bad : {"", "abc", "1.5x", "0x1p-3", "1,5"}) {
    EXPECT_EQ(parse_double(bad, &v), ParseStatus::kNotANumber) << bad;
  }
}

TEST(CliCsvInput, ParseRequantLine) {
  RequantRecord r;
  std::string error;
  ASSERT_TRUE(parse_requant_line("-10, 1073741824 ,-1", false, &r, &error)) << error;
  EXPECT_EQ(r.acc, -10);
  EXPECT_EQ(r.multiplier, 1073741824);
  EXPECT_EQ(r.shift, -1);
  ASSERT_TRUE(parse_requant_line("135,0.0037", true, &r, &error)) << error;
  EXPECT_EQ(r.acc, 135);
  EXPECT_EQ(r.scale, 0.0037);
  EXPECT_FALSE(parse_requant_line("1,2", false, &r, &error));
  EXPECT_EQ(error, "expected 3 comma-separated fields (acc,multiplier,shift), got 2");
  EXPECT_FALSE(parse_requant_line("1,2,30,", false, &r, &error));
  EXPECT_EQ(error, "expected 3 comma-separated fields (acc,multiplier,shift), got 4");
  EXPECT_FALSE(parse_requant_line("1,2,-31.0", false, &r, &error));
  EXPECT_EQ(error,
            "shift '-31.0' is not an integer; allowed: [-31, 30] (TFLite convention, > 0 = left)");
}

TEST(CliCsvInput, BlankAndCommentLines) {
  EXPECT_TRUE(is_blank_or_comment(""));
  EXPECT_TRUE(is_blank_or_comment(" \t\r"));
  EXPECT_TRUE(is_blank_or_comment("# x"));
  EXPECT_TRUE(is_blank_or_comment("  #"));
  EXPECT_FALSE(is_blank_or_comment("1,2,3 # trailing comments are not comments"));
}

TEST(CliCsvInput, LineReaderAcrossBlockBoundaries) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += std::string(static_cast<std::size_t>(i % 37), 'x') + "\r\n";
  text += "last";
  for (std::size_t block :
       {std::size_t{16}, std::size_t{17}, std::size_t{64}, std::size_t{1} << 20}) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::rewind(f);
    LineReader reader(f, block);
    std::string_view line;
    int n = 0;
    while (reader.next(&line)) {
      if (n < 500) {
        EXPECT_EQ(line, std::string(static_cast<std::size_t>(n % 37), 'x')) << "block " << block;
      } else {
        EXPECT_EQ(line, "last");
      }
      ++n;
    }
    EXPECT_EQ(n, 501) << "block " << block;
    EXPECT_FALSE(reader.read_error());
    std::fclose(f);
  }
}

TEST(CliExactDecimal, PrintsExactlyOrTruncatesWithEllipsis) {
  EXPECT_EQ(Dyadic::ratio(-5, 1).to_string(), "-2.5");
  EXPECT_EQ(Dyadic::ratio(5, 1).to_string(), "2.5");
  EXPECT_EQ(Dyadic::ratio(-1, 1).to_string(), "-0.5");
  EXPECT_EQ(Dyadic::ratio(128, 8).to_string(), "0.5");
  EXPECT_EQ(Dyadic::ratio(3, 0).to_string(), "3");
  EXPECT_EQ(Dyadic::ratio(1, 62).to_string(), "0.000000000000000000216840434497...");  // 2^-62
  EXPECT_EQ(Dyadic::ratio(274603028985, 39).to_string(), "0.499499999905...");
  EXPECT_EQ(Dyadic::ratio(-274603028985, 39).to_string(), "-0.499499999905...");
  EXPECT_EQ(Dyadic::product(135, 0.0037).to_string(20), "0.49950000000000002210...");
  EXPECT_EQ(Dyadic::product(-10, 0.25).plus(3).to_string(), "0.5");
}

TEST(CliExactDecimal, TiesAndNearest) {
  const Dyadic minus_two_and_half = Dyadic::ratio(-5, 1);
  EXPECT_TRUE(minus_two_and_half.is_tie());
  EXPECT_TRUE(minus_two_and_half.is_nearest(-3));
  EXPECT_TRUE(minus_two_and_half.is_nearest(-2));
  EXPECT_FALSE(minus_two_and_half.is_nearest(-1));
  const Dyadic almost_half = Dyadic::ratio(274603028985, 39);
  EXPECT_FALSE(almost_half.is_tie());
  EXPECT_TRUE(almost_half.is_nearest(0));
  EXPECT_FALSE(almost_half.is_nearest(1));
  EXPECT_TRUE(Dyadic::ratio(8, 2).is_integer());
  EXPECT_EQ(Dyadic::ratio(-7, 2).floor(), -2);
  EXPECT_EQ(Dyadic::ratio(-7, 2).nearest_low(), -2);
}

TEST(CliExplainTrace, RulesOfTheReadmeExamples) {
  const Preset dr = find_preset("tflite-reference");
  const Preset sr = find_preset("tflite-single");
  RequantParams p = params_from_scale(dr, 0.0037);
  Trace t = trace_rounding(dr.core, p, 135, 0);
  EXPECT_EQ(t.result, 1);
  EXPECT_EQ(t.rule, "stage-2 tie made by stage-1 rounding, half away from zero");
  t = trace_rounding(sr.core, params_from_scale(sr, 0.0037), 135, 0);
  EXPECT_EQ(t.result, 0);
  EXPECT_EQ(t.rule, "no tie (nearest)");

  p = params_from_multiplier(RoundingCore::kDoubleRoundingAwayFromZero, 1 << 30, -1);
  t = trace_rounding(RoundingCore::kDoubleRoundingAwayFromZero, p, -10, 0);
  EXPECT_EQ(t.result, -3);
  EXPECT_EQ(t.rule, "stage-2 tie, half away from zero");
  t = trace_rounding(RoundingCore::kDoubleRoundingUpward, p, -10, 0);
  EXPECT_EQ(t.result, -2);
  EXPECT_EQ(t.rule, "stage-2 tie, half up");
  t = trace_rounding(RoundingCore::kSingleRoundingToEven, p, -10, 0);
  EXPECT_EQ(t.result, -2);
  EXPECT_EQ(t.rule, "tie, half to even");
}

TEST(CliExplainTrace, FloatRules) {
  RequantParams p = params_from_multiplier(RoundingCore::kFloat32, 1580886016, -8);
  Trace t = trace_rounding(RoundingCore::kFloat32, p, -25212, 0);
  EXPECT_EQ(t.result, -72);
  EXPECT_EQ(t.rule, "float product landed on a tie (exact value is not); half to even");
  p = params_from_multiplier(RoundingCore::kFloat32, 1 << 30, -24);
  t = trace_rounding(RoundingCore::kFloat32, p, 16777217, 0);
  EXPECT_EQ(t.result, 0);
  EXPECT_EQ(t.rule, "float(acc) conversion landed on a tie (exact value is not); half to even");
  p = params_from_multiplier(RoundingCore::kFloat32ZeroPointInside, 1 << 30, 0);
  t = trace_rounding(RoundingCore::kFloat32ZeroPointInside, p, 1, 1);
  EXPECT_EQ(t.result, 2);
  EXPECT_EQ(t.rule, "tie, half to even");
  t = trace_rounding(RoundingCore::kFloat32, p, 1, 1);
  EXPECT_EQ(t.result, 1);
}

TEST(CliExplainTrace, WrapRules) {
  RequantParams p = params_from_multiplier(RoundingCore::kDoubleRoundingAwayFromZero, 1 << 30, 30);
  Trace t = trace_rounding(RoundingCore::kDoubleRoundingAwayFromZero, p, 3, 0);
  EXPECT_EQ(t.result, -536870912);
  EXPECT_EQ(t.rule, "pre-shift wrapped (acc*2^30 overflows int32)");
  t = trace_rounding(RoundingCore::kSingleRoundingUpward, p, 4, 0);
  EXPECT_EQ(t.result, INT32_MIN);
  EXPECT_EQ(t.rule, "int32 wrap of result (2147483648 does not fit)");
  p = params_from_multiplier(RoundingCore::kSingleRoundingUpwardNeon, 1 << 30, 0);
  t = trace_rounding(RoundingCore::kSingleRoundingUpwardNeon, p, 1 << 30, 0);
  EXPECT_EQ(t.result, -536870912);
  EXPECT_EQ(t.rule.rfind("pre-shift wrapped", 0), 0u) << t.rule;
}

// The trace's result is the policy's result (plus zero point) for every core on random input,
// and its rule is never the "should not happen" fallback for the integer cores.
TEST(CliExplainTrace, ResultAlwaysEqualsThePolicy) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::int32_t> acc_full(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<std::int32_t> acc_small(-4096, 4096);
  std::uniform_int_distribution<std::int32_t> m_dist(0, INT32_MAX);
  std::uniform_int_distribution<std::int32_t> shift_dist(-31, 30);
  std::uniform_int_distribution<std::int32_t> zp_dist(-128, 127);
  for (int i = 0; i < 200000; ++i) {
    const std::int32_t acc = (i & 1) ? acc_full(rng) : acc_small(rng);
    // Power-of-two multipliers make ties common.
    const std::int32_t m = (i % 3 == 0) ? (1 << 30) : m_dist(rng);
    const std::int32_t shift = shift_dist(rng);
    const std::int32_t zp = (i % 5 == 0) ? zp_dist(rng) : 0;
    for (RoundingCore core : kAllRoundingCores) {
      RequantParams p;
      try {
        p = params_from_multiplier(core, m, shift);
      } catch (const InvalidArgument&) {
        continue;  // e.g. Q15 with shift > 13, F32 with M = 0
      }
      const Trace t = trace_rounding(core, p, acc, zp);
      const std::int64_t expected =
          core == RoundingCore::kFloat32ZeroPointInside
              ? Float32ZeroPointInside::requantize_with_zero_point(acc, p, zp)
              : static_cast<std::int64_t>(requantize(core, acc, p)) + zp;
      ASSERT_EQ(t.result, expected)
          << to_string(core) << " acc=" << acc << " M=" << m << " shift=" << shift;
      ASSERT_FALSE(t.rule.empty());
      ASSERT_NE(t.rule, "double rounding moved it off nearest")
          << to_string(core) << " acc=" << acc << " M=" << m << " shift=" << shift;
    }
  }
}

}  // namespace
TEST(CliNaturalOrder, DigitRunsCompareAsNumbers) {
  using qparity::cli::natural_less;
  std::vector<std::string> names = {"layer10.npy", "layer2.npy", "layer1.npy", "layer11.npy", "conv.npy",
                                    "layer02.npy", "layer_a.npy", "10_x.npy", "9_x.npy", "layer.npy"};
  std::sort(names.begin(), names.end(), natural_less);
  const std::vector<std::string> want = {"9_x.npy",     "10_x.npy",    "conv.npy",    "layer.npy",   "layer1.npy",
                                         "layer02.npy", "layer2.npy",  "layer10.npy", "layer11.npy", "layer_a.npy"};
  EXPECT_EQ(names, want);
  EXPECT_FALSE(natural_less("a", "a"));
  EXPECT_TRUE(natural_less("a", "ab"));
  EXPECT_FALSE(natural_less("ab", "a"));
  EXPECT_TRUE(natural_less("x99999999999999999999998", "x99999999999999999999999"));  // beyond 64 bits
  EXPECT_TRUE(natural_less("0_a", "00_b") != natural_less("00_b", "0_a"));
}

}  // namespace qparity::cli
