// oneDNN's int8 convolution (libdnnl 2.6, the 2.x C++ API) as a peer: prepared once for a shape
// and a quantization (primitive descriptor, JIT kernel, filter reordered into the kernel's
// layout), then run any number of times. s8 or u8 activations, s8 filter, s8 or u8 output.
// Grouped and depthwise convolutions are oneDNN grouped convolutions (weights {G, OC/G, IC/G, KH,
// KW}; depthwise: G = in_channels, IC/G = 1), the filter given in TFLite's layout (OHWI = oneDNN's
// "gohwi"/"ohwi", depthwise 1HWO = "hwigo").
//
// Quantization: the two models of onednn_matmul.h (2.x "output scales" with the f32 bias in
// accumulator units added before the scale, or the 3.x two-step model assembled from 2.x
// attributes: float(s_in * s_w) as output scale, bias as a binary-add post-op in real units,
// activation as an eltwise post-op, 1 / s_out as an eltwise linear post-op), src and dst zero
// points (oneDNN 2.x convolution: one value each, passed at run time; no weight zero point).
// Padding: oneDNN pads with the source zero point (its kernels compensate the padded taps), i.e.
// a padded tap contributes nothing, as in TFLite.
//
// Compiled only when CMake found oneDNN (QPARITY_PEER_HAVE_ONEDNN); this header does not include
// dnnl.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/peers/conv_shape.h"
#include "bench/peers/onednn_matmul.h"

namespace qparity_peers {

struct OnednnConvQuantization {
  OnednnScaleModel model = OnednnScaleModel::kTwoStepScales;
  bool src_unsigned = false;        ///< u8 activations (else s8)
  bool dst_unsigned = false;        ///< u8 output (else s8)
  std::int32_t src_zero_point = 0;  ///< in the src type's range
  std::int32_t dst_zero_point = 0;  ///< in the dst type's range
  float src_scale = 1.0f;
  std::vector<float> wei_scales{1.0f};  ///< 1 value (per tensor) or out_channels
  float dst_scale = 1.0f;
  /// Empty, or out_channels f32 values: accumulator units (kOutputScales) or real units
  /// (kTwoStepScales).
  std::vector<float> bias;
  OnednnActivation activation = OnednnActivation::kNone;  ///< kTwoStepScales only
};

/// True when the CPU ISA oneDNN uses (dnnl::get_effective_cpu_isa, which ONEDNN_MAX_CPU_ISA caps)
/// has VNNI (AVX-512 VNNI and above, or AVX-VNNI). Without it oneDNN's int8 convolutions compute
/// differently (weights_scale_adjust below; u8 * s8 pair sums saturating in int16).
bool onednn_has_int8_vnni();

class OnednnConv {
 public:
  /// Prepares the convolution. `filter` is only read during this call. Returns null and sets
  /// *error when oneDNN rejects the problem or fails.
  static std::unique_ptr<OnednnConv> create(const ConvShape& shape, const std::int8_t* filter,
                                            const OnednnConvQuantization& q, std::string* error);
  ~OnednnConv();
  OnednnConv(const OnednnConv&) = delete;
  OnednnConv& operator=(const OnednnConv&) = delete;

  /// out (NHWC, int8_t or uint8_t per q.dst_unsigned) = the prepared convolution of `input` (NHWC,
  /// int8_t or uint8_t per q.src_unsigned). Throws std::runtime_error if oneDNN reports an error.
  void run(const void* input, void* out);

  /// oneDNN's name for the implementation it chose, e.g. "jit_int8:avx512_core_vnni".
  const std::string& implementation() const;

  /// The factor oneDNN's kernel multiplied the filter by when it reordered it (1 unless the
  /// weights memory descriptor carries a scale adjustment). oneDNN 2.x's int8 convolutions on CPUs
  /// without VNNI (e.g. `jit_uni_int8:avx2`) take s8 activations as u8 (+128) into VPMADDUBSW,
  /// whose int16 pair sums 255 * 127 * 2 would saturate; so they store the filter as
  /// round-half-even(w * 0.5) (saturated to int8), multiply the output scale by 2 and the 2.x
  /// bias by 0.5 (oneDNN's doc/advanced/int8_computations.md). The result is a different
  /// arithmetic from the same primitive on VNNI: this says which one ran; the filter itself is
  /// onednn_adjusted_filter (bench/peers/onednn_weight_adjust.h).
  float weights_scale_adjust() const;

 private:
  struct State;
  explicit OnednnConv(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace qparity_peers
