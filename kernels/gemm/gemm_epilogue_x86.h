// INTERNAL: the fused GEMM epilogue (kernels/gemm/gemm_epilogue.h) for the x86 SIMD paths, written
// once over rounding/requantize_x86.h's per-vector cores and compiled per ISA
// (kernels/gemm/gemm_epilogue_{avx2,avx512}.cc), each in its own namespace (see the ODR note in
// rounding/simd_x86.h). Not installed.
//
// Plan layout, per vector of kW output channels: the 11 registers of IntRegs (m_e, m_o, c_e, c_o,
// n_e, n_o, s_e, s_o, l, k, h), or for the float cores scale, bias, post_scale (3 registers), as
// IntSoA / FloatSoA::at() would load them (DR-AZ in the high-half mode on AVX-512: rewritten for
// dr_az_doubled_core, see build_plan_with). The plan is built with IntSoA / FloatSoA::fill, block of
// kBlock channels by block, so the registers are exactly the separate pass's; the register form
// (core form, pre-shift, high-half mode) is chosen once for all channels:
//   pre  = any block needs the pre-shift (a shift by 0 is exact for the others),
//   high = every block is in the high-half mode. On AVX-512 (vpsravq, bias never flipped) a block
//          that could use it is also exact in the direct mode; on AVX2 the direct mode needs the
//          flipped bias, so blocks that disagree make build() decline (the separate pass runs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/gemm_epilogue.h"
#include "rounding/requantize_x86.h"

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

constexpr std::size_t kIntRegCount = 11;
constexpr std::size_t kVecBytes = kIntRegCount * sizeof(I);

QPARITY_SIMD_INLINE void store_int_regs(std::uint8_t* p, const IntRegs& r) {
  const I v[kIntRegCount] = {r.m_e, r.m_o, r.c_e, r.c_o, r.n_e, r.n_o, r.s_e, r.s_o, r.l, r.k, r.h};
  for (std::size_t i = 0; i < kIntRegCount; ++i) Ops::store(p + i * sizeof(I), v[i]);
}

QPARITY_SIMD_INLINE IntRegs load_int_regs(const std::uint8_t* p) {
  IntRegs r;
  r.m_e = Ops::load(p), r.m_o = Ops::load(p + sizeof(I));
  r.c_e = Ops::load(p + 2 * sizeof(I)), r.c_o = Ops::load(p + 3 * sizeof(I));
  r.n_e = Ops::load(p + 4 * sizeof(I)), r.n_o = Ops::load(p + 5 * sizeof(I));
  r.s_e = Ops::load(p + 6 * sizeof(I)), r.s_o = Ops::load(p + 7 * sizeof(I));
  r.l = Ops::load(p + 8 * sizeof(I));
  r.k = Ops::load(p + 9 * sizeof(I));
  r.h = Ops::load(p + 10 * sizeof(I));
  r.off = Ops::set1_64(kDrOffset);
  asm("" : "+v"(r.off));  // a register the compiler cannot re-materialise (see IntRegs)
  r.ones = Ops::set1_64(-1);
  asm("" : "+v"(r.ones));  // (the same: GCC 12 rebuilt it with a vpternlogd per vector)
  r.combine = Ops::combine_mask();
  return r;
}

/// The block loop: for each vector of columns, its registers once, then every row.
/// kSaturated: as in BlockVectors (the core's result is inside [lo, hi] or narrowing saturates).
/// kColAdd: a.col_add's vector of the columns is added (VPADDD, wrapping) to each accumulator
/// vector first.
template <bool kSaturated, bool kColAdd, class Out, class Load, class Core>
QPARITY_SIMD_INLINE void run_block_with(const EpilogueArgs& a, Out* dst, std::size_t ldc,
                                        const Load& load_regs, const Core& core) {
  const OutRegs o{Ops::set1(a.lo), Ops::set1(a.hi), Ops::set1(a.add)};
  const auto finish = [&o](I y) { return kSaturated ? Ops::add32(y, o.add) : QPARITY_ISA_NS::finish(y, o); };
  const std::size_t rows = a.rows, ld = a.ld;
  for (std::size_t c = 0; c < a.cols; c += kW) {
    const auto regs = load_regs(a.chan + (c / kW) * a.chan_stride);
    const std::int32_t* acc = a.acc + c;
    const I col = kColAdd ? Ops::load(a.col_add + c) : Ops::zero();
    const auto x = [acc, ld, col](std::size_t i) {
      const I v = Ops::load(acc + i * ld);
      return kColAdd ? Ops::add32(v, col) : v;
    };
    Out* d = dst + c;
    const std::size_t n = a.cols - c;
    if (n >= kW) {
      std::size_t i = 0;
      for (; i + 2 <= rows; i += 2) {
        const I y0 = finish(core(x(i), regs));
        const I y1 = finish(core(x(i + 1), regs));
        Ops::store_out(d + i * ldc, y0);
        Ops::store_out(d + (i + 1) * ldc, y1);
      }
      if (i < rows) Ops::store_out(d + i * ldc, finish(core(x(i), regs)));
    } else {
      for (std::size_t i = 0; i < rows; ++i) {
        Ops::store_out_partial(d + i * ldc, finish(core(x(i), regs)), n);
      }
    }
  }
}

/// run_block_with, the column addition decided once per block (a.col_add null or not).
template <bool kSaturated = false, class Out, class Load, class Core>
QPARITY_SIMD_INLINE void run_block(const EpilogueArgs& a, Out* dst, std::size_t ldc,
                                   const Load& load_regs, const Core& core) {
  if (a.col_add != nullptr) {
    run_block_with<kSaturated, true>(a, dst, ldc, load_regs, core);
  } else {
    run_block_with<kSaturated, false>(a, dst, ldc, load_regs, core);
  }
}

/// The vectors of one epilogue block given as registers, for a micro-kernel that requantizes its
/// accumulators before they ever reach memory (FusedFn): vector (i, c) is row i, columns
/// [c, c + kW) (c a multiple of kW, below cols). Same arithmetic and stores as run_block.
/// The block's fields are copied in, and the kernel keeps its copy as a local: stores of int8
/// outputs may alias any memory as far as the compiler knows, so fields read through a pointer
/// were re-read, and the column's registers re-loaded, after every store (measured: 156 scalar
/// moves in the DR-AZ kernel's epilogue). The caller loads a column's registers once (regs) and
/// passes them to every row's run.
/// kSaturated: the output stage is y + zp narrowed with saturation, for calls whose clamp is Out's
/// whole range and whose core cannot come near the int32 limits (the high-half mode: |y| < 2^31 -
/// 2^16, see EpiloguePlan::fused_saturated); 2 instructions instead of 4 (clamp twice, add,
/// narrow) for int8 and int16, 3 for uint8. Also F32-ZPF's 8- and 16-bit outputs, whose core
/// clamps in float (float_vectors).
template <class Out, class Load, class Core, bool kSaturated = false>
struct BlockVectors {
  const std::uint8_t* chan;
  std::size_t chan_stride, cols;
  Out* dst;
  std::size_t ldc;
  OutRegs o;
  Load load_regs;
  Core core;

  QPARITY_SIMD_INLINE auto regs(std::size_t c) const { return load_regs(chan + (c / kW) * chan_stride); }
  template <class Regs>
  QPARITY_SIMD_INLINE void run(std::size_t i, std::size_t c, I x, const Regs& r) const {
    // Saturated: no clamp, the narrowing store saturates (Ops::store_out).
    const I y = kSaturated ? Ops::add32(core(x, r), o.add) : finish(core(x, r), o);
    const std::size_t n = cols - c;
    if (n >= kW) {
      Ops::store_out(dst + i * ldc + c, y);
    } else {
      Ops::store_out_partial(dst + i * ldc + c, y, n);
    }
  }
};

template <bool kSaturated = false, class Out, class Load, class Core>
QPARITY_SIMD_INLINE BlockVectors<Out, Load, Core, kSaturated> block_vectors(const EpilogueArgs& a, Out* dst,
                                                                            std::size_t ldc, Load load,
                                                                            Core core) {
  return BlockVectors<Out, Load, Core, kSaturated>{
      a.chan, a.chan_stride, a.cols, dst, ldc, OutRegs{Ops::set1(a.lo), Ops::set1(a.hi), Ops::set1(a.add)},
      load, core};
}

/// The registers of one vector of channels as kForm's core takes them.
template <IntForm kForm, bool kHigh>
QPARITY_SIMD_INLINE IntRegs load_int_regs_for(const std::uint8_t* p) {
  IntRegs r = load_int_regs(p);
#if QPARITY_X86_VECTOR_BITS == 512
  if constexpr (kForm == IntForm::kSignedOffset && !kHigh) fold_dr_offset(r);
#endif
  return r;
}

/// DR-AZ on AVX-512 runs dr_az_doubled_core in the high-half mode (requantize_x86.h: an unsigned
/// product by 2M, one sign mask of x', a masked subtraction and a logical / arithmetic shift pair;
/// 10 instructions per vector; its registers are written into the plan by build_plan_with), else
/// masked_signed_core (a compare into a mask and a masked add; its 2^30 folded into the bias when
/// a column's registers are loaded, once for all the rows of a block): 11 instructions per vector
/// instead of int_core's 13. The other cores run validated_int_core
/// (the weights' parameters are validated), SR-AZ and TRUNC through symmetric_core. Same bits as
/// the separate requantization pass.
template <IntForm kForm, bool kPre, bool kHigh>
QPARITY_SIMD_INLINE I epilogue_int_core(I x, const IntRegs& r) {
#if QPARITY_X86_VECTOR_BITS == 512
  if constexpr (kForm == IntForm::kSignedOffset && kHigh) {
    return dr_az_doubled_core<kPre>(x, r);  // the plan holds its registers (build_plan_with)
  } else if constexpr (kForm == IntForm::kSignedOffset) {
    return masked_signed_core<kForm, kPre, kHigh>(x, r);
  }
#endif
  return validated_int_core<kForm, kPre, kHigh, false>(x, r);
}

template <class Out, IntForm kForm, bool kPre, bool kHigh, bool kSaturated = false>
QPARITY_SIMD_INLINE auto int_vectors(const EpilogueArgs& a, Out* dst, std::size_t ldc) {
  static_assert(!kSaturated || kHigh, "the saturating output stage relies on the high-half bound");
  return block_vectors<kSaturated>(
      a, dst, ldc, [](const std::uint8_t* p) { return load_int_regs_for<kForm, kHigh>(p); },
      [](I x, const IntRegs& r) { return epilogue_int_core<kForm, kPre, kHigh>(x, r); });
}

/// F32-ZPF's output clamp bounds as floats for float_core_clamped: lo and hi limited to
/// [-2^24, 2^24] (exact floats; the 8- and 16-bit outputs lie inside, and clamping to a bound
/// beyond them then narrowing with saturation gives what clamping to the limited bound does).
QPARITY_SIMD_INLINE FloatBatch float_bound(std::int32_t v) {
  constexpr std::int32_t kExact = std::int32_t{1} << 24;
  return FloatBatch(static_cast<float>(v < -kExact ? -kExact : v > kExact ? kExact : v));
}

/// The float cores' plan registers (scale, bias, post_scale) and the zero point.
QPARITY_SIMD_INLINE FloatRegs load_float_regs(const std::uint8_t* p, const FloatBatch& zp) {
  const float* f = reinterpret_cast<const float*>(p);
  return FloatRegs{FloatBatch::load_aligned(f), FloatBatch::load_aligned(f + kW),
                   FloatBatch::load_aligned(f + 2 * kW), zp};
}

/// F32-ZPF with an 8- or 16-bit output clamps in float (float_core_clamped) and takes the
/// saturating output stage (y + add, add = 0 for F32-ZPF, then a saturating narrowing store).
template <class Out, bool kZeroPointInside>
constexpr bool kFloatClampFirst = kZeroPointInside && sizeof(Out) < sizeof(std::int32_t);

template <class Out, bool kZeroPointInside>
QPARITY_SIMD_INLINE auto float_vectors(const EpilogueArgs& a, Out* dst, std::size_t ldc) {
  const FloatBatch zp(a.zero_point);
  if constexpr (kFloatClampFirst<Out, kZeroPointInside>) {
    const FloatBatch lo = float_bound(a.lo), hi = float_bound(a.hi);
    return block_vectors<true>(
        a, dst, ldc, [zp](const std::uint8_t* p) { return load_float_regs(p, zp); },
        [lo, hi](I x, const FloatRegs& r) { return float_core_clamped(x, r, lo, hi); });
  } else {
    return block_vectors(
        a, dst, ldc, [zp](const std::uint8_t* p) { return load_float_regs(p, zp); },
        [](I x, const FloatRegs& r) { return float_core<kZeroPointInside>(x, r); });
  }
}

/// kSaturated: the saturating output stage (y + zp, then a saturating narrowing store), as
/// BlockVectors' (the high-half mode only).
template <class Out, IntForm kForm, bool kPre, bool kHigh, bool kSaturated = false>
void int_block(const EpilogueArgs& a, Out* dst, std::size_t ldc) {
  static_assert(!kSaturated || kHigh, "the saturating output stage relies on the high-half bound");
  run_block<kSaturated>(
      a, dst, ldc, [](const std::uint8_t* p) { return load_int_regs_for<kForm, kHigh>(p); },
      [](I x, const IntRegs& r) { return epilogue_int_core<kForm, kPre, kHigh>(x, r); });
}

template <class Out, bool kZeroPointInside>
void float_block(const EpilogueArgs& a, Out* dst, std::size_t ldc) {
  const FloatBatch zp(a.zero_point);
  if constexpr (kFloatClampFirst<Out, kZeroPointInside>) {
    const FloatBatch lo = float_bound(a.lo), hi = float_bound(a.hi);
    run_block<true>(
        a, dst, ldc, [&zp](const std::uint8_t* p) { return load_float_regs(p, zp); },
        [&lo, &hi](I x, const FloatRegs& r) { return float_core_clamped(x, r, lo, hi); });
    return;
  }
  run_block(
      a, dst, ldc, [&zp](const std::uint8_t* p) { return load_float_regs(p, zp); },
      [](I x, const FloatRegs& r) { return float_core<kZeroPointInside>(x, r); });
}

template <IntForm kForm, bool kPre, bool kHigh>
void set_int_fns(EpilogueFns* f) {
  f->to_int8 = &int_block<std::int8_t, kForm, kPre, kHigh>;
  f->to_uint8 = &int_block<std::uint8_t, kForm, kPre, kHigh>;
  f->to_int16 = &int_block<std::int16_t, kForm, kPre, kHigh>;
  f->to_int32 = &int_block<std::int32_t, kForm, kPre, kHigh>;
}

template <bool kZeroPointInside>
void set_float_fns(EpilogueFns* f) {
  f->to_int8 = &float_block<std::int8_t, kZeroPointInside>;
  f->to_uint8 = &float_block<std::uint8_t, kZeroPointInside>;
  f->to_int16 = &float_block<std::int16_t, kZeroPointInside>;
  f->to_int32 = &float_block<std::int32_t, kZeroPointInside>;
}

/// Fills dst with the plan of params[0, count) and calls set_int(form, pre, high) (compile-time
/// values, std::integral_constant) or set_float(zero_point_inside) with the register form every
/// channel can use; false when there is none (see the top).
template <class SetInt, class SetFloat>
inline bool build_plan_with(RoundingCore core, const RequantParams* params, std::size_t count,
                            std::uint8_t* dst, const SetInt& set_int, const SetFloat& set_float) {
  const bool is_float =
      core == RoundingCore::kFloat32 || core == RoundingCore::kFloat32ZeroPointInside;
  if (is_float) {
    FloatSoA soa;
    for (std::size_t c0 = 0; c0 < count; c0 += kBlock) {
      const std::size_t nb = count - c0 < kBlock ? count - c0 : kBlock;
      soa.fill(params + c0, nb);
      for (std::size_t i = 0; i < nb; i += kW) {
        float* f = reinterpret_cast<float*>(dst + ((c0 + i) / kW) * kVecBytes);
        for (std::size_t l = 0; l < kW; ++l) {
          f[l] = soa.scale[i + l];
          f[kW + l] = soa.bias[i + l];
          f[2 * kW + l] = soa.post[i + l];
        }
      }
    }
    if (core == RoundingCore::kFloat32) {
      set_float(std::false_type{});
    } else {
      set_float(std::true_type{});
    }
    return true;
  }
  IntSoA soa;
  bool pre = false, high = true, any_high = false;
  for (std::size_t c0 = 0; c0 < count; c0 += kBlock) {
    const std::size_t nb = count - c0 < kBlock ? count - c0 : kBlock;
    const IntSoA::Flags f = soa.fill(core, params + c0, nb);
    pre = pre || f.pre;
    high = high && f.high;
    any_high = any_high || f.high;
    for (std::size_t i = 0; i < nb; i += kW) {
      store_int_regs(dst + ((c0 + i) / kW) * kVecBytes, soa.at(i));
    }
  }
  if (!Ops::kHasSra64 && any_high && !high) return false;  // mixed bias forms (see the top)
#if QPARITY_X86_VECTOR_BITS == 512
  // DR-AZ in the high-half mode runs dr_az_doubled_core, whose registers replace the plan's.
  if (int_form(core) == IntForm::kSignedOffset && high) {
    for (std::size_t i = 0; i < count; i += kW) {
      std::uint8_t* v = dst + (i / kW) * kVecBytes;
      store_int_regs(v, dr_az_doubled_regs(load_int_regs(v)));
    }
  }
#endif
  with_int_variant<Ops::kHasVarShift32>(int_form(core), pre, high, set_int);
  return true;
}

inline bool build_plan(RoundingCore core, const RequantParams* params, std::size_t count,
                       std::uint8_t* dst, EpilogueFns* fns, EpilogueVariant* variant) {
  return build_plan_with(
      core, params, count, dst,
      [fns, variant](auto form_c, auto pre_c, auto high_c) {
        set_int_fns<decltype(form_c)::value, decltype(pre_c)::value, decltype(high_c)::value>(fns);
        *variant = EpilogueVariant{false, false, static_cast<std::uint8_t>(decltype(form_c)::value),
                                   decltype(pre_c)::value, decltype(high_c)::value};
      },
      [fns, variant](auto zp_inside_c) {
        set_float_fns<decltype(zp_inside_c)::value>(fns);
        *variant = EpilogueVariant{true, decltype(zp_inside_c)::value, 0, false, false};
      });
}

/// Calls f(form, pre, high) or f(zero_point_inside) with the compile-time values of a variant
/// build_plan chose.
template <class IntF, class FloatF>
inline void with_variant(const EpilogueVariant& v, const IntF& int_f, const FloatF& float_f) {
  if (v.is_float) {
    if (v.zero_point_inside) {
      float_f(std::true_type{});
    } else {
      float_f(std::false_type{});
    }
    return;
  }
  with_int_variant<Ops::kHasVarShift32>(static_cast<IntForm>(v.int_form), v.pre, v.high, int_f);
}

/// The block functions with the saturating output stage for a variant build_plan chose: the
/// high-half integer variants' 8- and 16-bit outputs (an int32 output's y + zp could overflow);
/// every other entry null. For calls whose clamp is the output type's whole range.
inline EpilogueFns saturated_fns(const EpilogueVariant& variant) {
  EpilogueFns fns;
  if (variant.is_float || !variant.high) return fns;
  with_variant(
      variant,
      [&fns](auto form_c, auto pre_c, auto high_c) {
        constexpr IntForm kForm = decltype(form_c)::value;
        constexpr bool kPre = decltype(pre_c)::value, kHigh = decltype(high_c)::value;
        if constexpr (kHigh) {
          fns.to_int8 = &int_block<std::int8_t, kForm, kPre, true, true>;
          fns.to_uint8 = &int_block<std::uint8_t, kForm, kPre, true, true>;
          fns.to_int16 = &int_block<std::int16_t, kForm, kPre, true, true>;
        }
      },
      [](auto) {});
  return fns;
}

/// A micro-kernel fused with its block's epilogue (gemm_epilogue.h, FusedFn) for one register
/// form: Kernel::run(kernel_args, &vectors, rows, cols) runs the kernel and hands its accumulators
/// to `vectors` (BlockVectors) instead of storing them.
template <class Kernel, class Out, IntForm kForm, bool kPre, bool kHigh, bool kSaturated = false>
void fused_int(const UkernelArgs& p, const EpilogueArgs& block, Out* dst, std::size_t ldc) {
  const auto vectors = int_vectors<Out, kForm, kPre, kHigh, kSaturated>(block, dst, ldc);
  Kernel::run(p, &vectors, block.rows, block.cols);
}

template <class Kernel, class Out, bool kZeroPointInside>
void fused_float(const UkernelArgs& p, const EpilogueArgs& block, Out* dst, std::size_t ldc) {
  const auto vectors = float_vectors<Out, kZeroPointInside>(block, dst, ldc);
  Kernel::run(p, &vectors, block.rows, block.cols);
}

/// Kernel's fused functions for a variant build_plan chose (GemmFusedKernels::get); saturated:
/// the saturating output stage's, for the high-half integer variants' 8- and 16-bit outputs only
/// (an int32 output's y + zp could overflow; other entries null).
template <class Kernel>
FusedFns fused_fns_for(const EpilogueVariant& variant, bool saturated) {
  FusedFns fns;
  if (saturated && !(variant.high && !variant.is_float)) return fns;  // none: the bound is needed
  with_variant(
      variant,
      [&fns, saturated](auto form_c, auto pre_c, auto high_c) {
        constexpr IntForm kForm = decltype(form_c)::value;
        constexpr bool kPre = decltype(pre_c)::value, kHigh = decltype(high_c)::value;
        if constexpr (kHigh) {
          if (saturated) {
            fns.to_int8 = &fused_int<Kernel, std::int8_t, kForm, kPre, kHigh, true>;
            fns.to_uint8 = &fused_int<Kernel, std::uint8_t, kForm, kPre, kHigh, true>;
            fns.to_int16 = &fused_int<Kernel, std::int16_t, kForm, kPre, kHigh, true>;
            return;
          }
        }
        fns.to_int8 = &fused_int<Kernel, std::int8_t, kForm, kPre, kHigh>;
        fns.to_uint8 = &fused_int<Kernel, std::uint8_t, kForm, kPre, kHigh>;
        fns.to_int16 = &fused_int<Kernel, std::int16_t, kForm, kPre, kHigh>;
        fns.to_int32 = &fused_int<Kernel, std::int32_t, kForm, kPre, kHigh>;
      },
      [&fns](auto zp_inside_c) {
        constexpr bool kInside = decltype(zp_inside_c)::value;
        fns.to_int8 = &fused_float<Kernel, std::int8_t, kInside>;
        fns.to_uint8 = &fused_float<Kernel, std::uint8_t, kInside>;
        fns.to_int16 = &fused_float<Kernel, std::int16_t, kInside>;
        fns.to_int32 = &fused_float<Kernel, std::int32_t, kInside>;
      });
  return fns;
}

inline EpilogueIsa make_epilogue_isa() {
  return EpilogueIsa{static_cast<std::size_t>(kW), kVecBytes, &build_plan, &saturated_fns};
}

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
