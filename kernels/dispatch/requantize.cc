// Public requantization entry points: validation, stride resolution and ISA dispatch.
#include "qparity/requantize.h"

#include <limits>
#include <type_traits>
#include <string>

#include "qparity/error.h"
#include "qparity/policies.h"
#include "rounding/requantize_kernel.h"

namespace qparity {
namespace {

const internal::RequantizeKernels& kernels_for(Isa isa) {
  static const internal::RequantizeKernels scalar = internal::requantize_kernels_scalar();
#ifdef QPARITY_HAVE_SSE41
  static const internal::RequantizeKernels sse41 = internal::requantize_kernels_sse41();
#endif
#ifdef QPARITY_HAVE_AVX2
  static const internal::RequantizeKernels avx2 = internal::requantize_kernels_avx2();
#endif
#ifdef QPARITY_HAVE_AVX512
  static const internal::RequantizeKernels avx512 = internal::requantize_kernels_avx512();
#endif
  switch (isa) {
#ifdef QPARITY_HAVE_SSE41
    case Isa::kSse41: return sse41;
#endif
#ifdef QPARITY_HAVE_AVX2
    case Isa::kAvx2: return avx2;
#endif
#ifdef QPARITY_HAVE_AVX512
    case Isa::kAvx512: return avx512;
#endif
    default: return scalar;
  }
}

template <class Out>
OutputType output_type_of() {
  if (std::is_same<Out, std::int8_t>::value) return OutputType::kInt8;
  if (std::is_same<Out, std::uint8_t>::value) return OutputType::kUint8;
  if (std::is_same<Out, std::int16_t>::value) return OutputType::kInt16;
  return OutputType::kInt32;
}

// Validates and returns the arguments with strides resolved; nullopt-like `false` when empty.
template <class Out>
bool prepare(const RequantizeArgs& in, const Out* dst, RequantizeArgs* out) {
  *out = in;
  validate(in.output, output_type_of<Out>());
  if (in.rows == 0 || in.channels == 0) return false;
  if (in.acc == nullptr) throw InvalidArgument("qparity: acc is null; allowed: a non-null pointer");
  if (dst == nullptr) throw InvalidArgument("qparity: dst is null; allowed: a non-null pointer");
  if (in.params == nullptr) {
    throw InvalidArgument("qparity: params is null; allowed: a non-null pointer");
  }
  out->acc_row_stride = in.acc_row_stride == 0 ? in.channels : in.acc_row_stride;
  out->dst_row_stride = in.dst_row_stride == 0 ? in.channels : in.dst_row_stride;
  if (out->acc_row_stride < in.channels) {
    detail::throw_out_of_range("acc_row_stride", in.acc_row_stride,
                               ">= channels (" + std::to_string(in.channels) + "), or 0");
  }
  if (out->dst_row_stride < in.channels) {
    detail::throw_out_of_range("dst_row_stride", in.dst_row_stride,
                               ">= channels (" + std::to_string(in.channels) + "), or 0");
  }
  const std::size_t n_params = in.per_channel ? in.channels : 1;
  for (std::size_t i = 0; i < n_params; ++i) {
    try {
      validate(in.core, in.params[i]);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string(e.what()) + " (params[" + std::to_string(i) + "], core " +
                            to_string(in.core) + ")");
    }
  }
  return true;
}

}  // namespace

template <class Out>
void requantize(Isa isa, const RequantizeArgs& args, Out* dst) {
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw InvalidArgument(std::string("qparity: isa = ") + to_string(isa) +
                          " is not supported on this CPU or not compiled in");
  }
  RequantizeArgs a;
  if (!prepare(args, dst, &a)) return;
  kernels_for(isa).get<Out>()(a, dst);
}

template <class Out>
void requantize(const RequantizeArgs& args, Out* dst) {
  RequantizeArgs a;
  if (!prepare(args, dst, &a)) return;
  kernels_for(active_isa()).get<Out>()(a, dst);
}

template void requantize<std::int8_t>(const RequantizeArgs&, std::int8_t*);
template void requantize<std::uint8_t>(const RequantizeArgs&, std::uint8_t*);
template void requantize<std::int16_t>(const RequantizeArgs&, std::int16_t*);
template void requantize<std::int32_t>(const RequantizeArgs&, std::int32_t*);
template void requantize<std::int8_t>(Isa, const RequantizeArgs&, std::int8_t*);
template void requantize<std::uint8_t>(Isa, const RequantizeArgs&, std::uint8_t*);
template void requantize<std::int16_t>(Isa, const RequantizeArgs&, std::int16_t*);
template void requantize<std::int32_t>(Isa, const RequantizeArgs&, std::int32_t*);

}  // namespace qparity
