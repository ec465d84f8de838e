#include "ort_runner.h"

namespace qparity_test {

std::vector<OrtResult> run_ort(const std::vector<OrtJob>& jobs, const std::string& opt, std::string* setup_error) {
  return run_js_batch({"onnxruntime-node", "onnxruntime-node", "run_onnx.cjs", "--opt " + opt + " --threads 1",
                       ".onnx", "ort"},
                      jobs, setup_error);
}

}  // namespace qparity_test
