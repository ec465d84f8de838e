// The comparison every oracle test makes: a peer library's output C against qparity computing the
// same problem, element by element, tolerance 0.
//
// qparity's side is the header-only reference GEMM (qparity::reference::gemm) run with the
// preset's rounding core and accumulator model, and the compiled fast path too: a PackedGemm built from
// weights_of(problem) for every ISA path this CPU supports, then qparity::gemm(packed,
// call_of(problem)). A peer that disagrees with the reference is a wrong preset (or a wrong
// reference); a fast path that disagrees with the peer is a kernel bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/support/aligned_buffer.h"
#include "qparity/accumulator.h"
#include "qparity/reference_gemm.h"
#include "qparity/requant_params.h"

#include "qparity/gemm.h"
#include "qparity/isa.h"

namespace qparity_oracle {

/// Mismatches between the peer and one qparity path, with the first few for the message.
struct PathComparison {
  std::string path;  ///< "reference" or "fast/<isa>"
  std::size_t mismatches = 0;
  std::string first_mismatches;
};

struct OracleComparison {
  std::vector<PathComparison> paths;
  /// Distinct values in the peer's output (set by the conv comparisons): a case whose outputs all
  /// saturate to one or two values would compare nothing of interest.
  std::size_t peer_distinct_values = 0;

  std::size_t reference_mismatches() const {
    for (const PathComparison& p : paths) {
      if (p.path == "reference") return p.mismatches;
    }
    return 0;
  }

  /// Success iff every path agrees with the peer on every element.
  ::testing::AssertionResult all_equal() const {
    std::ostringstream msg;
    bool ok = true;
    for (const PathComparison& p : paths) {
      if (p.mismatches == 0) continue;
      ok = false;
      msg << "\n  " << p.path << ": " << p.mismatches << " elements differ from the peer;"
          << p.first_mismatches;
    }
    if (ok) return ::testing::AssertionSuccess() << paths.size() << " qparity path(s) agree";
    return ::testing::AssertionFailure() << msg.str();
  }
};

namespace detail {

template <class OutType>
PathComparison compare_outputs(const std::string& path, std::size_t m, std::size_t n,
                               const OutType* peer, const OutType* ours) {
  PathComparison r;
  r.path = path;
  std::ostringstream first;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t e = i * n + j;
      if (peer[e] == ours[e]) continue;
      if (r.mismatches < 8) {
        first << " C[" << i << "][" << j << "] peer " << static_cast<int>(peer[e]) << " qparity "
              << static_cast<int>(ours[e]) << ";";
      }
      ++r.mismatches;
    }
  }
  r.first_mismatches = first.str();
  return r;
}

}  // namespace detail

/// Compares `peer_c` (dense M x N) with qparity on `problem` (dense C; problem.c is ignored) under
/// rounding core `core` and accumulator model `accumulator`.
template <class AType, class OutType>
OracleComparison compare_with_qparity(qparity::GemmProblem<AType, OutType> problem,
                                      qparity::RoundingCore core,
                                      qparity::AccumulatorSpec accumulator, const OutType* peer_c) {
  OracleComparison result;
  const std::size_t size = problem.m * problem.n;
  problem.c_row_stride = 0;

  qparity::internal::AlignedBuffer<OutType> reference(size);
  problem.c = reference.data();
  qparity::reference::gemm(problem, core, accumulator);
  result.paths.push_back(
      detail::compare_outputs("reference", problem.m, problem.n, peer_c, reference.data()));

  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    qparity::internal::AlignedBuffer<OutType> fast(size);
    problem.c = fast.data();
    const qparity::PackedGemm packed(isa, qparity::weights_of(problem), core, accumulator);
    qparity::gemm(packed, qparity::call_of(problem));
    result.paths.push_back(detail::compare_outputs(std::string("fast/") + qparity::to_string(isa),
                                                   problem.m, problem.n, peer_c, fast.data()));
  }
  return result;
}

}  // namespace qparity_oracle
