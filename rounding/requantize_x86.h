// INTERNAL: the x86 SIMD requantization path, written once against rounding/simd_x86.h's `Ops` and
// compiled three times (rounding/requantize_{sse41,avx2,avx512}.cc). Not installed.
//
// Everything here is in qparity::internal::QPARITY_ISA_NS (see the ODR note in simd_x86.h). For
// the same reason this file calls no inline function of the public headers (they are compiled for
// the baseline in the dispatcher); it uses their types only.
//
// The integer cores' plans (the bias, shift and form of each core) are portable and live in
// rounding/requant_plan.h; the loops over rows, channels and output types are portable too
// (rounding/requantize_loops.h, included at the end). This file is the x86 register code between
// them: the per-vector integer and float cores, the per-channel operand blocks and the output
// stage, written once against rounding/simd_x86.h's `Ops`.
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
// Output stage (all cores): clamp(y + zp, qmin, qmax) is evaluated as clamp(y, lo, hi) + add, with
// lo, hi and add from rounding/output_stage_plan.h (shared with the GEMM driver's fused epilogue),
// which never overflows int32; values are then inside Out's range, so narrowing cannot saturate.
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
#include "rounding/output_stage_plan.h"
#include "rounding/requantize_kernel.h"
#include "rounding/requant_plan.h"
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

/// The plan of one channel for a core known at compile time, with the pre-shift in the form the
/// registers take (a count, or 2^L where Ops multiplies instead of shifting).
template <RoundingCore kCore>
QPARITY_SIMD_INLINE IntPlan plan_int_for(const RequantParams& p) {
  IntPlan q = IntCorePlan<kCore>::plan(p);
  if (Ops::kPreShiftByMultiply) q.l = static_cast<std::int32_t>(std::uint32_t{1} << q.l);
  return q;
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
  I ones;  ///< all bits set (SR-EVEN's decrement on AVX-512), held like `off`
  Ops::CombineMask combine;  ///< combine_high's and combine_bits31's lane selector, held like `off`
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
  r.ones = Ops::set1_64(-1);
  r.combine = Ops::combine_mask();
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
    const I t = Ops::combine_bits31(Ops::add64(pe, r.off), Ops::add64(po, r.off), r.combine);
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
    pe = Ops::add_dec_if_clear64(pe, r.c_e, r.n_e, r.ones);
    po = Ops::add_dec_if_clear64(po, r.c_o, r.n_o, r.ones);
  } else {
    pe = Ops::add64(pe, r.c_e);
    po = Ops::add64(po, r.c_o);
  }
  if constexpr (kHigh) {
    return Ops::template sra32<kUniform>(Ops::combine_high(pe, po, r.combine), r.h);
  } else if constexpr (Ops::kHasSra64) {
    return Ops::combine(Ops::template shr64<kUniform>(pe, r.s_e),
                        Ops::template shr64<kUniform>(po, r.s_o));
  } else {
    const I y = Ops::combine(Ops::template shr64<kUniform>(pe, r.s_e),
                             Ops::template shr64<kUniform>(po, r.s_o));
    return Ops::sub32(y, r.k);
  }
}

/// The signed form (SR-AZ, TRUNC) through |x'|, for validated parameters (multiplier M >= 0):
///   floor((x'M + c + [x'M < 0] n) / 2^s) = sign(x') floor((|x'| M + c) / 2^s)
/// because both plans have c + n = 2^s - 1 - c (SR-AZ: c = 2^(s-1), n = -1; TRUNC: c = 0,
/// n = 2^s - 1), so for p = x'M < 0 the value is floor((p + 2^s - 1 - c) / 2^s) =
/// -floor((-p + c) / 2^s). M = 0 or x' = 0 give 0 both ways (c < 2^s). |x'| is read unsigned
/// (|INT32_MIN| = 2^31) by an unsigned multiply, |x'| M + c < 2^62 + 2^61; a result that wraps
/// (shift > 0) wraps the same way negated. The sign is applied once per vector in 32-bit lanes
/// (VPSIGND; on AVX-512 a mask and a masked subtraction) instead of tested on each 64-bit half:
/// high-half mode, per vector: AVX2 10 instructions instead of int_core's 16 (add_if_negative64 is
/// 4 per half there), AVX-512 10 instead of masked_signed_core's 11, with 2 mask operations
/// instead of 4.
template <bool kPreShift, bool kHigh, bool kUniform>
QPARITY_SIMD_INLINE I symmetric_core(I x, const IntRegs& r) {
  if (kPreShift) x = Ops::shl32(x, r.l);
  const I a = Ops::abs32(x);
  I pe = Ops::add64(Ops::mul_even_u(a, r.m_e), r.c_e);
  I po = Ops::add64(Ops::mul_even_u(Ops::odd_to_even(a), r.m_o), r.c_o);
  I y;
  if constexpr (kHigh) {
    y = Ops::template sra32<kUniform>(Ops::combine_high(pe, po, r.combine), r.h);
  } else if constexpr (Ops::kHasSra64) {
    y = Ops::combine(Ops::template shr64<kUniform>(pe, r.s_e), Ops::template shr64<kUniform>(po, r.s_o));
  } else {
    y = Ops::sub32(Ops::combine(Ops::template shr64<kUniform>(pe, r.s_e),
                                Ops::template shr64<kUniform>(po, r.s_o)),
                   r.k);
  }
  return Ops::copy_sign32(y, x);
}

/// int_core for validated parameters (multiplier >= 0, as every RequantParams the public entry
/// points accept): the signed form through symmetric_core, the others int_core itself. (int_core
/// stays the general form: the elementwise kernels also round products that are not x'M.)
template <IntForm kForm, bool kPreShift, bool kHigh, bool kUniform>
QPARITY_SIMD_INLINE I validated_int_core(I x, const IntRegs& r) {
  if constexpr (kForm == IntForm::kSigned) {
    return symmetric_core<kPreShift, kHigh, kUniform>(x, r);
  } else {
    return int_core<kForm, kPreShift, kHigh, kUniform>(x, r);
  }
}

#if QPARITY_X86_VECTOR_BITS == 512
/// AVX-512 only: the signed forms of int_core with the sign test as a compare into a mask and a
/// masked add, one instruction fewer per half than int_core's shift / and / add:
///   SR-AZ, TRUNC (kSigned): n is added when the product p is negative (VPMOVQ2M);
///   DR-AZ (kSignedOffset): when u = p + 2^30 is, i.e. p < -2^30; 2^30 must be folded into the
///   bias by the caller (c_e, c_o hold c + 2^30 and off holds -2^30: fold_dr_offset), two
///   instructions fewer than adding it first.
/// The constants come from registers the caller holds (off, combine): as literals, GCC 12
/// re-materialised them for every vector of the fused GEMM epilogue (mov + vpbroadcastq, mov +
/// kmovw).
/// In the high-half mode the two 64-bit shifts and their combination become combine_high and one
/// 32-bit shift. DR-AZ there: 11 instructions per vector against int_core's 32-bit form's 13.
/// Same value as int_core: floor((p + c + [sign test] n) / 2^s), the bias never flipped (vpsravq).
template <IntForm kForm, bool kPre, bool kHigh>
QPARITY_SIMD_INLINE I masked_signed_core(I x, const IntRegs& r) {
  static_assert(kForm == IntForm::kSigned || kForm == IntForm::kSignedOffset, "signed forms only");
  if (kPre) x = Ops::shl32(x, r.l);
  I pe = _mm512_mul_epi32(x, r.m_e);
  I po = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), r.m_o);
  __mmask8 ne, no;
  if constexpr (kForm == IntForm::kSignedOffset) {
    ne = _mm512_cmplt_epi64_mask(pe, r.off);  // -2^30 (fold_dr_offset)
    no = _mm512_cmplt_epi64_mask(po, r.off);
  } else {
    ne = _mm512_movepi64_mask(pe);
    no = _mm512_movepi64_mask(po);
  }
  pe = _mm512_add_epi64(pe, r.c_e);
  po = _mm512_add_epi64(po, r.c_o);
  pe = _mm512_mask_add_epi64(pe, ne, pe, r.n_e);
  po = _mm512_mask_add_epi64(po, no, po, r.n_o);
  if constexpr (kHigh) {
    return _mm512_srav_epi32(Ops::combine_high(pe, po, r.combine), r.h);
  }
  return Ops::combine(_mm512_srav_epi64(pe, r.s_e), _mm512_srav_epi64(po, r.s_o));
}

/// DR-AZ in the high-half mode (R >= 1 in every lane) on AVX-512, 10 instructions per vector
/// against masked_signed_core's 11 (its 2 compares into masks and 2 masked adds on the 64-bit
/// halves become one sign mask of x' and a masked subtraction in 32-bit lanes, and the shift a
/// pair). With t = floor((x'M + 2^30) / 2^31) and T = t + 2^(R-1), DR-AZ is
///   y = floor((T - [t < 0]) / 2^R)                      (requant_plan.h, nested floors)
///     = floor((T - [x' < 0]) / 2^R)
/// because t < 0 implies x' < 0 (M >= 0), and when x' < 0 <= t, x'M is in [-2^30, 0), so t = 0
/// and T = 2^(R-1), where both give 0 (2^(R-1) - 1 >= 0). T is bits 31..62 of v = x'M + c with
/// c = 2^30 + 2^(30+R): the high half of 2v = x'(2M) + 2c. The product is unsigned (VPMULUDQ of
/// x' mod 2^32 and 2M < 2^32: exact, |x'|'s sign costs nothing here), which adds [x' < 0] 2M to
/// the high half: so one masked subtraction of 2M + 1 from the negative lanes leaves
/// V = T - [x' < 0] (mod 2^32). For x' >= 0, V = T is in [2^(R-1), M + 2^(R-1)] (below 2^32, not
/// always below 2^31), for x' < 0 in [-M + 2^(R-1) - 1, 2^(R-1)] (inside int32): a logical shift
/// for the first, an arithmetic one (merge-masked by the same mask) for the second.
/// Registers (dr_az_doubled_regs): m_e, m_o = 2M (low dwords), c_e, c_o = 2c = 2^31 + 2^(31+R),
/// k = 2M + 1 and h = R per 32-bit lane.
template <bool kPre>
QPARITY_SIMD_INLINE I dr_az_doubled_core(I x, const IntRegs& r) {
  if (kPre) x = Ops::shl32(x, r.l);
  const I pe = _mm512_add_epi64(_mm512_mul_epu32(x, r.m_e), r.c_e);
  const I po = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(x, 32), r.m_o), r.c_o);
  const __mmask16 neg = _mm512_movepi32_mask(x);
  const I h = Ops::combine_high(pe, po, r.combine);
  const I v = _mm512_mask_sub_epi32(h, neg, h, r.k);
  return _mm512_mask_srav_epi32(_mm512_srlv_epi32(v, r.h), neg, v, r.h);
}

/// dr_az_doubled_core's registers from the plan's DR-AZ registers in the high-half mode (m = M,
/// c = 2^(30+R), h = R - 1): done once when the plan is built.
QPARITY_SIMD_INLINE IntRegs dr_az_doubled_regs(IntRegs r) {
  const I two31 = _mm512_set1_epi64(std::int64_t{1} << 31);
  r.m_e = _mm512_add_epi64(r.m_e, r.m_e);
  r.m_o = _mm512_add_epi64(r.m_o, r.m_o);
  r.c_e = _mm512_add_epi64(_mm512_add_epi64(r.c_e, r.c_e), two31);
  r.c_o = _mm512_add_epi64(_mm512_add_epi64(r.c_o, r.c_o), two31);
  r.k = _mm512_add_epi32(Ops::combine(r.m_e, r.m_o), _mm512_set1_epi32(1));
  r.h = _mm512_add_epi32(r.h, _mm512_set1_epi32(1));
  return r;
}

/// masked_signed_core's DR-AZ registers: the bias c + 2^30 and off = -2^30, the sign test's
/// threshold (registers loaded once and used for many vectors).
QPARITY_SIMD_INLINE void fold_dr_offset(IntRegs& r) {
  r.c_e = _mm512_add_epi64(r.c_e, _mm512_set1_epi64(kDrOffset));
  r.c_o = _mm512_add_epi64(r.c_o, _mm512_set1_epi64(kDrOffset));
  r.off = _mm512_set1_epi64(-kDrOffset);
  asm("" : "+v"(r.off));  // a register the compiler cannot re-materialise (see IntRegs)
}
#endif

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
    r.ones = Ops::set1_64(-1);
    r.combine = Ops::combine_mask();
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

/// F32-ZPF followed by its output clamp [lo, hi] (integers, |lo|, |hi| <= 2^24, so exact floats),
/// the clamp done in float before the rounding: RNE is monotone and fixes integers, so
///   clamp(RNE_sat(v), lo, hi) = RNE(clamp(v, lo, hi))
/// (v >= 2^31 saturates to INT32_MAX >= hi, v < -2^31 to INT32_MIN <= lo, both sides agree), and
/// the clamped value needs no saturation fix-up. For the fused GEMM epilogue's 8- and 16-bit
/// outputs (F32-ZPF's output stage is clamp(y, qmin, qmax) + 0): vmaxps, vminps and one rounding
/// conversion instead of compare, conversion, masked constant, vpmaxsd, vpminsd (AVX-512).
QPARITY_SIMD_INLINE I float_core_clamped(I x, const FloatRegs& r, const FloatBatch& lo, const FloatBatch& hi) {
  FloatBatch v = int_to_float(x) * r.scale;
  v = v + r.bias;
  v = v * r.post;
  v = v + r.zp;
  return round_half_even_in_range(xsimd::min(xsimd::max(v, lo), hi));
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
  const OutputStagePlan p = plan_output_stage(o, zero_point_inside);
  return OutRegs{Ops::set1(p.lo), Ops::set1(p.hi), Ops::set1(p.add)};
}

QPARITY_SIMD_INLINE I finish(I y, const OutRegs& o) { return Ops::add32(Ops::min32(Ops::max32(y, o.lo), o.hi), o.add); }

/// The output stage of int32 output with zero point 0 and no clamp (the raw core): nothing to do.
struct RawOutput {};
QPARITY_SIMD_INLINE I finish(I y, const RawOutput&) { return y; }

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity

#include "rounding/requantize_loops.h"
