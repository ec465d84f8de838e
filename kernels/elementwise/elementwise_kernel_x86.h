// INTERNAL: the element-wise kernels of kernels/elementwise/elementwise_kernel.h for the x86 SIMD
// paths, written once over rounding/requantize_x86.h's per-vector cores and compiled per ISA
// (kernels/elementwise/elementwise_{sse41,avx2,avx512}.cc), each in its own namespace
// (QPARITY_ISA_NS: ew_sse41, ew_avx2, ew_avx512; see the ODR note in rounding/simd_x86.h). Not
// installed. Like requantize_x86.h, nothing here calls an inline function of the public headers.
//
// One vector holds kW = Ops::kLanes elements widened to int32 lanes (4, 8, 16). Each kernel is a
// functor on two such vectors; row() runs it over whole vectors and then once over the zero-padded
// remainder (copied through a small stack buffer, so no load or store leaves the row).
//
// Exactness, kernel by kernel (v_i = x_i - z_i, |v_i| <= 255):
//   kTfliteAddSub   a_i = v_i * 2^20 (|a_i| < 2^28), then int_core, the SIMD requantization core
//                   that is bit-exact with the policies (tests/simd), three times (an input whose
//                   multiplier is exactly 1/2, as the larger input's always is, is v_i 2^19 exactly:
//                   is_half); b1 +- b2 cannot overflow (|b_i| <= |a_i| / 2).
//   kXnnpackAddSub  v1 A + v2 B + 2^(s-1) with |A|, |B| <= 2^21: |.| < 2^31 (elementwise.h), so the
//                   int32 lanes are exact; the zero points are folded into the bias modulo 2^32,
//                   which wraps back to the exact sum.
//   kIntMul         v1 v2 exact (|.| <= 65025), then int_core.
//   kFloatMul       float_core<false>: RNE_sat(float(acc) * scale), XNNPACK's fp32 formula.
//   kNpuAddSub      the exact sum of two 64-bit products (the driver bounds them), then round64,
//                   int_core's single-rounding steps; the result is below 2^30 (driver).
// The output stage is finish(): clamp(y, qmin - zo, qmax - zo) + zo, the exact clamp(y + zo).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/elementwise/elementwise_kernel.h"
#include "rounding/requantize_x86.h"

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

// ---- widening loads and 32-bit helpers the requantization Ops do not have ----------------------

/// kW elements at p (int8 or uint8) as int32 lanes.
template <class T>
QPARITY_SIMD_INLINE I load_widen(const T* p) {
  constexpr bool kU8 = sizeof(T) == 1 && static_cast<T>(-1) > 0;
#if QPARITY_X86_VECTOR_BITS == 128
  std::int32_t w;
  std::memcpy(&w, p, 4);
  const __m128i b = _mm_cvtsi32_si128(w);
  return kU8 ? _mm_cvtepu8_epi32(b) : _mm_cvtepi8_epi32(b);
#elif QPARITY_X86_VECTOR_BITS == 256
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return kU8 ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
#else
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return kU8 ? _mm512_cvtepu8_epi32(b) : _mm512_cvtepi8_epi32(b);
#endif
}

/// Low 32 bits of the lane products.
QPARITY_SIMD_INLINE I mullo32(I a, I b) {
#if QPARITY_X86_VECTOR_BITS == 128
  return _mm_mullo_epi32(a, b);
#elif QPARITY_X86_VECTOR_BITS == 256
  return _mm256_mullo_epi32(a, b);
#else
  return _mm512_mullo_epi32(a, b);
#endif
}

/// a << k in every lane, k a constant (20: the headroom shift of TFLite's 8-bit ADD / SUB).
template <int kCount>
QPARITY_SIMD_INLINE I shl_imm(I a) {
#if QPARITY_X86_VECTOR_BITS == 128
  return _mm_slli_epi32(a, kCount);
#elif QPARITY_X86_VECTOR_BITS == 256
  return _mm256_slli_epi32(a, kCount);
#else
  return _mm512_slli_epi32(a, kCount);
#endif
}
QPARITY_SIMD_INLINE I shl20(I a) { return shl_imm<20>(a); }
QPARITY_SIMD_INLINE I shl19(I a) { return shl_imm<19>(a); }

/// The per-tensor registers of one requantization (the core's plan, broadcast to every lane). The
/// direct (not high-half) mode: on AVX-512 the bias is used as is, elsewhere flipped (broadcast()).
template <RoundingCore kCore>
QPARITY_SIMD_INLINE IntRegs regs_for(const RequantParams& p) {
  return broadcast(plan_int_for<kCore>(p), false);
}

template <RoundingCore kCore>
QPARITY_SIMD_INLINE I requant(I x, const IntRegs& r, std::true_type /*pre*/) {
  return int_core<IntCorePlan<kCore>::kForm, true, false, true>(x, r);
}
template <RoundingCore kCore>
QPARITY_SIMD_INLINE I requant(I x, const IntRegs& r, std::false_type /*pre*/) {
  return int_core<IntCorePlan<kCore>::kForm, false, false, true>(x, r);
}

/// The high-half mode's registers and core (every lane's right shift s >= 32; ISAs with per-lane
/// 32-bit shifts): the bias is never flipped there.
template <RoundingCore kCore>
QPARITY_SIMD_INLINE IntRegs high_regs_for(const RequantParams& p) {
  return broadcast(plan_int_for<kCore>(p), true);
}
template <RoundingCore kCore, bool kHigh>
QPARITY_SIMD_INLINE I requant_mode(I x, const IntRegs& r) {
  return int_core<IntCorePlan<kCore>::kForm, false, kHigh, true>(x, r);
}

/// Whether a TFLite ADD / SUB input multiplier is exactly 1/2 ({2^30, 0}, the larger input's
/// s / (2 s)): then R(v 2^20) = v 2^19 exactly under DR-AZ (SRDHM of a multiple of 2^31 plus the
/// nudge truncates back to it; no second rounding at shift 0) and SR-UP (floor((v 2^50 + 2^30) /
/// 2^31)), so the core is a shift.
inline bool is_half(const RequantParams& m) { return m.multiplier == (1 << 30) && m.shift == 0; }

/// x << count in every lane (count a runtime value in [0, 31], the same for all lanes).
QPARITY_SIMD_INLINE I shl32_uniform(I x, __m128i count) {
#if QPARITY_X86_VECTOR_BITS == 128
  return _mm_sll_epi32(x, count);
#elif QPARITY_X86_VECTOR_BITS == 256
  return _mm256_sll_epi32(x, count);
#else
  return _mm512_sll_epi32(x, count);
#endif
}

/// The single rounding of the 64-bit values in the even (pe) and odd (po) lanes by 2^s with the
/// form of an integer core, to int32 lanes: int_core's steps after its products (the same biases,
/// sign and bit tests, and, without a 64-bit arithmetic shift, the same flipped bias).
template <IntForm kForm>
QPARITY_SIMD_INLINE I round64(I pe, I po, const IntRegs& r) {
  static_assert(kForm != IntForm::kSignedOffset, "DR-AZ's offset form is not a single rounding");
  if (kForm == IntForm::kSigned) {
    pe = Ops::add_if_negative64(pe, r.n_e);
    po = Ops::add_if_negative64(po, r.n_o);
  }
  if (kForm == IntForm::kEven) {
    pe = Ops::dec_if_clear64(pe, r.n_e);
    po = Ops::dec_if_clear64(po, r.n_o);
  }
  pe = Ops::add64(pe, r.c_e);
  po = Ops::add64(po, r.c_o);
  const I y = Ops::combine(Ops::template shr64<true>(pe, r.s_e), Ops::template shr64<true>(po, r.s_o));
  if constexpr (Ops::kHasSra64) {
    return y;
  } else {
    return Ops::sub32(y, r.k);
  }
}

// ---- the row loop -------------------------------------------------------------------------------

template <class T, class F>
QPARITY_SIMD_INLINE void row(const T* a, const T* b, T* out, std::size_t n, const F& f) {
  std::size_t i = 0;
  for (; i + 2 * kW <= n; i += 2 * kW) {
    const I y0 = f(load_widen(a + i), load_widen(b + i));
    const I y1 = f(load_widen(a + i + kW), load_widen(b + i + kW));
    Ops::store_out(out + i, y0);
    Ops::store_out(out + i + kW, y1);
  }
  for (; i + kW <= n; i += kW) Ops::store_out(out + i, f(load_widen(a + i), load_widen(b + i)));
  if (i < n) {
    const std::size_t rest = n - i;
    alignas(16) T ta[16] = {}, tb[16] = {}, to[16] = {};
    copy_small<kW>(ta, a + i, rest * sizeof(T));
    copy_small<kW>(tb, b + i, rest * sizeof(T));
    Ops::store_out(to, f(load_widen(ta), load_widen(tb)));
    copy_small<kW>(out + i, to, rest * sizeof(T));
  }
}

// ---- the kernels --------------------------------------------------------------------------------

/// kHalf1 / kHalf2: that input's multiplier is 1/2 (is_half), its rounding a shift by 19. kHigh:
/// the other rescales run in the high-half mode (their right shifts are all >= 32).
template <RoundingCore kCore, bool kSub, bool kHalf1, bool kHalf2, bool kHigh>
struct TfliteAddSub {
  I z1, z2;
  IntRegs r1, r2, ro;
  OutRegs out;
  static IntRegs regs(const RequantParams& m) { return kHigh ? high_regs_for<kCore>(m) : regs_for<kCore>(m); }
  explicit TfliteAddSub(const EwPlan& p)
      : z1(Ops::set1(p.z1)), z2(Ops::set1(p.z2)), r1(regs(p.m1)), r2(regs(p.m2)), ro(regs(p.mo)),
        out(output_regs(p.output, false)) {}
  QPARITY_SIMD_INLINE I rescale(I v, const IntRegs&, std::true_type /*half*/) const { return shl19(v); }
  QPARITY_SIMD_INLINE I rescale(I v, const IntRegs& r, std::false_type /*half*/) const {
    return requant_mode<kCore, kHigh>(shl20(v), r);
  }
  QPARITY_SIMD_INLINE I operator()(I x1, I x2) const {
    const I b1 = rescale(Ops::sub32(x1, z1), r1, std::integral_constant<bool, kHalf1>{});
    const I b2 = rescale(Ops::sub32(x2, z2), r2, std::integral_constant<bool, kHalf2>{});
    const I c = kSub ? Ops::sub32(b1, b2) : Ops::add32(b1, b2);
    return finish(requant_mode<kCore, kHigh>(c, ro), out);
  }
};

struct XnnpackAddSub {
  I a, b, bias, count;
  OutRegs out;
  explicit XnnpackAddSub(const EwPlan& p)
      : a(Ops::set1(p.xnn_a)), b(Ops::set1(p.xnn_b)),
        // 2^(s-1) - z1 A - z2 B, modulo 2^32 (see the top of the file).
        bias(Ops::set1(static_cast<std::int32_t>(static_cast<std::uint32_t>(
            (std::int64_t{1} << (p.xnn_shift - 1)) - static_cast<std::int64_t>(p.z1) * p.xnn_a -
            static_cast<std::int64_t>(p.z2) * p.xnn_b)))),
        count(Ops::set_sra32_count(p.xnn_shift)), out(output_regs(p.output, false)) {}
  QPARITY_SIMD_INLINE I operator()(I x1, I x2) const {
    const I acc = Ops::add32(Ops::add32(mullo32(x1, a), mullo32(x2, b)), bias);
    return finish(Ops::sra32<true>(acc, count), out);
  }
};

template <RoundingCore kCore, bool kPre>
struct IntMul {
  I z1, z2;
  IntRegs r;
  OutRegs out;
  explicit IntMul(const EwPlan& p)
      : z1(Ops::set1(p.z1)), z2(Ops::set1(p.z2)), r(regs_for<kCore>(p.mo)), out(output_regs(p.output, false)) {}
  QPARITY_SIMD_INLINE I operator()(I x1, I x2) const {
    const I acc = mullo32(Ops::sub32(x1, z1), Ops::sub32(x2, z2));
    return finish(requant<kCore>(acc, r, std::integral_constant<bool, kPre>{}), out);
  }
};

struct FloatMul {
  I z1, z2;
  FloatRegs f;
  OutRegs out;
  explicit FloatMul(const EwPlan& p)
      : z1(Ops::set1(p.z1)), z2(Ops::set1(p.z2)),
        f{FloatBatch(p.scale), FloatBatch(0.0f), FloatBatch(1.0f), FloatBatch(0.0f)},
        out(output_regs(p.output, false)) {}
  QPARITY_SIMD_INLINE I operator()(I x1, I x2) const {
    const I acc = mullo32(Ops::sub32(x1, z1), Ops::sub32(x2, z2));
    return finish(float_core<false>(acc, f), out);
  }
};

/// The NPU hypothesis's ADD / SUB: P = v1 2^d1 M1 +- v2 2^d2 M2 exactly in 64-bit lanes (|v 2^d| <
/// 2^30, M < 2^31: each product below 2^61), then one rounding by 2^k with the tie rule's core.
template <RoundingCore kCore, bool kSub>
struct NpuAddSub {
  I z1, z2, m1, m2;
  __m128i d1, d2;
  IntRegs r;
  OutRegs out;
  static IntRegs tail_regs(std::int32_t k) {
    RequantParams t;
    t.multiplier = 0;
    t.shift = 31 - k;  // the single-rounding plans' s = 31 - shift = k
    return regs_for<kCore>(t);
  }
  explicit NpuAddSub(const EwPlan& p)
      : z1(Ops::set1(p.z1)), z2(Ops::set1(p.z2)), m1(Ops::set1(p.npu_m1)), m2(Ops::set1(p.npu_m2)),
        d1(_mm_cvtsi32_si128(p.npu_d1)), d2(_mm_cvtsi32_si128(p.npu_d2)), r(tail_regs(p.npu_k)),
        out(output_regs(p.output, false)) {}
  QPARITY_SIMD_INLINE I operator()(I x1, I x2) const {
    const I a1 = shl32_uniform(Ops::sub32(x1, z1), d1);
    I a2 = shl32_uniform(Ops::sub32(x2, z2), d2);
    if (kSub) a2 = Ops::sub32(Ops::zero(), a2);
    const I pe = Ops::add64(Ops::mul_even(a1, m1), Ops::mul_even(a2, m2));
    const I po = Ops::add64(Ops::mul_even(Ops::odd_to_even(a1), m1), Ops::mul_even(Ops::odd_to_even(a2), m2));
    return finish(round64<IntCorePlan<kCore>::kForm>(pe, po, r), out);
  }
};

// ---- row functions and selection ----------------------------------------------------------------

template <class K, class T>
void row_fn(const EwPlan& p, const void* a, const void* b, void* out, std::size_t n) {
  const K k(p);
  row(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n, k);
}

template <class K>
EwRowFn pick_type(bool u8) {
  return u8 ? &row_fn<K, std::uint8_t> : &row_fn<K, std::int8_t>;
}

/// kIntMul for one core: the pre-shift variant only for DR-AZ, the one core whose plan can have
/// one here (TFLite's MUL with s1 s2 / so > 1); the single-rounding cores never pre-shift.
template <RoundingCore kCore>
EwRowFn pick_mul(const EwPlan& p, bool u8) {
  if constexpr (kCore == RoundingCore::kDoubleRoundingAwayFromZero) {
    if (p.pre_shift) return pick_type<IntMul<kCore, true>>(u8);
  } else {
    if (p.pre_shift) return nullptr;
  }
  return pick_type<IntMul<kCore, false>>(u8);
}

/// TFLite ADD / SUB: which inputs are halves and whether the high-half mode applies (every shift
/// <= -1 among the other rescales: DR-AZ's s = 31 + R and SR-UP's s = 31 - shift are then >= 32).
template <RoundingCore kCore, bool kSub, bool kHalf1, bool kHalf2>
EwRowFn pick_add_mode(const EwPlan& p, bool u8) {
  const bool high = Ops::kHasVarShift32 && (kHalf1 || p.m1.shift <= -1) && (kHalf2 || p.m2.shift <= -1) &&
                    p.mo.shift <= -1;
  if constexpr (Ops::kHasVarShift32) {
    if (high) return pick_type<TfliteAddSub<kCore, kSub, kHalf1, kHalf2, true>>(u8);
  }
  return pick_type<TfliteAddSub<kCore, kSub, kHalf1, kHalf2, false>>(u8);
}

template <RoundingCore kCore, bool kSub>
EwRowFn pick_add_halves(const EwPlan& p, bool u8) {
  const bool h1 = is_half(p.m1), h2 = is_half(p.m2);
  if (h1 && h2) return pick_add_mode<kCore, kSub, true, true>(p, u8);
  if (h1) return pick_add_mode<kCore, kSub, true, false>(p, u8);
  if (h2) return pick_add_mode<kCore, kSub, false, true>(p, u8);
  return pick_add_mode<kCore, kSub, false, false>(p, u8);
}

template <RoundingCore kCore>
EwRowFn pick_add(const EwPlan& p, bool u8) {
  return p.sub ? pick_add_halves<kCore, true>(p, u8) : pick_add_halves<kCore, false>(p, u8);
}

template <RoundingCore kCore>
EwRowFn pick_npu(const EwPlan& p, bool u8) {
  return p.sub ? pick_type<NpuAddSub<kCore, true>>(u8) : pick_type<NpuAddSub<kCore, false>>(u8);
}

inline EwRowFn select(const EwPlan& p, bool u8) {
  // The plan's shifts must be those int_core handles (s = 31 - shift, or 31 + R, in [1, 62]); the
  // driver only builds such plans, this is a second line of defence.
  switch (p.kernel) {
    case EwKernel::kTfliteAddSub:
      if (p.left_shift != 20) return nullptr;
      if (p.core == RoundingCore::kDoubleRoundingAwayFromZero) return pick_add<RoundingCore::kDoubleRoundingAwayFromZero>(p, u8);
      if (p.core == RoundingCore::kSingleRoundingUpward) return pick_add<RoundingCore::kSingleRoundingUpward>(p, u8);
      return nullptr;
    case EwKernel::kXnnpackAddSub:
      return pick_type<XnnpackAddSub>(u8);
    case EwKernel::kIntMul:
      switch (p.core) {
        case RoundingCore::kDoubleRoundingAwayFromZero: return pick_mul<RoundingCore::kDoubleRoundingAwayFromZero>(p, u8);
        case RoundingCore::kSingleRoundingUpward: return pick_mul<RoundingCore::kSingleRoundingUpward>(p, u8);
        case RoundingCore::kSingleRoundingAwayFromZero: return pick_mul<RoundingCore::kSingleRoundingAwayFromZero>(p, u8);
        case RoundingCore::kSingleRoundingToEven: return pick_mul<RoundingCore::kSingleRoundingToEven>(p, u8);
        case RoundingCore::kTruncate: return pick_mul<RoundingCore::kTruncate>(p, u8);
        case RoundingCore::kFloor: return pick_mul<RoundingCore::kFloor>(p, u8);
        default: return nullptr;
      }
    case EwKernel::kFloatMul:
      return pick_type<FloatMul>(u8);
    case EwKernel::kNpuAddSub:
      switch (p.core) {
        case RoundingCore::kSingleRoundingUpward: return pick_npu<RoundingCore::kSingleRoundingUpward>(p, u8);
        case RoundingCore::kSingleRoundingAwayFromZero: return pick_npu<RoundingCore::kSingleRoundingAwayFromZero>(p, u8);
        case RoundingCore::kSingleRoundingToEven: return pick_npu<RoundingCore::kSingleRoundingToEven>(p, u8);
        case RoundingCore::kTruncate: return pick_npu<RoundingCore::kTruncate>(p, u8);
        case RoundingCore::kFloor: return pick_npu<RoundingCore::kFloor>(p, u8);
        default: return nullptr;
      }
    case EwKernel::kPerElement:
      return nullptr;
  }
  return nullptr;
}

inline ElementwiseKernelSet kernel_set(const char* isa_name) {
  ElementwiseKernelSet s;
  s.isa_name = isa_name;
  s.lanes = kW;
  s.select = &select;
  return s;
}

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
