// The AVX-512 (F+BW) + FMA MlasQLinearAdd kernel (ISA avx512, include/qparity/isa_list.h): the
// instantiation of kernels/mlas_qladd/mlas_qladd_kernel_body.h in namespace
// qparity::internal::mlas_qladd::qladd_avx512.
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_MLAS_QLADD_NS qladd_avx512
#include "kernels/mlas_qladd/mlas_qladd_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::MlasQladdFamily) {
  return qparity::internal::MlasQladdKernelSet{
      "avx512", &qparity::internal::mlas_qladd::qladd_avx512::run<false>,
      &qparity::internal::mlas_qladd::qladd_avx512::run<true>};
}
