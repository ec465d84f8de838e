// INTERNAL, not installed: the one entry of the library's unfused-QDQ float32 kernels
// (kernels/qdq_fma/) that the tools library (tools/model/onnx/ort_qdq_float.cc) calls. Its include
// directory (kernels/entries, CMake target qparity::internal_entries) holds only such entries, so
// that the tools reach these kernels without seeing the rest of kernels/.
//
// The kernels compute the float32 GEMM sums of ONNX Runtime's unfused QDQ Conv / MatMul
// (docs/semantics.md §22.5): one lane per output channel, each lane computing exactly the FMAs of
// the scalar reference (SliceSum in ort_qdq_float.cc) in the same order, so every output has the
// reference's bits on every ISA:
//
//   for each K slice [k0, k1) (slice from 0, then added to the output; the first slice of an output
//   without a start value is the output itself):
//     acc = 0; for k in [k0, k1) with tap k valid: acc = fma(x(pixel, k, lane), w[k][lane], acc)
//
// They are a kernel family of the ISA registry (kernels/qdq_fma/qdq_fma_kernel.h): one file per
// ISA, chosen by the same dispatch (active_isa(), QPARITY_ISA, set_isa_mask_for_testing) as the
// integer kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qparity/isa.h"

namespace qparity {
namespace internal {
namespace qdq_fma {

/// The weights' row stride: lanes are padded to a multiple of this (zero weights), so that a
/// vector of the widest kernel never reads past a row.
inline constexpr std::size_t kLanePad = 16;

/// The most pixels one call computes.
inline constexpr std::size_t kMaxPixels = 6;

/// One call: `pixels` output pixels x `lanes` output channels of one weight block.
struct Block {
  const float* x = nullptr;                   ///< the dequantized input
  std::ptrdiff_t base[kMaxPixels] = {};       ///< per pixel: x index its taps' offsets start from
  std::size_t pixels = 1;                     ///< 1..kMaxPixels
  const std::ptrdiff_t* offsets = nullptr;    ///< per tap k: x index offset from the pixel's base
  const unsigned char* valid = nullptr;       ///< null: every tap; else per k, for every pixel
  bool x_per_lane = false;                    ///< lane c reads x[base + offset + c] (depthwise), not a broadcast
  const float* w = nullptr;                   ///< [k][ldw], lanes padded to kLanePad with zeros
  std::size_t ldw = 0;                        ///< a multiple of kLanePad
  std::size_t k = 0;                          ///< taps
  std::size_t slice = 1;                      ///< MLAS's K slice (>= 1)
  /// The call computes the K slices from k_begin (a multiple of slice; 0: out starts as start, or
  /// as the first slice) up to k_end (past k: to the end) and adds the others to out, so a caller
  /// may run a layer slice by slice, each slice's weights shared by all its pixels while cached.
  std::size_t k_begin = 0;
  std::size_t k_end = static_cast<std::size_t>(-1);
  std::size_t lanes = 0;                      ///< channels to compute (<= ldw)
  const float* start = nullptr;               ///< null, or per lane the value each output starts from (Gemm's C)
  float* out = nullptr;                       ///< out[out_row[p] + c]; rows of >= lanes rounded up to kLanePad
  std::size_t out_row[kMaxPixels] = {};       ///< per pixel: where its row of lanes starts in out
};

/// Computes one block. With x_per_lane, x must be readable kLanePad floats past the last lane read.
using RunFn = void (*)(const Block& block);

/// The kernel that serves `isa` (its own file, else the nearest ancestor's: scalar at worst).
/// Throws qparity::InvalidArgument when this CPU does not support `isa` or the build lacks it.
RunFn kernel(Isa isa);

/// The ISA whose file kernel(isa) runs.
Isa kernel_isa(Isa isa);

}  // namespace qdq_fma
}  // namespace internal
}  // namespace qparity
