// ADD, SUB and MUL on int8 / uint8 tensors with NumPy / TFLite broadcasting (up to 6 dimensions)
// and a fused activation. The arithmetic is include/qparity/reference/elementwise.h (Engine::
// kReference) or the compiled library's qparity::elementwise (include/qparity/elementwise.h,
// kernels/elementwise/: bit-exact with the header on every ISA), docs/semantics.md §21.1, §21.2.
//
// How a node's system maps to the header's arithmetic (ElementwiseArithmetic), by op style:
//   kTfliteReference  TFLite's reference kernels (reference/integer_ops/add.h, mul.h,
//                     reference/sub.h; tflite/kernels/add.cc, sub.cc, mul.cc Prepare) in the build
//                     the preset's core says: SR-UP (tflite-single, tosa-single, cmsis-nn-single)
//                     is the TFLITE_SINGLE_ROUNDING build -> kTfliteSingle, every other core
//                     (tflite-reference, gemmlowp, tosa-double, tflite-16x8 on 8-bit tensors) the
//                     default build -> kTfliteDouble. TOSA's legalization of tfl.add / tfl.mul
//                     restates TFLite's formula with RESCALE (system.cc). cmsis-nn and
//                     cmsis-nn-single are TFLite Micro's (CMSIS-NN's s8 ADD / MUL run inside TFLM,
//                     whose add_common.cc / mul_common.cc Prepare derive the parameters; the
//                     per-element formula is taken to be the reference one, CMSIS-NN's kernels
//                     not re-read: UNVERIFIED) -> kTfliteMicroDouble / kTfliteMicroSingle, int8
//                     only (TFLM has no uint8 ADD / SUB / MUL).
//   kTfliteOptimized  TFLite's optimized kernels (the tflite-builtin-* profiles, ruy-x86, ruy-arm):
//                     on x86 and WebAssembly the 8-bit ADD / MUL have no SIMD path and int8 / uint8
//                     SUB always runs the reference kernel (sub.cc EvalQuantized), so the reference
//                     arithmetic of the build (as above; LiteRT.js 2.5.3 measured kTfliteDouble,
//                     docs/semantics.md §21.1). On ARM (USE_NEON) ADD and MUL run NEON blocks
//                     (optimized/integer_ops/add.h, mul.h; optimized_ops.h for uint8):
//                     kTfliteNeonScalarBroadcast when one input has a single element
//                     (AddScalarBroadcast / MulSimpleBroadcast), else kTfliteNeon; SUB stays the
//                     reference kernel. The header applies the NEON arithmetic to every element;
//                     the real kernel runs the remainder of each contiguous run (n mod 16 or 8) in
//                     the reference arithmetic, which is not modelled (docs/semantics.md §21.1).
//   kXnnpack          XNNPACK's binary operators as the delegate runs them (subgraph/binary.c,
//                     operators/binary-elementwise-nd.cc): kXnnpackX86 / kXnnpackArm /
//                     kXnnpackWasm by the system's target (MUL: fp32 on x86 and wasm, rndnu on ARM).
//   kNpu              kNpuSingleRounding (HYPOTHESIS, UNVERIFIED: no NPU measured): the tie rule of
//                     the preset's core (SR-UP hu, SR-AZ haz, SR-EVEN he, TRUNC tz, FLOOR fl) and
//                     the multiplier precision of its derivation (tflite-q31 q31, q15-direct q15,
//                     float-mantissa24 f24): make_npu_preset's axes (presets.h). npu-verisilicon is
//                     npu-he-q15-int32.
//   kFloat            (onnxruntime, fbgemm, onednn) a float32 formula, UNVERIFIED (no runtime
//                     measured for these ops): real_i = s_i * float(x_i - z_i), r = real1 op real2,
//                     y = clamp(RNE_sat(r / so) + zo) with the preset's clamp derivation, every
//                     operation one float32 rounding. It is the pattern of ONNX Runtime's QLinearAdd /
//                     QLinearMul and PyTorch's quantized add / mul (dequantize, compute, requantize
//                     with round-half-even), not a restatement of their kernels. Except MUL under
//                     the onnxruntime preset: ONNX Runtime's MlasQLinearMul formula, and ADD: its
//                     AVX2 MlasQLinearAdd kernel, both measured (mlas_mul below, mlas_qladd.h;
//                     docs/semantics.md §22.2). The fast engine runs ADD's same-shape and
//                     one-element-x2 forms on the library's vector kernels of that formula
//                     (kernels/entries/qparity_internal/mlas_qladd.h), split over the threads.
//
// TFLite's XNNPACK delegate takes a node (xnnpack_takes; xnnpack_delegate.cc VisitAddNode /
// VisitSubNode / VisitMulNode, CheckTensorQInt8OrQUInt8Type, CheckTensorsInputOutputScale,
// CheckTensorsInputProductOutputScale) when both inputs and the output are int8 or uint8 with
// per-tensor quantization: one scale, one zero point, quantized_dimension 0 (so an output with one
// scale along another axis, a per-axis output, is declined and TFLite's own kernel runs), and when
// the scale ratios are in XNNPACK's range: ADD / SUB float(s_i) / float(so) in [2^-10, 2^8) for each
// input, MUL float(s1 s2) / so in [2^-16, 2^8) (float32 arithmetic, as the delegate computes them).
//
// Float32 ADD / SUB / MUL run under a float precision (FloatElementwisePrepared, docs/semantics.md
// §24): y = round_storage(clamp(x1 op x2)) with both inputs rounded to the storage format when read;
// one float32 operation on two binary16 or bfloat16 values, rounded again to their format, is the
// correctly rounded result (float_precision.h), so this is the format's own arithmetic.
#include "model/ops/elementwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>

#include "model/op.h"
#include "model/ops/conv_common.h"
#include "model/ops/mlas_qladd.h"
#include "qparity/elementwise.h"
#include "qparity/isa.h"
#include "qparity/policy_float.h"
#include "qparity/reference/elementwise.h"
#include "qparity_internal/mlas_qladd.h"
#include "qparity_internal/tile_pool_ranges.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

std::string ElementwiseOptions::describe() const { return activation_text(activation); }

namespace {

using reference::ElementwiseArithmetic;
using reference::ElementwiseOp;
using reference::ElementwiseParams;

Activation activation_of(const Node& n) {
  return n.options ? n.opts<ElementwiseOptions>().activation : Activation::kNone;
}

OutputType output_type_of(DType d) { return d == DType::kUint8 ? OutputType::kUint8 : OutputType::kInt8; }

reference::TensorQuantization tq(const TensorDef& t) {
  return reference::TensorQuantization{t.quant.scales[0], static_cast<std::int32_t>(t.quant.zero_point())};
}

/// Calls f(i, j1, j2) for every output element i of the NumPy broadcast of two shapes, in row-major
/// order, with j1 and j2 the elements of the two inputs it reads (reference::elementwise's walk;
/// the float formulas below have no variant in the header to hand the walk to).
template <class F>
void for_each_broadcast(const std::vector<std::size_t>& shape1, const std::vector<std::size_t>& shape2, F&& f) {
  const std::vector<std::size_t> shape = reference::broadcast_shape(shape1, shape2);
  const std::size_t rank = shape.size();
  // Each input's stride per output dimension: 0 where it is broadcast.
  std::vector<std::size_t> st1(rank, 0), st2(rank, 0), idx(rank, 0);
  std::size_t c1 = 1, c2 = 1;
  for (std::size_t k = rank; k-- > 0;) {
    const std::size_t i1 = k + shape1.size(), i2 = k + shape2.size();
    if (i1 >= rank) {
      st1[k] = shape1[i1 - rank] == 1 ? 0 : c1;
      c1 *= shape1[i1 - rank];
    }
    if (i2 >= rank) {
      st2[k] = shape2[i2 - rank] == 1 ? 0 : c2;
      c2 *= shape2[i2 - rank];
    }
  }
  std::size_t j1 = 0, j2 = 0;
  for (std::size_t i = 0, total = reference::shape_elements(shape); i < total; ++i) {
    f(i, j1, j2);
    for (std::size_t k = rank; k-- > 0;) {
      if (++idx[k] < shape[k]) {
        j1 += st1[k];
        j2 += st2[k];
        break;
      }
      idx[k] = 0;
      j1 -= st1[k] * (shape[k] - 1);
      j2 -= st2[k] * (shape[k] - 1);
    }
  }
}

const char* op_name(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kAdd: return "ADD";
    case ElementwiseOp::kSub: return "SUB";
    case ElementwiseOp::kMul: return "MUL";
  }
  return "?";
}

/// The tie rule and multiplier precision of an NPU preset (make_npu_preset's axes).
bool npu_options_of(const Preset& preset, reference::NpuElementwiseOptions* out) {
  switch (preset.core) {
    case RoundingCore::kSingleRoundingUpward: out->tie = TieRule::kHalfUp; break;
    case RoundingCore::kSingleRoundingAwayFromZero: out->tie = TieRule::kHalfAwayFromZero; break;
    case RoundingCore::kSingleRoundingToEven: out->tie = TieRule::kHalfToEven; break;
    case RoundingCore::kTruncate: out->tie = TieRule::kTowardZero; break;
    case RoundingCore::kFloor: out->tie = TieRule::kFloor; break;
    default: return false;
  }
  switch (preset.derivation) {
    case MultiplierDerivation::kTfliteDoubleBuild:
    case MultiplierDerivation::kTfliteSingleBuild: out->precision = NpuMultiplierPrecision::kQ31; break;
    case MultiplierDerivation::kQ15Direct: out->precision = NpuMultiplierPrecision::kQ15; break;
    case MultiplierDerivation::kFloatMantissa24: out->precision = NpuMultiplierPrecision::kFloat24; break;
    default: return false;
  }
  return true;
}

/// What a node computes under a system: an arithmetic of the header, or the float32 formula.
struct Choice {
  bool float_formula = false;
  bool mlas_mul = false;  ///< MUL under the onnxruntime preset: ONNX Runtime's MlasQLinearMul (x86)
  bool mlas_add = false;  ///< ADD under the onnxruntime preset: ONNX Runtime's MlasQLinearAdd (AVX2)
  ElementwiseArithmetic arithmetic = ElementwiseArithmetic::kTfliteDouble;
  reference::NpuElementwiseOptions npu{};
};

Choice choose(const Graph& g, const Node& n, ElementwiseOp op, const System& sys) {
  Choice c;
  const bool single = sys.preset.core == RoundingCore::kSingleRoundingUpward;
  const std::string& name = sys.preset.name;
  switch (sys.style) {
    case OpStyle::kTfliteReference:
      if (name == "cmsis-nn" || name == "cmsis-nn-single") {
        c.arithmetic = single ? ElementwiseArithmetic::kTfliteMicroSingle : ElementwiseArithmetic::kTfliteMicroDouble;
      } else {
        c.arithmetic = single ? ElementwiseArithmetic::kTfliteSingle : ElementwiseArithmetic::kTfliteDouble;
      }
      return c;
    case OpStyle::kTfliteOptimized:
      if (sys.target == Target::kArm && op != ElementwiseOp::kSub) {
        const std::size_t e1 = reference::shape_elements(input_def(g, n, 0).shape);
        const std::size_t e2 = reference::shape_elements(input_def(g, n, 1).shape);
        c.arithmetic = (e1 == 1) != (e2 == 1) ? ElementwiseArithmetic::kTfliteNeonScalarBroadcast
                                              : ElementwiseArithmetic::kTfliteNeon;
      } else {
        c.arithmetic = single ? ElementwiseArithmetic::kTfliteSingle : ElementwiseArithmetic::kTfliteDouble;
      }
      return c;
    case OpStyle::kXnnpack:
      c.arithmetic = sys.target == Target::kArm    ? ElementwiseArithmetic::kXnnpackArm
                     : sys.target == Target::kWasm ? ElementwiseArithmetic::kXnnpackWasm
                                                   : ElementwiseArithmetic::kXnnpackX86;
      return c;
    case OpStyle::kNpu:
      c.arithmetic = ElementwiseArithmetic::kNpuSingleRounding;
      if (!npu_options_of(sys.preset, &c.npu)) {
        node_error(g, n, fmt::format("preset {} (core {}, multiplier {}) is not of the NPU family's axes", name,
                                     to_string(sys.preset.core), to_string(sys.preset.derivation)));
      }
      return c;
    case OpStyle::kFloat:
      c.float_formula = true;
      // ONNX Runtime's QLinearMul (com.microsoft) has its own formula (docs/semantics.md §22.2);
      // its ADD / SUB are not measured and keep the generic float32 formula.
      c.mlas_mul = op == ElementwiseOp::kMul && name.compare(0, 11, "onnxruntime") == 0;
      c.mlas_add = op == ElementwiseOp::kAdd && name.compare(0, 11, "onnxruntime") == 0;
      return c;
  }
  return c;
}

std::string mult_text(QuantizedMultiplier m) { return fmt::format("{} * 2^({} - 31)", m.multiplier, m.shift); }

std::string clamp_text(const OutputParams& o) {
  return fmt::format("output zero point {}, clamp [{}, {}]", o.zero_point, o.qmin, o.qmax);
}

/// The lines after the first of describe(): the per-element formula and its integer parameters,
/// so that two preparations with equal lines compute the same bits.
std::vector<std::string> describe_params(const ElementwiseParams& p) {
  std::vector<std::string> lines;
  const char* op = op_name(p.op);
  const bool mul = p.op == ElementwiseOp::kMul;
  const char pm = p.op == ElementwiseOp::kSub ? '-' : '+';
  lines.push_back(fmt::format("{} {}: input zero points {}, {}; {}", op, to_string(p.type), p.input1_zero_point,
                              p.input2_zero_point, clamp_text(p.output)));
  switch (p.arithmetic) {
    case ElementwiseArithmetic::kTfliteDouble:
    case ElementwiseArithmetic::kTfliteSingle:
    case ElementwiseArithmetic::kTfliteMicroDouble:
    case ElementwiseArithmetic::kTfliteMicroSingle: {
      const bool single = p.arithmetic == ElementwiseArithmetic::kTfliteSingle ||
                          p.arithmetic == ElementwiseArithmetic::kTfliteMicroSingle;
      const char* r = single ? "SR-UP" : "DR-AZ";
      if (mul) {
        lines.push_back(fmt::format("y = clamp({}(v1 v2; m) + zo), m = {}", r, mult_text(p.output_multiplier)));
      } else {
        lines.push_back(fmt::format("y = clamp({0}({0}(v1 2^{1}; m1) {2} {0}(v2 2^{1}; m2); mo) + zo)", r,
                                    p.left_shift, pm));
        lines.push_back(fmt::format("m1 = {}, m2 = {}, mo = {}", mult_text(p.input1_multiplier),
                                    mult_text(p.input2_multiplier), mult_text(p.output_multiplier)));
      }
      break;
    }
    case ElementwiseArithmetic::kTfliteNeon:
    case ElementwiseArithmetic::kTfliteNeonScalarBroadcast: {
      const bool merged = p.arithmetic == ElementwiseArithmetic::kTfliteNeon && p.type == OutputType::kInt8;
      if (mul) {
        const bool wrap = p.type == OutputType::kUint8 && p.arithmetic == ElementwiseArithmetic::kTfliteNeonScalarBroadcast;
        lines.push_back(fmt::format("TFLite NEON MUL block: y = clamp(sat_type(wrap16({}(DR-AZ(v1 v2; m)) + zo))), m = {}",
                                    wrap ? "wrap16" : "sat16", mult_text(p.output_multiplier)));
      } else {
        lines.push_back(fmt::format("TFLite NEON ADD block ({}): b_i = {}; y = clamp(sat_type(wrap16(wrap16("
                                    "DR-AZ(b1 + b2; mo)) + zo)))",
                                    merged ? "merged pre-shift" : "floor form",
                                    merged ? "SRDHM(v_i 2^(20 + shift_i), M_i)" : "floor(SRDHM(v_i 2^20, M_i) / 2^-shift_i)"));
        lines.push_back(fmt::format("m1 = {}, m2 = {}, mo = {}", mult_text(p.input1_multiplier),
                                    mult_text(p.input2_multiplier), mult_text(p.output_multiplier)));
      }
      lines.push_back("on every element (the real kernel's remainder of each run, n mod 16 or 8, is the reference "
                      "arithmetic: not modelled)");
      break;
    }
    case ElementwiseArithmetic::kXnnpackX86:
    case ElementwiseArithmetic::kXnnpackArm:
    case ElementwiseArithmetic::kXnnpackWasm:
      if (!mul) {
        lines.push_back(fmt::format("y = clamp(floor((v1 A + v2 B + 2^(s-1)) / 2^s) + zo), A = {}, B = {}, s = {}",
                                    p.xnn_a_multiplier, p.xnn_b_multiplier, p.xnn_shift));
      } else if (p.arithmetic == ElementwiseArithmetic::kXnnpackArm) {
        lines.push_back(fmt::format("y = clamp(SR-UP(v1 v2; m) + zo), m = {} (rndnu)", mult_text(p.xnn_rndnu)));
      } else {
        lines.push_back(fmt::format("y = clamp(RNE(float(v1 v2) * {:a}) + zo) (fp32)", p.xnn_scale));
      }
      break;
    case ElementwiseArithmetic::kNpuSingleRounding: {
      const char* tie = p.npu_tie == TieRule::kHalfUp              ? "half up"
                        : p.npu_tie == TieRule::kHalfAwayFromZero ? "half away from zero"
                        : p.npu_tie == TieRule::kHalfToEven       ? "half to even"
                        : p.npu_tie == TieRule::kTowardZero       ? "toward zero"
                                                                  : "floor";
      if (mul) {
        lines.push_back(fmt::format("y = clamp(round(v1 v2 M 2^(shift - {})) + zo), rounding {}, M = {}, shift = {} "
                                    "(NPU hypothesis, UNVERIFIED)", p.npu_fraction_bits, tie,
                                    p.npu_multiplier1.multiplier, p.npu_multiplier1.shift));
      } else {
        lines.push_back(fmt::format("y = clamp(round(v1 M1 2^(sh1 - {0}) {1} v2 M2 2^(sh2 - {0})) + zo), rounding {2}, "
                                    "M1 = {3}, sh1 = {4}, M2 = {5}, sh2 = {6} (NPU hypothesis, UNVERIFIED)",
                                    p.npu_fraction_bits, pm, tie, p.npu_multiplier1.multiplier, p.npu_multiplier1.shift,
                                    p.npu_multiplier2.multiplier, p.npu_multiplier2.shift));
      }
      break;
    }
  }
  return lines;
}

class ElementwisePrepared : public PreparedNode {
 public:
  ElementwisePrepared(const Graph& g, const Node& n, ElementwiseOp op, const System& sys, Engine engine)
      : system_(sys), engine_(engine), op_(op), in1_(n.inputs[0]), in2_(n.inputs[1]), out_(n.outputs[0]) {
    const TensorDef& a = input_def(g, n, 0);
    const TensorDef& b = input_def(g, n, 1);
    const TensorDef& o = g.tensors[static_cast<std::size_t>(out_)];
    shape1_ = a.shape;
    shape2_ = b.shape;
    type_ = a.dtype;
    const Activation act = activation_of(n);
    const Choice c = choose(g, n, op, sys);
    float_formula_ = c.float_formula;
    // ONNX's QLinearAdd / QLinearMul have no fused activation: a node with one (a .tflite model
    // under the onnxruntime preset) keeps the generic float32 formula with its clamp.
    mlas_mul_ = c.mlas_mul && act == Activation::kNone;
    mlas_add_ = c.mlas_add && act == Activation::kNone;
    scalar2_ = reference::shape_elements(b.shape) == 1 && reference::shape_elements(a.shape) != 1;
    try {
      if (float_formula_) {
        q1_ = tq(a);
        q2_ = tq(b);
        qo_ = tq(o);
        float_out_ = activation_output_params(act, sys.preset.clamp, qo_.scale, qo_.zero_point, output_type_of(type_));
      } else {
        params_ = reference::derive_elementwise_params(op, c.arithmetic, output_type_of(type_), tq(a), tq(b), tq(o), act,
                                                       c.npu);
      }
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("under {} ({}): {}", sys.name,
                                   float_formula_ ? "float32 formula" : reference::to_string(c.arithmetic),
                                   cli::without_library_prefix(e.what())));
    }
    if (mlas_add_) {
      mlas_params_ = mlas_qladd_params(q1_.scale, q1_.zero_point, q2_.scale, q2_.zero_point, qo_.scale, qo_.zero_point);
      // Same shapes and a one-element x2 run the library's vector kernel (any ISA: the same bits
      // as mlas_qladd_element, tests/model/mlas_qladd_kernel_test.cc); other broadcasts the table.
      if (engine_ == Engine::kFast) mlas_kernel_ = internal::mlas_qladd::kernel(active_isa(), type_ == DType::kInt8);
    }
    if (float_formula_ && engine_ == Engine::kFast) {
      if (type_ == DType::kUint8) {
        build_lut<std::uint8_t>();
      } else {
        build_lut<std::int8_t>();
      }
    }
  }

  void run(std::vector<Tensor>& values) const override { run_on_threads(values, 1); }

  // `threads` split the fast engine's MlasQLinearAdd kernel over elements (each element is a
  // function of its two inputs alone, so any split gives the one-thread bits); the other forms run
  // on the calling thread.
  void run_on_threads(std::vector<Tensor>& values, unsigned threads) const override {
    const Tensor& a = values[static_cast<std::size_t>(in1_)];
    const Tensor& b = values[static_cast<std::size_t>(in2_)];
    Tensor& o = values[static_cast<std::size_t>(out_)];
    if (type_ == DType::kUint8) {
      run_typed<std::uint8_t>(a, b, o, threads);
    } else {
      run_typed<std::int8_t>(a, b, o, threads);
    }
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> lines;
    if (mlas_mul_) {
      lines.push_back(fmt::format("arithmetic: {} [ONNX Runtime MlasQLinearMul, x86]", system_.name));
      lines.push_back(fmt::format("MUL {}: y = sat(RNE(float(float((x1 - {}) * (x2 - {})) * {:a}) + {})), the ratio "
                                  "float(float({:a} * {:a}) / {:a}); out of int32 range -> INT32_MIN (cvtps2dq)",
                                  cli::to_string(type_), q1_.zero_point, q2_.zero_point, mlas_ratio(), qo_.zero_point,
                                  q1_.scale, q2_.scale, qo_.scale));
      return lines;
    }
    if (mlas_add_) {
      lines.push_back(fmt::format("arithmetic: {} [ONNX Runtime MlasQLinearAdd, AVX2]", system_.name));
      lines.push_back(fmt::format("ADD {}: r1 = float({:a} / {:a}), r2 = float({:a} / {:a}), f = {} - fma(r1, {}, r2 * "
                                  "{}); y = sat(RNE(fma(x1, r1, fma(x2, r2, f)))){}",
                                  cli::to_string(type_), q1_.scale, qo_.scale, q2_.scale, qo_.scale, qo_.zero_point,
                                  q1_.zero_point, q2_.zero_point,
                                  scalar2_ ? " with a scalar x2: f += x2 * r2 first, then y = sat(RNE(fma(x1, r1, f)))" : ""));
      return lines;
    }
    if (float_formula_) {
      lines.push_back(fmt::format("arithmetic: {} [float32 formula, UNVERIFIED]", system_.name));
      const char* sym = op_ == ElementwiseOp::kAdd ? "+" : op_ == ElementwiseOp::kSub ? "-" : "*";
      lines.push_back(fmt::format("{} {}: y = clamp(RNE_sat(({:a} (x1 - {}) {} {:a} (x2 - {})) / {:a}) + {}), clamp [{}, {}], "
                                  "each operation in float32",
                                  op_name(op_), cli::to_string(type_), q1_.scale, q1_.zero_point, sym, q2_.scale,
                                  q2_.zero_point, qo_.scale, qo_.zero_point, float_out_.qmin, float_out_.qmax));
      return lines;
    }
    lines.push_back(fmt::format("arithmetic: {} [{}]", system_.name, reference::to_string(params_.arithmetic)));
    for (std::string& l : describe_params(params_)) lines.push_back(std::move(l));
    return lines;
  }

 private:
  template <class T>
  void run_typed(const Tensor& a, const Tensor& b, Tensor& o, unsigned threads) const {
    const T* x1 = reinterpret_cast<const T*>(a.bytes.data());
    const T* x2 = reinterpret_cast<const T*>(b.bytes.data());
    T* y = reinterpret_cast<T*>(o.bytes.data());
    if (float_formula_) {
      run_float(x1, x2, y, threads);
    } else if (engine_ == Engine::kFast) {
      qparity::elementwise(params_, shape1_, x1, shape2_, x2, y);
    } else {
      const std::vector<T> r = reference::elementwise(params_, shape1_, std::vector<T>(x1, x1 + a.elements()), shape2_,
                                                      std::vector<T>(x2, x2 + b.elements()));
      if (!r.empty()) std::memcpy(y, r.data(), r.size() * sizeof(T));
    }
  }

  /// The float32 formula (see the top of the file) with reference::elementwise's broadcasting walk
  /// (the header has no float32 variant to hand the walk to).
  template <class T>
  void run_float(const T* x1, const T* x2, T* y, unsigned threads) const {
    const std::size_t total = reference::shape_elements(reference::broadcast_shape(shape1_, shape2_));
    if (mlas_kernel_ != nullptr && reference::shape_elements(shape1_) == total &&
        (scalar2_ || reference::shape_elements(shape2_) == total)) {
      run_mlas_add(x1, scalar2_ ? nullptr : x2,
                   scalar2_ ? mlas_qladd_fold_b(mlas_params_, static_cast<std::int32_t>(x2[0])) : mlas_params_, total,
                   y, threads);
      return;
    }
    if (reference::shape_elements(shape1_) == total && reference::shape_elements(shape2_) == total) {
      if (!lut_.empty()) {  // same shapes: no walk, the table's index from the two raw bytes
        const std::uint8_t* t = lut_.data();
        const auto* u1 = reinterpret_cast<const std::uint8_t*>(x1);
        const auto* u2 = reinterpret_cast<const std::uint8_t*>(x2);
        auto* uy = reinterpret_cast<std::uint8_t*>(y);
        for (std::size_t i = 0; i < total; ++i) uy[i] = t[static_cast<std::size_t>(u1[i]) << 8 | u2[i]];
        return;
      }
      for (std::size_t i = 0; i < total; ++i) y[i] = element<T>(x1[i], x2[i]);
      return;
    }
    for_each_broadcast(shape1_, shape2_, [&](std::size_t i, std::size_t j1, std::size_t j2) {
      y[i] = lut_.empty() ? element<T>(x1[j1], x2[j2]) : from_lut<T>(x1[j1], x2[j2]);
    });
  }

  /// The MlasQLinearAdd kernel over [0, total) in blocks of kMlasBlock elements (a multiple of
  /// every kernel's vector), split over up to `threads` threads when the tensor is large enough.
  static constexpr std::size_t kMlasBlock = 2048;
  /// The tile pool's work units per element, for its threshold (min_parallel_macs: a second thread
  /// from 2^19 units): 8 makes a split start at 65,536 elements, ResNet-18's 28 x 28 x 128 and
  /// 56 x 56 x 64 residual adds but not its 14 x 14 x 256 and 7 x 7 x 512 ones.
  static constexpr std::uint64_t kMlasWorkPerElement = 8;

  void run_mlas_add(const void* x1, const void* x2, const internal::mlas_qladd::Params& p, std::size_t total, void* y,
                    unsigned threads) const {
    struct Ctx {
      internal::mlas_qladd::RunFn kernel;
      const std::uint8_t *x1, *x2;
      internal::mlas_qladd::Params p;
      std::size_t total;
      std::uint8_t* y;
    } ctx{mlas_kernel_, static_cast<const std::uint8_t*>(x1), static_cast<const std::uint8_t*>(x2), p, total,
          static_cast<std::uint8_t*>(y)};
    const std::size_t blocks = (total + kMlasBlock - 1) / kMlasBlock;
    internal::run_ranges_on_tile_pool(
        blocks, threads, total * kMlasWorkPerElement,
        [](const void* c, std::size_t begin, std::size_t end) {
          const Ctx& x = *static_cast<const Ctx*>(c);
          const std::size_t i = begin * kMlasBlock, n = std::min(end * kMlasBlock, x.total) - i;
          x.kernel(x.x1 + i, x.x2 == nullptr ? nullptr : x.x2 + i, n, x.p, x.y + i);
        },
        &ctx);
  }

  /// One output element of the float32 formulas (MlasQLinearAdd, MlasQLinearMul or the generic
  /// one): a function of the two 8-bit inputs only.
  template <class T>
  T element(T a, T b) const {
    constexpr std::int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    if (mlas_add_) {
      return static_cast<T>(
          mlas_qladd_element(mlas_params_, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), scalar2_, lo, hi));
    }
    if (mlas_mul_) {
      return static_cast<T>(mlas_mul(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), mlas_ratio(), lo, hi));
    }
    const float r1 = q1_.scale * static_cast<float>(static_cast<std::int32_t>(a) - q1_.zero_point);
    const float r2 = q2_.scale * static_cast<float>(static_cast<std::int32_t>(b) - q2_.zero_point);
    const float r = op_ == ElementwiseOp::kAdd ? r1 + r2 : op_ == ElementwiseOp::kSub ? r1 - r2 : r1 * r2;
    const std::int64_t q = static_cast<std::int64_t>(detail::round_half_even_saturating(r / qo_.scale)) + qo_.zero_point;
    return static_cast<T>(q < float_out_.qmin ? float_out_.qmin : (q > float_out_.qmax ? float_out_.qmax : q));
  }

  /// The fast engine's table of element() over all 256 x 256 input pairs (built once, when the node
  /// is prepared): the formulas cost a division, FMAs and a rounding call per element otherwise,
  /// which made ADD as slow as all of MobileNet v2's convolutions under ort-cpu. Exact by
  /// construction; the reference engine keeps computing element() directly.
  template <class T>
  void build_lut() {
    lut_.resize(256 * 256);
    for (int i = 0; i < 256; ++i) {
      for (int j = 0; j < 256; ++j) {
        const T a = static_cast<T>(std::numeric_limits<T>::min() + i), b = static_cast<T>(std::numeric_limits<T>::min() + j);
        lut_[static_cast<std::size_t>(static_cast<std::uint8_t>(a)) << 8 | static_cast<std::uint8_t>(b)] =
            static_cast<std::uint8_t>(element<T>(a, b));
      }
    }
  }

  template <class T>
  T from_lut(T a, T b) const {
    return static_cast<T>(lut_[static_cast<std::size_t>(static_cast<std::uint8_t>(a)) << 8 | static_cast<std::uint8_t>(b)]);
  }

  /// ONNX Runtime's output ratio for QLinearMul: float(float(s1 * s2) / so), as MlasQLinearMul
  /// computes it once per call.
  float mlas_ratio() const { return q1_.scale * q2_.scale / qo_.scale; }

  /// One element of MlasQLinearMul's x86 (SSE2) kernel, onnxruntime/core/mlas/lib/qlmul.cpp: the
  /// product of the zero-point-corrected inputs in int32 (exact), converted to float32, multiplied
  /// by the ratio and the output zero point added as two float32 operations (no FMA), converted
  /// with round-half-even (cvtps2dq: a value outside int32 or NaN gives INT32_MIN), then two
  /// saturating packs (int32 -> int16 -> the 8-bit type), i.e. a clamp to the type's range. No
  /// fused activation exists in the ONNX op.
  std::int64_t mlas_mul(std::int32_t a, std::int32_t b, float ratio, std::int64_t lo, std::int64_t hi) const {
    const std::int32_t p = (a - q1_.zero_point) * (b - q2_.zero_point);
    const float v = static_cast<float>(p) * ratio + static_cast<float>(qo_.zero_point);
    std::int64_t q = std::numeric_limits<std::int32_t>::min();
    if (v >= -2147483648.0f && v < 2147483648.0f) q = static_cast<std::int64_t>(std::nearbyint(v));
    return q < lo ? lo : (q > hi ? hi : q);
  }

  System system_;
  Engine engine_;
  ElementwiseOp op_;
  int in1_, in2_, out_;
  std::vector<std::size_t> shape1_, shape2_;
  DType type_ = DType::kInt8;
  bool float_formula_ = false;
  bool mlas_mul_ = false;
  bool mlas_add_ = false;
  bool scalar2_ = false;  ///< input 2 has one element (ORT's IsScalarB kernel)
  internal::mlas_qladd::Params mlas_params_{};  ///< MlasQLinearAdd's constants (mlas_qladd.h)
  internal::mlas_qladd::RunFn mlas_kernel_ = nullptr;  ///< its vector kernel (fast engine only)
  std::vector<std::uint8_t> lut_;  ///< the float formulas' outputs by input pair (fast engine only)
  ElementwiseParams params_{};
  reference::TensorQuantization q1_{}, q2_{}, qo_{};
  OutputParams float_out_{};
};

class FloatElementwisePrepared : public PreparedNode {
 public:
  FloatElementwisePrepared(const Graph& g, const Node& n, ElementwiseOp op, const System& sys)
      : system_(sys), op_(op), clamp_(float_clamp(activation_of(n))), in1_(n.inputs[0]), in2_(n.inputs[1]),
        out_(n.outputs[0]), shape1_(input_def(g, n, 0).shape), shape2_(input_def(g, n, 1).shape) {}

  void run(std::vector<Tensor>& values) const override {
    const float* x1 = reinterpret_cast<const float*>(values[static_cast<std::size_t>(in1_)].bytes.data());
    const float* x2 = reinterpret_cast<const float*>(values[static_cast<std::size_t>(in2_)].bytes.data());
    float* y = reinterpret_cast<float*>(values[static_cast<std::size_t>(out_)].bytes.data());
    const FloatFormat storage = system_.float_precision->storage;
    for_each_broadcast(shape1_, shape2_, [&](std::size_t i, std::size_t j1, std::size_t j2) {
      const float a = round_to(storage, x1[j1]), b = round_to(storage, x2[j2]);
      const float r = op_ == ElementwiseOp::kAdd ? a + b : op_ == ElementwiseOp::kSub ? a - b : a * b;
      y[i] = round_to(storage, std::min(std::max(r, clamp_.min), clamp_.max));
    });
  }

  std::vector<std::string> describe() const override {
    const FloatFormat storage = system_.float_precision->storage;
    const char* sign = op_ == ElementwiseOp::kAdd ? "+" : op_ == ElementwiseOp::kSub ? "-" : "*";
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("y = round_{0}(clamp(round_{0}(x1) {1} round_{0}(x2), [{2}, {3}])) in float32 (float precision {4}, "
                        "include/qparity/float_precision.h)",
                        to_string(storage), sign, clamp_.min, clamp_.max, system_.float_precision->name)};
  }

 private:
  System system_;
  ElementwiseOp op_;
  FloatClamp clamp_;
  int in1_, in2_, out_;
  std::vector<std::size_t> shape1_, shape2_;
};

class ElementwiseOpImpl : public Op {
 public:
  explicit ElementwiseOpImpl(ElementwiseOp op) : op_(op) {}

  FloatSupport float_support() const override { return FloatSupport::kArithmetic; }

  // Same shapes, a broadcast second input (the per-channel form of MobileNet's and ResNet's
  // scalings), and uint8.
  std::vector<OpSample> samples() const override {
    const OpKind kind = op_ == ElementwiseOp::kAdd ? OpKind::kAdd : op_ == ElementwiseOp::kSub ? OpKind::kSub : OpKind::kMul;
    struct Config {
      const char* label;
      DType dtype;
      std::vector<std::size_t> b_shape;
    };
    const Config configs[] = {{"int8, same shapes", DType::kInt8, {1, 4, 4, 8}},
                              {"int8, broadcast [1,1,1,C]", DType::kInt8, {1, 1, 1, 8}},
                              {"uint8, same shapes", DType::kUint8, {1, 4, 4, 8}}};
    std::vector<OpSample> out;
    for (const Config& c : configs) {
      SampleBuilder b(c.label);
      const std::int64_t z = c.dtype == DType::kUint8 ? 128 : 0;
      const int x = b.input("a", c.dtype, {1, 4, 4, 8}, 0.05f, z - 3);
      const int y = b.input("b", c.dtype, c.b_shape, 0.03f, z + 5);
      const int o = b.output("y", c.dtype, kind == OpKind::kMul ? 0.02f : 0.07f, z + 1);
      b.node(kind, {x, y}, {o}, std::make_shared<ElementwiseOptions>());
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 2, 1);
    const TensorDef& a = input_def(g, n, 0);
    const TensorDef& b = input_def(g, n, 1);
    const TensorDef& o = output_def(g, n, 0);
    require_dtype(g, n, a, "input1", {DType::kInt8, DType::kUint8, DType::kFloat32});
    require_dtype(g, n, b, "input2", {DType::kInt8, DType::kUint8, DType::kFloat32});
    require_dtype(g, n, o, "output", {DType::kInt8, DType::kUint8, DType::kFloat32});
    if (b.dtype != a.dtype || o.dtype != a.dtype) {
      node_error(g, n, fmt::format("input1 '{}' is {}, input2 '{}' {}, output '{}' {}; allowed: one type for all three",
                                   a.name, cli::to_string(a.dtype), b.name, cli::to_string(b.dtype), o.name,
                                   cli::to_string(o.dtype)));
    }
    if (a.dtype != DType::kFloat32) {  // float32 tensors carry no quantization
      require_per_tensor(g, n, a, "input1");
      require_per_tensor(g, n, b, "input2");
      require_per_tensor(g, n, o, "output");
    }
    std::vector<std::size_t> shape;
    try {
      shape = reference::broadcast_shape(a.shape, b.shape);
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("input1 '{}' {} and input2 '{}' {}: {}", a.name, cli::shape_text(a.shape), b.name,
                                   cli::shape_text(b.shape), cli::without_library_prefix(e.what())));
    }
    set_output_shape(g, n, 0, shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys,
                                        Engine engine) const override {
    check_system_fits(g, n, sys);
    if (sys.float_precision) return std::make_unique<FloatElementwisePrepared>(g, n, op_, sys);
    return std::make_unique<ElementwisePrepared>(g, n, op_, sys, engine);
  }

  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const TensorDef& a = input_def(g, n, 0);
    const TensorDef& b = input_def(g, n, 1);
    const TensorDef& o = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    for (const TensorDef* t : {&a, &b, &o}) {
      // CheckTensorQInt8OrQUInt8Type: one scale, quantized_dimension 0.
      if (t->quant.scales.size() != 1 || t->quant.zero_points.size() > 1 || t->quant.axis != 0) return false;
    }
    const float so = o.quant.scales[0];
    if (op_ == ElementwiseOp::kMul) {
      const float r = a.quant.scales[0] * b.quant.scales[0] / so;  // float32, as the delegate
      return r >= 1.0f / 65536.0f && r < 256.0f;
    }
    for (const TensorDef* t : {&a, &b}) {
      const float r = t->quant.scales[0] / so;
      if (!(r >= 1.0f / 1024.0f && r < 256.0f)) return false;
    }
    return true;
  }

  // The preset that names XNNPACK's arithmetic in profile names: MUL on ARM is rndnu; otherwise
  // the default (xnnpack-fp32: MUL's fp32 kernels; ADD / SUB have their own integer formula on
  // every target, which prepare() picks by the style and target, not by this preset).
  Preset xnnpack_preset(const Graph&, const Node&, Target target) const override {
    return find_preset(op_ == ElementwiseOp::kMul && target == Target::kArm ? "xnnpack-rndnu" : "xnnpack-fp32");
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    auto o = std::make_shared<ElementwiseOptions>();
    // The options table may be absent (TFLite then uses activation NONE).
    switch (op_) {
      case ElementwiseOp::kAdd:
        if (const tflite::AddOptions* t = op.builtin_options_as_AddOptions()) {
          o->activation = activation_from_tflite(t->fused_activation_function(), label);
          o->pot_scale_int16 = t->pot_scale_int16();
        }
        break;
      case ElementwiseOp::kSub:
        if (const tflite::SubOptions* t = op.builtin_options_as_SubOptions()) {
          o->activation = activation_from_tflite(t->fused_activation_function(), label);
          o->pot_scale_int16 = t->pot_scale_int16();
        }
        break;
      case ElementwiseOp::kMul:
        if (const tflite::MulOptions* t = op.builtin_options_as_MulOptions()) {
          o->activation = activation_from_tflite(t->fused_activation_function(), label);
        }
        break;
    }
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const Activation act = activation_of(n);
    const bool pot = n.options ? n.opts<ElementwiseOptions>().pot_scale_int16 : true;
    const auto code = static_cast<tflite::ActivationFunctionType>(activation_to_tflite(act));
    switch (op_) {
      case ElementwiseOp::kAdd: return {tflite::BuiltinOptions_AddOptions, tflite::CreateAddOptions(b, code, pot).o};
      case ElementwiseOp::kSub: return {tflite::BuiltinOptions_SubOptions, tflite::CreateSubOptions(b, code, pot).o};
      case ElementwiseOp::kMul: return {tflite::BuiltinOptions_MulOptions, tflite::CreateMulOptions(b, code).o};
    }
    return {};
  }

 private:
  ElementwiseOp op_;
};

}  // namespace

const Op& add_op() {
  static const ElementwiseOpImpl op(ElementwiseOp::kAdd);
  return op;
}

const Op& sub_op() {
  static const ElementwiseOpImpl op(ElementwiseOp::kSub);
  return op;
}

const Op& mul_op() {
  static const ElementwiseOpImpl op(ElementwiseOp::kMul);
  return op;
}

}  // namespace qparity::model
