// oneDNN's int8 matmul (libdnnl, the 2.x C++ API of Debian 12's oneDNN 2.6) as a peer: prepared
// once for a shape and a quantization (primitive descriptor, JIT kernel, weights reordered into
// the kernel's layout), then run any number of times. s8 activations, s8 weights, s8 output.
//
// oneDNN 2.x has no per-argument scales for matmul (primitive_attr::set_scales(DNNL_ARG_SRC, ...)
// is accepted by the attribute but rejected by every matmul implementation; weight zero points
// are common-only). Its own quantization model is one "output scale" per tensor or per output
// channel with the f32 bias added BEFORE it. oneDNN 3.x replaced that with per-argument src / wei
// / dst scales and the f32 bias added AFTER the src x wei scale (docs/semantics.md §9), which is
// what the `onednn` preset reproduces. Both are offered here; the second is assembled from 2.x
// attributes, each float operation still performed by oneDNN's kernel:
//
//   kOutputScales (2.x):  v = float(acc)                 (acc: int32, zero points compensated)
//                         v = v + bias[n]                (primitive f32 bias, accumulator units)
//                         v = v * output_scale[n]        (attribute output_scales)
//                                where output_scale = float(float(src_scale * wei_scale[n]) /
//                                dst_scale)
//                         v = v + float(dst_zero_point);  y = saturate_s8(round_half_even(v))
//
//   kTwoStepScales (3.x): v = float(acc) * float(src_scale * wei_scale[n])   (output_scales)
//                         v = v + bias[n]                (binary add post-op, real units)
//                         v = activation(v)              (eltwise relu / clip post-op)
//                         v = v * (1.f / dst_scale)      (eltwise linear post-op, beta = 0)
//                         v = v + float(dst_zero_point);  y = saturate_s8(round_half_even(v))
//
// The eltwise linear post-op computes alpha * v + beta; with beta = 0 that is one float multiply
// even when the JIT fuses it into an FMA (fma(a, v, 0) rounds once, like a * v).
//
// This header does not include dnnl.hpp; it is only compiled when CMake found oneDNN
// (QPARITY_PEER_HAVE_ONEDNN).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/peers/gemm_shape.h"

namespace qparity_peers {

enum class OnednnScaleModel : std::uint8_t { kOutputScales, kTwoStepScales };

/// The activation applied in the real-valued domain (kTwoStepScales only).
enum class OnednnActivation : std::uint8_t {
  kNone,
  kRelu,   ///< eltwise_relu, alpha 0: max(v, 0)
  kRelu6,  ///< eltwise_clip [0, 6]
};

struct OnednnMatmulQuantization {
  OnednnScaleModel model = OnednnScaleModel::kTwoStepScales;
  std::int32_t src_zero_point = 0;  ///< int8 range
  std::int32_t wei_zero_point = 0;  ///< int8 range; oneDNN 2.x matmul: one value for all channels
  std::int32_t dst_zero_point = 0;  ///< int8 range
  float src_scale = 1.0f;
  std::vector<float> wei_scales{1.0f};  ///< 1 value (per tensor) or N (per output channel)
  float dst_scale = 1.0f;
  /// Empty, or N f32 values: accumulator units for kOutputScales, real units for kTwoStepScales.
  std::vector<float> bias;
  OnednnActivation activation = OnednnActivation::kNone;
};

class OnednnMatmul {
 public:
  /// Prepares the matmul for `shape`. `weights` is N x K row-major int8 and is only read during
  /// this call. Returns null and sets *error when oneDNN rejects the problem or fails.
  static std::unique_ptr<OnednnMatmul> create(const GemmShape& shape, const std::int8_t* weights,
                                              const OnednnMatmulQuantization& q,
                                              std::string* error);
  ~OnednnMatmul();
  OnednnMatmul(const OnednnMatmul&) = delete;
  OnednnMatmul& operator=(const OnednnMatmul&) = delete;

  /// C (M x N, row-major) = the prepared product of A (M x K, row-major). Throws std::runtime_error
  /// if oneDNN reports an error.
  void run(const std::int8_t* a, std::int8_t* c);

  /// oneDNN's name for the implementation it chose, e.g. "brg:avx512_core_vnni".
  const std::string& implementation() const;
  /// Bytes of the reordered weights (including oneDNN's s8 compensation).
  std::size_t packed_weight_bytes() const;

 private:
  struct State;
  explicit OnednnMatmul(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// True if oneDNN can create a CPU engine here; false with the reason otherwise. A peer that fails
/// this is skipped; one that passes and then rejects a problem is an error.
bool onednn_available(std::string* why);

/// "major.minor.patch" of the linked library.
std::string onednn_version();

/// The lowercase name of dnnl::get_effective_cpu_isa(), e.g. "avx512_core_bf16".
std::string onednn_effective_isa();

/// Caps oneDNN's ISA (dnnl::set_max_cpu_isa) to `isa`, a name as printed by
/// onednn_effective_isa(). Possible only once per process and before oneDNN generates any code;
/// returns false with *error otherwise.
bool onednn_cap_isa(const std::string& isa, std::string* error);

/// Limits oneDNN's parallel regions started from the calling thread to `threads` threads. Debian's
/// oneDNN uses OpenMP; this sets the calling thread's OpenMP thread count. Returns false when it
/// cannot (another threading runtime, or the peers were built without OpenMP).
bool onednn_set_max_threads(int threads);

/// oneDNN's thread count for one benchmark row or test: `threads` from construction (before the
/// primitive is created: some implementations fix their work split then) to destruction, then back
/// to one, the benchmarks' process-wide setting.
class OnednnThreadsScope {
 public:
  explicit OnednnThreadsScope(int threads) { onednn_set_max_threads(threads); }
  ~OnednnThreadsScope() { onednn_set_max_threads(1); }
  OnednnThreadsScope(const OnednnThreadsScope&) = delete;
  OnednnThreadsScope& operator=(const OnednnThreadsScope&) = delete;
};

/// Sets oneDNN's primitive cache capacity (0 disables it, so that creating a primitive always
/// generates its kernel) and returns the previous capacity.
int onednn_set_primitive_cache_capacity(int capacity);

}  // namespace qparity_peers
