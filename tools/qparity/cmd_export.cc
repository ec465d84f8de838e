// `qparity export`: a stack of layers (stack JSON, SCHEMA.md) as a .tflite model, so that exactly the
// layers qparity analyses can run on a device (a TFLite runtime, an NPU delegate) and its dumps be
// fed back to `qparity diff --model ... --dump-b`.
//
//   qparity export --stack s.json --output m.tflite [--save-input x.npy]
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
#include "model/tflite/tflite_writer.h"
#include "npy.h"
#include "output_files.h"
#include "plural.h"
#include "preset_params.h"
#include "stack_model.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "export";

int export_model(const ExportOptions& o) {
  if (o.stack.empty()) throw ToolError("give --stack FILE (the layers to export)");
  if (o.output.empty()) throw ToolError("give --output FILE.tflite");
  const Stack stack = load_stack(o.stack);
  const model::Graph g = stack_graph(stack, o.stack);
  const std::vector<std::uint8_t> bytes = model::write_tflite(g, "qparity export of " + o.stack);
  OutputFiles files;
  files.add(o.output, std::string(bytes.begin(), bytes.end()));
  if (!o.save_input.empty()) files.add(o.save_input, serialize_npy(*stack.input));
  files.commit();
  fmt::print("wrote {}: {}, {}\n", o.output, count_of(g.nodes.size(), "op"), count_of(bytes.size(), "byte"));
  if (!o.save_input.empty()) fmt::print("wrote {}: the stack's input\n", o.save_input);
  return kExitOk;
}

}  // namespace

CLI::App* add_export_command(CLI::App& app, ExportOptions* o) {
  CLI::App* sub = app.add_subcommand("export", "Write a stack of layers (stack JSON) as a .tflite model.");
  sub->add_option("--stack", o->stack, "Stack JSON (SCHEMA.md); layers with real scales")->type_name("FILE");
  sub->add_option("--output", o->output, "The .tflite file to write")->type_name("FILE");
  sub->add_option("--save-input", o->save_input, "Also write the stack's input as .npy (to feed the model)")
      ->type_name("FILE");
  sub->footer("Exit status: 0 success, 1 I/O error, 2 invalid usage or a stack TFLite cannot express.");
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
