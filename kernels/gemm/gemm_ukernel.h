// INTERNAL: the contract between the GEMM driver (kernels/gemm/gemm_tile.cc) and the per-ISA
// micro-kernels (kernels/gemm/ukernel_<isa>.cc). Not installed.
//
// A micro-kernel computes one MR x NR tile of *raw* int32 dot products over one K block:
//
//   C[i][j] (+)= init[i][j] + sum_{g < kgroups} sum_{t < G} A(i, g*G + t) * B(g*G + t, j)
//
// where A and B are the packed operands below (already padded with zeros, so every tile is full:
// the driver's int32 tile buffer is padded to multiples of MR and NR and it only reads the valid
// part), G is the K group width of the packing format, and every addition wraps modulo 2^32
// (VPDPBUSD / VPMADDWD / TDPBUSD behaviour). The driver guarantees the sums cannot actually wrap
// for the exact formats (kc <= kMaxKBlock), and for kDot4PairSat16 the per-pair int16 saturation
// is the *defined* result (VPMADDUBSW), see below.
//
// init: when `accumulate` is false the accumulators start at col_init[j] + row_init[i] (each
// pointer may be null, meaning 0); when true they start at the current C values (a later K block)
// and col_init / row_init are ignored. kgroups >= 1.
//
// A micro-kernel reads exactly kgroups groups of B per panel: the groups after a K block belong to
// the next block (or, after the last one, to the next panel), so a kernel whose natural depth is
// larger (AMX: 16 groups per tile) must shorten its last step rather than read ahead.
// The getters below are compiled with their ISA's flags and may use its instructions even to
// build the returned struct: call one only when the CPU supports that ISA.
//
// ---- Packing formats ---------------------------------------------------------------------------
// B is packed once (PackedGemm) in panels of kPanelCols = 16 columns; panel p holds columns
// [16p, 16p + 16), zero-padded past N, and K zero-padded to a multiple of G:
//   kDot4:    int8,  G = 4: byte offset  ((k / 4) * 16 + (j % 16)) * 4 + k % 4
//             (VNNI layout; also AMX's B tile layout: one 64-byte row per K group)
//   kPairs16: int16, G = 2: element offset ((k / 2) * 16 + (j % 16)) * 2 + k % 2
// Panel p starts at b + p * b_panel_stride (bytes); a K block starting at group g0 starts at
// that + g0 * 64 bytes (both formats use 64 bytes per group per panel). A micro-kernel with NR = 32
// reads panels p and p + 1, etc.
//
// A is packed per (MR rows x K block) by the driver:
//   kDot4:    uint8, [kgroups][MR][4]: byte = a + a_offset (a_offset = 128 for int8 activations,
//             making them unsigned for VPDPBUSD / VPMADDUBSW; 0 for uint8). Rows past M are 0.
//   kPairs16: int16, [kgroups][MR][2]: the raw activation value (no offset). Rows past M are 0.
//   kRows64:  uint8 or int8 (raw, no offset), tile-major: [MR / 16][steps][16][64] with
//             steps = ceil(kgroups / 16) (one AMX A tile of 16 rows x 64 bytes contiguous,
//             rows64_offset), zero past K and past M.
//
// ---- Arithmetic per format ---------------------------------------------------------------------
//   kDot4 exact:       sum of (uint8 A) * (int8 B), exact in int32 (VPDPBUSD, AMX TDPBUSD)
//   kDot4PairSat16:    for each pair t in {0,1}, {2,3} of a group: sat_int16(A0*B0 + A1*B1), then
//                      summed in int32 (VPMADDUBSW + VPMADDWD(ones)): the x86 non-VNNI behaviour
//                      that Int16PairSaturatingAccumulator defines.
//   kPairs16 exact:    sum of (int16 A) * (int16 B) pairs, exact in int32 (VPMADDWD)
//   kRows64 exact:     AMX TDPBSSD (int8 activations) / TDPBUSD (uint8), exact in int32
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/registry/kernel_registry.h"

namespace qparity {
namespace internal {

inline constexpr std::size_t kPanelCols = 16;
inline constexpr std::size_t kPanelGroupBytes = 64;  ///< bytes per K group per panel, any format

/// Largest K block the driver hands to a micro-kernel. With |A*B| <= 255 * 128 = 32640 per
/// product, kMaxKBlock products sum to less than 2^31 in magnitude: raw block sums are exact.
inline constexpr std::size_t kMaxKBlock = 65536;

enum class PackFormat : std::uint8_t { kDot4, kPairs16, kRows64 };

/// Whether kernels of these two formats read the same packed B (the formats differ only in A):
/// kDot4 and kRows64 share the int8 4-byte-group panels, kPairs16 has its own int16 ones. The
/// kernels of one PackedGemm must share its B; each packs or reads A in its own format.
constexpr bool shares_packed_b(PackFormat x, PackFormat y) {
  return (x == PackFormat::kPairs16) == (y == PackFormat::kPairs16);
}

enum class Arithmetic : std::uint8_t {
  kExact,          ///< exact int32 products summed (wrapping never happens for kc <= kMaxKBlock)
  kPairSaturate16  ///< kDot4 only: VPMADDUBSW's int16 pair saturation, then int32 sums
};

struct UkernelArgs {
  std::size_t kgroups = 0;          ///< K groups in this block (G = 4 for kDot4/kRows64, 2 for kPairs16)
  const void* a = nullptr;          ///< packed A for these MR rows and this K block
  std::size_t a_row_bytes = 0;      ///< kRows64 only: rows64_row_bytes of the block
  const void* b = nullptr;          ///< first panel of this tile, already offset to the K block
  std::size_t b_panel_stride = 0;   ///< bytes between consecutive panels
  std::int32_t* c = nullptr;        ///< int32 tile, row-major
  std::size_t ldc = 0;              ///< elements between rows of c
  const std::int32_t* col_init = nullptr;  ///< NR values, or null (0)
  const std::int32_t* row_init = nullptr;  ///< MR values, or null (0)
  bool accumulate = false;
  /// Kernels with Ukernel::direct_a only: when nonzero, `a` is not packed but the first of
  /// a_rows rows of the activation matrix itself, a_stride bytes apart, already offset to the K
  /// block (group g of row i at a + i * a_stride + 4g; the sums of rows a_rows to MR are padding,
  /// and those rows are never read). a_flip: XOR every byte with 0x80 (int8 activations: the
  /// +128 of the kDot4 format; never set for kRows64). When K is not a multiple of 4, a row's
  /// last group reads 1-3 bytes past its K values; the driver uses it then only where those bytes
  /// are inside A (the next rows', or the stride's gap): B is zero past K, so they add nothing.
  /// No other byte past the block's groups is read (the AMX kernel stages its K tail).
  std::size_t a_stride = 0;
  std::size_t a_rows = 0;
  bool a_flip = false;
  /// Ukernel::direct_a kernels only, an indirect A read in place (implicit-GEMM convolution): when
  /// non-null, this K block is kgroups / a_seg_groups segments of a_seg_groups groups each (a
  /// multiple of the kernel's a_segment_bytes / 4), and
  /// segment s of row i starts at a_segments[s * MR + i] (rows past the valid ones point at some
  /// valid segment; a padded tap points at a buffer of the pad value). a_flip applies; `a` and
  /// a_stride are ignored.
  const std::uint8_t* const* a_segments = nullptr;
  std::size_t a_seg_groups = 0;
};

using UkernelFn = void (*)(const UkernelArgs& args);

/// The kRows64 layout of a block of kgroups groups: rows in groups of 16 (one AMX A tile's
/// rows), each group K step after K step (64 bytes of K, 16 groups), each step's 16 rows x 64
/// bytes contiguous (one tile, loaded with a stride of 64). rows64_row_bytes is a row's share of
/// its group (the K steps x 64 bytes), so that rows r.. of a block start at r * rows64_row_bytes
/// for r a multiple of 16.
inline constexpr std::size_t kRows64TileRows = 16;
inline constexpr std::size_t kRows64TileRowBytes = 64;
inline constexpr std::size_t kRows64TileBytes = kRows64TileRows * kRows64TileRowBytes;

constexpr std::size_t rows64_row_bytes(std::size_t kgroups) {
  return (kgroups * 4 + kRows64TileRowBytes - 1) / kRows64TileRowBytes * kRows64TileRowBytes;
}

/// Byte offset of row r's K step s in a kRows64 block whose rows64_row_bytes is row_bytes.
constexpr std::size_t rows64_offset(std::size_t r, std::size_t s, std::size_t row_bytes) {
  return (r / kRows64TileRows) * kRows64TileRows * row_bytes + s * kRows64TileBytes +
         (r % kRows64TileRows) * kRows64TileRowBytes;
}

/// Whether n >= 2 segment pointers are evenly spaced at a non-negative distance (0 included):
/// rows[r] == rows[0] + r * (rows[1] - rows[0]). Such rows are one strided load (an AMX tile).
inline bool segments_evenly_spaced(const std::uint8_t* const* rows, std::size_t n) {
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(rows[0]);
  const std::uintptr_t step = reinterpret_cast<std::uintptr_t>(rows[1]) - first;
  bool even = static_cast<std::intptr_t>(step) >= 0;
  for (std::size_t r = 2; r < n; ++r)
    even &= reinterpret_cast<std::uintptr_t>(rows[r]) == first + r * step;
  return even;
}

/// A micro-kernel and its shape. signed_a selects TDPBSSD vs TDPBUSD for kRows64 (the other
/// formats receive unsigned or int16 data whatever the activation type).
struct Ukernel {
  const char* name = nullptr;
  PackFormat format = PackFormat::kDot4;
  Arithmetic arithmetic = Arithmetic::kExact;
  std::size_t mr = 0;
  std::size_t nr = 0;  ///< a multiple of kPanelCols
  UkernelFn fn = nullptr;
  UkernelFn fn_signed_a = nullptr;  ///< kRows64 only: the int8-activation variant
  bool direct_a = false;  ///< fn (and the fused kernels) also read A unpacked (a_stride, a_segments)
  /// The segments a direct_a kernel reads through a_segments are whole multiples of this many bytes
  /// (kDot4: 4, one group; AMX: 64, one tile row, so that each K step lies in one segment).
  std::size_t a_segment_bytes = 4;
  /// Nonzero: the kernel loads each run of this many rows of a segment with one stride (AMX:
  /// 16, one tile), in place where their pointers are evenly spaced and through a copy, on every
  /// call, where not (segments_evenly_spaced). The driver reads A through segments for such a
  /// kernel only where output rows are at least twice that long, so that most runs lie in one
  /// output row (gemm_tile.cc); else through the gathered rows, copied once per row block.
  /// Measured on AMX (Xeon family 6 model 207, best of 4, GOPS DR-AZ / F32, segments against the
  /// gathered rows): 56x56x64->64 3x3 966 -> 1199 / 1068 -> 1325, 28x28x128->128 1492 -> 1536 /
  /// 1605 -> 1685, but 14x14x256->256 1882 -> 1684 / 1940 -> 1688 and 7x7x512->512 1393 -> 1255 /
  /// 1431 -> 1259 (every 16-pixel run crosses a row there, and 8 column blocks copy it again).
  /// Copying the uneven runs once per row block instead lost on all four (e.g. 56x56 975 -> 853).
  std::size_t a_segment_tile_rows = 0;
  /// The driver may call fn with col_init null where a block is one K block requantized by the
  /// separate epilogue, and add the column initial values in the epilogue instead
  /// (EpilogueArgs::col_add: one VPADDD per vector; row_init null only). AMX: the C tiles then
  /// start from TILEZERO, not from a stride-0 TILELOADD of col_init, which waits for the previous
  /// call's TILESTOREDs of the same tiles (ukernel_amx.cc has the measurements).
  bool col_init_in_epilogue = false;
  /// Optional: per-thread CPU state the kernel needs, set up once around a run of calls instead of
  /// on every call (AMX: LDTILECFG before, TILERELEASE after). Whoever calls fn calls enter() on
  /// the same thread first and leave() after the last call (the driver: once per tile, through
  /// UkernelSession), and runs nothing in between that could change that state. The AMX kernel's
  /// LDTILECFG was 21 % of its time when every call configured the tiles.
  void (*enter)() = nullptr;
  void (*leave)() = nullptr;
};

/// enter() now, leave() when the scope ends, also by an exception: a tile state left configured
/// would cost 8 KiB more in every context switch of the thread until it exits.
class UkernelSession {
 public:
  explicit UkernelSession(const Ukernel& k) : leave_(k.leave) {
    if (k.enter != nullptr) k.enter();
  }
  ~UkernelSession() {
    if (leave_ != nullptr) leave_();
  }
  UkernelSession(const UkernelSession&) = delete;
  UkernelSession& operator=(const UkernelSession&) = delete;

 private:
  void (*leave_)();
};

/// The micro-kernels each ISA translation unit provides (entries with fn == nullptr are absent).
struct UkernelSet {
  Ukernel exact;         ///< the fast exact kernel of this ISA
  /// The least K (elements) `exact` serves: a PackedGemm of shorter K takes the nearest
  /// ancestor's exact kernel set instead (packed_gemm.cc, kernel_source). AMX: 64, one tile's
  /// depth. Below it a TDPBUSD multiplies zero groups, and the tile stores, A packing and separate
  /// requantization pass cost more than the products; AVX-512 VNNI's kernel reads A in place and
  /// requantizes from registers. Measured on Xeon family 6 model 207 (gemm_bench, one thread,
  /// median of 3, DR-AZ GOPS, AMX kernels -> AVX-512 VNNI's under the amx path): K = 16
  /// (12544x96) 82 -> 122, K = 27 (12544x32) 96 -> 172, K = 32 (12544x64) 148 -> 193, (12544x16)
  /// 74 -> 161, (784x192) 174 -> 197; at K = 64 AMX's own are faster (3136x64 333 against 258,
  /// 3136x128 387 against 260).
  std::size_t exact_min_k = 0;
  /// Optional: an exact kernel for calls with very few rows (mr of 1..4, e.g. a batch-1 fully
  /// connected layer, where the main kernel would compute mostly padding rows). Same packing
  /// format as `exact`; its nr must divide or be a multiple of exact's nr. A set without one
  /// takes its nearest ancestor's whose packed B is the same (shares_packed_b; packed_gemm.cc):
  /// AMX, whose tiles compute 32 rows, runs few-row calls on AVX-512 VNNI's kDot4 kernel.
  Ukernel exact_narrow;
  /// Optional: `exact` over one B panel (mr x 16), same packing format, arithmetic, mr and A
  /// modes (direct_a), for a column block with at most 16 valid columns (N = 16, or the last
  /// 1-16 columns when N is not a multiple of exact's nr), whose other panels would be padding:
  /// MobileNet v2's 32 -> 16 projection computed half its products on zero columns.
  Ukernel exact_one_panel;
  /// Optional: `exact` over one row (1 x exact's nr), same packing format, arithmetic and A modes
  /// (direct_a), run once per valid row of a row block with at most kRowTailMaxRows valid rows
  /// (gemm_tile.cc), whose other rows would be padding: M = 49 (7x7 layers) is 6 blocks of 8 rows
  /// and one row, which the 8-row kernel computed at the cost of a full block.
  Ukernel exact_row_tail;
  Ukernel pair_saturate; ///< the kDot4 pair-saturating kernel (absent on VNNI-only-fast ISAs: use
                         ///< the AVX-512BW/AVX2 one, the driver falls back by ISA)
  /// Optional: pair_saturate for calls with very few rows, as exact_narrow is for exact: same
  /// format (kDot4), mr of 1..4, nr a multiple or a divisor of pair_saturate's. Taken from the set
  /// that provides the chosen pair_saturate (packed_gemm.cc).
  Ukernel pair_saturate_narrow;
};

/// The GEMM micro-kernel family (kernels/registry/kernel_registry.h): one file per ISA,
/// kernels/gemm/ukernel_<isa>.cc, built with that ISA's flags. The driver picks each kernel of a
/// set from the ISA's own set and, where that lacks one (the VNNI and AMX sets have no
/// pair-saturating kernel: their instructions cannot saturate pairs; SSE4.1 has no set), from its
/// parents' (isa_list.h).
struct GemmUkernelFamily {
  using Kernels = UkernelSet;
  static constexpr const char* kName = "gemm ukernel";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_GemmUkernelFamily;
};

}  // namespace internal
}  // namespace qparity
