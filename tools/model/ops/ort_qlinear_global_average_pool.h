// ONNX Runtime's QLinearGlobalAveragePool arithmetic (MlasQLinearGlobalAveragePool), shared by MEAN
// over H and W (mean.cc: QLinearGlobalAveragePool and the groups ORT fuses into it) and
// AVERAGE_POOL_2D (pool2d.cc: QLinearAveragePool hands a window that is the whole image, no pads,
// to the same kernel). docs/semantics.md §22.2.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace qparity::model {

/// The float32 scale the kernel multiplies by, x_scale / (y_scale * pixels) in float32; ONNX
/// Runtime refuses pixels >= 2^24 and a scale outside [2^-32, 256) (ort_global_scale_allowed).
inline float ort_global_average_pool_scale(float x_scale, float y_scale, std::size_t pixels) {
  return x_scale / (y_scale * static_cast<float>(pixels));
}

inline bool ort_global_scale_allowed(float scale, std::size_t pixels) {
  return pixels < 0x1000000u && scale >= 0x1.0p-32f && scale < 256.0f;
}

/// MlasQLinearGlobalAveragePool's x86 kernels (onnxruntime/core/mlas/lib/qlgavgpool.cpp, SSE2; the
/// NHWC form the same) on an NHWC tensor [batch, pixels, channels]: the stored values summed
/// exactly in int32 with the bias -zi * pixels, converted to float32 and multiplied by `scale`
/// (ort_global_average_pool_scale), clamped in float to [lo - zo, hi - zo], converted with
/// round-half-even and the output zero point added (MlasRequantizeOutputVector).
template <class T>
void ort_qlinear_global_average_pool(const T* x, T* y, std::size_t batch, std::size_t pixels, std::size_t channels,
                                     std::int32_t zi, std::int32_t zo, float scale) {
  const float lo = static_cast<float>(static_cast<std::int32_t>(std::numeric_limits<T>::min()) - zo);
  const float hi = static_cast<float>(static_cast<std::int32_t>(std::numeric_limits<T>::max()) - zo);
  // int32 arithmetic that wraps like the kernel's vector adds (reachable only near 2^24 pixels).
  const auto bias = static_cast<std::uint32_t>(-static_cast<std::int64_t>(zi) * static_cast<std::int64_t>(pixels));
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t c = 0; c < channels; ++c) {
      std::uint32_t sum = bias;
      for (std::size_t p = 0; p < pixels; ++p) {
        sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(x[(b * pixels + p) * channels + c]));
      }
      const auto acc = static_cast<std::int32_t>(sum);
      float v = static_cast<float>(acc) * scale;
      v = std::min(std::max(v, lo), hi);
      y[b * channels + c] = static_cast<T>(static_cast<std::int32_t>(std::nearbyint(v)) + zo);
    }
  }
}

}  // namespace qparity::model
