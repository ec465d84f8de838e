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
};

// Each defined in its own translation unit with its ISA's flags: call only when supported.
EpilogueIsa gemm_epilogue_avx2();
EpilogueIsa gemm_epilogue_avx512();

/// The AVX-512 VNNI main micro-kernel fused with the epilogue (kernels/gemm/ukernel_avx512vnni.cc)
/// for a plan gemm_epilogue_avx512() built (same register layout: both are compiled at the AVX-512
/// level of rounding/simd_x86.h). Call only when AVX-512 VNNI is supported. `saturated`: the
/// kernels whose output stage is y + zp narrowed with saturation (EpiloguePlan::fused_saturated),
/// for the high-half mode's variants and 8- and 16-bit outputs only (other entries null).
FusedFns gemm_fused_avx512vnni(const EpilogueVariant& variant, bool saturated);

}  // namespace internal
}  // namespace qparity
