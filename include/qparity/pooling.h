// AVERAGE_POOL_2D, MAX_POOL_2D and the 4-D MEAN over H, W (global average pooling) on int8 / uint8
// NHWC tensors, compiled (qparity::qparity): the definitions of qparity/reference/pooling.h and
// qparity/reference/mean.h, computed with per-ISA kernels (kernels/pooling/, a kernel family of
// the registry: scalar, AVX2, AVX-512; the other paths run their parent's).
//
// Every function is bit-identical to its reference for every variant (the tests force each ISA
// path this CPU supports and compare element by element, tests/pooling/pooling_test.cc). What the
// kernels vectorise is the reduction (int16 lanes widened to int32, exact; byte max); the
// finishing step is the kernel's own fused HAZ division (AveragePoolVariant::kTflite), the
// library's vectorised requantization (requantize.h) where the variant is a rounding core applied
// to the sums (MEAN's TFLite optimized / reference / NEON, XNNPACK and NPU variants, the NPU
// average pool), or a scalar loop over the sums for the float32 styles and TFLM's MEAN variants.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qparity/isa.h"
#include "qparity/output_stage.h"
#include "qparity/reference/mean.h"
#include "qparity/reference/pooling.h"

namespace qparity {

/// The largest reduction (taps of one pooling window, H * W of one MEAN image) the compiled paths
/// take: their int32 sums are exact up to 255 * 2^23 < 2^31. Larger ones throw InvalidArgument
/// (the references have no such limit).
inline constexpr std::size_t kMaxPoolingReduction = std::size_t{1} << 23;

/// reference::average_pool of the NHWC tensor `x` of shape `s` into `y`
/// (pool_output_shape(s, w).size() elements), for the active ISA. Throws InvalidArgument where the
/// reference does (bad shape, window, scale or zero point).
template <class T>
void average_pool(const T* x, const reference::Shape4& s, const reference::PoolWindow& w,
                  const reference::TensorQuant& in, const reference::TensorQuant& out, Activation act,
                  reference::AveragePoolVariant variant, T* y, reference::NpuHypothesis npu = {});

/// The same on exactly `isa` (tests, benchmarks); throws InvalidArgument if `isa` is not in
/// supported_isas(). An ISA without pooling kernels of its own runs its parent's.
template <class T>
void average_pool(Isa isa, const T* x, const reference::Shape4& s, const reference::PoolWindow& w,
                  const reference::TensorQuant& in, const reference::TensorQuant& out, Activation act,
                  reference::AveragePoolVariant variant, T* y, reference::NpuHypothesis npu = {});

/// reference::max_pool (only the output quantization is used: the activation bounds).
template <class T>
void max_pool(const T* x, const reference::Shape4& s, const reference::PoolWindow& w,
              const reference::TensorQuant& out, Activation act, reference::MaxPoolVariant variant, T* y);
template <class T>
void max_pool(Isa isa, const T* x, const reference::Shape4& s, const reference::PoolWindow& w,
              const reference::TensorQuant& out, Activation act, reference::MaxPoolVariant variant, T* y);

/// reference::mean of the NHWC tensor `x` over axes {1, 2} (H and W): y has s.n * s.c elements
/// (the [N, 1, 1, C] or [N, C] result). Equal to reference::mean with spec {axes {1, 2}, keep_dims
/// true} for every variant (the H,W variants are the kernels TFLite runs only with keep_dims; the
/// caller picks the variant). Throws where the reference does, and for more than 2^23 pixels per
/// image (the exact int32 sums' limit).
template <class T>
void mean_hw(const T* x, const reference::Shape4& s, const reference::TensorQuant& in,
             const reference::TensorQuant& out, reference::MeanVariant variant, T* y,
             TfliteBuild build = TfliteBuild::kDoubleRounding, reference::NpuHypothesis npu = {});
template <class T>
void mean_hw(Isa isa, const T* x, const reference::Shape4& s, const reference::TensorQuant& in,
             const reference::TensorQuant& out, reference::MeanVariant variant, T* y,
             TfliteBuild build = TfliteBuild::kDoubleRounding, reference::NpuHypothesis npu = {});

/// The ISA whose pooling kernels the path `isa` runs (its own, else the nearest ancestor's).
Isa pooling_kernel_isa(Isa isa);

#define QPARITY_POOLING_EXTERN(T)                                                                       \
  extern template void average_pool<T>(const T*, const reference::Shape4&, const reference::PoolWindow&, \
                                       const reference::TensorQuant&, const reference::TensorQuant&,      \
                                       Activation, reference::AveragePoolVariant, T*,                     \
                                       reference::NpuHypothesis);                                         \
  extern template void average_pool<T>(Isa, const T*, const reference::Shape4&,                          \
                                       const reference::PoolWindow&, const reference::TensorQuant&,       \
                                       const reference::TensorQuant&, Activation,                         \
                                       reference::AveragePoolVariant, T*, reference::NpuHypothesis);      \
  extern template void max_pool<T>(const T*, const reference::Shape4&, const reference::PoolWindow&,     \
                                   const reference::TensorQuant&, Activation, reference::MaxPoolVariant,  \
                                   T*);                                                                   \
  extern template void max_pool<T>(Isa, const T*, const reference::Shape4&, const reference::PoolWindow&,\
                                   const reference::TensorQuant&, Activation, reference::MaxPoolVariant,  \
                                   T*);                                                                   \
  extern template void mean_hw<T>(const T*, const reference::Shape4&, const reference::TensorQuant&,     \
                                  const reference::TensorQuant&, reference::MeanVariant, T*, TfliteBuild, \
                                  reference::NpuHypothesis);                                              \
  extern template void mean_hw<T>(Isa, const T*, const reference::Shape4&, const reference::TensorQuant&,\
                                  const reference::TensorQuant&, reference::MeanVariant, T*, TfliteBuild, \
                                  reference::NpuHypothesis);
QPARITY_POOLING_EXTERN(std::int8_t)
QPARITY_POOLING_EXTERN(std::uint8_t)
#undef QPARITY_POOLING_EXTERN

}  // namespace qparity
