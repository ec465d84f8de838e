// qparity: int8 convolution and matrix-multiply arithmetic that is selectable and bit-exact.
//
// Two layers:
//  * qparity/reference.h  header-only oracle (target qparity::reference): rounding policies,
//                         multiplier derivation, output stage, accumulator models, presets.
//  * qparity/requantize.h compiled SIMD paths with run-time ISA dispatch (target qparity::qparity).
#pragma once

#include "qparity/isa.h"
#include "qparity/reference.h"
#include "qparity/requantize.h"
