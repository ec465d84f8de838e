// The indirect A of an implicit-GEMM convolution (kernels/gemm/gemm_indirect_a.h): gathering its
// rows, the segment-pointer table, packing straight from the segments.
#include "kernels/gemm/gemm_indirect_a.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "kernels/gemm/gemm_pack_a.h"
#include "kernels/gemm/pack_dot4.h"

namespace qparity {
namespace internal {
namespace {

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

}  // namespace

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

template <class AType>
void build_segment_table(std::size_t MR, const AOperand<AType>& src, std::size_t i0,
                         std::size_t rows, SegmentTable& s) {
  const std::size_t taps = src.taps, groups = ceil_div(rows, MR);
  s.pad.assign(src.seg, static_cast<std::uint8_t>(src.pad));
  s.entries.resize(groups * taps * MR);
  const ImplicitWindow w = *src.window;  // (local: the table's pointer stores may alias)
  const std::uint8_t* const pad = s.pad.data();
  const WindowSteps g(w);
  const std::ptrdiff_t in_h = g.in_h, in_w = g.in_w, ps = g.ps;
  const std::size_t kernel_h = w.kernel_h, kernel_w = w.kernel_w;
  std::size_t image = i0 / src.rows_per_image;
  WindowCursor at(w, i0 % src.rows_per_image);
  for (std::size_t rg = 0; rg < groups; ++rg) {
    const std::uint8_t** table = s.entries.data() + rg * taps * MR;
    for (std::size_t r = 0; r < MR;) {
      if (rg * MR + r >= rows) {
        for (std::size_t t = 0; t < taps; ++t) table[t * MR + r] = table[t * MR];
        ++r;
        continue;
      }
      const auto* base = reinterpret_cast<const std::uint8_t*>(src.a + image * src.image_stride);
      const std::ptrdiff_t iy0 = at.iy0(), ix0 = at.ix0();
      if (g.rows_inside(iy0) && at.ox >= g.ox_lo && at.ox < g.ox_hi) {
        // A run of pixels of one output row with every window inside (most of them, often the
        // whole group): tap t of pixel q is tap t of the run's first plus q pixel steps, n
        // pointers in a row of the table (a loop that vectorises). Pixel by pixel this table was
        // ~5 % of a 56x56x64 3x3 convolution when whole groups had the fast path alone (commit
        // 4848384), and 23 % with AMX's 32-row groups (Xeon family 6 model 207), which rarely fit
        // whole in a 56-pixel row.
        const std::size_t n = std::min({MR - r, g.ox_hi - at.ox, rows - rg * MR - r});
        std::ptrdiff_t line = (iy0 * in_w + ix0) * ps;
        const std::uint8_t** entry = table + r;
        for (std::size_t ky = 0; ky < kernel_h; ++ky, line += g.line_step) {
          for (std::size_t kx = 0; kx < kernel_w; ++kx, entry += MR) {
            const std::uint8_t* first = base + line + static_cast<std::ptrdiff_t>(kx) * g.tap_step;
            for (std::size_t q = 0; q < n; ++q) {
              entry[q] = first + static_cast<std::ptrdiff_t>(q) * g.pixel_step;
            }
          }
        }
        r += n;
        if (at.skip(n, src.rows_per_image)) ++image;
        continue;
      }
      // (Pixels at the image's borders.)
      const std::uint8_t** entry = table + r;
      for (std::size_t ky = 0; ky < kernel_h; ++ky) {
        const std::ptrdiff_t iy = iy0 + static_cast<std::ptrdiff_t>(ky * w.dilation_h);
        const bool row_inside = iy >= 0 && iy < in_h;
        for (std::size_t kx = 0; kx < kernel_w; ++kx, entry += MR) {
          const std::ptrdiff_t ix = ix0 + static_cast<std::ptrdiff_t>(kx * w.dilation_w);
          *entry = row_inside && ix >= 0 && ix < in_w ? base + (iy * in_w + ix) * ps : pad;
        }
      }
      ++r;
      if (at.next(src.rows_per_image)) ++image;
    }
  }
}

template <class AType>
void pack_a_from_segments(const PackedGemmData& d, const Ukernel& kernel,
                          const AOperand<AType>& src, std::size_t i0, std::size_t rows,
                          std::size_t kc, std::size_t full_block_bytes, std::uint8_t* dst,
                          SegmentTable& s) {
  const std::size_t MR = kernel.mr;
  const std::uint32_t flip = activation_offset<AType>(kernel) ? 0x80808080u : 0u;
  const std::size_t taps = src.taps, sg = src.seg / 4;
  build_segment_table(MR, src, i0, rows, s);
  const std::uint8_t* row_ptr[kMaxMr];
  const std::size_t kgroups = d.kgroups;
  for (std::size_t rg = 0; rg < ceil_div(rows, MR); ++rg) {
    const std::uint8_t* const* table = s.entries.data() + rg * taps * MR;
    const std::size_t valid = std::min(MR, rows - rg * MR);
    // Runs end where a tap's segment or a K block ends. Tap t, group q within it, K block `block`
    // and group gi within that, advanced run by run: divisions per run (two DIVs) took as long as
    // packing a 4-row run of 16 groups (perf, avx2 56x56x64->64 3x3).
    std::size_t t = 0, q = 0, block = 0, gi = 0;
    for (std::size_t g = 0; g < kgroups;) {
      const std::size_t len = std::min(sg - q, kc - gi);
      const std::size_t kg = std::min(kc, kgroups - block * kc);  // groups in this block
      for (std::size_t r = 0; r < valid; ++r) row_ptr[r] = table[t * MR + r] + q * 4;
      for (std::size_t r = valid; r < MR; ++r) row_ptr[r] = nullptr;
      pack_dot4_run(row_ptr, MR, len, flip,
                    dst + block * full_block_bytes + (rg * kg + gi) * MR * 4);
      g += len;
      q += len;
      if (q == sg) q = 0, ++t;
      gi += len;
      if (gi == kc) gi = 0, ++block;
    }
  }
}

#define QPARITY_INDIRECT_A_INSTANTIATE(A)                                                          \
  template void gather_rows<A>(const AOperand<A>&, std::size_t, std::size_t, A*, std::size_t);     \
  template void build_segment_table<A>(std::size_t, const AOperand<A>&, std::size_t, std::size_t,  \
                                       SegmentTable&);                                             \
  template void pack_a_from_segments<A>(const PackedGemmData&, const Ukernel&, const AOperand<A>&, \
                                        std::size_t, std::size_t, std::size_t, std::size_t,        \
                                        std::uint8_t*, SegmentTable&);
QPARITY_FOR_EACH_ACTIVATION_TYPE(QPARITY_INDIRECT_A_INSTANTIATE)
#undef QPARITY_INDIRECT_A_INSTANTIATE

}  // namespace internal
}  // namespace qparity
