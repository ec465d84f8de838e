#include "model/op_sample.h"

namespace qparity::model {

int SampleBuilder::input(const std::string& name, DType dtype, std::vector<std::size_t> shape,
                         float scale, std::int64_t zero_point) {
  Quantization q;
  if (scale > 0.0f) q = GraphBuilder::per_tensor(scale, zero_point);
  return input(name, dtype, std::move(shape), std::move(q));
}

int SampleBuilder::input(const std::string& name, DType dtype, std::vector<std::size_t> shape,
                         Quantization quant) {
  const int t = b_.tensor(name, dtype, std::move(shape), std::move(quant));
  b_.input(t);
  return t;
}

int SampleBuilder::constant(const std::string& name, DType dtype, std::vector<std::size_t> shape,
                            std::int64_t lo, std::int64_t hi, Quantization quant) {
  Tensor data = cli::make_tensor(dtype, std::move(shape));
  const std::int64_t span = hi - lo + 1;
  // A fixed walk with a stride coprime to most spans, so neighbouring elements differ.
  for (std::size_t i = 0; i < data.elements(); ++i) {
    data.set_integer(i, lo + static_cast<std::int64_t>((i * 37 + 11) % static_cast<std::size_t>(span)));
  }
  return b_.constant(name, std::move(data), std::move(quant));
}

int SampleBuilder::constant_values(const std::string& name, DType dtype, std::vector<std::size_t> shape,
                                   const std::vector<std::int64_t>& values) {
  Tensor data = cli::make_tensor(dtype, std::move(shape));
  for (std::size_t i = 0; i < data.elements() && i < values.size(); ++i) data.set_integer(i, values[i]);
  return b_.constant(name, std::move(data));
}

int SampleBuilder::output(const std::string& name, DType dtype, float scale, std::int64_t zero_point) {
  Quantization q;
  if (scale > 0.0f) q = GraphBuilder::per_tensor(scale, zero_point);
  const int t = b_.tensor(name, dtype, {}, std::move(q));
  b_.output(t);
  return t;
}

void SampleBuilder::node(OpKind op, std::vector<int> inputs, std::vector<int> outputs,
                         std::shared_ptr<const OpOptions> options) {
  b_.node(op, std::move(inputs), std::move(outputs), std::move(options), label_);
}

OpSample SampleBuilder::finish() { return OpSample{label_, b_.finish()}; }

Quantization sample_per_axis(float scale, std::size_t n, std::size_t axis) {
  std::vector<float> scales(n);
  for (std::size_t i = 0; i < n; ++i) scales[i] = scale * (1.0f + 0.125f * static_cast<float>(i % 5));
  return GraphBuilder::per_axis(std::move(scales), axis);
}

}  // namespace qparity::model
