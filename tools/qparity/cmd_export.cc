// `qparity export`: a stack of layers (stack JSON, SCHEMA.md) or a built-in synthetic model
// (model/zoo.h) as a .tflite or .onnx model, so that exactly the layers qparity analyses can run on a
// device or another runtime (a TFLite runtime, an NPU delegate, ONNX Runtime) and its dumps be fed
// back to `qparity diff --model ... --dump-b`.
//
//   qparity export --stack s.json --output m.tflite [--save-input x.npy]
//   qparity export --zoo mobilenet_v2 --format onnx-qlinear --output m.onnx [--input-size 224]
//                  [--seed 1] [--activations int8|uint8] [--save-input x.npy]
//
// ONNX formats (model/onnx/onnx_writer.h): operator form (QLinearConv, QLinearAdd, ...) or QDQ form;
// NCHW, so a saved input is NCHW too. MobileNet v2 is exported without its final SOFTMAX (qparity
// reads no int8 ONNX softmax yet): the .onnx model outputs the logits.
//
// Each layer becomes its TFLite op (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) with its filter and
// bias as constants, its scales and zero points as the tensors' quantization, and its activation as
// the fused activation. TFLite stores real scales: layers given as explicit multipliers, or with
// explicit activation bounds, cannot be exported (an error says which). The model's input is the
// stack's first layer's input tensor (int8 or uint8), its output the last layer's.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <new>

#include "commands.h"
#include "layer.h"
#include "layer_runner.h"
#include "model/onnx/onnx_reader.h"
#include "model/onnx/onnx_writer.h"
#include "model/tflite/tflite_writer.h"
#include "model/zoo.h"
#include "npy.h"
#include "output_files.h"
#include "plural.h"
#include "preset_params.h"
#include "stack_model.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "export";

constexpr const char* kZooNames = "mobilenet_v2, resnet18, resnet_blocks";

model::Graph zoo_graph(const ExportOptions& o, bool onnx) {
  if (o.input_size < 8 || o.input_size > 4096) {
    throw ToolError(fmt::format("--input-size {}; allowed: 8 to 4096", o.input_size));
  }
  model::ZooOptions zo;
  zo.seed = o.seed;
  zo.input_size = o.input_size;
  zo.softmax = !onnx;  // no int8 ONNX softmax that qparity reads back: end at the logits
  if (o.zoo == "mobilenet_v2") return model::mobilenet_v2(zo);
  if (o.zoo == "resnet18") return model::resnet18(zo);
  if (o.zoo == "resnet_blocks") return model::resnet_blocks(zo);
  throw ToolError(fmt::format("--zoo '{}'; allowed: {}", o.zoo, kZooNames));
}

int export_model(const ExportOptions& o) {
  if (o.stack.empty() == o.zoo.empty()) {
    throw ToolError("give either --stack FILE (the layers to export) or --zoo NAME (a built-in model)");
  }
  const bool onnx = o.format == "onnx-qlinear" || o.format == "onnx-qdq";
  if (!onnx && o.format != "tflite") {
    throw ToolError(fmt::format("--format '{}'; allowed: tflite, onnx-qlinear, onnx-qdq", o.format));
  }
  if (o.output.empty()) throw ToolError(fmt::format("give --output FILE.{}", onnx ? "onnx" : "tflite"));
  if (onnx != model::named_like_onnx(o.output)) {
    throw ToolError(fmt::format("--output '{}' with --format {}; allowed: a name ending in {}", o.output, o.format,
                                onnx ? ".onnx" : "anything but .onnx (the tool reads .onnx files as ONNX)"));
  }
  if (o.activations != "int8" && o.activations != "uint8") {
    throw ToolError(fmt::format("--activations '{}'; allowed: int8, uint8", o.activations));
  }
  if (!onnx && o.activations != "int8") throw ToolError("--activations uint8 applies to the ONNX formats only");
  Tensor input;
  model::Graph g;
  std::string what;
  if (!o.stack.empty()) {
    const Stack stack = load_stack(o.stack);
    g = stack_graph(stack, o.stack);
    input = *stack.input;
    what = o.stack;
  } else {
    g = zoo_graph(o, onnx);
    what = fmt::format("zoo {} (input {}, seed {})", o.zoo, o.input_size, o.seed);
    g.source = o.zoo;
    // A seeded input over the whole 8-bit range, in the file's layout (NCHW for ONNX).
    std::vector<std::size_t> shape = g.tensors[static_cast<std::size_t>(g.inputs[0])].shape;
    if (onnx) shape = {shape[0], shape[3], shape[1], shape[2]};
    input = generate_tensor(DType::kInt8, shape, o.seed, -128, 127);
  }
  std::vector<std::uint8_t> bytes;
  if (onnx) {
    model::OnnxWriteOptions wo;
    wo.form = o.format == "onnx-qdq" ? model::OnnxForm::kQdq : model::OnnxForm::kQLinear;
    wo.activations = o.activations == "uint8" ? DType::kUint8 : DType::kInt8;
    wo.producer = "qparity export of " + what;
    bytes = model::write_onnx(g, wo);
    if (!o.save_input.empty() && input.dtype == DType::kInt8 && wo.activations == DType::kUint8) {
      Tensor shifted = make_tensor(DType::kUint8, input.shape);
      for (std::size_t i = 0; i < input.elements(); ++i) shifted.set_integer(i, input.integer_at(i) + 128);
      input = shifted;
    }
  } else {
    bytes = model::write_tflite(g, "qparity export of " + what);
  }
  OutputFiles files;
  files.add(o.output, std::string(bytes.begin(), bytes.end()));
  if (!o.save_input.empty()) files.add(o.save_input, serialize_npy(input));
  files.commit();
  if (o.zoo == "mobilenet_v2" && onnx) fmt::print("note: the final SOFTMAX is left out; the model outputs the logits\n");
  fmt::print("wrote {}: {} in qparity's graph, {}\n", o.output, count_of(g.nodes.size(), "op"),
             count_of(bytes.size(), "byte"));
  if (!o.save_input.empty()) fmt::print("wrote {}: the model's input\n", o.save_input);
  return kExitOk;
}

}  // namespace

CLI::App* add_export_command(CLI::App& app, ExportOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "export", "Write a stack of layers (stack JSON) or a built-in model as a .tflite or .onnx model.");
  sub->add_option("--stack", o->stack, "Stack JSON (SCHEMA.md); layers with real scales")->type_name("FILE");
  sub->add_option("--zoo", o->zoo, fmt::format("A built-in synthetic int8 model: {}", kZooNames))->type_name("NAME");
  sub->add_option("--input-size", o->input_size, "--zoo: H = W of the input image (default 224)")->type_name("N");
  sub->add_option("--seed", o->seed, "--zoo: seed of the weights and of the saved input (default 1)")
      ->type_name("N");
  sub->add_option("--format", o->format,
                  "tflite (default), onnx-qlinear (QLinearConv, QLinearAdd, ...) or onnx-qdq "
                  "(QuantizeLinear / DequantizeLinear around Conv, Add, ...); ONNX models are NCHW")
      ->type_name("FORMAT");
  sub->add_option("--activations", o->activations, "ONNX formats: int8 (default) or uint8 activations (zero "
                                                     "points + 128, the same real values)")
      ->type_name("TYPE");
  sub->add_option("--output", o->output, "The .tflite or .onnx file to write")->type_name("FILE");
  sub->add_option("--save-input", o->save_input,
                  "Also write the model's input as .npy (the stack's, or a seeded one for --zoo; NCHW for ONNX)")
      ->type_name("FILE");
  sub->footer("Exit status: 0 success, 1 I/O error, 2 invalid usage or a model the format cannot express.");
  return sub;
}

int run_export(const ExportOptions& o) {
  try {
    return export_model(o);
  } catch (const ToolError& e) {
    print_error(kCommand, e.what());
    return e.exit_code();
  } catch (const InvalidArgument& e) {
    print_error(kCommand, without_library_prefix(e.what()));
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    print_error(kCommand, "out of memory");
    return kExitIoError;
  }
}

}  // namespace qparity::cli
