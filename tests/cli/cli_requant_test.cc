// `qparity requant` end to end: the documented vectors of docs/semantics.md §11 for several
// presets, agreement with the reference policies on random input, input format, and error handling.
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "preset_params.h"
#include "qparity/isa.h"
#include "qparity/reference.h"

namespace qparity_cli_test {
namespace {

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

constexpr std::int64_t kM30 = 1073741824;  // 2^30: Q31 encoding of 0.5
constexpr std::int64_t kMMax = 2147483647;

// The presets whose rounding core is the column of docs/semantics.md §11.1 / §11.3.
// DR, UU, SR, AZ, RNE, TZ, FL, F32.
const std::vector<std::string> kColumnPresets = {
    "tflite-reference", "ruy-x86",          "tflite-single",    "npu-haz-q31-int32",
    "npu-he-q31-int32", "npu-tz-q31-int32", "npu-fl-q31-int32", "xnnpack-fp32"};

struct VectorRow {
  std::int64_t acc, multiplier, shift;
  std::vector<std::string> expected;  ///< per kColumnPresets; "" = not documented, not checked
};

// docs/semantics.md §11.1 (ties and near-ties, exact power-of-two scales) and §11.3 (extremes).
const std::vector<VectorRow> kVectors = {
    {5, kM30, 0, {"3", "3", "3", "3", "2", "2", "2", "2"}},
    {-5, kM30, 0, {"-2", "-2", "-2", "-3", "-2", "-2", "-3", "-2"}},
    {-3, kM30, 0, {"-1", "-1", "-1", "-2", "-2", "-1", "-2", "-2"}},
    {10, kM30, -1, {"3", "3", "3", "3", "2", "2", "2", "2"}},
    {-10, kM30, -1, {"-3", "-2", "-2", "-3", "-2", "-2", "-3", "-2"}},
    {6, kM30, -1, {"2", "2", "2", "2", "2", "1", "1", "2"}},
    {-6, kM30, -1, {"-2", "-1", "-1", "-2", "-2", "-1", "-2", "-2"}},
    {2, kM30, -1, {"1", "1", "1", "1", "0", "0", "0", "0"}},
    {-2, kM30, -1, {"-1", "0", "0", "-1", "0", "0", "-1", "0"}},
    {-12, kM30, -2, {"-2", "-1", "-1", "-2", "-2", "-1", "-2", "-2"}},
    {7, kM30, -2, {"1", "1", "1", "1", "1", "0", "0", "1"}},
    {-101, kM30, 0, {"-50", "-50", "-50", "-51", "-50", "-50", "-51", "-50"}},
    {-99, kM30, 0, {"-49", "-49", "-49", "-50", "-50", "-49", "-50", "-50"}},
    // §11.3
    {-2147483648, kM30, -31, {"-1", "0", "0", "-1", "0", "0", "-1", "0"}},
    {1073741824, kMMax, -31, {"1", "1", "0", "0", "0", "0", "0", "0"}},
    {-2147483648, kMMax, -31, {"-1", "-1", "-1", "-1", "-1", "0", "-1", "-1"}},
    {2147483647, kMMax, -31, {"1", "1", "1", "1", "1", "0", "0", "1"}},
    {2147483647,
     kMMax,
     0,
     {"2147483646", "2147483646", "2147483646", "2147483646", "2147483646", "2147483646",
      "2147483646", ""}},
    {-2147483648,
     kMMax,
     0,
     {"-2147483647", "-2147483647", "-2147483647", "-2147483647", "-2147483647", "-2147483647",
      "-2147483647", ""}},
    {-2147483647,
     kMMax,
     0,
     {"-2147483646", "-2147483646", "-2147483646", "-2147483646", "-2147483646", "-2147483646",
      "-2147483647", ""}},
    {3, kMMax, -1, {"2", "2", "1", "1", "1", "1", "1", "2"}},
    {-3, kMMax, -1, {"-2", "-1", "-1", "-1", "-1", "-1", "-2", "-2"}},
    {2147483647,
     kMMax,
     -1,
     {"1073741823", "1073741823", "1073741823", "1073741823", "1073741823", "1073741823",
      "1073741823", ""}},
    {-2147483648,
     kMMax,
     -1,
     {"-1073741824", "-1073741823", "-1073741823", "-1073741824", "-1073741824", "-1073741823",
      "-1073741824", ""}},
    {1,
     kM30,
     30,
     {"536870912", "536870912", "536870912", "536870912", "536870912", "536870912", "536870912",
      "536870912"}},
    {3,
     kM30,
     30,
     {"-536870912", "-536870912", "1610612736", "1610612736", "1610612736", "1610612736",
      "1610612736", "1610612736"}},
    {4, kM30, 30, {"0", "0", "-2147483648", "", "", "", "", ""}},
    {-4, kM30, 30, {"0", "0", "-2147483648", "", "", "", "", ""}},
};

TEST(CliRequant, SemanticsVectorsTiesAndExtremes) {
  std::string input = "# acc,multiplier,shift (docs/semantics.md 11.1 and 11.3)\n";
  for (const VectorRow& row : kVectors) {
    input += fmt::format("{},{},{}\n", row.acc, row.multiplier, row.shift);
  }
  for (std::size_t c = 0; c < kColumnPresets.size(); ++c) {
    const CliResult r = run_cli({"requant", "--preset", kColumnPresets[c]}, input);
    ASSERT_EQ(r.exit_code, 0) << kColumnPresets[c] << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const std::vector<std::string> lines = split_lines(r.out);
    ASSERT_EQ(lines.size(), kVectors.size()) << kColumnPresets[c];
    for (std::size_t i = 0; i < kVectors.size(); ++i) {
      if (kVectors[i].expected[c].empty()) continue;
      EXPECT_EQ(lines[i], kVectors[i].expected[c])
          << kColumnPresets[c] << ": acc=" << kVectors[i].acc << " M=" << kVectors[i].multiplier
          << " shift=" << kVectors[i].shift;
    }
  }
}

// docs/semantics.md §11.2: double-rounding discrepancies on non-tie values, parameters from
// TFLite's QuantizeMultiplier; both as explicit (M, shift) and derived by the presets from the
// scale.
TEST(CliRequant, SemanticsVectorsDoubleRoundingOnNonTies) {
  struct Row {
    const char* scale;
    std::int64_t m, shift, acc;
    const char *dr_az, *sr_up, *dr_up;
  };
  const std::vector<Row> rows = {
      {"0.0037", 2034096511, -8, 135, "1", "0", "1"},
      {"0.0037", 2034096511, -8, -135, "-1", "0", "0"},
      {"0.0037", 2034096511, -8, 405, "2", "1", "2"},
      {"0.3", 1288490189, -1, 1, "1", "0", "1"},
      {"0.3", 1288490189, -1, -1, "-1", "0", "0"},
      {"0.3", 1288490189, -1, 8, "3", "2", "3"},
      {"0.00066894531250000005", 1471026299, -10, 747, "1", "0", "1"},
      {"0.00066894531250000005", 1471026299, -10, -747, "-1", "0", "0"},
      {"0.00066894531250000005", 1471026299, -10, 2242, "2", "1", "2"},
  };
  std::string by_multiplier, by_scale;
  std::vector<std::string> dr_az, sr_up, dr_up;
  for (const Row& r : rows) {
    by_multiplier += fmt::format("{},{},{}\n", r.acc, r.m, r.shift);
    by_scale += fmt::format("{},{}\n", r.acc, r.scale);
    dr_az.push_back(r.dr_az);
    sr_up.push_back(r.sr_up);
    dr_up.push_back(r.dr_up);
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"tflite-reference", dr_az}, {"gemmlowp", dr_az},      {"cmsis-nn", dr_az},
      {"tosa-double", dr_az},      {"tflite-single", sr_up}, {"cmsis-nn-single", sr_up},
      {"tosa-single", sr_up},      {"ruy-arm", sr_up},       {"ruy-x86", dr_up}};
  for (const auto& [preset, values] : expected) {
    CliResult r = run_cli({"requant", "--preset", preset}, by_multiplier);
    ASSERT_EQ(r.exit_code, 0) << preset << ": " << r.err;
    EXPECT_EQ(split_lines(r.out), values) << preset;
    r = run_cli({"requant", "--preset", preset, "--scale"}, by_scale);
    ASSERT_EQ(r.exit_code, 0) << preset << ": " << r.err;
    EXPECT_EQ(split_lines(r.out), values) << preset << " --scale";
  }
}

// docs/semantics.md §11.5: SQDMULH + SRSHL with the pre-shift by shift+1 (ruy ARM) vs scalar SR.
TEST(CliRequant, SemanticsVectorsNeonPreShift) {
  const std::string input =
      "1073741824,1073741824,0\n2147483647,1073741824,0\n-2147483648,1073741824,0\n"
      "1073741823,1073741824,0\n";
  CliResult r = run_cli({"requant", "--preset", "ruy-arm"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(split_lines(r.out), (std::vector<std::string>{"-536870912", "0", "0", "536870912"}));
  r = run_cli({"requant", "--preset", "tflite-single"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(split_lines(r.out),
            (std::vector<std::string>{"536870912", "1073741824", "-1073741824", "536870912"}));
}

// docs/semantics.md §11.6: Q15 (TFLite int16x8) vs full Q31 single rounding, scale 0.0123456789.
TEST(CliRequant, SemanticsVectorsQ15) {
  const std::string by_multiplier =
      "118786,1696777188,-6\n490979,1696777188,-6\n625602,1696777188,-6\n";
  const std::string by_scale = "118786,0.0123456789\n490979,0.0123456789\n625602,0.0123456789\n";
  const std::vector<std::string> q15 = {"1467", "6062", "7724"};
  const std::vector<std::string> q31 = {"1466", "6061", "7723"};
  for (const auto& [args, input, expected] :
       {std::make_tuple(std::vector<std::string>{"--preset", "tflite-16x8"}, by_multiplier, q15),
        std::make_tuple(std::vector<std::string>{"--preset", "tflite-16x8", "--scale"}, by_scale,
                        q15),
        std::make_tuple(std::vector<std::string>{"--preset", "tflite-single"}, by_multiplier, q31),
        std::make_tuple(std::vector<std::string>{"--preset", "tflite-single", "--scale"}, by_scale,
                        q31)}) {
    std::vector<std::string> full = {"requant"};
    full.insert(full.end(), args.begin(), args.end());
    const CliResult r = run_cli(full, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(split_lines(r.out), expected) << args[1];
  }
}

// Random records in runs of shared parameters, for every named preset and a few NPU members:
// the output is exactly the reference policy's result, on every ISA path the dispatcher may pick
// (QPARITY_ISA caps it; a cap above what the CPU supports runs the best supported path).
TEST(CliRequant, RandomInputMatchesTheReferencePolicies) {
  std::vector<std::string> presets;
  for (const qparity::Preset& p : qparity::named_presets()) presets.push_back(p.name);
  presets.insert(presets.end(), {"npu-haz-q31-int32", "npu-tz-q15-int64", "npu-fl-f24-wrap24"});
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int32_t> acc_full(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<std::int32_t> acc_small(-(1 << 18), 1 << 18);
  std::uniform_int_distribution<std::int32_t> m_dist(1, INT32_MAX);
  std::uniform_int_distribution<std::int32_t> shift_dist(-31, 13);  // valid for Q31 and Q15
  std::uniform_int_distribution<int> run_len(1, 300);
  for (const std::string& name : presets) {
    const qparity::Preset preset = qparity::find_preset(name);
    std::string input;
    std::vector<std::int32_t> expected;
    while (expected.size() < 20000) {
      const std::int32_t m = m_dist(rng), shift = shift_dist(rng);
      const qparity::RequantParams p = qparity::cli::params_from_multiplier(preset.core, m, shift);
      for (int i = run_len(rng); i > 0; --i) {
        const std::int32_t acc = (rng() & 7) == 0 ? acc_full(rng) : acc_small(rng);
        input += fmt::format("{},{},{}\n", acc, m, shift);
        expected.push_back(qparity::requantize(preset.core, acc, p));
      }
    }
    std::vector<std::string> caps = {""};  // no cap: the best supported path
    for (qparity::Isa isa : qparity::all_isas()) caps.push_back(qparity::to_string(isa));
    for (const std::string& isa : caps) {
      const CliResult r =
          run_cli({"requant", "--preset", name}, input, {std::string("QPARITY_ISA=") + isa});
      ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
      const std::vector<std::string> lines = split_lines(r.out);
      ASSERT_EQ(lines.size(), expected.size()) << name;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(lines[i], std::to_string(expected[i]))
            << name << " record " << i << " QPARITY_ISA=" << isa;
      }
    }
  }
}

TEST(CliRequant, BadIsaEnvironmentVariableIsExitCode2) {
  const CliResult r =
      run_cli({"requant", "--preset", "tflite-single"}, "1,1073741824,0\n", {"QPARITY_ISA=bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(r.err, "qparity requant: ISA 'bogus' is unknown")) << r.err;
}

TEST(CliRequant, RandomScalesMatchEachPresetsDerivation) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log2_scale(-20.0, 2.0);
  std::uniform_int_distribution<std::int32_t> acc_dist(-(1 << 20), 1 << 20);
  std::uniform_int_distribution<int> run_len(1, 50);
  for (const qparity::Preset& preset : qparity::named_presets()) {
    std::string input;
    std::vector<std::int32_t> expected;
    while (expected.size() < 5000) {
      const double scale = std::exp2(log2_scale(rng));
      const std::string text = fmt::format("{}", scale);  // shortest text, same double
      const qparity::RequantParams p = qparity::cli::params_from_scale(preset, scale);
      for (int i = run_len(rng); i > 0; --i) {
        const std::int32_t acc = acc_dist(rng);
        input += fmt::format("{},{}\n", acc, text);
        expected.push_back(qparity::requantize(preset.core, acc, p));
      }
    }
    const CliResult r = run_cli({"requant", "--preset", preset.name, "--scale"}, input);
    ASSERT_EQ(r.exit_code, 0) << preset.name << ": " << r.err;
    const std::vector<std::string> lines = split_lines(r.out);
    ASSERT_EQ(lines.size(), expected.size()) << preset.name;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(lines[i], std::to_string(expected[i])) << preset.name << " record " << i;
    }
  }
}

TEST(CliRequant, SkipsBlankAndCommentLinesAndAcceptsLooseFormatting) {
  const std::string input =
      "# comment\n"
      "\n"
      "   \n"
      "  # indented comment\n"
      "-10,1073741824,-1\r\n"
      " +10 ,\t1073741824 , -1 \n"
      "5,1073741824,0";  // no final newline
  const CliResult r = run_cli({"requant", "--preset", "tflite-reference"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-3\n3\n3\n");
}

TEST(CliRequant, EmptyInputGivesEmptyOutput) {
  const CliResult r = run_cli({"requant", "--preset", "tflite-single"}, "# only a comment\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(CliRequant, InputFileAndStdinGiveTheSameOutput) {
  const std::string input = "135,2034096511,-8\n-135,2034096511,-8\n405,2034096511,-8\n";
  const std::string path = write_temp_file(input);
  const CliResult from_file = run_cli({"requant", "--preset", "tflite-reference", "--input", path});
  const CliResult from_stdin = run_cli({"requant", "--preset", "tflite-reference"}, input);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.out, "1\n-1\n2\n");
  EXPECT_EQ(from_file.out, from_stdin.out);
}

TEST(CliRequant, MissingInputFileIsExitCode2) {
  const CliResult r =
      run_cli({"requant", "--preset", "tflite-reference", "--input", "/nonexistent/qparity.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "qparity requant: --input: cannot open '/nonexistent/qparity.csv'"))
      << r.err;
}

TEST(CliRequant, UnknownPresetReportsFindPresetsMessage) {
  const CliResult r = run_cli({"requant", "--preset", "nope"}, "1,1,1\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(contains(r.err, "preset 'nope' is unknown; allowed: tflite-reference")) << r.err;
  EXPECT_TRUE(contains(r.err, "npu-{hu|haz|he|tz|fl}")) << r.err;
}

TEST(CliRequant, MissingPresetOptionIsExitCode2) {
  const CliResult r = run_cli({"requant"}, "1,1,1\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--preset")) << r.err;
}

TEST(CliRequant, MalformedLineAfterManyGoodOnesWritesNothing) {
  std::string input;
  for (int i = 0; i < 5000; ++i) input += fmt::format("{},1073741824,-1\n", i);
  input += "1,2\n";
  for (int i = 0; i < 10; ++i) input += "1,1073741824,-1\n";
  const CliResult r = run_cli({"requant", "--preset", "tflite-reference"}, input);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << "partial output of " << r.out.size() << " bytes";
  EXPECT_EQ(r.err,
            "qparity requant: line 5001: expected 3 comma-separated fields (acc,multiplier,shift), "
            "got 2\n");
}

struct BadRequant {
  std::string name;               ///< test name suffix
  std::vector<std::string> args;  ///< after "requant"
  std::string input;
  std::string message;  ///< expected on stderr, after "qparity requant: "
};

void PrintTo(const BadRequant& b, std::ostream* os) { *os << b.name; }

class CliRequantErrors : public testing::TestWithParam<BadRequant> {};

TEST_P(CliRequantErrors, ReportsTheLineAndExitCode2) {
  std::vector<std::string> args = {"requant"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const CliResult r = run_cli(args, GetParam().input);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(r.err, "qparity requant: " + GetParam().message)) << r.err;
  EXPECT_EQ(split_lines(r.err).size(), 1u) << r.err;
}

const std::vector<std::string> kRef = {"--preset", "tflite-reference"};
const std::vector<std::string> kRefScale = {"--preset", "tflite-reference", "--scale"};

INSTANTIATE_TEST_SUITE_P(
    MalformedInput, CliRequantErrors,
    testing::Values(
        BadRequant{"TooFewFields", kRef, "1,2\n",
                   "line 1: expected 3 comma-separated fields (acc,multiplier,shift), got 2"},
        BadRequant{"TooManyFields", kRef, "1,2,3,4\n", "line 1: expected 3 comma-separated fields"},
        BadRequant{"AccNotAnInteger", kRef, "# header\n\n1,2,3\nabc,2,3\n",
                   "line 4: acc 'abc' is not an integer"},
        BadRequant{"AccTooLarge", kRef, "2147483648,1,0\n",
                   "line 1: acc = 2147483648 is out of range; allowed: [-2147483648, 2147483647]"},
        BadRequant{"AccOverflowsInt64", kRef, "-99999999999999999999999,1,0\n",
                   "line 1: acc = -99999999999999999999999 is out of range"},
        BadRequant{"MultiplierTooLarge", kRef, "1,2147483648,0\n",
                   "line 1: multiplier = 2147483648 is out of range; allowed: [0, 2147483647]"},
        BadRequant{"MultiplierNegative", kRef, "1,-5,0\n",
                   "line 1: multiplier = -5 is out of range"},
        BadRequant{"MultiplierEmpty", kRef, "1,,0\n", "line 1: multiplier '' is not an integer"},
        BadRequant{"MultiplierWithBlank", kRef, "1,2 3,0\n",
                   "line 1: multiplier '2 3' is not an integer"},
        BadRequant{"ShiftTooLarge", kRef, "1,1,31\n",
                   "line 1: shift = 31 is out of range; allowed: [-31, 30]"},
        BadRequant{"ShiftTooSmall", kRef, "1,1,-32\n", "line 1: shift = -32 is out of range"},
        BadRequant{"ShiftNotAnInteger", kRef, "1,1,1.5\n", "line 1: shift '1.5' is not an integer"},
        BadRequant{"ShiftHex", kRef, "1,1,0x10\n", "line 1: shift '0x10' is not an integer"},
        BadRequant{"ScaleNotANumber", kRefScale, "1,abc\n", "line 1: scale 'abc' is not a number"},
        BadRequant{"ScaleZero", kRefScale, "1,0\n",
                   "line 1: scale = 0 is out of range; allowed: a finite value > 0"},
        BadRequant{"ScaleNegative", kRefScale, "1,-2\n", "line 1: scale = -2 is out of range"},
        BadRequant{"ScaleInf", kRefScale, "1,inf\n", "line 1: scale = inf is out of range"},
        BadRequant{"ScaleNan", kRefScale, "1,nan\n", "line 1: scale = nan is out of range"},
        BadRequant{"ScaleModeTooManyFields", kRefScale, "1,1,2\n",
                   "line 1: expected 2 comma-separated fields (acc,scale), got 3"},
        BadRequant{"ScaleNotRepresentable", kRefScale, "1,0.5\n2,3e9\n",
                   "line 2: scale = 3000000000 cannot be used with DR-AZ"},
        BadRequant{"RndnuScaleRange",
                   {"--preset", "xnnpack-rndnu", "--scale"},
                   "1,1000\n",
                   "line 1: scale = 1000 is out of range; allowed: [2^-32, 256)"},
        BadRequant{"Q15ShiftRange",
                   {"--preset", "tflite-16x8"},
                   "1,1073741824,20\n",
                   "line 1: shift = 20 is out of range; allowed: [-47, 13]"},
        BadRequant{"FloatMultiplierZero",
                   {"--preset", "xnnpack-fp32"},
                   "1,0,0\n",
                   "line 1: multiplier = 0 is out of range for F32"}),
    [](const testing::TestParamInfo<BadRequant>& info) { return info.param.name; });

}  // namespace
}  // namespace qparity_cli_test
