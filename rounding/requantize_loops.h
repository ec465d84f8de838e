// INTERNAL: the requantization loops over rows, channel blocks and output types, written once
// against a SIMD backend and compiled into each requantization translation unit
// (rounding/requantize_<isa>.cc). Not installed.
//
// Included at the end of a backend header (rounding/requantize_x86.h today; a NEON backend would
// be a sibling), inside the same qparity::internal::QPARITY_ISA_NS. The backend provides:
//   I, kW, kBlock                      the integer vector type, its int32 lanes, the channel block
//   Ops::load / load_partial / store_out / store_out4 / store_out_partial
//   IntRegs broadcast(IntPlan, high)   per-tensor operands of the integer core
//   validated_int_core<kForm, kPre, kHigh, kUniform>(I, const IntRegs&)   (parameters validated)
//   IntSoA {fill(core, params, n) -> Flags{pre, high}; at(i) -> IntRegs}   per-channel operands
//   FloatBatch, FloatRegs, float_core<kZeroPointInside>(I, const FloatRegs&), FloatSoA
//   output_regs(OutputParams, zero_point_inside), finish(I, stage), RawOutput
//   plan_int(core, params), Ops::kHasVarShift32
// and rounding/requant_plan.h gives IntForm, int_form, kDrOffset and with_int_variant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "qparity/requantize.h"
#include "rounding/requantize_kernel.h"

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

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
                 [&regs](I x, std::size_t) { return validated_int_core<kForm, kPre, kHigh, true>(x, regs); }, o);
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
                   [&soa](I x, std::size_t i) { return validated_int_core<kForm, kPre, kHigh, false>(x, soa.at(i)); },
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
inline RequantizeKernels requantize_kernel_table() {
  return RequantizeKernels{&kernel<std::int8_t>, &kernel<std::uint8_t>, &kernel<std::int16_t>,
                           &kernel<std::int32_t>};
}

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
