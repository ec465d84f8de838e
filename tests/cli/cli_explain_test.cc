// `qparity explain` end to end: results, the rule that decided them, marks, and input validation.
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "preset_params.h"
#include "qparity/reference.h"

namespace qparity_cli_test {
namespace {

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The RESULT cell (third column) of a preset's row.
std::string result_of(const std::string& out, const std::string& preset) {
  const std::vector<std::string> t = tokens(line_starting_with(out, preset));
  return t.size() >= 3 ? t[2] : "<no row for " + preset + ">";
}

std::string row_of(const std::string& out, const std::string& preset) {
  return line_starting_with(out, preset);
}

TEST(CliExplain, ReadmeExampleDoubleRoundingOnANonTie) {
  // docs/semantics.md §11.2: scale 0.0037, acc 135 -> DR-AZ 1, SR-UP 0 (exact 0.4995).
  const CliResult r = run_cli({"explain", "135", "--scale", "0.0037"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(contains(r.out, "DECIDED BY")) << r.out;
  EXPECT_TRUE(contains(r.out, "exact acc*scale = 0.4995")) << r.out;
  EXPECT_TRUE(contains(r.out, "nearest integer 0")) << r.out;
  for (const char* dr_az : {"tflite-reference", "gemmlowp", "cmsis-nn", "tosa-double"}) {
    EXPECT_EQ(result_of(r.out, dr_az), "1") << r.out;
    EXPECT_TRUE(
        contains(row_of(r.out, dr_az), "stage-2 tie made by stage-1 rounding, half away from zero"))
        << row_of(r.out, dr_az);
    EXPECT_TRUE(contains(row_of(r.out, dr_az), "!= nearest")) << row_of(r.out, dr_az);
    EXPECT_TRUE(contains(row_of(r.out, dr_az), "t=SRDHM(x',M)=128")) << row_of(r.out, dr_az);
  }
  EXPECT_EQ(result_of(r.out, "ruy-x86"), "1");
  EXPECT_TRUE(contains(row_of(r.out, "ruy-x86"), "stage-2 tie made by stage-1 rounding, half up"));
  for (const char* sr_up : {"tflite-single", "cmsis-nn-single", "tosa-single", "xnnpack-rndnu"}) {
    EXPECT_EQ(result_of(r.out, sr_up), "0") << r.out;
    EXPECT_TRUE(contains(row_of(r.out, sr_up), "no tie (nearest)")) << row_of(r.out, sr_up);
    EXPECT_FALSE(contains(row_of(r.out, sr_up), "!= nearest")) << row_of(r.out, sr_up);
  }
  EXPECT_TRUE(contains(row_of(r.out, "tflite-single"), "M=2034096511 shift=-8"));
  EXPECT_TRUE(contains(row_of(r.out, "tflite-single"), "p/2^s=0.499499999905"));
  EXPECT_EQ(result_of(r.out, "xnnpack-fp32"), "0");
  EXPECT_EQ(result_of(r.out, "tflite-16x8"), "0");
}

TEST(CliExplain, ReadmeExampleNegativeTieWithExplicitParameters) {
  const CliResult r = run_cli({"explain", "-10", "--multiplier", "1073741824", "--shift", "-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "exact acc*scale = -2.5")) << r.out;
  EXPECT_TRUE(contains(r.out, "a tie: nearest integers -3 and -2")) << r.out;
  EXPECT_EQ(result_of(r.out, "tflite-reference"), "-3");
  EXPECT_TRUE(contains(row_of(r.out, "tflite-reference"), "stage-2 tie, half away from zero"));
  EXPECT_EQ(result_of(r.out, "ruy-x86"), "-2");
  EXPECT_TRUE(contains(row_of(r.out, "ruy-x86"), "stage-2 tie, half up"));
  EXPECT_EQ(result_of(r.out, "tflite-single"), "-2");
  EXPECT_TRUE(contains(row_of(r.out, "tflite-single"), "tie, half up"));
  EXPECT_EQ(result_of(r.out, "xnnpack-fp32"), "-2");
  EXPECT_TRUE(contains(row_of(r.out, "xnnpack-fp32"), "tie, half to even"));
  EXPECT_EQ(result_of(r.out, "npu-verisilicon"), "-2");
  EXPECT_EQ(result_of(r.out, "tflite-16x8"), "-2");
  // A tie: both neighbours are nearest, so only the majority mark can appear.
  for (const qparity::Preset& p : qparity::named_presets()) {
    EXPECT_FALSE(contains(row_of(r.out, p.name), "!= nearest")) << row_of(r.out, p.name);
  }
  EXPECT_TRUE(contains(row_of(r.out, "tflite-reference"), "!= majority"));
}

TEST(CliExplain, StageOneTieWithoutSecondStage) {
  const CliResult r = run_cli({"explain", "-5", "--multiplier", "1073741824", "--shift", "0",
                               "--presets", "tflite-reference,npu-haz-q31-int32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "tflite-reference"), "-2");
  EXPECT_TRUE(contains(row_of(r.out, "tflite-reference"), "stage-1 tie, half up"));
  EXPECT_EQ(result_of(r.out, "npu-haz-q31-int32"), "-3");
  EXPECT_TRUE(contains(row_of(r.out, "npu-haz-q31-int32"), "tie, half away from zero"));
}

TEST(CliExplain, TruncationAndFloor) {
  const CliResult r = run_cli({"explain", "7", "--multiplier", "1073741824", "--shift", "-2",
                               "--presets", "npu-tz-q31-int32,npu-fl-q31-int32,tflite-single"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "npu-tz-q31-int32"), "0");
  EXPECT_TRUE(contains(row_of(r.out, "npu-tz-q31-int32"), "truncated"));
  EXPECT_TRUE(contains(row_of(r.out, "npu-tz-q31-int32"), "!= nearest"));
  EXPECT_EQ(result_of(r.out, "npu-fl-q31-int32"), "0");
  EXPECT_TRUE(contains(row_of(r.out, "npu-fl-q31-int32"), "floored"));
  EXPECT_EQ(result_of(r.out, "tflite-single"), "1");
}

TEST(CliExplain, FloatProductLandsOnATie) {
  // docs/semantics.md §11.7: scale 12350672 * 2^-32 (= M 1580886016, shift -8), acc -25212:
  // exact -72.500003, float product -72.5 -> F32 -72, exact nearest -73.
  const CliResult r = run_cli({"explain", "-25212", "--multiplier", "1580886016", "--shift", "-8",
                               "--presets", "xnnpack-fp32,tflite-single,npu-he-q31-int32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "xnnpack-fp32"), "-72");
  EXPECT_TRUE(
      contains(row_of(r.out, "xnnpack-fp32"), "float product landed on a tie (exact value is not)"))
      << row_of(r.out, "xnnpack-fp32");
  EXPECT_TRUE(contains(row_of(r.out, "xnnpack-fp32"), "!= nearest"));
  EXPECT_EQ(result_of(r.out, "tflite-single"), "-73");
  EXPECT_EQ(result_of(r.out, "npu-he-q31-int32"), "-73");
}

TEST(CliExplain, FloatConversionLandsOnATie) {
  // docs/semantics.md §11.7: acc 2^24 + 1, scale 2^-25: float(acc) = 2^24, product 0.5 -> F32 0.
  const CliResult r = run_cli({"explain", "16777217", "--multiplier", "1073741824", "--shift",
                               "-24", "--presets", "xnnpack-fp32,tflite-reference"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "xnnpack-fp32"), "0");
  EXPECT_TRUE(contains(row_of(r.out, "xnnpack-fp32"), "landed on a tie (exact value is not)"));
  EXPECT_TRUE(contains(row_of(r.out, "xnnpack-fp32"), "(inexact)"));
  EXPECT_EQ(result_of(r.out, "tflite-reference"), "1");
}

TEST(CliExplain, PreShiftWrapAndResultWrap) {
  // docs/semantics.md §11.3: acc 3, M 2^30, shift 30: DR wraps 3 << 30; SR is exact 1610612736.
  CliResult r = run_cli({"explain", "3", "--multiplier", "1073741824", "--shift", "30"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "tflite-reference"), "-536870912");
  EXPECT_TRUE(contains(row_of(r.out, "tflite-reference"), "pre-shift wrapped"));
  EXPECT_EQ(result_of(r.out, "ruy-arm"), "-536870912");
  EXPECT_TRUE(contains(row_of(r.out, "ruy-arm"), "pre-shift wrapped"));
  EXPECT_EQ(result_of(r.out, "tflite-single"), "1610612736");
  // Q15 cannot represent shift 30: shown as n/a, not an error.
  EXPECT_EQ(result_of(r.out, "tflite-16x8"), "n/a");
  EXPECT_TRUE(contains(row_of(r.out, "tflite-16x8"), "shift = 30 is out of range"));

  // acc 4: the single-rounding result 2^31 does not fit int32 and wraps (release TFLite).
  r = run_cli({"explain", "4", "--multiplier", "1073741824", "--shift", "30", "--presets",
               "tflite-single"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "tflite-single"), "-2147483648");
  EXPECT_TRUE(contains(row_of(r.out, "tflite-single"), "int32 wrap of result"));

  // docs/semantics.md §11.5: the NEON pre-shift by shift+1 wraps one bit earlier.
  r = run_cli({"explain", "1073741824", "--multiplier", "1073741824", "--shift", "0", "--presets",
               "ruy-arm,tflite-single"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "ruy-arm"), "-536870912");
  EXPECT_TRUE(contains(row_of(r.out, "ruy-arm"), "pre-shift wrapped"));
  EXPECT_EQ(result_of(r.out, "tflite-single"), "536870912");
}

TEST(CliExplain, ZeroPointInsideVersusAfterRounding) {
  // docs/semantics.md §11.7: scale 0.5, acc 1, zp 1: F32 0 + 1 = 1, F32-ZPF RNE(1.5) = 2, SR-UP 2.
  const CliResult r = run_cli({"explain", "1", "--scale", "0.5", "--zero-point", "1", "--presets",
                               "xnnpack-fp32,onednn,tflite-single,tflite-reference"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "RESULT+ZP")) << r.out;
  EXPECT_EQ(result_of(r.out, "xnnpack-fp32"), "1");
  EXPECT_EQ(result_of(r.out, "onednn"), "2");
  EXPECT_EQ(result_of(r.out, "tflite-single"), "2");
  EXPECT_EQ(result_of(r.out, "tflite-reference"), "2");
}

TEST(CliExplain, PresetSubsetAndNpuFamilyNames) {
  const CliResult r = run_cli(
      {"explain", "10", "--scale", "0.25", "--presets", "npu-he-q15-int32, npu-haz-f24-sat24"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(result_of(r.out, "npu-he-q15-int32"), "2");
  EXPECT_EQ(result_of(r.out, "npu-haz-f24-sat24"), "3");
  EXPECT_TRUE(line_starting_with(r.out, "tflite-reference").empty()) << r.out;
}

// Every row's result is the library's reference result for that preset's parameters.
TEST(CliExplain, ResultsMatchTheReferencePolicies) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<std::int32_t> acc_dist(-(1 << 20), 1 << 20);
  std::uniform_int_distribution<std::int32_t> m_dist(1 << 30, 2147483647);
  std::uniform_int_distribution<std::int32_t> shift_dist(-12, 2);
  for (int i = 0; i < 12; ++i) {
    const std::int32_t acc = acc_dist(rng), m = m_dist(rng), shift = shift_dist(rng);
    const CliResult r = run_cli({"explain", std::to_string(acc), "--multiplier", std::to_string(m),
                                 "--shift", std::to_string(shift)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const qparity::Preset& p : qparity::named_presets()) {
      const qparity::RequantParams params = qparity::cli::params_from_multiplier(p.core, m, shift);
      EXPECT_EQ(result_of(r.out, p.name), std::to_string(qparity::requantize(p.core, acc, params)))
          << p.name << " acc=" << acc << " M=" << m << " shift=" << shift;
    }
  }
  for (double scale : {0.0037, 0.3, 0.00066894531250000005, 1.5, 0.0123456789}) {
    for (std::int32_t acc : {135, -135, 405, 1, -1, 8, 747, -747, 2242, 118786}) {
      const CliResult r =
          run_cli({"explain", std::to_string(acc), "--scale", fmt::format("{}", scale)});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      for (const qparity::Preset& p : qparity::named_presets()) {
        const qparity::RequantParams params = qparity::cli::params_from_scale(p, scale);
        EXPECT_EQ(result_of(r.out, p.name),
                  std::to_string(qparity::requantize(p.core, acc, params)))
            << p.name << " acc=" << acc << " scale=" << scale;
      }
    }
  }
}

struct BadExplain {
  std::string name;  ///< test name suffix
  std::vector<std::string> args;
  std::string message;  ///< expected on stderr
};

void PrintTo(const BadExplain& b, std::ostream* os) { *os << b.name; }

class CliExplainErrors : public testing::TestWithParam<BadExplain> {};

TEST_P(CliExplainErrors, OneClearLineAndExitCode2) {
  std::vector<std::string> args = {"explain"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(r.err, GetParam().message)) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, CliExplainErrors,
    testing::Values(
        BadExplain{"ScaleNotANumber",
                   {"1", "--scale", "abc"},
                   "qparity explain: --scale 'abc' is not a number"},
        BadExplain{"ScaleZero",
                   {"1", "--scale", "0"},
                   "--scale = 0 is out of range; allowed: a finite value"},
        BadExplain{"ScaleNegative", {"1", "--scale", "-0.5"}, "--scale = -0.5 is out of range"},
        BadExplain{"ScaleNan", {"1", "--scale", "nan"}, "--scale = nan is out of range"},
        BadExplain{"ScaleInf", {"1", "--scale", "inf"}, "--scale = inf is out of range"},
        BadExplain{"ScaleOverflow", {"1", "--scale", "1e999"}, "--scale = 1e999 is out of range"},
        BadExplain{"ScaleTooLarge",
                   {"1", "--scale", "4294967296"},
                   "allowed: a finite value in [2^-64, 2^31]"},
        BadExplain{"MultiplierTooLarge",
                   {"1", "--multiplier", "2147483648", "--shift", "0"},
                   "--multiplier = 2147483648 is out of range; allowed: [0, 2147483647]"},
        BadExplain{"MultiplierNegative",
                   {"1", "--multiplier", "-1", "--shift", "0"},
                   "--multiplier = -1 is out of range"},
        BadExplain{"MultiplierNotAnInteger",
                   {"1", "--multiplier", "1x", "--shift", "0"},
                   "--multiplier '1x' is not an integer"},
        BadExplain{"ShiftTooLarge",
                   {"1", "--multiplier", "1", "--shift", "31"},
                   "--shift = 31 is out of range; allowed: [-31, 30]"},
        BadExplain{"ShiftTooSmall",
                   {"1", "--multiplier", "1", "--shift", "-32"},
                   "--shift = -32 is out of range"},
        BadExplain{
            "MultiplierWithoutShift", {"1", "--multiplier", "1"}, "--multiplier needs --shift"},
        BadExplain{"ShiftWithoutMultiplier", {"1", "--shift", "1"}, "--shift needs --multiplier"},
        BadExplain{"NoParameters", {"1"}, "give either --scale S or --multiplier M --shift SH"},
        BadExplain{"ScaleAndMultiplier",
                   {"1", "--scale", "1", "--multiplier", "1", "--shift", "1"},
                   "--scale cannot be combined with --multiplier/--shift"},
        BadExplain{"AccTooLarge",
                   {"2147483648", "--scale", "1"},
                   "ACC = 2147483648 is out of range; allowed: [-2147483648, 2147483647]"},
        BadExplain{"AccNotAnInteger", {"1.5", "--scale", "1"}, "ACC '1.5' is not an integer"},
        BadExplain{"ZeroPointOutOfRange",
                   {"1", "--scale", "1", "--zero-point", "70000"},
                   "--zero-point = 70000 is out of range; allowed: [-32768, 65535]"},
        BadExplain{"UnknownPreset",
                   {"1", "--scale", "1", "--presets", "nope"},
                   "preset 'nope' is unknown"},
        BadExplain{"EmptyPresetName",
                   {"1", "--scale", "1", "--presets", "tflite-single,,gemmlowp"},
                   "has an empty name"},
        BadExplain{"MissingAcc", {"--scale", "1"}, "give ACC (one accumulator) or --model FILE --op OP"},
        BadExplain{"ScaleWithoutValue", {"1", "--scale"}, "--scale"}),
    [](const testing::TestParamInfo<BadExplain>& info) { return info.param.name; });

}  // namespace
}  // namespace qparity_cli_test
