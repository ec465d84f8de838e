// Fast depthwise conv2d with selectable, bit-exact arithmetic (compiled library, qparity::qparity).
//
// Exactly reference::depthwise_conv2d (reference_conv2d.h) for every rounding core and accumulator
// model, on every ISA path: dedicated kernels vectorised over channels (3x3 and 5x5 specialised,
// any other window generic), with the SIMD requantization fused in their epilogue.
//
//   qparity::PackedDepthwiseConv2D dw(geometry, weights, qparity::RoundingCore::kSingleRoundingUpward);
//   qparity::depthwise_conv2d(dw, qparity::ConvCall<std::int8_t, std::int8_t>{input, in_zp, output, out});
//
// Threading: depthwise_conv2d_tile_count() tiles; any partition of [0, count) run with
// depthwise_conv2d_tiles() on any threads gives the same bits as one depthwise_conv2d() call.
// A pool of T threads should ask for tiles cut for T (the forms with `threads`): the tiles
// depthwise_conv2d_threaded(conv, call, T) runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "qparity/accumulator.h"
#include "qparity/conv_geometry.h"
#include "qparity/isa.h"
#include "qparity/reference_conv2d.h"
#include "qparity/type_pairs.h"

namespace qparity {

namespace internal {
struct PackedDepthwiseConv2DData;
struct PackedAccess;  // the library's kernels reach the packed data through it
}

/// A depthwise conv2d's filter packed for one geometry, ISA, rounding core and accumulator model. Immutable;
/// usable from any number of threads at once.
class PackedDepthwiseConv2D {
 public:
  /// Packs for active_isa(). Validates geometry and weights (throws InvalidArgument naming the
  /// parameter and its allowed range). The weights are copied.
  PackedDepthwiseConv2D(const DepthwiseConv2DGeometry& geometry, const ConvWeights& weights, RoundingCore core,
               AccumulatorSpec accumulator = {});
  /// Packs for exactly `isa` (tests, benchmarks); throws if `isa` is not in supported_isas().
  PackedDepthwiseConv2D(Isa isa, const DepthwiseConv2DGeometry& geometry, const ConvWeights& weights, RoundingCore core,
               AccumulatorSpec accumulator = {});
  ~PackedDepthwiseConv2D();
  PackedDepthwiseConv2D(PackedDepthwiseConv2D&&) noexcept;
  PackedDepthwiseConv2D& operator=(PackedDepthwiseConv2D&&) noexcept;
  PackedDepthwiseConv2D(const PackedDepthwiseConv2D&) = delete;
  PackedDepthwiseConv2D& operator=(const PackedDepthwiseConv2D&) = delete;

  const DepthwiseConv2DGeometry& geometry() const;
  ResolvedWindow window() const;
  RoundingCore core() const;
  AccumulatorSpec accumulator() const;
  Isa isa() const;
  /// The kernel this convolution runs, e.g. "avx512-dw3x3" (logs, benchmarks, tests).
  std::string kernel_name() const;
  std::size_t packed_bytes() const;

 private:
  friend struct internal::PackedAccess;
  std::unique_ptr<internal::PackedDepthwiseConv2DData> data_;
};

/// Runs the whole convolution on the calling thread. Validates the call.
template <class AType, class OutType>
void depthwise_conv2d(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call);

/// The number of independent tiles of one run.
std::size_t depthwise_conv2d_tile_count(const PackedDepthwiseConv2D& conv);

/// Runs tiles [begin, end) (end <= depthwise_conv2d_tile_count(conv)). Validates the call.
template <class AType, class OutType>
void depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call, std::size_t begin,
                  std::size_t end);

/// The number of tiles of one run cut for `threads` threads that share them (0:
/// hardware_concurrency()): exactly the tiles depthwise_conv2d_threaded(conv, call, threads) runs.
/// The default tiles are bands of the packing's height, which can split unevenly (112 rows in 7
/// bands: one of two threads gets 4); these are bands of the height that lets that many threads
/// finish together. Work too small for that many threads is cut for fewer; threads = 1 gives
/// the default tiles. A tile number means a tile of this cut only.
std::size_t depthwise_conv2d_tile_count(const PackedDepthwiseConv2D& conv, unsigned threads);

/// Runs tiles [begin, end) cut for `threads` threads (end <=
/// depthwise_conv2d_tile_count(conv, threads)); any partition of [0, count) over any threads
/// gives the same bits as depthwise_conv2d(). Validates the call and throws InvalidArgument
/// (naming threads and the count) for a range past that count.
template <class AType, class OutType>
void depthwise_conv2d_tiles(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call,
                            unsigned threads, std::size_t begin, std::size_t end);

/// Runs the call on up to `threads` threads (0: hardware_concurrency()), on the calling thread and
/// the library's reused worker pool, exactly as gemm_threaded() (gemm.h) does. Same bits as
/// depthwise_conv2d().
template <class AType, class OutType>
void depthwise_conv2d_threaded(const PackedDepthwiseConv2D& conv, const ConvCall<AType, OutType>& call, unsigned threads);

/// One-shot: packs for the active ISA and runs.
template <class AType, class OutType>
void depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p, RoundingCore core, AccumulatorSpec accumulator = {});

/// Compile-time selection: depthwise_conv2d<DoubleRoundingAwayFromZero, SaturatingAccumulator<24>>(p).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
void depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p) {
  depthwise_conv2d(p, Policy::kCore, Accum::kSpec);
}

#define QPARITY_DEPTHWISE_CONV2D_EXTERN(A, O)                                                              \
  extern template void depthwise_conv2d<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&);                \
  extern template void depthwise_conv2d_tiles<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&, std::size_t, \
                                          std::size_t);                                         \
  extern template void depthwise_conv2d_tiles<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&, unsigned, \
                                          std::size_t, std::size_t);                            \
  extern template void depthwise_conv2d_threaded<A, O>(const PackedDepthwiseConv2D&, const ConvCall<A, O>&, unsigned); \
  extern template void depthwise_conv2d<A, O>(const DepthwiseConv2DProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_DEPTHWISE_CONV2D_EXTERN)
#undef QPARITY_DEPTHWISE_CONV2D_EXTERN

}  // namespace qparity
