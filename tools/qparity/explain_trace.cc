#include "explain_trace.h"

#include <cmath>

#include <fmt/format.h>

#include "exact_decimal.h"

namespace qparity::cli {
namespace {

constexpr int kDigits = 12;  // fraction digits shown for intermediate quotients

std::string dec(const Dyadic& d) { return d.to_string(kDigits); }

bool fits_int32(std::int64_t v) { return v >= kInt32Min && v <= kInt32Max; }

// x' = acc * 2^left in int32 (wrapping), shown with the exact value when it wrapped.
TraceStep pre_shift_step(int left, std::int32_t x, std::int64_t exact_pre) {
  const std::string name = left > 0 ? fmt::format("x'=acc*2^{}", left) : std::string("x'");
  if (x != exact_pre) return {name, fmt::format("{} (wrapped from {})", x, exact_pre)};
  return {name, fmt::format("{}", x)};
}

// Exact decimal of a float.
std::string exact_float(float v) {
  return Dyadic::product(1, static_cast<double>(v)).to_string(kDigits);
}

// Rule for a single exact division p / 2^s rounded by `tie` (result r64 before narrowing).
std::string single_rounding_rule(const Dyadic& q, std::int64_t r64, TieRule tie) {
  if (!fits_int32(r64)) {
    return fmt::format("int32 wrap of result ({} does not fit)", r64);
  }
  if (q.is_integer()) return "exact (no rounding)";
  switch (tie) {
    case TieRule::kTowardZero:
      return "truncated (toward zero)";
    case TieRule::kFloor:
      return "floored (toward -infinity)";
    case TieRule::kHalfUp:
      return q.is_tie() ? "tie, half up" : "no tie (nearest)";
    case TieRule::kHalfAwayFromZero:
      return q.is_tie() ? "tie, half away from zero" : "no tie (nearest)";
    case TieRule::kHalfToEven:
      return q.is_tie() ? "tie, half to even" : "no tie (nearest)";
  }
  return "?";
}

Trace trace_double_rounding(bool away_from_zero, const RequantParams& p, std::int32_t acc,
                            std::int32_t core_result) {
  Trace tr;
  const int left = p.shift > 0 ? p.shift : 0;
  const int right = p.shift > 0 ? 0 : -p.shift;
  const std::int64_t exact_pre = static_cast<std::int64_t>(acc) * (std::int64_t{1} << left);
  const std::int32_t x = shift_left_wrapping(acc, left);
  const bool wrapped = x != exact_pre;
  const std::int64_t p1 = static_cast<std::int64_t>(x) * p.multiplier;
  const std::int32_t t = saturating_rounding_doubling_high_mul(x, p.multiplier);
  const Dyadic stage1 = Dyadic::ratio(p1, 31);
  const Dyadic stage2 = Dyadic::ratio(t, right);

  tr.steps.push_back(pre_shift_step(left, x, exact_pre));
  tr.steps.push_back({"x'*M/2^31", dec(stage1)});
  tr.steps.push_back({"t=SRDHM(x',M)", fmt::format("{}", t)});
  tr.steps.push_back({"R", fmt::format("{}", right)});
  if (right > 0) tr.steps.push_back({"t/2^R", dec(stage2)});

  auto second_stage = [&](std::int32_t v) {
    return away_from_zero ? rounding_divide_by_pot(v, right)
                          : rounding_shift_right_half_up(v, right);
  };
  const char* tie2 = away_from_zero ? "half away from zero" : "half up";
  const Dyadic own_exact = Dyadic::ratio(static_cast<Int128>(exact_pre) * p.multiplier, 31 + right);

  if (wrapped) {
    tr.rule = fmt::format("pre-shift wrapped (acc*2^{} overflows int32)", left);
  } else if (right > 0 && stage2.is_tie()) {
    tr.rule = stage1.is_integer() ? fmt::format("stage-2 tie, {}", tie2)
                                  : fmt::format("stage-2 tie made by stage-1 rounding, {}", tie2);
  } else if (stage1.is_tie() && (right == 0 || second_stage(t - 1) != core_result)) {
    tr.rule = "stage-1 tie, half up";
  } else if (own_exact.is_integer() && own_exact.floor() == core_result) {
    tr.rule = "exact (no rounding)";
  } else if (own_exact.is_nearest(core_result)) {
    tr.rule = "no tie (nearest)";
  } else {
    tr.rule = "double rounding moved it off nearest";  // not reachable without a tie (see docs)
  }
  return tr;
}

template <TieRule Rule>
Trace trace_single_rounding(const RequantParams& p, std::int32_t acc) {
  Trace tr;
  const int s = 31 - p.shift;
  const std::int64_t prod = static_cast<std::int64_t>(acc) * p.multiplier;
  const Dyadic q = Dyadic::ratio(prod, s);
  tr.steps.push_back({"p=acc*M", fmt::format("{}", prod)});
  tr.steps.push_back({"s=31-shift", fmt::format("{}", s)});
  tr.steps.push_back({"p/2^s", dec(q)});
  tr.rule = single_rounding_rule(q, round_shift_right(prod, s, Rule), Rule);
  return tr;
}

Trace trace_neon(const RequantParams& p, std::int32_t acc) {
  Trace tr;
  const int right = p.shift < -1 ? p.shift : -1;
  const int left = p.shift - right;
  const std::int64_t exact_pre = static_cast<std::int64_t>(acc) * (std::int64_t{1} << left);
  const std::int32_t x = shift_left_wrapping(acc, left);
  const bool wrapped = x != exact_pre;
  const std::int32_t t = saturating_doubling_high_mul(x, p.multiplier);
  tr.steps.push_back(pre_shift_step(left, x, exact_pre));
  tr.steps.push_back({"t=SQDMULH(x',M)", fmt::format("{}", t)});
  tr.steps.push_back({"R", fmt::format("{}", -right)});
  tr.steps.push_back({"t/2^R", dec(Dyadic::ratio(t, -right))});
  if (wrapped) {
    tr.rule = left > 0 ? fmt::format(
                             "pre-shift wrapped (acc*2^{} = acc*2^(shift+1) overflows int32)", left)
                       : "pre-shift wrapped";
  } else {
    const std::int64_t prod = static_cast<std::int64_t>(acc) * p.multiplier;
    const int s = 31 - p.shift;
    tr.rule = single_rounding_rule(Dyadic::ratio(prod, s),
                                   round_shift_right(prod, s, TieRule::kHalfUp), TieRule::kHalfUp);
  }
  return tr;
}

Trace trace_q15(const RequantParams& p, std::int32_t acc) {
  Trace tr;
  const int s = 15 - p.shift;
  const std::int64_t prod = static_cast<std::int64_t>(acc) * p.multiplier;
  const Dyadic q = Dyadic::ratio(prod, s);
  tr.steps.push_back({"m15", fmt::format("{}", p.multiplier)});
  tr.steps.push_back({"p=acc*m15", fmt::format("{}", prod)});
  tr.steps.push_back({"s=15-shift", fmt::format("{}", s)});
  tr.steps.push_back({"p/2^s", dec(q)});
  tr.rule = single_rounding_rule(q, round_shift_right(prod, s, TieRule::kHalfUp), TieRule::kHalfUp);
  return tr;
}

bool float_is_tie(float v) { return v - std::floor(v) == 0.5f; }

Trace trace_float(bool zero_point_inside, const RequantParams& p, std::int32_t acc,
                  std::int32_t zero_point, std::int64_t result) {
  Trace tr;
  const float a = static_cast<float>(acc);
  const bool a_inexact = static_cast<double>(a) != static_cast<double>(acc);
  // Exactly F32-ZPF's order (policy_float.h), one rounding per statement.
  float v = a * p.scale;
  float w = v;
  tr.steps.push_back(
      {"float(acc)", a_inexact ? fmt::format("{} (inexact)", exact_float(a)) : exact_float(a)});
  tr.steps.push_back({"v=float(acc)*scale", exact_float(v)});
  if (zero_point_inside) {
    w = v + p.bias;
    w = w * p.post_scale;
    w = w + static_cast<float>(zero_point);
    if (zero_point != 0) tr.steps.push_back({"v+zp", exact_float(w)});
  }
  // The float value that is rounded to an integer, and the exact value it approximates:
  // acc * scale (+ zp), with the scale as stored (explain uses bias 0 and post_scale 1).
  const float decided = zero_point_inside ? w : v;
  const Dyadic exact_product = Dyadic::product(acc, static_cast<double>(p.scale));
  const Dyadic target = zero_point_inside ? exact_product.plus(zero_point) : exact_product;
  const std::int64_t rounded = zero_point_inside ? result : result - zero_point;

  if (!(std::fabs(decided) < 2147483648.0f)) {
    tr.rule = "int32 saturation";
  } else if (float_is_tie(decided)) {
    if (target.is_tie()) {
      tr.rule = "tie, half to even";
    } else if (float_is_tie(v) && a_inexact &&
               static_cast<double>(a) * static_cast<double>(p.scale) == static_cast<double>(v)) {
      // The product of two float32 values is exact in double: here only the conversion rounded.
      tr.rule = "float(acc) conversion landed on a tie (exact value is not); half to even";
    } else if (float_is_tie(v)) {
      tr.rule = "float product landed on a tie (exact value is not); half to even";
    } else {
      tr.rule = "float sum landed on a tie (exact value is not); half to even";
    }
  } else if (target.is_nearest(rounded)) {
    if (target.is_tie()) {
      tr.rule = "no tie in float (exact value is a tie)";
    } else if (target.is_integer()) {
      tr.rule = "exact (no rounding)";
    } else {
      tr.rule = "no tie (nearest)";
    }
  } else {
    tr.rule = a_inexact ? "float(acc) rounding moved it off nearest"
                        : "float rounding moved it off nearest";
  }
  return tr;
}

}  // namespace

Trace trace_rounding(RoundingCore core, const RequantParams& p, std::int32_t acc,
                     std::int32_t zero_point) {
  std::int64_t result;
  if (core == RoundingCore::kFloat32ZeroPointInside) {
    result = Float32ZeroPointInside::requantize_with_zero_point(acc, p, zero_point);
  } else {
    result = static_cast<std::int64_t>(requantize(core, acc, p)) + zero_point;
  }
  const auto core_result = static_cast<std::int32_t>(
      core == RoundingCore::kFloat32ZeroPointInside ? result : result - zero_point);

  Trace tr;
  switch (core) {
    case RoundingCore::kDoubleRoundingAwayFromZero:
      tr = trace_double_rounding(true, p, acc, core_result);
      break;
    case RoundingCore::kDoubleRoundingUpward:
      tr = trace_double_rounding(false, p, acc, core_result);
      break;
    case RoundingCore::kSingleRoundingUpward:
      tr = trace_single_rounding<TieRule::kHalfUp>(p, acc);
      break;
    case RoundingCore::kSingleRoundingAwayFromZero:
      tr = trace_single_rounding<TieRule::kHalfAwayFromZero>(p, acc);
      break;
    case RoundingCore::kSingleRoundingToEven:
      tr = trace_single_rounding<TieRule::kHalfToEven>(p, acc);
      break;
    case RoundingCore::kTruncate:
      tr = trace_single_rounding<TieRule::kTowardZero>(p, acc);
      break;
    case RoundingCore::kFloor:
      tr = trace_single_rounding<TieRule::kFloor>(p, acc);
      break;
    case RoundingCore::kSingleRoundingUpwardNeon:
      tr = trace_neon(p, acc);
      break;
    case RoundingCore::kQ15:
      tr = trace_q15(p, acc);
      break;
    case RoundingCore::kFloat32:
      tr = trace_float(false, p, acc, zero_point, result);
      break;
    case RoundingCore::kFloat32ZeroPointInside:
      tr = trace_float(true, p, acc, zero_point, result);
      break;
  }
  tr.result = result;
  return tr;
}

}  // namespace qparity::cli
