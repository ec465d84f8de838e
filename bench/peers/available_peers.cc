// The list of compiled-in peers, from the QPARITY_PEER_HAVE_* definitions CMake sets.
#include "bench/peers/available_peers.h"

namespace qparity_peers {

std::string compiled_peers() {
  std::string list;
  const auto add = [&](const char* name) {
    if (!list.empty()) list += ",";
    list += name;
  };
#if defined(QPARITY_PEER_HAVE_ONEDNN)
  add("onednn");
#endif
#if defined(QPARITY_PEER_HAVE_XNNPACK)
  add("xnnpack");
#endif
#if defined(QPARITY_PEER_HAVE_GEMMLOWP)
  add("gemmlowp");
#endif
  (void)add;
  return list;
}

}  // namespace qparity_peers
