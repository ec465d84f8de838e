// Fast int8 GEMM with selectable, bit-exact arithmetic (compiled library, qparity::qparity).
//
//   C[i][j] = cast<Out>(clamp(core(accumulate(A[i][:] - a_zp, B[:][j] - b_zp[j]) + bias[j]) + c_zp))
//
// exactly as reference::gemm (reference_gemm.h) defines it, for every rounding core and every
// accumulator model, on every ISA path; the test suite checks each path against the reference.
//
// Usage: pack the weights once (PackedGemm: B in the micro-kernel layout, column sums for the
// zero-point and +128 compensation, the bias and the requantization parameters), then run it on
// as many activation matrices as needed:
//
//   qparity::PackedGemm w(weights, qparity::RoundingCore::kDoubleRoundingAwayFromZero);
//   qparity::gemm(w, qparity::GemmCall<std::int8_t, std::int8_t>{m, a, 0, a_zp, out, c, 0});
//
// An inference engine with its own thread pool splits the work into tiles: gemm_tile_count()
// tiles, any partition of [0, count) run with gemm_tiles() on any threads gives the same bits as
// one gemm() call (tiles write disjoint parts of C and each computes its elements in a fixed
// order). gemm_threaded() is a convenience that does this on the library's own worker threads.
// A pool of T threads should ask for tiles cut for T (the forms with `threads`): the same tiles
// gemm_threaded(w, call, T) runs, sized so that T threads share them evenly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "qparity/accumulator.h"
#include "qparity/isa.h"
#include "qparity/output_stage.h"
#include "qparity/reference_gemm.h"
#include "qparity/requant_params.h"
#include "qparity/type_pairs.h"

namespace qparity {

/// The weight side of a GEMM (known when a model is prepared): B is K x N int8 in either layout.
struct GemmWeights {
  std::size_t n = 0, k = 0;
  const std::int8_t* b = nullptr;
  WeightLayout layout = WeightLayout::kNxK;
  std::size_t row_stride = 0;  ///< elements between rows of the stored matrix; 0 = dense
  /// Weight zero points: null (all 0), one value, or N values (zero_point_per_channel).
  const std::int32_t* zero_points = nullptr;
  bool zero_point_per_channel = false;
  const std::int32_t* bias = nullptr;  ///< N int32 values in the accumulator's scale, or null
  /// One RequantParams (per-tensor) or N (per_channel).
  const RequantParams* params = nullptr;
  bool per_channel = false;
};

/// The activation side of one run: A is M x K, C is M x N.
template <class AType, class OutType>
struct GemmCall {
  std::size_t m = 0;
  const AType* a = nullptr;
  std::size_t a_row_stride = 0;  ///< 0 = K
  std::int32_t a_zero_point = 0;
  OutputParams output{};
  OutType* c = nullptr;
  std::size_t c_row_stride = 0;  ///< 0 = N
};

namespace internal {
struct PackedGemmData;
struct PackedAccess;  // the library's kernels reach the packed data through it
}

/// Weights packed for one ISA path, one rounding core and one accumulator model. Immutable after
/// construction; one PackedGemm may be used by any number of threads at once.
class PackedGemm {
 public:
  /// Packs for the dispatching ISA (active_isa()). Validates everything (throws InvalidArgument
  /// naming the parameter and its allowed range). The weights are copied: `w`'s buffers may be
  /// freed afterwards.
  PackedGemm(const GemmWeights& w, RoundingCore core, AccumulatorSpec accumulator = {});
  /// Packs for exactly `isa` (tests, benchmarks); throws if `isa` is not in supported_isas().
  PackedGemm(Isa isa, const GemmWeights& w, RoundingCore core, AccumulatorSpec accumulator = {});
  ~PackedGemm();
  PackedGemm(PackedGemm&&) noexcept;
  PackedGemm& operator=(PackedGemm&&) noexcept;
  PackedGemm(const PackedGemm&) = delete;
  PackedGemm& operator=(const PackedGemm&) = delete;

  std::size_t n() const;
  std::size_t k() const;
  RoundingCore core() const;
  AccumulatorSpec accumulator() const;
  Isa isa() const;
  /// The main micro-kernel, e.g. "avx512vnni-dot4-8x32" (for logs and benchmarks).
  std::string kernel_name() const;
  /// The micro-kernel a call with m rows uses (a few-row kernel may serve small m, possibly of a
  /// parent ISA: on AMX, AVX-512 VNNI's).
  std::string kernel_name(std::size_t m) const;
  /// Bytes of packed data held.
  std::size_t packed_bytes() const;

 private:
  friend struct internal::PackedAccess;
  std::unique_ptr<internal::PackedGemmData> data_;
};

/// Runs the whole product on the calling thread. Validates the call (sizes, pointers, strides,
/// zero point, output parameters against OutType).
template <class AType, class OutType>
void gemm(const PackedGemm& w, const GemmCall<AType, OutType>& call);

/// The number of independent tiles of a call with m rows: row blocks of the packing's default
/// height x column blocks (the tiles gemm() runs one after the other).
std::size_t gemm_tile_count(const PackedGemm& w, std::size_t m);

/// Runs tiles [begin, end) of the call (end <= gemm_tile_count(w, call.m)). Validates the call.
template <class AType, class OutType>
void gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, std::size_t begin,
                std::size_t end);

/// The number of tiles of a call with m rows cut for `threads` threads that share them (an
/// engine's pool of that many threads; 0: std::thread::hardware_concurrency()): exactly the tiles
/// gemm_threaded(w, call, threads) runs. The default tiles can split unevenly (256 x 256 x 256
/// has three row blocks: one of two threads gets two of them); these are the rows cut into more,
/// nearly equal blocks, so that the threads finish together whether they claim tiles in order
/// or each take a contiguous range of about count / threads tiles. Work too small for that many
/// threads to pay (gemm_threaded's threshold) is cut for fewer, down to the default tiles (a
/// count of 1: run it on the calling thread). threads = 1 gives the default tiles.
/// A tile number means a tile of this cut only: pass the same m and threads to gemm_tiles.
std::size_t gemm_tile_count(const PackedGemm& w, std::size_t m, unsigned threads);

/// Runs tiles [begin, end) of the call cut for `threads` threads (end <=
/// gemm_tile_count(w, call.m, threads)); any partition of [0, count) over any threads, in any
/// order, gives the same bits as gemm(). Validates the call and throws InvalidArgument (naming m,
/// threads and the count) for a range past that count: tiles counted with other threads or m.
template <class AType, class OutType>
void gemm_tiles(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads,
                std::size_t begin, std::size_t end);

/// Runs the call on up to `threads` threads (0: std::thread::hardware_concurrency()): the calling
/// thread and the workers of a process-wide pool, started at the first call that needs them and
/// reused by every later call (joined at process exit). The calling thread runs alone when the
/// work is too small for a second thread to pay (under 2^19 multiply-accumulates), and when the
/// pool is busy with another call: calls from several threads at once, and calls from inside a
/// threaded call, are safe and never wait for each other. Same bits as gemm() in every case.
/// Throws what gemm() throws, or std::system_error when a worker thread cannot start.
template <class AType, class OutType>
void gemm_threaded(const PackedGemm& w, const GemmCall<AType, OutType>& call, unsigned threads);

/// One-shot convenience: packs `g`'s weights for the active ISA and runs it. Prefer PackedGemm
/// when the weights are reused.
template <class AType, class OutType>
void gemm(const GemmProblem<AType, OutType>& g, RoundingCore core, AccumulatorSpec accumulator = {});

/// Compile-time selection: gemm<DoubleRoundingAwayFromZero, SaturatingAccumulator<24>>(g).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
void gemm(const GemmProblem<AType, OutType>& g) {
  gemm(g, Policy::kCore, Accum::kSpec);
}

/// The weight half of a GemmProblem (shared by the one-shot entry points and tests).
template <class AType, class OutType>
GemmWeights weights_of(const GemmProblem<AType, OutType>& g) {
  GemmWeights w;
  w.n = g.n;
  w.k = g.k;
  w.b = g.b;
  w.layout = g.b_layout;
  w.row_stride = g.b_row_stride;
  w.zero_points = g.b_zero_points;
  w.zero_point_per_channel = g.b_zero_point_per_channel;
  w.bias = g.bias;
  w.params = g.params;
  w.per_channel = g.per_channel;
  return w;
}

/// The activation half of a GemmProblem.
template <class AType, class OutType>
GemmCall<AType, OutType> call_of(const GemmProblem<AType, OutType>& g) {
  return GemmCall<AType, OutType>{g.m, g.a, g.a_row_stride, g.a_zero_point, g.output, g.c,
                                  g.c_row_stride};
}

#define QPARITY_GEMM_EXTERN(A, O)                                                              \
  extern template void gemm<A, O>(const PackedGemm&, const GemmCall<A, O>&);                  \
  extern template void gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, std::size_t, \
                                        std::size_t);                                         \
  extern template void gemm_tiles<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned,    \
                                        std::size_t, std::size_t);                            \
  extern template void gemm_threaded<A, O>(const PackedGemm&, const GemmCall<A, O>&, unsigned); \
  extern template void gemm<A, O>(const GemmProblem<A, O>&, RoundingCore, AccumulatorSpec);
QPARITY_FOR_EACH_TYPE_PAIR(QPARITY_GEMM_EXTERN)
#undef QPARITY_GEMM_EXTERN

}  // namespace qparity
