// Tests of the GEMM micro-kernels against their contract (kernels/gemm/gemm_ukernel.h), label unit.
//
// Every micro-kernel (fn, and fn_signed_a for kRows64) of every UkernelSet whose ISA this CPU
// supports is run on operands packed here in the kernel's format, straight from the contract's
// text, and its stored tile is compared bit for bit with the contract's formula computed here from
// the unpacked operands: int64 sums reduced modulo 2^32 (exact), or each pair of products
// saturated to int16 first (kPairSaturate16). Nothing of the library's packing or reference is
// used, so a mistake shared by a kernel and the library's own code still shows.
//
//  * UkernelSets.ExpectedKernelsPresent: a supported set must provide the kernels listed in
//    kernel_sets() (a placeholder file returns none; the list says which files are done), and a
//    set named by QPARITY_EXPECT_ISAS must be supported. Skipping silently is never a pass.
//  * UkernelSets.Metadata: shapes and formats of the present kernels fit the contract, including
//    the few-row exact_narrow, the one-panel exact_one_panel and the one-row exact_row_tail
//    kernels' relation to their set's exact kernel.
//  * UkernelExactness.Grid/<kernel>: kgroups from 1 to the contract's largest block (K = 65536)
//    x operand patterns (random; random extremes; all-max/all-min products, whose sums at
//    K = 65536 approach -2^31) x initialisations (none, col_init, row_init, both near
//    INT32_MIN/INT32_MAX so that the additions wrap, accumulate) x row strides and misaligned c.
//    Cells of c outside the tile (the ldc gap, around the tile) must be left untouched.
//  * UkernelProperty.MatchesContract: RapidCheck over kernel, kgroups, ldc, offsets, init, values.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/dispatch/cpu_features.h"
#include "kernels/gemm/gemm_ukernel.h"
#include "qparity/isa.h"

#include "kernels/gemm/ukernel_avx512vnni_ymm.h"

namespace {

using qparity::internal::Arithmetic;
using qparity::internal::kMaxKBlock;
using qparity::internal::kPanelCols;
using qparity::internal::kPanelGroupBytes;
using qparity::internal::PackFormat;
using qparity::internal::Ukernel;
using qparity::internal::UkernelArgs;
using qparity::internal::UkernelSession;
using qparity::internal::UkernelFn;
using qparity::internal::UkernelSet;

constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax32 = std::numeric_limits<std::int32_t>::max();

// ---- the sets under test -------------------------------------------------------------------------

/// One UkernelSet of the registry: every ISA with its own micro-kernel file
/// (kernels/gemm/ukernel_<isa>.cc), and the test-only EVEX instantiation of the ymm kernels the
/// AVX-VNNI set runs (ukernel_avx512vnni_ymm.h). Its getter is compiled with its ISA's flags, so
/// it is only called when the CPU supports that ISA.
struct KernelSet {
  std::string name;
  qparity::Isa isa;
  const UkernelSet* (*get)(qparity::Isa);
};

const UkernelSet* main_set(qparity::Isa isa) {
  return qparity::internal::own_kernels<qparity::internal::GemmUkernelFamily>(isa);
}
const UkernelSet* evex_ymm_set(qparity::Isa isa) {
  return qparity::internal::own_kernels<qparity::internal::GemmUkernelEvexYmmFamily>(isa);
}

bool supported(const KernelSet& set) {
  return (qparity::supported_isas() & qparity::mask_of(set.isa)) != 0;
}

const std::vector<KernelSet>& kernel_sets() {
  static const std::vector<KernelSet> sets = [] {
    using qparity::internal::has_own_kernels;
    std::vector<KernelSet> out;
    for (qparity::Isa isa : qparity::all_isas()) {
      if (has_own_kernels<qparity::internal::GemmUkernelFamily>(isa)) {
        out.push_back({qparity::to_string(isa), isa, &main_set});
      }
      if (has_own_kernels<qparity::internal::GemmUkernelEvexYmmFamily>(isa)) {
        out.push_back({std::string(qparity::to_string(isa)) + "_ymm", isa, &evex_ymm_set});
      }
    }
    return out;
  }();
  return sets;
}

/// One function to test: a kernel's fn, or its fn_signed_a (kRows64 with int8 activations).
struct KernelUnderTest {
  std::string label;  ///< "<set>_<slot>[_signed_a]", a valid GoogleTest name
  Ukernel kernel;
  UkernelFn fn = nullptr;
  bool signed_a = false;
};

void PrintTo(const KernelUnderTest& k, std::ostream* os) { *os << k.label; }

const std::vector<KernelUnderTest>& kernels_under_test() {
  static const std::vector<KernelUnderTest> kernels = [] {
    std::vector<KernelUnderTest> out;
    for (const KernelSet& set : kernel_sets()) {
      if (!supported(set)) continue;
      const UkernelSet s = *set.get(set.isa);
      const std::pair<const char*, Ukernel> slots[] = {{"exact", s.exact},
                                                       {"exact_narrow", s.exact_narrow},
                                                       {"exact_one_panel", s.exact_one_panel},
                                                       {"exact_row_tail", s.exact_row_tail},
                                                       {"pair_saturate", s.pair_saturate},
                                                       {"pair_saturate_narrow", s.pair_saturate_narrow}};
      for (const auto& slot : slots) {
        const Ukernel& k = slot.second;
        const std::string label = std::string(set.name) + "_" + slot.first;
        if (k.fn != nullptr) out.push_back({label, k, k.fn, false});
        if (k.format == PackFormat::kRows64 && k.fn_signed_a != nullptr) {
          out.push_back({label + "_signed_a", k, k.fn_signed_a, true});
        }
      }
    }
    return out;
  }();
  return kernels;
}

// ---- operands and the contract's formula -----------------------------------------------------------

/// K elements per group of the packing format.
std::size_t group_width(PackFormat f) { return f == PackFormat::kPairs16 ? 2 : 4; }

/// Value ranges of the packed operands (gemm_ukernel.h, "Packing formats").
struct Domain {
  std::int32_t a_min, a_max, b_min, b_max;
};
Domain domain_of(const KernelUnderTest& k) {
  switch (k.kernel.format) {
    case PackFormat::kDot4: return {0, 255, -128, 127};        // uint8 A (offset applied)
    case PackFormat::kPairs16: return {-128, 255, -128, 127};  // int16 activations, int8 weights
    case PackFormat::kRows64: break;
  }
  return k.signed_a ? Domain{-128, 127, -128, 127} : Domain{0, 255, -128, 127};
}

enum class Pattern { kRandom, kExtremes, kAMaxBMin, kAMaxBMax, kAMinBMin, kAMinBMax, kCount };
const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::kRandom: return "random";
    case Pattern::kExtremes: return "random extremes";
    case Pattern::kAMaxBMin: return "A max, B min";
    case Pattern::kAMaxBMax: return "A max, B max";
    case Pattern::kAMinBMin: return "A min, B min";
    case Pattern::kAMinBMax: return "A min, B max";
    case Pattern::kCount: break;
  }
  return "?";
}

/// Unpacked operands: A as mr x K, B transposed as nr x K (K = kgroups * G).
struct Operands {
  std::size_t mr = 0, nr = 0, kgroups = 0, k = 0;
  std::vector<std::int32_t> a;   // a[i * k + kk]
  std::vector<std::int32_t> bt;  // bt[j * k + kk]
};

Operands make_operands(const KernelUnderTest& kut, std::size_t kgroups, Pattern pattern,
                       std::mt19937& rng) {
  const Domain d = domain_of(kut);
  Operands op;
  op.mr = kut.kernel.mr;
  op.nr = kut.kernel.nr;
  op.kgroups = kgroups;
  op.k = kgroups * group_width(kut.kernel.format);
  // at_max: the value of the all-max / all-min patterns.
  auto value = [&](std::int32_t lo, std::int32_t hi, bool at_max) {
    switch (pattern) {
      case Pattern::kRandom: return std::uniform_int_distribution<std::int32_t>(lo, hi)(rng);
      case Pattern::kExtremes: return (rng() & 1) ? hi : lo;
      default: return at_max ? hi : lo;
    }
  };
  const bool a_max = pattern == Pattern::kAMaxBMin || pattern == Pattern::kAMaxBMax;
  const bool b_max = pattern == Pattern::kAMaxBMax || pattern == Pattern::kAMinBMax;
  op.a.resize(op.mr * op.k);
  op.bt.resize(op.nr * op.k);
  for (auto& v : op.a) v = value(d.a_min, d.a_max, a_max);
  for (auto& v : op.bt) v = value(d.b_min, d.b_max, b_max);
  return op;
}

std::int64_t saturate_int16(std::int64_t v) { return std::min<std::int64_t>(32767, std::max<std::int64_t>(-32768, v)); }

/// sum_k A(i, k) * B(k, j) per the kernel's arithmetic, in int64 (never wraps for K <= 65536).
std::vector<std::int64_t> formula_sums(const KernelUnderTest& kut, const Operands& op) {
  std::vector<std::int64_t> sums(op.mr * op.nr);
  const bool pair_sat = kut.kernel.arithmetic == Arithmetic::kPairSaturate16;
  for (std::size_t i = 0; i < op.mr; ++i) {
    const std::int32_t* a = &op.a[i * op.k];
    for (std::size_t j = 0; j < op.nr; ++j) {
      const std::int32_t* b = &op.bt[j * op.k];
      std::int64_t s = 0;
      if (pair_sat) {
        for (std::size_t kk = 0; kk < op.k; kk += 2) {
          s += saturate_int16(std::int64_t{a[kk]} * b[kk] + std::int64_t{a[kk + 1]} * b[kk + 1]);
        }
      } else {
        for (std::size_t kk = 0; kk < op.k; ++kk) s += std::int64_t{a[kk]} * b[kk];
      }
      sums[i * op.nr + j] = s;
    }
  }
  return sums;
}

/// v modulo 2^32 as int32 (two's complement wrap-around).
std::int32_t wrap32(std::int64_t v) {
  const std::uint32_t u = static_cast<std::uint32_t>(v);
  return u <= static_cast<std::uint32_t>(kMax32) ? static_cast<std::int32_t>(u)
                                                 : static_cast<std::int32_t>(std::int64_t{u} - (std::int64_t{1} << 32));
}

// ---- packing, straight from gemm_ukernel.h -----------------------------------------------------------

/// Packed operands plus garbage around the K block: B panels hold `kPreGroups` groups before the
/// block and some after it (earlier and later K blocks in the driver), which the kernel must not
/// use; kRows64 rows are padded with zeros to a multiple of 64 bytes, as the driver does.
struct Packed {
  std::vector<std::uint8_t> a;
  std::size_t a_row_bytes = 0;
  std::vector<std::uint8_t> b;
  std::size_t b_offset = 0;  ///< bytes from b.data() to the block's first group
  std::size_t b_panel_stride = 0;
};

constexpr std::size_t kPreGroups = 2;

void store_value(std::uint8_t* p, std::int32_t v, bool int16) {
  if (int16) {
    const auto v16 = static_cast<std::int16_t>(v);
    std::memcpy(p, &v16, 2);
  } else {
    *p = static_cast<std::uint8_t>(v);  // uint8 or int8's two's complement byte
  }
}

Packed pack(const KernelUnderTest& kut, const Operands& op, std::size_t extra_row_chunks,
            std::mt19937& rng) {
  const PackFormat f = kut.kernel.format;
  const std::size_t g_width = group_width(f);
  const bool int16 = f == PackFormat::kPairs16;
  const std::size_t elem = int16 ? 2 : 1;
  Packed p;

  // A
  if (f == PackFormat::kRows64) {
    p.a_row_bytes = ((op.k + 63) / 64 + extra_row_chunks) * 64;
    p.a.assign(op.mr * p.a_row_bytes, 0);
    for (std::size_t i = 0; i < op.mr; ++i) {  // tile-major (gemm_ukernel.h, rows64_offset)
      for (std::size_t kk = 0; kk < op.k; ++kk) {
        store_value(&p.a[qparity::internal::rows64_offset(i, kk / 64, p.a_row_bytes) + kk % 64], op.a[i * op.k + kk],
                    false);
      }
    }
  } else {  // [kgroups][MR][G]
    p.a.assign(op.kgroups * op.mr * g_width * elem, 0);
    for (std::size_t i = 0; i < op.mr; ++i) {
      for (std::size_t kk = 0; kk < op.k; ++kk) {
        const std::size_t g = kk / g_width, t = kk % g_width;
        store_value(&p.a[((g * op.mr + i) * g_width + t) * elem], op.a[i * op.k + kk], int16);
      }
    }
  }

  // B: panels of 16 columns, 64 bytes per K group, garbage before and after the block. After it,
  // enough for a kRows64 kernel that reads whole 64-byte A rows (16 groups) past kgroups.
  const std::size_t post_groups = 2 + 16 * (extra_row_chunks + 1);
  p.b_panel_stride = (kPreGroups + op.kgroups + post_groups) * kPanelGroupBytes;
  p.b_offset = kPreGroups * kPanelGroupBytes;
  const std::size_t panels = op.nr / kPanelCols;
  p.b.resize(panels * p.b_panel_stride);
  for (auto& byte : p.b) byte = static_cast<std::uint8_t>(rng());
  for (std::size_t j = 0; j < op.nr; ++j) {
    std::uint8_t* panel = p.b.data() + (j / kPanelCols) * p.b_panel_stride + p.b_offset;
    for (std::size_t kk = 0; kk < op.k; ++kk) {
      const std::size_t slot = ((kk / g_width) * kPanelCols + j % kPanelCols) * g_width + kk % g_width;
      store_value(panel + slot * elem, op.bt[j * op.k + kk], int16);
    }
  }
  return p;
}

// ---- one kernel call, checked ---------------------------------------------------------------------

struct InitCase {
  bool accumulate = false;
  std::vector<std::int32_t> col;     ///< empty: col_init = nullptr
  std::vector<std::int32_t> row;     ///< empty: row_init = nullptr
  std::vector<std::int32_t> c_tile;  ///< accumulate: the tile's C values before the call
};

struct CLayout {
  std::size_t ldc = 0;
  std::size_t offset = 0;  ///< int32 elements before the tile (misaligns c)
};

/// Runs the kernel; returns "" if the stored tile equals the formula and nothing else changed,
/// otherwise a description of the first differences.
std::string run_and_check(const KernelUnderTest& kut, const Operands& op, const Packed& packed,
                          const std::vector<std::int64_t>& sums, const InitCase& init,
                          const CLayout& layout, std::mt19937& rng) {
  const std::size_t mr = op.mr, nr = op.nr;
  std::vector<std::int32_t> c(layout.offset + mr * layout.ldc + 19);
  for (auto& v : c) v = static_cast<std::int32_t>(rng());
  std::int32_t* tile = c.data() + layout.offset;
  if (init.accumulate) {
    for (std::size_t i = 0; i < mr; ++i) {
      for (std::size_t j = 0; j < nr; ++j) tile[i * layout.ldc + j] = init.c_tile[i * nr + j];
    }
  }
  const std::vector<std::int32_t> before = c;

  UkernelArgs args;
  args.kgroups = op.kgroups;
  args.a = packed.a.data();
  args.a_row_bytes = packed.a_row_bytes;
  args.b = packed.b.data() + packed.b_offset;
  args.b_panel_stride = packed.b_panel_stride;
  args.c = tile;
  args.ldc = layout.ldc;
  args.col_init = init.col.empty() ? nullptr : init.col.data();
  args.row_init = init.row.empty() ? nullptr : init.row.data();
  args.accumulate = init.accumulate;
  {
    const UkernelSession session(kut.kernel);  // enter / leave, as the driver calls them
    kut.fn(args);
  }

  std::ostringstream err;
  std::size_t bad = 0;
  for (std::size_t idx = 0; idx < c.size(); ++idx) {
    const bool in_tile = idx >= layout.offset && (idx - layout.offset) / layout.ldc < mr &&
                         (idx - layout.offset) % layout.ldc < nr;
    std::int32_t want = before[idx];
    if (in_tile) {
      const std::size_t i = (idx - layout.offset) / layout.ldc, j = (idx - layout.offset) % layout.ldc;
      std::int64_t start;
      if (init.accumulate) {
        start = init.c_tile[i * nr + j];
      } else {
        start = std::int64_t{init.col.empty() ? 0 : init.col[j]} + (init.row.empty() ? 0 : init.row[i]);
      }
      want = wrap32(start + sums[i * nr + j]);
    }
    if (c[idx] != want) {
      if (bad++ < 4) {
        if (in_tile) {
          err << " C[" << (idx - layout.offset) / layout.ldc << "][" << (idx - layout.offset) % layout.ldc << "]";
        } else {
          err << " outside the tile at element " << static_cast<std::ptrdiff_t>(idx - layout.offset);
        }
        err << " = " << c[idx] << ", want " << want << ";";
      }
    }
  }
  if (bad == 0) return "";
  std::ostringstream msg;
  msg << kut.label << ": " << bad << " wrong cells (kgroups=" << op.kgroups << " ldc=" << layout.ldc
      << " c offset=" << layout.offset << " accumulate=" << init.accumulate
      << " col_init=" << (init.col.empty() ? "null" : "set") << " row_init=" << (init.row.empty() ? "null" : "set")
      << "):" << err.str();
  return msg.str();
}

/// A value near the int32 limits or anywhere, so that init additions wrap.
std::int32_t edge_value(std::mt19937& rng) {
  static const std::int32_t edges[] = {kMin32, kMin32 + 1, -1, 0, 1, kMax32 - 1, kMax32};
  if (rng() % 4 == 0) return static_cast<std::int32_t>(rng());
  return edges[rng() % (sizeof edges / sizeof edges[0])];
}

std::vector<std::int32_t> random_values(std::size_t n, bool edges, std::mt19937& rng) {
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = edges ? edge_value(rng) : static_cast<std::int32_t>(rng());
  return v;
}

/// The initialisations the grid runs for each operand set.
std::vector<InitCase> init_cases(std::size_t mr, std::size_t nr, std::mt19937& rng) {
  std::vector<InitCase> cases(6);
  cases[1].col = random_values(nr, false, rng);
  cases[2].row = random_values(mr, false, rng);
  cases[3].col = random_values(nr, true, rng);
  cases[3].row = random_values(mr, true, rng);
  cases[4].accumulate = true;
  cases[4].c_tile = random_values(mr * nr, true, rng);
  // accumulate ignores col_init/row_init, even when the driver passes them.
  cases[5].accumulate = true;
  cases[5].c_tile = random_values(mr * nr, true, rng);
  cases[5].col = random_values(nr, true, rng);
  cases[5].row = random_values(mr, true, rng);
  return cases;
}

// ---- tests ---------------------------------------------------------------------------------------------

std::vector<std::string> expected_isa_names() {
  std::vector<std::string> names;
  const char* env = std::getenv("QPARITY_EXPECT_ISAS");
  std::istringstream in(env ? env : "");
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(std::remove_if(item.begin(), item.end(), [](char ch) { return ch == ' ' || ch == '\t'; }),
               item.end());
    if (!item.empty()) names.push_back(item);
  }
  return names;
}

TEST(UkernelSets, ExpectedKernelsPresent) {
  const std::vector<std::string> expected_isas = expected_isa_names();
  for (const KernelSet& set : kernel_sets()) {
    SCOPED_TRACE(set.name);
    const std::string isa = qparity::to_string(set.isa);
    if (std::find(expected_isas.begin(), expected_isas.end(), isa) != expected_isas.end()) {
      EXPECT_TRUE(supported(set)) << "QPARITY_EXPECT_ISAS names " << isa
                                  << " but this CPU does not support the " << set.name
                                  << " kernels";
    }
    if (!supported(set)) continue;
    // A registered file provides at least the exact kernel; pair_saturate and exact_narrow may
    // come from a parent (packed_gemm.cc, kernel_source).
    EXPECT_NE(set.get(set.isa)->exact.fn, nullptr) << set.name << ": exact kernel missing";
  }
  // Every supported ISA finds a pair-saturating kernel in its parent chain.
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    bool found = false;
    for (qparity::Isa i = isa;; i = qparity::parent_of(i)) {
      const UkernelSet* s = main_set(i);
      found |= s != nullptr && s->pair_saturate.fn != nullptr;
      if (i == qparity::Isa::kScalar) break;
    }
    EXPECT_TRUE(found) << qparity::to_string(isa) << ": no pair-saturating kernel in its chain";
  }
}

TEST(UkernelSets, Metadata) {
  for (const KernelSet& set : kernel_sets()) {
    if (!supported(set)) continue;
    const UkernelSet s = *set.get(set.isa);
    const std::pair<const char*, Ukernel> slots[] = {{"exact", s.exact},
                                                     {"exact_narrow", s.exact_narrow},
                                                     {"exact_one_panel", s.exact_one_panel},
                                                     {"exact_row_tail", s.exact_row_tail},
                                                     {"pair_saturate", s.pair_saturate},
                                                     {"pair_saturate_narrow", s.pair_saturate_narrow}};
    for (const auto& slot : slots) {
      const Ukernel& k = slot.second;
      if (k.fn == nullptr) continue;
      SCOPED_TRACE(std::string(set.name) + "." + slot.first);
      ASSERT_NE(k.name, nullptr);
      EXPECT_FALSE(std::string(k.name).empty());
      EXPECT_GE(k.mr, 1u);
      EXPECT_LE(k.mr, 64u);
      EXPECT_GE(k.nr, kPanelCols);
      EXPECT_EQ(k.nr % kPanelCols, 0u) << "nr must be a multiple of the panel width";
      if (std::string(slot.first) == "exact_narrow") {
        // gemm_ukernel.h: the few-row kernel shares the exact kernel's packed B, whose panels are
        // padded to the larger of the two nr, so one nr must be a multiple of the other.
        EXPECT_EQ(k.arithmetic, Arithmetic::kExact);
        EXPECT_LE(k.mr, 4u) << "exact_narrow is for calls with very few rows";
        ASSERT_NE(s.exact.fn, nullptr) << "exact_narrow without an exact kernel";
        EXPECT_EQ(k.format, s.exact.format) << "exact_narrow must use the exact kernel's packing";
        EXPECT_LT(k.mr, s.exact.mr) << "exact_narrow must be narrower than the exact kernel";
        EXPECT_TRUE(k.nr % s.exact.nr == 0 || s.exact.nr % k.nr == 0)
            << "exact_narrow nr " << k.nr << " vs exact nr " << s.exact.nr;
      } else if (std::string(slot.first) == "exact_one_panel") {
        // packed_gemm.cc runs it in place of the exact kernel on a tile's last column block: the
        // same packed A (mr, format), the same A modes, one panel.
        EXPECT_EQ(k.arithmetic, Arithmetic::kExact);
        ASSERT_NE(s.exact.fn, nullptr) << "exact_one_panel without an exact kernel";
        EXPECT_EQ(k.nr, kPanelCols) << "exact_one_panel covers one panel";
        EXPECT_LT(k.nr, s.exact.nr) << "exact_one_panel must be narrower than the exact kernel";
        EXPECT_EQ(k.mr, s.exact.mr);
        EXPECT_EQ(k.format, s.exact.format);
        EXPECT_EQ(k.direct_a, s.exact.direct_a);
      } else if (std::string(slot.first) == "exact_row_tail") {
        // gemm_tile.cc runs it once per valid row of a row block with few valid rows, in place of
        // the exact kernel: the same columns, format and A modes, fewer rows.
        EXPECT_EQ(k.arithmetic, Arithmetic::kExact);
        ASSERT_NE(s.exact.fn, nullptr) << "exact_row_tail without an exact kernel";
        EXPECT_EQ(k.mr, 1u) << "exact_row_tail covers one row";
        EXPECT_EQ(k.nr, s.exact.nr);
        EXPECT_EQ(k.format, s.exact.format);
        EXPECT_EQ(k.direct_a, s.exact.direct_a);
      } else if (std::string(slot.first) == "pair_saturate_narrow") {
        // packed_gemm.cc takes it with the set's pair_saturate, sharing its packed B (as
        // exact_narrow shares exact's).
        EXPECT_EQ(k.arithmetic, Arithmetic::kPairSaturate16);
        EXPECT_LE(k.mr, 4u) << "pair_saturate_narrow is for calls with very few rows";
        ASSERT_NE(s.pair_saturate.fn, nullptr) << "pair_saturate_narrow without pair_saturate";
        EXPECT_EQ(k.format, s.pair_saturate.format);
        EXPECT_LT(k.mr, s.pair_saturate.mr);
        EXPECT_TRUE(k.nr % s.pair_saturate.nr == 0 || s.pair_saturate.nr % k.nr == 0)
            << "pair_saturate_narrow nr " << k.nr << " vs pair_saturate nr " << s.pair_saturate.nr;
      } else if (std::string(slot.first) == "exact") {
        EXPECT_EQ(k.arithmetic, Arithmetic::kExact);
      } else {
        EXPECT_EQ(k.arithmetic, Arithmetic::kPairSaturate16);
        EXPECT_EQ(k.format, PackFormat::kDot4) << "pair saturation is defined for kDot4 only";
      }
      if (k.format == PackFormat::kRows64) {
        EXPECT_NE(k.fn_signed_a, nullptr) << "kRows64 needs the int8-activation variant";
      } else {
        EXPECT_EQ(k.fn_signed_a, nullptr) << "fn_signed_a is for kRows64 only";
      }
    }
  }
}

class UkernelExactness : public ::testing::TestWithParam<KernelUnderTest> {};

TEST_P(UkernelExactness, Grid) {
  const KernelUnderTest& kut = GetParam();
  const std::size_t mr = kut.kernel.mr, nr = kut.kernel.nr;
  const std::size_t g_width = group_width(kut.kernel.format);
  // K = kgroups * G; the last entry is the contract's largest block, K = kMaxKBlock.
  const std::size_t kgroups_list[] = {1, 2, 3, 4, 7, 16, 17, 64, 255, 1000, kMaxKBlock / g_width};
  const CLayout layouts[] = {{nr, 0}, {nr + 1, 1}, {nr + 19, 3}, {2 * nr + 5, 16}};
  std::mt19937 rng(20240611u);
  std::size_t calls = 0;
  for (std::size_t kgroups : kgroups_list) {
    for (int pi = 0; pi < static_cast<int>(Pattern::kCount); ++pi) {
      const Pattern pattern = static_cast<Pattern>(pi);
      SCOPED_TRACE(std::string("operands: ") + pattern_name(pattern));
      const Operands op = make_operands(kut, kgroups, pattern, rng);
      const Packed packed = pack(kut, op, static_cast<std::size_t>(pi % 2), rng);
      const std::vector<std::int64_t> sums = formula_sums(kut, op);
      for (const InitCase& init : init_cases(mr, nr, rng)) {
        const CLayout& layout = layouts[calls++ % (sizeof layouts / sizeof layouts[0])];
        const std::string err = run_and_check(kut, op, packed, sums, init, layout, rng);
        ASSERT_EQ(err, "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Supported, UkernelExactness, ::testing::ValuesIn(kernels_under_test()),
                         [](const ::testing::TestParamInfo<KernelUnderTest>& info) { return info.param.label; });

// Every case checks every kernel with the same drawn parameters.
RC_GTEST_PROP(UkernelProperty, MatchesContract, ()) {
  const std::size_t kgroups = *rc::gen::inRange<std::size_t>(1, 300);
  const auto pattern = static_cast<Pattern>(*rc::gen::inRange<int>(0, static_cast<int>(Pattern::kCount)));
  const std::size_t ldc_extra = *rc::gen::inRange<std::size_t>(0, 40);
  const std::size_t c_offset = *rc::gen::inRange<std::size_t>(0, 17);
  const std::size_t extra_row_chunks = *rc::gen::inRange<std::size_t>(0, 2);
  const bool accumulate = *rc::gen::arbitrary<bool>();
  const bool with_col = *rc::gen::arbitrary<bool>();
  const bool with_row = *rc::gen::arbitrary<bool>();
  const bool edges = *rc::gen::arbitrary<bool>();
  const std::uint32_t seed = *rc::gen::arbitrary<std::uint32_t>();
  for (const KernelUnderTest& kut : kernels_under_test()) {
    const std::size_t mr = kut.kernel.mr, nr = kut.kernel.nr;
    std::mt19937 rng(seed);
    InitCase init;
    init.accumulate = accumulate;
    if (with_col) init.col = random_values(nr, edges, rng);
    if (with_row) init.row = random_values(mr, edges, rng);
    if (accumulate) init.c_tile = random_values(mr * nr, edges, rng);
    const Operands op = make_operands(kut, kgroups, pattern, rng);
    const Packed packed = pack(kut, op, extra_row_chunks, rng);
    const CLayout layout{nr + ldc_extra, c_offset};
    RC_ASSERT(run_and_check(kut, op, packed, formula_sums(kut, op), init, layout, rng) == "");
  }
}

}  // namespace
