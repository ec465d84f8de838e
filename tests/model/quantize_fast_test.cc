// QUANTIZE float32 -> int8 / uint8 on Engine::kFast (tools/model/ops/quantize_fast.h) against
// reference::quantize_float, element by element, for every variant x type x quantization: ties of
// both signs at every grid point of the 8-bit range and the floats around them (+-4 ulps), values
// where float and double division part, 2^22 float bit patterns spread over the whole 32-bit space
// (every exponent: denormals, huge values, infinities, NaNs), and the saturating ends.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "model/ops/quantize_fast.h"

namespace {

using qparity::reference::QuantizeFloatVariant;
using qparity::reference::TensorQuant;

std::vector<float> test_values(float s) {
  std::vector<float> v;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 1021) {  // 2^22 patterns
    const auto b = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    v.push_back(f);
  }
  for (int k = -1200; k <= 1200; ++k) {
    for (float base : {static_cast<float>(k) * 0.5f * s, static_cast<float>(k + 0.5) * s, static_cast<float>(k) * s}) {
      float f = base;
      for (int u = 0; u < 4; ++u) f = std::nextafter(f, std::numeric_limits<float>::infinity());
      for (int u = 0; u < 9; ++u) {
        v.push_back(f);
        f = std::nextafter(f, -std::numeric_limits<float>::infinity());
      }
    }
  }
  for (int k = -1300; k <= 1300; ++k) v.push_back(static_cast<float>(k) * 0.01f);
  for (float f : {0.0f, -0.0f, 1e6f, -1e6f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min(), 1023.5f * s,
                  -1023.5f * s, 1024.5f * s, -1024.5f * s, 2147483648.0f, -2147483648.0f}) {
    v.push_back(f);
  }
  return v;
}

template <class T>
void check(QuantizeFloatVariant variant, const TensorQuant& q) {
  const std::vector<float> x = test_values(q.scale);
  std::vector<T> got(x.size());
  qparity::model::quantize_floats<T>(x.data(), x.size(), q, variant, got.data());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T want = qparity::reference::quantize_float<T>(x[i], q, variant);
    if (want != got[i] && bad++ < 3) {
      ADD_FAILURE() << "variant " << static_cast<int>(variant) << " scale " << q.scale << " zp " << q.zero_point
                    << " x = " << x[i] << ": reference " << static_cast<int>(want) << ", fast " << static_cast<int>(got[i]);
    }
  }
  EXPECT_EQ(bad, 0u);
}

const QuantizeFloatVariant kVariants[] = {QuantizeFloatVariant::kTfliteFloatDivide,
                                          QuantizeFloatVariant::kTfliteDoubleDivide, QuantizeFloatVariant::kXnnpack,
                                          QuantizeFloatVariant::kFloat32DivideHalfEven};

TEST(QuantizeFast, Int8EqualsReference) {
  for (QuantizeFloatVariant v : kVariants) {
    for (const TensorQuant& q : {TensorQuant{0.5f, 0}, TensorQuant{0.1f, -128}, TensorQuant{6.0f / 255.0f, 127},
                                 TensorQuant{3.0f, 5}, TensorQuant{1e-6f, 0}, TensorQuant{1e6f, -7}}) {
      check<std::int8_t>(v, q);
    }
  }
}

TEST(QuantizeFast, Uint8EqualsReference) {
  for (QuantizeFloatVariant v : kVariants) {
    for (const TensorQuant& q : {TensorQuant{0.25f, 128}, TensorQuant{0.1f, 0}, TensorQuant{0.5f, 255},
                                 TensorQuant{0.0078125f, 3}}) {
      check<std::uint8_t>(v, q);
    }
  }
}

}  // namespace
