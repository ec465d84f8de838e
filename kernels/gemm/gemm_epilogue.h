// INTERNAL: the fused GEMM epilogue. Not installed.
//
// Under the int32-folded plan (AccumulationPlan::kFoldedInt32) with nothing left to do on the raw
// accumulators (no per-channel weight zero point, no wrapN narrowing), the driver requantizes each
// MR x NR block of int32 accumulators right after the micro-kernel has written its last K block,
// while the block is in L1, instead of a separate pass over the whole tile. The requantization
// parameters of every output channel are converted once, when the weights are packed, into the
// registers the per-vector cores of rounding/requantize_x86.h take (int_core / float_core, then
// finish): an EpiloguePlan. The arithmetic is exactly that of the requantization kernels of the
// same ISA (same cores, same output stage), so the results are bit-identical.
//
// The per-ISA code lives in kernels/gemm/gemm_epilogue_{avx2,avx512}.cc (gemm_epilogue_x86.h
// compiled in its own namespace per ISA, like rounding/requantize_<isa>.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "kernels/gemm/gemm_ukernel.h"
#include "qparity/requant_params.h"

namespace qparity {
namespace internal {

/// One block of the epilogue: rows x cols int32 accumulators at acc (row stride ld; full vectors
/// past cols up to a multiple of the vector width are readable), written to dst (row stride ldc).
struct EpilogueArgs {
  const std::int32_t* acc = nullptr;
  std::size_t ld = 0;
  std::size_t rows = 0, cols = 0;
  /// The plan of the block's first column (a multiple of the vector width); chan_stride bytes per
  /// vector of columns, 0 for per-tensor parameters.
  const std::uint8_t* chan = nullptr;
  std::size_t chan_stride = 0;
  /// Output stage of requantize_x86.h: clamp(y, lo, hi) + add.
  std::int32_t lo = 0, hi = 0, add = 0;
  float zero_point = 0.0f;  ///< F32-ZPF's float(zp)
  /// Non-null: per column of the block (full vectors readable past cols), added wrapping to
  /// every row's accumulators before the requantization, for a kernel that left its column
  /// initial values out (Ukernel::col_init_in_epilogue); null for every other call.
  const std::int32_t* col_add = nullptr;
};

template <class Out>
using EpilogueFn = void (*)(const EpilogueArgs& args, Out* dst, std::size_t ldc);

/// A micro-kernel call fused with its own block's epilogue: runs the micro-kernel on `kernel`
/// (which must be its block's last K block) and requantizes the accumulators from registers into
/// dst, as `block` describes (rows, cols, chan, output stage; block.acc and block.ld are unused and
/// kernel.c is not written). Results are those of the plain micro-kernel then EpilogueFn; what it
/// saves is the accumulators' round trip through memory, which costs more than the arithmetic
/// when K is short (the reload waits for the stores: measured on Zen 4, a trivial load / add /
/// store epilogue took 350 -> 280 GOPS on 3136 x 64 x 64).
template <class Out>
using FusedFn = void (*)(const UkernelArgs& kernel, const EpilogueArgs& block, Out* dst,
                         std::size_t ldc);

/// One function per output type.
template <template <class> class Fn>
struct PerOutputType {
  Fn<std::int8_t> to_int8 = nullptr;
  Fn<std::uint8_t> to_uint8 = nullptr;
  Fn<std::int16_t> to_int16 = nullptr;
  Fn<std::int32_t> to_int32 = nullptr;

  template <class Out>
  Fn<Out> get() const {
    if constexpr (std::is_same<Out, std::int8_t>::value) return to_int8;
    if constexpr (std::is_same<Out, std::uint8_t>::value) return to_uint8;
    if constexpr (std::is_same<Out, std::int16_t>::value) return to_int16;
    if constexpr (std::is_same<Out, std::int32_t>::value) return to_int32;
  }
};

using EpilogueFns = PerOutputType<EpilogueFn>;
using FusedFns = PerOutputType<FusedFn>;

/// The register form a plan was built for (which EpilogueFns build() chose), so that another
/// translation unit compiled at the same level can pick its own functions for the same plan.
struct EpilogueVariant {
  bool is_float = false;
  bool zero_point_inside = false;  ///< float: F32-ZPF
  std::uint8_t int_form = 0;       ///< integer: requantize_x86.h's IntForm
  bool pre = false, high = false;  ///< integer: pre-shift, high-half mode
};

/// What one ISA translation unit provides. build() fills dst (vectors(count) * vec_bytes bytes,
/// 64-byte aligned) with the registers of params[0, count) (padded with the last channel up to a
/// whole vector) and returns the block functions for them, or false when this ISA cannot use one
/// register form for every channel (the driver then keeps the separate requantization pass).
struct EpilogueIsa {
  std::size_t lanes = 0;      ///< columns per vector
  std::size_t vec_bytes = 0;  ///< plan bytes per vector of columns
  bool (*build)(RoundingCore core, const RequantParams* params, std::size_t count,
                std::uint8_t* dst, EpilogueFns* fns, EpilogueVariant* variant) = nullptr;
  /// The block functions whose output stage is y + zp narrowed with saturation, for a variant
  /// build() chose (EpiloguePlan::fns_saturated): entries for the high-half integer variants' 8-
  /// and 16-bit outputs, the others null.
  EpilogueFns (*saturated)(const EpilogueVariant& variant) = nullptr;
};

/// The fused epilogue family (kernels/registry/kernel_registry.h): kernels/gemm/gemm_epilogue_<isa>.cc.
/// An ISA is served by the nearest file in its parent chain (avxvnni by avx2's, avx512vnni and amx
/// by avx512's: the same ISAs as their requantization kernels); none below avx2.
struct GemmEpilogueFamily {
  using Kernels = EpilogueIsa;
  static constexpr const char* kName = "gemm epilogue";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_GemmEpilogueFamily;
};

/// A main micro-kernel fused with the epilogue, for a plan the serving GemmEpilogueFamily kernels
/// built (same register layout: both compile gemm_epilogue_x86.h at the same width). `get`
/// returns the functions for `variant`; `saturated` selects the kernels whose output stage is
/// y + zp narrowed with saturation (EpiloguePlan::fused_saturated), for the high-half mode's
/// variants and 8- and 16-bit outputs only (other entries null).
struct GemmFusedKernels {
  FusedFns (*get)(const EpilogueVariant& variant, bool saturated) = nullptr;
  /// The same for the ISA's one-panel kernel (UkernelSet::exact_one_panel), or null: none.
  FusedFns (*get_one_panel)(const EpilogueVariant& variant, bool saturated) = nullptr;
  /// The same for the ISA's pair-saturating kernel (UkernelSet::pair_saturate), or null: none.
  FusedFns (*get_pair_saturate)(const EpilogueVariant& variant, bool saturated) = nullptr;
  std::size_t lanes = 0;  ///< columns per vector of the plans it reads (EpilogueIsa::lanes)
};

/// The fused kernels family: defined by the ISA files whose main micro-kernels have a fused form
/// (kernels/gemm/ukernel_avx512vnni.cc, ukernel_avx2.cc). The driver uses an ISA's own fused
/// kernels only with that ISA's own main kernels (no fallback: the fused kernel is that kernel).
struct GemmFusedFamily {
  using Kernels = GemmFusedKernels;
  static constexpr const char* kName = "gemm fused";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_GemmFusedFamily;
};

}  // namespace internal
}  // namespace qparity
