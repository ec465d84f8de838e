// The portable MlasQLinearAdd kernel (ISA scalar, include/qparity/isa_list.h): the contract of
// kernels/entries/qparity_internal/mlas_qladd.h one element at a time, std::fma for vfmadd (one
// rounding) and std::nearbyint for cvtps2dq (round half to even in the default rounding mode). It
// serves CPUs without AVX2 + FMA.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/mlas_qladd/mlas_qladd_kernel.h"

namespace qparity {
namespace internal {
namespace mlas_qladd {
namespace {

template <class T>
void run(const void* x1v, const void* x2v, std::size_t n, const Params& p, void* yv) {
  constexpr std::int64_t lo = T(-1) < T(0) ? -128 : 0, hi = T(-1) < T(0) ? 127 : 255;
  const T* x1 = static_cast<const T*>(x1v);
  const T* x2 = static_cast<const T*>(x2v);
  T* y = static_cast<T*>(yv);
  for (std::size_t i = 0; i < n; ++i) {
    const float inner =
        x2 == nullptr ? p.fixed : std::fma(static_cast<float>(x2[i]), p.r2, p.fixed);
    const float v = std::fma(static_cast<float>(x1[i]), p.r1, inner);
    std::int64_t q = INT32_MIN;  // cvtps2dq's "integer indefinite" outside int32 and for NaN
    if (v >= -2147483648.0f && v < 2147483648.0f) q = static_cast<std::int64_t>(std::nearbyint(v));
    y[i] = static_cast<T>(q < lo ? lo : (q > hi ? hi : q));
  }
}

}  // namespace
}  // namespace mlas_qladd
}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::MlasQladdFamily) {
  return qparity::internal::MlasQladdKernelSet{"scalar",
                                               &qparity::internal::mlas_qladd::run<std::uint8_t>,
                                               &qparity::internal::mlas_qladd::run<std::int8_t>};
}
