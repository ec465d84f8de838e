// ONNX Runtime's arithmetic for a QDQ node group it does not fuse into a QLinear operator (int8
// activations on x86 at every optimization level; every group at level `disabled`): each
// DequantizeLinear, the float32 operator, the QuantizeLinear, as ORT's CPU kernels compute them
// (docs/semantics.md §22.5):
//
//   x_f = float(x - x_zp) * x_scale                       DequantizeLinear (per tensor / per axis)
//   y_f = the float32 operator on the x_f                  Conv / MatMul: MLAS SGEMM order, below
//   q   = clamp(round_half_even(y_f / y_scale) + y_zp)     QuantizeLinear: true float32 division
//
// Conv and MatMul sum their products with float32 FMAs in ONNX's K order (input channel, kernel
// row, kernel column), in slices of MLAS's K stride (128, doubled while MLAS halves its N stride for
// a small N; one slice when the GEMM has one row), each slice from zero and added to the running
// output; the bias is added after the sum. A MatMul with an N-D or run-time b (BATCH_MATMUL) of
// one row per GEMM sums as MLAS's single-row kernel does (products rounded, blocks of four K rows).
// A fused Relu / Relu6 (the graph's Relu or Clip(0, 6) between the operator and its QuantizeLinear)
// clamps y_f in float32 first.
#pragma once

#include <memory>
#include <vector>

#include "model/op.h"
#include "qparity/isa.h"

namespace qparity::model {

/// The preset name of the unfused-QDQ system (style kFloat, ONNX Runtime's float kernels).
inline constexpr const char* kOrtQdqFloatPreset = "onnxruntime-qdq-float";

/// Whether `system` is the unfused-QDQ system and the node one whose float32 arithmetic this file
/// computes (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL, ADD, MUL, MEAN); the other ops of a QDQ
/// graph compute the same bits under the onnxruntime preset's own formulas (pooling, concatenation,
/// data movement: docs/semantics.md §22.5).
bool ort_qdq_float_handles(const Node& node, const System& system);

/// Prepares such a node. Engine::kFast sums Conv / MatMul with the library's qdq_fma kernel for
/// active_isa() (kernels/entries/qparity_internal/qdq_fma.h: the same FMAs per output, lanes across
/// output channels; its scalar kernel on a CPU without AVX2 + FMA), split over the runner's threads
/// by output pixels; Engine::kReference with the scalar reference. Throws cli::ToolError naming the
/// node when it cannot be represented.
std::unique_ptr<PreparedNode> prepare_ort_qdq_float(const Graph& graph, const Node& node, const System& system,
                                                    Engine engine);

/// For the tests: y_f of a CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED node (the float32 sums,
/// before a conv's bias, the activation and the QuantizeLinear; a Gemm's start from its bias) on
/// `input`: Engine::kReference with the scalar reference; Engine::kFast with the qdq_fma kernel
/// that serves `isa` (which this CPU must support), on up to `threads` threads.
std::vector<float> ort_qdq_float_sums(const Graph& graph, const Node& node, const System& system, Engine engine,
                                      Isa isa, const Tensor& input, unsigned threads = 1);

}  // namespace qparity::model
