// How the ops beyond convolution (pooling, MEAN, QUANTIZE, DEQUANTIZE, RELU / RELU6) read a system
// (system.h) into the parameters of their reference variants (include/qparity/reference/*.h): the
// TFLite build, the NPU hypothesis, XNNPACK's tensor rules, element-type dispatch and describe()
// wording shared by their files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/op.h"
#include "model/system.h"
#include "qparity/reference/op_common.h"

namespace qparity::model {

/// Which build of TFLite's MultiplyByQuantizedMultiplier a system's TFLite kernels run: single
/// rounding (TFLITE_SINGLE_ROUNDING=1) when the preset's core is SR-UP (tflite-single,
/// cmsis-nn-single, tosa-single), the default double rounding otherwise. ruy's presets (ruy-x86,
/// ruy-arm) name ruy's own GEMM rounding, not the build of TFLite's other kernels, which is the
/// default one.
TfliteBuild tflite_build_of(const Preset& preset);
const char* to_string(TfliteBuild build);

/// The NPU hypothesis of a kNpu system: the tie rule of the preset's single-rounding core
/// (SR-UP -> HU, SR-AZ -> HAZ, SR-EVEN -> HE, TRUNC -> TZ, FLOOR -> FL) and the precision of its
/// multiplier derivation (Q31, Q15 direct, 24-bit float mantissa): make_npu_preset inverted.
reference::NpuHypothesis npu_hypothesis_of(const Preset& preset);
/// "round half to even, Q15 multiplier" style text.
std::string npu_text(const reference::NpuHypothesis& h);

/// Whether `system` is one of ONNX Runtime's (presets onnxruntime, onnxruntime-qdq-float and
/// onnxruntime-pairsat16: every ort-cpu* profile), whose ops run ORT's own kernels' arithmetic.
bool is_onnxruntime_system(const System& system);

/// The tensor's affine quantization as the references take it (the first scale and zero point).
reference::TensorQuant tensor_quant(const TensorDef& t);

/// A tensor's quantization per index of its quantized axis and the runs of elements that share one,
/// the elements being outer x channels.size() x inner in row-major order (ONNX's per-axis
/// QuantizeLinear / DequantizeLinear). A per-tensor quantization is one channel, inner = every element.
struct AxisQuant {
  std::vector<reference::TensorQuant> channels;
  std::size_t outer = 1, inner = 1;
};
AxisQuant axis_quant(const TensorDef& t);

/// XNNPACK's delegate on an 8-bit tensor (CheckTensorQInt8OrQUInt8Type /
/// CheckTensorFloat32OrQUInt8Type in tflite/delegates/xnnpack/xnnpack_delegate.cc): affine, one
/// scale, one zero point, quantized_dimension 0. A one-scale tensor whose quantized_dimension is
/// not 0 is refused: the LiteRT.js oracles use that to force TFLite's own kernel
/// (tests/oracles/js/ops/README.md).
bool xnnpack_per_tensor_8bit(const TensorDef& t);

/// XNNPACK tensors have at most 6 dimensions (XNN_MAX_TENSOR_DIMS).
inline constexpr std::size_t kXnnpackMaxRank = 6;

/// The lines every op's describe() ends with for its element types and quantizations.
std::string quant_text(const TensorDef& t);

/// The element pointer of a run-time tensor.
template <class T>
const T* data_of(const Tensor& t) {
  return reinterpret_cast<const T*>(t.bytes.data());
}
template <class T>
T* data_of(Tensor& t) {
  return reinterpret_cast<T*>(t.bytes.data());
}
/// A copy of an 8-bit tensor's elements (the vector inputs of the references).
template <class T>
std::vector<T> elements_of(const Tensor& t) {
  const T* p = data_of<T>(t);
  return std::vector<T>(p, p + t.elements());
}

/// Calls f(T{}) with T = int8_t or uint8_t for an 8-bit dtype.
template <class F>
void with_8bit_type(DType d, F&& f) {
  if (d == DType::kInt8) return f(std::int8_t{});
  return f(std::uint8_t{});
}

}  // namespace qparity::model
