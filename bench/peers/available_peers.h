// Which peers this build of qparity_bench_peers contains: CMake compiles a peer in only when it
// finds the library (bench/peers/CMakeLists.txt), so a missing peer is absent, not broken.
#pragma once

#include <string>

namespace qparity_peers {

/// "onednn,xnnpack,gemmlowp" minus the peers this build lacks ("" if none).
std::string compiled_peers();

}  // namespace qparity_peers
