// The subcommands of `qparity`. Each command has an options record filled by CLI11, a function
// that registers it on the application, and a function that runs it and returns the exit status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace CLI {
class App;
}

namespace qparity::cli {

/// Exit statuses of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitIoError = 1;  ///< reading or writing failed, or an internal error
inline constexpr int kExitUsage = 2;    ///< bad option, bad argument or malformed input
inline constexpr int kExitGateFailed = 3;  ///< diff --fail-on: a tolerance gate failed

struct ListOptions {
  bool cores = false;
  bool profiles = false;  ///< the runtime profiles
  bool ops = false;       ///< every op's samples under `with` (op_table.h)
  std::string with;       ///< comma-separated profiles or presets for --ops
};
CLI::App* add_list_command(CLI::App& app, ListOptions* options);
int run_list(const ListOptions& options);

struct ExplainOptions {
  std::string acc;    ///< options are kept as text and validated by the command itself, so that
  std::string scale;  ///< every error names the option and its allowed range
  std::string multiplier;
  std::string shift;
  std::string zero_point;
  std::string presets;
  bool has_scale = false;
  bool has_multiplier = false;
  bool has_shift = false;
  bool has_zero_point = false;
  bool has_presets = false;
  // One op of a model instead of one accumulator (explain_model_op.cc):
  std::string model;  ///< --model: the model file
  std::string op;     ///< --op: index, node name or output tensor name
  std::string a;      ///< --a: a per-op map (default tflite-xnnpack-x86)
  std::string b;      ///< --b: a second map to compare with
  std::string input;  ///< --input: the model's inputs (.npy, comma-separated); else seeded
  std::uint64_t seed = 1;
};
CLI::App* add_explain_command(CLI::App& app, ExplainOptions* options);
int run_explain(const ExplainOptions& options);
/// `explain --model`: one op of a model under one or two maps (explain_model_op.cc).
int run_explain_model_op(const ExplainOptions& options);

struct RequantOptions {
  std::string preset;
  std::string input = "-";
  bool scale = false;
};
CLI::App* add_requant_command(CLI::App& app, RequantOptions* options);
int run_requant(const RequantOptions& options);

struct RunOptions {
  std::string op;  ///< conv2d, depthwise_conv2d, fully_connected; empty with --stack
  std::string preset;
  std::string input;
  std::string filter;
  std::string bias;
  std::string params;
  std::string stack;
  std::string model;  ///< a .tflite model (with --preset: a profile, preset or per-op map)
  std::uint64_t seed = 1;
  std::string output;
  std::string all_outputs;
  bool reference = false;
  long long threads = 1;  ///< --model: Runner threads (1..64)
};
CLI::App* add_run_command(CLI::App& app, RunOptions* options);
int run_run(const RunOptions& options);

struct InspectOptions {
  std::string model;
  std::string a;  ///< a per-op map (model/node_map.h) whose derived parameters are shown
  std::string b;  ///< with a: also list the ops the two maps treat differently
};
CLI::App* add_inspect_command(CLI::App& app, InspectOptions* options);
int run_inspect(const InspectOptions& options);

struct ExportOptions {
  std::string stack;
  std::string zoo;               ///< a built-in synthetic model (model/zoo.h) instead of a stack
  std::size_t input_size = 224;  ///< --zoo: H = W of the input image
  std::uint64_t seed = 1;        ///< --zoo: the weights' seed (and the saved input's)
  std::string format = "tflite"; ///< tflite, onnx-qlinear, onnx-qdq
  std::string activations = "int8";  ///< ONNX formats: int8 or uint8 activations
  std::string output;
  std::string save_input;
};
CLI::App* add_export_command(CLI::App& app, ExportOptions* options);
int run_export(const ExportOptions& options);

struct DiffOptions {
  std::string stack;
  std::string model;  ///< a .tflite model (--a/--b are per-op maps: model/node_map.h)
  std::uint64_t seed = 1;
  std::string input;  ///< overrides the stack's input
  std::string a;      ///< preset map (preset_map.h)
  std::string b;
  std::string dump_a;  ///< a .npy file or a directory of per-layer dumps
  std::string dump_b;
  std::string zero_point;  ///< dumps: the output zero point the cosine is taken around
  std::string scale_a, zp_a, scale_b, zp_b;  ///< dumps: each side's quantization (real units)
  std::string layout_a = "nhwc", layout_b = "nhwc";  ///< dumps: a 4-d dump's layout
  bool reshape = false;   ///< dumps: compare by element count when the shapes differ
  std::size_t worst = 0;  ///< worst elements listed per differing layer
  std::vector<std::string> fail_on;  ///< tolerance gates (drift_gate.h)
  std::string csv;
  std::string json;
  std::string svg_histogram;
  std::string svg_propagation;
  bool per_channel = false;
  std::string html;                   ///< the self-contained HTML report (html_report.h)
  std::string model_explorer;         ///< --model: per-op node data for Model Explorer
  std::string model_explorer_metric;  ///< its metric ([iso.|acc.]METRIC); empty: the default
  long long threads = 1;              ///< --model: Runner threads (1..64)
};
CLI::App* add_diff_command(CLI::App& app, DiffOptions* options);
int run_diff(const DiffOptions& options);

struct ProbeOptions {
  std::string output;
  std::string format = "tflite";
};
CLI::App* add_probe_command(CLI::App& app, ProbeOptions* options);
int run_probe(const ProbeOptions& options);

struct IdentifyOptions {
  std::string model;     ///< a .tflite model the device ran (--observed: its tensors by name)
  std::string probe;     ///< a probe directory (qparity probe --output)
  std::string stack;     ///< or a stack whose layers' observed outputs are given
  std::string input;     ///< overrides the stack's input
  std::string observed;  ///< directory (probe: <name>.npy; stack: run --all-outputs names) or .npy
  std::string accumulators = "int32,int64,sat16,sat24,sat32,wrap16,wrap24";
  std::size_t top = 8;
};
CLI::App* add_identify_command(CLI::App& app, IdentifyOptions* options);
int run_identify(const IdentifyOptions& options);

/// Prints "qparity <command>: <message>" and a newline to stderr.
void print_error(std::string_view command, std::string_view message);

/// Writes the buffer to stdout and flushes; false (after printing an error) if writing failed.
bool write_stdout(std::string_view command, const fmt::memory_buffer& buffer);

}  // namespace qparity::cli
