// gemmlowp's GEMM with its fixed-point output pipeline as a peer (libgemmlowp-dev, header-only,
// 2021-12 snapshot): prepared once, run any number of times on the calling thread.
//
// gemmlowp's x86 kernels take uint8 x uint8 operands (L8R8 bit depth) and produce uint8, so this
// peer is all-uint8: A (M x K) and the weights (N x K, row-major) are uint8 with zero points in
// [0, 255]. The pipeline is the one TFLite's gemmlowp back-end builds
// (tflite/kernels/cpu_backend_gemm_gemmlowp.h), evaluated by gemmlowp (docs/semantics.md §2.4):
//
//   acc = sum_k (a[m][k] - a_zp) * (w[n][k] - w_zp[n])         int32 (lhs/rhs offsets = -zp)
//   acc = acc + bias[n]                                        OutputStageBiasAddition
//   v   = RDBPOT(SRDHM(acc << max(e, 0), M), max(-e, 0)) + zp  OutputStageScaleInt32ByFixedPoint-
//                                                              AndExponent (or ...PC, per channel)
//   y   = saturate_u8(clamp(v, clamp_min, clamp_max))          OutputStageClamp, SaturatingCast
//
// Two builds of gemmlowp are linked in, each in its own translation unit and namespace: SSE4.1
// (SSE4_64_Kernel12x4Depth2) and AVX2 (AVX2_64_Kernel24x8Depth2, GEMMLOWP_ENABLE_AVX2). Only the
// one the CPU supports may be chosen. Per-channel multipliers and exponents need the AVX2 build:
// the SSE one cannot shift the lanes of a register by different exponents.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/peers/gemm_shape.h"
#include "kernels/support/aligned_buffer.h"

namespace qparity_peers {

using qparity::internal::AlignedBuffer;

enum class GemmlowpKernel : std::uint8_t { kSse41, kAvx2 };

const char* to_string(GemmlowpKernel kernel);

/// True if this CPU can run `kernel`.
bool gemmlowp_kernel_supported(GemmlowpKernel kernel);

/// The fastest kernel this CPU supports (AVX2 over SSE4.1); false if neither is supported.
bool best_gemmlowp_kernel(GemmlowpKernel* kernel);

struct GemmlowpQuantization {
  std::int32_t lhs_zero_point = 0;               ///< activations, [0, 255]
  std::vector<std::int32_t> rhs_zero_points{0};  ///< weights, 1 value or N, each in [0, 255]
  std::vector<std::int32_t> bias;                ///< empty or N values, accumulator units
  /// Q31 multipliers M in [0, 2^31 - 1] and exponents e (TFLite's shift, > 0 = left): 1 value
  /// (OutputStageScaleInt32ByFixedPointAndExponent) or N (the PC stage).
  std::vector<std::int32_t> multipliers{1 << 30};
  std::vector<std::int32_t> exponents{0};
  std::int32_t output_zero_point = 0;  ///< result_offset_after_shift
  std::int32_t clamp_min = 0;          ///< zero point included
  std::int32_t clamp_max = 255;
};

/// What the per-ISA translation units implement (gemmlowp_gemm_sse41.cc, gemmlowp_gemm_avx2.cc).
/// Only plain types cross this boundary, so nothing compiled for one ISA is shared with code
/// compiled for another.
class GemmlowpRunner {
 public:
  virtual ~GemmlowpRunner();  // defined in gemmlowp_gemm.cc, which holds the vtable
  virtual void run(const std::uint8_t* a, std::uint8_t* c) = 0;
  virtual const char* kernel_name() const = 0;
};

struct GemmlowpRunnerArgs {
  std::size_t m = 0, n = 0, k = 0;
  const std::uint8_t* weights = nullptr;      ///< N x K row-major (gemmlowp: K x N column-major)
  std::int32_t lhs_offset = 0;                ///< -lhs_zero_point
  const std::int32_t* rhs_offsets = nullptr;  ///< N values, -rhs_zero_point[n]
  const std::int32_t* bias = nullptr;         ///< N values
  bool per_channel = false;
  const std::int32_t* multipliers = nullptr;  ///< 1 or N values
  const std::int32_t* exponents = nullptr;    ///< 1 or N values
  std::int32_t output_zero_point = 0, clamp_min = 0, clamp_max = 255;
};

/// Factories of the per-ISA translation units; the caller owns the result (plain pointer: a
/// std::unique_ptr instantiated in an ISA translation unit would be a shared inline symbol).
GemmlowpRunner* new_gemmlowp_runner_sse41(const GemmlowpRunnerArgs& args);
GemmlowpRunner* new_gemmlowp_runner_avx2(const GemmlowpRunnerArgs& args);

class GemmlowpGemm {
 public:
  /// Prepares the GEMM for `shape` with `kernel`. `weights` is N x K row-major uint8 and is
  /// copied. Returns null and sets *error if the CPU cannot run `kernel` or a parameter is out of
  /// gemmlowp's range.
  static std::unique_ptr<GemmlowpGemm> create(const GemmShape& shape, const std::uint8_t* weights,
                                              const GemmlowpQuantization& q, GemmlowpKernel kernel,
                                              std::string* error);
  GemmlowpGemm(const GemmlowpGemm&) = delete;
  GemmlowpGemm& operator=(const GemmlowpGemm&) = delete;

  /// C (M x N, uint8) = the prepared product of A (M x K, uint8). gemmlowp packs both operands on
  /// every call: it has no persistent packed-weight form.
  void run(const std::uint8_t* a, std::uint8_t* c) { runner_->run(a, c); }

  /// gemmlowp's name for its kernel, e.g. "AVX, 24x8, depth 2".
  const char* kernel_name() const { return runner_->kernel_name(); }
  GemmlowpKernel kernel() const { return kernel_; }

 private:
  GemmlowpGemm() = default;
  GemmlowpKernel kernel_ = GemmlowpKernel::kSse41;
  AlignedBuffer<std::uint8_t> weights_;
  AlignedBuffer<std::int32_t> rhs_offsets_, bias_, multipliers_, exponents_;
  std::unique_ptr<GemmlowpRunner> runner_;
};

}  // namespace qparity_peers
