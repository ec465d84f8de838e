// XNNPACK's signed 8-bit fully-connected operator as a peer (libxnnpack, Debian 12's snapshot of
// 2022-02-16): prepared once (weights, bias and requantization parameters packed by XNNPACK),
// then run any number of times on the calling thread.
//
// That snapshot's public API has one quantized fully-connected operator,
// xnn_create_fully_connected_nc_qs8, with ONE kernel scale (per tensor); there is no
// xnn_create_fully_connected_nc_qc8 yet. Per-channel kernel scales exist only on the convolution
// operator (xnn_create_convolution2d_nhwc_qc8), so per-channel problems run as a 1x1 convolution
// over M pixels: XNNPACK lowers a 1x1, stride-1, unpadded convolution to the same GEMM
// micro-kernels, with the per-channel scales packed next to the weights.
//
// Arithmetic (both operators, fp32 requantization; docs/semantics.md §6): int32 accumulator with
// the input zero point folded into the packed bias; scale[n] = input_scale * kernel_scale[n] /
// output_scale in float32; v = float(acc) * scale[n] clamped to [output_min - zp, output_max - zp],
// rounded half to even, + output zero point. Kernel (weight) zero point: 0, always.
//
// This header does not include xnnpack.h; it is only compiled when CMake found XNNPACK
// (QPARITY_PEER_HAVE_XNNPACK).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/peers/gemm_shape.h"

namespace qparity_peers {

struct XnnpackFcQuantization {
  std::int32_t input_zero_point = 0;  ///< int8 range
  float input_scale = 1.0f;
  /// 1 value: xnn_create_fully_connected_nc_qs8; N values: 1x1 xnn_create_convolution2d_nhwc_qc8.
  std::vector<float> kernel_scales{1.0f};
  std::vector<std::int32_t> bias;      ///< empty or N values, accumulator units
  std::int32_t output_zero_point = 0;  ///< int8 range
  float output_scale = 1.0f;
  std::int32_t output_min = -128;  ///< int8, zero point included; XNNPACK wants min < max
  std::int32_t output_max = 127;
};

class XnnpackFullyConnected {
 public:
  /// Prepares the operator for `shape`. `weights` is N x K row-major int8 and is only read during
  /// this call. Returns null and sets *error when XNNPACK cannot be initialised or rejects the
  /// problem (e.g. a requantization scale outside its range).
  static std::unique_ptr<XnnpackFullyConnected> create(const GemmShape& shape,
                                                       const std::int8_t* weights,
                                                       const XnnpackFcQuantization& q,
                                                       std::string* error);
  ~XnnpackFullyConnected();
  XnnpackFullyConnected(const XnnpackFullyConnected&) = delete;
  XnnpackFullyConnected& operator=(const XnnpackFullyConnected&) = delete;

  /// C (M x N) = the prepared product of A (M x K). The operator is set up again only when the
  /// pointers differ from the previous call's. Throws std::runtime_error on an XNNPACK error.
  void run(const std::int8_t* a, std::int8_t* c);

  /// Runs on a pthreadpool of `threads` threads (the calling thread is one of them) from the next
  /// run() on; 1 (the default) runs on the calling thread without a pool. The pool is kept for
  /// every later run, as an engine keeps its pool. Throws std::runtime_error if it cannot be made.
  void set_threads(std::size_t threads);

  /// "fully_connected_nc_qs8" or "convolution2d_nhwc_qc8 (1x1)".
  const char* operator_name() const;

 private:
  struct State;
  explicit XnnpackFullyConnected(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Initialises XNNPACK (once per process). False, with the reason, if it cannot run here: a peer
/// that fails this is skipped; one that passes and then rejects a problem is an error.
bool xnnpack_available(std::string* why);

/// The x86 micro-kernel family XNNPACK selects for qs8/qc8 GEMMs on this CPU ("avx512skx", "xop",
/// "avx2", "avx", "sse41", "sse2"), by the rule of its src/init.c. XNNPACK does not report the
/// kernel it chose; this applies its selection order to the CPU's features.
std::string xnnpack_gemm_isa();

}  // namespace qparity_peers
