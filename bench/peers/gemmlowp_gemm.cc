// gemmlowp GEMM peer: validation, CPU checks and the choice of the per-ISA build (compiled for
// the baseline; gemmlowp itself is only included by the per-ISA translation units).
#include "bench/peers/gemmlowp_gemm.h"

#include <cstring>

namespace qparity_peers {

GemmlowpRunner::~GemmlowpRunner() = default;

const char* to_string(GemmlowpKernel kernel) {
  return kernel == GemmlowpKernel::kAvx2 ? "avx2" : "sse41";
}

bool gemmlowp_kernel_supported(GemmlowpKernel kernel) {
#if defined(QPARITY_PEER_GEMMLOWP_X86)
  // __builtin_cpu_supports also requires the OS to save the YMM state for AVX2.
  return kernel == GemmlowpKernel::kAvx2 ? __builtin_cpu_supports("avx2") != 0
                                         : __builtin_cpu_supports("sse4.1") != 0;
#else
  (void)kernel;
  return false;
#endif
}

bool best_gemmlowp_kernel(GemmlowpKernel* kernel) {
  for (GemmlowpKernel k : {GemmlowpKernel::kAvx2, GemmlowpKernel::kSse41}) {
    if (gemmlowp_kernel_supported(k)) {
      *kernel = k;
      return true;
    }
  }
  return false;
}

std::unique_ptr<GemmlowpGemm> GemmlowpGemm::create(const GemmShape& shape,
                                                   const std::uint8_t* weights,
                                                   const GemmlowpQuantization& q,
                                                   GemmlowpKernel kernel, std::string* error) {
  const auto fail = [&](const std::string& why) -> std::unique_ptr<GemmlowpGemm> {
    if (error != nullptr) {
      *error = std::string("gemmlowp (") + to_string(kernel) + ") " + to_string(shape) + ": " + why;
    }
    return nullptr;
  };
  if (!gemmlowp_kernel_supported(kernel)) return fail("not supported by this CPU or build");
  if (shape.m == 0 || shape.n == 0 || shape.k == 0) return fail("empty shape");
  // gemmlowp's maps index with int.
  if (shape.m > 0x7fffffff || shape.n > 0x7fffffff || shape.k > 0x7fffffff) {
    return fail("dimensions must fit in int");
  }
  const bool per_channel = q.multipliers.size() > 1;
  const std::size_t np = per_channel ? shape.n : 1;
  if (q.multipliers.size() != np || q.exponents.size() != np) {
    return fail("multipliers and exponents must both hold 1 value or N values");
  }
  if (per_channel && kernel == GemmlowpKernel::kSse41) {
    // gemmlowp's SSE RoundingDivideByPOT shifts a whole register by one exponent.
    return fail("gemmlowp's SSE4.1 build has no per-channel output stage");
  }
  if (q.rhs_zero_points.size() != 1 && q.rhs_zero_points.size() != shape.n) {
    return fail("rhs_zero_points must hold 1 or N values");
  }
  if (!q.bias.empty() && q.bias.size() != shape.n) {
    return fail("bias must be empty or hold N values");
  }
  const auto in_u8 = [](std::int32_t v) { return v >= 0 && v <= 255; };
  if (!in_u8(q.lhs_zero_point) || !in_u8(q.output_zero_point) || !in_u8(q.clamp_min) ||
      !in_u8(q.clamp_max) || q.clamp_min > q.clamp_max) {
    return fail("zero points and clamp bounds must be in [0, 255], clamp_min <= clamp_max");
  }
  for (std::size_t j = 0; j < np; ++j) {
    // SRDHM takes a non-negative Q31 multiplier; RoundingDivideByPOT shifts by at most 31.
    if (q.multipliers[j] < 0 || q.exponents[j] < -31 || q.exponents[j] > 30) {
      return fail("multiplier must be >= 0 and exponent in [-31, 30]");
    }
  }

  std::unique_ptr<GemmlowpGemm> g(new GemmlowpGemm());
  g->kernel_ = kernel;
  g->weights_ = AlignedBuffer<std::uint8_t>(shape.n * shape.k);
  std::memcpy(g->weights_.data(), weights, shape.n * shape.k);
  g->rhs_offsets_ = AlignedBuffer<std::int32_t>(shape.n);
  for (std::size_t j = 0; j < shape.n; ++j) {
    const std::int32_t zp = q.rhs_zero_points[q.rhs_zero_points.size() == 1 ? 0 : j];
    if (!in_u8(zp)) return fail("rhs zero points must be in [0, 255]");
    g->rhs_offsets_[j] = -zp;
  }
  // No bias is an all-zero bias stage: the pipeline keeps one shape.
  g->bias_ =
      q.bias.empty() ? AlignedBuffer<std::int32_t>(shape.n) : AlignedBuffer<std::int32_t>(q.bias);
  g->multipliers_ = AlignedBuffer<std::int32_t>(q.multipliers);
  g->exponents_ = AlignedBuffer<std::int32_t>(q.exponents);

  GemmlowpRunnerArgs args;
  args.m = shape.m;
  args.n = shape.n;
  args.k = shape.k;
  args.weights = g->weights_.data();
  args.lhs_offset = -q.lhs_zero_point;
  args.rhs_offsets = g->rhs_offsets_.data();
  args.bias = g->bias_.data();
  args.per_channel = per_channel;
  args.multipliers = g->multipliers_.data();
  args.exponents = g->exponents_.data();
  args.output_zero_point = q.output_zero_point;
  args.clamp_min = q.clamp_min;
  args.clamp_max = q.clamp_max;
#if defined(QPARITY_PEER_GEMMLOWP_X86)
  g->runner_.reset(kernel == GemmlowpKernel::kAvx2 ? new_gemmlowp_runner_avx2(args)
                                                   : new_gemmlowp_runner_sse41(args));
#endif
  if (!g->runner_) return fail("no gemmlowp build for this kernel");
  return g;
}

}  // namespace qparity_peers
