// SOFTMAX as ONNX Runtime computes it (com.microsoft QLinearSoftmax and the QDQ Softmax groups ORT
// fuses into it): include/qparity/reference/ort_softmax.h, docs/semantics.md §22.8. softmax.cc
// hands the onnxruntime systems to it.
#pragma once

#include <memory>

#include "model/op.h"

namespace qparity::model {

/// Prepares an 8-bit SOFTMAX (checked) under an ONNX Runtime system (is_onnxruntime_system). Throws cli::ToolError
/// naming the node for what ORT's QLinearSoftmax does not compute (a beta other than 1) and for an unfused QDQ group
/// (ORT's float32 Softmax, MLAS's exp kernels, is not modelled).
std::unique_ptr<PreparedNode> prepare_ort_softmax(const Graph& graph, const Node& node, const System& system);

}  // namespace qparity::model
