// INTERNAL: the contract between the pooling driver (kernels/pooling/pooling_driver.cc, the entry
// points of include/qparity/pooling.h) and the per-ISA pooling kernels
// (kernels/pooling/pooling_<isa>.cc). Not installed.
//
// ---- What a kernel sees -------------------------------------------------------------------------
// One *window*: the in-image taps of one output pixel of AVERAGE_POOL_2D / MAX_POOL_2D (the window
// already clipped to the image, reference/pooling.h's for_each_window), or the whole H x W plane of
// one batch image for MEAN over H, W. Its taps are
//   first + r * row_stride + k * col_stride     r < rows, k < cols   (byte offsets)
// and each tap holds `channels` consecutive 8-bit values (NHWC). Every kernel reduces all taps of
// the window for every channel c < channels:
//   max:  out[c] = clamp(max_t x_t[c], lo, hi)                        (MAX_POOL_2D)
//   avg:  out[c] = clamp(HAZ(sum_t x_t[c] / n), lo, hi), n = rows * cols, HAZ = C division of
//         acc +- n/2 (AveragePoolVariant::kTflite); only for n <= kMaxFusedAverageTaps
//   sum:  acc[c] = sum_t x_t[c]   (exact int32; n <= kMaxSumTaps)     (every other variant)
// lo and hi are the clamp limits in the element type's range (the fused activation's, or the
// type's own).
//
// ---- Exactness ----------------------------------------------------------------------------------
// The SIMD kernels sum in int16 lanes over chunks of at most kInt16ChunkTaps taps (|sum| <=
// 128 * 255 fits int16 for int8 and uint8), then widen into int32: every sum is exact for n <=
// kMaxSumTaps (255 * 2^23 < 2^31). The fused average divides in float32: for |acc +- n/2| < 2^22
// and n < 2^14 the correctly rounded quotient never crosses an integer the exact one does not
// reach, so truncating it equals C's truncating division (docs/semantics.md §21.3 "qparity").
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/registry/kernel_registry.h"

namespace qparity {
namespace internal {

/// Taps per int16 accumulation chunk (128 * 255 = 32640 < 2^15).
inline constexpr std::size_t kInt16ChunkTaps = 128;
/// Largest tap count whose int32 sum is exact (255 * 2^23 < 2^31).
inline constexpr std::size_t kMaxSumTaps = std::size_t{1} << 23;
/// Largest tap count the fused average (float32 division) serves; larger windows take sum + the
/// driver's integer division.
inline constexpr std::size_t kMaxFusedAverageTaps = 16383;

/// The taps of one window (byte addresses and strides; see above).
struct PoolTaps {
  const std::uint8_t* first = nullptr;
  std::size_t rows = 0, cols = 0;
  std::size_t row_stride = 0, col_stride = 0;
};

/// out[c] = clamp(max over taps, lo, hi); lo, hi in the element type's range.
using PoolMaxFn = void (*)(const PoolTaps& taps, std::size_t channels, std::int32_t lo, std::int32_t hi,
                           void* out);
/// out[c] = clamp(HAZ(sum / n), lo, hi), n = rows * cols in [1, kMaxFusedAverageTaps].
using PoolAvgFn = void (*)(const PoolTaps& taps, std::size_t channels, std::int32_t lo, std::int32_t hi,
                           void* out);
/// acc[c] = sum over taps (int32, exact), n = rows * cols in [1, kMaxSumTaps].
using PoolSumFn = void (*)(const PoolTaps& taps, std::size_t channels, std::int32_t* acc);

/// What one ISA translation unit provides: one kernel per reduction and element type.
struct PoolingKernelSet {
  const char* isa_name = nullptr;
  PoolMaxFn max_s8 = nullptr, max_u8 = nullptr;
  PoolAvgFn avg_s8 = nullptr, avg_u8 = nullptr;
  PoolSumFn sum_s8 = nullptr, sum_u8 = nullptr;
};

/// The pooling kernel family (kernels/registry/kernel_registry.h): one file per ISA,
/// kernels/pooling/pooling_<isa>.cc, built with that ISA's flags. sse41 runs the portable kernels,
/// avxvnni the AVX2 ones and avx512vnni / amx the AVX-512 ones (no instruction of theirs helps a
/// byte reduction).
struct PoolingFamily {
  using Kernels = PoolingKernelSet;
  static constexpr const char* kName = "pooling";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_PoolingFamily;
};

}  // namespace internal
}  // namespace qparity
