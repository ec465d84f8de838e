// The filter oneDNN's int8 convolution computes with after its weight reorder multiplied it by a
// scale adjustment (OnednnConv::weights_scale_adjust: 0.5 on ISAs without int8 VNNI, so that
// VPMADDUBSW's int16 pair sums of u8 x s8 cannot saturate; 1 elsewhere). Header-only and free of
// oneDNN itself: the GEMM benchmark builds the same halved filter without oneDNN.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace qparity_peers {

/// round-half-even(w * adjust) in float (the reorder's conversion under the default rounding
/// mode), saturated to int8, for each of the n weights; adjust = 1 returns them unchanged.
inline std::vector<std::int8_t> onednn_adjusted_filter(const std::int8_t* w, std::size_t n,
                                                       float adjust) {
  std::vector<std::int8_t> out(w, w + n);
  if (adjust == 1.0f) return out;
  for (std::int8_t& v : out) {
    const float a = std::nearbyint(static_cast<float>(v) * adjust);
    v = static_cast<std::int8_t>(a < -128.0f ? -128.0f : (a > 127.0f ? 127.0f : a));
  }
  return out;
}

}  // namespace qparity_peers
