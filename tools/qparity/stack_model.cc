#include "stack_model.h"

#include <fmt/format.h>

#include "layer_runner.h"
#include "model/graph_builder.h"
#include "model/ops/conv_common.h"
#include "tool_error.h"

namespace qparity::cli {

namespace {

// A float stack: float32 tensors without quantization; each layer's shape rules are the stack's
// (output_shape), the arithmetic the model runner's under a float precision.
model::Graph float_stack_graph(const Stack& stack, const std::string& path) {
  model::GraphBuilder b(path);
  int x = b.tensor("input", DType::kFloat32, stack.input->shape);
  b.input(x);
  std::vector<std::size_t> shape = stack.input->shape;
  for (std::size_t i = 0; i < stack.layers.size(); ++i) {
    const Layer& l = stack.layers[i];
    const std::string label = fmt::format("{}: {}", path, layer_label(i, l));
    if (l.window.padding == Padding::kExplicit) {
      throw ToolError(fmt::format("{}: explicit padding; a float stack runs as a model, whose convolutions pad "
                                  "SAME or VALID", label));
    }
    std::vector<std::size_t> out_shape;
    try {
      out_shape = output_shape(l, shape);
    } catch (const ToolError& e) {
      throw ToolError(fmt::format("{}: {}", path, e.what()), e.exit_code());
    }
    std::vector<int> inputs = {x, b.constant(l.name + "/filter", l.filter)};
    if (l.bias) inputs.push_back(b.constant(l.name + "/bias", *l.bias));
    const int y = b.tensor(l.name, DType::kFloat32, out_shape);
    switch (l.type) {
      case LayerType::kConv2D: {
        auto o = std::make_shared<model::Conv2DOptions>();
        o->window = l.window;
        o->activation = l.activation;
        b.node(model::OpKind::kConv2D, inputs, {y}, o, l.name);
        break;
      }
      case LayerType::kDepthwiseConv2D: {
        auto o = std::make_shared<model::DepthwiseConv2DOptions>();
        o->window = l.window;
        o->activation = l.activation;
        o->depth_multiplier = l.out_channels() / shape[3];  // shape checked by output_shape
        b.node(model::OpKind::kDepthwiseConv2D, inputs, {y}, o, l.name);
        break;
      }
      case LayerType::kFullyConnected: {
        auto o = std::make_shared<model::FullyConnectedOptions>();
        o->activation = l.activation;
        b.node(model::OpKind::kFullyConnected, inputs, {y}, o, l.name);
        break;
      }
    }
    x = y;
    shape = out_shape;
  }
  b.output(x);
  return b.finish();
}

}  // namespace

bool is_float_stack(const Stack& stack) { return stack.layers.front().is_float(); }

model::Graph stack_graph(const Stack& stack, const std::string& path) {
  if (!stack.input) throw ToolError(fmt::format("{}: the stack has no \"input\"; its shape and type make the model's input", path));
  if (is_float_stack(stack)) {
    if (stack.input->dtype != DType::kFloat32) {
      throw ToolError(fmt::format("{}: the input is {}; a float stack (float32 filters) takes a float32 input", path,
                                  to_string(stack.input->dtype)));
    }
    return float_stack_graph(stack, path);
  }
  model::GraphBuilder b(path);
  const Layer& first = stack.layers.front();
  if (!first.input_scale) throw ToolError(fmt::format("{}: layers[0] has no input_scale; TFLite needs real scales", path));
  int x = b.tensor("input", stack.input->dtype, stack.input->shape,
                   model::GraphBuilder::per_tensor(*first.input_scale, first.input_zero_point));
  b.input(x);
  std::vector<std::size_t> shape = stack.input->shape;
  DType dtype = stack.input->dtype;
  for (std::size_t i = 0; i < stack.layers.size(); ++i) {
    const Layer& l = stack.layers[i];
    const std::string label = fmt::format("{}: {}", path, layer_label(i, l));
    if (l.explicit_multipliers() || !l.input_scale || !l.output_scale || l.filter_scales.empty()) {
      throw ToolError(fmt::format("{}: gives multipliers/shifts instead of input_scale, filter_scales and output_scale; "
                                  "a .tflite model stores real scales", label));
    }
    if (l.activation_min || l.activation_max) {
      throw ToolError(fmt::format("{}: explicit activation_min/max have no TFLite form; use \"activation\"", label));
    }
    if (i > 0) {
      const Layer& prev = stack.layers[i - 1];
      if (*l.input_scale != *prev.output_scale || l.input_zero_point != prev.output_zero_point) {
        throw ToolError(fmt::format("{}: input_scale {} / input_zero_point {} differ from {}'s output_scale {} / "
                                    "output_zero_point {}; in a model one tensor has one quantization", label,
                                    *l.input_scale, l.input_zero_point, layer_label(i - 1, prev), *prev.output_scale,
                                    prev.output_zero_point));
      }
    }
    const std::size_t oc = l.out_channels();
    const std::size_t axis = l.type == LayerType::kDepthwiseConv2D ? 3 : 0;
    model::Quantization wq = l.filter_scales.size() == 1 ? model::GraphBuilder::per_tensor(l.filter_scales[0], l.filter_zero_point)
                                                         : model::GraphBuilder::per_axis(l.filter_scales, axis);
    if (l.filter_scales.size() > 1 && l.filter_zero_point != 0) {
      throw ToolError(fmt::format("{}: a per-channel filter with zero point {}; TFLite's per-channel filters are "
                                  "symmetric (zero point 0)", label, l.filter_zero_point));
    }
    const int w = b.constant(l.name + "/filter", l.filter, wq);
    std::vector<int> inputs = {x, w};
    if (l.bias) {
      model::Quantization bq;
      for (float s : l.filter_scales) bq.scales.push_back(*l.input_scale * s);
      bq.zero_points.assign(bq.scales.size(), 0);
      inputs.push_back(b.constant(l.name + "/bias", *l.bias, bq));
    }
    const DType out_dtype = l.output_dtype.value_or(dtype);
    if (out_dtype != DType::kInt8 && out_dtype != DType::kUint8) {
      throw ToolError(fmt::format("{}: output_dtype {} has no TFLite int8 op form; allowed: int8, uint8", label,
                                  to_string(out_dtype)));
    }
    const int y = b.tensor(l.name, out_dtype, {}, model::GraphBuilder::per_tensor(*l.output_scale, l.output_zero_point));
    switch (l.type) {
      case LayerType::kConv2D: {
        auto o = std::make_shared<model::Conv2DOptions>();
        o->window = l.window;
        o->activation = l.activation;
        if (l.window.padding == Padding::kExplicit) {
          throw ToolError(fmt::format("{}: explicit padding has no TFLite form (SAME or VALID only)", label));
        }
        b.node(model::OpKind::kConv2D, inputs, {y}, o, l.name);
        break;
      }
      case LayerType::kDepthwiseConv2D: {
        auto o = std::make_shared<model::DepthwiseConv2DOptions>();
        o->window = l.window;
        o->activation = l.activation;
        o->depth_multiplier = shape.size() == 4 && shape[3] != 0 ? oc / shape[3] : 0;
        if (l.window.padding == Padding::kExplicit) {
          throw ToolError(fmt::format("{}: explicit padding has no TFLite form (SAME or VALID only)", label));
        }
        b.node(model::OpKind::kDepthwiseConv2D, inputs, {y}, o, l.name);
        break;
      }
      case LayerType::kFullyConnected: {
        auto o = std::make_shared<model::FullyConnectedOptions>();
        o->activation = l.activation;
        b.node(model::OpKind::kFullyConnected, inputs, {y}, o, l.name);
        break;
      }
    }
    // Infer this layer's output shape now (validate() fills it), for the next depthwise multiplier.
    model::Graph partial = b.graph();
    partial.outputs = {y};
    model::validate(partial);
    shape = partial.tensors[static_cast<std::size_t>(y)].shape;
    b.graph().tensors[static_cast<std::size_t>(y)].shape = shape;
    x = y;
    dtype = out_dtype;
  }
  b.output(x);
  return b.finish();
}

}  // namespace qparity::cli
