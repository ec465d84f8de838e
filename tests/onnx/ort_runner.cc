#include "ort_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "model/onnx/onnx_reader.h"

namespace qparity_test {

std::vector<OrtResult> run_ort(const std::vector<OrtJob>& jobs, const std::string& opt, std::string* setup_error) {
  return run_js_batch({"onnxruntime-node", "onnxruntime-node", "run_onnx.cjs", "--opt " + opt + " --threads 1",
                       ".onnx", "ort"},
                      jobs, setup_error);
}

void for_each_ort_result(const std::vector<OrtJob>& jobs, const std::string& opt, const OrtVisit& visit) {
  std::string setup_error;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<OrtResult> results = run_ort(jobs, opt, &setup_error);
  const double ort_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!setup_error.empty()) {
    ADD_FAILURE() << setup_error;
    return;
  }
  if (results.size() != jobs.size()) {
    ADD_FAILURE() << "ORT (opt " << opt << ") returned " << results.size() << " results for " << jobs.size() << " models";
    return;
  }
  std::size_t elements = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!results[i].ok) {
      ADD_FAILURE() << jobs[i].name << ": ORT (opt " << opt << ") failed: " << results[i].error;
      continue;
    }
    elements += visit(i, results[i].outputs, qparity::model::read_onnx(jobs[i].model, jobs[i].name));
  }
  std::printf("ORT opt %s: %zu models, %zu elements compared, ORT batch %.2f s\n", opt.c_str(), jobs.size(), elements,
              ort_s);
}

}  // namespace qparity_test
