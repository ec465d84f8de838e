// The scalar requantization path: the reference formulas applied element by element. Compiled
// for the baseline; it is also the fallback every other path is measured against.
#include <cstddef>
#include <cstdint>

#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "rounding/requantize_kernel.h"

namespace qparity {
namespace internal {
namespace {

template <class Policy, class Out>
void run(const RequantizeArgs& a, Out* dst) {
  for (std::size_t r = 0; r < a.rows; ++r) {
    const std::int32_t* acc = a.acc + r * a.acc_row_stride;
    Out* out = dst + r * a.dst_row_stride;
    for (std::size_t c = 0; c < a.channels; ++c) {
      const RequantParams& p = a.params[a.per_channel ? c : 0];
      out[c] = saturating_cast<Out>(requantize_to_output<Policy>(acc[c], p, a.output));
    }
  }
}

template <class Out>
void kernel(const RequantizeArgs& a, Out* dst) {
  visit_rounding_core(a.core, [&](auto policy) { run<decltype(policy)>(a, dst); });
}

}  // namespace

}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::RequantizeFamily) {
  using qparity::internal::kernel;
  return qparity::internal::RequantizeKernels{&kernel<std::int8_t>, &kernel<std::uint8_t>,
                                              &kernel<std::int16_t>, &kernel<std::int32_t>};
}
