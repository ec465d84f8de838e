// The portable element-wise kernels (ISA scalar, include/qparity/isa_list.h): the reference
// formulas element by element (reference::elementwise_element on the plan's reference
// parameters), for every plan and element type. Compiled for the baseline; it is also what every
// other path is measured against, and what runs the arithmetics that have no vector kernel.
#include <cstddef>
#include <cstdint>

#include "kernels/elementwise/elementwise_kernel.h"
#include "qparity/reference/elementwise.h"

namespace qparity {
namespace internal {
namespace {

template <class T>
void per_element(const EwPlan& plan, const void* a, const void* b, void* out, std::size_t n) {
  const reference::ElementwiseParams& p = *plan.reference;
  const T* x1 = static_cast<const T*>(a);
  const T* x2 = static_cast<const T*>(b);
  T* y = static_cast<T*>(out);
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<T>(reference::elementwise_element(p, x1[i], x2[i]));
}

EwRowFn select(const EwPlan& plan, bool u8) {
  if (plan.reference == nullptr) return nullptr;
  switch (plan.reference->type) {
    case OutputType::kInt8: return u8 ? nullptr : &per_element<std::int8_t>;
    case OutputType::kUint8: return u8 ? &per_element<std::uint8_t> : nullptr;
    case OutputType::kInt16: return &per_element<std::int16_t>;
    case OutputType::kInt32: return nullptr;
  }
  return nullptr;
}

}  // namespace
}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::ElementwiseFamily) {
  qparity::internal::ElementwiseKernelSet s;
  s.isa_name = "scalar";
  s.lanes = 1;
  s.select = &qparity::internal::select;
  return s;
}
