// Runs one layer (layer.h) under a preset with the qparity library: the preset's rounding core,
// multiplier derivation, scale composition, clamp derivation and accumulator model, exactly as the
// library's reference defines them (bit-identical on the fast paths).
//
// Shapes: conv2d and depthwise_conv2d take an NHWC input (rank 4) and give NHWC; fully_connected
// takes any input whose element count is a multiple of the filter's input depth, reads it as
// [batch, input_depth] and gives [batch, output_depth], as TFLite does (keep_num_dims = false):
// [batch, depth], [..., depth] and a conv feature map to flatten all work.
// Input dtype int8 or uint8. Mismatches are ToolErrors naming the layer and both shapes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "layer.h"
#include "qparity/presets.h"
#include "tensor.h"

namespace qparity::cli {

/// Which implementation runs the layer. Both give the same bits (the library's tests prove it);
/// the reference exists as a cross-check and for kernels not compiled into this build.
enum class Engine : std::uint8_t { kFast, kReference };

/// The output shape of `layer` on an input of `input_shape`. Throws ToolError on a mismatch.
std::vector<std::size_t> output_shape(const Layer& layer, const std::vector<std::size_t>& input_shape);

/// Runs the layer with the library's fast entry points.
Tensor run_layer(const Layer& layer, const qparity::Preset& preset, const Tensor& input);

/// Runs the layer with the chosen engine.
Tensor run_layer(const Layer& layer, const qparity::Preset& preset, const Tensor& input,
                 Engine engine);

/// Every layer's output in order (outputs[i] is layers[i]'s output; the last is the stack's).
/// `presets` holds one preset for every layer (a per-layer preset map), or exactly one for all.
/// Errors name the layer ("layers[3] 'conv3': ...").
std::vector<Tensor> run_stack(const Stack& stack, const std::vector<qparity::Preset>& presets,
                              const Tensor& input, Engine engine = Engine::kFast);

/// find_preset with a ToolError (kExitUsage) that lists the valid names.
qparity::Preset preset_by_name(const std::string& name);

/// "layers[3] 'conv3'" style label used in errors (index is 0-based).
std::string layer_label(std::size_t index, const Layer& layer);

/// For an error in layer `index` of a stack: " (its input is the output of layers[1] 'conv1': int8
/// [1, 8, 8, 16])", naming the layer that produced the input; "" for layer 0.
std::string chained_input_note(const Stack& stack, std::size_t index, const Tensor& input);

/// The file name of layer `index`'s output for --all-outputs: "<index>_<name>.npy", index
/// zero-padded to the width of the last index ("03_conv3.npy" for a 12-layer stack).
std::string layer_output_file_name(std::size_t index, std::size_t layer_count, const Layer& layer);

}  // namespace qparity::cli
