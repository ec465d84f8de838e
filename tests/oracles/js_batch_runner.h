// Runs a batch of models in a real runtime from npm (tests/oracles/js: LiteRT.js for .tflite,
// onnxruntime-node for .onnx) with one Node process: writes each job's model and input .npy files,
// runs the runtime's script with --batch, reads back output_<k>.npy per job. Missing node or
// node_modules is a setup error naming the command that installs them, never a skip.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace qparity_test {

struct JsModelJob {
  std::string name;                  ///< for messages
  std::vector<std::uint8_t> model;   ///< the model file's bytes
  std::vector<qparity::cli::Tensor> inputs;
};

struct JsModelResult {
  bool ok = false;
  std::string error;  ///< the runner's message when !ok
  std::vector<qparity::cli::Tensor> outputs;
};

/// One runtime: its npm package (under node_modules), a name for messages, its runner script in
/// tests/oracles/js, the script's options before --batch, the model file's extension and the
/// prefix of the batch's temporary directory.
struct JsRuntime {
  std::string package;
  std::string label;
  std::string script;
  std::string options;
  std::string model_extension;
  std::string temp_prefix;
};

/// Runs every job; results in job order. Sets *setup_error (and returns nothing) when the runtime
/// cannot start. The batch's files are removed unless a job failed (its error names the directory)
/// or QPARITY_KEEP_ORACLE_FILES is set.
std::vector<JsModelResult> run_js_batch(const JsRuntime& runtime, const std::vector<JsModelJob>& jobs,
                                        std::string* setup_error);

}  // namespace qparity_test
