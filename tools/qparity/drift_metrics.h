// Drift between two integer tensors of the same shape (`qparity diff`): how many elements differ,
// by how many output steps (LSBs of the stored integer), and how similar the two stay as vectors.
//
// Definitions (d_i = b_i - a_i, in LSBs; n = element count):
//   differing     #{i : d_i != 0}, and 100 * differing / n percent
//   histogram     count of every occurring value of d_i (signed: b - a), 0 included
//   max_abs_diff  max |d_i|
//   mae           (1/n) sum |d_i|            (mean absolute error, LSB)
//   mean_diff     (1/n) sum d_i              (signed: > 0 when B sits above A on average)
//   cosine        <a - zp, b - zp> / (|a - zp| |b - zp|): the cosine similarity of the values
//                 relative to the zero point, which is the cosine of the DEQUANTIZED tensors when
//                 both share one scale and zero point (a layer's output under two arithmetics
//                 always does; the scale cancels). Two all-zero vectors have cosine 1 (they are
//                 identical); one all-zero vector against a non-zero one has cosine 0.
// Per channel (the last axis, C of NHWC): differing, max |d| and MAE of that channel's elements.
// An empty tensor (n = 0) has no differing elements, mae 0 and cosine 1.
// worst: the elements of largest |d_i| (value_drift.h's order), with A's and B's stored integers.
//
// In real units (value_drift.h), when the values are floats or both sides' quantization is known:
// `real` holds MAE, max |diff|, RMSE, cosine, SQNR and relative error of the real values. Float
// tensors, and integer tensors of different types, have real metrics only (`lsb` false): their
// elements are not steps of one integer grid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tensor.h"
#include "value_drift.h"

namespace qparity::cli {

struct ChannelDrift {
  std::uint64_t elements = 0;
  std::uint64_t differing = 0;
  std::int64_t max_abs_diff = 0;
  double mae = 0;
};

/// How many worst elements each comparison keeps.
inline constexpr std::size_t kWorstElementsKept = 16;

struct DriftMetrics {
  bool lsb = true;  ///< the integer (LSB) metrics below are meaningful
  std::uint64_t elements = 0;
  std::uint64_t differing = 0;
  std::int64_t max_abs_diff = 0;
  double mae = 0;
  double mean_diff = 0;
  double cosine = 1;
  std::map<std::int64_t, std::uint64_t> histogram;  ///< b - a -> count
  std::vector<ChannelDrift> channels;               ///< empty unless asked for
  std::vector<ElementPair> worst;                   ///< LSB comparison's worst elements
  std::optional<ValueDrift> real;                   ///< in real units, when known

  /// 100 * differing / elements (0 for an empty tensor).
  double percent_differing() const;
};

/// Drift of b against a, element by element over n values; `channels` > 0 adds the breakdown over
/// the last axis (element i belongs to channel i % channels; n must be a multiple of it).
DriftMetrics compute_drift(const std::int64_t* a, const std::int64_t* b, std::size_t n,
                           std::int64_t zero_point, std::size_t channels = 0);

/// How one side's stored integers map to real values: real = scale * (q - zero_point).
struct Dequantization {
  double scale = 1;
  std::int64_t zero_point = 0;
};

/// One side of a comparison: the tensor, what to call it in errors, and its quantization if known.
struct CompareSide {
  const Tensor* tensor = nullptr;
  std::string name;
  std::optional<Dequantization> dequantization;
};

/// B against A, element by element; the shapes must be equal. Integer tensors of one dtype give
/// LSB metrics (`zero_point` centres the LSB cosine), plus real metrics when both sides'
/// quantization is known. Float tensors (float16/32/64) are compared in real units, an integer
/// side dequantized with its own quantization, which must then be known. Throws ToolError naming
/// the side and what to give when a comparison would be meaningless: shapes differ, integer dtypes
/// differ (int8 against uint8 is 128 LSBs apart everywhere) without both quantizations, an integer
/// side against a float one without its quantization, quantization given for a float side or for
/// one side only. `per_channel` breaks the LSB metrics down over the last axis.
DriftMetrics compare_tensors(const CompareSide& a, const CompareSide& b, std::int64_t zero_point,
                             bool per_channel);

/// compare_tensors without quantization: integer tensors of one dtype, in LSBs.
DriftMetrics compute_drift(const Tensor& a, const Tensor& b, std::int64_t zero_point,
                           bool per_channel, const std::string& name_a = "A",
                           const std::string& name_b = "B");

/// The histogram folded to bins [-limit, limit]: values beyond go into the end bins (index 0 is
/// -limit, index 2*limit is +limit). For plots; limit >= 1.
std::vector<std::uint64_t> folded_histogram(const DriftMetrics& m, std::int64_t limit);

}  // namespace qparity::cli
