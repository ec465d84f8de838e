// INTERNAL to the tests: the AVX-512 sweep of dr_az_doubled_test.cc (dr_az_doubled_sweep_avx512.cc).
#pragma once

#include <string>

#include "qparity/requant_params.h"

namespace qparity_test {

/// Runs dr_az_doubled_core with params[l] in lane l (16 sets, every shift <= -1) on every int32
/// accumulator; "" when it equals the DR-AZ policy everywhere, else the first difference. Call only
/// on a CPU with AVX-512 (F, BW, DQ, VL).
std::string dr_az_doubled_sweep_avx512(const qparity::RequantParams* params);

}  // namespace qparity_test
