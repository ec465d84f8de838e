// The header-only oracle: everything a test suite needs to compute qparity's normative results,
// in standard C++17 with no dependencies. Link qparity::reference (CMake) or add include/.
//
//   #include <qparity/reference.h>
//   qparity::RequantParams p = qparity::derive_requant_params(
//       qparity::find_preset("tflite-reference"), s_in, s_w, s_out);
//   int32_t y = qparity::requantize_to_output<qparity::DoubleRoundingAwayFromZero>(
//       acc, p, qparity::full_range_output(qparity::OutputType::kInt8, zp));
#pragma once

#include "qparity/accumulator.h"
#include "qparity/error.h"
#include "qparity/fixed_point.h"
#include "qparity/multiplier.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/presets.h"
#include "qparity/requant_params.h"
#include "qparity/scale_composition.h"
#include "qparity/conv_geometry.h"
#include "qparity/reference_conv2d.h"
#include "qparity/reference_fully_connected.h"
#include "qparity/reference_gemm.h"
#include "qparity/reference/activation.h"
#include "qparity/reference/mean.h"
#include "qparity/reference/op_common.h"
#include "qparity/reference/pooling.h"
#include "qparity/reference/quantize.h"
#include "qparity/reference/softmax.h"
#include "qparity/version.h"
