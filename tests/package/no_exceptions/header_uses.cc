// Uses of the header templates that validate, for no_exceptions_abi_test.cmake: compiled (never
// run) after every public header, so that their instantiations appear in the checked object.
#include <cstdint>

namespace abi_check_uses {

template <class A, class O>
void use_reference(qparity::RoundingCore core, qparity::AccumulatorSpec acc) {
  using namespace qparity;
  GemmProblem<A, O> g;
  reference::gemm(g, core, acc);
  reference::gemm<DoubleRoundingAwayFromZero, SaturatingAccumulator<24>>(g);
  Conv2DProblem<A, O> c;
  reference::conv2d(c, core, acc);
  reference::conv2d<SingleRoundingToEven, Int64Accumulator>(c);
  DepthwiseConv2DProblem<A, O> d;
  reference::depthwise_conv2d(d, core, acc);
  reference::depthwise_conv2d<Float32ZeroPointInside>(d);
  FullyConnectedWeights f;
  FullyConnectedCall<A, O> call;
  reference::fully_connected<Q15Rounding>(f, call);
  validate_conv_call(c.call);
}

template void use_reference<std::int8_t, std::int8_t>(qparity::RoundingCore,
                                                      qparity::AccumulatorSpec);
template void use_reference<std::uint8_t, std::int32_t>(qparity::RoundingCore,
                                                        qparity::AccumulatorSpec);

}  // namespace abi_check_uses
