// INTERNAL: what a PackedGemm holds (kernels/gemm/packed_gemm.cc builds it, gemm_tile.cc runs
// it). Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/gemm/gemm_epilogue.h"
#include "kernels/gemm/gemm_ukernel.h"
#include "kernels/support/aligned_buffer.h"
#include "qparity/accumulator.h"
#include "qparity/isa.h"
#include "qparity/requant_params.h"

namespace qparity {
namespace internal {

/// The fused epilogue of a PackedGemm (kernels/gemm/gemm_epilogue.h); enabled == false: the
/// driver requantizes each tile with a separate pass.
struct EpiloguePlan {
  bool enabled = false;
  std::size_t lanes = 0, vec_bytes = 0;
  bool per_channel = false;
  AlignedBuffer<std::uint8_t> chan;  ///< per vector of output channels (one vector when per-tensor)
  EpilogueFns fns;
  /// fns with the saturating output stage (null entries: none), for calls whose clamp is the
  /// output type's whole range, as fused_saturated below: 2 instructions per vector fewer (the
  /// clamp's) in the separate epilogue that the AVX2, AVX-512BW, AVX-VNNI and AMX kernels run.
  EpilogueFns fns_saturated;
  /// The main micro-kernel fused with its block's epilogue (FusedFn), when its ISA has one for
  /// this plan (AVX-512 VNNI); null entries: the driver calls the kernel and fns separately.
  FusedFns fused;
  /// The same with the saturating output stage: y + zp narrowed with saturation, no clamp. Equal
  /// to fused's clamp-add-narrow when the call's clamp is the output type's whole range and
  /// y + zp cannot overflow int32, which the high-half mode guarantees (|y| < 2^31 - 2^16: the
  /// product is below 2^62 and the shift at least 32); null entries otherwise.
  FusedFns fused_saturated;
  /// fused and fused_saturated for the one-panel kernel (PackedGemmData::one_panel).
  FusedFns fused_one_panel, fused_saturated_one_panel;
};

/// How the accumulator model is realised on top of the raw micro-kernel sums.
enum class AccumulationPlan : std::uint8_t {
  /// int32 wrapping (also pairsat16 and wrapN for N <= 32): every compensation term is folded
  /// into the micro-kernel's initial values; the epilogue only narrows (wrapN) and requantizes.
  kFoldedInt32,
  /// int64, wrapN (N > 32), satN: raw sums, exact int64 dot products formed in the epilogue.
  kExactWide,
};

struct PackedGemmData {
  std::size_t n = 0, k = 0;
  RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;
  AccumulatorSpec accumulator{};
  AccumulationPlan plan = AccumulationPlan::kFoldedInt32;
  Isa isa = Isa::kScalar;      ///< the ISA the weights were packed for
  /// The ISA whose kernel set `kernel` comes from: isa or an ancestor (a model it has no kernel
  /// for, or a K its kernel does not serve: UkernelSet::exact_min_k). Its fused epilogue, one-panel
  /// and row-tail kernels go with it.
  Isa kernel_isa = Isa::kScalar;
  Ukernel kernel{};
  Ukernel narrow{};            ///< optional few-row kernel (fn == nullptr: none)
  /// Optional: `kernel` over one panel (UkernelSet::exact_one_panel; fn == nullptr: none), for the
  /// column blocks of `kernel`'s tiles with at most kPanelCols valid columns.
  Ukernel one_panel{};
  /// Optional: `kernel` over one row (UkernelSet::exact_row_tail; fn == nullptr: none), for the
  /// row blocks of `kernel`'s tiles with at most kRowTailMaxRows valid rows.
  Ukernel row_tail{};
  std::size_t group = 4;       ///< K elements per packed group (4: kDot4/kRows64, 2: kPairs16)
  std::size_t kgroups = 0;     ///< ceil(k / group)
  std::size_t panels = 0;      ///< ceil(n / 16) rounded up to a multiple of kernel.nr / 16
  std::size_t panel_stride = 0;  ///< bytes per panel
  AlignedBuffer<std::uint8_t> b_packed;

  // Per output channel j (n entries each).
  std::vector<std::int64_t> col_sum;      ///< sum_k B(k, j), exact
  std::vector<std::int64_t> col_abs_sum;  ///< sum_k |B(k, j) - b_zp[j]| (satN bound)
  std::vector<std::int32_t> b_zero_point; ///< expanded; all 0 when none was given
  bool has_b_zero_point = false;
  bool b_zero_point_per_channel = false;
  std::vector<std::int32_t> bias;         ///< expanded; all 0 when none was given
  std::vector<RequantParams> params;      ///< 1 or n entries
  bool per_channel = false;

  // Per-channel terms of the folded int32 initial value, precomputed so that a call only does
  //   col_init[j] = col_base[j] + za * col_coef[j]   (mod 2^32)
  // = bias[j] - (c + za) * col_sum[j] + K * za * b_zp[j]; col_base for c = 0 and c = 128.
  std::vector<std::int32_t> col_base_unsigned, col_base_signed, col_coef;

  // Blocking: mc, nc multiples of kernel.mr / kernel.nr; kc in K groups, a multiple of 16 except
  // when it covers all of K. narrow_*: the few-row kernel's tiles.
  std::size_t mc = 0, nc = 0, kc = 0, narrow_nc = 0, narrow_kc = 0;

  EpiloguePlan epilogue;
};

inline constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Calls with at most this many rows use the few-row kernel, one row at a time (measured on
/// 1..4 x 1000 x 1024: 1.3-2.3x the 8x32 kernel, whose other rows would be padding).
inline constexpr std::size_t kNarrowMaxRows = 4;

/// A row block of the main kernel with at most this many valid rows runs the row-tail kernel once
/// per row (PackedGemmData::row_tail), where it has one. By instruction count its 1x32 call costs
/// ~1/8 of an 8x32 call (2 VPDPBUSD per K group on 4 chains, ~2 cycles, against 16 at ~16), so 3
/// rows ~3/8 of a block plus a separate epilogue pass; from 4 rows on the saving would be eaten
/// by the per-call and epilogue costs. Measured only for 1 row (M = 49, Zen 4): the 7x7 layers
/// of MobileNet v1/v2 gained 8-13 % (qparity / oneDNN, gemm_bench).
inline constexpr std::size_t kRowTailMaxRows = 3;

/// The kernel and tile shape a call with m rows runs with.
struct Blocking {
  const Ukernel* kernel;
  std::size_t mc, nc, kc;
};

inline Blocking blocking_for(const PackedGemmData& d, std::size_t m) {
  if (d.narrow.fn != nullptr && m <= kNarrowMaxRows) {
    // At least one row group, also for m = 0 (gemm_tile_count(w, 0) must not divide by zero).
    const std::size_t groups = m == 0 ? 1 : (m + d.narrow.mr - 1) / d.narrow.mr;
    // One row shares no B slice across rows, so narrow_kc's L1-sized blocks only add accumulator
    // round trips and calls: one row takes the main kernel's K blocks (see narrow_kc).
    const std::size_t kc = m <= 1 ? d.kc : d.narrow_kc;
    return Blocking{&d.narrow, groups * d.narrow.mr, d.narrow_nc, kc};
  }
  return Blocking{&d.kernel, d.mc, d.nc, d.kc};
}


}  // namespace internal
}  // namespace qparity
