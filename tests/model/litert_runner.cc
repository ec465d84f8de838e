#include "litert_runner.h"

namespace qparity_test {

std::vector<LiteRtResult> run_litert(const std::vector<LiteRtJob>& jobs, std::string* setup_error) {
  return run_js_batch({"@litertjs/core", "LiteRT.js", "run_tflite.cjs", "", ".tflite", "litert"}, jobs, setup_error);
}

}  // namespace qparity_test
