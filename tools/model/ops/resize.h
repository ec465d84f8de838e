// Options of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (TFLite ResizeBilinearOptions /
// ResizeNearestNeighborOptions), shared with the tests and the writers that build them.
#pragma once

#include <string>

#include "model/graph.h"

namespace qparity::model {

/// Where output pixel centres fall on the input: align_corners maps the corner pixels onto each
/// other, half_pixel_centers samples at pixel centres; neither is TensorFlow's legacy mapping
/// (`i * in / out`). The two exclude each other (TFLite's Prepare refuses both).
struct ResizeOptions : OpOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;
  std::string describe() const override;
};

}  // namespace qparity::model
