// Public requantization entry points: validation, stride resolution and ISA dispatch.
#include "qparity/requantize.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <string>

#include "kernels/dispatch/unsupported_isa.h"
#include "qparity/error.h"
#include "qparity/policies.h"
#include "rounding/requantize_kernel.h"

namespace qparity {

const internal::RequantizeKernels& internal::requantize_kernels(Isa isa) {
  // The serving ISA's getter is compiled with its flags: callers check that `isa`, which includes
  // it, is supported.
  return *kernels_for<RequantizeFamily>(requantize_kernel_isa(isa));
}

namespace {

// Why a separate fast check: per-channel calls with one row (a batch-1 fully connected layer)
// would otherwise spend more time in the exception-ready per-entry validate() than in the kernel.
// It accepts exactly what the policies' validate() accepts; any failure re-runs validate() to
// build the message.
bool all_params_valid(RoundingCore core, const RequantParams* params, std::size_t n) {
  bool known = false;
  for (RoundingCore c : kAllRoundingCores) known |= c == core;
  if (!known) return false;  // validate() names the bad core
  return visit_rounding_core(core, [&](auto policy) {
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) ok &= decltype(policy)::is_valid(params[i]);
    return ok;
  });
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
  if (!all_params_valid(in.core, in.params, n_params)) {
    for (std::size_t i = 0; i < n_params; ++i) {
      try {
        validate(in.core, in.params[i]);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string(e.what()) + " (params[" + std::to_string(i) +
                              "], core " + to_string(in.core) + ")");
      }
    }
  }
  return true;
}

}  // namespace

// Why the VNNI and AMX paths map down: their instructions are int8 dot products, used by the GEMM
// micro-kernels; requantization has no use for them, so these paths have no requantization file of
// their own and the registry serves them with their nearest ancestor's (isa_list.h).
Isa requantize_kernel_isa(Isa isa) {
  bool valid = false;
  for (Isa i : all_isas()) valid |= i == isa;
  if (!valid) {
    throw InvalidArgument("qparity: isa = " + std::to_string(mask_of(isa)) +
                          " is not an Isa value; allowed: " + isa_names(~IsaMask{0}));
  }
  Isa served = Isa::kScalar;
  internal::serving_isa<internal::RequantizeFamily>(isa, &served);  // scalar always has one
  return served;
}

template <class Out>
void requantize(Isa isa, const RequantizeArgs& args, Out* dst) {
  internal::require_supported(isa);
  RequantizeArgs a;
  if (!prepare(args, dst, &a)) return;
  internal::requantize_kernels(isa).get<Out>()(a, dst);
}

template <class Out>
void requantize(const RequantizeArgs& args, Out* dst) {
  RequantizeArgs a;
  if (!prepare(args, dst, &a)) return;
  internal::requantize_kernels(active_isa()).get<Out>()(a, dst);
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
