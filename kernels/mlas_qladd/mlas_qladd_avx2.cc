// The AVX2 + FMA MlasQLinearAdd kernel (ISA avx2, include/qparity/isa_list.h): the instantiation of
// kernels/mlas_qladd/mlas_qladd_kernel_body.h in namespace
// qparity::internal::mlas_qladd::qladd_avx2.
#define QPARITY_MLAS_QLADD_NS qladd_avx2
#include "kernels/mlas_qladd/mlas_qladd_kernel_body.h"

QPARITY_DEFINE_KERNELS(qparity::internal::MlasQladdFamily) {
  return qparity::internal::MlasQladdKernelSet{
      "avx2", &qparity::internal::mlas_qladd::qladd_avx2::run<false>,
      &qparity::internal::mlas_qladd::qladd_avx2::run<true>};
}
