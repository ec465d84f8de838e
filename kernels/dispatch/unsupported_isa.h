// INTERNAL: the error of a forced-ISA entry point given an ISA outside supported_isas().
#pragma once

#include <string>

#include "qparity/error.h"
#include "qparity/isa.h"

namespace qparity {
namespace internal {

/// What PackedGemm(isa, ...), PackedConv2D(isa, ...), PackedDepthwiseConv2D(isa, ...) and
/// requantize(isa, ...) throw for an ISA outside supported_isas(). Callers of the throwing API see
/// a qparity::InvalidArgument (that is all it is to them); the type of its own lets the
/// non-throwing API report StatusCode::kUnsupportedIsa (kernels/dispatch/nothrow.cc).
class UnsupportedIsa : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

/// Throws UnsupportedIsa("qparity: isa = <name> is not supported on this CPU or not compiled in")
/// unless `isa` is in supported_isas().
inline void require_supported(Isa isa) {
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw UnsupportedIsa(std::string("qparity: isa = ") + to_string(isa) +
                         " is not supported on this CPU or not compiled in");
  }
}

}  // namespace internal
}  // namespace qparity
