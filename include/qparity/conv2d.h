// Fast conv2d with selectable, bit-exact arithmetic (compiled library, qparity::qparity).
//
// Exactly reference::conv2d (reference_conv2d.h) for every rounding core and accumulator model, on
// every ISA path: a 1x1 / stride-1 / unpadded convolution is a GEMM over the NHWC input as it
// stands; any other shape is an implicit GEMM whose activation rows are gathered tap by tap
// (input pixels located from the window geometry, the zero point for padding) into the GEMM
// micro-kernels' layout, block by block, never materialising the whole im2col matrix.
//
// Usage: pack once for a geometry, run as often as needed:
//
//   qparity::PackedConv2D conv(geometry, weights, qparity::RoundingCore::kDoubleRoundingAwayFromZero);
//   qparity::conv2d(conv, qparity::ConvCall<std::int8_t, std::int8_t>{input, in_zp, output, out});
//
// Threading: conv2d_tile_count() tiles; any partition of [0, count) run with conv2d_tiles() on any
// threads gives the same bits as one conv2d() call. A pool of T threads should ask for tiles cut
// for T (the forms with `threads`): the tiles conv2d_threaded(conv, call, T) runs.
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
struct PackedConv2DData;
struct PackedAccess;  // the library's kernels reach the packed data through it
}

/// A conv2d's filter packed for one geometry, ISA, rounding core and accumulator model. Immutable;
/// usable from any number of threads at once.
class PackedConv2D {
 public:
  /// Packs for active_isa(). Validates geometry and weights (throws InvalidArgument naming the
  /// parameter and its allowed range). The weights are copied.
  PackedConv2D(const Conv2DGeometry& geometry, const ConvWeights& weights, RoundingCore core,
               AccumulatorSpec accumulator = {});
  /// Packs for exactly `isa` (tests, benchmarks); throws if `isa` is not in supported_isas().
  PackedConv2D(Isa isa, const Conv2DGeometry& geometry, const ConvWeights& weights, RoundingCore core,
               AccumulatorSpec accumulator = {});
  ~PackedConv2D();
  PackedConv2D(PackedConv2D&&) noexcept;
  PackedConv2D& operator=(PackedConv2D&&) noexcept;
  PackedConv2D(const PackedConv2D&) = delete;
  PackedConv2D& operator=(const PackedConv2D&) = delete;

  const Conv2DGeometry& geometry() const;
  ResolvedWindow window() const;
  RoundingCore core() const;
  AccumulatorSpec accumulator() const;
  Isa isa() const;
  /// How this convolution runs, e.g. "1x1-gemm avx512vnni-dot4-8x32" or
  /// "implicit-gemm avx512vnni-dot4-8x32" (logs, benchmarks, tests).
  std::string kernel_name() const;
  std::size_t packed_bytes() const;

 private:
  friend struct internal::PackedAccess;
  std::unique_ptr<internal::PackedConv2DData> data_;
};

/// Runs the whole convolution on the calling thread. Validates the call.
template <class AType, class OutType>
void conv2d(const PackedConv2D& conv, const ConvCall<AType, OutType>& call);

/// The number of independent tiles of one run.
std::size_t conv2d_tile_count(const PackedConv2D& conv);

/// Runs tiles [begin, end) (end <= conv2d_tile_count(conv)). Validates the call.
template <class AType, class OutType>
void conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call, std::size_t begin,
                  std::size_t end);

/// The number of tiles of one run cut for `threads` threads that share them (0:
/// hardware_concurrency()): exactly the tiles conv2d_threaded(conv, call, threads) runs, each
/// group's rows cut into nearly equal blocks so that the threads finish together, as
/// gemm_tile_count(w, m, threads) (gemm.h) does; work too small for that many threads is cut for
/// fewer. threads = 1 gives the default tiles. A tile number means a tile of this cut only.
std::size_t conv2d_tile_count(const PackedConv2D& conv, unsigned threads);

/// Runs tiles [begin, end) cut for `threads` threads (end <= conv2d_tile_count(conv, threads));
/// any partition of [0, count) over any threads gives the same bits as conv2d(). Validates the
/// call and throws InvalidArgument (naming threads and the count) for a range past that count.
template <class AType, class OutType>
void conv2d_tiles(const PackedConv2D& conv, const ConvCall<AType, OutType>& call, unsigned threads,
                  std::size_t begin, std::size_t end);

/// Runs the call on up to `threads` threads (0: hardware_concurrency()), on the calling thread and
/// the library's reused worker pool, exactly as gemm_threaded() (gemm.h) does. Same bits as conv2d().
template <class AType, class OutType>
void conv2d_threaded(const PackedConv2D& conv, const ConvCall<AType, OutType>& call, unsigned threads);

/// One-shot: packs for the active ISA and runs.
template <class AType, class OutType>
void conv2d(const Conv2DProblem<AType, OutType>& p, RoundingCore core, AccumulatorSpec accumulator = {});

/// Compile-time selection: conv2d<DoubleRoundingAwayFromZero, SaturatingAccumulator<24>>(p).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
void conv2d(const Conv2DProblem<AType, OutType>& p) {
  conv2d(p, Policy::kCore, Accum::kSpec);
}

#define QPARITY_CONV2D_EXTERN(A, O)                                                              \
  extern template void conv2d<A, O>(const PackedConv2D&, const ConvCall<A, O>&);                \
  extern template void conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, std::size_t, \
                                          std::size_t);                                         \
  extern template void conv2d_tiles<A, O>(const PackedConv2D&, const ConvCall<A, O>&, unsigned,  \
                                          std::size_t, std::size_t);                            \
  extern template void conv2d_threaded<A, O>(const PackedConv2D&, const ConvCall<A, O>&, unsigned); \
  extern template void conv2d<A, O>(const Conv2DProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_CONV2D_EXTERN)
#undef QPARITY_CONV2D_EXTERN

}  // namespace qparity
