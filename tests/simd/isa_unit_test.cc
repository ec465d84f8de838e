// Unit tests of the ISA bookkeeping (label: unit).
//
//  * IsaNames.*: the Isa values, their capability order and names, and the error for a bad name.
//  * IsaCap.*: isas_up_to(), the mask QPARITY_ISA=<name> allows (the environment variable itself
//    is tested end to end by Dispatch.EnvironmentCap in requantize_unit_test.cc).
//  * IsaLevels.*: the CPUID/XCR0 definition of each path (kernels/dispatch/isa_levels.h) on the
//    feature sets of real CPU generations, including AMX with the Linux permission refused, which
//    this machine cannot show, and over every combination of feature flags.
//  * IsaDetection.*: supported_isas() on this machine agrees with those definitions, and kAmx is
//    reported only when the kernel's own record says the permission was granted.
//  * IsaCoverage.*: QPARITY_EXPECT_ISAS naming an ISA this machine lacks fails the run.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <ios>
#include <sstream>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/wait.h>
#include <unistd.h>
#endif
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#endif

#include "isa_coverage.h"
#include "kernels/dispatch/cpu_features.h"
#include "kernels/dispatch/isa_levels.h"
#include "qparity/error.h"
#include "qparity/isa.h"
#include "qparity/requantize.h"

namespace {

using namespace qparity;
using internal::CpuFeatures;

constexpr IsaMask kAll = (IsaMask{1} << 7) - 1;

IsaMask mask_of_list(std::initializer_list<Isa> isas) {
  IsaMask m = 0;
  for (Isa isa : isas) m |= mask_of(isa);
  return m;
}

// ---- names and order ----------------------------------------------------------------------------

TEST(IsaNames, EveryIsaInCapabilityOrder) {
  const std::vector<Isa> want = {Isa::kScalar, Isa::kSse41,       Isa::kAvx2, Isa::kAvxVnni,
                                 Isa::kAvx512, Isa::kAvx512Vnni, Isa::kAmx};
  const std::vector<std::string> names = {"scalar", "sse41",      "avx2", "avxvnni",
                                          "avx512", "avx512vnni", "amx"};
  ASSERT_EQ(all_isas(), want);
  for (std::size_t i = 0; i < want.size(); ++i) {
    // One bit each, in this order: active_isa() picks the highest bit, QPARITY_ISA a prefix.
    EXPECT_EQ(mask_of(want[i]), IsaMask{1} << i) << names[i];
    EXPECT_EQ(to_string(want[i]), names[i]);
    EXPECT_EQ(isa_from_string(names[i]), want[i]) << names[i];
  }
}

TEST(IsaNames, UnknownNameListsEveryName) {
  for (const char* bad : {"avx512_vnni", "AMX", "avx-vnni", "amx-int8", ""}) {
    try {
      isa_from_string(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const InvalidArgument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("allowed: scalar, sse41, avx2, avxvnni, avx512, avx512vnni, amx"),
                std::string::npos)
          << msg;
    }
  }
}

TEST(IsaNames, NamesOfAMaskLowestFirst) {
  EXPECT_EQ(isa_names(0), "");
  EXPECT_EQ(isa_names(mask_of(Isa::kAvx2)), "avx2");
  EXPECT_EQ(isa_names(mask_of(Isa::kAvx512Vnni) | mask_of(Isa::kScalar) | mask_of(Isa::kAvx2)),
            "scalar, avx2, avx512vnni");
  EXPECT_EQ(isa_names(isas_up_to(Isa::kAvx2), ","), "scalar,sse41,avx2");
  EXPECT_EQ(isa_names(~IsaMask{0}), "scalar, sse41, avx2, avxvnni, avx512, avx512vnni, amx");
}

// ---- the QPARITY_ISA cap ------------------------------------------------------------------------

TEST(IsaCap, EverythingUpToAndIncludingTheNamedIsa) {
  EXPECT_EQ(isas_up_to(Isa::kScalar), mask_of(Isa::kScalar));
  EXPECT_EQ(isas_up_to(Isa::kAvx2), mask_of_list({Isa::kScalar, Isa::kSse41, Isa::kAvx2}));
  EXPECT_EQ(isas_up_to(Isa::kAvxVnni),
            mask_of_list({Isa::kScalar, Isa::kSse41, Isa::kAvx2, Isa::kAvxVnni}));
  // avx512 allows avxvnni (below it in the order) but neither VNNI-512 nor AMX.
  EXPECT_EQ(isas_up_to(Isa::kAvx512),
            mask_of_list({Isa::kScalar, Isa::kSse41, Isa::kAvx2, Isa::kAvxVnni, Isa::kAvx512}));
  EXPECT_EQ(isas_up_to(Isa::kAvx512Vnni), kAll & ~mask_of(Isa::kAmx));
  EXPECT_EQ(isas_up_to(Isa::kAmx), kAll);
}

// ---- the definition of each path ----------------------------------------------------------------

CpuFeatures haswell() {
  CpuFeatures f;
  f.sse41 = f.avx2 = f.bmi2 = f.fma = f.os_avx = true;
  return f;
}
CpuFeatures alder_lake() {  // AVX-VNNI without AVX-512
  CpuFeatures f = haswell();
  f.avxvnni = true;
  return f;
}
CpuFeatures skylake_x() {
  CpuFeatures f = haswell();
  f.os_avx512 = f.avx512f = f.avx512bw = f.avx512dq = f.avx512vl = true;
  return f;
}
CpuFeatures zen4() {  // AVX-512 VNNI without AVX-VNNI (this build machine)
  CpuFeatures f = skylake_x();
  f.avx512vnni = true;
  return f;
}
CpuFeatures sapphire_rapids() {
  CpuFeatures f = zen4();
  f.avxvnni = f.amx_tile = f.amx_int8 = f.os_amx = true;
  return f;
}

const IsaMask kHaswell = mask_of_list({Isa::kScalar, Isa::kSse41, Isa::kAvx2});
const IsaMask kSkylakeX = kHaswell | mask_of(Isa::kAvx512);

TEST(IsaLevels, RealCpuGenerations) {
  EXPECT_EQ(internal::isa_levels(CpuFeatures{}, true), mask_of(Isa::kScalar));
  EXPECT_EQ(internal::isa_levels(haswell(), true), kHaswell);
  EXPECT_EQ(internal::isa_levels(alder_lake(), true), kHaswell | mask_of(Isa::kAvxVnni));
  EXPECT_EQ(internal::isa_levels(skylake_x(), true), kSkylakeX);
  EXPECT_EQ(internal::isa_levels(zen4(), true), kSkylakeX | mask_of(Isa::kAvx512Vnni));
  EXPECT_EQ(internal::isa_levels(sapphire_rapids(), true), kAll);
}

TEST(IsaLevels, AmxNeedsThePermissionTheTileStateAndAvx512Vnni) {
  const IsaMask no_amx = kAll & ~mask_of(Isa::kAmx);
  EXPECT_EQ(internal::isa_levels(sapphire_rapids(), /*amx_permitted=*/false), no_amx);
  CpuFeatures f = sapphire_rapids();
  f.os_amx = false;  // XCR0 without XTILECFG/XTILEDATA
  EXPECT_EQ(internal::isa_levels(f, true), no_amx);
  f = sapphire_rapids();
  f.amx_int8 = false;  // tiles without the int8 dot products
  EXPECT_EQ(internal::isa_levels(f, true), no_amx);
  f = sapphire_rapids();
  f.amx_tile = false;
  EXPECT_EQ(internal::isa_levels(f, true), no_amx);
  f = sapphire_rapids();
  f.avx512vnni = false;  // AMX is defined on top of the AVX-512 VNNI level
  EXPECT_EQ(internal::isa_levels(f, true), no_amx & ~mask_of(Isa::kAvx512Vnni));
}

TEST(IsaLevels, EachPathNeedsTheLevelItExtends) {
  CpuFeatures f = alder_lake();
  f.bmi2 = false;  // the AVX2 level includes BMI2; AVX-VNNI extends it
  EXPECT_EQ(internal::isa_levels(f, true), mask_of_list({Isa::kScalar, Isa::kSse41}));
  f = zen4();
  f.fma = false;  // the AVX2 level includes FMA (the qdq_fma kernels), and AVX-512 extends it
  EXPECT_EQ(internal::isa_levels(f, true), mask_of_list({Isa::kScalar, Isa::kSse41}));
  f = zen4();
  f.avx512vl = false;  // no AVX-512 level, so no AVX-512 VNNI either
  EXPECT_EQ(internal::isa_levels(f, true), kHaswell);
  f = alder_lake();
  f.avx2 = false;  // cpu_features() clears avx2 when the OS does not save YMM
  EXPECT_EQ(internal::isa_levels(f, true), mask_of_list({Isa::kScalar, Isa::kSse41}));
}

// Over every combination of the CpuFeatures flags: a path borrowing another path's requantization
// kernels (avxvnni, avx512vnni, amx) is never supported without that path, so forcing it can never
// run instructions the CPU lacks.
TEST(IsaLevels, KernelsOfEverySupportedPathAreSupported) {
  bool CpuFeatures::*const flags[] = {
      &CpuFeatures::sse41,    &CpuFeatures::avx2,       &CpuFeatures::bmi2,       &CpuFeatures::fma,
      &CpuFeatures::avx512f,  &CpuFeatures::avx512bw,
      &CpuFeatures::avx512dq, &CpuFeatures::avx512vl,   &CpuFeatures::avx512vnni,
      &CpuFeatures::avxvnni,  &CpuFeatures::amx_tile,   &CpuFeatures::amx_int8,
      &CpuFeatures::os_avx,   &CpuFeatures::os_avx512,  &CpuFeatures::os_amx};
  constexpr unsigned kFlags = sizeof flags / sizeof flags[0];
  static_assert(sizeof(CpuFeatures) == kFlags * sizeof(bool), "a CpuFeatures flag is not listed");
  IsaMask seen = 0;
  for (unsigned bits = 0; bits < (1u << kFlags); ++bits) {
    CpuFeatures f;
    for (unsigned i = 0; i < kFlags; ++i) f.*flags[i] = ((bits >> i) & 1) != 0;
    for (bool permitted : {false, true}) {
      const IsaMask levels = internal::isa_levels(f, permitted);
      seen |= levels;
      for (Isa isa : all_isas()) {
        if ((levels & mask_of(isa)) == 0) continue;
        ASSERT_NE(levels & mask_of(requantize_kernel_isa(isa)), 0u)
            << to_string(isa) << " without " << to_string(requantize_kernel_isa(isa))
            << ", features 0x" << std::hex << bits;
      }
    }
  }
  EXPECT_EQ(seen, kAll) << "some path is supported by no feature set";
}

// The list's CPU features are names CpuFeatures knows (for this processor's ISAs), so that no path
// is silently unsupported because of a misspelt feature.
TEST(IsaLevels, ListFeaturesAreKnown) {
  for (Isa isa : all_isas()) {
    if ((compiled_isas() & mask_of(isa)) == 0) continue;
    std::istringstream words(internal::isa_own_cpu_features(isa));
    std::string name;
    while (words >> name) {
      EXPECT_TRUE(internal::is_known_cpu_feature(name)) << to_string(isa) << ": " << name;
    }
  }
}

// Each path extends its parent (isa_list.h): a parent has a lower bit, and a CPU with the path has
// the parent.
TEST(IsaLevels, ParentsComeFirst) {
  for (Isa isa : all_isas()) {
    if (isa == Isa::kScalar) {
      EXPECT_EQ(parent_of(isa), Isa::kScalar);
      continue;
    }
    EXPECT_LT(mask_of(parent_of(isa)), mask_of(isa)) << to_string(isa);
    EXPECT_NE(internal::isa_levels(sapphire_rapids(), true) & mask_of(parent_of(isa)), 0u)
        << to_string(isa);
  }
}

TEST(IsaLevels, PermissionIsRequestedOnlyWhenItIsAllAmxLacks) {
  int requests = 0;
  auto grant = [&] { ++requests; return true; };
  EXPECT_EQ(internal::supported_isa_levels(zen4(), kAll, grant),
            kSkylakeX | mask_of(Isa::kAvx512Vnni));
  CpuFeatures no_tile_state = sapphire_rapids();
  no_tile_state.os_amx = false;
  EXPECT_EQ(internal::supported_isa_levels(no_tile_state, kAll, grant), kAll & ~mask_of(Isa::kAmx));
  const IsaMask amx_not_compiled = kAll & ~mask_of(Isa::kAmx);
  EXPECT_EQ(internal::supported_isa_levels(sapphire_rapids(), amx_not_compiled, grant),
            amx_not_compiled);
  EXPECT_EQ(requests, 0) << "requested although AMX could not be used anyway";
  EXPECT_EQ(internal::supported_isa_levels(sapphire_rapids(), kAll, grant), kAll);
  EXPECT_EQ(requests, 1);
}

TEST(IsaLevels, RefusedPermissionFallsBackToAvx512Vnni) {
  int requests = 0;
  auto refuse = [&] { ++requests; return false; };
  const IsaMask got = internal::supported_isa_levels(sapphire_rapids(), kAll, refuse);
  EXPECT_EQ(requests, 1);
  EXPECT_EQ(got, kAll & ~mask_of(Isa::kAmx));
}

TEST(IsaLevels, RestrictedToWhatIsCompiled) {
  auto grant = [] { return true; };
  const IsaMask compiled = mask_of_list({Isa::kScalar, Isa::kAvx2, Isa::kAmx});
  EXPECT_EQ(internal::supported_isa_levels(sapphire_rapids(), compiled, grant), compiled);
  EXPECT_EQ(internal::supported_isa_levels(zen4(), compiled, grant),
            mask_of_list({Isa::kScalar, Isa::kAvx2}));
}

// ---- this machine -------------------------------------------------------------------------------

TEST(IsaDetection, SupportedIsasFollowTheDefinitions) {
  const IsaMask supported = supported_isas();  // first: makes the AMX request if there is one
  const bool amx = (supported & mask_of(Isa::kAmx)) != 0;
  EXPECT_EQ(supported, internal::isa_levels(internal::cpu_features(), amx) & compiled_isas())
      << "supported {" << qparity::isa_names(supported, ",") << "}";
}

TEST(IsaDetection, AmxOnlyWithTheKernelsPermission) {
  const bool amx = (supported_isas() & mask_of(Isa::kAmx)) != 0;
  const CpuFeatures& f = internal::cpu_features();
  const bool amx_usable_if_permitted =
      (internal::isa_levels(f, true) & compiled_isas() & mask_of(Isa::kAmx)) != 0;
#if defined(__linux__) && defined(__x86_64__)
  // ARCH_GET_XCOMP_PERM (<asm/prctl.h>, Linux 5.16) reports the xstate components this process
  // may use: the kernel's own record, independent of what the library concluded.
  constexpr long kArchGetXcompPerm = 0x1022;
  unsigned long long permitted = 0;
  const bool kernel_answered = syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) == 0;
  const bool granted = kernel_answered && ((permitted >> 18) & 1);  // XFEATURE_XTILEDATA
  EXPECT_EQ(amx, amx_usable_if_permitted && granted)
      << "CPUID/XCR0 AMX usable: " << amx_usable_if_permitted << ", kernel permission: " << granted
      << " (arch_prctl answered: " << kernel_answered << ")";
#else
  (void)amx_usable_if_permitted;
  EXPECT_FALSE(amx) << "AMX is only enabled on x86-64 Linux, where the permission is requested";
#endif
}

// ---- QPARITY_EXPECT_ISAS ------------------------------------------------------------------------

#if defined(__linux__)
std::string self_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

/// Runs one test of this binary with QPARITY_EXPECT_ISAS=`expect`; returns its exit status (-1 if
/// it did not exit normally) and appends its output to `out`.
int run_with_expected_isas(const std::string& expect, std::string* out) {
  const std::string cmd = "QPARITY_EXPECT_ISAS='" + expect + "' '" + self_executable() +
                          "' --gtest_filter=IsaNames.EveryIsaInCapabilityOrder 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return -1;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f) != nullptr) *out += buf;
  const int status = pclose(f);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(IsaCoverage, ExpectingAnIsaThisMachineLacksFailsTheRun) {
  ASSERT_FALSE(self_executable().empty()) << "cannot locate this test binary (/proc/self/exe)";
  std::string out;
  EXPECT_EQ(run_with_expected_isas(qparity::isa_names(supported_isas(), ","), &out), 0)
      << out;
  for (Isa isa : all_isas()) {
    if (supported_isas() & mask_of(isa)) continue;
    out.clear();
    EXPECT_NE(run_with_expected_isas(std::string("scalar,") + to_string(isa), &out), 0) << out;
    EXPECT_NE(out.find(std::string("QPARITY_EXPECT_ISAS lists '") + to_string(isa) + "'"),
              std::string::npos)
        << out;
  }
}
#endif

}  // namespace
