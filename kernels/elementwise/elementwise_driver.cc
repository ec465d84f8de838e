// The element-wise entry points (include/qparity/elementwise.h): the plan of a kernel from the
// reference parameters, the kernel from the registry, and the broadcast split into contiguous rows
// (kernels/elementwise/elementwise_kernel.h). Compiled for the baseline.
//
// Broadcasting. Both inputs are given strides in output coordinates (0 along a broadcast
// dimension); dimensions of size 1 are dropped and neighbours merged where both inputs continue
// contiguously (or both stay broadcast), so equal shapes become one row and [N,H,W,C] + [C] becomes
// rows of C. The innermost dimension is then a row in which each input is contiguous or one
// repeated element (a scalar operand, or [N,H,W,C] + [N,H,W,1]): a repeated element is expanded
// into a stack buffer, block by block. When the rows are short and the next dimension repeats one
// input's row (per-channel operands), that row is tiled into the buffer so that one call covers
// many rows.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/elementwise/elementwise_kernel.h"
#include "qparity/elementwise.h"
#include "qparity/error.h"

namespace qparity {
namespace internal {
namespace {

using reference::ElementwiseArithmetic;
using reference::ElementwiseOp;
using reference::ElementwiseParams;

RequantParams q31(QuantizedMultiplier m) {
  RequantParams r;
  r.multiplier = m.multiplier;
  r.shift = m.shift;
  return r;
}

/// The integer core that is one rounding of the exact product with the NPU hypothesis's tie rule.
bool npu_core(TieRule tie, RoundingCore* core) {
  switch (tie) {
    case TieRule::kHalfUp: *core = RoundingCore::kSingleRoundingUpward; return true;
    case TieRule::kHalfAwayFromZero: *core = RoundingCore::kSingleRoundingAwayFromZero; return true;
    case TieRule::kHalfToEven: *core = RoundingCore::kSingleRoundingToEven; return true;
    case TieRule::kTowardZero: *core = RoundingCore::kTruncate; return true;
    case TieRule::kFloor: *core = RoundingCore::kFloor; return true;
  }
  return false;
}

/// The vector kernel's plan for `p`, or false when no vector kernel computes it (the scalar set's
/// per-element row then does). Each mapping restates the reference function it replaces:
///   tflite_add_sub   R = tflite_mbqm: DR-AZ (default builds) or SR-UP (single builds), shifts <= 0
///                    for the inputs; the output shift is > 0 only for single-build SUB (SR-UP has
///                    no pre-shift, so the plan is the same).
///   tflite_mul       DR-AZ (pre-shift when the shift is positive) or SR-UP on output_multiplier.
///   xnnpack_mul_rndnu  SR-UP on xnn_rndnu;  xnnpack_mul_fp32  the F32 core on xnn_scale.
///   npu_mul          round_shift_right(acc M, F - shift, tie) is the single-rounding core of the
///                    tie rule on {M 2^(31-F), shift} (the same rational; |acc M 2^16| < 2^63), for
///                    right shifts 31 - shift in [1, 62] and Q15 multipliers below 2^15.
///   npu_add_sub      the exact sum, aligned to the smaller exponent, rounded once with the tie
///                    rule's core, where the terms fit 64 bits and the result int32 (see there).
bool build_plan(const ElementwiseParams& p, EwPlan* plan) {
  plan->reference = &p;
  plan->output = p.output;
  plan->z1 = p.input1_zero_point;
  plan->z2 = p.input2_zero_point;
  if (p.type != OutputType::kInt8 && p.type != OutputType::kUint8) return false;
  const bool mul = p.op == ElementwiseOp::kMul;
  switch (p.arithmetic) {
    case ElementwiseArithmetic::kTfliteDouble:
    case ElementwiseArithmetic::kTfliteSingle:
    case ElementwiseArithmetic::kTfliteMicroDouble:
    case ElementwiseArithmetic::kTfliteMicroSingle: {
      const bool single = p.arithmetic == ElementwiseArithmetic::kTfliteSingle ||
                          p.arithmetic == ElementwiseArithmetic::kTfliteMicroSingle;
      plan->core = single ? RoundingCore::kSingleRoundingUpward : RoundingCore::kDoubleRoundingAwayFromZero;
      plan->mo = q31(p.output_multiplier);
      if (mul) {
        plan->kernel = EwKernel::kIntMul;
        plan->pre_shift = !single && p.output_multiplier.shift > 0;
        return true;
      }
      if (p.left_shift != 20 || p.input1_multiplier.shift > 0 || p.input2_multiplier.shift > 0) return false;
      if (!single && p.output_multiplier.shift > 0) return false;
      plan->kernel = EwKernel::kTfliteAddSub;
      plan->sub = p.op == ElementwiseOp::kSub;
      plan->left_shift = p.left_shift;
      plan->m1 = q31(p.input1_multiplier);
      plan->m2 = q31(p.input2_multiplier);
      return true;
    }
    case ElementwiseArithmetic::kXnnpackX86:
    case ElementwiseArithmetic::kXnnpackWasm:
    case ElementwiseArithmetic::kXnnpackArm:
      if (!mul) {
        plan->kernel = EwKernel::kXnnpackAddSub;
        plan->xnn_a = p.xnn_a_multiplier;
        plan->xnn_b = p.xnn_b_multiplier;
        plan->xnn_shift = p.xnn_shift;
        return p.xnn_shift >= 1 && p.xnn_shift <= 30;
      }
      if (p.arithmetic == ElementwiseArithmetic::kXnnpackArm) {
        plan->kernel = EwKernel::kIntMul;
        plan->core = RoundingCore::kSingleRoundingUpward;
        plan->mo = q31(p.xnn_rndnu);
        return 31 - p.xnn_rndnu.shift >= 1 && 31 - p.xnn_rndnu.shift <= 62;
      }
      plan->kernel = EwKernel::kFloatMul;
      plan->scale = p.xnn_scale;
      return true;
    case ElementwiseArithmetic::kNpuSingleRounding: {
      if (!npu_core(p.npu_tie, &plan->core)) return false;
      if (!mul) {
        // value = v1 M1 2^e1 +- v2 M2 2^e2, e_i = shift_i - F: as v_i 2^d_i M_i / 2^k with
        // d_i = e_i - min(e), k = -min(e) (npu_add_sub's own alignment of the two terms).
        const int f = p.npu_fraction_bits;
        const int e1 = p.npu_multiplier1.shift - f, e2 = p.npu_multiplier2.shift - f;
        const int emin = std::min(e1, e2);
        const int d1 = e1 - emin, d2 = e2 - emin, k = -emin;
        const std::int32_t m1 = p.npu_multiplier1.multiplier, m2 = p.npu_multiplier2.multiplier;
        if (k < 1 || k > 62 || d1 > 22 || d2 > 22 || m1 < 0 || m2 < 0) return false;
        // |result| <= 255 (M1 2^d1 + M2 2^d2) / 2^k + 1 stays far inside int32 (round64 keeps the
        // low 32 bits; the reference clamps the 64-bit value).
        if (255.0 * (std::ldexp(static_cast<double>(m1), d1) + std::ldexp(static_cast<double>(m2), d2)) >=
            std::ldexp(1.0, 30 + k)) {
          return false;
        }
        plan->kernel = EwKernel::kNpuAddSub;
        plan->sub = p.op == ElementwiseOp::kSub;
        plan->npu_m1 = m1;
        plan->npu_m2 = m2;
        plan->npu_d1 = d1;
        plan->npu_d2 = d2;
        plan->npu_k = k;
        return true;
      }
      QuantizedMultiplier m = p.npu_multiplier1;
      if (p.npu_fraction_bits == 15) {
        if (m.multiplier < 0 || m.multiplier >= (1 << 15)) return false;
        m.multiplier <<= 16;
      } else if (p.npu_fraction_bits != 31) {
        return false;
      }
      if (31 - m.shift < 1 || 31 - m.shift > 62) return false;
      plan->kernel = EwKernel::kIntMul;
      plan->mo = q31(m);
      return true;
    }
    case ElementwiseArithmetic::kTfliteNeon:
    case ElementwiseArithmetic::kTfliteNeonScalarBroadcast:
      return false;
  }
  return false;
}

const char* kernel_text(const EwPlan& plan, const ElementwiseParams& p) {
  switch (plan.kernel) {
    case EwKernel::kTfliteAddSub: return p.op == ElementwiseOp::kSub ? "tflite-sub" : "tflite-add";
    case EwKernel::kXnnpackAddSub: return p.op == ElementwiseOp::kSub ? "xnnpack-sub" : "xnnpack-add";
    case EwKernel::kIntMul: return "int-mul";
    case EwKernel::kFloatMul: return "fp32-mul";
    case EwKernel::kNpuAddSub: return p.op == ElementwiseOp::kSub ? "npu-sub" : "npu-add";
    case EwKernel::kPerElement: return "per-element";
  }
  return "?";
}

struct Resolved {
  EwPlan plan;
  EwRowFn fn = nullptr;
  const char* isa_name = nullptr;
};

Resolved resolve(Isa isa, const ElementwiseParams& p) {
  Resolved r;
  const bool u8 = p.type == OutputType::kUint8;
  if (build_plan(p, &r.plan)) {
    const ElementwiseKernelSet* ks = kernels_for<ElementwiseFamily>(isa);
    if (ks != nullptr && ks->lanes > 1) {  // the scalar set is the per-element loop below
      r.fn = ks->select(r.plan, u8);
      r.isa_name = ks->isa_name;
    }
  }
  if (r.fn == nullptr) {
    r.plan.kernel = EwKernel::kPerElement;
    const ElementwiseKernelSet* scalar = kernels_for<ElementwiseFamily>(Isa::kScalar);
    r.fn = scalar->select(r.plan, u8);
    r.isa_name = scalar->isa_name;
  }
  return r;
}

template <class T>
constexpr OutputType type_of() {
  return std::is_same<T, std::int8_t>::value    ? OutputType::kInt8
         : std::is_same<T, std::uint8_t>::value ? OutputType::kUint8
                                                : OutputType::kInt16;
}

/// One merged dimension: its size and each input's stride in elements (0: broadcast).
struct Dim {
  std::size_t n, s1, s2;
};

/// Elements of the stack buffer that expands a repeated element or tiles a repeated row.
constexpr std::size_t kBuffer = 2048;

template <class T>
void run(Isa isa, const ElementwiseParams& p, const std::vector<std::size_t>& shape1, const T* in1,
         const std::vector<std::size_t>& shape2, const T* in2, T* out) {
  if (type_of<T>() != p.type) {
    throw InvalidArgument(std::string("qparity: elementwise() called with ") + to_string(type_of<T>()) +
                          " data for " + to_string(p.type) + " parameters");
  }
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw InvalidArgument(std::string("qparity: isa = ") + to_string(isa) +
                          " is not supported on this CPU or not compiled in");
  }
  const std::vector<std::size_t> shape = reference::broadcast_shape(shape1, shape2);
  const std::size_t total = reference::shape_elements(shape);
  if (total == 0) return;
  const Resolved r = resolve(isa, p);
  const EwPlan& plan = r.plan;
  const EwRowFn fn = r.fn;

  // Input strides in output coordinates, then the merged dimensions (outermost first).
  const std::size_t rank = shape.size();
  Dim dims[reference::kMaxElementwiseDims];
  std::size_t nd = 0;
  {
    std::size_t st1[reference::kMaxElementwiseDims] = {}, st2[reference::kMaxElementwiseDims] = {};
    std::size_t c1 = 1, c2 = 1;
    for (std::size_t k = rank; k-- > 0;) {
      const std::size_t i1 = k + shape1.size(), i2 = k + shape2.size();
      if (i1 >= rank) {
        const std::size_t d = shape1[i1 - rank];
        st1[k] = d == 1 ? 0 : c1;
        c1 *= d;
      }
      if (i2 >= rank) {
        const std::size_t d = shape2[i2 - rank];
        st2[k] = d == 1 ? 0 : c2;
        c2 *= d;
      }
    }
    for (std::size_t k = 0; k < rank; ++k) {
      if (shape[k] == 1) continue;
      const Dim d{shape[k], st1[k], st2[k]};
      if (nd > 0 && dims[nd - 1].s1 == d.s1 * d.n && dims[nd - 1].s2 == d.s2 * d.n) {
        dims[nd - 1] = Dim{dims[nd - 1].n * d.n, d.s1, d.s2};
      } else {
        dims[nd++] = d;
      }
    }
  }
  if (nd == 0) {  // one element
    fn(plan, in1, in2, out, 1);
    return;
  }
  const Dim inner = dims[nd - 1];
  const std::size_t n = inner.n;
  alignas(64) T buffer[kBuffer];

  // Per-channel operands: contiguous rows whose next dimension repeats one input's row.
  if (nd >= 2 && inner.s1 == 1 && inner.s2 == 1 && 2 * n <= kBuffer) {
    const Dim rows = dims[nd - 2];
    const int repeated = rows.s1 == 0 ? 1 : (rows.s2 == 0 ? 2 : 0);
    if (repeated != 0) {
      const std::size_t k = std::min(rows.n, kBuffer / n);
      const std::size_t outer_nd = nd - 2;
      std::size_t idx[reference::kMaxElementwiseDims] = {};
      std::size_t off1 = 0, off2 = 0, offo = 0;
      const T* tiled_from = nullptr;
      const std::size_t blocks = total / (rows.n * n);
      for (std::size_t blk = 0; blk < blocks; ++blk) {
        const T* rep = repeated == 1 ? in1 + off1 : in2 + off2;
        if (rep != tiled_from) {
          for (std::size_t j = 0; j < k; ++j) std::memcpy(buffer + j * n, rep, n * sizeof(T));
          tiled_from = rep;
        }
        for (std::size_t j = 0; j < rows.n; j += k) {
          const std::size_t m = std::min(k, rows.n - j) * n;
          if (repeated == 1) {
            fn(plan, buffer, in2 + off2 + j * n, out + offo + j * n, m);
          } else {
            fn(plan, in1 + off1 + j * n, buffer, out + offo + j * n, m);
          }
        }
        offo += rows.n * n;
        for (std::size_t d = outer_nd; d-- > 0;) {
          if (++idx[d] < dims[d].n) {
            off1 += dims[d].s1;
            off2 += dims[d].s2;
            break;
          }
          off1 -= dims[d].s1 * (dims[d].n - 1);
          off2 -= dims[d].s2 * (dims[d].n - 1);
          idx[d] = 0;
        }
      }
      return;
    }
  }

  // Rows of the innermost dimension; a repeated element is expanded block by block.
  const std::size_t outer_nd = nd - 1;
  std::size_t idx[reference::kMaxElementwiseDims] = {};
  std::size_t off1 = 0, off2 = 0, offo = 0;
  bool filled = false;
  T filled_value{};
  std::size_t filled_count = 0;
  const std::size_t rows = total / n;
  for (std::size_t row = 0; row < rows; ++row) {
    const T* a = in1 + off1;
    const T* b = in2 + off2;
    T* o = out + offo;
    if (inner.s1 != 0 && inner.s2 != 0) {
      fn(plan, a, b, o, n);
    } else {
      const T v = inner.s1 == 0 ? *a : *b;
      const std::size_t want = std::min(n, kBuffer);
      if (!filled || v != filled_value || filled_count < want) {
        std::fill(buffer, buffer + want, v);
        filled = true;
        filled_value = v;
        filled_count = want;
      }
      for (std::size_t i = 0; i < n; i += kBuffer) {
        const std::size_t m = std::min(kBuffer, n - i);
        if (inner.s1 == 0) {
          fn(plan, buffer, b + i, o + i, m);
        } else {
          fn(plan, a + i, buffer, o + i, m);
        }
      }
    }
    offo += n;
    for (std::size_t d = outer_nd; d-- > 0;) {
      if (++idx[d] < dims[d].n) {
        off1 += dims[d].s1;
        off2 += dims[d].s2;
        break;
      }
      off1 -= dims[d].s1 * (dims[d].n - 1);
      off2 -= dims[d].s2 * (dims[d].n - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace
}  // namespace internal

template <class T>
void elementwise(Isa isa, const reference::ElementwiseParams& p, const std::vector<std::size_t>& shape1,
                 const T* in1, const std::vector<std::size_t>& shape2, const T* in2, T* out) {
  internal::run(isa, p, shape1, in1, shape2, in2, out);
}

template <class T>
void elementwise(const reference::ElementwiseParams& p, const std::vector<std::size_t>& shape1, const T* in1,
                 const std::vector<std::size_t>& shape2, const T* in2, T* out) {
  internal::run(active_isa(), p, shape1, in1, shape2, in2, out);
}

std::string elementwise_kernel_name(const reference::ElementwiseParams& p, Isa isa) {
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw InvalidArgument(std::string("qparity: isa = ") + to_string(isa) +
                          " is not supported on this CPU or not compiled in");
  }
  const internal::Resolved r = internal::resolve(isa, p);
  std::string name = std::string(r.isa_name) + " " + internal::kernel_text(r.plan, p);
  if (r.plan.kernel == internal::EwKernel::kTfliteAddSub || r.plan.kernel == internal::EwKernel::kIntMul ||
      r.plan.kernel == internal::EwKernel::kNpuAddSub) {
    name += std::string(" ") + to_string(r.plan.core);
  }
  return name;
}

#define QPARITY_ELEMENTWISE_INSTANTIATE(T)                                                              \
  template void elementwise<T>(const reference::ElementwiseParams&, const std::vector<std::size_t>&, \
                               const T*, const std::vector<std::size_t>&, const T*, T*);            \
  template void elementwise<T>(Isa, const reference::ElementwiseParams&, const std::vector<std::size_t>&, \
                               const T*, const std::vector<std::size_t>&, const T*, T*);
QPARITY_ELEMENTWISE_INSTANTIATE(std::int8_t)
QPARITY_ELEMENTWISE_INSTANTIATE(std::uint8_t)
QPARITY_ELEMENTWISE_INSTANTIATE(std::int16_t)
#undef QPARITY_ELEMENTWISE_INSTANTIATE

}  // namespace qparity
