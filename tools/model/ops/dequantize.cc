// DEQUANTIZE: int8 / uint8 -> float32, x = float(s * (q - zp)), and float16 -> float32. The arithmetic is
// include/qparity/reference/quantize.h dequantize_value (docs/semantics.md §21.10). An 8-bit input
// has 256 values: prepare() evaluates the reference on all of them and Engine::kFast looks them up;
// Engine::kReference calls it per element.
//
// System -> variant: one formula for every system. TFLite's reference / optimized kernels and TFLM
// (reference/dequantize.h: static_cast<float>(double(s) * (q - zp))) and XNNPACK's qs8-f32-vcvt /
// qu8-f32-vcvt (float(q - zp) * s in float32; x86, ARM and wasm kernels alike) all round the exact
// product once: |q - zp| <= 255 needs 9 bits and s has 24, so the double product is exact and
// float32(q - zp) too. The NPU hypothesis and the float32 style compute the same real number the
// same way. Measured (LiteRT.js 2.5.3, both paths, every stored value at 4 quantizations, §21.10).
//
// Per axis (ONNX's DequantizeLinear): each index of the input's axis with its own scale and zero
// point, the same formula, under ONNX Runtime's systems only (TFLite's per-channel DEQUANTIZE is
// not modelled: the other systems refuse it when preparing). Measured bit-exact against ORT 1.30
// (docs/semantics.md §22.2).
//
// XNNPACK's delegate (xnnpack_takes; TF 2.x VisitDequantizeNode, LiteRT's unary visitor measured
// with LiteRT.js): int8 / uint8 with one scale (LiteRT.js also takes a quantized_dimension other
// than 0, measured) to float32, at most 6 dimensions (XNN_MAX_TENSOR_DIMS; measured: rank 7 sends
// DEQUANTIZE to TFLite's kernel). A constant input is unpacked by the delegate at preparation
// (DequantizeInt8, the same product).
//
// float16 -> float32 (Float16DequantizePrepared): TFLite's post-training float16 quantization
// stores a float model's weights as FLOAT16 constants, each followed by a DEQUANTIZE to FLOAT32
// (tflite/kernels/dequantize.cc: kTfLiteFloat16 input, reference_ops::Dequantize's Eigen::half ->
// float conversion). Every binary16 value is a float32 value, so the conversion is exact
// (float16_to_float, include/qparity/float_formats.h) and the same under every arithmetic: the op
// is data movement for the runner (FloatSupport::kDataMovement), and the float precision of the
// op that reads the result rounds it to its storage format as it rounds any float32 input. The
// 8-bit forms stay integer-arithmetic ops: under a float precision check_system_fits names the
// int8 / uint8 input as what it does not run.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "model/op.h"
#include "model/ops/op_variants.h"
#include "preset_params.h"
#include "qparity/float_formats.h"
#include "qparity/reference/quantize.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

class DequantizePrepared : public PreparedNode {
 public:
  DequantizePrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]), fast_(engine == Engine::kFast) {
    const TensorDef& in = input_def(g, n, 0);
    type_ = in.dtype;
    q_ = tensor_quant(in);
    axis_ = axis_quant(in);
    if (in.quant.per_axis() && !is_onnxruntime_system(sys)) {
      node_error(g, n, fmt::format("input '{}' is quantized per axis (ONNX DequantizeLinear); allowed under ONNX "
                                   "Runtime's profiles (ort-cpu*) only, not {}: qparity does not model the other "
                                   "runtimes' per-channel DEQUANTIZE",
                                   in.name, sys.name));
    }
    try {
      for (const reference::TensorQuant& q : axis_.channels) reference::detail::require_scale("input scale", q.scale);
    } catch (const InvalidArgument& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
    tables_.resize(axis_.channels.size());
    with_8bit_type(type_, [&](auto tag) {
      using T = decltype(tag);
      for (std::size_t c = 0; c < axis_.channels.size(); ++c) {
        for (int v = reference::type_min<T>(); v <= reference::type_max<T>(); ++v) {
          tables_[c][static_cast<std::uint8_t>(v)] = reference::dequantize_value<T>(static_cast<T>(v), axis_.channels[c]);
        }
      }
    });
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    float* y = data_of<float>(out);
    // One run of `inner` elements per (outer index, channel): the whole tensor when per tensor.
    const std::size_t channels = axis_.channels.size(), inner = axis_.inner;
    for (std::size_t run = 0; run < axis_.outer * channels; ++run) {
      const std::size_t c = run % channels, base = run * inner;
      if (fast_) {
        const std::array<float, 256>& table = tables_[c];
        for (std::size_t i = 0; i < inner; ++i) y[base + i] = table[in.bytes[base + i]];
        continue;
      }
      with_8bit_type(type_, [&](auto tag) {
        using T = decltype(tag);
        const T* x = data_of<T>(in) + base;
        for (std::size_t i = 0; i < inner; ++i) y[base + i] = reference::dequantize_value<T>(x[i], axis_.channels[c]);
      });
    }
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name),
            "dequantize_value (include/qparity/reference/quantize.h): x = float(s * (q - zp)), one rounding of the exact "
            "product (the same for every system)",
            axis_.channels.size() > 1
                ? fmt::format("per axis: {} scales and zero points (the first s = {}, zp = {})", axis_.channels.size(),
                              q_.scale, q_.zero_point)
                : fmt::format("s = {}, zp = {}", q_.scale, q_.zero_point)};
  }

 private:
  System system_;
  int in_, out_;
  bool fast_;
  DType type_{};
  reference::TensorQuant q_;
  AxisQuant axis_;                               // the input's quantization per channel
  std::vector<std::array<float, 256>> tables_;  // per channel: every stored value dequantized
};

// float16 -> float32: exact, the same for every system (the top of this file).
class Float16DequantizePrepared : public PreparedNode {
 public:
  Float16DequantizePrepared(const Node& n, const System& sys) : system_(sys), in_(n.inputs[0]), out_(n.outputs[0]) {}

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const std::uint16_t* x = data_of<std::uint16_t>(in);
    float* y = data_of<float>(out);
    for (std::size_t i = 0, count = in.elements(); i < count; ++i) y[i] = float16_to_float(x[i]);
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name),
            "float16 -> float32: float16_to_float (include/qparity/float_formats.h), exact for every value (the same for "
            "every system)"};
  }

 private:
  System system_;
  int in_, out_;
};

class DequantizeOp : public Op {
 public:
  // float16 -> float32 is exact data movement; an 8-bit input under a float precision is an error
  // (check_system_fits: a float precision is for float tensors).
  FloatSupport float_support() const override { return FloatSupport::kDataMovement; }

  std::vector<OpSample> samples() const override {
    std::vector<OpSample> out;
    for (const DType d : {DType::kInt8, DType::kUint8}) {
      SampleBuilder b(d == DType::kInt8 ? "int8 -> float32" : "uint8 -> float32");
      const int x = b.input("x", d, {2, 16}, 0.05f, d == DType::kInt8 ? -3 : 128);
      const int y = b.output("y", DType::kFloat32);
      b.node(OpKind::kDequantize, {x}, {y});
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 1, 1, 1);
    const TensorDef& in = input_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8, DType::kFloat16});
    // Per axis: ONNX's DequantizeLinear (prepare() takes it under ONNX Runtime's profiles).
    if (in.dtype != DType::kFloat16) require_per_tensor_or_axis(g, n, in, "input");
    require_dtype(g, n, output_def(g, n, 0), "output", {DType::kFloat32});
    set_output_shape(g, n, 0, in.shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    check_system_fits(g, n, sys);
    if (input_def(g, n, 0).dtype == DType::kFloat16) return std::make_unique<Float16DequantizePrepared>(n, sys);
    return std::make_unique<DequantizePrepared>(g, n, sys, engine);
  }

  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const TensorDef& in = input_def(g, n, 0);
    return in.quant.scales.size() == 1 && in.shape.size() <= kXnnpackMaxRank;
  }
};

}  // namespace

const Op& dequantize_op() {
  static const DequantizeOp op;
  return op;
}

}  // namespace qparity::model
