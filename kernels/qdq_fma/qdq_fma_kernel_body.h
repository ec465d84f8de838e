// INTERNAL: the SIMD kernels of the qdq_fma family (qdq_fma_kernel.h), written once and compiled per
// ISA by qdq_fma_avx512.cc and qdq_fma_avx2.cc. Not installed.
//
// ODR: everything here depends on the -m flags of the including translation unit, so it lives in
// qparity::internal::qdq_fma::QPARITY_QDQ_FMA_NS, which each includer names differently; no
// standard-library template is used for the same reason.
//
// Register block: P pixels x NV vectors of channels, the P * NV accumulators in registers (AVX-512:
// up to 6 x 4 of 32 zmm; AVX2: up to 4 x 2 of 16 ymm); each tap loads its NV weight vectors once
// and broadcasts each pixel's input value (or, depthwise, loads the pixel's input vector). Each
// lane's FMAs are the scalar reference's, in its order: the lanes only run side by side.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/qdq_fma/qdq_fma_kernel.h"

#if !defined(QPARITY_QDQ_FMA_NS)
#error "define QPARITY_QDQ_FMA_NS before including qdq_fma_kernel_body.h"
#endif

namespace qparity::internal::qdq_fma::QPARITY_QDQ_FMA_NS {

#if defined(__AVX512F__) && defined(__FMA__)
using Vec = __m512;
constexpr std::size_t kLanes = 16;
constexpr std::size_t kMaxVectors = 4;
constexpr std::size_t kBlockPixels = 6;
inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float* p) { return _mm512_loadu_ps(p); }
inline Vec vbroadcast(float v) { return _mm512_set1_ps(v); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline void vstore(float* p, Vec v) { _mm512_storeu_ps(p, v); }
#elif defined(__AVX2__) && defined(__FMA__)
using Vec = __m256;
constexpr std::size_t kLanes = 8;
constexpr std::size_t kMaxVectors = 2;
constexpr std::size_t kBlockPixels = 4;
inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float* p) { return _mm256_loadu_ps(p); }
inline Vec vbroadcast(float v) { return _mm256_set1_ps(v); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline void vstore(float* p, Vec v) { _mm256_storeu_ps(p, v); }
#else
#error "qdq_fma_kernel_body.h needs AVX-512F + FMA or AVX2 + FMA"
#endif

static_assert(kLanePad % kLanes == 0, "a padded weight row holds whole vectors");
static_assert(kBlockPixels <= kMaxPixels, "a block fits a call");

// P pixels (from `first_pixel`) x NV vectors of lanes from c0: every K slice of every output.
template <std::size_t P, std::size_t NV, bool kMasked, bool kPerLane>
void tile(const Block& b, std::size_t first_pixel, std::size_t c0) {
  const std::ptrdiff_t* base = b.base + first_pixel;
  float* out[P];
  for (std::size_t p = 0; p < P; ++p) out[p] = b.out + b.out_row[first_pixel + p] + c0;
  const std::size_t k_end = b.k_end < b.k ? b.k_end : b.k;
  bool first = b.start == nullptr && b.k_begin == 0;
  if (b.k_begin == 0 && !first) {
    for (std::size_t p = 0; p < P; ++p) {
      for (std::size_t j = 0; j < NV; ++j) vstore(out[p] + j * kLanes, vload(b.start + c0 + j * kLanes));
    }
  } else if (first && b.k == 0) {
    for (std::size_t p = 0; p < P; ++p) {
      for (std::size_t j = 0; j < NV; ++j) vstore(out[p] + j * kLanes, vzero());
    }
  }
  for (std::size_t k0 = b.k_begin; k0 < k_end; k0 += b.slice) {
    const std::size_t k1 = k_end - k0 > b.slice ? k0 + b.slice : k_end;
    Vec acc[P][NV];
#pragma GCC unroll 8
    for (std::size_t p = 0; p < P; ++p) {
#pragma GCC unroll 4
      for (std::size_t j = 0; j < NV; ++j) acc[p][j] = vzero();
    }
    for (std::size_t k = k0; k < k1; ++k) {
      if (kMasked && b.valid[k] == 0) continue;  // a padded tap: the reference adds nothing
      const float* wk = b.w + k * b.ldw + c0;
      Vec wv[NV];
#pragma GCC unroll 4
      for (std::size_t j = 0; j < NV; ++j) wv[j] = vload(wk + j * kLanes);
      const std::ptrdiff_t off = b.offsets[k];
#pragma GCC unroll 8
      for (std::size_t p = 0; p < P; ++p) {
        const float* xp = b.x + (base[p] + off);
        if (kPerLane) {
#pragma GCC unroll 4
          for (std::size_t j = 0; j < NV; ++j) acc[p][j] = vfma(vload(xp + c0 + j * kLanes), wv[j], acc[p][j]);
        } else {
          const Vec xv = vbroadcast(*xp);
#pragma GCC unroll 4
          for (std::size_t j = 0; j < NV; ++j) acc[p][j] = vfma(xv, wv[j], acc[p][j]);
        }
      }
    }
#pragma GCC unroll 8
    for (std::size_t p = 0; p < P; ++p) {
#pragma GCC unroll 4
      for (std::size_t j = 0; j < NV; ++j) {
        float* o = out[p] + j * kLanes;
        vstore(o, first ? acc[p][j] : vadd(vload(o), acc[p][j]));
      }
    }
    first = false;
  }
}

template <std::size_t P, std::size_t NV>
void tile_of(const Block& b, std::size_t first_pixel, std::size_t c0) {
  if (b.valid != nullptr) {
    if (b.x_per_lane) return tile<P, NV, true, true>(b, first_pixel, c0);
    return tile<P, NV, true, false>(b, first_pixel, c0);
  }
  if (b.x_per_lane) return tile<P, NV, false, true>(b, first_pixel, c0);
  tile<P, NV, false, false>(b, first_pixel, c0);
}

template <std::size_t P>
void tile_pixels(const Block& b, std::size_t first_pixel, std::size_t c0, std::size_t vectors) {
  switch (vectors) {
    case 1:
      return tile_of<P, 1>(b, first_pixel, c0);
    case 2:
      return tile_of<P, 2>(b, first_pixel, c0);
#if defined(__AVX512F__)
    case 3:
      return tile_of<P, 3>(b, first_pixel, c0);
    default:
      return tile_of<P, 4>(b, first_pixel, c0);
#else
    default:
      return tile_of<P, 2>(b, first_pixel, c0);
#endif
  }
}

void run_block(const Block& b) {
  for (std::size_t p0 = 0; p0 < b.pixels; p0 += kBlockPixels) {
    const std::size_t pixels = b.pixels - p0 < kBlockPixels ? b.pixels - p0 : kBlockPixels;
    for (std::size_t c0 = 0; c0 < b.lanes; c0 += kMaxVectors * kLanes) {
      std::size_t vectors = (b.lanes - c0 + kLanes - 1) / kLanes;
      if (vectors > kMaxVectors) vectors = kMaxVectors;
      switch (pixels) {
        case 1:
          tile_pixels<1>(b, p0, c0, vectors);
          break;
        case 2:
          tile_pixels<2>(b, p0, c0, vectors);
          break;
        case 3:
          tile_pixels<3>(b, p0, c0, vectors);
          break;
        case 4:
          tile_pixels<4>(b, p0, c0, vectors);
          break;
#if defined(__AVX512F__)
        case 5:
          tile_pixels<5>(b, p0, c0, vectors);
          break;
        default:
          tile_pixels<6>(b, p0, c0, vectors);
          break;
#else
        default:
          tile_pixels<4>(b, p0, c0, vectors);
          break;
#endif
      }
    }
  }
}

}  // namespace qparity::internal::qdq_fma::QPARITY_QDQ_FMA_NS
