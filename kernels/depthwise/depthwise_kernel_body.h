// INTERNAL: the depthwise kernels of kernels/depthwise/depthwise_kernel.h, written once against a
// small vector type and compiled per ISA by kernels/depthwise/depthwise_<isa>.cc. Not installed.
//
// ODR: everything here depends on the -m flags of the including translation unit, so it lives in
// qparity::internal::QPARITY_DW_ISA_NS, which each includer names differently (dw_scalar, dw_avx2,
// dw_avx512, dw_avx512vnni): no inline function or template instantiation is shared between
// objects built for different ISAs (see rounding/simd_x86.h and tests/simd/odr_guard.cmake).
// No standard-library template is used for the same reason. Define
//   QPARITY_DW_ISA_NS     the namespace
// before including this file. The code follows the unit's ISA (QPARITY_TARGET_HAS_<name>,
// cmake/QparityIsas.cmake): portable for scalar, ymm from avx2, zmm from avx512, VPDPWSSD from
// avx512vnni (QPARITY_DW_VECTOR_BITS and QPARITY_DW_HAS_DPWSSD, derived below).
//
// Register use: one vector holds `kLanes` channels' int32 accumulators, or the same channels'
// int16 tap pairs. A row kernel keeps kUnroll output columns' accumulators in flight so that the
// multiply-add chains of neighbouring columns overlap (VPDPWSSD latency ~4-5 cycles on Zen 4);
// the weights of the 3x3 / 5x5 kernels are loaded once per channel block and output column group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/depthwise/depthwise_kernel.h"

#if !defined(QPARITY_DW_ISA_NS)
#error "define QPARITY_DW_ISA_NS before including depthwise_kernel_body.h"
#endif

#if defined(QPARITY_TARGET_HAS_avx512)
#define QPARITY_DW_VECTOR_BITS 512
#if !(defined(__AVX512F__) && defined(__AVX512BW__))
#error "the AVX-512 depthwise kernels must be compiled with their ISA's flags"
#endif
#elif defined(QPARITY_TARGET_HAS_avx2)
#define QPARITY_DW_VECTOR_BITS 256
#if !defined(__AVX2__)
#error "the AVX2 depthwise kernels must be compiled with their ISA's flags"
#endif
#else
#define QPARITY_DW_VECTOR_BITS 0  // portable
#endif
#if defined(QPARITY_TARGET_HAS_avx512vnni)
#define QPARITY_DW_HAS_DPWSSD 1
#if !defined(__AVX512VNNI__)
#error "the AVX-512 VNNI depthwise kernels must be compiled with their ISA's flags"
#endif
#else
#define QPARITY_DW_HAS_DPWSSD 0
#endif
#if QPARITY_DW_VECTOR_BITS > 0
#include <immintrin.h>
#endif

#if defined(__GNUC__)
#define QPARITY_DW_INLINE inline __attribute__((always_inline))
#else
#define QPARITY_DW_INLINE inline
#endif

namespace qparity {
namespace internal {
namespace QPARITY_DW_ISA_NS {

#if QPARITY_DW_VECTOR_BITS == 0
/// Portable: 8 channels per "vector"; plain loops the compiler may vectorise for the baseline.
/// Additions are done on uint32 (the int32 model wraps; signed overflow would be UB).
struct Vec {
  static constexpr std::size_t kLanes = 8;
  struct V {
    std::uint32_t v[8];
  };
  struct P {
    std::int16_t h[16];
  };
  static QPARITY_DW_INLINE V load_acc(const std::int32_t* p) {
    V r;
    std::memcpy(r.v, p, sizeof r.v);
    return r;
  }
  static QPARITY_DW_INLINE void store_acc(std::int32_t* p, const V& v) { std::memcpy(p, v.v, sizeof v.v); }
  static QPARITY_DW_INLINE P load_pairs(const std::int16_t* p) {
    P r;
    std::memcpy(r.h, p, sizeof r.h);
    return r;
  }
  static QPARITY_DW_INLINE void store_pairs(std::int16_t* p, const P& v) { std::memcpy(p, v.h, sizeof v.h); }
  static QPARITY_DW_INLINE V madd(V acc, const P& a, const P& w) {
    for (std::size_t l = 0; l < 8; ++l) {
      const std::int32_t s = std::int32_t{a.h[2 * l]} * w.h[2 * l] + std::int32_t{a.h[2 * l + 1]} * w.h[2 * l + 1];
      acc.v[l] += static_cast<std::uint32_t>(s);
    }
    return acc;
  }
  template <bool Signed>
  static QPARITY_DW_INLINE P pairs_from_bytes(const std::uint8_t* p0, const std::uint8_t* p1, std::int32_t za) {
    P r;
    for (std::size_t l = 0; l < 8; ++l) {
      const std::int32_t a = Signed ? std::int32_t{static_cast<std::int8_t>(p0[l])} : std::int32_t{p0[l]};
      const std::int32_t b = Signed ? std::int32_t{static_cast<std::int8_t>(p1[l])} : std::int32_t{p1[l]};
      r.h[2 * l] = static_cast<std::int16_t>(a - za);
      r.h[2 * l + 1] = static_cast<std::int16_t>(b - za);
    }
    return r;
  }
};
#elif QPARITY_DW_VECTOR_BITS == 256
/// AVX2: 8 channels per ymm.
struct Vec {
  static constexpr std::size_t kLanes = 8;
  using V = __m256i;
  using P = __m256i;
  static QPARITY_DW_INLINE V load_acc(const std::int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static QPARITY_DW_INLINE void store_acc(std::int32_t* p, V v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  static QPARITY_DW_INLINE P load_pairs(const std::int16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static QPARITY_DW_INLINE void store_pairs(std::int16_t* p, P v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  static QPARITY_DW_INLINE V madd(V acc, P a, P w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, w)); }
  // Byte-interleave the two taps' 8 channels (x0[c], x1[c]), widen to int16, subtract za.
  template <bool Signed>
  static QPARITY_DW_INLINE P pairs_from_bytes(const std::uint8_t* p0, const std::uint8_t* p1, std::int32_t za) {
    const __m128i a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p0));
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p1));
    const __m128i ab = _mm_unpacklo_epi8(a, b);
    const __m256i w = Signed ? _mm256_cvtepi8_epi16(ab) : _mm256_cvtepu8_epi16(ab);
    return _mm256_sub_epi16(w, _mm256_set1_epi16(static_cast<std::int16_t>(za)));
  }
};
#else
/// AVX-512BW: 16 channels per zmm; level 4 fuses the multiply-add (VPDPWSSD, exact: each pair
/// sum is at most 2 * 255^2 and the int32 addition wraps like VPADDD).
struct Vec {
  static constexpr std::size_t kLanes = 16;
  using V = __m512i;
  using P = __m512i;
  static QPARITY_DW_INLINE V load_acc(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  static QPARITY_DW_INLINE void store_acc(std::int32_t* p, V v) { _mm512_storeu_si512(p, v); }
  static QPARITY_DW_INLINE P load_pairs(const std::int16_t* p) { return _mm512_loadu_si512(p); }
  static QPARITY_DW_INLINE void store_pairs(std::int16_t* p, P v) { _mm512_storeu_si512(p, v); }
  static QPARITY_DW_INLINE V madd(V acc, P a, P w) {
#if QPARITY_DW_HAS_DPWSSD
    return _mm512_dpwssd_epi32(acc, a, w);
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(a, w));
#endif
  }
  template <bool Signed>
  static QPARITY_DW_INLINE P pairs_from_bytes(const std::uint8_t* p0, const std::uint8_t* p1, std::int32_t za) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p0));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p1));
    const __m256i ab = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)),
                                               _mm_unpackhi_epi8(a, b), 1);
    const __m512i w = Signed ? _mm512_cvtepi8_epi16(ab) : _mm512_cvtepu8_epi16(ab);
    return _mm512_sub_epi16(w, _mm512_set1_epi16(static_cast<std::int16_t>(za)));
  }
};
#endif

constexpr std::size_t kLanes = Vec::kLanes;

/// The pair-row conversion (depthwise_kernel.h). The last, partial channel block of a group is
/// read through a zero-point-filled bounce buffer so that no byte past the group is touched.
template <bool Signed>
void convert_row(const DwConvertArgs& a) {
  const std::size_t cgp = a.cgp, full = a.cg / kLanes * kLanes;
  const std::ptrdiff_t in_w = static_cast<std::ptrdiff_t>(a.in_w);
  std::uint8_t bounce0[kLanes], bounce1[kLanes];
  for (std::size_t j = 0; j < a.width; j += a.column_step) {
    const std::ptrdiff_t ix0 = static_cast<std::ptrdiff_t>(j) - static_cast<std::ptrdiff_t>(a.pad_left);
    const std::ptrdiff_t ix1 = ix0 + static_cast<std::ptrdiff_t>(a.dilation_w);
    const std::uint8_t* p0 = (ix0 >= 0 && ix0 < in_w) ? a.src + static_cast<std::size_t>(ix0) * a.pixel_stride : a.zp_pixel;
    const std::uint8_t* p1 = (ix1 >= 0 && ix1 < in_w) ? a.src + static_cast<std::size_t>(ix1) * a.pixel_stride : a.zp_pixel;
    std::int16_t* out = a.dst + j * cgp * 2;
    std::size_t c = 0;
    for (; c < full; c += kLanes) {
      Vec::store_pairs(out + 2 * c, Vec::template pairs_from_bytes<Signed>(p0 + c, p1 + c, a.za));
    }
    if (c < cgp) {
      std::memcpy(bounce0, a.zp_pixel, kLanes);
      std::memcpy(bounce1, a.zp_pixel, kLanes);
      std::memcpy(bounce0, p0 + c, a.cg - c);
      std::memcpy(bounce1, p1 + c, a.cg - c);
      Vec::store_pairs(out + 2 * c, Vec::template pairs_from_bytes<Signed>(bounce0, bounce1, a.za));
    }
  }
}

/// One output row for kernel KH x KW, stride SW, dilation DW (0: the value from the arguments).
/// Columns ox, ..., ox + kUnroll - 1 are computed together: acc_u += H_ky[(ox + u) * sw + 2p * dw]
/// . W[ky][p] for every (ky, p). With the window fixed, the weights stay in registers for the whole
/// row, and with stride and dilation fixed too the compiler sees which pair-row columns
/// neighbouring outputs share (stride 1: columns ox .. ox + 5 serve four 3x3 outputs) and loads
/// each once. Everything is copied to locals first: the accumulator stores could otherwise alias
/// the argument block and force reloads.
template <std::size_t KH, std::size_t KW, std::size_t SW, std::size_t DW>
void row_kernel(const DwRowArgs& args) {
  // zmm (32 registers): 8 columns' accumulators + the 3x3 weights fit, and at stride 1 each row's
  // 10 pair-row loads then serve 8 outputs; ymm (16 registers) keeps 4.
  constexpr std::size_t kUnroll = (kLanes == 16 && SW == 1 && KH * KW <= 9) ? 8 : 4;
  constexpr std::size_t kFixedWeights = KH * ((KW + 1) / 2);
  const std::size_t kh = KH ? KH : args.kernel_h, kw = KW ? KW : args.kernel_w;
  const std::size_t pairs = (kw + 1) / 2;
  const std::size_t cgp = args.cgp, col = cgp * 2;  // int16 per pair-row column
  const std::size_t sw = SW ? SW : args.stride_w, dw = DW ? DW : args.dilation_w;
  const std::size_t col_step = sw * col, pair_step = 2 * dw * col;
  const std::size_t block_weights = kh * pairs * kLanes * 2;
  const std::size_t out_w = args.out_w;
  const std::int16_t* const* rows = args.rows;
  const std::int16_t* weights = args.weights;
  const std::int32_t* init_values = args.init;
  std::int32_t* acc_out = args.acc;
  const std::int16_t* row_ptr[KH ? KH : 1];
  if (KH) {
    for (std::size_t ky = 0; ky < kh; ++ky) row_ptr[ky] = rows[ky];
  }
  for (std::size_t cb = 0; cb < cgp; cb += kLanes) {
    const std::int16_t* w = weights + (cb / kLanes) * block_weights;
    Vec::P wv[kFixedWeights ? kFixedWeights : 1];
    if (kFixedWeights) {
      for (std::size_t i = 0; i < kFixedWeights; ++i) wv[i] = Vec::load_pairs(w + i * kLanes * 2);
    }
    auto weight = [&](std::size_t ky, std::size_t p) {
      return kFixedWeights ? wv[ky * pairs + p] : Vec::load_pairs(w + (ky * pairs + p) * kLanes * 2);
    };
    auto row = [&](std::size_t ky) { return (KH ? row_ptr[ky] : rows[ky]) + 2 * cb; };
    const Vec::V init = Vec::load_acc(init_values + cb);
    std::size_t ox = 0;
    for (; ox + kUnroll <= out_w; ox += kUnroll) {
      Vec::V acc[kUnroll];
      for (std::size_t u = 0; u < kUnroll; ++u) acc[u] = init;
      for (std::size_t ky = 0; ky < kh; ++ky) {
        const std::int16_t* r = row(ky) + ox * col_step;
        for (std::size_t p = 0; p < pairs; ++p) {
          const Vec::P wp = weight(ky, p);
          const std::int16_t* rp = r + p * pair_step;
          for (std::size_t u = 0; u < kUnroll; ++u) {
            acc[u] = Vec::madd(acc[u], Vec::load_pairs(rp + u * col_step), wp);
          }
        }
      }
      for (std::size_t u = 0; u < kUnroll; ++u) Vec::store_acc(acc_out + (ox + u) * cgp + cb, acc[u]);
    }
    for (; ox < out_w; ++ox) {
      Vec::V acc = init;
      for (std::size_t ky = 0; ky < kh; ++ky) {
        const std::int16_t* r = row(ky) + ox * col_step;
        for (std::size_t p = 0; p < pairs; ++p) {
          acc = Vec::madd(acc, Vec::load_pairs(r + p * pair_step), weight(ky, p));
        }
      }
      Vec::store_acc(acc_out + ox * cgp + cb, acc);
    }
  }
}

/// Picks the stride-specialised instance of a fixed window (MobileNet: strides 1 and 2,
/// dilation 1); anything else runs with stride and dilation from the arguments.
template <std::size_t KH, std::size_t KW>
void row_kernel_fixed_window(const DwRowArgs& a) {
  if (a.dilation_w == 1 && a.stride_w == 1) return row_kernel<KH, KW, 1, 1>(a);
  if (a.dilation_w == 1 && a.stride_w == 2) return row_kernel<KH, KW, 2, 1>(a);
  return row_kernel<KH, KW, 0, 0>(a);
}

inline DepthwiseKernelSet kernel_set(const char* name) {
  DepthwiseKernelSet s;
  s.isa_name = name;
  s.lanes = kLanes;
  s.convert_s8 = &convert_row<true>;
  s.convert_u8 = &convert_row<false>;
  s.row_3x3 = &row_kernel_fixed_window<3, 3>;
  s.row_5x5 = &row_kernel_fixed_window<5, 5>;
  s.row_generic = &row_kernel<0, 0, 0, 0>;
  return s;
}

}  // namespace QPARITY_DW_ISA_NS
}  // namespace internal
}  // namespace qparity
