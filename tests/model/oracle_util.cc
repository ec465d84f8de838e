#include "oracle_util.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <tuple>

#include "litert_runner.h"
#include "model/node_map.h"
#include "model/runner.h"
#include "model/tflite/tflite_writer.h"
#include "oracle_tally.h"

namespace qparity_test {

Tensor random_tensor(std::mt19937& rng, DType dtype, std::vector<std::size_t> shape, std::int64_t lo, std::int64_t hi) {
  Tensor t = qparity::cli::make_tensor(dtype, std::move(shape));
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, d(rng));
  return t;
}

namespace {

std::vector<Tensor> run_qparity(const OracleCase& c, const std::string& profile) {
  using namespace qparity::model;
  const NodeMap map = parse_node_map(profile, "profile");
  Runner runner(c.graph, resolve_node_map(map, c.graph, "profile"));
  runner.run(c.inputs);
  return runner.outputs();
}

std::size_t count_mismatches(const Tensor& a, const Tensor& b, std::string* first) {
  if (a.dtype != b.dtype || a.shape != b.shape) {
    *first = "output dtype/shape differ: " + std::string(qparity::cli::to_string(a.dtype)) + " " +
             qparity::cli::shape_text(a.shape) + " vs " + qparity::cli::to_string(b.dtype) + " " +
             qparity::cli::shape_text(b.shape);
    return a.elements() > b.elements() ? a.elements() : b.elements();
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.elements(); ++i) {
    if (a.value_at(i) != b.value_at(i)) {
      if (n == 0) {
        std::ostringstream s;
        s << "element " << i << ": LiteRT.js " << a.value_at(i) << ", qparity " << b.value_at(i);
        *first = s.str();
      }
      ++n;
    }
  }
  return n;
}

}  // namespace

std::size_t run_oracle_cases(const std::vector<OracleCase>& cases,
                             std::map<std::string, std::size_t>* contrast_mismatches) {
  std::vector<LiteRtJob> jobs;
  for (const OracleCase& c : cases) {
    jobs.push_back({c.label, qparity::model::write_tflite(c.graph), c.inputs});
  }
  std::string setup_error;
  const std::vector<LiteRtResult> results = run_litert(jobs, &setup_error);
  if (!setup_error.empty()) {
    ADD_FAILURE() << setup_error;
    return 0;
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const OracleCase& c = cases[i];
    const LiteRtResult& r = results[i];
    if (!r.ok) {
      ADD_FAILURE() << c.label << ": LiteRT.js failed: " << r.error;
      continue;
    }
    const std::vector<Tensor> ours = run_qparity(c, c.profile);
    if (ours.size() != r.outputs.size()) {
      ADD_FAILURE() << c.label << ": " << ours.size() << " outputs, LiteRT.js " << r.outputs.size();
      continue;
    }
    std::size_t elements = 0, bad = 0;
    for (std::size_t k = 0; k < ours.size(); ++k) {
      std::string first;
      bad += count_mismatches(r.outputs[k], ours[k], &first);
      elements += ours[k].elements();
      if (bad != 0 && !first.empty()) {
        ADD_FAILURE() << c.label << " under " << c.profile << ": output " << k << ": " << first;
      }
    }
    tally(c.op, c.path, c.profile, elements, bad);
    total += elements;
    for (const std::string& other : c.contrasts) {
      const std::vector<Tensor> theirs = run_qparity(c, other);
      std::size_t wrong = 0;
      for (std::size_t k = 0; k < theirs.size(); ++k) {
        std::string first;
        wrong += count_mismatches(r.outputs[k], theirs[k], &first);
      }
      tally(c.op, c.path, other + " (contrast)", elements, wrong);
      if (contrast_mismatches != nullptr) (*contrast_mismatches)[other] += wrong;
    }
  }
  return total;
}

void expect_contrasts_differ(const std::vector<OracleCase>& cases) {
  std::set<std::tuple<std::string, std::string, std::string>> rows;
  for (const OracleCase& c : cases) {
    for (const std::string& other : c.contrasts) rows.insert({c.op, c.path, other + " (contrast)"});
  }
  for (const auto& [op, path, profile] : rows) {
    const TallyRow r = tally_row(op, path, profile);
    EXPECT_GT(r.mismatches, 0u) << op << " / " << path << " / " << profile << ": the contrast agrees on all "
                                << r.elements << " elements of " << r.runs << " models";
  }
}

}  // namespace qparity_test
