// Exhaustive proof that every requantization path equals the header-only reference.
//
// Exhaustive.AllInt32Accumulators/<core>_<part>
//   For every rounding core, the 16 parameter sets of exhaustive_params.h (4 per test case, so
//   ctest -j2 can run cases in parallel), ALL 2^32 int32 accumulators, int32 output with the
//   default OutputParams (the raw core), per-tensor, against
//       saturating_cast<int32_t>(requantize_to_output<Policy>(acc, params, OutputParams{})).
//   The reference is computed once per chunk of 2^14 accumulators and every SIMD path in
//   supported_isas() is compared with it bit for bit. Compared on every kScalarSampleStride-th
//   chunk only: the scalar path (whose kernel is that same expression, element by element) and the
//   paths without requantization kernels of their own (avxvnni, avx512vnni, amx: they run the
//   kernels of requantize_kernel_isa(isa), which are compared on every chunk; the sampled chunks
//   check that they are dispatched to correct kernels).
//
// NarrowOutputs.AllOutputStages/<core>
//   Output zero points and clamps for int8/uint8/int16/int32 outputs, per-tensor and per-channel,
//   every supported ISA. Accumulators: every int32 in [-2^16, 2^16], 4096 values at each end of the
//   int32 range and +-2^e + d for e in [17, 31], d in [-64, 64]; for int8 outputs additionally
//   every int32 in [-2^20, 2^20]. Per-channel runs use the 16 parameter sets as 16 channels with
//   the accumulators rotated across columns, so every (accumulator, parameter set) pair occurs.
//
// Cost: the reference and each SIMD path with kernels of its own take 0.1-0.5 ns per accumulator,
// so this file is tuned: compiled with -O3; the reference loop is compiled for the baseline and,
// through the `target` attribute, for AVX2 and AVX-512, and each core uses whichever runs fastest
// on this CPU (all are the unmodified header code, inlined and auto-vectorized, and are checked to
// agree); accumulator generation and the comparison of all paths' results are single vectorized
// passes over chunks of 2^14 accumulators that stay in L2. For F32
// and F32-ZPF the reference is evaluated once per run of consecutive accumulators with equal
// float(acc): that conversion is the first step of both policies (policy_float.h), so the value
// is the same for the whole run (the run boundaries are found with float() itself); every SIMD
// result is still compared with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "exhaustive_params.h"
#include "isa_coverage.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/requantize.h"

namespace {

using namespace qparity;
using qparity_test::exhaustive_params;
using qparity_test::for_each_supported_isa;

constexpr std::size_t kChunk = std::size_t{1} << 14;
constexpr std::uint64_t kChunks = (std::uint64_t{1} << 32) / kChunk;
constexpr std::uint64_t kScalarSampleStride = 1024;
constexpr int kParts = 4;  // test cases per core; 16 / kParts parameter sets each
constexpr int kMaxReported = 8;

double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- the reference over a chunk ----------------------------------------------------------------

template <class P>
__attribute__((always_inline)) inline void reference_chunk(const RequantParams& params,
                                                           std::uint32_t base,
                                                           std::int32_t* __restrict out,
                                                           std::size_t n) {
  // A local copy (no aliasing with `out`) and a 32-bit induction variable (GCC 12 does not
  // vectorize the size_t -> uint32_t conversion): both are needed for the loop to vectorize.
  const RequantParams p = params;
  const OutputParams raw{};
  const auto count = static_cast<std::uint32_t>(n);
  if constexpr (P::kCore == RoundingCore::kFloat32 ||
                P::kCore == RoundingCore::kFloat32ZeroPointInside) {
    // One evaluation per run of equal float(acc). int32 -> float conversion is monotone, so the
    // run starting at i is [i, j) with j the first index whose float differs: found by galloping
    // then bisection, checking float() itself rather than assuming the float spacing.
    auto as_float = [base](std::uint32_t i) { return static_cast<float>(static_cast<std::int32_t>(base + i)); };
    for (std::uint32_t i = 0; i < count;) {
      const auto acc = static_cast<std::int32_t>(base + i);
      const float f = as_float(i);
      const std::int32_t value = saturating_cast<std::int32_t>(requantize_to_output<P>(acc, p, raw));
      std::uint32_t equal = i, differs = count, step = 1;  // float(equal) == f; differs: bound
      while (equal + step < count) {
        if (as_float(equal + step) != f) {
          differs = equal + step;
          break;
        }
        equal += step;
        step *= 2;
      }
      while (differs - equal > 1) {
        const std::uint32_t mid = equal + (differs - equal) / 2;
        (as_float(mid) == f ? equal : differs) = mid;
      }
      std::fill(out + i, out + differs, value);
      i = differs;
    }
  } else {
    auto loop = [&] {
      for (std::uint32_t i = 0; i < count; ++i) {
        const auto acc = static_cast<std::int32_t>(base + i);
        out[i] = saturating_cast<std::int32_t>(requantize_to_output<P>(acc, p, raw));
      }
    };
    // The same loop under three conditions on the shift's sign: inside each, GCC knows whether
    // the left/right shift amounts are zero and drops the policies' `e == 0` branches, which
    // otherwise keep DR-UP's loop from vectorizing (a 4x difference).
    if (p.shift > 0) {
      loop();
    } else if (p.shift == 0) {
      loop();
    } else {
      loop();
    }
  }
}

// The same loop compiled three times. The `target` attribute (rather than target_clones with
// arch=, which blocks inlining of the header functions) lets GCC inline the reference and
// vectorize it for the ISA; the header functions' own out-of-line copies stay baseline.
using ReferenceFn = void (*)(const RequantParams&, std::uint32_t, std::int32_t*, std::size_t);

template <class P>
void reference_chunk_baseline(const RequantParams& p, std::uint32_t base, std::int32_t* out,
                              std::size_t n) {
  reference_chunk<P>(p, base, out, n);
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define QPARITY_TEST_MULTIVERSION 1
template <class P>
__attribute__((target("avx2,bmi2"))) void reference_chunk_avx2(const RequantParams& p,
                                                               std::uint32_t base,
                                                               std::int32_t* out, std::size_t n) {
  reference_chunk<P>(p, base, out, n);
}
template <class P>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi2"))) void reference_chunk_avx512(
    const RequantParams& p, std::uint32_t base, std::int32_t* out, std::size_t n) {
  reference_chunk<P>(p, base, out, n);
}
#endif

/// The fastest compilation of the reference for `core` that this CPU runs, chosen once per
/// process by thread CPU time (other processes do not skew it); all candidates must agree.
ReferenceFn pick_reference(RoundingCore core, const RequantParams& p) {
  static std::mutex mutex;
  static std::map<RoundingCore, ReferenceFn> chosen;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = chosen.find(core);
  if (it != chosen.end()) return it->second;
  std::vector<std::pair<const char*, ReferenceFn>> candidates;
  visit_rounding_core(core, [&](auto policy) {
    using P = decltype(policy);
    candidates.emplace_back("baseline", &reference_chunk_baseline<P>);
#ifdef QPARITY_TEST_MULTIVERSION
    if (supported_isas() & mask_of(Isa::kAvx2)) candidates.emplace_back("avx2", &reference_chunk_avx2<P>);
    if (supported_isas() & mask_of(Isa::kAvx512)) candidates.emplace_back("avx512", &reference_chunk_avx512<P>);
#endif
  });
  std::vector<std::int32_t> first(kChunk), out(kChunk);
  std::vector<double> best(candidates.size(), 1e9);
  for (int rep = 0; rep < 8; ++rep) {
    const std::uint32_t base = 0x80000000u + static_cast<std::uint32_t>(rep) * 0x20000001u;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const double t0 = thread_seconds();
      candidates[k].second(p, base, (k == 0 ? first : out).data(), kChunk);
      best[k] = std::min(best[k], thread_seconds() - t0);
      if (k > 0) {
        EXPECT_EQ(out, first) << "the " << candidates[k].first << " and baseline compilations of "
                              << "the reference disagree for " << to_string(core);
      }
    }
  }
  std::size_t pick = 0;
  std::string report;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    if (best[k] < best[pick]) pick = k;
    char buf[64];
    std::snprintf(buf, sizeof buf, " %s %.2f", candidates[k].first, best[k] / kChunk * 1e9);
    report += buf;
  }
  std::printf("[ timing   ] %s reference ns/acc:%s -> %s\n", to_string(core), report.c_str(),
              candidates[pick].first);
  chosen[core] = candidates[pick].second;
  return candidates[pick].second;
}

// ---- chunk helpers (no header code inside, so target_clones is safe and effective) -------------

#ifdef QPARITY_TEST_MULTIVERSION
#define QPARITY_TEST_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define QPARITY_TEST_CLONES
#endif

/// acc[i] = base + i (mod 2^32).
QPARITY_TEST_CLONES void fill_accumulators(std::int32_t* __restrict acc, std::uint32_t base,
                                           std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) acc[i] = static_cast<std::int32_t>(base + i);
}

/// True if any got[k][i] != want[i], for k < count (one pass over all the buffers).
QPARITY_TEST_CLONES bool any_difference(const std::int32_t* __restrict want,
                                        const std::int32_t* __restrict g0,
                                        const std::int32_t* __restrict g1,
                                        const std::int32_t* __restrict g2, std::uint32_t n) {
  std::uint32_t diff = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto w = static_cast<std::uint32_t>(want[i]);
    diff |= (static_cast<std::uint32_t>(g0[i]) ^ w) | (static_cast<std::uint32_t>(g1[i]) ^ w) |
            (static_cast<std::uint32_t>(g2[i]) ^ w);
  }
  return diff != 0;
}

// ---- Exhaustive.AllInt32Accumulators -----------------------------------------------------------

struct ExhaustiveCase {
  RoundingCore core;
  int part;
};

std::string test_name(RoundingCore core) {
  std::string name = to_string(core);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::vector<ExhaustiveCase> all_exhaustive_cases() {
  std::vector<ExhaustiveCase> v;
  for (RoundingCore core : kAllRoundingCores) {
    for (int part = 0; part < kParts; ++part) v.push_back({core, part});
  }
  return v;
}

std::string describe(RoundingCore core, const RequantParams& p) {
  char buf[160];
  if (is_float_core(core)) {
    std::snprintf(buf, sizeof buf, "%s scale=%a bias=%a post_scale=%a", to_string(core),
                  static_cast<double>(p.scale), static_cast<double>(p.bias),
                  static_cast<double>(p.post_scale));
  } else {
    std::snprintf(buf, sizeof buf, "%s multiplier=%d shift=%d", to_string(core), p.multiplier,
                  p.shift);
  }
  return buf;
}

/// Paths compared on a sample of the chunks only (see the file comment).
bool sampled_only(Isa isa) { return isa == Isa::kScalar || requantize_kernel_isa(isa) != isa; }

class Exhaustive : public ::testing::TestWithParam<ExhaustiveCase> {};

TEST_P(Exhaustive, AllInt32Accumulators) {
  const RoundingCore core = GetParam().core;
  const std::vector<RequantParams> all = exhaustive_params(core);
  ASSERT_EQ(all.size(), 16u);
  const int per_part = static_cast<int>(all.size()) / kParts;

  const std::vector<Isa> isas = qparity_test::supported_isa_list();
  std::vector<std::int32_t> acc(kChunk), want(kChunk);
  std::vector<std::vector<std::int32_t>> got(isas.size(), std::vector<std::int32_t>(kChunk));
  const auto t_start = std::chrono::steady_clock::now();
  const double cpu_start = thread_seconds();
  double t_reference = 0;
  std::uint64_t compared = 0;
  constexpr auto kChunk32 = static_cast<std::uint32_t>(kChunk);

  for (int k = GetParam().part * per_part; k < (GetParam().part + 1) * per_part; ++k) {
    const RequantParams& p = all[static_cast<std::size_t>(k)];
    SCOPED_TRACE(describe(core, p));
    ASSERT_NO_THROW(validate(core, p));
    const ReferenceFn reference = pick_reference(core, p);

    RequantizeArgs args;
    args.core = core;
    args.params = &p;
    args.rows = 1;
    args.channels = kChunk;
    args.acc = acc.data();

    int reported = 0;
    std::uint64_t mismatches = 0;
    auto report = [&](Isa isa, const std::vector<std::int32_t>& out) {
      for (std::size_t i = 0; i < kChunk; ++i) {
        if (out[i] == want[i]) continue;
        ++mismatches;
        if (reported++ < kMaxReported) {
          ADD_FAILURE() << to_string(isa) << ": acc = " << acc[i] << " gives " << out[i]
                        << ", reference " << want[i];
        }
      }
    };
    for (std::uint64_t c = 0; c < kChunks; ++c) {
      const std::uint32_t base = 0x80000000u + static_cast<std::uint32_t>(c * kChunk);
      fill_accumulators(acc.data(), base, kChunk32);
      const auto t0 = std::chrono::steady_clock::now();
      reference(p, base, want.data(), kChunk);
      t_reference += seconds_since(t0);

      // Every SIMD path with kernels of its own on every chunk; the others on every
      // kScalarSampleStride-th chunk.
      const bool sample_chunk = c % kScalarSampleStride == 0;
      std::vector<const std::int32_t*> ran;
      std::size_t slot = 0;  // for_each_supported_isa visits `isas` in order
      for_each_supported_isa([&](Isa isa) {
        std::vector<std::int32_t>& out = got[slot++];
        if (sampled_only(isa) && !sample_chunk) return;
        requantize<std::int32_t>(isa, args, out.data());
        ran.push_back(out.data());
        ++compared;
      });
      while (ran.size() % 3 != 0) ran.push_back(want.data());
      bool differs = false;
      for (std::size_t r = 0; r < ran.size(); r += 3) {
        differs = differs || any_difference(want.data(), ran[r], ran[r + 1], ran[r + 2], kChunk32);
      }
      if (differs) {
        for (std::size_t k2 = 0; k2 < isas.size(); ++k2) {
          if (sampled_only(isas[k2]) && !sample_chunk) continue;
          report(isas[k2], got[k2]);
        }
      }
    }
    EXPECT_EQ(mismatches, 0u);
  }
  const double total = seconds_since(t_start), cpu = thread_seconds() - cpu_start;
  RecordProperty("seconds", std::to_string(total));
  RecordProperty("cpu_seconds", std::to_string(cpu));
  std::printf("[ timing   ] %s part %d: %d parameter sets x 2^32 accumulators, %llu chunk "
              "comparisons, %.1f s wall, %.1f s CPU (reference %.1f s wall)\n",
              to_string(core), GetParam().part, per_part, static_cast<unsigned long long>(compared),
              total, cpu, t_reference);
}

INSTANTIATE_TEST_SUITE_P(Simd, Exhaustive, ::testing::ValuesIn(all_exhaustive_cases()),
                         [](const ::testing::TestParamInfo<ExhaustiveCase>& info) {
                           return test_name(info.param.core) + "_" +
                                  std::to_string(info.param.part);
                         });

// ---- NarrowOutputs.AllOutputStages ---------------------------------------------------------------

std::vector<std::int32_t> accumulator_set(std::int32_t dense_radius) {
  std::vector<std::int32_t> v;
  for (std::int32_t a = -dense_radius; a <= dense_radius; ++a) v.push_back(a);
  constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  for (std::int64_t k = 0; k < 4096; ++k) {
    v.push_back(static_cast<std::int32_t>(kMin + k));
    v.push_back(static_cast<std::int32_t>(kMax - k));
  }
  for (int e = 17; e <= 31; ++e) {
    for (std::int64_t d = -64; d <= 64; ++d) {
      for (std::int64_t x : {(std::int64_t{1} << e) + d, -(std::int64_t{1} << e) + d}) {
        if (x >= kMin && x <= kMax && (x > dense_radius || x < -dense_radius)) {
          v.push_back(static_cast<std::int32_t>(x));
        }
      }
    }
  }
  return v;
}

struct OutputCase {
  OutputType type;
  OutputParams output;
};

std::vector<OutputCase> output_cases() {
  std::vector<OutputCase> v;
  auto add = [&](OutputType t, std::vector<std::int64_t> zps, bool degenerate) {
    const std::int64_t lo = output_type_min(t), hi = output_type_max(t);
    for (std::int64_t zp : zps) {
      const auto z = static_cast<std::int32_t>(zp);
      v.push_back({t, OutputParams{z, static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi)}});
      v.push_back({t, OutputParams{z, static_cast<std::int32_t>(lo + (hi - lo) / 4),
                                   static_cast<std::int32_t>(hi - (hi - lo) / 3)}});
      if (degenerate) v.push_back({t, OutputParams{z, z, z}});
    }
  };
  add(OutputType::kInt8, {-128, 0, 127}, true);
  add(OutputType::kUint8, {0, 127, 255}, true);
  add(OutputType::kInt16, {-32768, -128, 0, 255, 32767}, false);
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  add(OutputType::kInt32, {0, -128, 255, kMin, kMax}, false);
  // int32 clamps whose [qmin - zp, qmax - zp] lies entirely outside int32 (constant results).
  v.push_back({OutputType::kInt32, OutputParams{kMax, kMin + 5, kMin + 5}});
  v.push_back({OutputType::kInt32, OutputParams{kMin, kMax - 5, kMax - 5}});
  v.push_back({OutputType::kInt32, OutputParams{kMax, kMin, kMin + 1000}});
  v.push_back({OutputType::kInt32, OutputParams{kMin, kMax - 1000, kMax}});
  return v;
}

template <class Out>
const char* output_type_name() {
  return std::is_same<Out, std::int8_t>::value    ? "int8"
         : std::is_same<Out, std::uint8_t>::value ? "uint8"
         : std::is_same<Out, std::int16_t>::value ? "int16"
                                                  : "int32";
}

/// Runs `cases` on every ISA, per-channel (16 channels = the 16 parameter sets, accumulators
/// rotated across columns) and per-tensor (each parameter set on its own), and compares.
template <class Out>
void check_output_stage(RoundingCore core, const std::vector<RequantParams>& params,
                        const std::vector<std::int32_t>& accs, const OutputParams& output,
                        bool per_tensor_too) {
  constexpr std::size_t kChannels = 16;
  constexpr std::size_t kRowsPerBlock = 4096;
  const std::size_t n = accs.size();
  std::vector<std::int32_t> acc(kRowsPerBlock * kChannels);
  std::vector<Out> want(acc.size()), got(acc.size());
  int reported = 0;

  auto compare = [&](const RequantizeArgs& args, std::size_t count, const char* mode) {
    for_each_supported_isa([&](Isa isa) {
      requantize<Out>(isa, args, got.data());
      for (std::size_t i = 0; i < count; ++i) {
        if (got[i] != want[i] && reported++ < kMaxReported) {
          const std::size_t ch = args.per_channel ? i % kChannels : 0;
          ADD_FAILURE() << to_string(isa) << " " << mode << " out " << output_type_name<Out>()
                        << ": zp=" << output.zero_point << " [" << output.qmin << ", "
                        << output.qmax << "] " << describe(core, args.params[ch])
                        << " acc=" << acc[i] << " gives " << static_cast<std::int64_t>(got[i])
                        << ", reference " << static_cast<std::int64_t>(want[i]);
        }
      }
    });
  };

  for (std::size_t r0 = 0; r0 < n; r0 += kRowsPerBlock) {
    const std::size_t rows = std::min(kRowsPerBlock, n - r0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < kChannels; ++c) acc[r * kChannels + c] = accs[(r0 + r + c) % n];
    }
    RequantizeArgs args;
    args.core = core;
    args.params = params.data();
    args.per_channel = true;
    args.output = output;
    args.rows = rows;
    args.channels = kChannels;
    args.acc = acc.data();
    visit_rounding_core(core, [&](auto policy) {
      using P = decltype(policy);
      for (std::size_t i = 0; i < rows * kChannels; ++i) {
        want[i] = saturating_cast<Out>(requantize_to_output<P>(acc[i], params[i % kChannels], output));
      }
    });
    compare(args, rows * kChannels, "per-channel");
  }
  if (!per_tensor_too) return;
  // Per-tensor: the accumulator list laid out densely, one parameter set at a time.
  for (const RequantParams& p : params) {
    for (std::size_t b0 = 0; b0 < n; b0 += acc.size()) {
      const std::size_t count = std::min(acc.size(), n - b0);
      std::copy(accs.begin() + static_cast<std::ptrdiff_t>(b0),
                accs.begin() + static_cast<std::ptrdiff_t>(b0 + count), acc.begin());
      RequantizeArgs args;
      args.core = core;
      args.params = &p;
      args.output = output;
      args.rows = 1;
      args.channels = count;
      args.acc = acc.data();
      visit_rounding_core(core, [&](auto policy) {
        using P = decltype(policy);
        for (std::size_t i = 0; i < count; ++i) {
          want[i] = saturating_cast<Out>(requantize_to_output<P>(acc[i], p, output));
        }
      });
      compare(args, count, "per-tensor");
    }
  }
}

class NarrowOutputs : public ::testing::TestWithParam<RoundingCore> {};

TEST_P(NarrowOutputs, AllOutputStages) {
  const RoundingCore core = GetParam();
  const std::vector<RequantParams> params = exhaustive_params(core);
  const std::vector<std::int32_t> accs = accumulator_set(1 << 16);
  const auto t0 = std::chrono::steady_clock::now();
  for (const OutputCase& oc : output_cases()) {
    switch (oc.type) {
      case OutputType::kInt8: check_output_stage<std::int8_t>(core, params, accs, oc.output, true); break;
      case OutputType::kUint8: check_output_stage<std::uint8_t>(core, params, accs, oc.output, true); break;
      case OutputType::kInt16: check_output_stage<std::int16_t>(core, params, accs, oc.output, true); break;
      case OutputType::kInt32: check_output_stage<std::int32_t>(core, params, accs, oc.output, true); break;
    }
  }
  // The common int8 case over the wider range, per-channel.
  const std::vector<std::int32_t> wide = accumulator_set(1 << 20);
  for (std::int32_t zp : {-128, 0, 127}) {
    check_output_stage<std::int8_t>(core, params, wide, OutputParams{zp, -128, 127}, false);
  }
  std::printf("[ timing   ] %s output stages: %.1f s\n", to_string(core), seconds_since(t0));
}

INSTANTIATE_TEST_SUITE_P(Simd, NarrowOutputs, ::testing::ValuesIn(kAllRoundingCores),
                         [](const ::testing::TestParamInfo<RoundingCore>& info) {
                           return test_name(info.param);
                         });

}  // namespace
