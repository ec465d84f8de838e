// Element-wise binary ops ADD, SUB and MUL on quantized tensors (int8, uint8; int16 for the
// TFLite kernels), as each runtime computes them, bit for bit, with NumPy/TFLite broadcasting of
// up to 6 dimensions and the fused activation clamp (docs/semantics.md §21.1, §21.2).
//
// Three layers, each a normative restatement written from the cited sources (never copied code):
//   (a) derive_elementwise_params: the runtime's derivation of integer (or float) parameters from
//       the float scales and zero points, into an ElementwiseParams record;
//   (b) one scalar function per arithmetic (tflite_add_sub, tflite_mul, tflite_neon_add,
//       tflite_neon_mul, xnnpack_add_sub, xnnpack_mul_fp32, xnnpack_mul_rndnu, npu_add_sub,
//       npu_mul), and elementwise_element, which dispatches on ElementwiseParams::arithmetic;
//   (c) elementwise(): a whole tensor with broadcasting.
//
// Notation (docs/semantics.md §0): x1, x2 the stored input values, z1, z2, zo the zero points,
// v_i = x_i - z_i, s1, s2, so the float scales. SRDHM, RDBPOT, HU, HAZ, HE as in §0.2 and §2.
// floor(a / 2^k) is mathematical floor. Every function returns the final output value (zero point
// added, activation clamp and type range applied) as an int32.
//
// Sources read (paths; revisions as stored by the project's source index, see
// docs/semantics.md §21.1 for the commit list):
//   TFLite      google-ai-edge/LiteRT tflite/kernels/add.cc, sub.cc, mul.cc (Prepare),
//               tflite/kernels/internal/reference/integer_ops/add.h, mul.h, reference/sub.h,
//               reference/add.h (uint8), tflite/kernels/internal/common.h
//               (MultiplyByQuantizedMultiplierSmallerThanOneExp), optimized/integer_ops/add.h, mul.h
//   TFLM        tensorflow/tflite-micro tensorflow/lite/micro/kernels/add_common.cc,
//               sub_common.cc, mul_common.cc
//   XNNPACK     google/XNNPACK src/microparams-init.c (xnn_init_qs8_add_minmax_scalar_params,
//               xnn_init_qs8_mul_minmax_scalar_params, xnn_init_qs8_mul_minmax_rndnu_neon_params),
//               src/operators/binary-elementwise-nd.cc (SUB = ADD with the second scale negated),
//               src/configs/binary-elementwise-config.c, src/qs8-vadd/gen/*, src/qs8-vaddc/gen/*,
//               src/qs8-vmul/gen/*, src/subgraph/binary.c + subgraph.c (activation = clamp node)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "qparity/error.h"
#include "qparity/fixed_point.h"
#include "qparity/multiplier.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/presets.h"
#include "qparity/requant_params.h"
#include "qparity/scale_composition.h"

namespace qparity {
namespace reference {

/// The three element-wise binary ops.
enum class ElementwiseOp : std::uint8_t { kAdd, kSub, kMul };

inline const char* to_string(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kAdd: return "add";
    case ElementwiseOp::kSub: return "sub";
    case ElementwiseOp::kMul: return "mul";
  }
  return "?";
}

/// Which runtime's arithmetic (parameter derivation + per-element computation).
///
///   enumerator                   ADD / SUB                         MUL
///   kTfliteDouble                3 roundings, DR-AZ each           DR-AZ, float32 scale product
///   kTfliteSingle                3 roundings, SR-UP each           SR-UP, float32 scale product
///   kTfliteMicroDouble           as kTfliteDouble; SUB's           DR-AZ, double scale product
///                                multipliers from float32 math
///   kTfliteMicroSingle           as kTfliteSingle, TFLM params     SR-UP, double scale product
///   kTfliteNeon                  TFLite's NEON ADD block (int8:    DR-AZ with int16 narrowing
///                                merged pre-shift, uint8: floor)   (the NEON MUL block)
///   kTfliteNeonScalarBroadcast   TFLite's NEON AddScalarBroadcast  the NEON MulSimpleBroadcast block
///                                block (floor after SRDHM)
///   kXnnpackX86                  ~21-bit multipliers, one HU shift float32 product, RNE (fp32)
///   kXnnpackArm                  same as x86                       SR-UP on the float32 scale (rndnu)
///   kXnnpackWasm                 same as x86                       same as x86 (fp32)
///   kNpuSingleRounding           HYPOTHESIS: one rounding of the exact rescaled value, tie rule and
///                                multiplier precision from NpuElementwiseOptions (UNVERIFIED)
///
/// kTfliteDouble is also what TFLite's optimized kernels compute on x86 and WebAssembly (they have
/// no SIMD path for 8-bit ADD / MUL there; int8 SUB always runs the reference kernel), and what
/// LiteRT.js 2.5.3 was measured to compute (docs/semantics.md §21.1, §21.2).
enum class ElementwiseArithmetic : std::uint8_t {
  kTfliteDouble,
  kTfliteSingle,
  kTfliteMicroDouble,
  kTfliteMicroSingle,
  kTfliteNeon,
  kTfliteNeonScalarBroadcast,
  kXnnpackX86,
  kXnnpackArm,
  kXnnpackWasm,
  kNpuSingleRounding,
};

inline constexpr ElementwiseArithmetic kAllElementwiseArithmetics[] = {
    ElementwiseArithmetic::kTfliteDouble,      ElementwiseArithmetic::kTfliteSingle,
    ElementwiseArithmetic::kTfliteMicroDouble, ElementwiseArithmetic::kTfliteMicroSingle,
    ElementwiseArithmetic::kTfliteNeon,        ElementwiseArithmetic::kTfliteNeonScalarBroadcast,
    ElementwiseArithmetic::kXnnpackX86,        ElementwiseArithmetic::kXnnpackArm,
    ElementwiseArithmetic::kXnnpackWasm,       ElementwiseArithmetic::kNpuSingleRounding,
};

inline const char* to_string(ElementwiseArithmetic a) {
  switch (a) {
    case ElementwiseArithmetic::kTfliteDouble: return "tflite-double";
    case ElementwiseArithmetic::kTfliteSingle: return "tflite-single";
    case ElementwiseArithmetic::kTfliteMicroDouble: return "tflm-double";
    case ElementwiseArithmetic::kTfliteMicroSingle: return "tflm-single";
    case ElementwiseArithmetic::kTfliteNeon: return "tflite-neon";
    case ElementwiseArithmetic::kTfliteNeonScalarBroadcast: return "tflite-neon-scalar-broadcast";
    case ElementwiseArithmetic::kXnnpackX86: return "xnnpack-x86";
    case ElementwiseArithmetic::kXnnpackArm: return "xnnpack-arm";
    case ElementwiseArithmetic::kXnnpackWasm: return "xnnpack-wasm";
    case ElementwiseArithmetic::kNpuSingleRounding: return "npu-single-rounding";
  }
  return "?";
}

/// Parses a name printed by to_string(ElementwiseArithmetic). Throws InvalidArgument otherwise.
QPARITY_MAY_THROW
inline ElementwiseArithmetic elementwise_arithmetic_from_string(const std::string& name) {
  for (ElementwiseArithmetic a : kAllElementwiseArithmetics) {
    if (name == to_string(a)) return a;
  }
  std::string allowed;
  for (ElementwiseArithmetic a : kAllElementwiseArithmetics) {
    allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(a));
  }
  QPARITY_THROW(InvalidArgument(
      "qparity: element-wise arithmetic '" + name + "' is unknown; allowed: " +
      allowed));
}

/// Scale and zero point of one per-tensor quantized tensor.
struct TensorQuantization {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
};

/// The free axes of the NPU hypothesis (the NPU preset family's axes, presets.h
/// make_npu_preset): tie rule and multiplier precision. Default: npu-verisilicon's choice
/// (ties to even, Q15 multiplier rounded directly from the scale). UNVERIFIED.
struct NpuElementwiseOptions {
  TieRule tie = TieRule::kHalfToEven;
  NpuMultiplierPrecision precision = NpuMultiplierPrecision::kQ15;
};

/// Everything the per-element functions read. Which fields are meaningful depends on
/// `arithmetic` and `op` (each group says so); derive_elementwise_params fills them.
struct ElementwiseParams {
  ElementwiseOp op = ElementwiseOp::kAdd;
  ElementwiseArithmetic arithmetic = ElementwiseArithmetic::kTfliteDouble;
  OutputType type = OutputType::kInt8;  ///< element type of both inputs and the output
  std::int32_t input1_zero_point = 0;
  std::int32_t input2_zero_point = 0;
  /// Output zero point and the clamp [qmin, qmax] (activation bounds intersected with the type
  /// range, zero point included), derived the way the runtime derives them.
  OutputParams output{};

  // ---- TFLite / TFLM / TFLite NEON (Q31 multipliers, TFLite shift convention) ------------------
  /// ADD/SUB: 20 for 8-bit types, 15 for int16 (the headroom shift applied to v_i).
  int left_shift = 0;
  /// ADD/SUB: s_i / (2 max(s1, s2)) (shift <= 0). Unused for MUL.
  QuantizedMultiplier input1_multiplier{};
  QuantizedMultiplier input2_multiplier{};
  /// ADD/SUB: 2 max(s1, s2) / (2^left_shift so). MUL: s1 s2 / so.
  QuantizedMultiplier output_multiplier{};

  // ---- XNNPACK ADD/SUB ------------------------------------------------------------------------
  std::int32_t xnn_a_multiplier = 0;  ///< signed; negative for SUB's second input
  std::int32_t xnn_b_multiplier = 0;
  int xnn_shift = 0;                  ///< in [12, 30]
  // ---- XNNPACK MUL ----------------------------------------------------------------------------
  float xnn_scale = 0.0f;             ///< float(float(s1 s2) / so), read by fp32 (x86, wasm)
  QuantizedMultiplier xnn_rndnu{};    ///< the same float as {M24 << 7, shift} (ARM rndnu)

  // ---- NPU hypothesis -------------------------------------------------------------------------
  TieRule npu_tie = TieRule::kHalfToEven;
  int npu_fraction_bits = 31;            ///< 31 (q31, f24) or 15 (q15)
  QuantizedMultiplier npu_multiplier1{};  ///< ADD/SUB: s1 / so; MUL: s1 s2 / so
  QuantizedMultiplier npu_multiplier2{};  ///< ADD/SUB: s2 / so; unused for MUL
};

namespace detail {

inline bool is_tflite_family(ElementwiseArithmetic a) {
  return a == ElementwiseArithmetic::kTfliteDouble || a == ElementwiseArithmetic::kTfliteSingle ||
         a == ElementwiseArithmetic::kTfliteMicroDouble ||
         a == ElementwiseArithmetic::kTfliteMicroSingle ||
         a == ElementwiseArithmetic::kTfliteNeon ||
         a == ElementwiseArithmetic::kTfliteNeonScalarBroadcast;
}
inline bool is_tflite_single(ElementwiseArithmetic a) {
  return a == ElementwiseArithmetic::kTfliteSingle ||
         a == ElementwiseArithmetic::kTfliteMicroSingle;
}
inline bool is_tflite_micro(ElementwiseArithmetic a) {
  return a == ElementwiseArithmetic::kTfliteMicroDouble ||
         a == ElementwiseArithmetic::kTfliteMicroSingle;
}
inline bool is_tflite_neon(ElementwiseArithmetic a) {
  return a == ElementwiseArithmetic::kTfliteNeon ||
         a == ElementwiseArithmetic::kTfliteNeonScalarBroadcast;
}
inline bool is_xnnpack(ElementwiseArithmetic a) {
  return a == ElementwiseArithmetic::kXnnpackX86 || a == ElementwiseArithmetic::kXnnpackArm ||
         a == ElementwiseArithmetic::kXnnpackWasm;
}

/// TFLite's QuantizeMultiplierSmallerThanOneExp (quantization_util.cc): requires 0 < r < 1, then
/// QuantizeMultiplier; the result has shift <= 0. TFLite aborts (TFLITE_CHECK) outside (0, 1); we
/// throw naming the quantity.
QPARITY_MAY_THROW
inline QuantizedMultiplier quantize_smaller_than_one(const char* what, double r,
                                                     TfliteBuild build) {
  if (!(r > 0.0 && r < 1.0)) {
    qparity::detail::throw_out_of_range(what, r, "(0, 1) (TFLite QuantizeMultiplierSmallerThanOneExp aborts outside)");
  }
  return quantize_multiplier_tflite(r, build);
}

inline RequantParams q31(QuantizedMultiplier m) {
  RequantParams p;
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  return p;
}

/// TFLite's MultiplyByQuantizedMultiplier (and its SmallerThanOneExp form, the same arithmetic for
/// shift <= 0): DR-AZ in the default build, SR-UP with TFLITE_SINGLE_ROUNDING (§3.2).
inline std::int32_t tflite_mbqm(std::int32_t x, QuantizedMultiplier m, bool single) {
  return single ? SingleRoundingUpward::requantize(x, q31(m))
                : DoubleRoundingAwayFromZero::requantize(x, q31(m));
}

inline std::int32_t wrap_to_int16(std::int64_t v) {
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(static_cast<std::uint64_t>(v)));
}

inline std::int32_t clamp_output(std::int64_t y, const OutputParams& o) {
  return static_cast<std::int32_t>(clamp_i64(y, o.qmin, o.qmax));
}

/// a + b for two 128-bit values.
constexpr Int128 add_i128_i128(Int128 a, Int128 b) noexcept {
  const std::uint64_t lo = a.lo + b.lo;
  const std::int64_t carry = lo < a.lo ? 1 : 0;
  return Int128{a.hi + b.hi + carry, lo};
}

/// -a for a 128-bit value (|a| < 2^126).
constexpr Int128 negate_i128(Int128 a) noexcept {
  const std::uint64_t lo = ~a.lo + 1u;
  return Int128{~a.hi + (lo == 0 ? 1 : 0), lo};
}

QPARITY_MAY_THROW
inline void validate_elementwise_type(ElementwiseOp op, ElementwiseArithmetic a, OutputType type,
                                      TensorQuantization in1, TensorQuantization in2,
                                      TensorQuantization out) {
  if (type == OutputType::kInt32) {
    QPARITY_THROW(InvalidArgument(
        "qparity: element-wise ops take int8, uint8 or int16 tensors, not int32"));
  }
  const std::int64_t lo = output_type_min(type), hi = output_type_max(type);
  qparity::detail::require_in_range("input1 zero_point", in1.zero_point, lo, hi, to_string(type));
  qparity::detail::require_in_range("input2 zero_point", in2.zero_point, lo, hi, to_string(type));
  qparity::detail::require_in_range("output zero_point", out.zero_point, lo, hi, to_string(type));
  qparity::detail::require_positive_finite("input1 scale", in1.scale);
  qparity::detail::require_positive_finite("input2 scale", in2.scale);
  qparity::detail::require_positive_finite("output scale", out.scale);
  if (type == OutputType::kInt16) {
    if (is_xnnpack(a) || is_tflite_neon(a)) {
      QPARITY_THROW(InvalidArgument(std::string("qparity: ") + to_string(a) +
                                    " has no int16 element-wise arithmetic (XNNPACK takes no int16 "
                                    "ADD/SUB/MUL; TFLite's int16 NEON/AVX2 ADD is not modelled)"));
    }
    // TFLite add.cc and mul.cc require symmetric int16; sub.cc's general path allows asymmetric.
    if (op != ElementwiseOp::kSub && is_tflite_family(a) &&
        (in1.zero_point != 0 || in2.zero_point != 0 || out.zero_point != 0)) {
      QPARITY_THROW(InvalidArgument(std::string("qparity: int16 ") + to_string(op) +
                                    " in TFLite requires zero points 0 (add.cc / mul.cc Prepare)"));
    }
  }
  if (type == OutputType::kUint8 && is_tflite_micro(a)) {
    QPARITY_THROW(InvalidArgument("qparity: TFLite Micro's ADD/SUB/MUL take int8 and int16 only"));
  }
  if (op == ElementwiseOp::kSub && is_tflite_neon(a)) {
    QPARITY_THROW(InvalidArgument(
        "qparity: TFLite has no NEON SUB block: sub.cc runs the reference kernel "
        "for int8 and uint8 (use tflite-double / tflite-single)"));
  }
}

}  // namespace detail

/// Derives ElementwiseParams from float scales and zero points exactly as the runtime does.
///
/// TFLite and TFLM, ADD and SUB (add.cc / sub.cc Prepare, add_common.cc / sub_common.cc):
///   left_shift = 20 (int8, uint8) or 15 (int16); T = 2 max(s1, s2) (max of the two floats, then
///   doubled; exact); m_i = s_i / T; m_o = T / (2^left_shift so). Each is turned into a Q31
///   multiplier by QuantizeMultiplierSmallerThanOneExp (QuantizeMultiplier, HAZ mantissa, §3.1)
///   and must lie in (0, 1). m_i <= 1/2 always; m_o < 1 unless the output scale is tiny
///   (TFLite aborts on ADD then; SUB switches to QuantizeMultiplierGreaterThanOne, which is only
///   well defined in the single-rounding build, so the double builds throw).
///   Where the quotients are computed:
///     TFLite ADD, TFLite SUB, TFLM ADD   in double (SUB's float operands give the same doubles)
///     TFLM SUB                           in float32: m_i = float(s_i / float(T)),
///                                        m_o = float(T / float(2^left_shift so)), then widened
/// TFLite and TFLM, MUL (mul.cc Prepare, mul_common.cc): m = s1 s2 / so, QuantizeMultiplier (any
///   shift up to 30; larger throws), composed
///     TFLite                             in float32: float(float(s1 s2) / so) (ScaleComposition::kFloat)
///     TFLM                               in double (ScaleComposition::kDouble)
/// Both builds use the same derivation (exponents > 30 cannot occur for multipliers < 2^30).
/// Clamp: CalculateActivationRangeQuantized (ClampDerivation::kTflite, §3.5).
///
/// XNNPACK ADD/SUB (xnn_init_qs8_add_minmax_scalar_params / qu8; binary-elementwise-nd.cc):
///   r1 = float(s1 / so), r2 = float(s2 / so), for SUB r2 = -r2 (the second scale is negated);
///   |r_i| must lie in [2^-10, 2^8) (XNNPACK's limit; the delegate declines the node otherwise);
///   e = unbiased exponent of max(|r1|, |r2|); shift = 20 - e (in [12, 30]);
///   M_i = sign(r_i) * RNE(|r_i| * 2^shift) (lrintf after an exact exponent bump): the larger
///   multiplier lies in [2^20, 2^21], the smaller in [0, 2^21]: about 21 bits.
///   The kernels fold the zero points and 2^(shift-1) into one int32 bias.
/// XNNPACK MUL (xnn_init_qs8_mul_minmax_scalar_params, ..._rndnu_neon_params):
///   scale = float(float(s1 s2) / so), required in [2^-16, 2^8); x86 and wasm use the float,
///   ARM (NEON) its exact value as {M24 << 7, shift} (quantize_multiplier_float_mantissa, §6.1).
/// XNNPACK clamp: a separate clamp node whose float bounds are quantized by xnn_qs8_quantize
///   (ClampDerivation::kXnnpack, §6.4; subgraph/binary.c xnn_insert_clamp_node).
///
/// NPU hypothesis (UNVERIFIED): r1 = s1 / so, r2 = s2 / so (ADD/SUB) or r = s1 s2 / so (MUL), in
///   double (the NPU family's ScaleComposition::kDouble), each turned into a multiplier of the
///   chosen precision: q31 quantize_multiplier_tflite, q15 quantize_multiplier_q15_direct, f24
///   quantize_multiplier_float_mantissa(float(r)). Clamp: ClampDerivation::kTflite.
///
/// int16 SUB with non-zero zero points follows the newest sub.cc (general path allowed); TFLite
/// builds as old as LiteRT.js 2.5.3's refuse it in Prepare (sub.cc: zero_point != 0).
/// Throws InvalidArgument for: scales not finite and > 0, zero points outside the type, a
/// multiplier outside the runtime's range (quoted above), int16 with XNNPACK or NEON, int16 ADD /
/// MUL with non-zero zero points under TFLite (add.cc / mul.cc require them), uint8 under TFLM,
/// SUB under the NEON variants (TFLite runs SUB's reference kernel on NEON too).
QPARITY_MAY_THROW
inline ElementwiseParams derive_elementwise_params(ElementwiseOp op, ElementwiseArithmetic a,
                                                   OutputType type, TensorQuantization in1,
                                                   TensorQuantization in2, TensorQuantization out,
                                                   Activation activation = Activation::kNone,
                                                   NpuElementwiseOptions npu = {}) {
  detail::validate_elementwise_type(op, a, type, in1, in2, out);
  ElementwiseParams p;
  p.op = op;
  p.arithmetic = a;
  p.type = type;
  p.input1_zero_point = in1.zero_point;
  p.input2_zero_point = in2.zero_point;
  const ClampDerivation clamp =
      detail::is_xnnpack(a) ? ClampDerivation::kXnnpack : ClampDerivation::kTflite;
  p.output = activation_output_params(activation, clamp, out.scale, out.zero_point, type);

  if (detail::is_tflite_family(a)) {
    const bool single = detail::is_tflite_single(a);
    const TfliteBuild build = single ? TfliteBuild::kSingleRounding : TfliteBuild::kDoubleRounding;
    const bool micro = detail::is_tflite_micro(a);
    if (op == ElementwiseOp::kMul) {
      const EffectiveScale eff =
          compose_scale(micro ? ScaleComposition::kDouble : ScaleComposition::kFloat, in1.scale,
                        in2.scale, out.scale);
      p.output_multiplier = quantize_multiplier_tflite(eff.scale, build);
      qparity::detail::require_in_range("MUL output shift", p.output_multiplier.shift, kQ31ShiftMin,
                               kQ31ShiftMax, "s1 s2 / so below 2^30");
      return p;
    }
    p.left_shift = type == OutputType::kInt16 ? 15 : 20;
    const float max_scale = in1.scale > in2.scale ? in1.scale : in2.scale;
    double r1 = 0, r2 = 0, ro = 0;
    if (micro && op == ElementwiseOp::kSub) {
      const float twice = 2.0f * max_scale;  // exact
      r1 = static_cast<double>(in1.scale / twice);
      r2 = static_cast<double>(in2.scale / twice);
      const float denominator = static_cast<float>(1 << p.left_shift) * out.scale;  // exact
      ro = static_cast<double>(twice / denominator);
    } else {
      const double twice = 2.0 * static_cast<double>(max_scale);
      r1 = static_cast<double>(in1.scale) / twice;
      r2 = static_cast<double>(in2.scale) / twice;
      ro = twice / (static_cast<double>(1 << p.left_shift) * static_cast<double>(out.scale));
    }
    p.input1_multiplier = detail::quantize_smaller_than_one("input1 multiplier s1/(2 max)", r1, build);
    p.input2_multiplier = detail::quantize_smaller_than_one("input2 multiplier s2/(2 max)", r2, build);
    if (op == ElementwiseOp::kSub && !micro && single && ro > 1.0) {
      // sub.cc: QuantizeMultiplierGreaterThanOne; evaluated with SmallerThanOneExp, which is
      // MultiplyByQuantizedMultiplier (SR-UP) in the single-rounding build.
      p.output_multiplier = quantize_multiplier_tflite(ro, build);
    } else {
      p.output_multiplier =
          detail::quantize_smaller_than_one("output multiplier 2 max/(2^left_shift so)", ro, build);
    }
    return p;
  }

  if (detail::is_xnnpack(a)) {
    if (op == ElementwiseOp::kMul) {
      const EffectiveScale eff = compose_scale(ScaleComposition::kFloat, in1.scale, in2.scale, out.scale);
      const float scale = static_cast<float>(eff.scale);
      if (!(scale >= 0x1p-16f && scale < 256.0f)) {
        qparity::detail::throw_out_of_range("XNNPACK MUL scale float(s1 s2)/so", scale, "[2^-16, 2^8)");
      }
      p.xnn_scale = scale;
      p.xnn_rndnu = quantize_multiplier_float_mantissa(scale);
      return p;
    }
    const float r1 = in1.scale / out.scale;
    const float r2_abs = in2.scale / out.scale;
    if (!(r1 >= 0x1p-10f && r1 < 256.0f)) {
      qparity::detail::throw_out_of_range("XNNPACK input1/output scale ratio", r1, "[2^-10, 2^8)");
    }
    if (!(r2_abs >= 0x1p-10f && r2_abs < 256.0f)) {
      qparity::detail::throw_out_of_range("XNNPACK input2/output scale ratio", r2_abs, "[2^-10, 2^8)");
    }
    const float max_ratio = r1 > r2_abs ? r1 : r2_abs;
    int exponent = 0;
    (void)std::frexp(max_ratio, &exponent);  // max_ratio = q 2^exponent, q in [0.5, 1)
    const int unbiased = exponent - 1;       // = biased exponent - 127 for a normal float
    p.xnn_shift = 20 - unbiased;
    // r * 2^shift is exact in float (exponent bump); lrintf rounds half to even.
    const auto to_multiplier = [&](float r) {
      const double scaled = std::ldexp(static_cast<double>(r), p.xnn_shift);  // exact, < 2^21
      const double low = std::floor(scaled);
      std::int64_t m = static_cast<std::int64_t>(low);
      const double frac = scaled - low;  // exact
      if (frac > 0.5 || (frac == 0.5 && (m & 1) != 0)) ++m;  // lrintf: half to even
      return static_cast<std::int32_t>(m);
    };
    p.xnn_a_multiplier = to_multiplier(r1);
    p.xnn_b_multiplier = to_multiplier(r2_abs);
    if (op == ElementwiseOp::kSub) p.xnn_b_multiplier = -p.xnn_b_multiplier;
    return p;
  }

  // NPU hypothesis.
  p.npu_tie = npu.tie;
  const auto derive = [&](double r) {
    switch (npu.precision) {
      case NpuMultiplierPrecision::kQ31:
        p.npu_fraction_bits = 31;
        return quantize_multiplier_tflite(r, TfliteBuild::kDoubleRounding);
      case NpuMultiplierPrecision::kQ15:
        p.npu_fraction_bits = 15;
        return quantize_multiplier_q15_direct(r);
      case NpuMultiplierPrecision::kFloat24:
        p.npu_fraction_bits = 31;
        return quantize_multiplier_float_mantissa(static_cast<float>(r));
    }
    return QuantizedMultiplier{};
  };
  if (op == ElementwiseOp::kMul) {
    p.npu_multiplier1 = derive(compose_scale(ScaleComposition::kDouble, in1.scale, in2.scale, out.scale).scale);
    const int k = p.npu_fraction_bits - p.npu_multiplier1.shift;
    qparity::detail::require_in_range("NPU MUL right shift", k, 1, 62, "fraction bits - shift");
  } else {
    p.npu_multiplier1 = derive(static_cast<double>(in1.scale) / static_cast<double>(out.scale));
    p.npu_multiplier2 = derive(static_cast<double>(in2.scale) / static_cast<double>(out.scale));
    const int e1 = p.npu_multiplier1.shift, e2 = p.npu_multiplier2.shift;
    qparity::detail::require_in_range("NPU ADD/SUB multiplier exponent difference", e1 - e2, -45, 45,
                             "scale ratios within 2^45 of each other");
    const int k = p.npu_fraction_bits - (e1 < e2 ? e1 : e2);
    qparity::detail::require_in_range("NPU ADD/SUB right shift", k, 0, 63, "fraction bits - min shift");
  }
  return p;
}

// ------------------------------------------------------------------------------------------------
// Per-element arithmetic. x1, x2 are stored values of p.type; the result is the output value.
// ------------------------------------------------------------------------------------------------

/// TFLite / TFLM ADD and SUB, reference kernels (reference/integer_ops/add.h AddFunc, reference/
/// add.h AddElementwise for uint8 and int16, reference/sub.h SubElementwise /
/// BroadcastQuantSubSlow; TFLM uses the same files), for p.arithmetic in {kTfliteDouble,
/// kTfliteSingle, kTfliteMicroDouble, kTfliteMicroSingle}:
///   a_i = v_i * 2^left_shift                        exact (|v_i| <= 65535, 2^15 for int16)
///   b_i = MBQM(a_i, m_i)                            rounding 1 and 2
///   c   = b_1 + b_2  (SUB: b_1 - b_2)               exact int32
///   y   = clamp(MBQM(c, m_o) + zo, qmin, qmax)      rounding 3
/// MBQM (MultiplyByQuantizedMultiplierSmallerThanOneExp, common.h):
///   default build: RDBPOT(SRDHM(x, M), -shift): SRDHM ties up (+0.5 -> 1, -0.5 -> 0), RDBPOT ties
///                  away from zero (+2.5 -> 3, -2.5 -> -3): DoubleRoundingAwayFromZero;
///   TFLITE_SINGLE_ROUNDING: floor((x M + 2^(s-1)) / 2^s), s = 31 - shift: ties up (+2.5 -> 3,
///                  -2.5 -> -2): SingleRoundingUpward.
/// So the default build rounds twice per rescale, three rescales per element; with equal input
/// and output scales every step is exact and y = clamp(v1 + v2 + zo) (SUB: v1 - v2).
/// Ranges: every intermediate fits int32 (the left shift leaves one bit of headroom: 255 2^20,
/// 65535 2^15 < 2^31). Saturation happens only in the final clamp.
inline std::int32_t tflite_add_sub(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const bool single = detail::is_tflite_single(p.arithmetic);
  const std::int32_t a1 = (x1 - p.input1_zero_point) * (1 << p.left_shift);
  const std::int32_t a2 = (x2 - p.input2_zero_point) * (1 << p.left_shift);
  const std::int32_t b1 = detail::tflite_mbqm(a1, p.input1_multiplier, single);
  const std::int32_t b2 = detail::tflite_mbqm(a2, p.input2_multiplier, single);
  const std::int32_t c = p.op == ElementwiseOp::kSub ? b1 - b2 : b1 + b2;
  const std::int64_t y =
      static_cast<std::int64_t>(detail::tflite_mbqm(c, p.output_multiplier, single)) + p.output.zero_point;
  return detail::clamp_output(y, p.output);
}

/// TFLite / TFLM MUL, reference kernels (reference/integer_ops/mul.h MulElementwise /
/// BroadcastMul6DSlow; reference/mul.h for uint8):
///   acc = v1 v2                                     exact int32 (|acc| <= 2^30 for int16)
///   y   = clamp(MBQM(acc, m) + zo, qmin, qmax)
/// MBQM = MultiplyByQuantizedMultiplier, any shift in [-31, 30]: default build DR-AZ (a positive
/// shift first multiplies acc by 2^shift in int32, wrapping, §3.2), TFLITE_SINGLE_ROUNDING SR-UP.
/// Ties: DR-AZ +2.5 -> 3, -2.5 -> -3 (but -1.5 formed at stage 1 can give -1, §1); SR-UP +2.5 -> 3,
/// -2.5 -> -2.
inline std::int32_t tflite_mul(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const bool single = detail::is_tflite_single(p.arithmetic);
  const std::int32_t acc = (x1 - p.input1_zero_point) * (x2 - p.input2_zero_point);
  const std::int64_t y =
      static_cast<std::int64_t>(detail::tflite_mbqm(acc, p.output_multiplier, single)) + p.output.zero_point;
  return detail::clamp_output(y, p.output);
}

/// TFLite's optimized NEON ADD blocks (USE_NEON builds, i.e. ARM; both rounding builds, since the
/// blocks call SQRDMULH and gemmlowp's RoundingDivideByPOT directly). Three arithmetics:
///  * int8, AddElementwiseInt8 (optimized/integer_ops/add.h), p.arithmetic == kTfliteNeon:
///      pre_i = left_shift + shift_i (the input shift merged into the left shift);
///      a_i = v_i * 2^pre_i (pre_i >= 0) or floor(v_i / 2^-pre_i) (pre_i < 0, VSHL by a negative
///      amount truncates);  b_i = SRDHM(a_i, M_i)   -- ONE rounding per input (ties up), not two
///  * int8 AddScalarBroadcast, and uint8 AddElementwise and AddScalarBroadcast (optimized_ops.h),
///    "floor" form:
///      b_i = floor(SRDHM(v_i * 2^left_shift, M_i) / 2^-shift_i)   -- the second step truncates
///  then, all three:
///      c = b_1 + b_2;  r = RDBPOT(SRDHM(c, M_o), -shift_o)  (ties up, then away from zero)
///      n = r modulo 2^16 (VMOVN, wraps);  s = (n + zo) modulo 2^16 (VADD.I16, wraps);
///      y = clamp(saturate_to_type(s), qmin, qmax)  (VQMOVN / VQMOVUN, then VMAX / VMIN)
/// Differences from tflite_add_sub: the input rescale (one rounding, or a truncation, instead of
/// SRDHM + RDBPOT), and the int16 wrap, which matters only when |r| + |zo| exceeds 32767 (output
/// scale far below the input scales). The kernel runs this on blocks of 16 (int8 elementwise) or
/// 8 (the others) elements of each contiguous run and the reference arithmetic of the build on the
/// rest (tflite_neon_simd_elements); which runs are contiguous depends on TFLite's broadcast
/// analysis (ProcessBroadcastShapes), not modelled. Source: LiteRT optimized/integer_ops/add.h
/// (int8); uint8 read in a TensorFlow copy of optimized/optimized_ops.h (revision not pinned).
inline std::int32_t tflite_neon_add(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const bool merged = p.arithmetic == ElementwiseArithmetic::kTfliteNeon && p.type == OutputType::kInt8;
  const auto rescale = [&](std::int32_t v, QuantizedMultiplier m) -> std::int32_t {
    if (merged) {
      const int pre = p.left_shift + m.shift;
      std::int32_t a;
      if (pre >= 0) {
        a = shift_left_wrapping(v, pre);
      } else {
        a = -pre >= 31 ? (v < 0 ? -1 : 0) : (v >> -pre);
      }
      return saturating_rounding_doubling_high_mul(a, m.multiplier);
    }
    const std::int32_t t =
        saturating_rounding_doubling_high_mul(shift_left_wrapping(v, p.left_shift), m.multiplier);
    return -m.shift >= 31 ? (t < 0 ? -1 : 0) : (t >> -m.shift);
  };
  const std::int32_t b1 = rescale(x1 - p.input1_zero_point, p.input1_multiplier);
  const std::int32_t b2 = rescale(x2 - p.input2_zero_point, p.input2_multiplier);
  const std::int32_t c = b1 + b2;
  const std::int32_t r = rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(c, p.output_multiplier.multiplier), -p.output_multiplier.shift);
  const std::int32_t s = detail::wrap_to_int16(static_cast<std::int64_t>(detail::wrap_to_int16(r)) + p.output.zero_point);
  const std::int64_t y = clamp_i64(s, output_type_min(p.type), output_type_max(p.type));
  return detail::clamp_output(y, p.output);
}

/// TFLite's optimized NEON MUL blocks (optimized/integer_ops/mul.h MulElementwise and
/// MulSimpleBroadcast for int8; optimized_ops.h for uint8), both rounding builds:
///   acc = v1 v2 (VMULL.S16, exact);  t = SRDHM(acc * 2^L mod 2^32, M), L = max(shift, 0);
///   r = RDBPOT(t, max(-shift, 0))             -- DR-AZ, also in the single-rounding build
///   n = saturate_int16(r) (VQMOVN) -- except uint8 MulSimpleBroadcast: r modulo 2^16 (VMOVN);
///   s = (n + zo) modulo 2^16 (VADD.I16, wraps);  y = clamp(saturate_to_type(s), qmin, qmax)
/// Equal to tflite_mul under kTfliteDouble except where |r| comes near 32767 (the int16 stage can
/// wrap: r saturated to 32767 plus zo = 1 gives -32768, i.e. the minimum output). Under the
/// single-rounding build the NEON blocks still round twice while the scalar remainder rounds once.
/// Blocks: 16 (int8), 8 (uint8) elements (tflite_neon_simd_elements).
inline std::int32_t tflite_neon_mul(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const std::int32_t acc = (x1 - p.input1_zero_point) * (x2 - p.input2_zero_point);
  const std::int32_t r = DoubleRoundingAwayFromZero::requantize(acc, detail::q31(p.output_multiplier));
  const bool wrap16 = p.type == OutputType::kUint8 &&
                      p.arithmetic == ElementwiseArithmetic::kTfliteNeonScalarBroadcast;
  const std::int64_t n = wrap16 ? detail::wrap_to_int16(r) : clamp_i64(r, -32768, 32767);
  const std::int32_t s = detail::wrap_to_int16(n + p.output.zero_point);
  const std::int64_t y = clamp_i64(s, output_type_min(p.type), output_type_max(p.type));
  return detail::clamp_output(y, p.output);
}

/// How many leading elements of one contiguous run of `n` elements TFLite's NEON block covers
/// (the rest run the reference arithmetic of the build): n rounded down to the block size, 16 for
/// int8 AddElementwiseInt8 / MulElementwise / MulSimpleBroadcast, 8 for AddScalarBroadcast and
/// every uint8 block. SUB has no NEON block (0).
inline std::size_t tflite_neon_simd_elements(ElementwiseOp op, OutputType type, bool scalar_broadcast,
                                             std::size_t n) {
  if (op == ElementwiseOp::kSub) return 0;
  std::size_t block = 8;
  if (type == OutputType::kInt8 && (op == ElementwiseOp::kMul || !scalar_broadcast)) block = 16;
  return n - n % block;
}

/// XNNPACK ADD and SUB, qs8 / qu8 vadd and vaddc microkernels (scalar, SSE2/SSE4.1/AVX/AVX2/
/// AVX-512, NEON and wasmsimd all compute the same integers; src/qs8-vadd/gen/*, qs8-vaddc/gen/*):
///   acc = v1 M_a + v2 M_b + 2^(shift-1)            exact in int32 (|acc| < 2^31); SUB: M_b < 0
///   y   = clamp(floor(acc / 2^shift) + zo, qmin, qmax)
/// One rounding, ties toward +infinity (HU): +2.5 -> 3, -2.5 -> -2 (the kernels' arithmetic shift
/// of a biased sum, NEON's VRSHL). The int16 / int8 saturating narrows (VQMOVN, packs,
/// wasm narrow) only saturate values that the clamp would saturate anyway. The multipliers carry
/// about 21 bits, so y can differ from the exactly rounded value off ties too. Older XNNPACK
/// (before the 2024 params rewrite) rounded ties away from zero with a remainder mask; LiteRT.js
/// 2.5.3 was measured to round them up (docs/semantics.md §21.1).
inline std::int32_t xnnpack_add_sub(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const std::int64_t acc = static_cast<std::int64_t>(x1 - p.input1_zero_point) * p.xnn_a_multiplier +
                           static_cast<std::int64_t>(x2 - p.input2_zero_point) * p.xnn_b_multiplier +
                           (std::int64_t{1} << (p.xnn_shift - 1));
  return detail::clamp_output((acc >> p.xnn_shift) + p.output.zero_point, p.output);
}

/// XNNPACK MUL, fp32 microkernels: x86 (SSE2 / SSE4.1 / AVX mul16) and WebAssembly (wasmsimd
/// mul32; src/qs8-vmul/gen/qs8-vmul-minmax-fp32-*.c):
///   acc = v1 v2 (exact);  f = float(acc) * scale (float32, RNE; float(acc) is exact, |acc| < 2^17)
///   y   = clamp(RNE(f) + zo, qmin, qmax)             ties to even: 2.5 -> 2, -2.5 -> -2, 3.5 -> 4
/// The kernels clamp in float / on the magic-biased integer before adding zo, which gives the same
/// integers (RNE is monotonic and the bounds are integers). This is the F32 core (§1,
/// Float32Rounding) on acc with the float32-composed scale.
inline std::int32_t xnnpack_mul_fp32(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const std::int32_t acc = (x1 - p.input1_zero_point) * (x2 - p.input2_zero_point);
  RequantParams r;
  r.scale = p.xnn_scale;
  return detail::clamp_output(static_cast<std::int64_t>(Float32Rounding::requantize(acc, r)) + p.output.zero_point,
                              p.output);
}

/// XNNPACK MUL, rndnu NEON microkernels (ARM, qs8-vmul-minmax-rndnu-neon-*): the float32 scale's
/// exact value as M = M24 << 7 with a total right shift s; the kernel's saturating pre-shift
/// (VQSHL, at most 9 bits on |acc| < 2^16: never saturates), VQDMULH (truncates) and VRSHL
/// (rounds half up) equal one rounding of the exact product:
///   y = clamp(floor((acc M24 + 2^(s-1)) / 2^s) + zo, qmin, qmax)     ties up: -2.5 -> -2
/// i.e. SR-UP (SingleRoundingUpward) with quantize_multiplier_float_mantissa(scale).
/// TFLite's QuantizeMultiplier of its (float32-composed) MUL scale is exactly {M24 << 7, shift},
/// so tflite_mul under kTfliteSingle computes the same integers wherever both accept the scale;
/// only the activation clamp is derived differently (tested: TfliteSingleMulIsXnnpackArmMul).
inline std::int32_t xnnpack_mul_rndnu(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const std::int32_t acc = (x1 - p.input1_zero_point) * (x2 - p.input2_zero_point);
  return detail::clamp_output(
      static_cast<std::int64_t>(SingleRoundingUpward::requantize(acc, detail::q31(p.xnn_rndnu))) +
          p.output.zero_point,
      p.output);
}

/// NPU single-rounding HYPOTHESIS for ADD / SUB (UNVERIFIED: no NPU has been measured; the tie
/// rule and multiplier precision are the NPU preset family's free axes, presets.h):
///   value = v1 M1 2^(sh1 - F) +- v2 M2 2^(sh2 - F)   computed exactly (128-bit), F = 31 or 15
///   y     = clamp(round_tie(value) + zo, qmin, qmax)  one rounding with p.npu_tie:
///           HU +2.5 -> 3, -2.5 -> -2; HAZ +-2.5 -> +-3; HE +-2.5 -> +-2; TZ / FL truncate
/// i.e. the sum is rescaled to the output scale with one multiplier per input and rounded once,
/// with no headroom shift and no intermediate rounding.
inline std::int32_t npu_add_sub(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const int f = p.npu_fraction_bits;
  const int e1 = p.npu_multiplier1.shift - f, e2 = p.npu_multiplier2.shift - f;
  const int emin = e1 < e2 ? e1 : e2;
  const std::int64_t v1 = x1 - p.input1_zero_point, v2 = x2 - p.input2_zero_point;
  const Int128 t1 = mul_i64_i32(v1 * (std::int64_t{1} << (e1 - emin)), p.npu_multiplier1.multiplier);
  Int128 t2 = mul_i64_i32(v2 * (std::int64_t{1} << (e2 - emin)), p.npu_multiplier2.multiplier);
  if (p.op == ElementwiseOp::kSub) t2 = detail::negate_i128(t2);
  const Int128 sum = detail::add_i128_i128(t1, t2);
  std::int64_t value;
  if (emin >= 0) {
    value = static_cast<std::int64_t>(sum.lo) * (std::int64_t{1} << emin);  // exact integer
  } else {
    value = round_shift_right(sum, -emin, p.npu_tie);
  }
  return detail::clamp_output(value + p.output.zero_point, p.output);
}

/// NPU single-rounding HYPOTHESIS for MUL (UNVERIFIED):
///   y = clamp(round_tie(v1 v2 M 2^(sh - F)) + zo, qmin, qmax), one rounding with p.npu_tie,
/// the product exact (|v1 v2 M| < 2^62).
inline std::int32_t npu_mul(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const std::int64_t acc = static_cast<std::int64_t>(x1 - p.input1_zero_point) * (x2 - p.input2_zero_point);
  const std::int64_t value = round_shift_right(acc * p.npu_multiplier1.multiplier,
                                               p.npu_fraction_bits - p.npu_multiplier1.shift, p.npu_tie);
  return detail::clamp_output(value + p.output.zero_point, p.output);
}

/// One output element under p.arithmetic and p.op (dispatch to the functions above). x1, x2 must
/// be values of p.type (not checked here; elementwise() checks the element type).
inline std::int32_t elementwise_element(const ElementwiseParams& p, std::int32_t x1, std::int32_t x2) {
  const bool mul = p.op == ElementwiseOp::kMul;
  switch (p.arithmetic) {
    case ElementwiseArithmetic::kTfliteDouble:
    case ElementwiseArithmetic::kTfliteSingle:
    case ElementwiseArithmetic::kTfliteMicroDouble:
    case ElementwiseArithmetic::kTfliteMicroSingle:
      return mul ? tflite_mul(p, x1, x2) : tflite_add_sub(p, x1, x2);
    case ElementwiseArithmetic::kTfliteNeon:
    case ElementwiseArithmetic::kTfliteNeonScalarBroadcast:
      return mul ? tflite_neon_mul(p, x1, x2) : tflite_neon_add(p, x1, x2);
    case ElementwiseArithmetic::kXnnpackX86:
    case ElementwiseArithmetic::kXnnpackWasm:
      return mul ? xnnpack_mul_fp32(p, x1, x2) : xnnpack_add_sub(p, x1, x2);
    case ElementwiseArithmetic::kXnnpackArm:
      return mul ? xnnpack_mul_rndnu(p, x1, x2) : xnnpack_add_sub(p, x1, x2);
    case ElementwiseArithmetic::kNpuSingleRounding:
      return mul ? npu_mul(p, x1, x2) : npu_add_sub(p, x1, x2);
  }
  return 0;
}

// ------------------------------------------------------------------------------------------------
// Whole tensors with broadcasting.
// ------------------------------------------------------------------------------------------------

/// The most dimensions a shape may have (TFLite's kMaxBroadcastDim, XNNPACK's XNN_MAX_TENSOR_DIMS).
inline constexpr std::size_t kMaxElementwiseDims = 6;

/// NumPy / TFLite broadcast shape: shapes are aligned at their last dimension, a missing leading
/// dimension counts as 1, and each pair of dimensions must be equal or contain a 1 (the result is
/// the other one; 1 and 0 give 0). Throws InvalidArgument for more than 6 dimensions or
/// incompatible dimensions. A rank-0 shape ({}) is a scalar.
QPARITY_MAY_THROW
inline std::vector<std::size_t> broadcast_shape(const std::vector<std::size_t>& a,
                                                const std::vector<std::size_t>& b) {
  if (a.size() > kMaxElementwiseDims || b.size() > kMaxElementwiseDims) {
    QPARITY_THROW(InvalidArgument(
        "qparity: element-wise shapes may have at most 6 dimensions (got " +
        std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")"));
  }
  const std::size_t rank = a.size() > b.size() ? a.size() : b.size();
  std::vector<std::size_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      QPARITY_THROW(InvalidArgument(
          "qparity: shapes do not broadcast: dimension " + std::to_string(i) +
          " is " + std::to_string(da) + " and " + std::to_string(db)));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

inline std::size_t shape_elements(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

namespace detail {

template <class T>
constexpr OutputType element_type_of() {
  return std::is_same<T, std::int8_t>::value    ? OutputType::kInt8
         : std::is_same<T, std::uint8_t>::value ? OutputType::kUint8
                                                : OutputType::kInt16;
}

}  // namespace detail

/// The whole op: out[i] = elementwise_element(p, in1[j1(i)], in2[j2(i)]) over the broadcast
/// shape, row-major (last dimension fastest), where j1 / j2 index the inputs with broadcast
/// dimensions held at 0. Every element is independent, so the runtimes' loop orders
/// (TFLite's BroadcastBinaryOpSimple / fivefold loops, XNNPACK's compressed strides) do not
/// change any value; only TFLite's NEON variants compute position-dependent values in the real
/// kernel (tflite_neon_simd_elements), and this function applies p.arithmetic to every element.
/// T must be int8_t, uint8_t or int16_t matching p.type. Writes the output shape to
/// *output_shape if given. Throws InvalidArgument for a type mismatch, a shape/size mismatch or
/// shapes that do not broadcast.
template <class T>
QPARITY_MAY_THROW
std::vector<T> elementwise(const ElementwiseParams& p, const std::vector<std::size_t>& shape1,
                           const std::vector<T>& input1, const std::vector<std::size_t>& shape2,
                           const std::vector<T>& input2,
                           std::vector<std::size_t>* output_shape = nullptr) {
  static_assert(std::is_same<T, std::int8_t>::value || std::is_same<T, std::uint8_t>::value ||
                    std::is_same<T, std::int16_t>::value,
                "elementwise: T must be int8_t, uint8_t or int16_t");
  if (detail::element_type_of<T>() != p.type) {
    QPARITY_THROW(InvalidArgument(
        std::string("qparity: elementwise() called with ") +
        to_string(detail::element_type_of<T>()) + " data for " + to_string(p.type) +
        " parameters"));
  }
  if (shape_elements(shape1) != input1.size() || shape_elements(shape2) != input2.size()) {
    QPARITY_THROW(InvalidArgument("qparity: element-wise input sizes do not match their shapes"));
  }
  const std::vector<std::size_t> out_shape = broadcast_shape(shape1, shape2);
  if (output_shape) *output_shape = out_shape;
  const std::size_t rank = out_shape.size();
  // Strides of each input in output coordinates (0 along broadcast dimensions).
  std::vector<std::size_t> stride1(rank, 0), stride2(rank, 0);
  {
    std::size_t s1 = 1, s2 = 1;
    for (std::size_t k = rank; k-- > 0;) {
      const std::size_t i1 = k + shape1.size();  // index into shape1 + rank
      const std::size_t i2 = k + shape2.size();
      if (i1 >= rank) {
        const std::size_t d = shape1[i1 - rank];
        stride1[k] = d == 1 ? 0 : s1;
        s1 *= d;
      }
      if (i2 >= rank) {
        const std::size_t d = shape2[i2 - rank];
        stride2[k] = d == 1 ? 0 : s2;
        s2 *= d;
      }
    }
  }
  const std::size_t n = shape_elements(out_shape);
  std::vector<T> out(n);
  std::vector<std::size_t> index(rank, 0);
  std::size_t j1 = 0, j2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(elementwise_element(p, input1[j1], input2[j2]));
    // Advance the multi-index (last dimension fastest) and the two input offsets.
    for (std::size_t k = rank; k-- > 0;) {
      if (++index[k] < out_shape[k]) {
        j1 += stride1[k];
        j2 += stride2[k];
        break;
      }
      j1 -= stride1[k] * (out_shape[k] - 1);
      j2 -= stride2[k] * (out_shape[k] - 1);
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace reference
}  // namespace qparity
