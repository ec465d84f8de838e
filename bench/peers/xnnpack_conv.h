// XNNPACK's signed 8-bit convolution operators as a peer (libxnnpack, Debian 12's 2022-02-16
// snapshot): prepared once (filter, bias and requantization parameters packed by XNNPACK), then run
// any number of times on the calling thread.
//
//   one kernel scale   xnn_create_convolution2d_nhwc_qs8 (per-tensor)
//   N kernel scales    xnn_create_convolution2d_nhwc_qc8 (per output channel; what TFLite's
//                      XNNPACK delegate runs for int8 models)
//   depthwise          the same operators with XNN_FLAG_DEPTHWISE_CONVOLUTION, groups =
//                      in_channels, 1 input and `multiplier` output channels per group, filter in
//                      XNNPACK's HWGo layout (= TFLite's 1HWO)
//
// XNNPACK picks the micro-kernel itself: a 1x1 stride-1 unpadded conv runs its GEMM, others the
// indirect GEMM (padding taps point at a buffer filled with the input zero point), depthwise 3x3 /
// 5x5 the dwconv "up" kernels. Arithmetic (fp32 requantization, docs/semantics.md §6): int32
// accumulator with the input zero point folded into the packed bias; scale[n] = input_scale *
// kernel_scale[n] / output_scale in float32; v = float(acc) * scale[n] clamped to
// [output_min - zp, output_max - zp], rounded half to even, + output zero point. Kernel (weight)
// zero point: 0, always.
//
// Compiled only when CMake found XNNPACK (QPARITY_PEER_HAVE_XNNPACK); this header does not include
// xnnpack.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/peers/conv_shape.h"

namespace qparity_peers {

struct XnnpackConvQuantization {
  std::int32_t input_zero_point = 0;  ///< int8 range
  float input_scale = 1.0f;
  /// 1 value: ..._qs8 (per tensor); out_channels values: ..._qc8 (per channel).
  std::vector<float> kernel_scales{1.0f};
  std::vector<std::int32_t> bias;      ///< empty or out_channels values, accumulator units
  std::int32_t output_zero_point = 0;  ///< int8 range
  float output_scale = 1.0f;
  std::int32_t output_min = -128;  ///< int8, zero point included; XNNPACK wants min < max
  std::int32_t output_max = 127;
};

class XnnpackConv {
 public:
  /// Prepares the operator. `filter` (OHWI, or 1HWO for depthwise) is only read during this call.
  /// Returns null and sets *error when XNNPACK cannot be initialised or rejects the problem.
  static std::unique_ptr<XnnpackConv> create(const ConvShape& shape, const std::int8_t* filter,
                                             const XnnpackConvQuantization& q, std::string* error);
  ~XnnpackConv();
  XnnpackConv(const XnnpackConv&) = delete;
  XnnpackConv& operator=(const XnnpackConv&) = delete;

  /// out (NHWC) = the prepared convolution of `input` (NHWC). Set up again only when the pointers
  /// differ from the previous call's. Throws std::runtime_error on an XNNPACK error.
  void run(const std::int8_t* input, std::int8_t* out);

  /// Runs on a pthreadpool of `threads` threads (the calling thread is one of them) from the next
  /// run() on; 1 (the default) runs on the calling thread without a pool. The pool is kept for
  /// every later run, as an engine keeps its pool. Throws std::runtime_error if it cannot be made.
  void set_threads(std::size_t threads);

  /// "convolution2d_nhwc_qc8" / "..._qs8", with " (depthwise)" for the depthwise flag.
  std::string operator_name() const;

 private:
  struct State;
  explicit XnnpackConv(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace qparity_peers
