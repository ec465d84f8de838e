// Options of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (TFLite ResizeBilinearOptions /
// ResizeNearestNeighborOptions), shared with the tests and the writers that build them.
#pragma once

#include <optional>
#include <string>

#include "model/graph.h"
#include "qparity/reference/resize.h"

namespace qparity::model {

/// The index rule of a RESIZE_NEAREST_NEIGHBOR read from an ONNX Resize in mode nearest: ONNX's
/// coordinate mode and nearest_mode (include/qparity/reference/resize.h ort_nearest_axis).
struct OnnxNearestRule {
  reference::OnnxCoordinateMode coordinates = reference::OnnxCoordinateMode::kHalfPixel;
  reference::OnnxNearestMode nearest = reference::OnnxNearestMode::kRoundPreferFloor;
};

const char* to_string(reference::OnnxCoordinateMode mode);
const char* to_string(reference::OnnxNearestMode mode);

/// Where output pixel centres fall on the input: align_corners maps the corner pixels onto each
/// other, half_pixel_centers samples at pixel centres; neither is TensorFlow's legacy mapping
/// (`i * in / out`). The two exclude each other (TFLite's Prepare refuses both).
struct ResizeOptions : OpOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;
  /// RESIZE_NEAREST_NEIGHBOR read from ONNX: ONNX's index rule instead of TFLite's (the two flags
  /// above are then false). Only ONNX Runtime's systems run it; TFLite has no such rule.
  std::optional<OnnxNearestRule> onnx_nearest;
  std::string describe() const override;
};

}  // namespace qparity::model
