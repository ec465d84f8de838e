#include "drift_metrics.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "tool_error.h"

namespace qparity::cli {

double DriftMetrics::percent_differing() const {
  return elements == 0 ? 0.0 : 100.0 * static_cast<double>(differing) / static_cast<double>(elements);
}

DriftMetrics compute_drift(const std::int64_t* a, const std::int64_t* b, std::size_t n,
                           std::int64_t zero_point, std::size_t channels) {
  DriftMetrics m;
  m.elements = n;
  if (channels > 0) m.channels.assign(channels, ChannelDrift{});
  // Sums of |d| and d are integers: kept exact (int64 holds n * 2^32 for any n < 2^31), so that
  // MAE and the mean are correctly rounded once and identical everywhere.
  std::uint64_t sum_abs = 0;
  std::int64_t sum_signed = 0;
  std::vector<std::uint64_t> channel_sum_abs(channels, 0);
  WorstElements worst(kWorstElementsKept);
  // The cosine's sums are doubles, exact for int8 data (each product < 2^16) up to 2^37 elements.
  double dot = 0, norm_a = 0, norm_b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t d = b[i] - a[i];
    const std::int64_t abs_d = d < 0 ? -d : d;
    if (d != 0) {
      ++m.differing;
      if (abs_d > m.max_abs_diff) m.max_abs_diff = abs_d;
      worst.offer(i, static_cast<double>(a[i]), static_cast<double>(b[i]));
    }
    ++m.histogram[d];
    sum_abs += static_cast<std::uint64_t>(abs_d);
    sum_signed += d;
    const double va = static_cast<double>(a[i] - zero_point);
    const double vb = static_cast<double>(b[i] - zero_point);
    dot += va * vb;
    norm_a += va * va;
    norm_b += vb * vb;
    if (channels > 0) {
      ChannelDrift& c = m.channels[i % channels];
      ++c.elements;
      if (d != 0) ++c.differing;
      if (abs_d > c.max_abs_diff) c.max_abs_diff = abs_d;
      channel_sum_abs[i % channels] += static_cast<std::uint64_t>(abs_d);
    }
  }
  m.worst = worst.sorted();
  if (n > 0) {
    m.mae = static_cast<double>(sum_abs) / static_cast<double>(n);
    m.mean_diff = static_cast<double>(sum_signed) / static_cast<double>(n);
  }
  for (std::size_t c = 0; c < channels; ++c) {
    if (m.channels[c].elements > 0) {
      m.channels[c].mae =
          static_cast<double>(channel_sum_abs[c]) / static_cast<double>(m.channels[c].elements);
    }
  }
  if (norm_a == 0 && norm_b == 0) {
    m.cosine = 1;  // both all zero: the same vector
  } else if (norm_a == 0 || norm_b == 0) {
    m.cosine = 0;  // the zero vector has no direction: nothing in common with a non-zero one
  } else if (m.differing == 0) {
    m.cosine = 1;  // exactly, not 1 - 1e-16 from rounding: "no drift" must read as no drift
  } else {
    const double c = dot / std::sqrt(norm_a * norm_b);
    m.cosine = c > 1 ? 1 : (c < -1 ? -1 : c);
  }
  return m;
}

namespace {

std::vector<double> real_values(const CompareSide& side) {
  const Tensor& t = *side.tensor;
  const std::size_t n = t.elements();
  std::vector<double> v(n);
  if (is_float(t.dtype)) {
    for (std::size_t i = 0; i < n; ++i) v[i] = t.value_at(i);
  } else {
    const Dequantization& q = *side.dequantization;
    for (std::size_t i = 0; i < n; ++i) v[i] = q.scale * static_cast<double>(t.integer_at(i) - q.zero_point);
  }
  return v;
}

}  // namespace

DriftMetrics compare_tensors(const CompareSide& a, const CompareSide& b, std::int64_t zero_point,
                             bool per_channel) {
  const Tensor& ta = *a.tensor;
  const Tensor& tb = *b.tensor;
  if (ta.shape != tb.shape) {
    throw ToolError(fmt::format("shapes differ: {} {} vs {} {}", a.name, shape_text(ta.shape), b.name,
                                shape_text(tb.shape)));
  }
  for (const CompareSide* s : {&a, &b}) {
    if (is_float(s->tensor->dtype) && s->dequantization) {
      throw ToolError(fmt::format("{} is {}: a scale and zero point apply to integer tensors only", s->name,
                                  to_string(s->tensor->dtype)));
    }
  }
  const bool float_a = is_float(ta.dtype), float_b = is_float(tb.dtype);
  const bool both_known = a.dequantization && b.dequantization;
  if (float_a || float_b) {
    for (const CompareSide* s : {&a, &b}) {
      if (!is_float(s->tensor->dtype) && !s->dequantization) {
        const CompareSide& other = s == &a ? b : a;
        throw ToolError(fmt::format(
            "{} is {} and {} is {}: an integer tensor is compared with a float one in real units; give {}'s "
            "scale and zero point (dumps: --scale-{} S --zp-{} Z) to dequantize it",
            s->name, to_string(s->tensor->dtype), other.name, to_string(other.tensor->dtype), s->name,
            s == &a ? "a" : "b", s == &a ? "a" : "b"));
      }
    }
  } else if (ta.dtype != tb.dtype && !both_known) {
    throw ToolError(fmt::format(
        "{} is {} but {} is {}: their stored integers are not steps of one grid (int8 and uint8 of one tensor "
        "differ by 128 everywhere); give both sides' scale and zero point (dumps: --scale-a/--zp-a and "
        "--scale-b/--zp-b) to compare dequantized values, or convert one dump to the other's dtype",
        a.name, to_string(ta.dtype), b.name, to_string(tb.dtype)));
  } else if (a.dequantization.has_value() != b.dequantization.has_value()) {
    throw ToolError(fmt::format("the quantization of {} is given but not that of {}; give both sides' scale and "
                                "zero point to compare in real units, or neither to compare in LSBs",
                                a.dequantization ? a.name : b.name, a.dequantization ? b.name : a.name));
  }

  DriftMetrics m;
  const std::size_t n = ta.elements();
  if (!float_a && !float_b && ta.dtype == tb.dtype) {
    std::vector<std::int64_t> va(n), vb(n);
    for (std::size_t i = 0; i < n; ++i) {
      va[i] = ta.integer_at(i);
      vb[i] = tb.integer_at(i);
    }
    const std::size_t channels = per_channel && !ta.shape.empty() ? ta.shape.back() : 0;
    m = compute_drift(va.data(), vb.data(), n, zero_point, channels);
  } else {
    m.lsb = false;
    m.elements = n;
  }
  if (float_a || float_b || both_known) {
    const std::vector<double> ra = real_values(a), rb = real_values(b);
    m.real = compute_value_drift(ra.data(), rb.data(), n, kWorstElementsKept);
  }
  return m;
}

DriftMetrics compute_drift(const Tensor& a, const Tensor& b, std::int64_t zero_point,
                           bool per_channel, const std::string& name_a, const std::string& name_b) {
  return compare_tensors(CompareSide{&a, name_a, std::nullopt}, CompareSide{&b, name_b, std::nullopt}, zero_point,
                         per_channel);
}

std::vector<std::uint64_t> folded_histogram(const DriftMetrics& m, std::int64_t limit) {
  if (limit < 1) limit = 1;
  std::vector<std::uint64_t> bins(static_cast<std::size_t>(2 * limit + 1), 0);
  for (const auto& [d, count] : m.histogram) {
    const std::int64_t clamped = d < -limit ? -limit : (d > limit ? limit : d);
    bins[static_cast<std::size_t>(clamped + limit)] += count;
  }
  return bins;
}

}  // namespace qparity::cli
