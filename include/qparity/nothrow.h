// Non-throwing entry points of the compiled library (qparity::qparity), for engines built with
// -fno-exceptions. This header compiles without exceptions.
//
// qparity::nothrow has one function for every public operation of the compiled library that can
// fail, with the name and parameters of the throwing one (the packing constructors become pack_*
// factories returning a Result). Each runs exactly the throwing function and returns what that
// would have thrown as a Status (status.h), with the exception's message (what(), which names the
// parameter and its allowed range) and this code:
//
//   InvalidArgument for a forced ISA not in supported_isas()   kUnsupportedIsa
//   any other InvalidArgument                                  kInvalidArgument
//   std::bad_alloc                                             kOutOfMemory
//   anything else                                              kInternal
//
// On kOk the outputs are bit-identical to the throwing call's. kInvalidArgument and
// kUnsupportedIsa are reported before anything is written (every entry point validates its input
// first); after kOutOfMemory or kInternal the output may be partly written. None of these
// functions throws or aborts.
//
//   qparity::Result<qparity::PackedGemm> packed = qparity::nothrow::pack_gemm(weights, core);
//   if (!packed.ok()) return report(packed.status());
//   const qparity::Status s = qparity::nothrow::gemm(*packed, call);
//   if (!s.ok()) return report(s);   // s.code(), s.message()
//
// Functions of the compiled library not listed here do not report errors (tile counts, accessors
// of the packed objects, to_string, supported_isas, ...; the tile counts cut for a number of
// threads allocate a few words per thread, so they can throw std::bad_alloc and nothing else). The header-only reference has no
// non-throwing form: without exceptions its errors call the no-exceptions handler (error.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "qparity/conv2d.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/fully_connected.h"
#include "qparity/gemm.h"
#include "qparity/isa.h"
#include "qparity/requantize.h"
#include "qparity/status.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace nothrow {

// ----------------------------------------- ISA (isa.h) -----------------------------------------

/// qparity::isa_from_string: the Isa named `name` ("scalar", "avx2", ...), or kInvalidArgument
/// listing the names.
Result<Isa> isa_from_string(const std::string& name) noexcept;

/// qparity::enabled_isas: kInvalidArgument if the QPARITY_ISA environment variable names no ISA.
Result<IsaMask> enabled_isas() noexcept;

/// qparity::active_isa: kInvalidArgument if the QPARITY_ISA environment variable names no ISA.
Result<Isa> active_isa() noexcept;

/// qparity::requantize_kernel_isa: kInvalidArgument for a value that is not an Isa.
Result<Isa> requantize_kernel_isa(Isa isa) noexcept;

// ---------------------------------- requantization (requantize.h) ------------------------------

/// qparity::requantize with the active ISA. Out is int8_t, uint8_t, int16_t or int32_t.
template <class Out>
Status requantize(const RequantizeArgs& args, Out* dst) noexcept;

/// qparity::requantize on exactly `isa`: kUnsupportedIsa if `isa` is not in supported_isas().
template <class Out>
Status requantize(Isa isa, const RequantizeArgs& args, Out* dst) noexcept;

// ------------------------------------------ GEMM (gemm.h) --------------------------------------

/// PackedGemm(w, core, accumulator): packs for active_isa().
Result<PackedGemm> pack_gemm(const GemmWeights& w, RoundingCore core,
                             AccumulatorSpec accumulator = {}) noexcept;

/// PackedGemm(isa, w, core, accumulator): kUnsupportedIsa if `isa` is not in supported_isas().
Result<PackedGemm> pack_gemm(Isa isa, const GemmWeights& w, RoundingCore core,
                             AccumulatorSpec accumulator = {}) noexcept;

/// qparity::gemm(w, call).
template <class AType, class OutType>
Status gemm(const PackedGemm& w, const GemmCall<AType, OutType>& call) noexcept;

/// qparity::gemm_tiles(w, call, begin, end).
template <class AType, class OutType>
Status gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, std::size_t begin,
                  std::size_t end) noexcept;

/// qparity::gemm_tiles(w, call, threads, begin, end): tiles cut for `threads` threads.
template <class AType, class OutType>
Status gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads,
                  std::size_t begin, std::size_t end) noexcept;

/// qparity::gemm_threaded(w, call, threads).
template <class AType, class OutType>
Status gemm_threaded(const PackedGemm& w, const GemmCall<AType, OutType>& call,
                     unsigned threads) noexcept;

/// qparity::gemm(g, core, accumulator): the one-shot form.
template <class AType, class OutType>
Status gemm(const GemmProblem<AType, OutType>& g, RoundingCore core,
            AccumulatorSpec accumulator = {}) noexcept;

/// qparity::gemm<Policy, Accum>(g).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
Status gemm(const GemmProblem<AType, OutType>& g) noexcept {
  return nothrow::gemm(g, Policy::kCore, Accum::kSpec);
}

// ------------------------------- fully connected (fully_connected.h) ---------------------------

/// qparity::pack_fully_connected(f, core, accumulator).
inline Result<PackedGemm> pack_fully_connected(const FullyConnectedWeights& f, RoundingCore core,
                                               AccumulatorSpec accumulator = {}) noexcept {
  return nothrow::pack_gemm(gemm_weights_of(f), core, accumulator);
}

/// qparity::fully_connected(packed, call).
template <class AType, class OutType>
Status fully_connected(const PackedGemm& packed,
                       const FullyConnectedCall<AType, OutType>& call) noexcept {
  return nothrow::gemm(packed,
                       GemmCall<AType, OutType>{call.batch, call.input, 0, call.input_zero_point,
                                                call.output, call.out, 0});
}

/// qparity::fully_connected<Policy, Accum>(f, call): the one-shot form.
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
Status fully_connected(const FullyConnectedWeights& f,
                       const FullyConnectedCall<AType, OutType>& call) noexcept {
  return nothrow::gemm(gemm_problem_of(f, call), Policy::kCore, Accum::kSpec);
}

// ---------------------------------------- conv2d (conv2d.h) ------------------------------------

/// PackedConv2D(geometry, weights, core, accumulator): packs for active_isa().
Result<PackedConv2D> pack_conv2d(const Conv2DGeometry& geometry, const ConvWeights& weights,
                                 RoundingCore core, AccumulatorSpec accumulator = {}) noexcept;

/// PackedConv2D(isa, ...): kUnsupportedIsa if `isa` is not in supported_isas().
Result<PackedConv2D> pack_conv2d(Isa isa, const Conv2DGeometry& geometry,
                                 const ConvWeights& weights, RoundingCore core,
                                 AccumulatorSpec accumulator = {}) noexcept;

/// qparity::conv2d(conv, call).
template <class AType, class OutType>
Status conv2d(const PackedConv2D& conv, const ConvCall<AType, OutType>& call) noexcept;

/// qparity::conv2d_tiles(conv, call, begin, end).
template <class AType, class OutType>
Status conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call,
                    std::size_t begin, std::size_t end) noexcept;

/// qparity::conv2d_tiles(conv, call, threads, begin, end): tiles cut for `threads` threads.
template <class AType, class OutType>
Status conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call,
                    unsigned threads, std::size_t begin, std::size_t end) noexcept;

/// qparity::conv2d_threaded(conv, call, threads).
template <class AType, class OutType>
Status conv2d_threaded(const PackedConv2D& conv, const ConvCall<AType, OutType>& call,
                       unsigned threads) noexcept;

/// qparity::conv2d(p, core, accumulator): the one-shot form.
template <class AType, class OutType>
Status conv2d(const Conv2DProblem<AType, OutType>& p, RoundingCore core,
              AccumulatorSpec accumulator = {}) noexcept;

/// qparity::conv2d<Policy, Accum>(p).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
Status conv2d(const Conv2DProblem<AType, OutType>& p) noexcept {
  return nothrow::conv2d(p, Policy::kCore, Accum::kSpec);
}

// ------------------------------- depthwise conv2d (depthwise_conv2d.h) -------------------------

/// PackedDepthwiseConv2D(geometry, weights, core, accumulator): packs for active_isa().
Result<PackedDepthwiseConv2D> pack_depthwise_conv2d(const DepthwiseConv2DGeometry& geometry,
                                                    const ConvWeights& weights, RoundingCore core,
                                                    AccumulatorSpec accumulator = {}) noexcept;

/// PackedDepthwiseConv2D(isa, ...): kUnsupportedIsa if `isa` is not in supported_isas().
Result<PackedDepthwiseConv2D> pack_depthwise_conv2d(Isa isa,
                                                    const DepthwiseConv2DGeometry& geometry,
                                                    const ConvWeights& weights, RoundingCore core,
                                                    AccumulatorSpec accumulator = {}) noexcept;

/// qparity::depthwise_conv2d(conv, call).
template <class AType, class OutType>
Status depthwise_conv2d(const PackedDepthwiseConv2D& conv,
                        const ConvCall<AType, OutType>& call) noexcept;

/// qparity::depthwise_conv2d_tiles(conv, call, begin, end).
template <class AType, class OutType>
Status depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv,
                              const ConvCall<AType, OutType>& call, std::size_t begin,
                              std::size_t end) noexcept;

/// qparity::depthwise_conv2d_tiles(conv, call, threads, begin, end): tiles cut for `threads`
/// threads.
template <class AType, class OutType>
Status depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv,
                              const ConvCall<AType, OutType>& call, unsigned threads,
                              std::size_t begin, std::size_t end) noexcept;

/// qparity::depthwise_conv2d_threaded(conv, call, threads).
template <class AType, class OutType>
Status depthwise_conv2d_threaded(const PackedDepthwiseConv2D& conv,
                                 const ConvCall<AType, OutType>& call, unsigned threads) noexcept;

/// qparity::depthwise_conv2d(p, core, accumulator): the one-shot form.
template <class AType, class OutType>
Status depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p, RoundingCore core,
                        AccumulatorSpec accumulator = {}) noexcept;

/// qparity::depthwise_conv2d<Policy, Accum>(p).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
Status depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p) noexcept {
  return nothrow::depthwise_conv2d(p, Policy::kCore, Accum::kSpec);
}

// The templates are instantiated in the library for these types (as the throwing ones are).
extern template Status requantize<std::int8_t>(const RequantizeArgs&, std::int8_t*) noexcept;
extern template Status requantize<std::uint8_t>(const RequantizeArgs&, std::uint8_t*) noexcept;
extern template Status requantize<std::int16_t>(const RequantizeArgs&, std::int16_t*) noexcept;
extern template Status requantize<std::int32_t>(const RequantizeArgs&, std::int32_t*) noexcept;
extern template Status requantize<std::int8_t>(Isa, const RequantizeArgs&, std::int8_t*) noexcept;
extern template Status requantize<std::uint8_t>(Isa, const RequantizeArgs&, std::uint8_t*) noexcept;
extern template Status requantize<std::int16_t>(Isa, const RequantizeArgs&, std::int16_t*) noexcept;
extern template Status requantize<std::int32_t>(Isa, const RequantizeArgs&, std::int32_t*) noexcept;

#define QPARITY_NOTHROW_EXTERN(A, O)                                                               \
  extern template Status gemm<A, O>(const PackedGemm&, const GemmCall<A, O>&) noexcept;            \
  extern template Status gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, std::size_t,   \
                                          std::size_t) noexcept;                                   \
  extern template Status gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned,      \
                                          std::size_t, std::size_t) noexcept;                      \
  extern template Status gemm_threaded<A, O>(const PackedGemm&, const GemmCall<A, O>&,             \
                                             unsigned) noexcept;                                   \
  extern template Status gemm<A, O>(const GemmProblem<A, O>&, RoundingCore,                        \
                                    AccumulatorSpec) noexcept;                                     \
  extern template Status conv2d<A, O>(const PackedConv2D&, const ConvCall<A, O>&) noexcept;        \
  extern template Status conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&,            \
                                            std::size_t, std::size_t) noexcept;                    \
  extern template Status conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, unsigned,  \
                                            std::size_t, std::size_t) noexcept;                    \
  extern template Status conv2d_threaded<A, O>(const PackedConv2D&, const ConvCall<A, O>&,         \
                                               unsigned) noexcept;                                 \
  extern template Status conv2d<A, O>(const Conv2DProblem<A, O>&, RoundingCore,                    \
                                      AccumulatorSpec) noexcept;                                   \
  extern template Status depthwise_conv2d<A, O>(const PackedDepthwiseConv2D&,                      \
                                                const ConvCall<A, O>&) noexcept;                   \
  extern template Status depthwise_conv2d_tiles<A, O>(                                             \
      const PackedDepthwiseConv2D&, const ConvCall<A, O>&, std::size_t, std::size_t) noexcept;     \
  extern template Status depthwise_conv2d_tiles<A, O>(                                             \
      const PackedDepthwiseConv2D&, const ConvCall<A, O>&, unsigned, std::size_t,                  \
      std::size_t) noexcept;                                                                       \
  extern template Status depthwise_conv2d_threaded<A, O>(                                          \
      const PackedDepthwiseConv2D&, const ConvCall<A, O>&, unsigned) noexcept;                     \
  extern template Status depthwise_conv2d<A, O>(const DepthwiseConv2DProblem<A, O>&, RoundingCore, \
                                                AccumulatorSpec) noexcept;
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_NOTHROW_EXTERN)
#undef QPARITY_NOTHROW_EXTERN

}  // namespace nothrow
}  // namespace qparity
