// SOFTMAX as ONNX Runtime computes it: com.microsoft QLinearSoftmax and the QDQ Softmax groups ORT
// fuses into it (include/qparity/reference/ort_softmax.h), and the unfused QDQ groups' float32
// Softmax (include/qparity/reference/ort_float_softmax.h); docs/semantics.md §22.8. softmax.cc
// hands the onnxruntime systems to it.
#pragma once

#include <memory>

#include "model/op.h"

namespace qparity::model {

/// Prepares an 8-bit SOFTMAX (checked) under an ONNX Runtime system (is_onnxruntime_system): presets
/// onnxruntime-qdq-float (MLAS's AVX512F kernel) and onnxruntime-qdq-float-fma3 (its FMA3 kernel) run the
/// unfused float32 Softmax, the others QLinearSoftmax. Throws cli::ToolError naming the node for a beta other
/// than 1 (neither ORT form has one).
std::unique_ptr<PreparedNode> prepare_ort_softmax(const Graph& graph, const Node& node, const System& system);

}  // namespace qparity::model
