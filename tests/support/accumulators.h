// The accumulator models the kernel tests sweep: every kind the library implements (accumulator.h),
// each at the widths where it behaves differently from int32 on int8 products: saturating and
// wrapping below 32 bits (16, 20, 24: a few taps reach the bound), at and above it (32, 40, 48, 64:
// only large K or extreme values), and int16 pair sums saturated into int32.
#pragma once

#include "qparity/accumulator.h"

namespace qparity_test {

inline constexpr qparity::AccumulatorSpec kInt32Accumulator{qparity::AccumulatorKind::kInt32, 32};
inline constexpr qparity::AccumulatorSpec kInt64Accumulator{qparity::AccumulatorKind::kInt64, 64};
inline constexpr qparity::AccumulatorSpec kSat24Accumulator{qparity::AccumulatorKind::kSaturating, 24};
inline constexpr qparity::AccumulatorSpec kSat32Accumulator{qparity::AccumulatorKind::kSaturating, 32};
inline constexpr qparity::AccumulatorSpec kWrap24Accumulator{qparity::AccumulatorKind::kWrapping, 24};
inline constexpr qparity::AccumulatorSpec kWrap40Accumulator{qparity::AccumulatorKind::kWrapping, 40};
inline constexpr qparity::AccumulatorSpec kPairSat32Accumulator{qparity::AccumulatorKind::kPairSaturating, 32};

inline constexpr qparity::AccumulatorSpec kAccumulatorModels[] = {
    kInt32Accumulator,
    kInt64Accumulator,
    {qparity::AccumulatorKind::kSaturating, 16},
    kSat24Accumulator,
    kSat32Accumulator,
    {qparity::AccumulatorKind::kSaturating, 48},
    {qparity::AccumulatorKind::kWrapping, 16},
    {qparity::AccumulatorKind::kWrapping, 20},
    kWrap24Accumulator,
    kWrap40Accumulator,
    {qparity::AccumulatorKind::kWrapping, 64},
    kPairSat32Accumulator,
};

}  // namespace qparity_test
