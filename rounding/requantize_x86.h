// INTERNAL: the x86 SIMD requantization path, written once against rounding/simd_x86.h's `Ops` and
// compiled three times (rounding/requantize_{sse41,avx2,avx512}.cc). Not installed.
//
// Everything here is in qparity::internal::QPARITY_ISA_NS (see the ODR note in simd_x86.h). For
// the same reason this file calls no inline function of the public headers (they are compiled for
// the baseline in the dispatcher); it uses their types only.
//
// ---- How each rounding core is computed -------------------------------------------------------
// Every integer core is one exact rounding division of a 64-bit product (policy_*.h give the
// normative definitions; the identities below are what this code relies on):
//
//   x' = acc * 2^L  (int32, wrapping)          p = x' * M  (exact, |p| < 2^62)
//   y  = low 32 bits of floor((p + bias) / 2^s)
//
//   core        L            s            bias                                  form
//   SR-UP       0            31 - shift   2^(s-1)                               const
//   FLOOR       0            31 - shift   0                                     const
//   SR-AZ       0            31 - shift   2^(s-1) - [p < 0]                     signed
//   TRUNC       0            31 - shift   [p < 0] * (2^s - 1)                   signed
//   SR-EVEN     0            31 - shift   2^(s-1) - 1 + bit_s(p)                even
//   Q15         0            15 - shift   2^(s-1)              (M = m15)        const
//   SR-UP-NEON  shift - r    31 - r       2^(s-1)     r = min(-1, shift)        const
//   DR-UP       max(shift,0) 31 + R       2^30 + [R>0] 2^(30+R)   R = max(-shift, 0)   const
//   DR-AZ       max(shift,0) 31 + R       u = p + 2^30; bias' = [R>0](2^(30+R) - [u<0] 2^31)
//                                                                                signed-offset
// SR-UP-NEON: SQDMULH then SRSHL by k = -r >= 1 is floor((floor(x'M / 2^31) + 2^(k-1)) / 2^k)
//   = floor((x'M + 2^(30+k)) / 2^(31+k)) (nested floors, docs/semantics.md §2.3).
// DR-*: t = SRDHM(x', M) = floor(u / 2^31) (M >= 0, so the INT32_MIN^2 saturation cannot occur);
//   DR-UP's floor((t + 2^(R-1)) / 2^R) and DR-AZ's HAZ(t / 2^R) = floor((t + 2^(R-1) - [t<0]) / 2^R)
//   fold into one shift by the same nested-floor identity, and t < 0 exactly when u < 0.
// Q15 on an int32 accumulator: |acc * m15| < 2^46 and s in [2, 62].
// All sums stay inside (-2^63, 2^63). Results that do not fit int32 (SR with shift > 0) wrap, as
// the policies specify, because only the low 32 bits are kept.
//
// The 64-bit arithmetic shift: AVX-512 has vpsravq. On SSE4.1/AVX2, when every lane has s >= 32
// (any negative shift, the common case) the result is the high 32 bits of p + bias shifted
// arithmetically by s - 32; otherwise they add 2^63 to the bias (making the operand non-negative),
// shift logically, and subtract 2^(63-s) from the low 32 bits.
//
// F32:     y = RNE_sat(float(acc) * scale)
// F32-ZPF: y = RNE_sat(((float(acc) * scale + bias) * post_scale) + float(zp)), one rounding per
//          operation in this order, no FMA (-ffp-contract=off; see xsimd_compat.h).
//
// Output stage (all cores): clamp(y + zp, qmin, qmax) is evaluated as clamp(y, lo, hi) + add with
// lo = max(qmin - zp, INT32_MIN), hi = min(qmax - zp, INT32_MAX), add = zp, which never overflows
// int32; when [qmin - zp, qmax - zp] misses the int32 range entirely the result is the constant
// qmin or qmax (lo = hi = 0, add = that constant). F32-ZPF already contains zp: lo = qmin,
// hi = qmax, add = 0. Values are then inside Out's range, so narrowing cannot saturate.
//
// Per-channel parameters are converted, block by block (kBlock channels), into structure-of-arrays
// on the stack; 64-bit per-channel values are stored split into even and odd channels so that one
// load yields the operand of the even (or odd) 64-bit lanes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "qparity/requantize.h"
#include "rounding/requantize_kernel.h"
#include "rounding/simd_x86.h"
#include "rounding/xsimd_compat.h"

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

using I = Ops::I;
constexpr std::size_t kW = Ops::kLanes;
/// Channels per structure-of-arrays block (per-channel path); a multiple of 4 vectors.
constexpr std::size_t kBlock = 256;
static_assert(kBlock % (4 * kW) == 0, "kBlock must be a multiple of the unrolled width");

enum class IntForm : std::uint8_t { kConst, kSigned, kSignedOffset, kEven };

/// The integer cores in the form of the table above, for one channel.
struct IntPlan {
  std::int64_t c;  ///< bias
  std::int64_t n;  ///< signed forms: added when the product is negative; even form: 2^s
  std::int64_t s;  ///< right shift, in [1, 62]
  std::int32_t m;  ///< multiplier
  std::int32_t l;  ///< pre-shift L as a count, or 2^L when Ops::kPreShiftByMultiply
};

/// How the 64-bit arithmetic shift is done (see the note at the top):
///   AVX-512: vpsravq directly.
///   kHigh (SSE4.1/AVX2, every s >= 32): the result is the high 32 bits of p + bias shifted
///     arithmetically by s - 32 (in int32: |p + bias| < 2^63).
///   otherwise (SSE4.1/AVX2): bias + 2^63, logical shift, minus 2^(63 - s) in 32 bits.
constexpr std::uint64_t kFlip = std::uint64_t{1} << 63;

inline std::int64_t flipped_bias(std::int64_t c) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(c) + kFlip);
}
inline std::int32_t flip_correction(std::int64_t s) {  // low 32 bits of 2^(63 - s)
  return s >= 32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(std::uint64_t{1} << (63 - s))) : 0;
}

inline IntForm int_form(RoundingCore core) {
  switch (core) {
    case RoundingCore::kDoubleRoundingAwayFromZero: return IntForm::kSignedOffset;
    case RoundingCore::kSingleRoundingAwayFromZero:
    case RoundingCore::kTruncate: return IntForm::kSigned;
    case RoundingCore::kSingleRoundingToEven: return IntForm::kEven;
    default: return IntForm::kConst;
  }
}

/// Offset added before the sign test of the signed-offset form (DR-AZ's first rounding term).
constexpr std::int64_t kDrOffset = std::int64_t{1} << 30;

/// The plan of one channel for a core known at compile time (branch-free apart from the core).
template <RoundingCore kCore>
QPARITY_SIMD_INLINE IntPlan plan_int_for(const RequantParams& p) {
  using C = RoundingCore;
  const int shift = p.shift;
  const int big_r = shift < 0 ? -shift : 0;  // DR-*: second-stage right shift R
  int left = 0;
  int s = 31 - shift;
  std::int64_t c = 0, n = 0;
  if (kCore == C::kDoubleRoundingAwayFromZero) {
    left = shift > 0 ? shift : 0;
    s = 31 + big_r;
    c = big_r > 0 ? std::int64_t{1} << (30 + big_r) : 0;
    n = big_r > 0 ? -(std::int64_t{1} << 31) : 0;
  } else if (kCore == C::kDoubleRoundingUpward) {
    left = shift > 0 ? shift : 0;
    s = 31 + big_r;
    c = kDrOffset + (big_r > 0 ? std::int64_t{1} << (30 + big_r) : 0);
  } else if (kCore == C::kSingleRoundingUpwardNeon) {
    const int right = shift < -1 ? shift : -1;
    left = shift - right;
    s = 31 - right;
    c = std::int64_t{1} << (s - 1);
  } else if (kCore == C::kSingleRoundingUpward) {
    c = std::int64_t{1} << (s - 1);
  } else if (kCore == C::kSingleRoundingAwayFromZero) {
    c = std::int64_t{1} << (s - 1);
    n = -1;
  } else if (kCore == C::kSingleRoundingToEven) {
    c = std::int64_t{1} << (s - 1);
    n = std::int64_t{1} << s;
  } else if (kCore == C::kTruncate) {
    n = (std::int64_t{1} << s) - 1;
  } else if (kCore == C::kQ15) {
    s = 15 - shift;
    c = std::int64_t{1} << (s - 1);
  }  // kFloor: no bias
  IntPlan q;
  q.m = p.multiplier;
  q.s = s;
  q.n = n;
  q.c = c;
  q.l = Ops::kPreShiftByMultiply ? static_cast<std::int32_t>(std::uint32_t{1} << left) : left;
  return q;
}

/// Calls f(std::integral_constant<RoundingCore, core>) for an integer core.
template <class F>
inline void with_int_core(RoundingCore core, const F& f) {
  using C = RoundingCore;
  switch (core) {
    case C::kDoubleRoundingAwayFromZero: f(std::integral_constant<C, C::kDoubleRoundingAwayFromZero>{}); break;
    case C::kDoubleRoundingUpward: f(std::integral_constant<C, C::kDoubleRoundingUpward>{}); break;
    case C::kSingleRoundingUpward: f(std::integral_constant<C, C::kSingleRoundingUpward>{}); break;
    case C::kSingleRoundingUpwardNeon: f(std::integral_constant<C, C::kSingleRoundingUpwardNeon>{}); break;
    case C::kSingleRoundingAwayFromZero: f(std::integral_constant<C, C::kSingleRoundingAwayFromZero>{}); break;
    case C::kSingleRoundingToEven: f(std::integral_constant<C, C::kSingleRoundingToEven>{}); break;
    case C::kTruncate: f(std::integral_constant<C, C::kTruncate>{}); break;
    case C::kFloor: f(std::integral_constant<C, C::kFloor>{}); break;
    case C::kQ15: f(std::integral_constant<C, C::kQ15>{}); break;
    default: break;  // float cores are not planned here
  }
}

inline IntPlan plan_int(RoundingCore core, const RequantParams& p) {
  IntPlan q{};
  with_int_core(core, [&](auto core_c) { q = plan_int_for<decltype(core_c)::value>(p); });
  return q;
}

/// Operands of int_core for one vector of channels (broadcast values for per-tensor). `k` is the
/// flip correction, `h` the 32-bit shift count s - 32 of the kHigh mode, `off` DR-AZ's 2^30 in
/// 64-bit lanes: a constant, carried here so that a kernel holding the registers keeps it in one
/// (left to itself, GCC 12 re-broadcast it from a general register for every vector of the fused
/// GEMM epilogue).
struct IntRegs {
  I m_e, m_o, c_e, c_o, n_e, n_o, s_e, s_o, l, k, h, off;
  Ops::OddMask odd;  ///< combine_bits31's lane selector, held like `off`
};

/// Per-tensor operands; kHigh as for int_core.
QPARITY_SIMD_INLINE IntRegs broadcast(const IntPlan& q, bool high) {
  IntRegs r;
  r.m_e = r.m_o = Ops::set1(q.m);
  const std::int64_t c = Ops::kHasSra64 || high ? q.c : flipped_bias(q.c);
  r.c_e = r.c_o = Ops::set1_64(c);
  r.n_e = r.n_o = Ops::set1_64(q.n);
  r.s_e = r.s_o = Ops::set1_64(q.s);
  r.l = Ops::set1(q.l);
  r.k = Ops::set1(Ops::kHasSra64 ? 0 : flip_correction(q.s));
  r.h = Ops::set_sra32_count(static_cast<std::int32_t>(q.s - 32));
  r.off = Ops::set1_64(kDrOffset);
  r.odd = Ops::odd_mask();
  return r;
}

/// The rounding core on one vector. kUniform: every lane has the same parameters. kHigh: every
/// lane's s is >= 32.
template <IntForm kForm, bool kPreShift, bool kHigh, bool kUniform>
QPARITY_SIMD_INLINE I int_core(I x, const IntRegs& r) {
  if (kPreShift) x = Ops::shl32(x, r.l);
  I pe = Ops::mul_even(x, r.m_e);
  I po = Ops::mul_even(Ops::odd_to_even(x), r.m_o);
  if constexpr (kForm == IntForm::kSignedOffset && kHigh) {
    // DR-AZ with R >= 1 in every lane (s = 31 + R >= 32, h = R - 1): the second rounding in
    // 32-bit lanes, 3 operations fewer than the 64-bit form. t = floor((x'M + 2^30) / 2^31) is
    // SRDHM (bits 31..62 of u = x'M + 2^30; |x'M| < 2^62, so t >= -2^31 + 1 fits), then
    //   HAZ(t / 2^R) = floor((w + 2^(R-1)) / 2^R),  w = t - [t < 0]  (>= -2^31: no overflow)
    //               = z - floor(z / 2),             z = floor(w / 2^(R-1))
    // by the nested-floor identity floor((floor(w / a) + 1) / 2) = floor((w + a) / 2a); z - (z >> 1)
    // cannot overflow either.
    const I t = Ops::combine_bits31(Ops::add64(pe, r.off), Ops::add64(po, r.off), r.odd);
    const I w = Ops::add32(t, Ops::template sra32_imm<31>(t));
    const I z = Ops::template sra32<kUniform>(w, r.h);
    return Ops::sub32(z, Ops::template sra32_imm<1>(z));
  }
  if (kForm == IntForm::kSignedOffset) {
    const I off = Ops::set1_64(kDrOffset);
    pe = Ops::add64(pe, off);
    po = Ops::add64(po, off);
  }
  if (kForm == IntForm::kSigned || kForm == IntForm::kSignedOffset) {
    pe = Ops::add_if_negative64(pe, r.n_e);
    po = Ops::add_if_negative64(po, r.n_o);
  }
  if (kForm == IntForm::kEven) {  // bit s of p decides the tie: bias 2^(s-1) - 1 + bit_s(p)
    pe = Ops::dec_if_clear64(pe, r.n_e);
    po = Ops::dec_if_clear64(po, r.n_o);
  }
  pe = Ops::add64(pe, r.c_e);
  po = Ops::add64(po, r.c_o);
  if constexpr (kHigh) {
    return Ops::template sra32<kUniform>(Ops::combine_high(pe, po), r.h);
  } else if constexpr (Ops::kHasSra64) {
    return Ops::combine(Ops::template shr64<kUniform>(pe, r.s_e),
                        Ops::template shr64<kUniform>(po, r.s_o));
  } else {
    const I y = Ops::combine(Ops::template shr64<kUniform>(pe, r.s_e),
                             Ops::template shr64<kUniform>(po, r.s_o));
    return Ops::sub32(y, r.k);
  }
}

/// Per-channel integer parameters of one block, structure-of-arrays. Index j of an `_e` array is
/// channel 2j of the block, of an `_o` array channel 2j + 1.
struct IntSoA {
  alignas(64) std::int64_t m_e[kBlock / 2], m_o[kBlock / 2];
  alignas(64) std::int64_t c_e[kBlock / 2], c_o[kBlock / 2];
  alignas(64) std::int64_t n_e[kBlock / 2], n_o[kBlock / 2];
  alignas(64) std::int64_t s_e[kBlock / 2], s_o[kBlock / 2];
  alignas(64) std::int32_t l[kBlock], k[kBlock], h[kBlock];

  struct Flags {
    bool pre;   ///< some channel needs the pre-shift
    bool high;  ///< kHigh mode (every s >= 32 and the ISA has per-lane 32-bit shifts)
  };

  /// Fills channels [0, count) of the block from params, padded to a whole vector with the last
  /// channel, and chooses the shift mode of the block.
  Flags fill(RoundingCore core, const RequantParams* params, std::size_t count) {
    Flags f{false, false};
    with_int_core(core, [&](auto core_c) { f = fill_for<decltype(core_c)::value>(params, count); });
    return f;
  }

  template <RoundingCore kCore>
  Flags fill_for(const RequantParams* params, std::size_t count) {
    const std::int32_t no_shift = Ops::kPreShiftByMultiply ? 1 : 0;
    std::int32_t any_pre = 0;
    std::int64_t min_s = 64;
    const std::size_t padded = (count + kW - 1) / kW * kW;  // even
    for (std::size_t j = 0; j < padded; j += 2) {
      const IntPlan a = plan_int_for<kCore>(params[j < count ? j : count - 1]);
      const IntPlan b = plan_int_for<kCore>(params[j + 1 < count ? j + 1 : count - 1]);
      const std::size_t i = j / 2;
      m_e[i] = a.m, m_o[i] = b.m;
      c_e[i] = a.c, c_o[i] = b.c;
      n_e[i] = a.n, n_o[i] = b.n;
      s_e[i] = a.s, s_o[i] = b.s;
      l[j] = a.l, l[j + 1] = b.l;
      any_pre |= (a.l ^ no_shift) | (b.l ^ no_shift);
      min_s = min_s < a.s ? min_s : a.s;
      min_s = min_s < b.s ? min_s : b.s;
    }
    Flags f{any_pre != 0, false};
    for (std::size_t j = 0; j < padded; ++j) {
      const std::int64_t s = j % 2 == 0 ? s_e[j / 2] : s_o[j / 2];
      h[j] = static_cast<std::int32_t>(s - 32);
      k[j] = Ops::kHasSra64 ? 0 : flip_correction(s);
    }
    f.high = Ops::kHasVarShift32 && min_s >= 32;
    if constexpr (!Ops::kHasSra64) {
      if (!f.high) {
        for (std::size_t i = 0; i < padded / 2; ++i) {
          c_e[i] = flipped_bias(c_e[i]);
          c_o[i] = flipped_bias(c_o[i]);
        }
      }
    }
    return f;
  }

  /// Operands for the vector of channels starting at i (a multiple of kW).
  QPARITY_SIMD_INLINE IntRegs at(std::size_t i) const {
    IntRegs r;
    r.m_e = Ops::load(m_e + i / 2), r.m_o = Ops::load(m_o + i / 2);
    r.c_e = Ops::load(c_e + i / 2), r.c_o = Ops::load(c_o + i / 2);
    r.n_e = Ops::load(n_e + i / 2), r.n_o = Ops::load(n_o + i / 2);
    r.s_e = Ops::load(s_e + i / 2), r.s_o = Ops::load(s_o + i / 2);
    r.l = Ops::load(l + i);
    r.k = Ops::load(k + i);
    r.h = Ops::load(h + i);
    r.off = Ops::set1_64(kDrOffset);
    r.odd = Ops::odd_mask();
    return r;
  }
};

// ---- float cores ----------------------------------------------------------------------------

struct FloatRegs {
  FloatBatch scale, bias, post, zp;
};

template <bool kZeroPointInside>
QPARITY_SIMD_INLINE I float_core(I x, const FloatRegs& r) {
  FloatBatch v = int_to_float(x) * r.scale;
  if (kZeroPointInside) {
    v = v + r.bias;
    v = v * r.post;
    v = v + r.zp;
  }
  return round_half_even_saturating(v);
}

struct FloatSoA {
  alignas(64) float scale[kBlock], bias[kBlock], post[kBlock];

  void fill(const RequantParams* params, std::size_t count) {
    const std::size_t padded = (count + kW - 1) / kW * kW;
    for (std::size_t j = 0; j < padded; ++j) {
      const RequantParams& p = params[j < count ? j : count - 1];
      scale[j] = p.scale;
      bias[j] = p.bias;
      post[j] = p.post_scale;
    }
  }
  QPARITY_SIMD_INLINE FloatRegs at(std::size_t i, const FloatBatch& zp) const {
    return FloatRegs{FloatBatch::load_aligned(scale + i), FloatBatch::load_aligned(bias + i),
                     FloatBatch::load_aligned(post + i), zp};
  }
};

// ---- output stage and loops -------------------------------------------------------------------

struct OutRegs {
  I lo, hi, add;
};

inline OutRegs output_regs(const OutputParams& o, bool zero_point_inside) {
  constexpr std::int64_t kMin = -2147483647 - 1, kMax = 2147483647;
  std::int64_t lo, hi, add;
  if (zero_point_inside) {
    lo = o.qmin, hi = o.qmax, add = 0;
  } else {
    lo = static_cast<std::int64_t>(o.qmin) - o.zero_point;
    hi = static_cast<std::int64_t>(o.qmax) - o.zero_point;
    add = o.zero_point;
    if (hi < kMin) {  // y + zp > qmax for every int32 y
      lo = hi = 0, add = o.qmax;
    } else if (lo > kMax) {  // y + zp < qmin for every int32 y
      lo = hi = 0, add = o.qmin;
    } else {
      lo = lo < kMin ? kMin : lo;
      hi = hi > kMax ? kMax : hi;
    }
  }
  return OutRegs{Ops::set1(static_cast<std::int32_t>(lo)), Ops::set1(static_cast<std::int32_t>(hi)),
                 Ops::set1(static_cast<std::int32_t>(add))};
}

QPARITY_SIMD_INLINE I finish(I y, const OutRegs& o) { return Ops::add32(Ops::min32(Ops::max32(y, o.lo), o.hi), o.add); }

/// The output stage of int32 output with zero point 0 and no clamp (the raw core): nothing to do.
struct RawOutput {};
QPARITY_SIMD_INLINE I finish(I y, const RawOutput&) { return y; }

/// dst[i] = out(core(acc[i], i)) for i in [0, n). `core(x, i)` gets the vector starting at i (a
/// multiple of kW). The tail runs the same vector code on a partial vector (masked or buffered).
template <class Out, class Core, class Stage>
inline void run_span(const std::int32_t* acc, Out* dst, std::size_t n, const Core& core,
                     const Stage& o) {
  std::size_t i = 0;
  for (; i + 4 * kW <= n; i += 4 * kW) {
    const I a = finish(core(Ops::load(acc + i), i), o);
    const I b = finish(core(Ops::load(acc + i + kW), i + kW), o);
    const I c = finish(core(Ops::load(acc + i + 2 * kW), i + 2 * kW), o);
    const I d = finish(core(Ops::load(acc + i + 3 * kW), i + 3 * kW), o);
    Ops::store_out4(dst + i, a, b, c, d);
  }
  for (; i + kW <= n; i += kW) Ops::store_out(dst + i, finish(core(Ops::load(acc + i), i), o));
  if (i < n) {
    Ops::store_out_partial(dst + i, finish(core(Ops::load_partial(acc + i, n - i), i), o), n - i);
  }
}

/// Per-tensor: one span when both arrays are dense, else one span per row.
template <class Out, class Core, class Stage>
inline void run_tensor(const RequantizeArgs& a, Out* dst, const Core& core, const Stage& o) {
  if (a.acc_row_stride == a.channels && a.dst_row_stride == a.channels) {
    run_span(a.acc, dst, a.rows * a.channels, core, o);
    return;
  }
  for (std::size_t r = 0; r < a.rows; ++r) {
    run_span(a.acc + r * a.acc_row_stride, dst + r * a.dst_row_stride, a.channels, core, o);
  }
}

/// Per-channel: for each block of channels, fill the SoA once, then run every row over it.
template <class Out, class Soa, class Fill, class Run>
inline void run_channel_blocks(const RequantizeArgs& a, Out* dst, Soa& soa, const Fill& fill,
                               const Run& run_block) {
  for (std::size_t c0 = 0; c0 < a.channels; c0 += kBlock) {
    const std::size_t nb = a.channels - c0 < kBlock ? a.channels - c0 : kBlock;
    const auto flag = fill(soa, a.params + c0, nb);
    for (std::size_t r = 0; r < a.rows; ++r) {
      run_block(a.acc + r * a.acc_row_stride + c0, dst + r * a.dst_row_stride + c0, nb, flag);
    }
  }
}

/// Calls f(form, pre, high) with compile-time values (std::integral_constant) of the three.
/// kAllowHigh: whether the caller can use the high-half mode at all (no code is generated for it
/// otherwise: never on AVX-512, and not per-channel on SSE4.1).
template <bool kAllowHigh, class F>
inline void with_int_variant(IntForm form, bool pre, bool high, const F& f) {
  using C = IntForm;
  auto go = [&](auto form_c) {
    auto go2 = [&](auto pre_c) {
      if (kAllowHigh && high) {
        f(form_c, pre_c, std::integral_constant<bool, kAllowHigh>{});
      } else {
        f(form_c, pre_c, std::false_type{});
      }
    };
    if (pre) {
      go2(std::true_type{});
    } else {
      go2(std::false_type{});
    }
  };
  switch (form) {
    case C::kConst: go(std::integral_constant<C, C::kConst>{}); break;
    case C::kSigned: go(std::integral_constant<C, C::kSigned>{}); break;
    case C::kSignedOffset: go(std::integral_constant<C, C::kSignedOffset>{}); break;
    case C::kEven: go(std::integral_constant<C, C::kEven>{}); break;
  }
}

template <class Out, class Stage>
void run_int(const RequantizeArgs& a, Out* dst, const Stage& o) {
  IntForm form = int_form(a.core);
  if (!a.per_channel) {
    IntPlan q = plan_int(a.core, a.params[0]);
    if (form == IntForm::kSignedOffset && q.n == 0) {  // DR-AZ with shift >= 0: no sign term
      form = IntForm::kConst;
      q.c += kDrOffset;
    }
    const bool pre = q.l != (Ops::kPreShiftByMultiply ? 1 : 0);
    const bool high = q.s >= 32;
    const IntRegs regs = broadcast(q, high);
    with_int_variant<true>(form, pre, high, [&](auto form_c, auto pre_c, auto high_c) {
      constexpr IntForm kForm = decltype(form_c)::value;
      constexpr bool kPre = decltype(pre_c)::value;
      constexpr bool kHigh = decltype(high_c)::value;
      run_tensor(a, dst,
                 [&regs](I x, std::size_t) { return int_core<kForm, kPre, kHigh, true>(x, regs); }, o);
    });
    return;
  }
  IntSoA soa;
  run_channel_blocks(
      a, dst, soa,
      [&](IntSoA& s, const RequantParams* params, std::size_t count) {
        return s.fill(a.core, params, count);
      },
      [&](const std::int32_t* acc, Out* out, std::size_t n, IntSoA::Flags flags) {
        constexpr bool kAllowHigh = Ops::kHasVarShift32;
        with_int_variant<kAllowHigh>(form, flags.pre, flags.high, [&](auto form_c, auto pre_c, auto high_c) {
          constexpr IntForm kForm = decltype(form_c)::value;
          constexpr bool kPre = decltype(pre_c)::value;
          constexpr bool kHigh = decltype(high_c)::value;
          run_span(acc, out, n,
                   [&soa](I x, std::size_t i) { return int_core<kForm, kPre, kHigh, false>(x, soa.at(i)); },
                   o);
        });
      });
}

template <bool kZeroPointInside, class Out, class Stage>
void run_float(const RequantizeArgs& a, Out* dst, const Stage& o) {
  const FloatBatch zp(static_cast<float>(a.output.zero_point));
  if (!a.per_channel) {
    const RequantParams& p = a.params[0];
    const FloatRegs regs{FloatBatch(p.scale), FloatBatch(p.bias), FloatBatch(p.post_scale), zp};
    run_tensor(a, dst, [&regs](I x, std::size_t) { return float_core<kZeroPointInside>(x, regs); },
               o);
    return;
  }
  FloatSoA soa;
  run_channel_blocks(
      a, dst, soa,
      [](FloatSoA& s, const RequantParams* params, std::size_t count) {
        s.fill(params, count);
        return true;
      },
      [&](const std::int32_t* acc, Out* out, std::size_t n, bool) {
        run_span(acc, out, n,
                 [&](I x, std::size_t i) { return float_core<kZeroPointInside>(x, soa.at(i, zp)); },
                 o);
      });
}

template <class Out, class Stage>
void run_core(const RequantizeArgs& a, Out* dst, const Stage& o) {
  switch (a.core) {
    case RoundingCore::kFloat32: run_float<false>(a, dst, o); break;
    case RoundingCore::kFloat32ZeroPointInside: run_float<true>(a, dst, o); break;
    default: run_int(a, dst, o); break;
  }
}

/// The RequantizeKernel for output type Out.
template <class Out>
void kernel(const RequantizeArgs& a, Out* dst) {
  const OutputParams& o = a.output;
  if constexpr (std::is_same<Out, std::int32_t>::value) {
    if (o.zero_point == 0 && o.qmin == -2147483647 - 1 && o.qmax == 2147483647) {
      run_core(a, dst, RawOutput{});
      return;
    }
  }
  run_core(a, dst, output_regs(o, a.core == RoundingCore::kFloat32ZeroPointInside));
}

// Aggregate initialisation, so that no (baseline-shared) implicit constructor is odr-used here.
inline RequantizeKernels make_kernels() {
  return RequantizeKernels{&kernel<std::int8_t>, &kernel<std::uint8_t>, &kernel<std::int16_t>,
                           &kernel<std::int32_t>};
}

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
