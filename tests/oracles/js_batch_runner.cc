#include "js_batch_runner.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "npy.h"
#include "tool_test_files.h"

#ifndef QPARITY_JS_ORACLE_DIR
#error "QPARITY_JS_ORACLE_DIR (tests/oracles/js) must be defined by CMake"
#endif

namespace qparity_test {
namespace {

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

std::string node_binary() {
  const char* env = std::getenv("QPARITY_NODE");
  return env != nullptr && *env != '\0' ? env : "node";
}

}  // namespace

std::vector<JsModelResult> run_js_batch(const JsRuntime& rt, const std::vector<JsModelJob>& jobs,
                                        std::string* setup_error) {
  const std::string dir = QPARITY_JS_ORACLE_DIR;
  const std::string install = "install the test oracles: apt-get install nodejs npm (Node 18+), then `cd " + dir +
                              " && npm ci --ignore-scripts` (.ci/install-deps does both)";
  if (!exists(dir + "/node_modules/" + rt.package + "/package.json")) {
    *setup_error = rt.label + " is not installed (" + dir + "/node_modules/" + rt.package + " missing); " + install;
    return {};
  }
  const std::string probe = node_binary() + " --version > /dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) {
    *setup_error = "node (" + node_binary() + ") does not run; " + install;
    return {};
  }
  const std::string work = qparity_cli_test::make_temp_dir(rt.temp_prefix);
  std::ostringstream jobs_text;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string jd = work + "/job" + std::to_string(i);
    const std::string model = jd + "/model" + rt.model_extension;
    ::mkdir(jd.c_str(), 0777);
    {
      std::ofstream m(model, std::ios::binary);
      m.write(reinterpret_cast<const char*>(jobs[i].model.data()), static_cast<std::streamsize>(jobs[i].model.size()));
    }
    jobs_text << model << " " << jd << "/out";
    for (std::size_t k = 0; k < jobs[i].inputs.size(); ++k) {
      const std::string in = jd + "/in" + std::to_string(k) + ".npy";
      qparity::cli::write_npy(in, jobs[i].inputs[k]);
      jobs_text << " " << in;
    }
    jobs_text << "\n";
  }
  qparity_cli_test::write_bytes(work + "/jobs.txt", jobs_text.str());
  const std::string cmd = node_binary() + " " + dir + "/" + rt.script + " " + rt.options + " --batch " + work +
                          "/jobs.txt > " + work + "/log.txt 2>&1";
  const int status = std::system(cmd.c_str());
  (void)status;  // per-job results below; a failed job makes the status non-zero
  const std::string log = qparity_cli_test::read_bytes(work + "/log.txt");
  std::vector<JsModelResult> results(jobs.size());
  bool failed = false;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string out = work + "/job" + std::to_string(i) + "/out";
    JsModelResult& r = results[i];
    for (std::size_t k = 0;; ++k) {
      const std::string f = out + "/output_" + std::to_string(k) + ".npy";
      if (!exists(f)) break;
      r.outputs.push_back(qparity::cli::read_npy(f));
    }
    r.ok = !r.outputs.empty();
    // The runner scripts report a failed job as "<jobs.txt>:<line>: FAILED ..." and write no outputs.
    const std::string tag = ":" + std::to_string(i + 1) + ": FAILED";
    const auto at = log.find(tag);
    if (at != std::string::npos) {
      r.ok = false;
      r.error = log.substr(at, log.find('\n', at) - at);
    } else if (!r.ok) {
      r.error = "no outputs; runner log:\n" + log.substr(0, 2000);
    }
    if (!r.ok) {
      failed = true;
      r.error += " (files kept in " + work + ")";
    }
  }
  if (!failed && std::getenv("QPARITY_KEEP_ORACLE_FILES") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
  }
  return results;
}

}  // namespace qparity_test
