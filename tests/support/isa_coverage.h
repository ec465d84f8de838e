// ISA coverage for the SIMD tests: every test that runs requantization paths iterates them through
// for_each_supported_isa(), which records each path it runs. A GoogleTest global environment
// (isa_coverage.cc, linked into every SIMD test binary) then fails the run
//   * at start-up, if QPARITY_EXPECT_ISAS (comma-separated ISA names, e.g.
//     "scalar,sse41,avx2,avx512,avx512vnni") names an ISA that is not in supported_isas(): CI sets
//     it so that a path silently missing from the build or from the runner's CPU is a failure, not
//     a skip;
//   * at exit, if the process ran at least one ISA sweep and some ISA in supported_isas() was
//     never exercised (ctest runs each GoogleTest case in its own process, so the check applies
//     per case; a process that runs no sweep, e.g. an argument-validation case, is not checked).
#pragma once

#include <string>
#include <vector>

#include "qparity/isa.h"

namespace qparity_test {

/// Records that a test ran `isa`. Called by for_each_supported_isa(); tests do not call it.
void note_isa_exercised(qparity::Isa isa);

/// ISAs recorded so far in this process.
qparity::IsaMask exercised_isas();

/// supported_isas() as a list, lowest first.
std::vector<qparity::Isa> supported_isa_list();

/// Calls f(isa) for every ISA in supported_isas(), lowest first, recording each one.
template <class F>
void for_each_supported_isa(F&& f) {
  for (qparity::Isa isa : supported_isa_list()) {
    note_isa_exercised(isa);
    f(isa);
  }
}

}  // namespace qparity_test
