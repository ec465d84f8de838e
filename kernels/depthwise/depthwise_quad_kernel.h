// INTERNAL: the quad path of the depthwise conv2d (kernels/depthwise/depthwise_kernel.h describes
// the arithmetic and the quad-row layout): the quad-row conversion, the 3x3 VPDPBUSD row kernels
// and their fused requantization epilogue. AVX-512 VNNI only; included by depthwise_avx512vnni.cc.
// Not installed.
//
// ODR: the rounding cores come from rounding/requantize_x86.h (the same per-vector code the array
// requantizer runs, hence the same bits), instantiated here in the includer's own namespace
// QPARITY_ISA_NS (dw_avx512vnni_quad) with AVX-512 registers, so nothing is shared with
// rounding/requantize_avx512.cc (tests/simd/odr_guard.cmake checks it).
//
// Register use of a row kernel (zmm): 6 quad weights (stride 1: variants a and b of 3 kernel rows),
// 8 output columns' accumulators, the 16 channels' epilogue parameters (int cores: up to 9
// registers; float: 3) and the output stage (3). The parameters are loaded once per channel block
// and row, so the int32 sums never leave the registers: each is requantized, clamped, narrowed and
// stored as soon as its 3 VPDPBUSD are done.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/depthwise/depthwise_kernel.h"
#include "rounding/requantize_x86.h"

#if !defined(QPARITY_TARGET_HAS_avx512vnni) || QPARITY_X86_VECTOR_BITS != 512
#error "depthwise_quad_kernel.h needs an avx512vnni translation unit"
#endif

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

constexpr std::size_t kQuadLanes = 16;

// ---- Epilogue parameters ------------------------------------------------------------------------
// One block of 16 channels, int64 words:
//   integer cores: m_e, m_o, c_e, c_o, n_e, n_o, s_e, s_o (8 words each, requantize_x86.h's IntRegs
//                  for even / odd channels), then l and h = s - 32 (16 int32 each) = 80 words;
//   float cores:   scale, bias, post_scale (16 floats each) in words 0 .. 23.
constexpr std::size_t kEpilogueWords = 80;

template <class T>
inline void put(std::int64_t* block, std::size_t byte_offset, T v) {
  std::memcpy(reinterpret_cast<unsigned char*>(block) + byte_offset, &v, sizeof v);
}

inline DwEpilogueVariant pack_epilogue(RoundingCore core, const RequantParams* params, bool per_channel,
                                       std::size_t channels, std::int64_t* out) {
  const bool is_float = core == RoundingCore::kFloat32 || core == RoundingCore::kFloat32ZeroPointInside;
  const std::size_t blocks = (channels + kQuadLanes - 1) / kQuadLanes;
  DwEpilogueVariant v;
  v.high = !is_float;
  for (std::size_t b = 0; b < blocks; ++b) {
    std::int64_t* blk = out + b * kEpilogueWords;
    for (std::size_t w = 0; w < kEpilogueWords; ++w) blk[w] = 0;
    for (std::size_t l = 0; l < kQuadLanes; ++l) {
      std::size_t c = b * kQuadLanes + l;
      c = c < channels ? c : channels - 1;  // padding lanes repeat the last channel
      const RequantParams& p = params[per_channel ? c : 0];
      if (is_float) {
        put(blk, 4 * l, p.scale);
        put(blk, 64 + 4 * l, p.bias);
        put(blk, 128 + 4 * l, p.post_scale);
        continue;
      }
      const IntPlan q = plan_int(core, p);
      const std::size_t half = (l % 2) * 8 + l / 2;  // word of an m_e / m_o style pair
      blk[0 + half] = q.m;
      blk[16 + half] = q.c;
      blk[32 + half] = q.n;
      blk[48 + half] = q.s;
      put(blk, 64 * 8 + 4 * l, q.l);
      put(blk, 72 * 8 + 4 * l, static_cast<std::int32_t>(q.s - 32));
      v.pre |= q.l != 0;
      v.high &= q.s >= 32;
    }
  }
  if (!is_float && int_form(core) == IntForm::kSignedOffset && v.high) {
    // DR-AZ in the high-half mode runs requantize_x86.h's dr_az_doubled_core: 2M, 2c + 2^31
    // (c + 2^30 doubled), R = h + 1, and 2M + 1 per lane in the n words (unused by that core).
    for (std::size_t b = 0; b < blocks; ++b) {
      std::int64_t* blk = out + b * kEpilogueWords;
      for (std::size_t l = 0; l < kQuadLanes; ++l) {
        const std::size_t half = (l % 2) * 8 + l / 2;
        const std::int64_t m = blk[half];
        std::int32_t h;
        std::memcpy(&h, reinterpret_cast<unsigned char*>(blk) + 72 * 8 + 4 * l, sizeof h);
        put(blk, 72 * 8 + 4 * l, h + 1);
        put(blk, 32 * 8 + 4 * l, static_cast<std::uint32_t>(2 * m + 1));
      }
      for (std::size_t w = 0; w < 16; ++w) blk[w] = 2 * blk[w];
      for (std::size_t w = 16; w < 32; ++w) blk[w] = 2 * blk[w] + (std::int64_t{1} << 31);
    }
  }
  return v;
}

template <IntForm kForm, bool kPre, bool kHigh>
struct IntEpilogue {
  using Regs = IntRegs;
  OutRegs o;
  explicit IntEpilogue(const OutputParams& out) : o(output_regs(out, false)) {}
  QPARITY_SIMD_INLINE Regs regs(const std::int64_t* b) const {
    IntRegs r;
    r.m_e = Ops::load(b), r.m_o = Ops::load(b + 8);
    r.c_e = Ops::load(b + 16), r.c_o = Ops::load(b + 24);
    r.n_e = Ops::load(b + 32), r.n_o = Ops::load(b + 40);
    r.s_e = Ops::load(b + 48), r.s_o = Ops::load(b + 56);
    r.l = kPre ? Ops::load(b + 64) : Ops::zero();
    r.h = kHigh ? Ops::load(b + 72) : Ops::zero();
    r.k = Ops::zero();  // the SSE4.1 / AVX2 flipped-bias correction; unused with vpsravq
    r.off = Ops::set1_64(kDrOffset);
    r.ones = Ops::set1_64(-1);
    r.combine = Ops::combine_mask();
    if constexpr (kForm == IntForm::kSignedOffset && kHigh) {
      r.k = Ops::load(b + 32);  // 2M + 1 (pack_epilogue)
    } else if constexpr (kForm == IntForm::kSignedOffset) {
      fold_dr_offset(r);
    }
    return r;
  }
  /// The high-half mode bounds |y| below 2^31 - 2^16 (see the GEMM's EpiloguePlan::fused_saturated),
  /// so the kernels may use the saturating output stage when the clamp is Out's whole range.
  static constexpr bool kBounded = kHigh;
  QPARITY_SIMD_INLINE I apply(I x, const Regs& r) const { return finish(core(x, r), o); }
  QPARITY_SIMD_INLINE I core(I x, const Regs& r) const {
    // The GEMM epilogue's choices (gemm_epilogue_x86.h epilogue_int_core): DR-AZ through
    // requantize_x86.h's dr_az_doubled_core in the high-half mode, else masked_signed_core (c_e,
    // c_o hold its folded 2^30, see regs()), the others
    // through validated_int_core, SR-AZ and TRUNC there through symmetric_core (10 instructions
    // per vector in the high-half mode against masked_signed_core's 11): the weights' parameters
    // are validated (validate_conv_weights), so every multiplier is >= 0.
    if constexpr (kForm == IntForm::kSignedOffset && kHigh) {
      return dr_az_doubled_core<kPre>(x, r);  // (its registers: pack_epilogue)
    } else if constexpr (kForm == IntForm::kSignedOffset) {
      return masked_signed_core<kForm, kPre, kHigh>(x, r);
    }
    return validated_int_core<kForm, kPre, kHigh, false>(x, r);
  }
};

template <bool kZeroPointInside>
struct FloatEpilogue {
  using Regs = FloatRegs;
  OutRegs o;
  FloatBatch zp;
  explicit FloatEpilogue(const OutputParams& out)
      : o(output_regs(out, kZeroPointInside)), zp(static_cast<float>(out.zero_point)) {}
  QPARITY_SIMD_INLINE Regs regs(const std::int64_t* b) const {
    const float* f = reinterpret_cast<const float*>(b);
    return FloatRegs{FloatBatch::load_unaligned(f), FloatBatch::load_unaligned(f + 16),
                     FloatBatch::load_unaligned(f + 32), zp};
  }
  static constexpr bool kBounded = false;  // float_core saturates to the int32 range
  QPARITY_SIMD_INLINE I apply(I x, const Regs& r) const { return finish(core(x, r), o); }
  QPARITY_SIMD_INLINE I core(I x, const Regs& r) const { return float_core<kZeroPointInside>(x, r); }
};

// ---- The quad-row conversion --------------------------------------------------------------------

/// Four pixels' 16 channels (one per 128-bit lane) to 16 channel quads: a 4x4 transpose of dwords
/// across the lanes, then of bytes inside each lane.
QPARITY_SIMD_INLINE __m512i transpose_quad(__m512i v) {
  const __m512i dwords = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i bytes = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  return _mm512_shuffle_epi8(_mm512_permutexvar_epi32(dwords, v), bytes);
}

/// transpose_quad for 32-channel pixels stored back to back (pixel stride 32 bytes, the
/// 112x112x32 layers of MobileNet): the four pixels are one 128-byte window (lo, hi), and channel
/// block b's chunk of pixel i is its dwords 8i + 4b .. 8i + 4b + 3, so one two-source dword
/// permutation replaces the three inserts and the permutation of the general form.
template <std::size_t kBlock>
QPARITY_SIMD_INLINE __m512i transpose_quad_window32(__m512i lo, __m512i hi) {
  static_assert(kBlock < 2, "two channel blocks per 32-channel pixel");
  constexpr int b = 4 * static_cast<int>(kBlock);
  // transpose_quad's dword order (0, 4, 8, 12, 1, 5, ...: v's dword 4i + d) as window dwords.
  const __m512i dwords = _mm512_setr_epi32(0 + b, 8 + b, 16 + b, 24 + b, 1 + b, 9 + b, 17 + b, 25 + b,
                                           2 + b, 10 + b, 18 + b, 26 + b, 3 + b, 11 + b, 19 + b, 27 + b);
  const __m512i bytes = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  return _mm512_shuffle_epi8(_mm512_permutex2var_epi32(lo, dwords, hi), bytes);
}

/// Quad column `out` (cgp * 4 bytes) from the 16-byte channel chunks of four pixels p[0..3].
QPARITY_SIMD_INLINE void quad_column(const std::uint8_t* const (&p)[4], std::size_t full, std::size_t cgp,
                                     __mmask16 tail, __m128i zp, __m512i flip, std::uint8_t* out) {
  std::size_t c = 0;
  for (; c < full; c += kQuadLanes) {
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + c)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1] + c)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[2] + c)), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[3] + c)), 3);
    _mm512_storeu_si512(out + 4 * c, _mm512_xor_si512(transpose_quad(v), flip));
  }
  if (c < cgp) {  // masked loads: no byte past the group is read; the rest holds the zero point
    __m512i v = _mm512_castsi128_si512(_mm_mask_loadu_epi8(zp, tail, p[0] + c));
    v = _mm512_inserti32x4(v, _mm_mask_loadu_epi8(zp, tail, p[1] + c), 1);
    v = _mm512_inserti32x4(v, _mm_mask_loadu_epi8(zp, tail, p[2] + c), 2);
    v = _mm512_inserti32x4(v, _mm_mask_loadu_epi8(zp, tail, p[3] + c), 3);
    _mm512_storeu_si512(out + 4 * c, _mm512_xor_si512(transpose_quad(v), flip));
  }
}

inline void quad_convert(const DwQuadConvertArgs& a) {
  const std::size_t cg = a.cg, cgp = a.cgp, full = cg / kQuadLanes * kQuadLanes;
  const std::size_t stride = a.pixel_stride, step = 2 * stride, col = cgp * 4;
  const std::ptrdiff_t in_w = static_cast<std::ptrdiff_t>(a.in_w);
  const std::ptrdiff_t pad = static_cast<std::ptrdiff_t>(a.pad_left);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(a.flip));
  const __m128i zp = _mm_set1_epi8(static_cast<char>(a.zp_pixel[0]));
  const __mmask16 tail = static_cast<__mmask16>((1u << (cg - full)) - 1u);
  // Quad column q reads pixels 2q - pad .. 2q - pad + 3. The interior columns [q_lo, q_hi), all
  // four inside the row, walk one pointer; the border columns read the zero-point pixel outside.
  const std::ptrdiff_t columns = static_cast<std::ptrdiff_t>(a.columns);
  const std::ptrdiff_t q_lo = std::min(columns, (pad + 1) / 2);
  const std::ptrdiff_t last = in_w - 4 + pad;  // 2q <= last: pixel 2q - pad + 3 inside
  const std::ptrdiff_t q_hi = std::max(q_lo, std::min(columns, last < 0 ? 0 : last / 2 + 1));
  auto border = [&](std::ptrdiff_t q) {
    const std::uint8_t* p[4];
    for (std::ptrdiff_t i = 0; i < 4; ++i) {
      const std::ptrdiff_t ix = 2 * q + i - pad;
      p[i] = (ix >= 0 && ix < in_w) ? a.src + static_cast<std::size_t>(ix) * stride : a.zp_pixel;
    }
    quad_column(p, full, cgp, tail, zp, flip, a.dst + static_cast<std::size_t>(q) * col);
  };
  for (std::ptrdiff_t q = 0; q < q_lo; ++q) border(q);
  if (q_lo < q_hi) {
    const std::uint8_t* p0 = a.src + static_cast<std::size_t>(2 * q_lo - pad) * stride;
    std::uint8_t* out = a.dst + static_cast<std::size_t>(q_lo) * col;
    if (stride == 32 && cg == 32) {  // 32-channel pixels back to back: one 128-byte window
      for (std::ptrdiff_t q = q_lo; q < q_hi; ++q, p0 += step, out += col) {
        const __m512i lo = _mm512_xor_si512(_mm512_loadu_si512(p0), flip);
        const __m512i hi = _mm512_xor_si512(_mm512_loadu_si512(p0 + 64), flip);
        _mm512_storeu_si512(out, transpose_quad_window32<0>(lo, hi));
        _mm512_storeu_si512(out + 64, transpose_quad_window32<1>(lo, hi));
      }
    } else {
      for (std::ptrdiff_t q = q_lo; q < q_hi; ++q, p0 += step, out += col) {
        const std::uint8_t* const p[4] = {p0, p0 + stride, p0 + 2 * stride, p0 + 3 * stride};
        quad_column(p, full, cgp, tail, zp, flip, out);
      }
    }
  }
  for (std::ptrdiff_t q = q_hi; q < columns; ++q) border(q);
}

// ---- The 3x3 row kernels --------------------------------------------------------------------------

/// Output row of a 3x3 window at stride kStride (1 or 2), channel block by channel block; Epi
/// turns each finished sum vector into the stored result. kSaturated: the output stage is
/// y + zp narrowed with saturation (the call's clamp is Out's whole range and Epi::kBounded).
template <class Out, class Epi, std::size_t kStride, bool kSaturated = false>
void quad_row_3x3(const DwQuadArgs& a) {
  constexpr std::size_t kUnroll = 8;  // 4 for the integer cores measured the same: not register-bound
  const std::size_t cg = a.cg, cgp = a.cgp, out_w = a.out_w, col = cgp * 4, stride = a.out_stride;
  const std::uint8_t* const r0 = a.rows[0];
  const std::uint8_t* const r1 = a.rows[1];
  const std::uint8_t* const r2 = a.rows[2];
  Out* const out = static_cast<Out*>(a.out);
  const Epi epi(*a.output);
  for (std::size_t cb = 0; cb < cgp; cb += kQuadLanes) {
    const std::int8_t* w = a.weights + (cb / kQuadLanes) * (3 * 2 * 64);
    const __m512i wa0 = _mm512_loadu_si512(w), wb0 = _mm512_loadu_si512(w + 64);
    const __m512i wa1 = _mm512_loadu_si512(w + 128), wb1 = _mm512_loadu_si512(w + 192);
    const __m512i wa2 = _mm512_loadu_si512(w + 256), wb2 = _mm512_loadu_si512(w + 320);
    const __m512i init = _mm512_loadu_si512(a.init + cb);
    const typename Epi::Regs regs = epi.regs(a.epilogue + (cb / kQuadLanes) * kEpilogueWords);
    const std::size_t n = cg - cb < kQuadLanes ? cg - cb : kQuadLanes;
    const std::uint8_t* const q0 = r0 + 4 * cb;
    const std::uint8_t* const q1 = r1 + 4 * cb;
    const std::uint8_t* const q2 = r2 + 4 * cb;
    Out* const o = out + cb;
    auto emit = [&](std::size_t ox, __m512i acc) {
      // Saturated: no clamp, the narrowing store saturates (Ops::store_out).
      const I y = kSaturated ? Ops::add32(epi.core(acc, regs), epi.o.add) : epi.apply(acc, regs);
      if (n == kQuadLanes) {
        Ops::store_out(o + ox * stride, y);
      } else {
        Ops::store_out_partial(o + ox * stride, y, n);
      }
    };
    // Sums of the quads at byte offset `off` of the three rows with weights (x, y, z).
    auto taps = [&](__m512i acc, std::size_t off, __m512i x, __m512i y, __m512i z) {
      acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(q0 + off), x);
      acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(q1 + off), y);
      return _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(q2 + off), z);
    };
    std::size_t ox = 0;
    if (kStride == 1) {
      // Quad ox / 2 serves outputs ox (variant a) and ox + 1 (variant b).
      for (; ox + kUnroll <= out_w; ox += kUnroll) {
        __m512i acc[kUnroll];
        for (std::size_t u = 0; u < kUnroll; ++u) acc[u] = init;
        for (std::size_t u = 0; u < kUnroll; u += 2) {
          const std::size_t off = (ox + u) / 2 * col;
          const __m512i v0 = _mm512_loadu_si512(q0 + off);
          acc[u] = _mm512_dpbusd_epi32(acc[u], v0, wa0);
          acc[u + 1] = _mm512_dpbusd_epi32(acc[u + 1], v0, wb0);
          const __m512i v1 = _mm512_loadu_si512(q1 + off);
          acc[u] = _mm512_dpbusd_epi32(acc[u], v1, wa1);
          acc[u + 1] = _mm512_dpbusd_epi32(acc[u + 1], v1, wb1);
          const __m512i v2 = _mm512_loadu_si512(q2 + off);
          acc[u] = _mm512_dpbusd_epi32(acc[u], v2, wa2);
          acc[u + 1] = _mm512_dpbusd_epi32(acc[u + 1], v2, wb2);
        }
        for (std::size_t u = 0; u < kUnroll; ++u) emit(ox + u, acc[u]);
      }
      for (; ox + 2 <= out_w; ox += 2) {
        const std::size_t off = ox / 2 * col;
        emit(ox, taps(init, off, wa0, wa1, wa2));
        emit(ox + 1, taps(init, off, wb0, wb1, wb2));
      }
      if (ox < out_w) emit(ox, taps(init, ox / 2 * col, wa0, wa1, wa2));
    } else {
      for (; ox + kUnroll <= out_w; ox += kUnroll) {
        __m512i acc[kUnroll];
        for (std::size_t u = 0; u < kUnroll; ++u) acc[u] = taps(init, (ox + u) * col, wa0, wa1, wa2);
        for (std::size_t u = 0; u < kUnroll; ++u) emit(ox + u, acc[u]);
      }
      for (; ox < out_w; ++ox) emit(ox, taps(init, ox * col, wa0, wa1, wa2));
    }
  }
}

/// The raw kernel: the same sums, stored as int32 at acc[ox * cgp + c] (the driver's layout).
template <std::size_t kStride>
void quad_row_3x3_raw(const DwQuadArgs& a) {
  const std::size_t cgp = a.cgp, out_w = a.out_w, col = cgp * 4;
  std::int32_t* const acc_out = static_cast<std::int32_t*>(a.out);
  for (std::size_t cb = 0; cb < cgp; cb += kQuadLanes) {
    const std::int8_t* w = a.weights + (cb / kQuadLanes) * (3 * 2 * 64);
    const __m512i init = _mm512_loadu_si512(a.init + cb);
    for (std::size_t ox = 0; ox < out_w; ++ox) {
      const bool odd = kStride == 1 && ox % 2 == 1;
      const std::size_t off = (kStride == 1 ? ox / 2 : ox) * col + 4 * cb;
      const std::size_t wo = odd ? 64 : 0;
      __m512i acc = init;
      for (std::size_t ky = 0; ky < 3; ++ky) {
        acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(a.rows[ky] + off), _mm512_loadu_si512(w + ky * 128 + wo));
      }
      _mm512_storeu_si512(acc_out + ox * cgp + cb, acc);
    }
  }
}

template <class Epi, std::size_t kStride>
DwQuadKernels quad_kernels_for() {
  DwQuadKernels k;
  k.to_int8 = &quad_row_3x3<std::int8_t, Epi, kStride>;
  k.to_uint8 = &quad_row_3x3<std::uint8_t, Epi, kStride>;
  k.to_int16 = &quad_row_3x3<std::int16_t, Epi, kStride>;
  k.to_int32 = &quad_row_3x3<std::int32_t, Epi, kStride>;
  if constexpr (Epi::kBounded) {
    k.to_int8_saturated = &quad_row_3x3<std::int8_t, Epi, kStride, true>;
    k.to_uint8_saturated = &quad_row_3x3<std::uint8_t, Epi, kStride, true>;
    k.to_int16_saturated = &quad_row_3x3<std::int16_t, Epi, kStride, true>;
  }
  k.raw = &quad_row_3x3_raw<kStride>;
  return k;
}

template <class Epi>
DwQuadKernels quad_kernels_stride(std::size_t stride_w) {
  return stride_w == 1 ? quad_kernels_for<Epi, 1>() : quad_kernels_for<Epi, 2>();
}

inline DwQuadKernels quad_kernels_3x3(RoundingCore core, DwEpilogueVariant variant, std::size_t stride_w) {
  if (core == RoundingCore::kFloat32) return quad_kernels_stride<FloatEpilogue<false>>(stride_w);
  if (core == RoundingCore::kFloat32ZeroPointInside) return quad_kernels_stride<FloatEpilogue<true>>(stride_w);
  DwQuadKernels k;
  with_int_variant<true>(int_form(core), variant.pre, variant.high, [&](auto form_c, auto pre_c, auto high_c) {
    k = quad_kernels_stride<IntEpilogue<decltype(form_c)::value, decltype(pre_c)::value, decltype(high_c)::value>>(
        stride_w);
  });
  return k;
}

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
