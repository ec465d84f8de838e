// Vectorized requantization of int32 accumulator arrays (compiled library, qparity::qparity).
//
// Every path (scalar, SSE4.1, AVX2, AVX-512; the AVX-VNNI, AVX-512 VNNI and AMX paths reuse the
// AVX2 and AVX-512 kernels, see requantize_kernel_isa) computes exactly
//   dst[r][c] = saturating_cast<Out>(requantize_to_output<Policy>(acc[r][c], params[c or 0], output))
// i.e. bit-identical to the header-only reference (policies.h, output_stage.h); the test suite
// proves it exhaustively over all 2^32 accumulators for a set of parameters on every ISA.
// With Out = int32_t and the default OutputParams (zero point 0, no clamp), dst is the raw result
// of the rounding core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qparity/isa.h"
#include "qparity/output_stage.h"
#include "qparity/requant_params.h"

namespace qparity {

/// A row-major [rows x channels] block of accumulators and how to requantize it.
struct RequantizeArgs {
  RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;
  /// One entry (per-tensor, per_channel = false) or `channels` entries (per-channel: column c uses
  /// params[c]).
  const RequantParams* params = nullptr;
  bool per_channel = false;
  OutputParams output{};
  std::size_t rows = 1;
  std::size_t channels = 0;
  const std::int32_t* acc = nullptr;
  std::size_t acc_row_stride = 0;  ///< in elements; 0 means `channels` (dense)
  std::size_t dst_row_stride = 0;  ///< in elements; 0 means `channels` (dense)
};

/// Requantizes with the active ISA. Validates every argument (core parameters, output zero point
/// and clamp against Out's range, pointers, strides) and throws qparity::InvalidArgument naming the
/// first bad one. Out is int8_t, uint8_t, int16_t or int32_t.
template <class Out>
void requantize(const RequantizeArgs& args, Out* dst);

/// Same, on exactly `isa`; throws qparity::InvalidArgument if `isa` is not in supported_isas().
/// (The test mask and QPARITY_ISA do not apply: this is how tests force each path.) A path without
/// requantization code of its own runs requantize_kernel_isa(isa)'s kernels.
template <class Out>
void requantize(Isa isa, const RequantizeArgs& args, Out* dst);

/// The ISA whose requantization kernels the path `isa` runs: `isa` itself for scalar, sse41, avx2
/// and avx512; avx2 for avxvnni; avx512 for avx512vnni and amx (their dot-product instructions
/// serve GEMM, not requantization). Throws qparity::InvalidArgument for a value that is not an Isa.
Isa requantize_kernel_isa(Isa isa);

extern template void requantize<std::int8_t>(const RequantizeArgs&, std::int8_t*);
extern template void requantize<std::uint8_t>(const RequantizeArgs&, std::uint8_t*);
extern template void requantize<std::int16_t>(const RequantizeArgs&, std::int16_t*);
extern template void requantize<std::int32_t>(const RequantizeArgs&, std::int32_t*);
extern template void requantize<std::int8_t>(Isa, const RequantizeArgs&, std::int8_t*);
extern template void requantize<std::uint8_t>(Isa, const RequantizeArgs&, std::uint8_t*);
extern template void requantize<std::int16_t>(Isa, const RequantizeArgs&, std::int16_t*);
extern template void requantize<std::int32_t>(Isa, const RequantizeArgs&, std::int32_t*);

}  // namespace qparity
