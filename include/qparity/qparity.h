// qparity: int8 convolution and matrix-multiply arithmetic that is selectable and bit-exact.
//
// Two layers:
//  * qparity/reference.h  header-only oracle (target qparity::reference): rounding policies,
//                         multiplier derivation, output stage, accumulator models, presets.
//  * compiled SIMD paths with run-time ISA dispatch (target qparity::qparity):
//      qparity/requantize.h       int32 arrays -> int8/uint8/int16 for every rounding core
//      qparity/gemm.h             packed int8 GEMM, every core x accumulator model, tiling API
//      qparity/fully_connected.h  TFLite FULLY_CONNECTED over gemm
//      qparity/conv2d.h           packed conv2d (1x1 GEMM / implicit GEMM), tiling API
//      qparity/depthwise_conv2d.h packed depthwise conv2d (channel-vector kernels), tiling API
#pragma once

#include "qparity/conv2d.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/elementwise.h"
#include "qparity/fully_connected.h"
#include "qparity/gemm.h"
#include "qparity/isa.h"
#include "qparity/pooling.h"
#include "qparity/reference.h"
#include "qparity/requantize.h"
