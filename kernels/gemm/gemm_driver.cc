// The GEMM driver: splits C into independent mc x nc tiles, packs A per (tile, K block) into the
// micro-kernel's format, runs the micro-kernel over the tile, then forms the exact accumulator of
// the chosen model and requantizes. Under the int32-folded plan with an EpiloguePlan (the common
// case, kernels/gemm/gemm_epilogue.h) each MR x NR block is requantized right after its last K
// block, from L1, with parameters prepared at packing time (on AVX-512 VNNI by the micro-kernel
// itself, from registers: FusedFn); otherwise the whole tile is requantized by a separate pass
// with the SIMD rounding-core kernels while it is still in cache.
//
// The identity everything rests on (all terms exact in int64, or modulo 2^32 for the int32 model):
//   sum_k (a - za)(b - zb) = raw - (c + za) * colsum_b - zb * rowsum_a + K * za * zb
// where raw = sum_k (a + c) * b is what the micro-kernel computes and c is the format's activation
// offset (128 for int8 activations on the VPDPBUSD / VPMADDUBSW formats, else 0). For the
// pairsat16 model, raw is the pair-saturated sum and the same correction is exactly how
// Int16PairSaturatingAccumulator defines the result.
//
// A is a strided matrix (gemm) or an indirection source (implicit-GEMM convolution,
// gemm_driver.h): an indirect row block is gathered once per row block into a dense rows x K
// buffer, which then serves packing, the row statistics and the saturating fallback exactly as a
// strided A does.
#include "kernels/gemm/gemm_driver.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dispatch/run_tiles_threaded.h"
#include "kernels/gemm/pack_dot4.h"
#include "kernels/gemm/packed_gemm_data.h"
#include "qparity/error.h"
#include "qparity/gemm.h"
#include "qparity/policies.h"
#include "qparity/type_pairs.h"
#include "rounding/output_stage_plan.h"
#include "rounding/requantize_kernel.h"

namespace qparity {
namespace internal {
namespace {

/// Per-thread working memory, reused across calls (no allocation in steady state).
struct Scratch {
  AlignedBuffer<std::uint8_t> a_packed;
  AlignedBuffer<std::uint8_t> a_gathered;  // rows x K of an indirect A (the current row block)
  std::vector<std::uint8_t> pad_segment;             // seg copies of an indirect A's pad value
  std::vector<const std::uint8_t*> segment_table;    // an indirect A's segments: [tap][MR] per row group
  AlignedBuffer<std::uint8_t> acc32;   // mc x nc int32
  AlignedBuffer<std::uint8_t> acc64;   // mc x nc int64 (wide model with K > kMaxKBlock)
  AlignedBuffer<std::uint8_t> staged;  // mc x nc int32 handed to the requantizer (wide models)
  std::vector<std::int64_t> row_sum;
  std::vector<std::int64_t> row_max_abs;
  std::vector<std::int32_t> col_init;
  std::vector<std::int32_t> row_init;
  struct Wide {
    std::size_t i, j;
    std::int64_t v;
  };
  std::vector<Wide> exceptions;
};

Scratch& scratch() {
  static thread_local Scratch s;
  return s;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Largest MR of any micro-kernel (AMX: 32).
constexpr std::size_t kMaxMr = 32;

// Both kernels of a PackedGemm share one packing format, so the offset depends only on d.
template <class AType>
std::int32_t activation_offset(const PackedGemmData& d) {
  return (std::is_signed<AType>::value && d.kernel.format == PackFormat::kDot4) ? 128 : 0;
}

/// Packs rows [0, rows) of `a` (row stride lda), K range [k0, k0 + kgroups * G) clipped to K,
/// into MR-row groups of the kernel's format; rows up to a multiple of MR are zero.
template <class AType>
void pack_a(const PackedGemmData& d, std::size_t MR, const AType* a, std::size_t lda,
            std::size_t rows, std::size_t k0, std::size_t kgroups, std::uint8_t* dst,
            std::size_t* row_bytes_out) {
  const std::size_t K = d.k, G = d.group;
  const std::size_t groups_of_rows = ceil_div(rows, MR);
  switch (d.kernel.format) {
    case PackFormat::kDot4: {
      // Each row's K bytes become dwords at a stride of MR dwords; the +128 of int8 activations
      // is an XOR of the sign bits (a + 128 mod 256 = a ^ 0x80), four bytes at a time.
      const std::uint32_t flip = activation_offset<AType>(d) ? 0x80808080u : 0u;
      const std::size_t k_end = std::min(K, k0 + kgroups * 4);
      const std::size_t full = (k_end - k0) / 4;  // groups entirely inside K
      const std::uint8_t* row_ptr[kMaxMr];
      for (std::size_t rg = 0; rg < groups_of_rows; ++rg) {
        std::uint8_t* out = dst + rg * kgroups * MR * 4;
        for (std::size_t r = 0; r < MR; ++r) {
          const std::size_t row = rg * MR + r;
          row_ptr[r] = row < rows ? reinterpret_cast<const std::uint8_t*>(a + row * lda) + k0 : nullptr;
        }
        pack_dot4_run(row_ptr, MR, full, flip, out);
        for (std::size_t r = 0; r < MR; ++r) {
          const std::size_t row = rg * MR + r;
          if (row >= rows) {
            for (std::size_t g = full; g < kgroups; ++g) std::memset(out + (g * MR + r) * 4, 0, 4);
            continue;
          }
          const std::uint8_t* src = row_ptr[r];
          for (std::size_t g = full; g < kgroups; ++g) {  // the partial last group, then zeros
            std::uint8_t* o = out + (g * MR + r) * 4;
            for (std::size_t t = 0; t < 4; ++t) {
              const std::size_t k = k0 + g * 4 + t;
              o[t] = k < K ? static_cast<std::uint8_t>(src[g * 4 + t] ^ static_cast<std::uint8_t>(flip)) : 0;
            }
          }
        }
      }
      break;
    }
    case PackFormat::kPairs16: {
      const std::size_t k_end = std::min(K, k0 + kgroups * 2);
      const std::size_t full = (k_end - k0) / 2;
      for (std::size_t rg = 0; rg < groups_of_rows; ++rg) {
        auto* out = reinterpret_cast<std::int16_t*>(dst) + rg * kgroups * MR * 2;
        for (std::size_t r = 0; r < MR; ++r) {
          const std::size_t row = rg * MR + r;
          if (row >= rows) {
            for (std::size_t g = 0; g < kgroups; ++g) out[(g * MR + r) * 2] = out[(g * MR + r) * 2 + 1] = 0;
            continue;
          }
          const AType* src = a + row * lda + k0;
          for (std::size_t g = 0; g < full; ++g) {
            out[(g * MR + r) * 2] = static_cast<std::int16_t>(src[g * 2]);
            out[(g * MR + r) * 2 + 1] = static_cast<std::int16_t>(src[g * 2 + 1]);
          }
          for (std::size_t g = full; g < kgroups; ++g) {
            for (std::size_t t = 0; t < 2; ++t) {
              const std::size_t k = k0 + g * 2 + t;
              out[(g * MR + r) * 2 + t] = k < K ? static_cast<std::int16_t>(src[g * 2 + t]) : 0;
            }
          }
        }
      }
      break;
    }
    case PackFormat::kRows64: {
      const std::size_t row_bytes = (kgroups * 4 + 63) / 64 * 64;
      *row_bytes_out = row_bytes;
      for (std::size_t r = 0; r < groups_of_rows * MR; ++r) {
        std::uint8_t* o = dst + r * row_bytes;
        std::memset(o, 0, row_bytes);
        if (r >= rows) continue;
        const std::size_t len = std::min(kgroups * 4, K - k0);
        std::memcpy(o, a + r * lda + k0, len);
      }
      break;
    }
  }
  (void)G;
}

std::int8_t packed_b_at(const PackedGemmData& d, std::size_t k, std::size_t j) {
  const std::uint8_t* panel = d.b_packed.data() + (j / kPanelCols) * d.panel_stride;
  const std::size_t slot = ((k / d.group) * kPanelCols + j % kPanelCols) * d.group + k % d.group;
  if (d.kernel.format == PackFormat::kPairs16) {
    std::int16_t v;
    std::memcpy(&v, panel + slot * 2, 2);
    return static_cast<std::int8_t>(v);
  }
  return static_cast<std::int8_t>(panel[slot]);
}

/// The SaturatingAccumulator definition for one element whose partial sums may leave the range:
/// products in index order, each addition clamped (accumulator.h, detail::saturating_dot).
template <class AType>
std::int64_t saturating_element(const PackedGemmData& d, const AType* a_row, std::int32_t za,
                                std::size_t j) {
  struct Column {
    const PackedGemmData* d;
    std::size_t j;
    std::int8_t operator[](std::size_t k) const { return packed_b_at(*d, k, j); }
  };
  return detail::saturating_dot(d.accumulator.bits, a_row, Column{&d, j}, d.k, za,
                                d.b_zero_point[j], d.bias[j]);
}

/// The reference's requantization of a wide (> int32) accumulator (reference_gemm.h gemm_loop).
template <class Out>
Out requantize_wide_element(const PackedGemmData& d, std::int64_t v, std::size_t j,
                            const OutputParams& o) {
  const RequantParams& p = d.params[d.per_channel ? j : 0];
  return visit_rounding_core(d.core, [&](auto policy) -> Out {
    using Policy = decltype(policy);
    std::int64_t r;
    if constexpr (!Policy::kAcceptsWideInput) {
      return saturating_cast<Out>(requantize_to_output<Policy>(wrap_to_int32(v), p, o));
    } else if constexpr (Policy::kZeroPointInside) {
      r = Policy::requantize_wide_with_zero_point(v, p, o.zero_point);
    } else {
      r = static_cast<std::int64_t>(Policy::requantize_wide(v, p)) + o.zero_point;
    }
    return saturating_cast<Out>(static_cast<std::int32_t>(clamp_i64(r, o.qmin, o.qmax)));
  });
}

/// Copies n >= 1 bytes with constant-size moves: 16-byte moves whose last one overlaps
/// the one before it (n > 16), two overlapping 8-byte (8..16) or 4-byte (4..7) moves, or up to
/// three single bytes. Meant for a constant n (span_run below): with n known only at run time
/// GCC's code for the same lines was 1.6x slower on the gather (run-time memcpy: a library call).
inline void copy_short(unsigned char* dst, const unsigned char* src, std::size_t n) {
  if (n > 16) {
    for (std::size_t i = 0; i + 16 < n; i += 16) std::memcpy(dst + i, src + i, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

/// A run of gathered rows whose filter windows lie wholly inside the image, with contiguous filter
/// rows (ImplicitWindow, dilation_w 1, ungrouped): row q is kernel_h spans of kSpan bytes (kSpan
/// == 0: `span`, at run time), span ky from p + q * pixel_step + ky * line_step, then zeros up to
/// ldd (at most 3 of them when short_tail: one 4-byte store the spans then partly overwrite).
struct SpanRun {
  unsigned char* out;
  const unsigned char* p;
  std::size_t rows, ldd, k, span, kernel_h;
  std::ptrdiff_t line_step, pixel_step;
  bool short_tail;
};

template <std::size_t kSpan>
void span_run(const SpanRun& r) {
  // (Locals: the byte stores may alias r.)
  const std::size_t span = kSpan != 0 ? kSpan : r.span, kernel_h = r.kernel_h, ldd = r.ldd;
  const std::size_t rows = r.rows, k = r.k;
  const bool short_tail = r.short_tail;
  const std::ptrdiff_t line_step = r.line_step, pixel_step = r.pixel_step;
  unsigned char* out = r.out;
  const unsigned char* p = r.p;
  for (std::size_t q = 0; q < rows; ++q, out += ldd, p += pixel_step) {
    if (short_tail) std::memset(out + ldd - 4, 0, 4);
    for (std::size_t ky = 0; ky < kernel_h; ++ky) {
      copy_short(out + ky * span, p + static_cast<std::ptrdiff_t>(ky) * line_step, span);
    }
    if (!short_tail) std::memset(out + k, 0, ldd - k);
  }
}

using SpanRunFn = void (*)(const SpanRun&);

template <std::size_t... I>
constexpr std::array<SpanRunFn, sizeof...(I) + 1> span_run_table(std::index_sequence<I...>) {
  return {&span_run<0>, &span_run<I + 1>...};
}

/// span_run for spans of 1..32 bytes as constants (a 3x3 filter over 1..10 channels, 5x5 over
/// 1..6, 7x7 over 1..4), any other at run time.
constexpr std::size_t kConstantSpans = 32;
constexpr std::array<SpanRunFn, kConstantSpans + 1> kSpanRuns =
    span_run_table(std::make_index_sequence<kConstantSpans>());

/// Where an indirect A's output pixel r (within its image) starts reading: the input row and
/// column of its tap (0, 0), and the following pixel, row-major (so a caller walks the rows).
struct WindowCursor {
  const ImplicitWindow* w;
  std::size_t oy, ox;

  WindowCursor(const ImplicitWindow& window, std::size_t r)
      : w(&window), oy(r / window.out_w), ox(r % window.out_w) {}
  std::ptrdiff_t iy0() const {
    return static_cast<std::ptrdiff_t>(oy * w->stride_h) - static_cast<std::ptrdiff_t>(w->pad_top);
  }
  std::ptrdiff_t ix0() const {
    return static_cast<std::ptrdiff_t>(ox * w->stride_w) - static_cast<std::ptrdiff_t>(w->pad_left);
  }
  /// Moves to the next output pixel; true when that starts a new image.
  bool next(std::size_t rows_per_image) {
    if (++ox == w->out_w) {
      ox = 0;
      if (++oy * w->out_w == rows_per_image) {
        oy = 0;
        return true;
      }
    }
    return false;
  }
  /// Moves n >= 1 pixels along the current output row (ox + n <= out_w); true when that starts a
  /// new image.
  bool skip(std::size_t n, std::size_t rows_per_image) {
    ox += n - 1;
    return next(rows_per_image);
  }
};

/// What the gather and the segment table derive from an ImplicitWindow, in signed element units
/// (pixel_stride values per pixel).
struct WindowSteps {
  std::ptrdiff_t in_h, in_w, ps;
  std::ptrdiff_t x_reach, y_reach;  ///< (kernel - 1) * dilation: the window's extent past tap 0
  std::ptrdiff_t line_step;         ///< between filter rows (dilation_h input rows)
  std::ptrdiff_t tap_step;          ///< between taps of a filter row (dilation_w pixels)
  std::ptrdiff_t pixel_step;        ///< between consecutive output pixels of a row (stride_w)
  /// Output columns [ox_lo, ox_hi) have their whole filter row inside the image:
  /// 0 <= ox * stride_w - pad_left and ox * stride_w - pad_left + x_reach < in_w.
  std::size_t ox_lo, ox_hi;

  explicit WindowSteps(const ImplicitWindow& w)
      : in_h(static_cast<std::ptrdiff_t>(w.in_h)),
        in_w(static_cast<std::ptrdiff_t>(w.in_w)),
        ps(static_cast<std::ptrdiff_t>(w.pixel_stride)),
        x_reach(static_cast<std::ptrdiff_t>((w.kernel_w - 1) * w.dilation_w)),
        y_reach(static_cast<std::ptrdiff_t>((w.kernel_h - 1) * w.dilation_h)),
        line_step(static_cast<std::ptrdiff_t>(w.dilation_h) * in_w * ps),
        tap_step(static_cast<std::ptrdiff_t>(w.dilation_w) * ps),
        pixel_step(static_cast<std::ptrdiff_t>(w.stride_w) * ps),
        ox_lo(std::min(w.out_w, ceil_div(w.pad_left, w.stride_w))) {
    const std::ptrdiff_t last_x = in_w - 1 - x_reach + static_cast<std::ptrdiff_t>(w.pad_left);
    ox_hi = last_x < 0 ? 0 : std::min(w.out_w, static_cast<std::size_t>(last_x) / w.stride_w + 1);
  }
  /// Every filter row of a window whose tap (0, 0) is on input row iy0 is inside the image.
  bool rows_inside(std::ptrdiff_t iy0) const { return iy0 >= 0 && iy0 + y_reach < in_h; }
};

/// Copies rows [i0, i0 + rows) of an indirect A with segments of kSeg bytes (kSeg > 0) or of
/// src.seg bytes (kSeg == 0) into dst: each row is its segments one after the other, a padded
/// segment filled with the pad value, then zeros up to the row stride ldd. Small segments (a
/// 3-channel input layer: 3 bytes) are copied with constant-size moves; a run-time-sized memcpy
/// there is a library call per segment (measured: 44 % of MobileNet v2's 224x224x3 -> 32 layer).
/// A filter row inside the image whose taps are contiguous (dilation 1, segments as wide as the
/// pixel: an ungrouped convolution) is one span of kernel_w * seg bytes, copied at once; a filter
/// row above or below the image is all padding; consecutive rows whose windows are wholly inside
/// are copied by one span_run. MobileNet v2's first layer (3 spans of 9 bytes per row), gather
/// alone: 124 us per call with 9 table-read taps per row, 29 us with span runs.
template <std::size_t kSeg, class AType>
void gather_rows_seg(const AOperand<AType>& src, std::size_t i0, std::size_t rows, AType* dst,
                     std::size_t ldd) {
  // Local copies: every byte stored through `out` may alias the window and the operand, so
  // fields read through them would be reloaded after each store.
  const ImplicitWindow w = *src.window;
  const std::size_t rows_per_image = src.rows_per_image, image_stride = src.image_stride;
  const AType* const a = src.a;
  const std::size_t seg = kSeg != 0 ? kSeg : src.seg, k = seg * src.taps, span = w.kernel_w * seg;
  const bool row_spans = w.dilation_w == 1 && w.pixel_stride == seg;
  const unsigned char pad = static_cast<unsigned char>(src.pad);
  const WindowSteps g(w);
  const std::ptrdiff_t in_h = g.in_h, in_w = g.in_w, ps = g.ps;
  // The zeros past K go first, as one 4-byte store that the row's values then partly overwrite
  // (rows padded to whole K groups have at most 3); a byte loop becomes a memset call per row.
  const bool short_tail = ldd - k <= 4 && ldd >= 4;
  std::size_t image = i0 / rows_per_image;
  WindowCursor at(w, i0 % rows_per_image);
  for (std::size_t row = 0; row < rows;) {
    const auto* base = reinterpret_cast<const unsigned char*>(a + image * image_stride);
    auto* out = reinterpret_cast<unsigned char*>(dst + row * ldd);
    const std::ptrdiff_t iy0 = at.iy0(), ix0 = at.ix0();
    if (row_spans && g.rows_inside(iy0) && at.ox >= g.ox_lo && at.ox < g.ox_hi) {
      // The pixels from here to ox_hi (or the last row) have their windows wholly inside.
      SpanRun run;
      run.out = out;
      run.p = base + (iy0 * in_w + ix0) * ps;
      run.rows = std::min(rows - row, g.ox_hi - at.ox);
      run.ldd = ldd;
      run.k = k;
      run.span = span;
      run.kernel_h = w.kernel_h;
      run.line_step = g.line_step;
      run.pixel_step = g.pixel_step;
      run.short_tail = short_tail;
      kSpanRuns[span <= kConstantSpans ? span : 0](run);
      row += run.rows;
      if (at.skip(run.rows, rows_per_image)) ++image;
      continue;
    }
    if (short_tail) std::memset(out + ldd - 4, 0, 4);
    const bool x_inside = ix0 >= 0 && ix0 + g.x_reach < in_w;
    for (std::size_t ky = 0; ky < w.kernel_h; ++ky) {
      const std::ptrdiff_t iy = iy0 + static_cast<std::ptrdiff_t>(ky * w.dilation_h);
      if (iy < 0 || iy >= in_h) {
        for (std::size_t kx = 0; kx < w.kernel_w; ++kx, out += seg) std::memset(out, pad, seg);
        continue;
      }
      const unsigned char* line = base + iy * in_w * ps;
      if (x_inside && row_spans) {
        copy_short(out, line + ix0 * ps, span);
        out += span;
        continue;
      }
      for (std::size_t kx = 0; kx < w.kernel_w; ++kx, out += seg) {
        const std::ptrdiff_t ix = ix0 + static_cast<std::ptrdiff_t>(kx * w.dilation_w);
        if (ix >= 0 && ix < in_w) {
          std::memcpy(out, line + ix * ps, seg);
        } else {
          std::memset(out, pad, seg);
        }
      }
    }
    if (!short_tail) std::memset(out, 0, ldd - k);
    if (at.next(rows_per_image)) ++image;
    ++row;
  }
}

/// Copies rows [i0, i0 + rows) of an indirect A into dst (rows x K, row stride ldd >= K, the
/// bytes past K zero).
template <class AType>
void gather_rows(const AOperand<AType>& src, std::size_t i0, std::size_t rows, AType* dst, std::size_t ldd) {
  static_assert(sizeof(AType) == 1, "segments are counted in bytes");
  switch (src.seg) {
    case 1: return gather_rows_seg<1>(src, i0, rows, dst, ldd);
    case 2: return gather_rows_seg<2>(src, i0, rows, dst, ldd);
    case 3: return gather_rows_seg<3>(src, i0, rows, dst, ldd);
    case 4: return gather_rows_seg<4>(src, i0, rows, dst, ldd);
    case 5: return gather_rows_seg<5>(src, i0, rows, dst, ldd);
    case 6: return gather_rows_seg<6>(src, i0, rows, dst, ldd);
    case 7: return gather_rows_seg<7>(src, i0, rows, dst, ldd);
    case 8: return gather_rows_seg<8>(src, i0, rows, dst, ldd);
    default: return gather_rows_seg<0>(src, i0, rows, dst, ldd);
  }
}

/// The segment pointers of an indirect A's rows [i0, i0 + rows) into s.segment_table, for a kernel
/// that reads them in place (UkernelArgs::a_segments) or for packing: for each MR-row group, taps x
/// MR pointers, tap-major; rows past `rows` repeat the group's first row (their sums are padding),
/// a padded tap points at s.pad_segment.
template <class AType>
void build_segment_table(std::size_t MR, const AOperand<AType>& src, std::size_t i0,
                         std::size_t rows, Scratch& s) {
  const std::size_t taps = src.taps, groups = ceil_div(rows, MR);
  s.pad_segment.assign(src.seg, static_cast<std::uint8_t>(src.pad));
  s.segment_table.resize(groups * taps * MR);
  const ImplicitWindow w = *src.window;  // (local: the table's pointer stores may alias)
  const std::uint8_t* const pad = s.pad_segment.data();
  const WindowSteps g(w);
  const std::ptrdiff_t in_h = g.in_h, in_w = g.in_w, ps = g.ps;
  const std::size_t kernel_h = w.kernel_h, kernel_w = w.kernel_w;
  std::size_t image = i0 / src.rows_per_image;
  WindowCursor at(w, i0 % src.rows_per_image);
  for (std::size_t rg = 0; rg < groups; ++rg) {
    const std::uint8_t** table = s.segment_table.data() + rg * taps * MR;
    const std::ptrdiff_t iy0 = at.iy0();
    if ((rg + 1) * MR <= rows && g.rows_inside(iy0) && at.ox >= g.ox_lo && at.ox + MR <= g.ox_hi) {
      // MR pixels of one output row, every window inside (most groups): tap t of row r is tap t
      // of row 0 plus r pixel steps, MR pointers in a row of the table (a loop that vectorises;
      // pixel by pixel this table was ~5 % of a 56x56x64 3x3 convolution).
      const auto* base = reinterpret_cast<const std::uint8_t*>(src.a + image * src.image_stride);
      std::ptrdiff_t line = (iy0 * in_w + at.ix0()) * ps;
      const std::uint8_t** entry = table;
      for (std::size_t ky = 0; ky < kernel_h; ++ky, line += g.line_step) {
        for (std::size_t kx = 0; kx < kernel_w; ++kx, entry += MR) {
          const std::uint8_t* first = base + line + static_cast<std::ptrdiff_t>(kx) * g.tap_step;
          for (std::size_t r = 0; r < MR; ++r) {
            entry[r] = first + static_cast<std::ptrdiff_t>(r) * g.pixel_step;
          }
        }
      }
      if (at.skip(MR, src.rows_per_image)) ++image;
      continue;
    }
    for (std::size_t r = 0; r < MR; ++r) {
      if (rg * MR + r >= rows) {
        for (std::size_t t = 0; t < taps; ++t) table[t * MR + r] = table[t * MR];
        continue;
      }
      const auto* base = reinterpret_cast<const std::uint8_t*>(src.a + image * src.image_stride);
      const std::ptrdiff_t iy0 = at.iy0(), ix0 = at.ix0();
      // (Groups at the image's borders, across output rows or past the last row.)
      const std::uint8_t** entry = table + r;
      for (std::size_t ky = 0; ky < kernel_h; ++ky) {
        const std::ptrdiff_t iy = iy0 + static_cast<std::ptrdiff_t>(ky * w.dilation_h);
        const bool row_inside = iy >= 0 && iy < in_h;
        for (std::size_t kx = 0; kx < kernel_w; ++kx, entry += MR) {
          const std::ptrdiff_t ix = ix0 + static_cast<std::ptrdiff_t>(kx * w.dilation_w);
          *entry = row_inside && ix >= 0 && ix < in_w ? base + (iy * in_w + ix) * ps : pad;
        }
      }
      if (at.next(src.rows_per_image)) ++image;
    }
  }
}

/// Packs an indirect A's rows [i0, i0 + rows) for the kDot4 format straight from the input, all K
/// blocks (block b at dst + b * full_block_bytes, kc groups per full block), when every segment is
/// a whole number of K groups (seg % 4 == 0): each (segment, K block) run of one MR-row group is
/// one pack_dot4_run over that segment's row pointers. Same bytes as pack_a on the gathered rows
/// (rows past `rows` are zeros).
template <class AType>
void pack_a_from_segments(const PackedGemmData& d, std::size_t MR, const AOperand<AType>& src,
                          std::size_t i0, std::size_t rows, std::size_t kc,
                          std::size_t full_block_bytes, std::uint8_t* dst, Scratch& s) {
  const std::uint32_t flip = activation_offset<AType>(d) ? 0x80808080u : 0u;
  const std::size_t taps = src.taps, sg = src.seg / 4;
  build_segment_table(MR, src, i0, rows, s);
  const std::uint8_t* row_ptr[kMaxMr];
  for (std::size_t rg = 0; rg < ceil_div(rows, MR); ++rg) {
    const std::uint8_t* const* table = s.segment_table.data() + rg * taps * MR;
    for (std::size_t g = 0; g < d.kgroups;) {
      const std::size_t block = g / kc, gi = g % kc, t = g / sg, q = g % sg;
      const std::size_t len = std::min(sg - q, kc - gi);
      const std::size_t kg = std::min(kc, d.kgroups - block * kc);  // groups in this block
      for (std::size_t r = 0; r < MR; ++r) {
        row_ptr[r] = rg * MR + r < rows ? table[t * MR + r] + q * 4 : nullptr;
      }
      pack_dot4_run(row_ptr, MR, len, flip,
                    dst + block * full_block_bytes + (rg * kg + gi) * MR * 4);
      g += len;
    }
  }
}

/// The fused epilogue's output stage constants (rounding/output_stage_plan.h, as the SIMD
/// requantization kernels use them).
void epilogue_output_stage(const OutputParams& o, bool zero_point_inside, EpilogueArgs& e) {
  const OutputStagePlan plan = plan_output_stage(o, zero_point_inside);
  e.lo = plan.lo;
  e.hi = plan.hi;
  e.add = plan.add;
  e.zero_point = static_cast<float>(o.zero_point);
}

template <class AType, class Out>
void run_tile(const PackedGemmData& d, const AOperand<AType>& src, std::size_t m, std::int32_t za,
              const OutputParams& output, Out* c_base, std::size_t ldc, std::size_t tile,
              bool rows_ready) {
  static_assert(sizeof(AType) == 1, "gather_rows and pack_a copy bytes");
  Scratch& s = scratch();
  const Blocking bk = blocking_for(d, m);
  const Ukernel& kernel = *bk.kernel;
  const std::size_t tiles_n = ceil_div(d.n, bk.nc);
  const std::size_t i0 = (tile / tiles_n) * bk.mc, j0 = (tile % tiles_n) * bk.nc;
  const std::size_t rows = std::min(bk.mc, m - i0), cols = std::min(bk.nc, d.n - j0);
  const std::size_t MR = kernel.mr, NR = kernel.nr;
  const std::size_t rows_pad = ceil_div(rows, MR) * MR, cols_pad = ceil_div(cols, NR) * NR;
  const std::size_t ld = cols_pad;
  const bool folded = d.plan == AccumulationPlan::kFoldedInt32;
  // An indirect A whose segments are whole K groups of the kDot4 format, under a model that needs
  // no whole-row statistic (int32-folded, no weight zero point: no row sums, no saturation), is
  // packed straight from its segments; any other indirect A is first gathered into a rows x K
  // copy that then serves packing, row sums and the saturating fallback like a strided A.
  const bool pack_from_segments = src.indirect() && folded && !d.has_b_zero_point &&
                                  d.kernel.format == PackFormat::kDot4 && src.seg % 4 == 0;
  // The tile's rows as a strided matrix: A itself, or the gathered copy of an indirect row block
  // (made by the first tile of the row block, reused by the next ones: rows_ready).
  const AType* a = nullptr;
  std::size_t lda = 0;
  if (!src.indirect()) {
    a = src.a + i0 * src.lda;
    lda = src.lda;
  } else if (!pack_from_segments) {
    // Rows padded to whole K groups for a kernel that reads A in place (direct_a below, which
    // holds for every gathered A when the kernel can).
    lda = kernel.direct_a ? ceil_div(d.k, 4) * 4 : d.k;
    if (!rows_ready) {
      s.a_gathered.resize(rows * lda);
      gather_rows(src, i0, rows, reinterpret_cast<AType*>(s.a_gathered.data()), lda);
    }
    a = reinterpret_cast<const AType*>(s.a_gathered.data());
  }
  const std::int64_t c_off = activation_offset<AType>(d);
  const bool wide_chunks = !folded && d.k > kMaxKBlock;
  const bool is_sat = d.accumulator.kind == AccumulatorKind::kSaturating;

  // Everything that depends only on the tile's rows is prepared once per row block and reused by
  // the following tiles of the same rows (rows_ready): A packed for the whole K, K block after
  // K block, and the row statistics (sums for the weight zero point / wide correction, maximum
  // |a - za| for the saturation bound).
  const bool rows64 = d.kernel.format == PackFormat::kRows64;
  auto block_bytes = [&](std::size_t kg) {
    return rows64 ? rows_pad * ((kg * 4 + 63) / 64 * 64) : rows_pad * kg * 4;
  };
  // A strided A whose rows are whole K groups is read in place by a kernel that can (no packing:
  // the kernel broadcasts each row's 4 bytes straight from A, XORing the +128 of int8 activations);
  // so is the gathered copy of an indirect A, its rows padded to whole groups (B is zero past K,
  // so the padding bytes add nothing). Measured on MobileNet v2's 224x224x3 -> 32 3x3 stride 2
  // layer (K = 27): packing was 16 % of it.
  const bool direct_a = kernel.direct_a && (src.indirect() ? !pack_from_segments : d.k % 4 == 0);
  // So is an indirect A whose segments are whole K groups, through a table of segment pointers,
  // with K blocks of whole segments. Packing costs in proportion to 1 / N (a packed row block
  // serves every column block): measured, 56x56x64->64 3x3 +7 %, the 128..512-channel 3x3 layers
  // unchanged.
  const std::size_t seg_groups = src.indirect() ? src.seg / 4 : 0;
  const bool direct_segments =
      kernel.direct_a && pack_from_segments && seg_groups <= bk.kc;
  const std::size_t kc = direct_segments ? bk.kc / seg_groups * seg_groups : bk.kc;
  const std::size_t full_block_bytes = block_bytes(kc);
  if (!rows_ready) {
    const bool need_row_sum = d.has_b_zero_point || !folded;
    if (need_row_sum || is_sat) {  // (the only readers of row_sum / row_max_abs)
      s.row_sum.assign(rows, 0);
      s.row_max_abs.assign(rows, 0);
      for (std::size_t r = 0; r < rows; ++r) {
        std::int64_t sum = 0, mx = 0;
        const AType* src = a + r * lda;
        for (std::size_t k = 0; k < d.k; ++k) {
          sum += src[k];
          const std::int64_t v = static_cast<std::int64_t>(src[k]) - za;
          mx = std::max(mx, v < 0 ? -v : v);
        }
        s.row_sum[r] = sum;
        s.row_max_abs[r] = mx;
      }
    }
    const std::size_t blocks = (direct_a || direct_segments) ? 0 : ceil_div(d.kgroups, kc);
    s.a_packed.resize(full_block_bytes * blocks);
    if (direct_segments) {
      build_segment_table(MR, src, i0, rows, s);
    } else if (pack_from_segments) {
      pack_a_from_segments(d, MR, src, i0, rows, kc, full_block_bytes, s.a_packed.data(), s);
    }
    for (std::size_t b = 0; b < blocks && !pack_from_segments; ++b) {
      const std::size_t g0 = b * kc, kg = std::min(kc, d.kgroups - g0);
      std::size_t row_bytes = 0;
      pack_a(d, MR, a, lda, rows, g0 * d.group, kg, s.a_packed.data() + b * full_block_bytes, &row_bytes);
    }
  }

  // Initial values folded into the micro-kernel (int32 model): everything but the products.
  const std::int32_t* col_init = nullptr;
  const std::int32_t* row_init = nullptr;
  if (folded) {
    s.col_init.resize(cols_pad);
    const std::int32_t* base =
        (c_off != 0 ? d.col_base_signed.data() : d.col_base_unsigned.data()) + j0;
    const std::int32_t* coef = d.col_coef.data() + j0;
    const std::uint32_t uza = static_cast<std::uint32_t>(za);
    for (std::size_t jj = 0; jj < cols; ++jj) {
      s.col_init[jj] = static_cast<std::int32_t>(static_cast<std::uint32_t>(base[jj]) +
                                                 uza * static_cast<std::uint32_t>(coef[jj]));
    }
    for (std::size_t jj = cols; jj < cols_pad; ++jj) s.col_init[jj] = 0;
    col_init = s.col_init.data();
    if (d.has_b_zero_point && !d.b_zero_point_per_channel) {
      s.row_init.assign(rows_pad, 0);
      for (std::size_t r = 0; r < rows; ++r) {
        s.row_init[r] = wrap_to_int32(-static_cast<std::int64_t>(d.b_zero_point[0]) * s.row_sum[r]);
      }
      row_init = s.row_init.data();
    }
  }

  s.acc32.resize(rows_pad * ld * sizeof(std::int32_t));
  auto* acc = reinterpret_cast<std::int32_t*>(s.acc32.data());
  if (wide_chunks) {
    s.acc64.resize(rows_pad * ld * sizeof(std::int64_t));
    std::memset(s.acc64.data(), 0, s.acc64.size());
  }
  auto* acc64 = reinterpret_cast<std::int64_t*>(s.acc64.data());

  // The fused epilogue (gemm_epilogue.h): each MR x NR block is requantized right after its last
  // K block, from L1. With a single K block the blocks need not outlive their epilogue, so they
  // all use the first MR x NR of the buffer (ldc = NR) and stay in L1.
  Out* dst = c_base + i0 * ldc + j0;
  const EpiloguePlan& ep = d.epilogue;
  const bool fused = ep.enabled;
  const bool single_block = d.kgroups <= kc;
  EpilogueFn<Out> epilogue_fn = nullptr;
  EpilogueArgs ea;
  if (fused) {
    epilogue_fn = ep.fns.get<Out>();
    epilogue_output_stage(output, d.core == RoundingCore::kFloat32ZeroPointInside, ea);
    ea.chan_stride = ep.per_channel ? ep.vec_bytes : 0;
    ea.ld = single_block ? NR : ld;
  }
  const UkernelFn fn = (kernel.fn_signed_a && std::is_signed<AType>::value)
                           ? kernel.fn_signed_a : kernel.fn;
  // A kernel fused with the epilogue (gemm_epilogue.h FusedFn) requantizes each block of the last
  // K block from registers; otherwise the kernel stores the block and epilogue_fn reads it back.
  // With a clamp to Out's whole range, the saturating output stage where the plan has one.
  FusedFn<Out> fused_fn = nullptr;
  if (fused && &kernel == &d.kernel) {
    fused_fn = clamps_to_whole_range<Out>(output) ? ep.fused_saturated.get<Out>() : nullptr;
    if (fused_fn == nullptr) fused_fn = ep.fused.get<Out>();
  }

  // One argument block for every kernel call of the tile, each call setting the fields it
  // uses: value-initialising it per call was a `rep stos` of 112 bytes, ~15 % of a short-K
  // 1x1 convolution (112x112x16 -> 96).
  UkernelArgs args;
  for (std::size_t g0 = 0; g0 < d.kgroups; g0 += kc) {
    const std::size_t kg = std::min(kc, d.kgroups - g0);
    const std::size_t a_row_bytes = rows64 ? (kg * 4 + 63) / 64 * 64 : 0;
    const std::uint8_t* a_block = (direct_a || direct_segments)
                                      ? nullptr
                                      : s.a_packed.data() + (g0 / kc) * full_block_bytes;
    const bool accumulate = g0 > 0 && !wide_chunks;
    const bool last = g0 + kc >= d.kgroups;
    for (std::size_t jj = 0; jj < cols_pad; jj += NR) {
      const std::uint8_t* b = d.b_packed.data() + ((j0 + jj) / kPanelCols) * d.panel_stride +
                              g0 * kPanelGroupBytes;
      if (fused && last) {
        ea.cols = std::min(NR, cols - jj);
        ea.chan = ep.chan.data() + (ep.per_channel ? (j0 + jj) / ep.lanes * ep.vec_bytes : 0);
      }
      for (std::size_t ii = 0; ii < rows_pad; ii += MR) {
        args.kgroups = kg;
        if (direct_segments) {
          args.a_segments = s.segment_table.data() + (ii / MR) * src.taps * MR + (g0 / seg_groups) * MR;
          args.a_seg_groups = seg_groups;
          args.a_flip = c_off != 0;
        } else if (direct_a) {
          args.a = reinterpret_cast<const std::uint8_t*>(a + ii * lda) + g0 * 4;
          args.a_stride = lda;
          args.a_rows = std::min(MR, rows - ii);
          args.a_flip = c_off != 0;
        } else {
          args.a = rows64 ? a_block + ii * a_row_bytes : a_block + ii * kg * 4;
          args.a_row_bytes = a_row_bytes;
        }
        args.b = b;
        args.b_panel_stride = d.panel_stride;
        args.c = (fused && single_block) ? acc : acc + ii * ld + jj;
        args.ldc = (fused && single_block) ? NR : ld;
        args.col_init = (col_init && g0 == 0) ? col_init + jj : nullptr;
        args.row_init = (row_init && g0 == 0) ? row_init + ii : nullptr;
        args.accumulate = accumulate;
        if (fused && last) {
          ea.acc = args.c;
          ea.rows = std::min(MR, rows - ii);
          if (fused_fn) {
            fused_fn(args, ea, dst + ii * ldc + jj, ldc);
          } else {
            fn(args);
            epilogue_fn(ea, dst + ii * ldc + jj, ldc);
          }
        } else {
          fn(args);
        }
      }
    }
    if (wide_chunks) {
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) acc64[r * ld + c] += acc[r * ld + c];
      }
    }
  }
  if (fused) return;

  const std::int32_t* to_requantize = acc;
  s.exceptions.clear();
  if (folded) {
    if (d.b_zero_point_per_channel && d.has_b_zero_point) {
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
          const std::uint32_t t = static_cast<std::uint32_t>(static_cast<std::uint64_t>(
              static_cast<std::int64_t>(d.b_zero_point[j0 + c]) * s.row_sum[r]));
          acc[r * ld + c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[r * ld + c]) - t);
        }
      }
    }
    if (d.accumulator.kind == AccumulatorKind::kWrapping && d.accumulator.bits < 32) {
      const int sh = 32 - d.accumulator.bits;
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
          const std::uint32_t u = static_cast<std::uint32_t>(acc[r * ld + c]) << sh;
          acc[r * ld + c] = static_cast<std::int32_t>(u) >> sh;
        }
      }
    }
  } else {
    // Exact dot products in int64, then the model, then int32 staging for the SIMD requantizer.
    s.staged.resize(rows_pad * ld * sizeof(std::int32_t));
    auto* staged = reinterpret_cast<std::int32_t*>(s.staged.data());
    const int bits = d.accumulator.bits;
    const bool policy_wide = visit_rounding_core(d.core, [](auto p) {
      return decltype(p)::kAcceptsWideInput;
    }) && bits > 32;
    const std::int64_t sat_hi = bits >= 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1;
    const std::int64_t sat_lo = -sat_hi - 1;
    const std::int64_t kza = static_cast<std::int64_t>(d.k) * za;
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        const std::size_t j = j0 + c;
        const std::int64_t raw = wide_chunks ? acc64[r * ld + c] : acc[r * ld + c];
        const std::int64_t zb = d.b_zero_point[j];
        const std::int64_t exact = raw - (c_off + za) * d.col_sum[j] - zb * s.row_sum[r] + kza * zb;
        std::int64_t v;
        switch (d.accumulator.kind) {
          case AccumulatorKind::kSaturating:
            if (s.row_max_abs[r] * d.col_abs_sum[j] <= sat_hi) {  // no partial sum can saturate
              v = clamp_i64(exact + clamp_i64(d.bias[j], sat_lo, sat_hi), sat_lo, sat_hi);
            } else {
              v = saturating_element(d, a + r * lda, za, j);
            }
            break;
          case AccumulatorKind::kWrapping:
            v = wrap_to_bits(static_cast<std::uint64_t>(exact + d.bias[j]), bits);
            break;
          default:  // kInt64
            v = exact + d.bias[j];
            break;
        }
        if (policy_wide && (v < kInt32Min || v > kInt32Max)) {
          s.exceptions.push_back({r, c, v});
          staged[r * ld + c] = 0;
        } else {
          staged[r * ld + c] = wrap_to_int32(v);
        }
      }
    }
    to_requantize = staged;
  }

  RequantizeArgs rq;
  rq.core = d.core;
  rq.params = d.params.data() + (d.per_channel ? j0 : 0);
  rq.per_channel = d.per_channel;
  rq.output = output;
  rq.rows = rows;
  rq.channels = cols;
  rq.acc = to_requantize;
  rq.acc_row_stride = ld;
  rq.dst_row_stride = ldc;
  requantize_kernels(d.isa).get<Out>()(rq, dst);
  for (const Scratch::Wide& e : s.exceptions) {
    dst[e.i * ldc + e.j] = requantize_wide_element<Out>(d, e.v, j0 + e.j, output);
  }
}

template <class AType, class Out>
void validate_call(const PackedGemmData& d, const GemmCall<AType, Out>& call) {
  if (call.m == 0) detail::throw_out_of_range("m", 0, ">= 1");
  detail::require_pointer(call.a, "a");
  detail::require_pointer(call.c, "c");
  detail::require_stride("a_row_stride", call.a_row_stride, d.k);
  detail::require_stride("c_row_stride", call.c_row_stride, d.n);
  const bool a_signed = std::is_signed<AType>::value;
  detail::require_in_range("a_zero_point", call.a_zero_point, a_signed ? -128 : 0,
                           a_signed ? 127 : 255, a_signed ? "int8 activations" : "uint8 activations");
  validate(call.output, detail::output_type_of<Out>());
}

}  // namespace

std::size_t gemm_tile_count(const PackedGemmData& d, std::size_t m) {
  const Blocking bk = blocking_for(d, m);
  return ceil_div(m, bk.mc) * ceil_div(d.n, bk.nc);
}

template <class AType, class Out>
void gemm_run_tiles(const PackedGemmData& d, const AOperand<AType>& a, std::size_t m,
                    std::int32_t a_zero_point, const OutputParams& output, Out* c, std::size_t ldc,
                    std::size_t begin, std::size_t end) {
  // Tiles are numbered row block by row block: consecutive tiles of one row block reuse its
  // packed A (valid only within this call: the caller may change A between calls).
  const std::size_t tiles_n = ceil_div(d.n, blocking_for(d, m).nc);
  for (std::size_t t = begin; t < end; ++t) {
    const bool rows_ready = t > begin && t / tiles_n == (t - 1) / tiles_n;
    run_tile(d, a, m, a_zero_point, output, c, ldc, t, rows_ready);
  }
}

}  // namespace internal

std::size_t gemm_tile_count(const PackedGemm& w, std::size_t m) {
  return internal::gemm_tile_count(w.data(), m);
}

template <class AType, class OutType>
void gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, std::size_t begin,
                std::size_t end) {
  const internal::PackedGemmData& d = w.data();
  internal::validate_call(d, call);
  const std::size_t count = gemm_tile_count(w, call.m);
  if (begin > end || end > count) {
    throw InvalidArgument("qparity: tile range [" + std::to_string(begin) + ", " +
                          std::to_string(end) + ") is out of range; allowed: begin <= end <= " +
                          std::to_string(count) + " (gemm_tile_count)");
  }
  internal::AOperand<AType> a;
  a.a = call.a;
  a.lda = call.a_row_stride ? call.a_row_stride : d.k;
  const std::size_t ldc = call.c_row_stride ? call.c_row_stride : d.n;
  internal::gemm_run_tiles(d, a, call.m, call.a_zero_point, call.output, call.c, ldc, begin, end);
}

template <class AType, class OutType>
void gemm(const PackedGemm& w, const GemmCall<AType, OutType>& call) {
  gemm_tiles(w, call, 0, gemm_tile_count(w, call.m));
}

template <class AType, class OutType>
void gemm_threaded(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads) {
  internal::validate_call(w.data(), call);
  const auto run_range = [&](std::size_t begin, std::size_t end) {
    gemm_tiles(w, call, begin, end);
  };
  internal::run_tiles_threaded(gemm_tile_count(w, call.m), threads, run_range);
}

template <class AType, class OutType>
void gemm(const GemmProblem<AType, OutType>& g, RoundingCore core, AccumulatorSpec accumulator) {
  validate(accumulator);
  validate_gemm(g, core);
  const PackedGemm w(weights_of(g), core, accumulator);
  gemm(w, call_of(g));
}

#define QPARITY_GEMM_INSTANTIATE(A, O)                                                         \
  template void gemm<A, O>(const PackedGemm&, const GemmCall<A, O>&);                          \
  template void gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, std::size_t,         \
                                 std::size_t);                                                  \
  template void gemm_threaded<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned);        \
  template void gemm<A, O>(const GemmProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_GEMM_INSTANTIATE)
#undef QPARITY_GEMM_INSTANTIATE

namespace internal {
#define QPARITY_GEMM_RUN_TILES_INSTANTIATE(A, O)                                                 \
  template void gemm_run_tiles<A, O>(const PackedGemmData&, const AOperand<A>&, std::size_t,    \
                                     std::int32_t, const OutputParams&, O*, std::size_t,        \
                                     std::size_t, std::size_t);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_GEMM_RUN_TILES_INSTANTIATE)
#undef QPARITY_GEMM_RUN_TILES_INSTANTIATE
}  // namespace internal

}  // namespace qparity
