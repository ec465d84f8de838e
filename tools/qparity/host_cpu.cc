#include "host_cpu.h"

#include <fstream>

namespace qparity::cli {
namespace {

// "model name\t: AMD EPYC 9454P 48-Core Processor" -> the value after the colon, trimmed.
bool field_value(const std::string& line, const std::string& key, std::string* value) {
  if (line.compare(0, key.size(), key) != 0) return false;
  const std::size_t colon = line.find(':', key.size());
  if (colon == std::string::npos || line.find_first_not_of(" \t", key.size()) != colon) return false;
  const std::size_t begin = line.find_first_not_of(" \t", colon + 1);
  if (begin == std::string::npos) return false;
  *value = line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin);
  return true;
}

}  // namespace

std::string host_cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, arm_model, hardware;
  while (std::getline(in, line)) {
    std::string v;
    if (model.empty() && field_value(line, "model name", &v)) model = v;
    if (arm_model.empty() && field_value(line, "Model", &v)) arm_model = v;
    if (hardware.empty() && field_value(line, "Hardware", &v)) hardware = v;
  }
  if (!model.empty()) return model;
  if (!arm_model.empty()) return arm_model;
  if (!hardware.empty()) return hardware;
  return "unknown CPU";
}

}  // namespace qparity::cli
