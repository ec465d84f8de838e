// The AVX-512 VNNI depthwise kernels (ISA avx512vnni, include/qparity/isa_list.h): VPDPWSSD fuses
// the pair multiply and the add; the instantiation of kernels/depthwise/depthwise_kernel_body.h in
// namespace qparity::internal::dw_avx512vnni. The quad path (VPDPBUSD, fused requantization) is
// kernels/depthwise/depthwise_quad_kernel.h in namespace qparity::internal::dw_avx512vnni_quad.
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves, which
// -W(maybe-)uninitialized reports at every inlined use (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define QPARITY_DW_ISA_NS dw_avx512vnni
#include "kernels/depthwise/depthwise_kernel_body.h"

#define QPARITY_ISA_NS dw_avx512vnni_quad
#include "kernels/depthwise/depthwise_quad_kernel.h"

QPARITY_DEFINE_KERNELS(qparity::internal::DepthwiseFamily) {
  namespace qi = qparity::internal;
  qi::DepthwiseKernelSet s = qi::dw_avx512vnni::kernel_set("avx512vnni");
  s.quad_convert = &qi::dw_avx512vnni_quad::quad_convert;
  s.quad_3x3 = &qi::dw_avx512vnni_quad::quad_kernels_3x3;
  s.epilogue_words = qi::dw_avx512vnni_quad::kEpilogueWords;
  s.pack_epilogue = &qi::dw_avx512vnni_quad::pack_epilogue;
  return s;
}
