// INTERNAL: the contract between the depthwise driver (kernels/depthwise/depthwise_driver.cc) and
// the per-ISA depthwise kernels (kernels/depthwise/depthwise_<isa>.cc). Not installed.
//
// ---- The arithmetic -----------------------------------------------------------------------------
// Every kernel computes, for one output row and one group of output channels, the EXACT sums
//   acc[ox][c] = init[c] + sum_{ky, kx} (x[iy][ix][c] - za) * (w[ky][kx][c] - wz[c])   (mod 2^32)
// with int16 operands and int32 lanes (VPMADDWD / VPDPWSSD on pairs of taps). |(x - za)(w - wz)|
// <= 255 * 255, so for K = kernel_h * kernel_w <= kMaxSimdTaps the tap sum itself never leaves
// int32: the driver can add init = bias (int32 model, mod 2^32) or init = 0 and form any wider
// model from the exact value.
//
// ---- The converted input row ("pair row") -------------------------------------------------------
// Before the taps run, each input row iy that an output row needs is converted once per tile into
//   H[j][c] = (x[iy][j - pad_left][c] - za,  x[iy][j - pad_left + dilation_w][c] - za)   (int16 pair)
// for buffer columns j in [0, width); columns outside the image hold the input zero point, so their
// pairs are 0 (conv_geometry.h: a padded tap holds the zero point). Rows outside the image use an
// all-zero pair row. Channels are those of the group, padded to a multiple of the kernel's lane
// count `lanes` (the padding has zero weights). Column j occupies cgp * 2 int16 at H + j * cgp * 2,
// channel c's pair at offset 2 * c: one vector load gives `lanes` channels' pairs.
//
// Then for output column ox and kernel row ky, the taps (kx = 2p, 2p + 1) are one pair-product of
// H_ky[ox * stride_w + 2p * dilation_w] with the packed weight pair; an odd last tap uses the
// weight pair (w, 0). So interior and border pixels run the same branch-free loop.
//
// ---- Packed weights ------------------------------------------------------------------------------
// int16, [channel block cb][ky][pair p][lane l][2]: (w[ky][2p][c] - wz[c], w[ky][2p + 1][c] - wz[c])
// with c = cb * lanes + l; 0 for kx >= kernel_w and for c >= out_channels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/registry/kernel_registry.h"
#include "qparity/output_stage.h"
#include "qparity/requant_params.h"

namespace qparity {
namespace internal {

/// Largest number of taps for which the int32 lanes hold the exact tap sum:
/// 255 * 255 * 33025 < 2^31.
inline constexpr std::size_t kMaxSimdTaps = 33025;

/// Converts one input row into a pair row (see above).
struct DwConvertArgs {
  const std::uint8_t* src = nullptr;  ///< the row's pixel 0, at the group's first channel (raw bytes)
  std::size_t pixel_stride = 0;       ///< bytes between pixels of src
  std::size_t in_w = 0;
  std::size_t pad_left = 0;
  std::size_t dilation_w = 1;
  std::size_t width = 0;              ///< buffer columns
  /// Only columns j with j % column_step == 0 are produced: the row kernels read columns
  /// ox * stride_w + 2p * dilation_w only, all multiples of gcd(stride_w, 2 * dilation_w) (stride 2
  /// reads every other column, so converting the rest would double the conversion work).
  std::size_t column_step = 1;
  std::size_t cg = 0;                 ///< valid channels of the group
  std::size_t cgp = 0;                ///< cg rounded up to lanes
  const std::uint8_t* zp_pixel = nullptr;  ///< cgp bytes holding the input zero point
  std::int32_t za = 0;
  std::int16_t* dst = nullptr;        ///< width * cgp * 2 int16
};

/// One output row of one channel group: acc[ox * cgp + c] for ox < out_w, c < cgp.
struct DwRowArgs {
  const std::int16_t* const* rows = nullptr;  ///< kernel_h pair rows (each at the group's channel 0)
  const std::int16_t* weights = nullptr;      ///< the group's first channel block of packed weights
  const std::int32_t* init = nullptr;         ///< cgp values
  std::size_t cgp = 0;
  std::size_t out_w = 0;
  std::size_t stride_w = 1;
  std::size_t dilation_w = 1;
  std::size_t kernel_h = 0, kernel_w = 0;     ///< read by the generic kernel; fixed in the others
  std::int32_t* acc = nullptr;                ///< out_w * cgp int32
};

using DwConvertFn = void (*)(const DwConvertArgs&);
using DwRowFn = void (*)(const DwRowArgs&);

// ---- The quad path (3x3, stride_w 1 or 2, dilation_w 1; VPDPBUSD) ------------------------------
// When every packed weight w - wz fits int8 (always when wz = 0, TFLite's int8 filters), one
// VPDPBUSD multiplies four uint8 activations by four int8 weights per channel: a kernel row's three
// taps are one quad, so a 3x3 output vector costs 3 instructions instead of 6 VPDPWSSD on pairs.
// Activations enter unsigned: x' = x + 128 for int8 input (a byte XOR), x' = x for uint8; with
// za' the zero point mapped the same way,
//   sum (x - za)(w - wz) = sum x' (w - wz) - za' * sum (w - wz),
// so the kernel starts from init = (bias or 0) - za' * wsum (mod 2^32; exact: the tap sums are
// bounded as above) and padded taps, which hold the zero point, contribute x' = za' exactly.
//
// Quad row of input row iy: column q holds, per channel, the bytes x' at buffer pixels
// 2q, 2q + 1, 2q + 2, 2q + 3 (buffer pixel j = image column j - pad_left; outside the image: za'),
// cgp * 4 bytes per column, channel c's quad at byte 4 * c. Output ox reads
//   stride 1: quad ox / 2 with weights (w0, w1, w2, 0) for even ox, (0, w0, w1, w2) for odd ox,
//   stride 2: quad ox with (w0, w1, w2, 0),
// so at stride 1 one loaded quad serves two outputs and only every other column is converted.
// Packed quad weights: int8 [channel block][ky][variant a, b][lane][4].

/// Converts one input row into a quad row.
struct DwQuadConvertArgs {
  const std::uint8_t* src = nullptr;  ///< the row's pixel 0 at the group's first channel
  std::size_t pixel_stride = 0;       ///< bytes between pixels of src
  std::size_t in_w = 0;
  std::size_t pad_left = 0;
  std::size_t columns = 0;            ///< quad columns to produce
  std::size_t cg = 0, cgp = 0;
  const std::uint8_t* zp_pixel = nullptr;  ///< cgp bytes holding the raw input zero point
  std::uint8_t flip = 0;              ///< 0x80 for int8 input (x' = x + 128), 0 for uint8
  std::uint8_t* dst = nullptr;        ///< columns * cgp * 4 bytes
};

/// One output row of one channel group on the quad path. The fused kernels requantize in
/// registers and write the final outputs; the raw kernel stores the int32 sums like DwRowFn.
struct DwQuadArgs {
  const std::uint8_t* const* rows = nullptr;  ///< 3 quad rows, each at the group's channel 0
  const std::int8_t* weights = nullptr;       ///< the group's first block of packed quad weights
  const std::int32_t* init = nullptr;         ///< cgp values
  const std::int64_t* epilogue = nullptr;     ///< the group's first block of epilogue parameters
  const OutputParams* output = nullptr;       ///< fused kernels
  std::size_t cg = 0, cgp = 0, out_w = 0;
  void* out = nullptr;          ///< fused: Out* at pixel ox = 0, channel c0; raw: int32 acc
  std::size_t out_stride = 0;   ///< elements between output pixels (raw: cgp)
};
using DwQuadConvertFn = void (*)(const DwQuadConvertArgs&);
using DwQuadFn = void (*)(const DwQuadArgs&);

/// The integer epilogue's variant, from all channels' parameters: `pre`, some channel needs the
/// pre-shift; `high`, every channel's 64-bit shift is >= 32, so the result is the high halves of
/// the biased products shifted in 32-bit lanes (rounding/requantize_x86.h's high-half mode).
struct DwEpilogueVariant {
  bool pre = false;
  bool high = false;
};

/// The quad kernels of one (rounding core, stride) pair, one per output type, and the raw one.
struct DwQuadKernels {
  DwQuadFn to_int8 = nullptr, to_uint8 = nullptr, to_int16 = nullptr, to_int32 = nullptr;
  /// The same with the saturating output stage (y + zp narrowed with saturation, no clamp), for
  /// calls whose clamp is the output type's whole range; null unless the integer plan is in the
  /// high-half mode, whose |y| < 2^31 - 2^16 keeps y + zp from overflowing.
  DwQuadFn to_int8_saturated = nullptr, to_uint8_saturated = nullptr, to_int16_saturated = nullptr;
  DwQuadFn raw = nullptr;
};

/// What one ISA translation unit provides.
struct DepthwiseKernelSet {
  const char* isa_name = nullptr;
  std::size_t lanes = 0;          ///< channels per vector (int32 lanes)
  DwConvertFn convert_s8 = nullptr;
  DwConvertFn convert_u8 = nullptr;
  DwRowFn row_3x3 = nullptr;
  DwRowFn row_5x5 = nullptr;
  DwRowFn row_generic = nullptr;
  // The quad path; null where the ISA has no VPDPBUSD.
  DwQuadConvertFn quad_convert = nullptr;
  /// The 3x3 kernels for `core` (a RoundingCore), stride_w 1 or 2, and the integer plan's
  /// variant (as returned by pack_epilogue).
  DwQuadKernels (*quad_3x3)(RoundingCore core, DwEpilogueVariant variant, std::size_t stride_w) = nullptr;
  /// int64 words of epilogue parameters per block of `lanes` channels.
  std::size_t epilogue_words = 0;
  /// Fills ceil(channels / lanes) blocks of epilogue parameters for `core` from params
  /// (per_channel: one per channel, else params[0] for all); returns the variant they need.
  DwEpilogueVariant (*pack_epilogue)(RoundingCore core, const RequantParams* params, bool per_channel,
                                     std::size_t channels, std::int64_t* out) = nullptr;
};

/// The depthwise kernel family (kernels/registry/kernel_registry.h): one file per ISA,
/// kernels/depthwise/depthwise_<isa>.cc, built with that ISA's flags. An ISA without a file of its
/// own runs its parent's: AVX-VNNI has no 16-bit fused multiply-add worth a path of its own here,
/// SSE4.1 runs the portable kernels, and AMX (whose tiles do not fit a per-channel reduction) the
/// AVX-512 VNNI ones.
struct DepthwiseFamily {
  using Kernels = DepthwiseKernelSet;
  static constexpr const char* kName = "depthwise";
  static constexpr IsaMask kIsas = QPARITY_KERNEL_ISAS_DepthwiseFamily;
};

}  // namespace internal
}  // namespace qparity
