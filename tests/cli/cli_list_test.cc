// `qparity --version`, `--help` on every command, `qparity list`, and bad top-level usage.
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "qparity/isa.h"
#include "qparity/reference.h"

namespace qparity_cli_test {
namespace {

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(CliVersion, PrintsTheLibraryVersion) {
  const CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  const std::string expected = "qparity " + std::to_string(qparity::kVersionMajor) + "." +
                               std::to_string(qparity::kVersionMinor) + "." +
                               std::to_string(qparity::kVersionPatch);
  EXPECT_EQ(r.out.compare(0, expected.size(), expected), 0) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliVersion, ListsTheCompiledSimdPathsAndTheActiveOne) {
  // The tool runs in this process's environment, so under the same QPARITY_ISA cap.
  const std::string compiled = qparity::isa_names(qparity::compiled_isas());
  const std::string expected = "(SIMD paths compiled: " + compiled + "; active on this CPU: " +
                               qparity::to_string(qparity::active_isa()) + ")";
  const CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, expected)) << "expected " << expected << "\n" << r.out;
}

TEST(CliHelp, TopLevelListsEveryCommand) {
  const CliResult r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command : {"list", "explain", "requant"}) {
    EXPECT_TRUE(contains(r.out, command)) << command << "\n" << r.out;
  }
}

TEST(CliHelp, EveryCommandHasHelp) {
  for (const char* command : {"list", "explain", "requant"}) {
    const CliResult r = run_cli({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_TRUE(contains(r.out, "--help")) << command << "\n" << r.out;
  }
}

TEST(CliHelp, RequantHelpDocumentsInputFormatAndSkippedLines) {
  const CliResult r = run_cli({"requant", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "acc,multiplier,shift")) << r.out;
  EXPECT_TRUE(contains(r.out, "acc,scale")) << r.out;
  EXPECT_TRUE(contains(r.out, "Blank lines and lines starting with # are skipped")) << r.out;
  EXPECT_TRUE(contains(r.out, "nothing to stdout")) << r.out;
}

TEST(CliHelp, ExplainHelpGivesTheExamples) {
  const CliResult r = run_cli({"explain", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "qparity explain 135 --scale 0.0037")) << r.out;
  EXPECT_TRUE(contains(r.out, "--multiplier")) << r.out;
}

TEST(CliList, ShowsEveryNamedPresetWithItsAxesAndSource) {
  const CliResult r = run_cli({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const qparity::Preset& p : qparity::named_presets()) {
    const std::string line = line_starting_with(r.out, p.name);
    ASSERT_FALSE(line.empty()) << "missing preset " << p.name << "\n" << r.out;
    const std::vector<std::string> t = tokens(line);
    ASSERT_GE(t.size(), 6u) << line;
    EXPECT_EQ(t[1], qparity::to_string(p.core)) << line;
    EXPECT_EQ(t[2], qparity::to_string(p.derivation)) << line;
    EXPECT_EQ(t[3], qparity::to_string(p.composition)) << line;
    EXPECT_EQ(t[4], qparity::to_string(p.accumulator)) << line;
    EXPECT_TRUE(contains(line, p.description)) << line;
    EXPECT_TRUE(contains(r.out, "source: " + p.source)) << p.name;
  }
}

TEST(CliList, DescribesTheNpuFamilyNamingScheme) {
  const CliResult r = run_cli({"list"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "npu-{hu|haz|he|tz|fl}-{q31|q15|f24}-{int32|int64|satN|wrapN}"))
      << r.out;
}

TEST(CliList, ColumnsAreAligned) {
  const CliResult r = run_cli({"list"});
  ASSERT_EQ(r.exit_code, 0);
  const std::vector<std::string> lines = split_lines(r.out);
  ASSERT_GE(lines.size(), 3u);
  // The CORE column starts at the same offset on the header and on every preset row.
  const std::size_t core_col = lines[0].find("CORE");
  ASSERT_NE(core_col, std::string::npos);
  for (const qparity::Preset& p : qparity::named_presets()) {
    const std::string line = line_starting_with(r.out, p.name);
    EXPECT_EQ(line.find(qparity::to_string(p.core), p.name.size()), core_col) << line;
  }
}

TEST(CliList, CoresShowsEveryCoreWithItsTieResults) {
  const CliResult r = run_cli({"list", "--cores"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (qparity::RoundingCore core : qparity::kAllRoundingCores) {
    EXPECT_FALSE(line_starting_with(r.out, qparity::to_string(core)).empty())
        << qparity::to_string(core) << "\n"
        << r.out;
  }
  // Columns +2.5 -2.5 +1.5 -1.5 +0.5 -0.5 +0.75 -0.75 (docs/semantics.md §11.1 rows; -0.75 is
  // DR-UP's double-rounding artefact: SRDHM makes -0.5 of -0.75, and SRSHL rounds it up to 0).
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"DR-AZ", {"3", "-3", "2", "-2", "1", "-1", "1", "-1"}},
      {"DR-UP", {"3", "-2", "2", "-1", "1", "0", "1", "0"}},
      {"SR-UP", {"3", "-2", "2", "-1", "1", "0", "1", "-1"}},
      {"SR-AZ", {"3", "-3", "2", "-2", "1", "-1", "1", "-1"}},
      {"SR-EVEN", {"2", "-2", "2", "-2", "0", "0", "1", "-1"}},
      {"TRUNC", {"2", "-2", "1", "-1", "0", "0", "0", "0"}},
      {"FLOOR", {"2", "-3", "1", "-2", "0", "-1", "0", "-1"}},
      {"F32", {"2", "-2", "2", "-2", "0", "0", "1", "-1"}},
  };
  for (const auto& [core, values] : expected) {
    const std::vector<std::string> t = tokens(line_starting_with(r.out, core));
    ASSERT_GE(t.size(), 9u) << core;
    EXPECT_EQ(std::vector<std::string>(t.begin() + 1, t.begin() + 9), values) << core;
  }
}

TEST(CliUsage, MissingOrUnknownCommandIsExitCode2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, {"bogus"}, {"list", "--bogus"}, {"--bogus"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << (args.empty() ? "(no arguments)" : args[0]);
    EXPECT_FALSE(r.err.empty());
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CliList, ProfilesShowsEveryRuntimeProfile) {
  const CliResult r = run_cli({"list", "--profiles"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"tflite-xnnpack-x86", "tflite-xnnpack-arm", "tflite-xnnpack-wasm", "tflite-builtin-x86",
                           "tflite-builtin-arm", "tflite-builtin-wasm"}) {
    EXPECT_FALSE(line_starting_with(r.out, name).empty()) << name << "\n" << r.out;
  }
}

TEST(CliList, OpsShowsWhichArithmeticEachOpUsesPerProfile) {
  const CliResult r = run_cli({"list", "--ops"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // XNNPACK takes a conv with a constant filter; TFLite's own kernel (ruy on x86) runs it when the
  // filter is computed at run time; MUL is XNNPACK's float32 formula on x86 and rndnu on ARM.
  const std::string conv = line_starting_with(r.out, "CONV_2D");
  EXPECT_TRUE(contains(conv, "XNNPACK: xnnpack-fp32")) << conv;
  EXPECT_TRUE(contains(r.out, "int8, filter given at run time     TFLite kernel: ruy-x86")) << r.out;
  const std::string mul = line_starting_with(r.out, "MUL");
  EXPECT_TRUE(contains(mul, "xnnpack-x86") && contains(mul, "XNNPACK: xnnpack-rndnu [xnnpack-arm]")) << mul;
  for (const char* op : {"DEPTHWISE_CONV_2D", "SOFTMAX", "MEAN", "AVERAGE_POOL_2D", "RELU6", "PADV2"}) {
    EXPECT_FALSE(line_starting_with(r.out, op).empty()) << op;
  }
  EXPECT_FALSE(contains(r.out, "not supported")) << r.out;
}

TEST(CliList, OpsWithChosenProfilesAndAnUnknownOne) {
  const CliResult r = run_cli({"list", "--ops", "--with", "tflite-reference,npu-verisilicon"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(line_starting_with(r.out, "CONV_2D"), "reference: tflite-reference")) << r.out;
  EXPECT_TRUE(contains(line_starting_with(r.out, "CONV_2D"), "NPU: npu-verisilicon")) << r.out;
  const CliResult bad = run_cli({"list", "--ops", "--with", "tflite-nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "--with: 'tflite-nope' is neither a runtime profile nor a preset")) << bad.err;
  EXPECT_EQ(run_cli({"list", "--with", "tflite-reference"}).exit_code, 2);  // --with needs --ops
}

}  // namespace
}  // namespace qparity_cli_test
