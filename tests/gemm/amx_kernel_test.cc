// The AMX GEMM micro-kernel's body (kernels/gemm/ukernel_amx_body.h) run on a software model of
// the AMX instructions (amx_emulator.h), label unit. The body is the code ukernel_amx.cc runs on
// AMX hardware with the real instructions; here it runs on any CPU, so its tile shapes, addresses,
// strides, K tail, initialisation and stores are proven everywhere (the instructions themselves
// only on AMX machines, by ukernel_test.cc and gemm_test.cc).
//
//  * AmxEmulator.*: the model against hand-computed results and the documented faults, so that a
//    mistake in the model cannot hide one in the kernel.
//  * AmxKernelEmulated.Grid: both signednesses x kgroups around the 16-group step (1 .. 128 and
//    1000) x operand patterns x every initialisation (none, col_init, row_init, both, near
//    INT32_MIN / INT32_MAX so that the additions wrap, accumulate) x ldc > NR and misaligned c x
//    A packed (tile-major), read in place (lda >= K, full and partial row blocks) or through
//    segment pointers (tiles evenly spaced, on the pad buffer, or neither: staged), each stored
//    tile compared bit for bit with the contract's formula computed here.
//  * AmxKernelEmulated.LargestBlock: K = kMaxKBlock with max-magnitude products.
//  * AmxKernelEmulated.Property: RapidCheck over all of the above.
// Every run also checks that the kernel neither configures nor releases the tiles (its enter and
// leave do, as the driver calls them: once around a tile's calls), issues 4 TDPs
// per 16-group step, and that every tile load / store stays inside its operand: B rows outside
// the K block (filled with garbage here, as the next block's data in the driver), A guard bytes,
// and C cells around the tile are never touched.
#define QPARITY_GEMM_ISA_NS gemm_amx_emulated

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/dispatch/cpu_features.h"
#include "kernels/gemm/gemm_ukernel.h"
#include "kernels/gemm/ukernel_amx_body.h"
#include "qparity/isa.h"
#include "tests/gemm/amx_emulator.h"

namespace {

using qparity::internal::kMaxKBlock;
using qparity::internal::kPanelCols;
using qparity::internal::kPanelGroupBytes;
using qparity::internal::UkernelArgs;
using qparity::internal::gemm_amx_emulated::AmxTileConfig;
using qparity::internal::gemm_amx_emulated::amx_rows64_kernel;
using qparity::internal::gemm_amx_emulated::amx_enter;
using qparity::internal::gemm_amx_emulated::amx_leave;
using qparity::internal::gemm_amx_emulated::kAmxMr;
using qparity::internal::gemm_amx_emulated::kAmxNr;
using qparity::internal::gemm_amx_emulated::kAmxStepGroups;
using qparity::internal::gemm_amx_emulated::kAmxTileRows;
using qparity_test::amx::Emulator;
using qparity_test::amx::Fault;

constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax32 = std::numeric_limits<std::int32_t>::max();

// ---- the model, on its own -----------------------------------------------------------------------

/// A 64-byte LDTILECFG operand, palette 1, with the given (rows, colsb) per tile.
struct RawConfig {
  alignas(64) unsigned char bytes[64] = {};
  RawConfig() { bytes[0] = 1; }
  RawConfig& tile(int t, unsigned rows, unsigned colsb) {
    bytes[48 + t] = static_cast<unsigned char>(rows);
    bytes[16 + 2 * t] = static_cast<unsigned char>(colsb & 0xff);
    bytes[17 + 2 * t] = static_cast<unsigned char>(colsb >> 8);
    return *this;
  }
};

std::string fault_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Fault& e) {
    return e.what();
  }
  return "";
}

// C (tmm0) 2 x 2 dwords, A (tmm1) 2 rows x 2 dwords (K = 2 groups), B (tmm2) 2 rows x 2 dwords.
// Row 0 of A against the two rows of B, by hand (products uint8 or int8 x int8, int32 wrap):
//   A[0] = {255, 1, 128, 2 | 1, 0, 0, 0}   B[0] = {-128, 127, -1, 5 | 1, 1, 1, 1}
//                                            B[1] = {3, 0, 0, 0 | -2, 0, 0, 0}
//   TDPBUSD: C[0][0] = 0 + 255*-128 + 127 - 128 + 10 + 1*3            = -32628
//            C[0][1] = INT32_MAX + (255 + 1 + 128 + 2) + 1*-2         = INT32_MIN + 383
//   TDPBSSD: C[0][0] = 0 + -1*-128 + 127 + -128*-1 + 10 + 3            = 396
//            C[0][1] = INT32_MAX + (-1 + 1 - 128 + 2) - 2              = INT32_MAX - 128
// Row 1 of A is zero: C[1] keeps its initial values.
void run_hand_example(bool signed_a, std::int32_t (&out)[2][2]) {
  Emulator cpu;
  const RawConfig cfg = RawConfig().tile(0, 2, 8).tile(1, 2, 8).tile(2, 2, 8);
  cpu.ldtilecfg(cfg.bytes);
  const std::int32_t c_init[2][2] = {{0, kMax32}, {7, kMin32}};
  const std::int8_t a[2][8] = {{-1, 1, -128, 2, 1, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}};  // bytes 255, 128
  const std::int8_t b[2][8] = {{-128, 127, -1, 5, 1, 1, 1, 1}, {3, 0, 0, 0, -2, 0, 0, 0}};
  cpu.tileloadd(0, c_init, 8);
  cpu.tileloadd(1, a, 8);
  cpu.tileloadd(2, b, 8);
  if (signed_a) {
    cpu.tdpbssd(0, 1, 2);
  } else {
    cpu.tdpbusd(0, 1, 2);
  }
  cpu.tilestored(0, out, 8);
}

TEST(AmxEmulator, DotProductsMatchHandComputedValues) {
  std::int32_t u[2][2], s[2][2];
  run_hand_example(false, u);
  run_hand_example(true, s);
  EXPECT_EQ(u[0][0], -32628);
  EXPECT_EQ(u[0][1], kMin32 + 383);
  EXPECT_EQ(u[1][0], 7);
  EXPECT_EQ(u[1][1], kMin32);
  EXPECT_EQ(s[0][0], 396);
  EXPECT_EQ(s[0][1], kMax32 - 128);
  EXPECT_EQ(s[1][0], 7);
  EXPECT_EQ(s[1][1], kMin32);
}

TEST(AmxEmulator, LdtilecfgValidatesLikeTheSdm) {
  Emulator cpu;
  auto gp = [&](const RawConfig& c) { return fault_of([&] { cpu.ldtilecfg(c.bytes); }); };
  RawConfig palette2;
  palette2.bytes[0] = 2;
  EXPECT_NE(gp(palette2), "");
  for (int reserved : {2, 15, 32, 47, 56, 63}) {
    RawConfig c = RawConfig().tile(0, 16, 64);
    c.bytes[reserved] = 1;
    EXPECT_NE(gp(c), "") << "reserved byte " << reserved;
  }
  EXPECT_NE(gp(RawConfig().tile(3, 16, 65)), "");
  EXPECT_NE(gp(RawConfig().tile(3, 17, 64)), "");
  EXPECT_NE(gp(RawConfig().tile(3, 0, 4)), "");
  EXPECT_NE(gp(RawConfig().tile(3, 4, 0)), "");
  EXPECT_FALSE(cpu.configured());
  EXPECT_EQ(gp(RawConfig().tile(3, 16, 64).tile(7, 1, 4)), "");
  EXPECT_TRUE(cpu.configured());

  // STTILECFG gives back the configuration; palette 0 and TILERELEASE return to INIT (all zero).
  RawConfig c = RawConfig().tile(0, 5, 12).tile(6, 16, 64);
  c.bytes[1] = 3;  // start_row
  cpu.ldtilecfg(c.bytes);
  unsigned char back[64];
  cpu.sttilecfg(back);
  EXPECT_EQ(std::memcmp(back, c.bytes, 64), 0);
  RawConfig init;
  init.bytes[0] = 0;
  init.bytes[5] = 9;  // palette 0 ignores the rest
  EXPECT_EQ(gp(init), "");
  EXPECT_FALSE(cpu.configured());
  cpu.sttilecfg(back);
  for (unsigned char x : back) EXPECT_EQ(x, 0);
}

TEST(AmxEmulator, LdtilecfgZeroesTileDataAndReleaseUnconfigures) {
  Emulator cpu;
  const RawConfig cfg = RawConfig().tile(0, 2, 8);
  const std::int32_t ones[2][2] = {{1, 1}, {1, 1}};
  std::int32_t out[2][2] = {{5, 5}, {5, 5}};
  EXPECT_NE(fault_of([&] { cpu.tileloadd(0, ones, 8); }), "") << "unconfigured TILELOADD";
  EXPECT_NE(fault_of([&] { cpu.tilezero(0); }), "") << "unconfigured TILEZERO";
  cpu.ldtilecfg(cfg.bytes);
  EXPECT_NE(fault_of([&] { cpu.tileloadd(1, ones, 8); }), "") << "tile 1 is not configured";
  cpu.tileloadd(0, ones, 8);
  cpu.ldtilecfg(cfg.bytes);
  cpu.tilestored(0, out, 8);
  EXPECT_EQ(out[0][0], 0);
  EXPECT_EQ(out[1][1], 0);
  cpu.tilerelease();
  EXPECT_FALSE(cpu.configured());
  EXPECT_NE(fault_of([&] { cpu.tilestored(0, out, 8); }), "") << "TILESTORED after TILERELEASE";
}

TEST(AmxEmulator, RowsColsbAndStride) {
  Emulator cpu;
  cpu.ldtilecfg(RawConfig().tile(0, 3, 8).tile(1, 2, 64).bytes);
  // 3 rows of 8 bytes at stride 12 bytes; the store writes only those bytes.
  std::int32_t src[12];
  for (int i = 0; i < 12; ++i) src[i] = 100 + i;
  cpu.tileloadd(0, src, 12);
  std::int32_t dst[12];
  for (auto& x : dst) x = -1;
  cpu.tilestored(0, dst, 16);
  const std::int32_t want[12] = {100, 101, -1, -1, 103, 104, -1, -1, 106, 107, -1, -1};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(dst[i], want[i]) << i;
  // Stride 0: every row is the same memory.
  std::int32_t row[16], both[2][16];
  for (int i = 0; i < 16; ++i) row[i] = i * 3 - 7;
  cpu.tileloadd(1, row, 0);
  cpu.tilestored(1, both, 64);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(both[0][i], row[i]);
    EXPECT_EQ(both[1][i], row[i]);
  }
  // start_row: rows before it are neither loaded nor stored, and it is reset afterwards.
  RawConfig restart = RawConfig().tile(0, 3, 8);
  restart.bytes[1] = 2;
  cpu.ldtilecfg(restart.bytes);
  cpu.tileloadd(0, src, 8);
  for (auto& x : dst) x = -1;
  cpu.tilestored(0, dst, 8);  // start_row is 0 again: all three rows, rows 0 and 1 zero
  const std::int32_t want_restart[6] = {0, 0, 0, 0, 104, 105};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(dst[i], want_restart[i]) << i;
}

TEST(AmxEmulator, TdpRejectsIncompatibleShapes) {
  Emulator cpu;
  auto ud = [&](const RawConfig& c, int d, int s1, int s2) {
    cpu.ldtilecfg(c.bytes);
    return fault_of([&] { cpu.tdpbusd(d, s1, s2); });
  };
  const RawConfig ok = RawConfig().tile(0, 16, 64).tile(1, 16, 64).tile(2, 16, 64);
  EXPECT_EQ(ud(ok, 0, 1, 2), "");
  EXPECT_NE(ud(ok, 0, 0, 2), "") << "repeated tile";
  EXPECT_NE(ud(ok, 0, 1, 1), "") << "repeated tile";
  EXPECT_NE(ud(ok, 0, 1, 3), "") << "unconfigured tile";
  EXPECT_NE(ud(RawConfig().tile(0, 16, 32).tile(1, 16, 64).tile(2, 16, 64), 0, 1, 2), "") << "C.colsb != B.colsb";
  EXPECT_NE(ud(RawConfig().tile(0, 8, 64).tile(1, 16, 64).tile(2, 16, 64), 0, 1, 2), "") << "C.rows != A.rows";
  EXPECT_NE(ud(RawConfig().tile(0, 16, 64).tile(1, 16, 60).tile(2, 16, 64), 0, 1, 2), "") << "A.colsb / 4 != B.rows";
  EXPECT_EQ(ud(RawConfig().tile(0, 16, 64).tile(1, 16, 12).tile(2, 3, 64), 0, 1, 2), "") << "K = 3";
  EXPECT_NE(ud(RawConfig().tile(0, 16, 64).tile(1, 16, 6).tile(2, 1, 64), 0, 1, 2), "") << "colsb % 4";
}

// ---- the kernel body on the model -----------------------------------------------------------------

Emulator& emulated_cpu() {
  static thread_local Emulator cpu;
  return cpu;
}

/// The body's tile-ops policy, on the model (cf. AmxOps in kernels/gemm/ukernel_amx.cc).
struct EmulatedOps {
  static void load_config(const AmxTileConfig& c) { emulated_cpu().ldtilecfg(&c); }
  static void release() { emulated_cpu().tilerelease(); }
  template <int T>
  static void zero() { emulated_cpu().tilezero(T); }
  template <int T>
  static void load(const void* p, std::size_t stride) {
    emulated_cpu().tileloadd(T, p, static_cast<std::int64_t>(stride));
  }
  template <int T>
  static void store(void* p, std::size_t stride) {
    emulated_cpu().tilestored(T, p, static_cast<std::int64_t>(stride));
  }
  template <int C, int A, int B>
  static void dpbusd() { emulated_cpu().tdpbusd(C, A, B); }
  template <int C, int A, int B>
  static void dpbssd() { emulated_cpu().tdpbssd(C, A, B); }
};

enum class Values { kRandom, kExtremes, kMaxMagnitude, kMaxPositive, kCount };
enum class Init { kNone, kCol, kRow, kBoth, kAccumulate, kAccumulateIgnoresInit, kCount };

struct Case {
  bool signed_a = false;
  std::size_t kgroups = 1;
  Values values = Values::kRandom;
  Init init = Init::kNone;
  bool edge_init = false;         ///< init values near INT32_MIN / INT32_MAX (the adds wrap)
  bool garbage_a_padding = false; ///< A row bytes past kgroups * 4 random instead of 0
  std::size_t extra_row_chunks = 0;  ///< a_row_bytes longer than needed (packed A)
  /// A read in place (UkernelArgs::a_stride): rows lda = k + lda_extra bytes apart, a_rows of
  /// them, the buffer ending right after the last row's K bytes (an over-read fails ASan).
  bool direct = false;
  std::size_t lda_extra = 0;
  std::size_t a_rows = kAmxMr;
  /// A read through segment pointers (UkernelArgs::a_segments) when nonzero: segments of this
  /// many groups (a multiple of 16), kgroups / seg_groups of them per row, each tile of each
  /// segment evenly spaced in an image buffer, all on the pad buffer, one row on it, or reversed.
  std::size_t seg_groups = 0;
  std::size_t ldc = kAmxNr;
  std::size_t c_offset = 0;       ///< int32 elements before the tile (misaligns c)
};

std::string describe(const Case& c) {
  std::ostringstream s;
  s << (c.signed_a ? "int8" : "uint8") << " kgroups=" << c.kgroups << " values=" << static_cast<int>(c.values)
    << " init=" << static_cast<int>(c.init) << (c.edge_init ? " (edge)" : "")
    << " a_padding=" << (c.garbage_a_padding ? "garbage" : "zero") << " extra_chunks=" << c.extra_row_chunks
    << (c.direct ? " direct lda=k+" + std::to_string(c.lda_extra) + " a_rows=" + std::to_string(c.a_rows) : "")
    << (c.seg_groups ? " segments of " + std::to_string(c.seg_groups) + " groups" : "")
    << " ldc=" << c.ldc << " c_offset=" << c.c_offset;
  return s.str();
}

std::int32_t wrap32(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

std::int32_t init_value(bool edge, std::mt19937& rng) {
  static const std::int32_t edges[] = {kMin32, kMin32 + 1, -1, 0, 1, kMax32 - 1, kMax32};
  if (!edge || rng() % 4 == 0) return static_cast<std::int32_t>(rng());
  return edges[rng() % (sizeof edges / sizeof edges[0])];
}

/// A region of a test buffer the kernel may touch through tile instructions.
struct Allowed {
  std::uintptr_t begin, end;
  bool write;
};

/// Runs one case on the model; returns "" if everything holds, else what went wrong.
std::string run_case(const Case& cs, std::mt19937& rng) {
  const std::size_t kg = cs.kgroups, k = kg * 4;
  const int a_lo = cs.signed_a ? -128 : 0, a_hi = cs.signed_a ? 127 : 255;
  auto pick = [&](int lo, int hi, bool at_hi) -> int {
    switch (cs.values) {
      case Values::kRandom: return std::uniform_int_distribution<int>(lo, hi)(rng);
      case Values::kExtremes: return (rng() & 1) ? hi : lo;
      default: return at_hi ? hi : lo;
    }
  };
  // kMaxMagnitude: A at its end farthest from 0, B = -128; kMaxPositive: the largest positive
  // product (uint8: 255 * 127; int8: -128 * -128).
  const bool a_hi_end = !cs.signed_a;
  const bool b_hi_end = cs.values == Values::kMaxPositive && !cs.signed_a;

  // A, packed: kAmxMr rows in kRows64's tile-major layout (gemm_ukernel.h), a_row_bytes per row,
  // with 64 guard bytes on each side. In place: a_rows rows lda apart after 64 guard bytes.
  const std::size_t steps_needed = (k + 63) / 64;
  const std::size_t a_row_bytes = (steps_needed + cs.extra_row_chunks) * 64;
  const std::size_t lda = k + cs.lda_extra;
  const std::size_t a_rows = cs.direct ? cs.a_rows : kAmxMr;
  const std::size_t a_bytes = cs.direct ? (a_rows - 1) * lda + k : kAmxMr * a_row_bytes;
  std::vector<std::uint8_t> a_buf(64 + a_bytes + (cs.direct ? 0 : 64));
  for (auto& x : a_buf) x = static_cast<std::uint8_t>(rng());
  std::uint8_t* a = a_buf.data() + 64;
  auto a_at = [&](std::size_t i, std::size_t kk) -> std::uint8_t& {
    return cs.direct ? a[i * lda + kk] : a[qparity::internal::rows64_offset(i, kk / 64, a_row_bytes) + kk % 64];
  };
  std::vector<int> a_val(kAmxMr * k, 0);
  for (std::size_t i = 0; i < a_rows; ++i) {
    for (std::size_t kk = 0; kk < (cs.direct ? k : a_row_bytes); ++kk) {
      if (kk < k) {
        a_val[i * k + kk] = pick(a_lo, a_hi, a_hi_end);
        a_at(i, kk) = static_cast<std::uint8_t>(a_val[i * k + kk]);
      } else if (!cs.garbage_a_padding) {
        a_at(i, kk) = 0;
      }
    }
  }

  // A through segment pointers: an image of 2 * kAmxMr + 3 * taps pixels of seg bytes each (a
  // buffer of exactly that size) and a pad buffer of seg bytes; per (tap, tile) one of four
  // layouts, which the kernel must load in place (even spacing, stride 0) or stage.
  const std::size_t seg = cs.seg_groups * 4, taps = cs.seg_groups ? kg / cs.seg_groups : 0;
  std::vector<std::uint8_t> image(cs.seg_groups ? (2 * kAmxMr + 3 * taps) * seg : 0);
  std::vector<std::uint8_t> pad_buf(seg);
  std::vector<const std::uint8_t*> table(taps * kAmxMr);
  if (cs.seg_groups != 0) {
    for (auto& x : image) x = static_cast<std::uint8_t>(pick(a_lo, a_hi, a_hi_end));
    const auto pad_value = static_cast<std::uint8_t>(pick(a_lo, a_hi, a_hi_end));
    for (auto& x : pad_buf) x = pad_value;
    for (std::size_t t = 0; t < taps; ++t) {
      for (std::size_t tile = 0; tile < 2; ++tile) {
        const std::size_t step_px = 1 + rng() % 2, layout = rng() % 4, odd_row = rng() % 16;
        const std::uint8_t* base = image.data() + (3 * t + tile) * seg;
        for (std::size_t r = 0; r < kAmxTileRows; ++r) {
          const std::size_t rr = layout == 3 ? kAmxTileRows - 1 - r : r;
          const bool on_pad = layout == 1 || (layout == 2 && r == odd_row);
          table[t * kAmxMr + tile * kAmxTileRows + r] = on_pad ? pad_buf.data() : base + rr * step_px * seg;
        }
      }
      for (std::size_t i = 0; i < kAmxMr; ++i) {
        for (std::size_t j = 0; j < seg; ++j) {
          const std::uint8_t byte = table[t * kAmxMr + i][j];
          a_val[i * k + t * seg + j] = cs.signed_a ? static_cast<std::int8_t>(byte) : byte;
        }
      }
    }
  }

  // B: two panels of (pre + kgroups + post) groups; only the block's groups are real. post > 16
  // so that a kernel reading a whole step past the block reads garbage, not unmapped memory.
  const std::size_t pre = 2, post = kAmxStepGroups + 1;
  const std::size_t stride = (pre + kg + post) * kPanelGroupBytes;
  std::vector<std::uint8_t> b_buf(2 * stride);
  for (auto& x : b_buf) x = static_cast<std::uint8_t>(rng());
  const std::uint8_t* b = b_buf.data() + pre * kPanelGroupBytes;
  std::vector<int> b_val(kAmxNr * k);  // b_val[j * k + kk]
  for (std::size_t j = 0; j < kAmxNr; ++j) {
    for (std::size_t kk = 0; kk < k; ++kk) {
      const int v = pick(-128, 127, b_hi_end);
      b_val[j * k + kk] = v;
      b_buf[(j / kPanelCols) * stride + pre * kPanelGroupBytes +
            ((kk / 4) * kPanelCols + j % kPanelCols) * 4 + kk % 4] = static_cast<std::uint8_t>(v);
    }
  }

  // Initial values and C.
  const bool accumulate = cs.init == Init::kAccumulate || cs.init == Init::kAccumulateIgnoresInit;
  const bool with_col = cs.init == Init::kCol || cs.init == Init::kBoth || cs.init == Init::kAccumulateIgnoresInit;
  const bool with_row = cs.init == Init::kRow || cs.init == Init::kBoth || cs.init == Init::kAccumulateIgnoresInit;
  std::vector<std::int32_t> col(kAmxNr), row(kAmxMr), c_tile(kAmxMr * kAmxNr);
  for (auto& x : col) x = init_value(cs.edge_init, rng);
  for (auto& x : row) x = init_value(cs.edge_init, rng);
  for (auto& x : c_tile) x = init_value(cs.edge_init, rng);
  std::vector<std::int32_t> c_buf(cs.c_offset + kAmxMr * cs.ldc + 19);
  for (auto& x : c_buf) x = static_cast<std::int32_t>(rng());
  std::int32_t* c = c_buf.data() + cs.c_offset;
  if (accumulate) {
    for (std::size_t i = 0; i < kAmxMr; ++i) {
      for (std::size_t j = 0; j < kAmxNr; ++j) c[i * cs.ldc + j] = c_tile[i * kAmxNr + j];
    }
  }
  const std::vector<std::int32_t> c_before = c_buf;

  UkernelArgs args;
  args.kgroups = kg;
  args.a = a;
  if (cs.seg_groups != 0) {
    args.a = nullptr;
    args.a_segments = table.data();
    args.a_seg_groups = cs.seg_groups;
  } else if (cs.direct) {
    args.a_stride = lda;
    args.a_rows = a_rows;
  } else {
    args.a_row_bytes = a_row_bytes;
  }
  args.b = b;
  args.b_panel_stride = stride;
  args.c = c;
  args.ldc = cs.ldc;
  args.col_init = with_col ? col.data() : nullptr;
  args.row_init = with_row ? row.data() : nullptr;
  args.accumulate = accumulate;

  Emulator& cpu = emulated_cpu();
  std::ostringstream err;
  // As the driver runs it: enter (the configuration), the kernel, leave (the release); the
  // kernel's own instructions counted alone, so that it cannot configure or release by itself.
  try {
    amx_enter<EmulatedOps>();
    cpu.reset_counts();
    if (cs.signed_a) {
      amx_rows64_kernel<EmulatedOps, true>(args);
    } else {
      amx_rows64_kernel<EmulatedOps, false>(args);
    }
  } catch (const Fault& f) {
    cpu.tilerelease();
    return describe(cs) + ": fault: " + f.what();
  }
  if (!cpu.configured()) err << " the kernel released the tiles (the driver's leave does);";
  if (cpu.counts().ldtilecfg != 0) err << " " << cpu.counts().ldtilecfg << " LDTILECFG in the kernel, want 0;";
  if (cpu.counts().tilerelease != 0) err << " TILERELEASE in the kernel;";
  amx_leave<EmulatedOps>();

  // Tile state and instruction counts.
  const std::size_t steps = (kg + kAmxStepGroups - 1) / kAmxStepGroups;
  if (cpu.configured()) err << " tiles left configured after leave;";
  if (cpu.counts().tdp != 4 * steps) err << " " << cpu.counts().tdp << " TDP, want " << 4 * steps << ";";
  if (cpu.counts().tileloadd > 4 * steps + 4) {
    err << " " << cpu.counts().tileloadd << " TILELOADD: an A or B tile loaded for fewer than two TDPs;";
  }

  // Accesses: inside a test buffer only where allowed; elsewhere only the kernel's own scratch.
  auto span = [](const void* p, std::size_t bytes) {
    const auto u = reinterpret_cast<std::uintptr_t>(p);
    return std::pair<std::uintptr_t, std::uintptr_t>(u, u + bytes);
  };
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> buffers = {
      span(a_buf.data(), a_buf.size()), span(b_buf.data(), b_buf.size()),
      span(c_buf.data(), c_buf.size() * 4), span(col.data(), col.size() * 4), span(row.data(), row.size() * 4),
      span(image.data(), image.size()), span(pad_buf.data(), pad_buf.size())};
  std::vector<Allowed> allowed;
  auto allow = [&](const void* p, std::size_t bytes, bool write) {
    const auto s = span(p, bytes);
    allowed.push_back({s.first, s.second, write});
  };
  if (cs.seg_groups != 0) {
    allow(image.data(), image.size(), false);
    allow(pad_buf.data(), pad_buf.size(), false);
  } else if (cs.direct) {
    // Whole 64-byte steps of every row, in place, but never a row's bytes past its K values (the
    // K tail is staged); the staging buffer is the kernel's own.
    for (std::size_t i = 0; i < a_rows; ++i) allow(a + i * lda, k / 64 * 64, false);
  } else {
    allow(a, kAmxMr * a_row_bytes, false);
  }
  allow(b, kg * kPanelGroupBytes, false);
  allow(b + stride, kg * kPanelGroupBytes, false);
  for (std::size_t i = 0; i < kAmxMr; ++i) allow(c + i * cs.ldc, kAmxNr * 4, true);
  if (with_col && !accumulate) allow(col.data(), col.size() * 4, false);
  std::size_t bad_accesses = 0;
  for (const auto& acc : cpu.accesses()) {
    const std::uintptr_t lo = acc.address, hi = acc.address + acc.bytes;
    bool in_buffer = false, ok = false;
    for (const auto& buf : buffers) in_buffer |= lo < buf.second && buf.first < hi;
    for (const Allowed& r : allowed) ok |= r.begin <= lo && hi <= r.end && (r.write || !acc.write);
    // Reading C is only meaningful when accumulating.
    if (ok && !acc.write && !accumulate) {
      for (std::size_t i = 0; i < kAmxMr; ++i) {
        const auto s = span(c + i * cs.ldc, kAmxNr * 4);
        if (s.first <= lo && hi <= s.second) ok = false;
      }
    }
    if (in_buffer && !ok && bad_accesses++ < 3) {
      err << " tile " << (acc.write ? "store" : "load") << " of " << acc.bytes << " bytes outside its operand;";
    }
  }

  // Values: the contract's formula; everything outside the tile unchanged.
  std::size_t bad_cells = 0;
  for (std::size_t idx = 0; idx < c_buf.size(); ++idx) {
    std::int32_t want = c_before[idx];
    const bool in_tile = idx >= cs.c_offset && (idx - cs.c_offset) / cs.ldc < kAmxMr &&
                         (idx - cs.c_offset) % cs.ldc < kAmxNr;
    std::size_t i = 0, j = 0;
    if (in_tile) {
      i = (idx - cs.c_offset) / cs.ldc;
      j = (idx - cs.c_offset) % cs.ldc;
      if (i >= a_rows) continue;  // a padding row of an A read in place: any value
      std::int64_t sum = accumulate ? c_tile[i * kAmxNr + j]
                                    : std::int64_t{with_col ? col[j] : 0} + (with_row ? row[i] : 0);
      for (std::size_t kk = 0; kk < k; ++kk) sum += std::int64_t{a_val[i * k + kk]} * b_val[j * k + kk];
      want = wrap32(sum);
    }
    if (c_buf[idx] != want && bad_cells++ < 4) {
      if (in_tile) {
        err << " C[" << i << "][" << j << "] = " << c_buf[idx] << ", want " << want << ";";
      } else {
        err << " element " << static_cast<std::ptrdiff_t>(idx - cs.c_offset) << " outside the tile changed;";
      }
    }
  }
  if (bad_cells > 0) err << " (" << bad_cells << " wrong cells)";
  const std::string e = err.str();
  return e.empty() ? "" : describe(cs) + ":" + e;
}

TEST(AmxKernelEmulated, Grid) {
  const std::size_t kgroups_list[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 128, 1000};
  const std::size_t ldcs[] = {kAmxNr, kAmxNr + 1, kAmxNr + 19, 2 * kAmxNr + 5};
  std::mt19937 rng(20240617u);
  std::size_t n = 0;
  for (bool signed_a : {false, true}) {
    for (std::size_t kg : kgroups_list) {
      for (int v = 0; v < static_cast<int>(Values::kCount); ++v) {
        for (int in = 0; in < static_cast<int>(Init::kCount); ++in) {
          for (bool edge : {false, true}) {
            Case cs;
            cs.signed_a = signed_a;
            cs.kgroups = kg;
            cs.values = static_cast<Values>(v);
            cs.init = static_cast<Init>(in);
            cs.edge_init = edge;
            cs.garbage_a_padding = (n % 2) == 1;
            cs.extra_row_chunks = (n / 2) % 2;
            cs.ldc = ldcs[n % 4];
            cs.c_offset = (n * 7) % 17;
            // Every third case reads A in place: lda = k, k + 7, ..., and full or partial row
            // blocks (staged on every step).
            static const std::size_t rows_list[] = {kAmxMr, 1, 16, 17, 31, kAmxMr};
            cs.direct = n % 3 == 2;
            cs.lda_extra = (n / 3) % 5 * 7;
            cs.a_rows = rows_list[(n / 3) % 6];
            // Where kgroups is a multiple of 16, every fifth case reads A through segments.
            if (kg % kAmxStepGroups == 0 && n % 5 == 4) {
              cs.seg_groups = kg % 32 == 0 && n % 2 ? 32 : kAmxStepGroups;
              cs.direct = false;
            }
            ++n;
            ASSERT_EQ(run_case(cs, rng), "");
          }
        }
      }
    }
  }
}

// K = 65536, the contract's largest block: max-magnitude sums approach -2^31 (uint8 x int8:
// 65536 * 255 * -128 = -2139095040) or reach 2^30 (int8: 65536 * 16384), exact in int32.
TEST(AmxKernelEmulated, LargestBlock) {
  std::mt19937 rng(65536u);
  for (bool signed_a : {false, true}) {
    for (Values v : {Values::kMaxMagnitude, Values::kMaxPositive, Values::kExtremes}) {
      for (bool direct : {false, true}) {
        Case cs;
        cs.signed_a = signed_a;
        cs.kgroups = kMaxKBlock / 4;
        cs.values = v;
        cs.init = Init::kCol;
        cs.direct = direct;
        ASSERT_EQ(run_case(cs, rng), "");
      }
    }
  }
}

RC_GTEST_PROP(AmxKernelEmulated, Property, ()) {
  Case cs;
  cs.signed_a = *rc::gen::arbitrary<bool>();
  cs.kgroups = *rc::gen::inRange<std::size_t>(1, 300);
  cs.values = static_cast<Values>(*rc::gen::inRange(0, static_cast<int>(Values::kCount)));
  cs.init = static_cast<Init>(*rc::gen::inRange(0, static_cast<int>(Init::kCount)));
  cs.edge_init = *rc::gen::arbitrary<bool>();
  cs.garbage_a_padding = *rc::gen::arbitrary<bool>();
  cs.extra_row_chunks = *rc::gen::inRange<std::size_t>(0, 3);
  cs.ldc = kAmxNr + *rc::gen::inRange<std::size_t>(0, 40);
  cs.c_offset = *rc::gen::inRange<std::size_t>(0, 17);
  cs.direct = *rc::gen::arbitrary<bool>();
  cs.lda_extra = *rc::gen::inRange<std::size_t>(0, 100);
  cs.a_rows = *rc::gen::inRange<std::size_t>(1, kAmxMr + 1);
  if (!cs.direct && *rc::gen::arbitrary<bool>()) {
    cs.seg_groups = *rc::gen::element<std::size_t>(16, 32, 48);
    cs.kgroups = cs.seg_groups * *rc::gen::inRange<std::size_t>(1, 7);
  }
  std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>());
  RC_ASSERT(run_case(cs, rng) == "");
}

// The set ukernel_amx.cc returns describes the body tested here. Its getter is compiled with the
// AMX translation unit's flags (AVX-512 included), so it is only called where those run.
TEST(AmxKernelEmulated, SetMetadataMatchesTheBody) {
  const auto& f = qparity::internal::cpu_features();
  if (!(f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl && f.avx512vnni && f.avx2 && f.bmi2)) {
    // The getter cannot be called here; what can be checked is that the library agrees that
    // neither the AVX-512 VNNI nor the AMX path is available on this CPU.
    const qparity::IsaMask vnni_or_amx =
        qparity::mask_of(qparity::Isa::kAvx512Vnni) | qparity::mask_of(qparity::Isa::kAmx);
    EXPECT_EQ(qparity::supported_isas() & vnni_or_amx, 0u);
    return;
  }
  using qparity::internal::GemmUkernelFamily;
  if constexpr (!qparity::internal::has_own_kernels<GemmUkernelFamily>(qparity::Isa::kAmx)) {
    // A build without the AMX path (QPARITY_ISAS): its set cannot be made; what can be checked is
    // that the library neither lists the path as compiled nor offers it on this CPU.
    EXPECT_EQ(qparity::compiled_isas() & qparity::mask_of(qparity::Isa::kAmx), 0u);
    EXPECT_EQ(qparity::supported_isas() & qparity::mask_of(qparity::Isa::kAmx), 0u);
  } else {
  const qparity::internal::UkernelSet s =
      qparity::internal::make_kernels<GemmUkernelFamily, qparity::Isa::kAmx>();
  EXPECT_NE(s.exact.fn, nullptr);
  EXPECT_NE(s.exact.fn_signed_a, nullptr);
  EXPECT_EQ(s.exact.format, qparity::internal::PackFormat::kRows64);
  EXPECT_EQ(s.exact.arithmetic, qparity::internal::Arithmetic::kExact);
  EXPECT_EQ(s.exact.mr, kAmxMr);
  EXPECT_EQ(s.exact.nr, kAmxNr);
  EXPECT_NE(s.exact.enter, nullptr) << "the tiles must be configured before the kernel runs";
  EXPECT_NE(s.exact.leave, nullptr) << "and released after";
  EXPECT_EQ(s.pair_saturate.fn, nullptr);
  }
}

}  // namespace
