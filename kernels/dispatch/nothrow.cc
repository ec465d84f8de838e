// The non-throwing entry points (qparity/nothrow.h): each runs the throwing one inside guarded(),
// the one place where exceptions become a Status.
#include "qparity/nothrow.h"

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "kernels/dispatch/unsupported_isa.h"
#include "qparity/error.h"
#include "qparity/type_pairs.h"

namespace qparity {
namespace nothrow {
namespace {

// A failed Status with `what` as its message; if even the message cannot be allocated, the code
// alone (Status::message() then gives the code's generic text).
Status failure(StatusCode code, const char* what) noexcept {
  try {
    return Status(code, what);
  } catch (...) {
    return Status(code);
  }
}

// The Status of the exception being handled (call only inside a catch block).
Status status_of_current_exception() noexcept {
  try {
    throw;
  } catch (const internal::UnsupportedIsa& e) {
    return failure(StatusCode::kUnsupportedIsa, e.what());
  } catch (const InvalidArgument& e) {
    return failure(StatusCode::kInvalidArgument, e.what());
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory);
  } catch (const std::exception& e) {
    return failure(StatusCode::kInternal, e.what());
  } catch (...) {
    return failure(StatusCode::kInternal, "qparity: an exception that is not a std::exception");
  }
}

// Runs `f` (which returns void): kOk, or the Status of what it threw.
template <class F>
Status guarded(F&& f) noexcept {
  try {
    std::forward<F>(f)();
    return Status();
  } catch (...) {
    return status_of_current_exception();
  }
}

// Runs `f` (which returns a T): the value, or the Status of what it threw.
template <class T, class F>
Result<T> guarded_value(F&& f) noexcept {
  try {
    return Result<T>(std::forward<F>(f)());
  } catch (...) {
    return Result<T>(status_of_current_exception());
  }
}

}  // namespace

// ISA.

Result<Isa> isa_from_string(const std::string& name) noexcept {
  return guarded_value<Isa>([&] { return qparity::isa_from_string(name); });
}

Result<IsaMask> enabled_isas() noexcept {
  return guarded_value<IsaMask>([] { return qparity::enabled_isas(); });
}

Result<Isa> active_isa() noexcept {
  return guarded_value<Isa>([] { return qparity::active_isa(); });
}

Result<Isa> requantize_kernel_isa(Isa isa) noexcept {
  return guarded_value<Isa>([&] { return qparity::requantize_kernel_isa(isa); });
}

// Requantization.

template <class Out>
Status requantize(const RequantizeArgs& args, Out* dst) noexcept {
  return guarded([&] { qparity::requantize(args, dst); });
}

template <class Out>
Status requantize(Isa isa, const RequantizeArgs& args, Out* dst) noexcept {
  return guarded([&] { qparity::requantize(isa, args, dst); });
}

template Status requantize<std::int8_t>(const RequantizeArgs&, std::int8_t*) noexcept;
template Status requantize<std::uint8_t>(const RequantizeArgs&, std::uint8_t*) noexcept;
template Status requantize<std::int16_t>(const RequantizeArgs&, std::int16_t*) noexcept;
template Status requantize<std::int32_t>(const RequantizeArgs&, std::int32_t*) noexcept;
template Status requantize<std::int8_t>(Isa, const RequantizeArgs&, std::int8_t*) noexcept;
template Status requantize<std::uint8_t>(Isa, const RequantizeArgs&, std::uint8_t*) noexcept;
template Status requantize<std::int16_t>(Isa, const RequantizeArgs&, std::int16_t*) noexcept;
template Status requantize<std::int32_t>(Isa, const RequantizeArgs&, std::int32_t*) noexcept;

// Packing.

Result<PackedGemm> pack_gemm(const GemmWeights& w, RoundingCore core,
                             AccumulatorSpec accumulator) noexcept {
  return guarded_value<PackedGemm>([&] { return PackedGemm(w, core, accumulator); });
}

Result<PackedGemm> pack_gemm(Isa isa, const GemmWeights& w, RoundingCore core,
                             AccumulatorSpec accumulator) noexcept {
  return guarded_value<PackedGemm>([&] { return PackedGemm(isa, w, core, accumulator); });
}

Result<PackedConv2D> pack_conv2d(const Conv2DGeometry& geometry, const ConvWeights& weights,
                                 RoundingCore core, AccumulatorSpec accumulator) noexcept {
  return guarded_value<PackedConv2D>(
      [&] { return PackedConv2D(geometry, weights, core, accumulator); });
}

Result<PackedConv2D> pack_conv2d(Isa isa, const Conv2DGeometry& geometry,
                                 const ConvWeights& weights, RoundingCore core,
                                 AccumulatorSpec accumulator) noexcept {
  return guarded_value<PackedConv2D>(
      [&] { return PackedConv2D(isa, geometry, weights, core, accumulator); });
}

Result<PackedDepthwiseConv2D> pack_depthwise_conv2d(const DepthwiseConv2DGeometry& geometry,
                                                    const ConvWeights& weights, RoundingCore core,
                                                    AccumulatorSpec accumulator) noexcept {
  return guarded_value<PackedDepthwiseConv2D>(
      [&] { return PackedDepthwiseConv2D(geometry, weights, core, accumulator); });
}

Result<PackedDepthwiseConv2D> pack_depthwise_conv2d(Isa isa,
                                                    const DepthwiseConv2DGeometry& geometry,
                                                    const ConvWeights& weights, RoundingCore core,
                                                    AccumulatorSpec accumulator) noexcept {
  return guarded_value<PackedDepthwiseConv2D>(
      [&] { return PackedDepthwiseConv2D(isa, geometry, weights, core, accumulator); });
}

// GEMM, conv2d, depthwise conv2d.

template <class AType, class OutType>
Status gemm(const PackedGemm& w, const GemmCall<AType, OutType>& call) noexcept {
  return guarded([&] { qparity::gemm(w, call); });
}

template <class AType, class OutType>
Status gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, std::size_t begin,
                  std::size_t end) noexcept {
  return guarded([&] { qparity::gemm_tiles(w, call, begin, end); });
}

template <class AType, class OutType>
Status gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads,
                  std::size_t begin, std::size_t end) noexcept {
  return guarded([&] { qparity::gemm_tiles(w, call, threads, begin, end); });
}

template <class AType, class OutType>
Status gemm_threaded(const PackedGemm& w, const GemmCall<AType, OutType>& call,
                     unsigned threads) noexcept {
  return guarded([&] { qparity::gemm_threaded(w, call, threads); });
}

template <class AType, class OutType>
Status gemm(const GemmProblem<AType, OutType>& g, RoundingCore core,
            AccumulatorSpec accumulator) noexcept {
  return guarded([&] { qparity::gemm(g, core, accumulator); });
}

template <class AType, class OutType>
Status conv2d(const PackedConv2D& conv, const ConvCall<AType, OutType>& call) noexcept {
  return guarded([&] { qparity::conv2d(conv, call); });
}

template <class AType, class OutType>
Status conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call,
                    std::size_t begin, std::size_t end) noexcept {
  return guarded([&] { qparity::conv2d_tiles(conv, call, begin, end); });
}

template <class AType, class OutType>
Status conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call,
                    unsigned threads, std::size_t begin, std::size_t end) noexcept {
  return guarded([&] { qparity::conv2d_tiles(conv, call, threads, begin, end); });
}

template <class AType, class OutType>
Status conv2d_threaded(const PackedConv2D& conv, const ConvCall<AType, OutType>& call,
                       unsigned threads) noexcept {
  return guarded([&] { qparity::conv2d_threaded(conv, call, threads); });
}

template <class AType, class OutType>
Status conv2d(const Conv2DProblem<AType, OutType>& p, RoundingCore core,
              AccumulatorSpec accumulator) noexcept {
  return guarded([&] { qparity::conv2d(p, core, accumulator); });
}

template <class AType, class OutType>
Status depthwise_conv2d(const PackedDepthwiseConv2D& conv,
                        const ConvCall<AType, OutType>& call) noexcept {
  return guarded([&] { qparity::depthwise_conv2d(conv, call); });
}

template <class AType, class OutType>
Status depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv,
                              const ConvCall<AType, OutType>& call, std::size_t begin,
                              std::size_t end) noexcept {
  return guarded([&] { qparity::depthwise_conv2d_tiles(conv, call, begin, end); });
}

template <class AType, class OutType>
Status depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv,
                              const ConvCall<AType, OutType>& call, unsigned threads,
                              std::size_t begin, std::size_t end) noexcept {
  return guarded([&] { qparity::depthwise_conv2d_tiles(conv, call, threads, begin, end); });
}

template <class AType, class OutType>
Status depthwise_conv2d_threaded(const PackedDepthwiseConv2D& conv,
                                 const ConvCall<AType, OutType>& call, unsigned threads) noexcept {
  return guarded([&] { qparity::depthwise_conv2d_threaded(conv, call, threads); });
}

template <class AType, class OutType>
Status depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p, RoundingCore core,
                        AccumulatorSpec accumulator) noexcept {
  return guarded([&] { qparity::depthwise_conv2d(p, core, accumulator); });
}

#define QPARITY_NOTHROW_INSTANTIATE(A, O)                                                       \
  template Status gemm<A, O>(const PackedGemm&, const GemmCall<A, O>&) noexcept;                \
  template Status gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, std::size_t,       \
                                   std::size_t) noexcept;                                       \
  template Status gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned,          \
                                   std::size_t, std::size_t) noexcept;                          \
  template Status gemm_threaded<A, O>(const PackedGemm&, const GemmCall<A, O>&,                 \
                                      unsigned) noexcept;                                       \
  template Status gemm<A, O>(const GemmProblem<A, O>&, RoundingCore, AccumulatorSpec) noexcept; \
  template Status conv2d<A, O>(const PackedConv2D&, const ConvCall<A, O>&) noexcept;            \
  template Status conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, std::size_t,   \
                                     std::size_t) noexcept;                                     \
  template Status conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, unsigned,      \
                                     std::size_t, std::size_t) noexcept;                        \
  template Status conv2d_threaded<A, O>(const PackedConv2D&, const ConvCall<A, O>&,             \
                                        unsigned) noexcept;                                     \
  template Status conv2d<A, O>(const Conv2DProblem<A, O>&, RoundingCore,                        \
                               AccumulatorSpec) noexcept;                                       \
  template Status depthwise_conv2d<A, O>(const PackedDepthwiseConv2D&,                          \
                                         const ConvCall<A, O>&) noexcept;                       \
  template Status depthwise_conv2d_tiles<A, O>(                                                 \
      const PackedDepthwiseConv2D&, const ConvCall<A, O>&, std::size_t, std::size_t) noexcept;  \
  template Status depthwise_conv2d_tiles<A, O>(const PackedDepthwiseConv2D&,                    \
                                               const ConvCall<A, O>&, unsigned, std::size_t,    \
                                               std::size_t) noexcept;                           \
  template Status depthwise_conv2d_threaded<A, O>(const PackedDepthwiseConv2D&,                 \
                                                  const ConvCall<A, O>&, unsigned) noexcept;    \
  template Status depthwise_conv2d<A, O>(const DepthwiseConv2DProblem<A, O>&, RoundingCore,     \
                                         AccumulatorSpec) noexcept;
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_NOTHROW_INSTANTIATE)
#undef QPARITY_NOTHROW_INSTANTIATE

}  // namespace nothrow
}  // namespace qparity
