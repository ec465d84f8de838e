// INTERNAL: the scalar plan of the output stage shared by the SIMD requantization kernels
// (rounding/requantize_x86.h's output_regs) and the GEMM driver's fused epilogue
// (kernels/gemm/gemm_tile.cc, EpilogueArgs). Not installed.
//
// The output stage clamp(y + zp, qmin, qmax) of an int32 core result y is evaluated as
// clamp(y, lo, hi) + add with lo = max(qmin - zp, INT32_MIN), hi = min(qmax - zp, INT32_MAX),
// add = zp, which never overflows int32; when [qmin - zp, qmax - zp] misses the int32 range
// entirely the result is the constant qmin or qmax (lo = hi = 0, add = that constant). F32-ZPF's
// core result already contains zp: lo = qmin, hi = qmax, add = 0. Values are then inside the
// output type's range, so narrowing cannot saturate.
//
// ODR: included both by translation units compiled for the baseline and by the per-ISA ones, so
// the function has internal linkage (each translation unit keeps its own copy, compiled with its
// own flags, and no weak symbol is shared; see rounding/simd_x86.h). It reads OutputParams'
// fields only and calls nothing.
#pragma once

#include <cstdint>

#include "qparity/output_stage.h"

namespace qparity {
namespace internal {

struct OutputStagePlan {
  std::int32_t lo, hi, add;
};

static inline OutputStagePlan plan_output_stage(const OutputParams& o, bool zero_point_inside) {
  constexpr std::int64_t kMin = -2147483647 - 1, kMax = 2147483647;
  std::int64_t lo, hi, add;
  if (zero_point_inside) {
    lo = o.qmin, hi = o.qmax, add = 0;
  } else {
    lo = static_cast<std::int64_t>(o.qmin) - o.zero_point;
    hi = static_cast<std::int64_t>(o.qmax) - o.zero_point;
    add = o.zero_point;
    if (hi < kMin) {  // y + zp > qmax for every int32 y
      lo = hi = 0, add = o.qmax;
    } else if (lo > kMax) {  // y + zp < qmin for every int32 y
      lo = hi = 0, add = o.qmin;
    } else {
      lo = lo < kMin ? kMin : lo;
      hi = hi > kMax ? kMax : hi;
    }
  }
  return OutputStagePlan{static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi),
                         static_cast<std::int32_t>(add)};
}

}  // namespace internal
}  // namespace qparity
