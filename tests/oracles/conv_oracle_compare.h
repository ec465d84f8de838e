// The comparison every conv oracle test makes: a peer's NHWC output against qparity computing the
// same convolution, element by element, tolerance 0.
//
// qparity's side is the header-only reference (reference::conv2d / reference::depthwise_conv2d)
// under the preset's rounding core and accumulator model and the compiled fast paths: PackedConv2D /
// PackedDepthwiseConv2D packed for every ISA this CPU supports, then conv2d / depthwise_conv2d.
// A peer that disagrees with the reference is a wrong preset (or a wrong reference); a fast path
// that disagrees with the peer is a kernel bug.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/support/aligned_buffer.h"
#include "qparity/accumulator.h"
#include "qparity/reference_conv2d.h"
#include "tests/oracles/oracle_compare.h"

#include "qparity/conv2d.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/isa.h"

namespace qparity_oracle {

namespace detail {

/// Mismatches of a dense NHWC output viewed as [pixels][channels].
template <class OutType>
PathComparison compare_nhwc(const std::string& path, std::size_t size, std::size_t channels,
                            const OutType* peer, const OutType* ours) {
  PathComparison r;
  r.path = path;
  std::ostringstream first;
  for (std::size_t e = 0; e < size; ++e) {
    if (peer[e] == ours[e]) continue;
    if (r.mismatches < 8) {
      first << " out[pixel " << e / channels << "][channel " << e % channels << "] peer "
            << static_cast<int>(peer[e]) << " qparity " << static_cast<int>(ours[e]) << ";";
    }
    ++r.mismatches;
  }
  r.first_mismatches = first.str();
  return r;
}

inline bool isa_supported(qparity::Isa isa) {
  return (qparity::supported_isas() & qparity::mask_of(isa)) != 0;
}

template <class OutType>
std::size_t distinct_values(const OutType* v, std::size_t n) {
  std::vector<OutType> s(v, v + n);
  std::sort(s.begin(), s.end());
  return static_cast<std::size_t>(std::unique(s.begin(), s.end()) - s.begin());
}

}  // namespace detail

namespace detail {

/// The comparison both operators share: the reference, then every
/// supported ISA's fast path, each against peer_out. `run_reference(p)` and `make_packed(isa, p)`
/// / `run_packed(packed, p)` are the operator's own entry points; p.call.out is set here.
template <class Problem, class OutType, class RunReference, class MakePacked, class RunPacked>
OracleComparison compare_conv_with_qparity(Problem p, std::size_t channels,
                                           const OutType* peer_out,
                                           const RunReference& run_reference,
                                           const MakePacked& make_packed,
                                           const RunPacked& run_packed) {
  OracleComparison result;
  const qparity::ResolvedWindow r =
      qparity::resolve_window(p.geometry.window, p.geometry.in_h, p.geometry.in_w);
  const std::size_t size = p.geometry.batch * r.out_h * r.out_w * channels;
  result.peer_distinct_values = distinct_values(peer_out, size);
  qparity::internal::AlignedBuffer<OutType> reference(size);
  p.call.out = reference.data();
  run_reference(p);
  result.paths.push_back(compare_nhwc("reference", size, channels, peer_out, reference.data()));
  for (qparity::Isa isa : qparity::all_isas()) {
    if (!isa_supported(isa)) continue;
    qparity::internal::AlignedBuffer<OutType> fast(size);
    p.call.out = fast.data();
    const auto packed = make_packed(isa, p);
    run_packed(packed, p);
    result.paths.push_back(compare_nhwc(
        std::string("fast/") + qparity::to_string(isa) + " (" + packed.kernel_name() + ")", size,
        channels, peer_out, fast.data()));
  }
  return result;
}

}  // namespace detail

/// Compares `peer_out` with qparity on the conv2d `p` (p.call.out is ignored).
template <class AType, class OutType>
OracleComparison compare_conv2d_with_qparity(qparity::Conv2DProblem<AType, OutType> p,
                                             qparity::RoundingCore core,
                                             qparity::AccumulatorSpec accumulator,
                                             const OutType* peer_out) {
  using P = qparity::Conv2DProblem<AType, OutType>;
  return detail::compare_conv_with_qparity(
      p, p.geometry.out_channels, peer_out,
      [&](const P& q) { qparity::reference::conv2d(q, core, accumulator); },
      [&](qparity::Isa isa, const P& q) {
        return qparity::PackedConv2D(isa, q.geometry, q.weights, core, accumulator);
      },
      [](const qparity::PackedConv2D& packed, const P& q) { qparity::conv2d(packed, q.call); });
}

/// Compares `peer_out` with qparity on the depthwise conv2d `p` (p.call.out is ignored).
template <class AType, class OutType>
OracleComparison compare_depthwise_with_qparity(qparity::DepthwiseConv2DProblem<AType, OutType> p,
                                                qparity::RoundingCore core,
                                                qparity::AccumulatorSpec accumulator,
                                                const OutType* peer_out) {
  using P = qparity::DepthwiseConv2DProblem<AType, OutType>;
  return detail::compare_conv_with_qparity(
      p, p.geometry.out_channels(), peer_out,
      [&](const P& q) { qparity::reference::depthwise_conv2d(q, core, accumulator); },
      [&](qparity::Isa isa, const P& q) {
        return qparity::PackedDepthwiseConv2D(isa, q.geometry, q.weights, core, accumulator);
      },
      [](const qparity::PackedDepthwiseConv2D& packed, const P& q) {
        qparity::depthwise_conv2d(packed, q.call);
      });
}

}  // namespace qparity_oracle
