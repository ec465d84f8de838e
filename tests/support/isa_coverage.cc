#include "isa_coverage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <sstream>

#include "qparity/error.h"

namespace qparity_test {
namespace {

std::atomic<qparity::IsaMask> g_exercised{0};

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    if (first != std::string::npos) names.push_back(item.substr(first, last - first + 1));
  }
  return names;
}

class IsaCoverageGuard : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* env = std::getenv("QPARITY_EXPECT_ISAS");
    if (env == nullptr || *env == '\0') return;
    for (const std::string& name : split_names(env)) {
      try {
        const qparity::Isa isa = qparity::isa_from_string(name);
        if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) {
          ADD_FAILURE() << "QPARITY_EXPECT_ISAS lists '" << name
                        << "' but it is not in supported_isas() = {"
                        << qparity::isa_names(qparity::supported_isas(), ",") << "} (compiled: {"
                        << qparity::isa_names(qparity::compiled_isas(), ",") << "})";
        }
      } catch (const qparity::InvalidArgument& e) {
        ADD_FAILURE() << "QPARITY_EXPECT_ISAS: " << e.what();
      }
    }
  }

  void TearDown() override {
    const qparity::IsaMask done = g_exercised.load();
    if (done == 0) return;  // no ISA sweep in this process
    const qparity::IsaMask missing = qparity::supported_isas() & ~done;
    if (missing != 0) {
      ADD_FAILURE() << "ISA coverage: supported but never exercised: {"
                    << qparity::isa_names(missing, ",") << "}; exercised: {"
                    << qparity::isa_names(done, ",") << "}";
    }
  }
};

::testing::Environment* const g_guard = ::testing::AddGlobalTestEnvironment(new IsaCoverageGuard);

}  // namespace

void note_isa_exercised(qparity::Isa isa) { g_exercised.fetch_or(qparity::mask_of(isa)); }

qparity::IsaMask exercised_isas() { return g_exercised.load(); }

std::vector<qparity::Isa> supported_isa_list() {
  std::vector<qparity::Isa> v;
  for (qparity::Isa isa : qparity::all_isas()) {
    if (qparity::supported_isas() & qparity::mask_of(isa)) v.push_back(isa);
  }
  return v;
}

}  // namespace qparity_test
