// INTERNAL: what a PackedConv2D holds (kernels/conv/packed_conv2d.cc builds it,
// kernels/conv/conv2d_driver.cc runs it). Not installed.
//
// A conv2d is `groups` GEMMs of M = batch * out_h * out_w rows, K = kernel_h * kernel_w *
// in_channels / groups and N = out_channels / groups: group g multiplies the im2col rows of its
// input channel slice by its filter rows (OHWI, so each filter row is already a K-vector in the
// im2col order (ky, kx, ic)) and writes its output channel slice.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/gemm/gemm_driver.h"
#include "qparity/conv2d.h"
#include "qparity/gemm.h"

namespace qparity {
namespace internal {

/// How the A operand of every group's GEMM is formed.
enum class Conv2DPlan {
  /// 1x1 kernel, stride 1, no padding: the NHWC input is the M x in_channels matrix itself; group
  /// g's A is its columns [g * icg, (g + 1) * icg) (row stride in_channels).
  kDirectGemm,
  /// Anything else: an indirection source (gemm_driver.h AOperand) over implicit_window.
  kImplicitGemm,
};

struct PackedConv2DData {
  Conv2DGeometry geometry{};
  ResolvedWindow window{};
  RoundingCore core = RoundingCore::kDoubleRoundingAwayFromZero;
  AccumulatorSpec accumulator{};
  Isa isa = Isa::kScalar;
  Conv2DPlan plan = Conv2DPlan::kImplicitGemm;

  std::size_t m = 0;              ///< batch * out_h * out_w
  std::size_t rows_per_image = 0; ///< out_h * out_w
  std::size_t taps = 0;           ///< kernel_h * kernel_w
  std::size_t icg = 0, ocg = 0;   ///< channels per group, input and output
  std::size_t image_elems = 0;    ///< in_h * in_w * in_channels

  /// kImplicitGemm: the window every group's indirect A reads through (each group adds its
  /// channel offset to the base pointer; gemm_driver.h).
  ImplicitWindow implicit_window{};

  /// One packed GEMM per group (n = ocg, k = taps * icg), all for the same ISA, core and model.
  std::vector<PackedGemm> gemms;

  /// Tiles of one group's GEMM; conv tiles are numbered group by group.
  std::size_t tiles_per_group = 0;
};

}  // namespace internal
}  // namespace qparity
