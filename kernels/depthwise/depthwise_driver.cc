// The depthwise driver: splits a run into independent tiles (batch x band of output rows x channel
// group), converts each input row a band needs once into the kernels' pair-row format, runs the
// row kernel per output row, then forms the chosen accumulator model from the exact tap sums and
// requantizes the row with the SIMD rounding-core kernels while it is still in cache.
// On the quad path (depthwise_kernel.h: 3x3 on VPDPBUSD) the input rows become quad rows instead,
// and for the int32 model the kernels requantize in registers and write the output themselves
// (run_quad_tile); the other models take the raw sums through finish_rows as above.
//
// The kernels return (depthwise_kernel.h) init + S with S = sum_taps (x - za)(w - wz) exact in
// int32 (taps <= kMaxSimdTaps). From S:
//   int32, wrapN <= 32   init = bias: bias + S mod 2^32 is the model (wrapN then narrows);
//   pairsat16            equals the int32 model unless a tap pair saturates, which only channels
//                        flagged at pack time (pair_may_saturate) can do: those channels follow
//                        the reference definition element by element;
//   int64, wrapN > 32    init = 0: S + bias in int64 (wrapped to N bits);
//   satN                 no partial sum can saturate when max|x - za| * sum|w - wz| <= 2^(N-1) - 1
//                        (then the model is clamp(S + clamp(bias))); other channels follow the
//                        reference definition.
// Accumulators outside int32 (wide models, policies that accept them) are requantized one by one
// with the reference step; everything else goes through the SIMD requantizer.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/support/packed_access.h"
#include "kernels/depthwise/packed_depthwise_conv2d_data.h"
#include "kernels/dispatch/run_tiles_threaded.h"
#include "kernels/dispatch/tile_range.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/error.h"
#include "qparity/policies.h"
#include "qparity/type_pairs.h"
#include "rounding/requantize_kernel.h"

namespace qparity {
namespace internal {
namespace {

/// Per-thread working memory, reused across tiles and calls.
struct Scratch {
  std::vector<std::int16_t> pair_rows;   // one converted input row per slot
  std::vector<std::uint8_t> slot_ready;
  std::vector<std::ptrdiff_t> slot_row;  // quad path: the input row each ring slot holds, or -1
  std::vector<std::int16_t> zero_row;    // the pair row of a row outside the image
  std::vector<std::uint8_t> zp_pixel;
  std::vector<std::uint8_t> expanded;    // depth_multiplier > 1: a row in output-channel order
  std::vector<std::int32_t> acc;         // rows_per_flush x out_w x cgp
  std::vector<std::int32_t> staged;      // like acc (wide models)
  std::vector<std::size_t> fallback;     // group-relative channels that follow the reference
  std::vector<std::uint8_t> is_fallback;
  struct Wide {
    std::size_t ox, c;
    std::int64_t v;
  };
  std::vector<Wide> exceptions;
  std::vector<const std::int16_t*> rows;
  // The quad path.
  std::vector<std::uint8_t> quad_rows;   // one quad row per slot
  std::vector<std::uint8_t> za_quad_row;  // the quad row of a row outside the image (za')
  std::vector<std::int32_t> quad_init;   // (bias or 0) - za' * wsum, for the group
  const std::uint8_t* quad_row_ptr[3];
};

Scratch& scratch() {
  static thread_local Scratch s;
  return s;
}

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

/// The taps of one output pixel and input channel in K order, padded taps holding the zero point:
/// exactly the reference's im2col row.
template <class AType>
struct TapRow {
  const AType* input;
  std::size_t h, w, channels, b;
  std::ptrdiff_t iy0, ix0;
  std::size_t kernel_w, dh, dw, ic;
  std::int32_t za;
  AType operator[](std::size_t k) const {
    const std::size_t ky = k / kernel_w, kx = k % kernel_w;
    return reference::detail::input_or_zero_point(input, h, w, channels, b,
                                                  iy0 + static_cast<std::ptrdiff_t>(ky * dh),
                                                  ix0 + static_cast<std::ptrdiff_t>(kx * dw), ic, za);
  }
};

/// The accumulator of output (b, oy, ox, oc) by the reference definition of the model.
template <class AType, class OutType>
std::int64_t reference_accumulator(const PackedDepthwiseConv2DData& d, const ConvCall<AType, OutType>& call,
                                   std::size_t b, std::size_t oy, std::size_t ox, std::size_t oc) {
  const DepthwiseConv2DGeometry& g = d.geometry;
  const Window2D& win = g.window;
  const TapRow<AType> row{call.input,
                          g.in_h,
                          g.in_w,
                          g.in_channels,
                          b,
                          static_cast<std::ptrdiff_t>(oy * win.stride_h) - static_cast<std::ptrdiff_t>(d.window.pad_top),
                          static_cast<std::ptrdiff_t>(ox * win.stride_w) - static_cast<std::ptrdiff_t>(d.window.pad_left),
                          win.kernel_w,
                          win.dilation_h,
                          win.dilation_w,
                          oc / g.depth_multiplier,
                          call.input_zero_point};
  return accumulate(d.accumulator, std::is_signed<AType>::value, row,
                    qparity::detail::StridedView<std::int8_t>{d.filter.data() + oc, d.out_channels}, d.taps,
                    call.input_zero_point, d.w_zero_point[oc], d.bias[oc]);
}

/// Channels of [c0, c0 + cg) whose model the SIMD sums cannot give for this call (see the top).
template <class AType>
void find_fallback_channels(const PackedDepthwiseConv2DData& d, std::int32_t za, std::size_t c0,
                            std::size_t cg, Scratch& s) {
  s.fallback.clear();
  s.is_fallback.assign(cg, 0);
  auto mark = [&](std::size_t c) {
    s.fallback.push_back(c);
    s.is_fallback[c] = 1;
  };
  if (d.plan == DwPlan::kReference) {
    for (std::size_t c = 0; c < cg; ++c) mark(c);
    return;
  }
  if (d.accumulator.kind == AccumulatorKind::kPairSaturating && d.any_pair_may_saturate) {
    for (std::size_t c = 0; c < cg; ++c) {
      if (d.pair_may_saturate[c0 + c]) mark(c);
    }
  } else if (d.accumulator.kind == AccumulatorKind::kSaturating) {
    constexpr std::int64_t lo = std::is_signed<AType>::value ? -128 : 0;
    constexpr std::int64_t hi = std::is_signed<AType>::value ? 127 : 255;
    const std::int64_t max_abs = std::max<std::int64_t>(za - lo, hi - za);
    const std::int64_t sat_hi = (std::int64_t{1} << (d.accumulator.bits - 1)) - 1;
    for (std::size_t c = 0; c < cg; ++c) {
      if (max_abs * d.abs_sum[c0 + c] > sat_hi) mark(c);
    }
  }
}

/// Input row iy of image b as the channels [c0, c0 + cg) of the *output* (bytes, pixel_stride
/// apart): the input itself when the depth multiplier is 1; otherwise output channel oc reads input
/// channel oc / depth_multiplier, so the row is laid out by output channel once (in s.expanded) and
/// the kernels see the depth-multiplier-1 case.
template <class AType, class OutType>
void input_row_by_output_channel(const DepthwiseConv2DGeometry& g, const ConvCall<AType, OutType>& call,
                                 std::size_t b, std::size_t iy, std::size_t c0, std::size_t cg,
                                 Scratch& s, const std::uint8_t** src, std::size_t* pixel_stride) {
  const AType* row = call.input + (b * g.in_h + iy) * g.in_w * g.in_channels;
  if (g.depth_multiplier == 1) {
    *src = reinterpret_cast<const std::uint8_t*>(row + c0);
    *pixel_stride = g.in_channels;
    return;
  }
  const std::size_t mult = g.depth_multiplier;
  s.expanded.resize(g.in_w * cg);
  for (std::size_t ix = 0; ix < g.in_w; ++ix) {
    const AType* px = row + ix * g.in_channels;
    for (std::size_t c = 0; c < cg; ++c) {
      s.expanded[ix * cg + c] = static_cast<std::uint8_t>(px[(c0 + c) / mult]);
    }
  }
  *src = s.expanded.data();
  *pixel_stride = cg;
}

/// Converts input row iy of image b, channel group [c0, c0 + cg), into a pair row.
template <class AType, class OutType>
void convert_input_row(const PackedDepthwiseConv2DData& d, const ConvCall<AType, OutType>& call,
                       std::size_t b, std::size_t iy, std::size_t c0, std::size_t cg, std::size_t cgp,
                       Scratch& s, std::int16_t* dst) {
  const DepthwiseConv2DGeometry& g = d.geometry;
  DwConvertArgs a;
  input_row_by_output_channel(g, call, b, iy, c0, cg, s, &a.src, &a.pixel_stride);
  a.in_w = g.in_w;
  a.pad_left = d.window.pad_left;
  a.dilation_w = g.window.dilation_w;
  a.width = d.pair_row_width;
  a.column_step = d.pair_column_step;
  a.cg = cg;
  a.cgp = cgp;
  a.zp_pixel = s.zp_pixel.data();
  a.za = call.input_zero_point;
  a.dst = dst;
  (std::is_signed<AType>::value ? d.kernels.convert_s8 : d.kernels.convert_u8)(a);
}

/// Converts input row iy of image b, channel group [c0, c0 + cg), into a quad row.
template <class AType, class OutType>
void convert_quad_row(const PackedDepthwiseConv2DData& d, const ConvCall<AType, OutType>& call, std::size_t b,
                      std::size_t iy, std::size_t c0, std::size_t cg, std::size_t cgp, Scratch& s,
                      std::uint8_t* dst) {
  const DepthwiseConv2DGeometry& g = d.geometry;
  DwQuadConvertArgs a;
  input_row_by_output_channel(g, call, b, iy, c0, cg, s, &a.src, &a.pixel_stride);
  a.in_w = g.in_w;
  a.pad_left = d.window.pad_left;
  a.columns = d.quad_columns;
  a.cg = cg;
  a.cgp = cgp;
  a.zp_pixel = s.zp_pixel.data();
  a.flip = std::is_signed<AType>::value ? 0x80 : 0;
  a.dst = dst;
  d.kernels.quad_convert(a);
}

template <class Out>
DwQuadFn quad_kernel_for(const DwQuadKernels& k, const OutputParams& o) {
  // With a clamp to Out's whole range, the saturating output stage where there is one.
  DwQuadFn saturated = nullptr;
  if constexpr (std::is_same<Out, std::int8_t>::value) saturated = k.to_int8_saturated;
  if constexpr (std::is_same<Out, std::uint8_t>::value) saturated = k.to_uint8_saturated;
  if constexpr (std::is_same<Out, std::int16_t>::value) saturated = k.to_int16_saturated;
  if (saturated != nullptr && clamps_to_whole_range<Out>(o)) return saturated;
  if constexpr (std::is_same<Out, std::int8_t>::value) return k.to_int8;
  if constexpr (std::is_same<Out, std::uint8_t>::value) return k.to_uint8;
  if constexpr (std::is_same<Out, std::int16_t>::value) return k.to_int16;
  if constexpr (std::is_same<Out, std::int32_t>::value) return k.to_int32;
}

template <class Out>
Out requantize_wide_element(const PackedDepthwiseConv2DData& d, std::int64_t v, std::size_t oc,
                            const OutputParams& o) {
  const RequantParams& p = d.params[d.per_channel ? oc : 0];
  return visit_rounding_core(d.core, [&](auto policy) -> Out {
    using Policy = decltype(policy);
    return saturating_cast<Out>(reference::detail::requantize_accumulator<Policy>(v, true, p, o));
  });
}

/// Forms the model of output rows [oy0, oy0 + rows) of image b, channels [c0, c0 + cg), from s.acc
/// (pixel q = (oy - oy0) * out_w + ox at q * cgp) and requantizes them: consecutive output rows
/// are consecutive pixels of the output, so one requantization call covers them all.
template <class AType, class Out>
void finish_rows(const PackedDepthwiseConv2DData& d, const ConvCall<AType, Out>& call, std::size_t b,
                 std::size_t oy0, std::size_t rows, std::size_t c0, std::size_t cg, std::size_t cgp,
                 Scratch& s) {
  const std::size_t out_w = d.window.out_w, oc_count = d.out_channels, pixels = rows * out_w;
  const AccumulatorSpec spec = d.accumulator;
  std::int32_t* acc = s.acc.data();
  const std::int32_t* to_requantize = acc;
  s.exceptions.clear();
  if (d.plan == DwPlan::kFoldedInt32) {
    if (spec.kind == AccumulatorKind::kWrapping && spec.bits < 32) {
      const int sh = 32 - spec.bits;
      for (std::size_t ox = 0; ox < pixels; ++ox) {
        for (std::size_t c = 0; c < cg; ++c) {
          const std::uint32_t u = static_cast<std::uint32_t>(acc[ox * cgp + c]) << sh;
          acc[ox * cgp + c] = static_cast<std::int32_t>(u) >> sh;
        }
      }
    }
    for (const std::size_t c : s.fallback) {
      for (std::size_t q = 0; q < pixels; ++q) {
        acc[q * cgp + c] = wrap_to_int32(reference_accumulator(d, call, b, oy0 + q / out_w, q % out_w, c0 + c));
      }
    }
  } else {
    s.staged.resize(pixels * cgp);
    std::int32_t* staged = s.staged.data();
    const int bits = spec.bits;
    const bool policy_wide =
        visit_rounding_core(d.core, [](auto p) { return decltype(p)::kAcceptsWideInput; }) && bits > 32;
    const std::int64_t sat_hi = bits >= 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1;
    const std::int64_t sat_lo = -sat_hi - 1;
    for (std::size_t ox = 0; ox < pixels; ++ox) {
      for (std::size_t c = 0; c < cg; ++c) {
        const std::size_t oc = c0 + c;
        std::int64_t v;
        if (s.is_fallback[c]) {
          v = reference_accumulator(d, call, b, oy0 + ox / out_w, ox % out_w, oc);
        } else {
          const std::int64_t exact = acc[ox * cgp + c];
          switch (spec.kind) {
            case AccumulatorKind::kSaturating:
              v = clamp_i64(exact + clamp_i64(d.bias[oc], sat_lo, sat_hi), sat_lo, sat_hi);
              break;
            case AccumulatorKind::kWrapping:
              v = wrap_to_bits(static_cast<std::uint64_t>(exact + d.bias[oc]), bits);
              break;
            default:  // kInt64
              v = exact + d.bias[oc];
              break;
          }
        }
        if (policy_wide && (v < kInt32Min || v > kInt32Max)) {
          s.exceptions.push_back({ox, c, v});
          staged[ox * cgp + c] = 0;
        } else {
          staged[ox * cgp + c] = wrap_to_int32(v);
        }
      }
    }
    to_requantize = staged;
  }

  Out* dst = call.out + ((b * d.window.out_h + oy0) * out_w) * oc_count + c0;
  RequantizeArgs rq;
  rq.core = d.core;
  rq.params = d.params.data() + (d.per_channel ? c0 : 0);
  rq.per_channel = d.per_channel;
  rq.output = call.output;
  rq.rows = pixels;
  rq.channels = cg;
  rq.acc = to_requantize;
  rq.acc_row_stride = cgp;
  rq.dst_row_stride = oc_count;
  requantize_kernels(d.isa).get<Out>()(rq, dst);
  for (const Scratch::Wide& e : s.exceptions) {
    dst[e.ox * oc_count + e.c] = requantize_wide_element<Out>(d, e.v, c0 + e.c, call.output);
  }
}

/// The output rows per band of a threaded run on t >= 2 threads. The packed bands (d.band rows,
/// as many as the pair-row budget allows) can leave shares unequal: 112x112 has 7 bands of 16 rows,
/// 4 for one thread and 3 for the other (at best 1.75x one thread). Tries every height from d.band
/// down to half of it (each band also converts the kernel_h - 1 input rows its window reaches past
/// its own, so thinner bands cost more) and keeps the one whose tiles, claimed in order by
/// whichever thread is free, finish first plus half a tile (the expected idle end when the threads
/// do not run exactly alike), a tile costing its output rows plus those halo rows. Any band height
/// gives the same bits: every output row is computed the same way whatever band holds it.
std::size_t thread_band_rows(const PackedDepthwiseConv2DData& d, std::size_t t) {
  const std::size_t out_h = d.window.out_h, halo = (d.geometry.window.kernel_h - 1) * d.geometry.window.dilation_h;
  const std::size_t tiles_per_band = d.groups, images = d.geometry.batch;
  std::size_t best = d.band;
  std::uint64_t best_cost = ~std::uint64_t{0};
  std::vector<std::uint64_t> free_at;
  for (std::size_t h = d.band; h >= 1 && 2 * h >= d.band; --h) {
    free_at.assign(t, 0);
    const std::size_t bands = (out_h + h - 1) / h;
    for (std::size_t b = 0; b < images; ++b) {
      for (std::size_t band = 0; band < bands; ++band) {
        const std::uint64_t rows = std::min(out_h, (band + 1) * h) - band * h;
        for (std::size_t g = 0; g < tiles_per_band; ++g) {
          *std::min_element(free_at.begin(), free_at.end()) += rows + halo;
        }
      }
    }
    const std::uint64_t cost = 2 * *std::max_element(free_at.begin(), free_at.end()) + h + halo;
    if (cost < best_cost) {
      best_cost = cost;
      best = h;
    }
  }
  return best;
}

/// A tile on the quad path: quad rows converted once per band; when the model is the int32 sum
/// itself (int32, wrap32, pairsat16 without a channel that can saturate), the fused kernels
/// requantize in registers and write the output; otherwise the raw sums go through finish_rows.
template <class AType, class Out>
void run_quad_tile(const PackedDepthwiseConv2DData& d, const ConvCall<AType, Out>& call, std::size_t b,
                   std::size_t y0, std::size_t y1, std::size_t c0, std::size_t cg, std::size_t cgp, Scratch& s) {
  const DepthwiseConv2DGeometry& g = d.geometry;
  const Window2D& win = g.window;
  const std::int32_t za = call.input_zero_point;
  const std::int32_t za_q = std::is_signed<AType>::value ? za + 128 : za;  // za'
  const std::size_t row_len = d.quad_columns * cgp * 4;
  // A ring of quad rows, as many as the window spans: output row oy reads input rows
  // oy * stride_h - pad_top + [0, span), distinct modulo span, so row iy lives in slot iy % span
  // until the window has passed it. Each row is still converted once per band, and the ring stays
  // in L1 (3 rows of 56 columns x 32 channels: 21 KiB) where one slot per band row spilled to L2
  // (112x112x32 DR-AZ: ~2 % faster, the conversion 16.8 -> 15.8 % of the layer).
  const std::size_t span = (win.kernel_h - 1) * win.dilation_h + 1;
  s.quad_rows.resize(span * row_len);
  s.slot_row.assign(span, -1);
  s.za_quad_row.assign(row_len, static_cast<std::uint8_t>(za_q));
  s.zp_pixel.assign(cgp, static_cast<std::uint8_t>(za));
  s.quad_init.resize(cgp);
  const bool folded = d.plan == DwPlan::kFoldedInt32;
  for (std::size_t c = 0; c < cgp; ++c) {
    const std::uint32_t start = folded ? static_cast<std::uint32_t>(d.bias[std::min(c0 + c, d.out_channels - 1)]) : 0u;
    const std::uint32_t comp = static_cast<std::uint32_t>(za_q) * static_cast<std::uint32_t>(d.wsum[c0 + c]);
    s.quad_init[c] = static_cast<std::int32_t>(c < cg ? start - comp : 0u);
  }
  const AccumulatorSpec spec = d.accumulator;
  const bool fused = folded && !(spec.kind == AccumulatorKind::kWrapping && spec.bits < 32) && s.fallback.empty();
  const std::size_t out_w = d.window.out_w, row_acc = out_w * cgp;
  const std::size_t flush_rows = fused ? 1 : std::max<std::size_t>(1, std::min(y1 - y0, 16384 / row_acc));
  if (!fused) s.acc.resize(flush_rows * row_acc);
  DwQuadArgs a;
  a.rows = s.quad_row_ptr;
  a.weights = d.quad_weights.data() + (c0 / d.lanes) * 3 * 2 * d.lanes * 4;
  a.init = s.quad_init.data();
  a.epilogue = d.epilogue.data() + (c0 / d.lanes) * d.kernels.epilogue_words;
  a.output = &call.output;
  a.cg = cg;
  a.cgp = cgp;
  a.out_w = out_w;
  const DwQuadFn kernel = fused ? quad_kernel_for<Out>(d.quad_kernels, call.output) : d.quad_kernels.raw;
  std::size_t flush_start = y0;
  for (std::size_t oy = y0; oy < y1; ++oy) {
    for (std::size_t ky = 0; ky < 3; ++ky) {
      const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * win.stride_h + ky * win.dilation_h) -
                                static_cast<std::ptrdiff_t>(d.window.pad_top);
      if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(g.in_h)) {
        s.quad_row_ptr[ky] = s.za_quad_row.data();
        continue;
      }
      const std::size_t slot = static_cast<std::size_t>(iy) % span;
      std::uint8_t* dst = s.quad_rows.data() + slot * row_len;
      if (s.slot_row[slot] != iy) {
        convert_quad_row(d, call, b, static_cast<std::size_t>(iy), c0, cg, cgp, s, dst);
        s.slot_row[slot] = iy;
      }
      s.quad_row_ptr[ky] = dst;
    }
    if (fused) {
      a.out = call.out + ((b * d.window.out_h + oy) * out_w) * d.out_channels + c0;
      a.out_stride = d.out_channels;
      kernel(a);
      continue;
    }
    a.out = s.acc.data() + (oy - flush_start) * row_acc;
    a.out_stride = cgp;
    kernel(a);
    if (oy + 1 - flush_start == flush_rows || oy + 1 == y1) {
      finish_rows(d, call, b, flush_start, oy + 1 - flush_start, c0, cg, cgp, s);
      flush_start = oy + 1;
    }
  }
}

template <class AType, class Out>
void run_tile(const PackedDepthwiseConv2DData& d, const ConvCall<AType, Out>& call, std::size_t tile,
              std::size_t band_rows) {
  Scratch& s = scratch();
  const DepthwiseConv2DGeometry& g = d.geometry;
  const Window2D& win = g.window;
  const std::size_t bands = (d.window.out_h + band_rows - 1) / band_rows;
  const std::size_t grp = tile % d.groups, band = (tile / d.groups) % bands;
  const std::size_t b = tile / d.groups / bands;
  const std::size_t c0 = grp * d.group, cg = std::min(d.group, d.out_channels - c0);
  const std::size_t cgp = round_up(cg, d.lanes);
  const std::size_t y0 = band * band_rows, y1 = std::min(d.window.out_h, y0 + band_rows);
  const std::int32_t za = call.input_zero_point;
  find_fallback_channels<AType>(d, za, c0, cg, s);

  if (d.quad) {
    run_quad_tile(d, call, b, y0, y1, c0, cg, cgp, s);
    return;
  }
  const bool simd = d.plan != DwPlan::kReference;
  const std::size_t row_len = d.pair_row_width * cgp * 2;
  const std::ptrdiff_t iy_first = static_cast<std::ptrdiff_t>(y0 * win.stride_h) -
                                  static_cast<std::ptrdiff_t>(d.window.pad_top);
  if (simd) {
    const std::size_t slots = (y1 - y0 - 1) * win.stride_h + (win.kernel_h - 1) * win.dilation_h + 1;
    s.pair_rows.resize(slots * row_len);
    s.slot_ready.assign(slots, 0);
    if (s.zero_row.size() != row_len) s.zero_row.assign(row_len, 0);  // stays all zero
    s.zp_pixel.assign(cgp, static_cast<std::uint8_t>(za));
    s.rows.resize(win.kernel_h);
  }
  // Output rows are requantized a few at a time (about 64 KiB of accumulators): fewer calls into
  // the requantizer, each of which prepares its per-channel parameters once.
  const std::size_t row_acc = d.window.out_w * cgp;
  const std::size_t flush_rows = std::max<std::size_t>(1, std::min(y1 - y0, 16384 / row_acc));
  s.acc.resize(flush_rows * row_acc);
  std::size_t flush_start = y0;
  for (std::size_t oy = y0; oy < y1; ++oy) {
    if (simd) {
      for (std::size_t ky = 0; ky < win.kernel_h; ++ky) {
        const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * win.stride_h + ky * win.dilation_h) -
                                  static_cast<std::ptrdiff_t>(d.window.pad_top);
        if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(g.in_h)) {
          s.rows[ky] = s.zero_row.data();
          continue;
        }
        const std::size_t slot = static_cast<std::size_t>(iy - iy_first);
        std::int16_t* dst = s.pair_rows.data() + slot * row_len;
        if (!s.slot_ready[slot]) {
          convert_input_row(d, call, b, static_cast<std::size_t>(iy), c0, cg, cgp, s, dst);
          s.slot_ready[slot] = 1;
        }
        s.rows[ky] = dst;
      }
      DwRowArgs a;
      a.rows = s.rows.data();
      a.weights = d.weights.data() + (c0 / d.lanes) * win.kernel_h * d.pairs * d.lanes * 2;
      a.init = d.init.data() + c0;
      a.cgp = cgp;
      a.out_w = d.window.out_w;
      a.stride_w = win.stride_w;
      a.dilation_w = win.dilation_w;
      a.kernel_h = win.kernel_h;
      a.kernel_w = win.kernel_w;
      a.acc = s.acc.data() + (oy - flush_start) * row_acc;
      d.row(a);
    }
    if (oy + 1 - flush_start == flush_rows || oy + 1 == y1) {
      finish_rows(d, call, b, flush_start, oy + 1 - flush_start, c0, cg, cgp, s);
      flush_start = oy + 1;
    }
  }
}

/// The output rows per band of a run asked for `threads` threads (0: hardware_concurrency()):
/// threads_for_work's count (1 for work too small to split), then thread_band_rows for it.
/// depthwise_conv2d_threaded and the tile API's threaded forms share it, so that an engine's own
/// pool of T threads gets the partition the built-in entry point runs with T.
struct BandCut {
  std::size_t threads = 1, band_rows = 1;
};

BandCut thread_band_cut(const PackedDepthwiseConv2DData& d, unsigned threads) {
  const std::uint64_t macs =
      std::uint64_t{d.geometry.batch} * d.window.out_h * d.window.out_w * d.out_channels * d.taps;
  BandCut cut;
  cut.threads = threads_for_work(threads, macs);
  cut.band_rows = cut.threads >= 2 ? thread_band_rows(d, cut.threads) : d.band;
  return cut;
}

std::size_t band_tile_count(const PackedDepthwiseConv2DData& d, std::size_t band_rows) {
  return d.geometry.batch * ((d.window.out_h + band_rows - 1) / band_rows) * d.groups;
}

}  // namespace
}  // namespace internal

std::size_t depthwise_conv2d_tile_count(const PackedDepthwiseConv2D& conv) {
  const internal::PackedDepthwiseConv2DData& d = internal::packed_data(conv);
  return d.geometry.batch * d.bands * d.groups;
}

std::size_t depthwise_conv2d_tile_count(const PackedDepthwiseConv2D& conv, unsigned threads) {
  const internal::PackedDepthwiseConv2DData& d = internal::packed_data(conv);
  return internal::band_tile_count(d, internal::thread_band_cut(d, threads).band_rows);
}

template <class AType, class OutType>
void depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call,
                            std::size_t begin, std::size_t end) {
  validate_conv_call(call);
  const std::size_t count = depthwise_conv2d_tile_count(conv);
  internal::check_tile_range(begin, end, count, "depthwise_conv2d_tile_count");
  const internal::PackedDepthwiseConv2DData& d = internal::packed_data(conv);
  for (std::size_t t = begin; t < end; ++t) internal::run_tile(d, call, t, d.band);
}

template <class AType, class OutType>
void depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call,
                            unsigned threads, std::size_t begin, std::size_t end) {
  validate_conv_call(call);
  const internal::PackedDepthwiseConv2DData& d = internal::packed_data(conv);
  // The cut depends on (conv, threads) alone: the one depthwise_conv2d_tile_count(conv, threads)
  // counted.
  const std::size_t band_rows = internal::thread_band_cut(d, threads).band_rows;
  const std::size_t count = internal::band_tile_count(d, band_rows);
  internal::check_tile_range(begin, end, count,
                             "depthwise_conv2d_tile_count(conv, threads) with the same threads",
                             [&] { return " for threads = " + std::to_string(threads); });
  for (std::size_t t = begin; t < end; ++t) internal::run_tile(d, call, t, band_rows);
}

template <class AType, class OutType>
void depthwise_conv2d(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call) {
  depthwise_conv2d_tiles(conv, call, 0, depthwise_conv2d_tile_count(conv));
}

template <class AType, class OutType>
void depthwise_conv2d_threaded(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call,
                               unsigned threads) {
  validate_conv_call(call);
  const internal::PackedDepthwiseConv2DData& d = internal::packed_data(conv);
  // Two or more threads: band heights chosen for them (thread_band_rows), one tile per range.
  const internal::BandCut cut = internal::thread_band_cut(d, threads);
  const auto run_range = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) internal::run_tile(d, call, i, cut.band_rows);
  };
  const std::size_t count = internal::band_tile_count(d, cut.band_rows);
  internal::run_ranges_threaded(count, count, cut.threads, run_range);
}

template <class AType, class OutType>
void depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p, RoundingCore core,
                      AccumulatorSpec accumulator) {
  validate(accumulator);
  validate_depthwise_conv2d(p, core);
  const PackedDepthwiseConv2D conv(p.geometry, p.weights, core, accumulator);
  depthwise_conv2d(conv, p.call);
}

#define QPARITY_DEPTHWISE_CONV2D_INSTANTIATE(A, O)                                                     \
  template void depthwise_conv2d<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&);           \
  template void depthwise_conv2d_tiles<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&,      \
                                             std::size_t, std::size_t);                                \
  template void depthwise_conv2d_tiles<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&,      \
                                             unsigned, std::size_t, std::size_t);                      \
  template void depthwise_conv2d_threaded<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&,   \
                                                unsigned);                                             \
  template void depthwise_conv2d<A, O>(const DepthwiseConv2DProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_DEPTHWISE_CONV2D_INSTANTIATE)
#undef QPARITY_DEPTHWISE_CONV2D_INSTANTIATE

}  // namespace qparity
