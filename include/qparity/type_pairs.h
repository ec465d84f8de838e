// The (activation, output) type pairs the compiled library (qparity::qparity) provides: int8 or
// uint8 activations, each with int8, uint8, int16 or int32 output. The one list every explicit
// instantiation of the GEMM, conv2d and depthwise entry points, throwing and non-throwing (and
// their extern declarations in gemm.h, conv2d.h, depthwise_conv2d.h and nothrow.h), is written
// with.
#pragma once

#include <cstdint>

/// X(std::int8_t) and X(std::uint8_t): the activation types.
#define QPARITY_FOR_EACH_ACTIVATION_TYPE(X) \
  X(std::int8_t)                            \
  X(std::uint8_t)

/// X(AType, OutType) for each of the eight (activation, output) type pairs.
#define QPARITY_FOR_EACH_TYPE_PAIR(X) \
  X(std::int8_t, std::int8_t)         \
  X(std::int8_t, std::uint8_t)        \
  X(std::int8_t, std::int16_t)        \
  X(std::int8_t, std::int32_t)        \
  X(std::uint8_t, std::int8_t)        \
  X(std::uint8_t, std::uint8_t)       \
  X(std::uint8_t, std::int16_t)       \
  X(std::uint8_t, std::int32_t)
