// The fused epilogue's column addition (kernels/gemm/gemm_epilogue.h, EpilogueArgs::col_add),
// label unit.
//
// A kernel with Ukernel::col_init_in_epilogue (AMX) leaves a block's column initial values out of
// its accumulators and the epilogue adds them (one VPADDD per vector) before requantizing. Only an
// AMX machine runs that kernel, so this test checks the addition itself on every CPU: for each
// ISA with its own epilogue file that the CPU supports, every rounding core, every output type and
// both output stages the plan has, block functions given accumulators x and col_add c must write
// exactly what the same functions write given x + c (wrapping mod 2^32) and no col_add. Values
// near INT32_MIN / INT32_MAX make the additions wrap; odd rows and column counts that end inside
// a vector (1, 3, 17, 31) cover the partial stores.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_epilogue.h"
#include "kernels/registry/kernel_registry.h"
#include "qparity/isa.h"
#include "qparity/requant_params.h"

namespace {

using qparity::Isa;
using qparity::RequantParams;
using qparity::RoundingCore;
using qparity::internal::EpilogueArgs;
using qparity::internal::EpilogueFn;
using qparity::internal::EpilogueFns;
using qparity::internal::EpilogueIsa;
using qparity::internal::EpilogueVariant;
using qparity::internal::GemmEpilogueFamily;

constexpr std::size_t kCols = 32;  // one AMX block's columns
constexpr std::size_t kRows = 7;

/// Valid parameters for core with a scale of about 2^-20, so that most accumulators requantize
/// inside the int8 range and the rest saturate.
RequantParams params_for(RoundingCore core, std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RequantParams p;
  if (core == RoundingCore::kQ15) {
    p.multiplier = pick(16384, 32767);
    p.shift = pick(-22, -18);
  } else {
    p.multiplier = pick(1 << 30, 2147483647);
    p.shift = pick(-22, -18);
  }
  p.scale = static_cast<float>(std::ldexp(pick(1 << 23, (1 << 24) - 1), pick(-22, -18) - 24));
  if (core == RoundingCore::kFloat32ZeroPointInside) {
    p.bias = static_cast<float>(pick(-50, 50)) * 0.25f;
    p.post_scale = 0.75f;
  }
  return p;
}

std::int32_t some_value(std::mt19937& rng) {
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0: return kMin + std::uniform_int_distribution<std::int32_t>(0, 1000)(rng);
    case 1: return kMax - std::uniform_int_distribution<std::int32_t>(0, 1000)(rng);
    case 2: return std::uniform_int_distribution<std::int32_t>(kMin, kMax)(rng);
    default: return std::uniform_int_distribution<std::int32_t>(-(1 << 28), 1 << 28)(rng);
  }
}

std::size_t g_checked = 0;  // functions compared: a run that compared none must fail

template <class Out>
void check_fn(EpilogueFn<Out> fn, const EpilogueArgs& base, std::mt19937& rng, const std::string& what) {
  if (fn == nullptr) return;
  ++g_checked;
  for (const std::size_t cols : {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{31}, kCols}) {
    for (const std::size_t rows : {std::size_t{1}, std::size_t{2}, kRows}) {
      std::vector<std::int32_t> acc(kRows * kCols), summed(kRows * kCols), col(kCols);
      for (auto& v : col) v = some_value(rng);
      for (std::size_t i = 0; i < acc.size(); ++i) {
        acc[i] = some_value(rng);
        summed[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) +
                                              static_cast<std::uint32_t>(col[i % kCols]));
      }
      constexpr std::size_t kLdc = kCols + 5;
      std::vector<Out> want(kRows * kLdc, Out{42}), got(kRows * kLdc, Out{42});
      EpilogueArgs a = base;
      a.ld = kCols;
      a.rows = rows;
      a.cols = cols;
      a.acc = summed.data();
      a.col_add = nullptr;
      fn(a, want.data(), kLdc);
      a.acc = acc.data();
      a.col_add = col.data();
      fn(a, got.data(), kLdc);
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(Out)))
          << what << " rows " << rows << " cols " << cols;
    }
  }
}

void check_fns(const EpilogueFns& fns, const EpilogueArgs& base, std::mt19937& rng, const std::string& what) {
  check_fn(fns.to_int8, base, rng, what + " int8");
  check_fn(fns.to_uint8, base, rng, what + " uint8");
  check_fn(fns.to_int16, base, rng, what + " int16");
  check_fn(fns.to_int32, base, rng, what + " int32");
}

TEST(EpilogueColAdd, EqualsAddingFirst) {
  std::mt19937 rng(20261129);
  std::size_t isas_run = 0;
  for (const Isa isa : qparity::all_isas()) {
    if (!qparity::internal::has_own_kernels<GemmEpilogueFamily>(isa)) continue;
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    const EpilogueIsa* e = qparity::internal::own_kernels<GemmEpilogueFamily>(isa);
    ASSERT_NE(e, nullptr) << qparity::to_string(isa);
    ++isas_run;
    for (const RoundingCore core : qparity::kAllRoundingCores) {
      for (const bool per_channel : {false, true}) {
        const std::size_t count = per_channel ? kCols : 1;
        std::vector<RequantParams> params(count);
        for (auto& p : params) p = params_for(core, rng);
        const std::size_t vectors = (count + e->lanes - 1) / e->lanes;
        std::vector<std::uint8_t> plan(vectors * e->vec_bytes + 64);
        std::uint8_t* chan = plan.data() + (64 - reinterpret_cast<std::uintptr_t>(plan.data()) % 64) % 64;
        EpilogueFns fns;
        EpilogueVariant variant;
        if (!e->build(core, params.data(), count, chan, &fns, &variant)) continue;
        EpilogueArgs base;
        base.chan = chan;
        base.chan_stride = per_channel ? e->vec_bytes : 0;
        // An int8 output stage with zero point -3 (F32-ZPF: zero point inside the core).
        const bool inside = core == RoundingCore::kFloat32ZeroPointInside;
        base.lo = inside ? -128 : -128 + 3;
        base.hi = inside ? 127 : 127 + 3;
        base.add = inside ? 0 : -3;
        base.zero_point = -3.0f;
        const std::string what = std::string(qparity::to_string(isa)) + " " +
                                 qparity::to_string(core) + (per_channel ? " per-channel" : " per-tensor");
        check_fns(fns, base, rng, what);
        if (e->saturated != nullptr) check_fns(e->saturated(variant), base, rng, what + " saturated");
      }
    }
  }
  if (isas_run == 0) GTEST_SKIP() << "no SIMD epilogue on this CPU (below avx2)";
  EXPECT_GE(g_checked, isas_run * std::size(qparity::kAllRoundingCores))
      << "fewer block functions compared than one per ISA and core";
}

}  // namespace
