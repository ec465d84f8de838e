#include "value_drift.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qparity::cli {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Two values that a comparison treats as equal: the same number, or both NaN.
bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// How bad a differing pair is: |b - a|, or infinity when either side is not finite.
double badness(const ElementPair& e) {
  if (!std::isfinite(e.a) || !std::isfinite(e.b)) return kInf;
  return std::fabs(e.b - e.a);
}

// "x is less bad than y": the order of the min-heap (ties: the later index goes first).
bool less_bad(const ElementPair& x, const ElementPair& y) {
  const double bx = badness(x), by = badness(y);
  if (bx != by) return bx < by;
  return x.index > y.index;
}

}  // namespace

double ValueDrift::percent_differing() const {
  return elements == 0 ? 0.0 : 100.0 * static_cast<double>(differing) / static_cast<double>(elements);
}

void WorstElements::offer(std::size_t index, double a, double b) {
  if (capacity_ == 0) return;
  const ElementPair e{index, a, b};
  // std::*_heap with comparator `more_bad` keeps the least bad element at the front.
  auto more_bad = [](const ElementPair& x, const ElementPair& y) { return less_bad(y, x); };
  if (heap_.size() < capacity_) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), more_bad);
  } else if (less_bad(heap_.front(), e)) {
    std::pop_heap(heap_.begin(), heap_.end(), more_bad);
    heap_.back() = e;
    std::push_heap(heap_.begin(), heap_.end(), more_bad);
  }
}

std::vector<ElementPair> WorstElements::sorted() const {
  std::vector<ElementPair> out = heap_;
  std::sort(out.begin(), out.end(), [](const ElementPair& x, const ElementPair& y) { return less_bad(y, x); });
  return out;
}

ValueDrift compute_value_drift(const double* a, const double* b, std::size_t n, std::size_t worst_count) {
  ValueDrift m;
  m.elements = n;
  WorstElements worst(worst_count);
  // Plain double sums: the values are float32/float16 data or dequantized integers, each exact in
  // a double; the sums' rounding is far below any difference worth reporting.
  double sum_abs = 0, sum_signed = 0, sum_sq = 0, dot = 0, norm_a = 0, norm_b = 0;
  std::uint64_t finite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    if (!same_value(x, y)) {
      ++m.differing;
      worst.offer(i, x, y);
    }
    if (!std::isfinite(x) || !std::isfinite(y)) {
      if (!same_value(x, y)) ++m.nonfinite_mismatch;
      continue;
    }
    ++finite;
    const double d = y - x;
    const double abs_d = std::fabs(d);
    if (abs_d > m.max_abs_diff) m.max_abs_diff = abs_d;
    sum_abs += abs_d;
    sum_signed += d;
    sum_sq += d * d;
    dot += x * y;
    norm_a += x * x;
    norm_b += y * y;
  }
  if (finite > 0) {
    const auto nf = static_cast<double>(finite);
    m.mae = sum_abs / nf;
    m.mean_diff = sum_signed / nf;
    m.rmse = std::sqrt(sum_sq / nf);
  }
  if (norm_a == 0 && norm_b == 0) {
    m.cosine = 1;
  } else if (norm_a == 0 || norm_b == 0) {
    m.cosine = 0;
  } else if (sum_sq == 0) {
    m.cosine = 1;  // exactly: "no drift" must read as no drift
  } else {
    const double c = dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
    m.cosine = std::clamp(c, -1.0, 1.0);
  }
  if (m.nonfinite_mismatch > 0) {
    m.sqnr_db = -kInf;  // a NaN or infinity where the other side has a number: unbounded noise
    m.rel_err = kInf;
  } else if (sum_sq == 0) {
    m.sqnr_db = kInf;
    m.rel_err = 0;
  } else if (norm_a == 0) {
    m.sqnr_db = -kInf;
    m.rel_err = kInf;
  } else {
    m.sqnr_db = 10.0 * std::log10(norm_a / sum_sq);
    m.rel_err = std::sqrt(sum_sq) / std::sqrt(norm_a);
  }
  m.worst = worst.sorted();
  return m;
}

std::vector<std::size_t> coordinates_of(std::size_t index, const std::vector<std::size_t>& shape) {
  if (shape.size() <= 1) return {index};
  std::vector<std::size_t> c(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return {index};
    c[d] = index % shape[d];
    index /= shape[d];
  }
  return c;
}

}  // namespace qparity::cli
