// The body of a gemmlowp GEMM runner, compiled once per ISA. Include only from a per-ISA
// translation unit (gemmlowp_gemm_sse41.cc, gemmlowp_gemm_avx2.cc) after defining
//   QPARITY_GEMMLOWP_NS       a namespace name unique to that translation unit, and
//   QPARITY_GEMMLOWP_FACTORY  the name of the factory it defines (declared in gemmlowp_gemm.h),
//   QPARITY_GEMMLOWP_PER_CHANNEL  1 if this build can evaluate the per-channel output stage.
//
// Why the renamed namespace: gemmlowp is header-only, so every function it defines is an inline
// (COMDAT) symbol. Compiled twice with different -m flags under the same names, the linker would
// keep one copy for both, and the SSE4.1 path could call code compiled for AVX2. Renaming
// `gemmlowp` per translation unit gives each build its own symbols (as bench/gemmlowp_peer_*.cc
// do for fixedpoint.h). For the same reason this file uses no standard-library template with
// only standard or built-in arguments: such an instantiation would be shared with baseline code.
#if !defined(QPARITY_GEMMLOWP_NS) || !defined(QPARITY_GEMMLOWP_FACTORY) || \
    !defined(QPARITY_GEMMLOWP_PER_CHANNEL)
#error "define QPARITY_GEMMLOWP_NS, _FACTORY and _PER_CHANNEL before including this file"
#endif

#define gemmlowp QPARITY_GEMMLOWP_NS
#include "public/gemmlowp.h"

#undef gemmlowp

#include "bench/peers/gemmlowp_gemm.h"

namespace QPARITY_GEMMLOWP_NS {
namespace runner {

class Runner final : public qparity_peers::GemmlowpRunner {
 public:
  explicit Runner(const qparity_peers::GemmlowpRunnerArgs& args) : args_(args) {
    context_.set_max_num_threads(1);  // single-threaded, on the calling thread
  }

  void run(const std::uint8_t* a, std::uint8_t* c) override {
#if QPARITY_GEMMLOWP_PER_CHANNEL
    if (args_.per_channel) {
      OutputStageScaleInt32ByFixedPointAndExponentPC<VectorShape::Row> scale;
      scale.result_fixedpoint_multiplier =
          VectorMap<const std::int32_t, VectorShape::Row>(args_.multipliers, cols());
      scale.result_exponent =
          VectorMap<const std::int32_t, VectorShape::Row>(args_.exponents, cols());
      scale.result_offset_after_shift = args_.output_zero_point;
      run_pipeline(a, c, scale);
      return;
    }
#endif
    {
      OutputStageScaleInt32ByFixedPointAndExponent scale;
      scale.result_fixedpoint_multiplier = args_.multipliers[0];
      scale.result_exponent = args_.exponents[0];
      scale.result_offset_after_shift = args_.output_zero_point;
      run_pipeline(a, c, scale);
    }
  }

  const char* kernel_name() const override {
    return DefaultKernel<DefaultL8R8BitDepthParams>().Name();
  }

 private:
  int rows() const { return static_cast<int>(args_.m); }
  int cols() const { return static_cast<int>(args_.n); }
  int depth() const { return static_cast<int>(args_.k); }

  template <class ScaleStage>
  void run_pipeline(const std::uint8_t* a, std::uint8_t* c, const ScaleStage& scale) {
    const MatrixMap<const std::uint8_t, MapOrder::RowMajor> lhs(a, rows(), depth(), depth());
    // N x K row-major weights are the K x N right-hand side in column-major order.
    const MatrixMap<const std::uint8_t, MapOrder::ColMajor> rhs(args_.weights, depth(), cols(),
                                                                depth());
    MatrixMap<std::uint8_t, MapOrder::RowMajor> result(c, rows(), cols(), cols());
    const VectorDup<const std::int32_t, VectorShape::Col> lhs_offset(args_.lhs_offset, rows());
    const VectorMap<const std::int32_t, VectorShape::Row> rhs_offset(args_.rhs_offsets, cols());
    OutputStageBiasAddition<VectorMap<const std::int32_t, VectorShape::Row>> bias;
    bias.bias_vector = VectorMap<const std::int32_t, VectorShape::Row>(args_.bias, cols());
    OutputStageClamp clamp;
    clamp.min = args_.clamp_min;
    clamp.max = args_.clamp_max;
    const auto pipeline = std::make_tuple(bias, scale, clamp, OutputStageSaturatingCastToUint8());
    GemmWithOutputPipelinePC<std::uint8_t, std::uint8_t, DefaultL8R8BitDepthParams>(
        &context_, lhs, rhs, &result, lhs_offset, rhs_offset, pipeline);
  }

  qparity_peers::GemmlowpRunnerArgs args_;
  GemmContext context_;
};

}  // namespace runner
}  // namespace QPARITY_GEMMLOWP_NS

qparity_peers::GemmlowpRunner* qparity_peers::QPARITY_GEMMLOWP_FACTORY(
    const qparity_peers::GemmlowpRunnerArgs& args) {
  if (args.per_channel && !QPARITY_GEMMLOWP_PER_CHANNEL) return nullptr;
  return new QPARITY_GEMMLOWP_NS::runner::Runner(args);
}
