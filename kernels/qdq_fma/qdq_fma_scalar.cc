// The portable unfused-QDQ float32 kernel (ISA scalar, include/qparity/isa_list.h): the contract of
// kernels/entries/qparity_internal/qdq_fma.h written as its loops, one output (pixel, lane) at a
// time, with std::fma (one rounding, as the SIMD kernels' vfmadd). It serves CPUs without AVX2 + FMA
// and is the form tests/onnx/qdq_fma_kernel_test.cc checks every SIMD kernel against.
#include <cmath>
#include <cstddef>

#include "kernels/qdq_fma/qdq_fma_kernel.h"

namespace qparity {
namespace internal {
namespace qdq_fma {
namespace {

// One output: every K slice from b.k_begin to min(b.k_end, b.k), each summed from 0 in K order and
// added to the output (the first slice of an output without a start value is the output itself).
void run_output(const Block& b, std::size_t p, std::size_t c) {
  float& out = b.out[b.out_row[p] + c];
  const std::size_t k_end = b.k_end < b.k ? b.k_end : b.k;
  bool first = b.start == nullptr && b.k_begin == 0;
  if (b.k_begin == 0 && !first) {
    out = b.start[c];
  } else if (first && b.k == 0) {
    out = 0.0f;
  }
  for (std::size_t k0 = b.k_begin; k0 < k_end; k0 += b.slice) {
    const std::size_t k1 = k_end - k0 > b.slice ? k0 + b.slice : k_end;
    float acc = 0.0f;
    for (std::size_t k = k0; k < k1; ++k) {
      if (b.valid != nullptr && b.valid[k] == 0) continue;  // a padded tap: the reference adds nothing
      const float* xp = b.x + (b.base[p] + b.offsets[k]);
      acc = std::fma(b.x_per_lane ? xp[c] : *xp, b.w[k * b.ldw + c], acc);
    }
    out = first ? acc : out + acc;
    first = false;
  }
}

void run_block(const Block& b) {
  for (std::size_t p = 0; p < b.pixels; ++p) {
    for (std::size_t c = 0; c < b.lanes; ++c) run_output(b, p, c);
  }
}

}  // namespace
}  // namespace qdq_fma
}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::QdqFmaFamily) {
  return qparity::internal::QdqFmaKernelSet{"scalar", &qparity::internal::qdq_fma::run_block};
}
