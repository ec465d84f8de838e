// INTERNAL: the integer rounding cores as SIMD code computes them, independent of any instruction
// set: each integer core of QPARITY_ROUNDING_CORE_LIST is one exact rounding division of a 64-bit
// product, described per channel by an IntPlan. Not installed.
//
// Included inside an ISA translation unit's namespace (qparity::internal::QPARITY_ISA_NS, see the
// ODR note in rounding/simd_x86.h), after that unit's register code or before it: the plans are
// plain integer code, but they are compiled with the unit's flags and must not be shared.
//
// ---- How each rounding core is computed -------------------------------------------------------
// The policies (include/qparity/policy_*.h) are the normative definitions; the identities below
// are what the SIMD code relies on:
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
//   Q15         0            31 - shift   2^(s-1)              (M = m15 2^16)   const
//               (15 - shift and M = m15 when 31 - shift > 62; see IntCorePlan<kQ15>)
//   SR-UP-NEON  shift - r    31 - r       2^(s-1)     r = min(-1, shift)        const
//   DR-UP       max(shift,0) 31 + R       2^30 + [R>0] 2^(30+R)   R = max(-shift, 0)   const
//   DR-AZ       max(shift,0) 31 + R       u = p + 2^30; bias' = [R>0](2^(30+R) - [u<0] 2^31)
//                                                                                signed-offset
// SR-UP-NEON: SQDMULH then SRSHL by k = -r >= 1 is floor((floor(x'M / 2^31) + 2^(k-1)) / 2^k)
//   = floor((x'M + 2^(30+k)) / 2^(31+k)) (nested floors, docs/semantics.md §2.3).
// DR-*: t = SRDHM(x', M) = floor(u / 2^31) (M >= 0, so the INT32_MIN^2 saturation cannot occur);
//   DR-UP's floor((t + 2^(R-1)) / 2^R) and DR-AZ's HAZ(t / 2^R) = floor((t + 2^(R-1) - [t<0]) / 2^R)
//   fold into one shift by the same nested-floor identity, and t < 0 exactly when u < 0.
// Q15 on an int32 accumulator: |acc * m15 * 2^16| < 2^62 and s in [18, 62] (scaled) or [47, 62].
// All sums stay inside (-2^63, 2^63). Results that do not fit int32 (SR with shift > 0) wrap, as
// the policies specify, because only the low 32 bits are kept.
//
// A new integer core needs one IntCorePlan specialization here (its row of the table above); a
// float core needs none (with_int_core skips the kFloat rows of the core list).
#pragma once

#include <cstdint>
#include <type_traits>

#include "qparity/requant_params.h"

#if !defined(QPARITY_ISA_NS)
#error "include rounding/requant_plan.h inside an ISA translation unit (QPARITY_ISA_NS)"
#endif

namespace qparity {
namespace internal {
namespace QPARITY_ISA_NS {

/// How the bias of the table above depends on the product: kConst (a constant), kSigned (a
/// constant plus n when p < 0), kSignedOffset (DR-AZ: the sign test is on p + 2^30), kEven (bit s
/// of p decides the tie).
enum class IntForm : std::uint8_t { kConst, kSigned, kSignedOffset, kEven };

/// One channel's plan: y = low32(floor(((acc << l) * m + c + [p < 0] n) / 2^s)) for the signed
/// forms; the even form uses n = 2^s to test bit s.
struct IntPlan {
  std::int64_t c;  ///< bias
  std::int64_t n;  ///< signed forms: added when the product is negative; even form: 2^s
  std::int64_t s;  ///< right shift, in [1, 62]
  std::int32_t m;  ///< multiplier
  std::int32_t l;  ///< pre-shift L as a count (register code may turn it into 2^L)
};

/// Offset added before the sign test of the signed-offset form (DR-AZ's first rounding term).
constexpr std::int64_t kDrOffset = std::int64_t{1} << 30;

/// The plan of each integer core: kForm and plan(params), one specialization per core.
template <RoundingCore kCore>
struct IntCorePlan;

namespace plan_detail {
constexpr int right_shift_r(const RequantParams& p) { return p.shift < 0 ? -p.shift : 0; }
constexpr int left_shift_l(const RequantParams& p) { return p.shift > 0 ? p.shift : 0; }
constexpr IntPlan single(const RequantParams& p, std::int64_t c, std::int64_t n) {
  return IntPlan{c, n, 31 - p.shift, p.multiplier, 0};
}
constexpr std::int64_t half(std::int64_t s) { return std::int64_t{1} << (s - 1); }
}  // namespace plan_detail

template <>
struct IntCorePlan<RoundingCore::kDoubleRoundingAwayFromZero> {
  static constexpr IntForm kForm = IntForm::kSignedOffset;
  static constexpr IntPlan plan(const RequantParams& p) {
    const int r = plan_detail::right_shift_r(p);
    return IntPlan{r > 0 ? std::int64_t{1} << (30 + r) : 0, r > 0 ? -(std::int64_t{1} << 31) : 0,
                   31 + r, p.multiplier, plan_detail::left_shift_l(p)};
  }
};

template <>
struct IntCorePlan<RoundingCore::kDoubleRoundingUpward> {
  static constexpr IntForm kForm = IntForm::kConst;
  static constexpr IntPlan plan(const RequantParams& p) {
    const int r = plan_detail::right_shift_r(p);
    return IntPlan{kDrOffset + (r > 0 ? std::int64_t{1} << (30 + r) : 0), 0, 31 + r, p.multiplier,
                   plan_detail::left_shift_l(p)};
  }
};

template <>
struct IntCorePlan<RoundingCore::kSingleRoundingUpward> {
  static constexpr IntForm kForm = IntForm::kConst;
  static constexpr IntPlan plan(const RequantParams& p) {
    return plan_detail::single(p, plan_detail::half(31 - p.shift), 0);
  }
};

template <>
struct IntCorePlan<RoundingCore::kSingleRoundingUpwardNeon> {
  static constexpr IntForm kForm = IntForm::kConst;
  static constexpr IntPlan plan(const RequantParams& p) {
    const int right = p.shift < -1 ? p.shift : -1;
    const int s = 31 - right;
    return IntPlan{plan_detail::half(s), 0, s, p.multiplier, p.shift - right};
  }
};

template <>
struct IntCorePlan<RoundingCore::kSingleRoundingAwayFromZero> {
  static constexpr IntForm kForm = IntForm::kSigned;
  static constexpr IntPlan plan(const RequantParams& p) {
    return plan_detail::single(p, plan_detail::half(31 - p.shift), -1);
  }
};

template <>
struct IntCorePlan<RoundingCore::kSingleRoundingToEven> {
  static constexpr IntForm kForm = IntForm::kEven;
  static constexpr IntPlan plan(const RequantParams& p) {
    const int s = 31 - p.shift;
    return plan_detail::single(p, plan_detail::half(s), std::int64_t{1} << s);
  }
};

template <>
struct IntCorePlan<RoundingCore::kTruncate> {
  static constexpr IntForm kForm = IntForm::kSigned;
  static constexpr IntPlan plan(const RequantParams& p) {
    return plan_detail::single(p, 0, (std::int64_t{1} << (31 - p.shift)) - 1);
  }
};

template <>
struct IntCorePlan<RoundingCore::kFloor> {
  static constexpr IntForm kForm = IntForm::kConst;
  static constexpr IntPlan plan(const RequantParams& p) { return plan_detail::single(p, 0, 0); }
};

/// Q15 is planned as the same rational scaled by 2^16: floor((acc m15 2^16 + 2^(s+15)) / 2^(s+16))
/// = floor((acc m15 + 2^(s-1)) / 2^s) exactly, with m15 2^16 <= 2^31 - 2^16 still an int32
/// multiplier and |acc m15 2^16| < 2^62. The right shift s + 16 is then >= 32 for every shift <= -1
/// (s = 15 - shift >= 16), so the usual parameters run in the high-half mode (combine_high + one
/// 32-bit shift) instead of the direct mode's two 64-bit shifts and their combination (AVX-512) or
/// flipped-bias form (AVX2). Kept unscaled when s + 16 would pass 62 (s > 46: already high).
template <>
struct IntCorePlan<RoundingCore::kQ15> {
  static constexpr IntForm kForm = IntForm::kConst;
  static constexpr int kScaleBits = 16;
  static constexpr IntPlan plan(const RequantParams& p) {
    const int s = 15 - p.shift;
    if (s + kScaleBits <= 62) {
      const int t = s + kScaleBits;
      return IntPlan{plan_detail::half(t), 0, t,
                     static_cast<std::int32_t>(static_cast<std::uint32_t>(p.multiplier) << kScaleBits), 0};
    }
    return IntPlan{plan_detail::half(s), 0, s, p.multiplier, 0};
  }
};

/// Calls f(std::integral_constant<RoundingCore, core>) for an integer core (the kQ31 and kQ15
/// rows of QPARITY_ROUNDING_CORE_LIST); does nothing for a float core.
template <class F>
inline void with_int_core(RoundingCore core, const F& f) {
  switch (core) {
#define QPARITY_INT_CORE_CASE(E, Name, Policy, Kind)                                      \
  case RoundingCore::E:                                                                   \
    if constexpr (ParamKind::Kind != ParamKind::kFloat) {                                 \
      f(std::integral_constant<RoundingCore, RoundingCore::E>{});                         \
    }                                                                                     \
    break;
    QPARITY_ROUNDING_CORE_LIST(QPARITY_INT_CORE_CASE)
#undef QPARITY_INT_CORE_CASE
  }
}

/// The form of an integer core (kConst for a float core, which has none).
inline IntForm int_form(RoundingCore core) {
  IntForm form = IntForm::kConst;
  with_int_core(core, [&](auto core_c) { form = IntCorePlan<decltype(core_c)::value>::kForm; });
  return form;
}

/// Calls f(form, pre, high) with compile-time values (std::integral_constant) of the three.
/// kAllowHigh: whether the caller can use the high-half mode at all (no code is generated for it
/// otherwise).
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

}  // namespace QPARITY_ISA_NS
}  // namespace internal
}  // namespace qparity
