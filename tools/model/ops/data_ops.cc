// Shared pieces of SOFTMAX, CONCATENATION, PAD and PADV2 (data_ops.h).
#include "model/ops/data_ops.h"
#include "model/ops/op_variants.h"

#include <fmt/format.h>

#include <cmath>

#include "model/op.h"
#include "model/ops/conv_common.h"

namespace qparity::model {

std::string ConcatenationOptions::describe() const {
  return fmt::format("axis {}, {}", axis, activation_text(activation));
}

bool xnnpack_per_tensor(const TensorDef& t) {
  // The delegate's 8-bit rule is stated once, in op_variants.cc.
  return t.dtype == DType::kFloat32 || xnnpack_per_tensor_8bit(t);
}

bool same_quantization(const TensorDef& a, const TensorDef& b) {
  const float sa = a.quant.scales.empty() ? 0.0f : a.quant.scales[0];
  const float sb = b.quant.scales.empty() ? 0.0f : b.quant.scales[0];
  return sa == sb && a.quant.zero_point() == b.quant.zero_point();
}

void require_valid_scales(const Graph& g, const Node& n, const TensorDef& t, const char* role) {
  for (std::size_t i = 0; i < t.quant.scales.size(); ++i) {
    const float s = t.quant.scales[i];
    if (!(s > 0.0f) || !std::isfinite(s)) {
      node_error(g, n, fmt::format("{} '{}' has scale[{}] = {}; allowed: finite and > 0", role, t.name, i, s));
    }
  }
}

}  // namespace qparity::model
