// Shared pieces of the model oracle tests: seeded data, one-batch runs of qparity and LiteRT.js on
// a list of cases, element-by-element comparison with a readable first difference, and the tally.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "model/graph.h"
#include "tensor.h"

namespace qparity_test {

using qparity::cli::DType;
using qparity::cli::Tensor;

/// A tensor of `shape` with integers uniform in [lo, hi].
Tensor random_tensor(std::mt19937& rng, DType dtype, std::vector<std::size_t> shape, std::int64_t lo, std::int64_t hi);

/// One case: a model, its inputs, the runtime path it exercises ("xnnpack", "tflite-kernel") and
/// the arithmetic qparity runs it under (a per-op map, e.g. "tflite-xnnpack-wasm").
struct OracleCase {
  std::string op;       ///< tally row, e.g. "CONV_2D int8 per-channel"
  std::string path;     ///< tally row
  std::string profile;  ///< what qparity runs
  std::string label;    ///< describes the case in failure messages
  qparity::model::Graph graph;
  std::vector<Tensor> inputs;
  /// Other arithmetics counted for contrast (how many elements they would get wrong): shows the
  /// comparison can fail. Tallied as "<profile> (contrast)".
  std::vector<std::string> contrasts;
};

/// Writes every case as .tflite, runs them all in one LiteRT.js batch and in qparity, and compares
/// every output element (ADD_FAILURE with the case and the first differing element on a
/// mismatch). Returns the total of compared elements. FAILS (not skips) when LiteRT.js is missing.
/// `contrast_mismatches` (optional) receives, per contrast profile, its mismatches over all cases,
/// for tests that require a contrast to differ somewhere.
std::size_t run_oracle_cases(const std::vector<OracleCase>& cases,
                             std::map<std::string, std::size_t>* contrast_mismatches = nullptr);

/// After run_oracle_cases: every (op, path, contrast) row of `cases` must have counted at least
/// one element the contrast gets wrong (EXPECT, naming the row), so each contrast shows that the
/// comparison separates the arithmetics.
void expect_contrasts_differ(const std::vector<OracleCase>& cases);

}  // namespace qparity_test
