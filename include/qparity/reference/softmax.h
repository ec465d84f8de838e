// SOFTMAX on int8 / uint8 tensors (output scale 1/256; zero point -128 for int8, 0 for uint8),
// per runtime (docs/semantics.md §21.5). Header-only, standard C++17, depends only on
// include/qparity. Sources restated, not copied.
//
// Variants: TFLite's reference / TFLM fixed-point kernel (gemmlowp exp_on_negative_values and
// one_over_one_plus_x_for_x_in_0_1, both builds), TFLite's optimized float-table kernel (every
// build but aarch64 + clang; LiteRT.js runs it, *measured*), the uint16 two-byte table of
// aarch64 + clang builds (TFLITE_SOFTMAX_USE_UINT16_LUT), and a float32 style. The gemmlowp
// fixed-point pieces are restated in detail:: below and checked against gemmlowp itself
// (tests/reference/op_softmax_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "qparity/error.h"
#include "qparity/policy_float.h"
#include "qparity/reference/op_common.h"

namespace qparity {
namespace reference {

enum class SoftmaxVariant : std::uint8_t {
  /// TFLite optimized SOFTMAX for 8-bit input without TFLITE_SOFTMAX_USE_UINT16_LUT (every build
  /// but aarch64 + clang; LiteRT tflite/kernels/activations.cc SoftmaxPrepare ->
  /// optimized_ops::PopulateSoftmaxLookupTable, optimized_ops::Softmax):
  ///   table[255 - k] = expf(float(-s_in * beta) * k), k = 0..255   (expf of the C library, float)
  ///   per row: m = max x;  e_j = table[255 - (m - x_j)] = expf(-s_in * beta * (m - x_j))
  ///            sum = e_0 + e_1 + ... in float, left to right (RNE each add)
  ///            inv = float(1.0f / float(sum * s_out))
  ///            p_j = float(e_j * inv)                    (the probability in output units)
  ///            y_j = clamp(round(p_j) + zp_out)          int8 out: std::round (p >= 0: half up);
  ///                                                      uint8 out: int(p_j + 0.5f), float add
  /// Depends on expf being correctly rounded for the 256 arguments (glibc's and musl's expf, both
  /// from Arm's optimized-routines, agree on every argument the measurement used).
  kTfliteOptimizedFloatTable,
  /// TFLite reference_ops::Softmax for 8-bit input and output (tflite/kernels/internal/reference/
  /// softmax.h, LiteRT @a53d446; TFLM's softmax runs the same function; activations.cc
  /// SoftmaxPrepare for kReference; quantization_util.cc PreprocessSoftmaxScaling,
  /// CalculateInputRadius; common.h GetReciprocal), in gemmlowp fixed point:
  ///   (M, L) = QuantizeMultiplier(min(beta * s_in * 2^26, 2^31 - 1))   [single build: 2^30 - 1]
  ///   diff_min = -floor(31 * 2^26 / 2^L)
  ///   per row, m = max x; for d = x - m >= diff_min:
  ///     z = MultiplyByQuantizedMultiplierGreaterThanOne(d, M, L)  (SRDHM(d * 2^L, M); single
  ///         build: SR-UP), read as Q5.26;  e = exp_on_negative_values(z) (Q0.31)
  ///     sum += RDBPOT(e, 12)                       (Q12.19 accumulator)
  ///   r, b = GetReciprocal(sum): h = clz(sum), b = 12 - h,
  ///          r = one_over_one_plus_x_for_x_in_0_1((sum << h) - 2^31)   (Q0.31)
  ///   y = clamp(RDBPOT(SRDHM(r, e), b + 23) + type_min)    (d < diff_min: type_min)
  /// The output quantization is implied (1/256, type_min); TFLite's Prepare requires it for int8.
  /// Every rounding is gemmlowp's: SRDHM half up, RDBPOT half away from zero.
  kTfliteReference,
  /// The same fixed point in the TFLITE_SINGLE_ROUNDING=1 build (SR-UP input rescale and the
  /// 2^30 - 1 cap; the gemmlowp steps are unchanged).
  kTfliteReferenceSingleRounding,
  /// TFLite optimized SOFTMAX on aarch64 + clang builds (TFLITE_SOFTMAX_USE_UINT16_LUT:
  /// PopulateSoftmaxUInt8LookupTable + SoftmaxInt8LUT; read in the port of TFLite's optimized_ops
  /// softmax in Samsung ONE's cker, namespace nnfw::cker; the TFLite file itself was not located
  /// in the index): a 16-bit table split in two byte tables
  ///   t[k] = min(65535, trunc(double(float(expf(float(s_in * beta) * (k - 255)) * 65535)) + 0.5))
  ///   per row (int8 input read as uint8 = x + 128): m = max; e_j = t[x_j - m + 255];
  ///   S = sum of e_j (int32); inv = float(1.0f / float(S * s_out));
  ///   (M, shift) = QuantizeMultiplier(inv); y_j = clamp(MultiplyByQuantizedMultiplier(e_j, M,
  ///   shift) + zp_out) -- DR-AZ (default build) or SR-UP; the NEON 16-element blocks use the
  ///   4-row helper (DR-UP / SR-UP-NEON), identical here because e_j >= 0 and shift < 0.
  kTfliteOptimizedUint16Table,
  /// Float32 (dequantize, softmax in float, quantize RNE): d_j = float(s_in * (x_j - m));
  /// e_j = expf(beta * d_j); sum left to right; y_j = clamp(RNE(float(float(e_j / sum) / s_out)) +
  /// zp_out). **UNVERIFIED** for any runtime (ORT's QLinearSoftmax builds a table; not re-read).
  kFloat32,
};

namespace detail {

/// gemmlowp SaturatingRoundingMultiplyByPOT<e> for e > 0 on int32 (fixedpoint.h): x * 2^e,
/// saturating to INT32_MIN / INT32_MAX when |x| > 2^(31-e) - 1.
constexpr std::int32_t saturating_shift_left(std::int32_t x, int e) noexcept {
  const std::int32_t threshold = static_cast<std::int32_t>((std::uint32_t{1} << (31 - e)) - 1u);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << e);
}

/// gemmlowp Rescale<dst>(FixedPoint<int32, src>): multiply the raw value by 2^(src - dst),
/// saturating left shift or RoundingDivideByPOT (half away from zero).
constexpr std::int32_t rescale(std::int32_t raw, int src_integer_bits, int dst_integer_bits) noexcept {
  const int e = src_integer_bits - dst_integer_bits;
  return e > 0 ? saturating_shift_left(raw, e) : e < 0 ? rounding_divide_by_pot(raw, -e) : raw;
}

constexpr std::int32_t srdhm(std::int32_t a, std::int32_t b) noexcept {
  return saturating_rounding_doubling_high_mul(a, b);
}

/// Wrapping int32 add / subtract (gemmlowp's FixedPoint + and - on raw int32 values).
constexpr std::int32_t add_wrap(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
constexpr std::int32_t sub_wrap(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}

/// gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl (Q0.31 in, Q0.31 out): a
/// fourth-order Taylor polynomial of exp around -1/8 with constants exp(-1/8) = 1895147668 and
/// 1/3 = 715827883 (raw Q0.31): x = a + 1/8; t = RDBPOT(SRDHM(RDBPOT(x^4, 2) + x^3, 1/3) + x^2, 1);
/// result = c + SRDHM(c, x + t), every product an SRDHM.
constexpr std::int32_t exp_quarter_interval(std::int32_t a) noexcept {
  const std::int32_t c = 1895147668;
  const std::int32_t x = add_wrap(a, 1 << 28);
  const std::int32_t x2 = srdhm(x, x);
  const std::int32_t x3 = srdhm(x2, x);
  const std::int32_t x4 = srdhm(x2, x2);
  const std::int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  const std::int32_t poly = rounding_divide_by_pot(add_wrap(srdhm(add_wrap(x4_over_4, x3), 715827883), x2), 1);
  return add_wrap(c, srdhm(c, add_wrap(x, poly)));
}

/// gemmlowp exp_on_negative_values for a Q(I).(31-I) input, I in [1, 5] (raw a <= 0), Q0.31
/// output: a = q/4 + r with r in [-1/4, 0): exp(r) from the polynomial, then one SRDHM by
/// exp(-2^k) (raw 1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242 for
/// k = -2..4) for every bit k of the multiple of 1/4 that is set (only the bits below I exist);
/// a == 0 gives 2^31 - 1 (one).
constexpr std::int32_t exp_on_negative_values(std::int32_t a, int integer_bits) noexcept {
  const int frac = 31 - integer_bits;
  const std::int32_t quarter = std::int32_t{1} << (frac - 2);
  const std::int32_t a_mod = sub_wrap(a & (quarter - 1), quarter);
  std::int32_t result = exp_quarter_interval(rescale(a_mod, integer_bits, 0));
  const std::int32_t remainder = sub_wrap(a_mod, a);
  const std::int32_t mult[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (integer_bits > k && (remainder & (std::int32_t{1} << (frac + k))) != 0) {
      result = srdhm(result, mult[k + 2]);
    }
  }
  return a == 0 ? kInt32Max : result;
}

/// gemmlowp one_over_one_plus_x_for_x_in_0_1 (Q0.31 a in [0, 1), result 1 / (1 + a) in Q0.31):
/// d = RoundingHalfSum(a, one) = (a + 2^31) / 2; Newton-Raphson in Q2.29 from
/// x0 = 48/17 + d * (-32/17) (raw 1515870810, -1010580540), three steps
/// x += Rescale<2>(x * (1 - d * x)), then x / 2 rescaled to Q0.31 (a saturating left shift by 1).
constexpr std::int32_t one_over_one_plus_x(std::int32_t a) noexcept {
  const std::int64_t sum = static_cast<std::int64_t>(a) + kInt32Max;
  const std::int32_t d = static_cast<std::int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  std::int32_t x = add_wrap(1515870810, srdhm(d, -1010580540));
  for (int i = 0; i < 3; ++i) {
    const std::int32_t dx = srdhm(d, x);
    const std::int32_t one_minus = sub_wrap(std::int32_t{1} << 29, dx);
    x = add_wrap(x, rescale(srdhm(x, one_minus), 4, 2));
  }
  return rescale(x, 1, 0);
}

/// TFLite GetReciprocal(x, integer_digits) (common.h): h = clz(x), bits over unit = digits - h,
/// reciprocal of the normalised (x << h) as one_over_one_plus_x((x << h) - 2^31).
inline std::int32_t get_reciprocal(std::int32_t x, int integer_digits, int* bits_over_unit) {
  int h = 0;
  for (std::uint32_t u = static_cast<std::uint32_t>(x); h < 32 && (u & 0x80000000u) == 0; u <<= 1) ++h;
  *bits_over_unit = integer_digits - h;
  const std::uint32_t shifted = h >= 32 ? 0u : (static_cast<std::uint32_t>(x) << h);
  return one_over_one_plus_x(static_cast<std::int32_t>(shifted - 0x80000000u));
}

}  // namespace detail

/// SOFTMAX over the last dimension (`row` elements per row) of x. `in` / `out` quantizations; the
/// usual output is {1/256, -128} (int8) or {1/256, 0} (uint8), but any is accepted. beta > 0.
/// Throws InvalidArgument for bad scales / zero points, row == 0 or x.size() % row != 0.
template <class TIn, class TOut>
QPARITY_MAY_THROW
std::vector<TOut> softmax(const std::vector<TIn>& x, std::size_t row, const TensorQuant& in,
                          const TensorQuant& out, float beta, SoftmaxVariant variant) {
  static_assert(kIsQuant8<TIn> && kIsQuant8<TOut>, "softmax: 8-bit types only");
  detail::require_scale("input scale", in.scale);
  detail::require_scale("output scale", out.scale);
  detail::require_zero_point<TIn>("input zero_point", in.zero_point);
  detail::require_zero_point<TOut>("output zero_point", out.zero_point);
  qparity::detail::require_positive_finite("beta", beta);
  if (row == 0 || x.size() % row != 0) {
    QPARITY_THROW(InvalidArgument(
        "qparity: softmax rows of " + std::to_string(row) + " do not divide " +
        std::to_string(x.size()) + " elements"));
  }
  float table[256];
  const float neg = -in.scale * beta;
  for (int k = 0; k <= 255; ++k) table[255 - k] = std::exp(neg * static_cast<float>(k));
  // Fixed-point parameters (kTfliteReference*).
  const bool single = variant == SoftmaxVariant::kTfliteReferenceSingleRounding;
  QuantizedMultiplier beta_m{};
  std::int64_t diff_min = 0;
  if (variant == SoftmaxVariant::kTfliteReference || single) {
    const double cap = single ? static_cast<double>((std::int64_t{1} << 30) - 1) : static_cast<double>((std::int64_t{1} << 31) - 1);
    const double real = std::min(static_cast<double>(beta) * static_cast<double>(in.scale) * static_cast<double>(1 << 26), cap);
    if (!(real > 1.0)) {
      QPARITY_THROW(InvalidArgument(
          "qparity: softmax beta * input_scale * 2^26 must exceed 1 (TFLite's "
          "QuantizeMultiplierGreaterThanOne check)"));
    }
    beta_m = quantize_multiplier_tflite(real, single ? TfliteBuild::kSingleRounding : TfliteBuild::kDoubleRounding);
    diff_min = -static_cast<std::int64_t>(std::floor(31.0 * static_cast<double>(std::int64_t{1} << 26) /
                                                     static_cast<double>(std::int64_t{1} << beta_m.shift)));
  }
  auto rescale_diff = [&](std::int32_t d) {
    if (single) {
      RequantParams p;
      p.multiplier = beta_m.multiplier;
      p.shift = beta_m.shift;
      return SingleRoundingUpward::requantize(d, p);
    }
    return detail::srdhm(shift_left_wrapping(d, beta_m.shift), beta_m.multiplier);
  };
  // uint16 table (kTfliteOptimizedUint16Table).
  std::int32_t table16[256] = {};
  if (variant == SoftmaxVariant::kTfliteOptimizedUint16Table) {
    const float sb = in.scale * beta;
    for (int k = 0; k <= 255; ++k) {
      const float arg = sb * static_cast<float>(k - 255);
      const float e = std::exp(arg) * 65535.0f;
      table16[k] = std::min<std::int32_t>(65535, static_cast<std::int32_t>(static_cast<double>(e) + 0.5));
    }
  }
  std::vector<TOut> y(x.size());
  for (std::size_t r = 0; r < x.size(); r += row) {
    std::int32_t m = type_min<TIn>();
    for (std::size_t j = 0; j < row; ++j) m = std::max<std::int32_t>(m, x[r + j]);
    switch (variant) {
      case SoftmaxVariant::kTfliteOptimizedFloatTable: {
        float sum = 0.0f;
        for (std::size_t j = 0; j < row; ++j) sum += table[255 - (m - x[r + j])];
        const float inv = 1.0f / (sum * out.scale);
        for (std::size_t j = 0; j < row; ++j) {
          const float p = table[255 - (m - x[r + j])] * inv;
          std::int64_t q;
          if (std::is_same<TOut, std::uint8_t>::value) {
            q = static_cast<std::int64_t>(p + 0.5f);
          } else {
            q = static_cast<std::int64_t>(std::round(p));
          }
          y[r + j] = saturate_to<TOut>(q + out.zero_point);
        }
        break;
      }
      case SoftmaxVariant::kTfliteReference:
      case SoftmaxVariant::kTfliteReferenceSingleRounding: {
        std::int32_t sum = 0;  // Q12.19
        for (std::size_t j = 0; j < row; ++j) {
          const std::int32_t d = static_cast<std::int32_t>(x[r + j]) - m;
          if (d >= diff_min) {
            sum = detail::add_wrap(sum, detail::rescale(detail::exp_on_negative_values(rescale_diff(d), 5), 0, 12));
          }
        }
        int bits_over_unit = 0;
        const std::int32_t recip = detail::get_reciprocal(sum, 12, &bits_over_unit);
        const int exponent = bits_over_unit + 31 - 8;
        if (exponent < 0 || exponent > 31) {
          QPARITY_THROW(InvalidArgument(
              "qparity: softmax reciprocal exponent outside [0, 31] (TFLite CHECK)"));
        }
        for (std::size_t j = 0; j < row; ++j) {
          const std::int32_t d = static_cast<std::int32_t>(x[r + j]) - m;
          std::int64_t q = type_min<TOut>();
          if (d >= diff_min) {
            const std::int32_t e = detail::exp_on_negative_values(rescale_diff(d), 5);
            q = static_cast<std::int64_t>(rounding_divide_by_pot(detail::srdhm(recip, e), exponent)) + type_min<TOut>();
          }
          y[r + j] = saturate_to<TOut>(q);
        }
        break;
      }
      case SoftmaxVariant::kTfliteOptimizedUint16Table: {
        std::int32_t sum = 0;
        for (std::size_t j = 0; j < row; ++j) sum += table16[x[r + j] - m + 255];
        const float inv = 1.0f / (static_cast<float>(sum) * out.scale);
        const QuantizedMultiplier qm = quantize_multiplier_tflite(static_cast<double>(inv), TfliteBuild::kDoubleRounding);
        for (std::size_t j = 0; j < row; ++j) {
          const std::int32_t e = table16[x[r + j] - m + 255];
          y[r + j] = saturate_to<TOut>(
              static_cast<std::int64_t>(tflite_multiply_by_quantized_multiplier(e, qm, TfliteBuild::kDoubleRounding)) +
              out.zero_point);
        }
        break;
      }
      case SoftmaxVariant::kFloat32: {
        std::vector<float> e(row);
        float sum = 0.0f;
        for (std::size_t j = 0; j < row; ++j) {
          const float d = static_cast<float>(static_cast<double>(in.scale) * (x[r + j] - m));
          e[j] = std::exp(beta * d);
          sum += e[j];
        }
        for (std::size_t j = 0; j < row; ++j) {
          const float p = e[j] / sum;
          y[r + j] = saturate_to<TOut>(
              static_cast<std::int64_t>(qparity::detail::round_half_even_saturating(p / out.scale)) + out.zero_point);
        }
        break;
      }
    }
  }
  return y;
}

}  // namespace reference
}  // namespace qparity
