#include "oracle_tally.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>

namespace qparity_test {
namespace {

using Row = TallyRow;

std::mutex g_mutex;
std::map<std::tuple<std::string, std::string, std::string>, Row>& rows() {
  static std::map<std::tuple<std::string, std::string, std::string>, Row> r;
  return r;
}

class TallyPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (rows().empty()) return;
    std::printf("\n%-22s %-16s %-24s %8s %12s %11s\n", "op", "path", "profile", "models", "elements", "mismatches");
    for (const auto& [key, row] : rows()) {
      std::printf("%-22s %-16s %-24s %8zu %12zu %11zu\n", std::get<0>(key).c_str(), std::get<1>(key).c_str(),
                  std::get<2>(key).c_str(), row.runs, row.elements, row.mismatches);
    }
  }
};

const auto* const g_env = ::testing::AddGlobalTestEnvironment(new TallyPrinter);

}  // namespace

void tally(const std::string& op, const std::string& path, const std::string& profile, std::size_t elements,
           std::size_t mismatches) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Row& r = rows()[{op, path, profile}];
  r.elements += elements;
  r.mismatches += mismatches;
  r.runs += 1;
}

TallyRow tally_row(const std::string& op, const std::string& path, const std::string& profile) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = rows().find({op, path, profile});
  return it == rows().end() ? TallyRow{} : it->second;
}

}  // namespace qparity_test
