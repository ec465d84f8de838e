// INTERNAL: the GEMM driver's packing of a strided A (rows of K values) into the micro-kernel's
// format, per K block (kernels/gemm/gemm_ukernel.h describes the formats). An indirect A is packed
// by kernels/gemm/gemm_indirect_a.h, with the same bytes. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/packed_gemm_data.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace internal {

/// Largest MR of any micro-kernel (AMX: 32).
inline constexpr std::size_t kMaxMr = 32;

/// The activation offset c of the kernel's A format: 128 for int8 activations on kDot4 (VPDPBUSD
/// / VPMADDUBSW take unsigned A: a + 128 = a ^ 0x80), else 0 (kRows64: TDPBSSD takes int8 A as
/// it is). Per kernel, not per PackedGemm: the kernels of one PackedGemm share the B panels but
/// may read A in different formats (AMX's few-row calls run a kDot4 kernel).
template <class AType>
std::int32_t activation_offset(const Ukernel& kernel) {
  return (std::is_signed<AType>::value && kernel.format == PackFormat::kDot4) ? 128 : 0;
}

/// Packs rows [0, rows) of `a` (row stride lda), K range [k0, k0 + kgroups * G) clipped to K,
/// into groups of kernel.mr rows in the kernel's format; rows up to a multiple of kernel.mr are
/// zero. kRows64 also sets *row_bytes_out (bytes per packed row).
template <class AType>
void pack_a(const PackedGemmData& d, const Ukernel& kernel, const AType* a, std::size_t lda,
            std::size_t rows, std::size_t k0, std::size_t kgroups, std::uint8_t* dst,
            std::size_t* row_bytes_out);

#define QPARITY_PACK_A_EXTERN(A)                                                               \
  extern template void pack_a<A>(const PackedGemmData&, const Ukernel&, const A*, std::size_t, \
                                 std::size_t, std::size_t, std::size_t, std::uint8_t*,         \
                                 std::size_t*);
QPARITY_FOR_EACH_ACTIVATION_TYPE(QPARITY_PACK_A_EXTERN)
#undef QPARITY_PACK_A_EXTERN

}  // namespace internal
}  // namespace qparity
