// INTERNAL: the GEMM driver's indirect A (an implicit-GEMM convolution: gemm_driver.h's AOperand
// with a window): its rows gathered into a dense copy, the table of its segment pointers (for a
// kernel that reads them in place, UkernelArgs::a_segments), and kDot4 packing straight from the
// segments. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/gemm/gemm_driver.h"
#include "kernels/gemm/packed_gemm_data.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace internal {

/// The segment pointers of an indirect A's row block (build_segment_table), reused across calls.
struct SegmentTable {
  std::vector<std::uint8_t> pad;              ///< seg copies of the pad value
  std::vector<const std::uint8_t*> entries;  ///< per MR-row group: [tap][MR]
};

/// Copies rows [i0, i0 + rows) of an indirect A into dst (rows x K, row stride ldd >= K, the
/// bytes past K zero).
template <class AType>
void gather_rows(const AOperand<AType>& src, std::size_t i0, std::size_t rows, AType* dst,
                 std::size_t ldd);

/// The segment pointers of an indirect A's rows [i0, i0 + rows) into s.entries, for a kernel
/// that reads them in place (UkernelArgs::a_segments) or for packing: for each MR-row group, taps x
/// MR pointers, tap-major; rows past `rows` repeat the group's first row (their sums are padding),
/// a padded tap points at s.pad.
template <class AType>
void build_segment_table(std::size_t MR, const AOperand<AType>& src, std::size_t i0,
                         std::size_t rows, SegmentTable& s);

/// Packs an indirect A's rows [i0, i0 + rows) for the kDot4 format straight from the input, all K
/// blocks (block b at dst + b * full_block_bytes, kc groups per full block), when every segment is
/// a whole number of K groups (seg % 4 == 0): each (segment, K block) run of one MR-row group is
/// one pack_dot4_run over that segment's row pointers (MR = kernel.mr, a kDot4 kernel). Same bytes
/// as pack_a on the gathered rows (rows past `rows` are zeros). Leaves the rows' segment table in s
/// (build_segment_table).
template <class AType>
void pack_a_from_segments(const PackedGemmData& d, const Ukernel& kernel,
                          const AOperand<AType>& src, std::size_t i0, std::size_t rows,
                          std::size_t kc, std::size_t full_block_bytes, std::uint8_t* dst,
                          SegmentTable& s);

#define QPARITY_INDIRECT_A_EXTERN(A)                                                        \
  extern template void gather_rows<A>(const AOperand<A>&, std::size_t, std::size_t, A*,     \
                                      std::size_t);                                         \
  extern template void build_segment_table<A>(std::size_t, const AOperand<A>&, std::size_t, \
                                              std::size_t, SegmentTable&);                  \
  extern template void pack_a_from_segments<A>(                                             \
      const PackedGemmData&, const Ukernel&, const AOperand<A>&, std::size_t, std::size_t,  \
      std::size_t, std::size_t, std::uint8_t*, SegmentTable&);
QPARITY_FOR_EACH_ACTIVATION_TYPE(QPARITY_INDIRECT_A_EXTERN)
#undef QPARITY_INDIRECT_A_EXTERN

}  // namespace internal
}  // namespace qparity
