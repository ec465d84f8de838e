// Drift between two tensors in real units (`qparity diff` on float tensors, and on integer tensors
// dequantized with each side's own scale and zero point): the metrics the accuracy tools of the
// field report (RKNN's cosine, Hailo's SNR, ONNX Runtime's SQNR, Polygraphy's absolute and
// relative error), computed in double precision from the exact values.
//
// Definitions (a = A's values, the reference; b = B's; d_i = b_i - a_i; sums over the elements
// where both values are finite, n_f of them):
//   differing         #{i : a_i != b_i}; two NaNs compare equal here (both sides produced NaN),
//                     and +inf == +inf
//   nonfinite_mismatch  #{i : a_i or b_i is NaN or infinite, and they differ}: counted in
//                     `differing`, left out of every sum below (one inf would make them all inf)
//   max_abs_diff      max |d_i|
//   mae               (1/n_f) sum |d_i|
//   mean_diff         (1/n_f) sum d_i                     (> 0: B above A on average)
//   rmse              sqrt((1/n_f) sum d_i^2)
//   cosine            <a, b> / (|a| |b|); 1 when both are all zero or nothing differs, 0 when one
//                     is all zero and the other is not
//   sqnr_db           10 log10(sum a_i^2 / sum d_i^2): A's signal over B's deviation from it;
//                     +infinity when nothing differs (printed "inf", JSON "inf"), -infinity when
//                     A is all zero and B is not, or when a non-finite mismatch occurred
//   rel_err           |d| / |a| (2-norms); 0 when nothing differs, +infinity when A is all zero
//                     and B is not, or when a non-finite mismatch occurred
//   worst             the `worst_count` elements of largest |d_i| (non-finite mismatches first),
//                     largest first, ties by lower index: flat index, a_i, b_i
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qparity::cli {

/// One element of a comparison: where (flat C-order index into the compared shape) and both values.
struct ElementPair {
  std::size_t index = 0;
  double a = 0;
  double b = 0;
};

struct ValueDrift {
  std::uint64_t elements = 0;
  std::uint64_t differing = 0;
  std::uint64_t nonfinite_mismatch = 0;
  double max_abs_diff = 0;
  double mae = 0;
  double mean_diff = 0;
  double rmse = 0;
  double cosine = 1;
  double sqnr_db = 0;  ///< may be +-infinity (see above)
  double rel_err = 0;  ///< may be +infinity
  std::vector<ElementPair> worst;

  double percent_differing() const;
};

/// The drift of b against a over n values.
ValueDrift compute_value_drift(const double* a, const double* b, std::size_t n, std::size_t worst_count);

/// The n-d coordinates of flat C-order index `index` in `shape` ("[0, 3, 5, 17]"; "[index]" for a
/// 0-d or 1-d shape).
std::vector<std::size_t> coordinates_of(std::size_t index, const std::vector<std::size_t>& shape);

/// Keeps the `capacity` pairs of largest |b - a| seen so far (non-finite differences count as
/// largest), ties kept by the earlier index: the "worst elements" of both the LSB and the
/// real-unit comparisons.
class WorstElements {
 public:
  explicit WorstElements(std::size_t capacity) : capacity_(capacity) {}
  void offer(std::size_t index, double a, double b);
  /// Largest first.
  std::vector<ElementPair> sorted() const;

 private:
  std::size_t capacity_;
  std::vector<ElementPair> heap_;  ///< a min-heap by badness: the front is the first to go
};

}  // namespace qparity::cli
