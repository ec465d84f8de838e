// Uses of the header templates that validate, for no_exceptions_abi_test.cmake: compiled (never
// run) after every public header, so that their instantiations appear in the checked object.
#include <cstddef>
#include <cstdint>
#include <vector>

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

template <class T>
void use_ops() {
  using namespace qparity;
  using namespace qparity::reference;
  const std::vector<T> x;
  const std::vector<std::size_t> shape;
  const TensorQuant q{};
  (void)relu(x, make_relu_params<T>(ReluKind{}, q, q, ReluVariant{}));
  (void)elementwise(ElementwiseParams{}, shape, x, shape, x);
  (void)mean(x, shape, MeanSpec{}, q, q, MeanVariant{});
  (void)average_pool(x, Shape4{}, PoolWindow{}, q, q, Activation{}, AveragePoolVariant{});
  (void)max_pool(x, Shape4{}, PoolWindow{}, q, Activation{}, MaxPoolVariant{});
  (void)dequantize(quantize<T>(std::vector<float>(), q, QuantizeFloatVariant{}), q);
  (void)requantize<T, T>(x, make_requantize_params<T, T>(q, q, RequantizeVariant{}));
  (void)softmax<T, T>(x, 1, q, q, 1.0f, SoftmaxVariant{});
}

template void use_ops<std::int8_t>();
template void use_ops<std::uint8_t>();

template void use_reference<std::int8_t, std::int8_t>(qparity::RoundingCore,
                                                      qparity::AccumulatorSpec);
template void use_reference<std::uint8_t, std::int32_t>(qparity::RoundingCore,
                                                        qparity::AccumulatorSpec);

}  // namespace abi_check_uses
