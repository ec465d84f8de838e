// The compiled AVERAGE_POOL_2D, MAX_POOL_2D and H,W MEAN (include/qparity/pooling.h) against the
// header-only references (reference/pooling.h, reference/mean.h), element by element at tolerance
// 0, on every ISA path this CPU supports (isa_coverage.cc fails the run if one was not exercised)
// x every variant x int8 / uint8, on an edge suite: windows partly outside the image (SAME), the
// output pixels whose window holds 1, 2, 4, 6 or 9 taps, strides larger and smaller than the
// window, odd sizes 1 / 3 / 7 / 17, channel counts around every vector width (1 .. 129, 1280), zero
// points at both ends of the type, ties of both signs (even tap counts over full-range data, and
// power-of-two scales for the rounding-core variants), every fused activation, windows of more
// than 128 taps (the int16 chunk flush) and of more than 16383 (the unfused integer division),
// MEAN planes up to 40,000 pixels, and bad arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "isa_coverage.h"
#include "qparity/pooling.h"
#include "qparity/reference/mean.h"
#include "qparity/reference/pooling.h"

namespace {

using namespace qparity;
using reference::AveragePoolVariant;
using reference::MaxPoolVariant;
using reference::MeanVariant;
using reference::NpuHypothesis;
using reference::PoolWindow;
using reference::Shape4;
using reference::TensorQuant;

template <class T>
std::vector<T> random_data(std::mt19937& rng, std::size_t n, std::int32_t lo, std::int32_t hi) {
  std::uniform_int_distribution<std::int32_t> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

template <class T>
constexpr std::int32_t tmin() {
  return std::is_same<T, std::int8_t>::value ? -128 : 0;
}
template <class T>
constexpr std::int32_t tmax() {
  return std::is_same<T, std::int8_t>::value ? 127 : 255;
}
template <class T>
const char* tname() {
  return std::is_same<T, std::int8_t>::value ? "int8" : "uint8";
}

template <class T>
std::string first_difference(const std::vector<T>& want, const std::vector<T>& got) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return "";
  std::ostringstream s;
  s << bad << " of " << want.size() << " elements differ; first at " << first << ": reference "
    << static_cast<int>(want[first]) << ", compiled " << static_cast<int>(got[first]);
  return s.str();
}

const Activation kActivations[] = {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1};

const NpuHypothesis kNpus[] = {{TieRule::kHalfToEven, NpuMultiplierPrecision::kQ15},
                               {TieRule::kHalfUp, NpuMultiplierPrecision::kQ31},
                               {TieRule::kHalfAwayFromZero, NpuMultiplierPrecision::kFloat24}};

struct PoolCase {
  Shape4 shape;
  std::size_t fh, fw, sh, sw;
  Padding padding;
  std::size_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;  ///< Padding::kExplicit (ONNX pads)
};

// Geometries: SAME windows partly outside on every side, strides > window, 1x1 images, odd sizes,
// channel counts around 16 / 32 / 64 / 128 lanes.
const PoolCase kPoolCases[] = {
    {{1, 7, 7, 3}, 3, 3, 2, 2, Padding::kSame},       {{1, 17, 17, 5}, 5, 5, 3, 3, Padding::kSame},
    {{1, 3, 3, 1}, 2, 2, 1, 1, Padding::kValid},      {{1, 1, 1, 2}, 1, 1, 1, 1, Padding::kValid},
    {{2, 6, 5, 4}, 2, 3, 2, 1, Padding::kSame},       {{1, 8, 8, 17}, 4, 4, 4, 4, Padding::kValid},
    {{1, 7, 7, 33}, 3, 3, 1, 1, Padding::kSame},      {{1, 9, 9, 64}, 3, 3, 2, 2, Padding::kSame},
    {{1, 5, 5, 65}, 2, 2, 2, 2, Padding::kSame},      {{1, 4, 4, 129}, 3, 3, 1, 1, Padding::kSame},
    {{2, 3, 7, 31}, 7, 7, 1, 1, Padding::kSame},      {{1, 11, 11, 16}, 1, 1, 3, 3, Padding::kSame},
    {{1, 17, 17, 15}, 13, 13, 2, 2, Padding::kSame},  {{1, 3, 17, 63}, 1, 17, 1, 5, Padding::kSame},
    {{1, 6, 6, 127}, 2, 2, 3, 3, Padding::kSame},     {{1, 15, 15, 32}, 15, 15, 1, 1, Padding::kValid},
    {{1, 7, 9, 17}, 3, 2, 2, 1, Padding::kExplicit, 2, 0, 1, 1},  // asymmetric explicit pads
    {{1, 5, 5, 33}, 3, 3, 1, 2, Padding::kExplicit, 0, 2, 2, 1},
};

/// Quantizations per type: zero points at both ends and inside; power-of-two and odd scales
/// (the activation bounds tie at scale 4 with an odd zero point).
template <class T>
std::vector<std::pair<TensorQuant, TensorQuant>> pool_quants() {
  std::vector<std::pair<TensorQuant, TensorQuant>> q;
  q.push_back({{0.25f, tmin<T>()}, {0.25f, tmin<T>()}});
  q.push_back({{0.25f, tmax<T>()}, {0.25f, tmax<T>()}});
  q.push_back({{4.0f, tmin<T>() + 1}, {4.0f, tmin<T>() + 1}});
  q.push_back({{0.5f, tmin<T>() + 129}, {0.5f, tmin<T>() + 129}});
  q.push_back({{0.1f, tmin<T>() + 3}, {0.3f, tmin<T>() + 200}});  // different in / out (NPU, float32)
  return q;
}

template <class T>
void check_pools(Isa isa) {
  std::mt19937 rng(20261126);
  int index = 0;
  for (const PoolCase& pc : kPoolCases) {
    const std::vector<T> x = random_data<T>(rng, pc.shape.size(), tmin<T>(), tmax<T>());
    PoolWindow w;
    w.filter_h = pc.fh;
    w.filter_w = pc.fw;
    w.stride_h = pc.sh;
    w.stride_w = pc.sw;
    w.padding = pc.padding;
    w.pad_top = pc.pad_top;
    w.pad_bottom = pc.pad_bottom;
    w.pad_left = pc.pad_left;
    w.pad_right = pc.pad_right;
    const Shape4 os = reference::pool_output_shape(pc.shape, w);
    for (const auto& q : pool_quants<T>()) {
      const Activation act = kActivations[index++ % 4];
      std::ostringstream what;
      what << to_string(isa) << " " << tname<T>() << " " << pc.shape.n << "x" << pc.shape.h << "x" << pc.shape.w
           << "x" << pc.shape.c << " f" << pc.fh << "x" << pc.fw << " s" << pc.sh << "x" << pc.sw << " "
           << to_string(pc.padding) << " zp " << q.first.zero_point << " scale " << q.first.scale << " act "
           << static_cast<int>(act);
      std::vector<T> got(os.size());
      for (AveragePoolVariant v :
           {AveragePoolVariant::kTflite, AveragePoolVariant::kNpuSingleRounding, AveragePoolVariant::kFloat32}) {
        for (const NpuHypothesis& npu : kNpus) {
          if (v != AveragePoolVariant::kNpuSingleRounding && &npu != &kNpus[0]) continue;
          const std::vector<T> want = reference::average_pool(x, pc.shape, w, q.first, q.second, act, v, npu);
          average_pool(isa, x.data(), pc.shape, w, q.first, q.second, act, v, got.data(), npu);
          EXPECT_EQ(first_difference(want, got), "") << "average_pool variant " << static_cast<int>(v) << " " << what.str();
        }
      }
      for (MaxPoolVariant v : {MaxPoolVariant::kTflite, MaxPoolVariant::kXnnpack}) {
        const std::vector<T> want = reference::max_pool(x, pc.shape, w, q.second, act, v);
        max_pool(isa, x.data(), pc.shape, w, q.second, act, v, got.data());
        EXPECT_EQ(first_difference(want, got), "") << "max_pool variant " << static_cast<int>(v) << " " << what.str();
      }
    }
  }
}

TEST(Pooling, EveryIsaMatchesReferenceInt8) {
  qparity_test::for_each_supported_isa([](Isa isa) { check_pools<std::int8_t>(isa); });
}

TEST(Pooling, EveryIsaMatchesReferenceUint8) {
  qparity_test::for_each_supported_isa([](Isa isa) { check_pools<std::uint8_t>(isa); });
}

// Windows of more than 16383 taps (the unfused integer division) and of more than 128 (the int16
// chunk flush), with data at the type's extremes so the sums are the largest possible.
template <class T>
void check_large_windows(Isa isa) {
  std::mt19937 rng(7);
  for (int extreme = 0; extreme < 3; ++extreme) {
    const Shape4 s{1, 129, 129, 3};
    std::vector<T> x = random_data<T>(rng, s.size(), tmin<T>(), tmax<T>());
    if (extreme == 1) x.assign(x.size(), static_cast<T>(tmin<T>()));
    if (extreme == 2) x.assign(x.size(), static_cast<T>(tmax<T>()));
    for (std::size_t f : {129u, 12u}) {
      PoolWindow w;
      w.filter_h = w.filter_w = f;
      w.stride_h = w.stride_w = f == 129 ? 1 : 5;
      w.padding = f == 129 ? Padding::kValid : Padding::kSame;  // one 16641-tap window; 144-tap ones
      const TensorQuant q{0.5f, tmin<T>() + 7};
      const Shape4 os = reference::pool_output_shape(s, w);
      std::vector<T> got(os.size());
      for (AveragePoolVariant v :
           {AveragePoolVariant::kTflite, AveragePoolVariant::kNpuSingleRounding, AveragePoolVariant::kFloat32}) {
        const std::vector<T> want = reference::average_pool(x, s, w, q, q, Activation::kNone, v);
        average_pool(isa, x.data(), s, w, q, q, Activation::kNone, v, got.data());
        EXPECT_EQ(first_difference(want, got), "")
            << to_string(isa) << " " << tname<T>() << " filter " << f << " variant " << static_cast<int>(v);
      }
      const std::vector<T> want = reference::max_pool(x, s, w, q, Activation::kRelu, MaxPoolVariant::kTflite);
      max_pool(isa, x.data(), s, w, q, Activation::kRelu, MaxPoolVariant::kTflite, got.data());
      EXPECT_EQ(first_difference(want, got), "") << to_string(isa) << " max filter " << f;
    }
  }
}

TEST(Pooling, LargeWindowsEveryIsa) {
  qparity_test::for_each_supported_isa([](Isa isa) {
    check_large_windows<std::int8_t>(isa);
    check_large_windows<std::uint8_t>(isa);
  });
}

const MeanVariant kMeanVariants[] = {
    MeanVariant::kTfliteOptimizedHW, MeanVariant::kTfliteOptimizedHWNeon, MeanVariant::kTfliteReference,
    MeanVariant::kTflmHW,            MeanVariant::kTflmSameQuantTruncate, MeanVariant::kXnnpack,
    MeanVariant::kNpuSingleRounding, MeanVariant::kFloat32};

template <class T>
void check_means(Isa isa) {
  std::mt19937 rng(99);
  const Shape4 shapes[] = {{1, 7, 7, 1280}, {2, 17, 17, 3}, {1, 1, 1, 5},   {1, 3, 7, 33},
                           {2, 13, 13, 64}, {1, 7, 7, 20},  {2, 3, 3, 17}, {1, 200, 200, 2}};
  // Equal and different quantizations, zero points at both ends, power-of-two scales (ties).
  const std::pair<TensorQuant, TensorQuant> quants[] = {
      {{0.25f, tmin<T>()}, {0.25f, tmin<T>()}},          {{0.25f, tmin<T>() + 129}, {0.1f, tmin<T>() + 131}},
      {{0.5f, tmax<T>()}, {0.0625f, tmin<T>() + 123}},   {{0.125f, tmin<T>() + 128}, {0.3f, tmin<T>() + 128}},
      {{0.5f, tmin<T>()}, {0.2f, tmax<T>()}},            {{1.0f, tmin<T>() + 128}, {0.5f, tmin<T>() + 128}},
  };
  for (const Shape4& s : shapes) {
    const std::vector<T> x = random_data<T>(rng, s.size(), tmin<T>(), tmax<T>());
    const std::vector<std::size_t> dims{s.n, s.h, s.w, s.c};
    reference::MeanSpec spec;
    spec.axes = {1, 2};
    spec.keep_dims = true;
    std::vector<T> got(s.n * s.c);
    for (const auto& q : quants) {
      for (MeanVariant v : kMeanVariants) {
        if (v == MeanVariant::kTflmSameQuantTruncate && !(q.first.scale == q.second.scale && q.first.zero_point == q.second.zero_point)) continue;
        for (TfliteBuild build : {TfliteBuild::kDoubleRounding, TfliteBuild::kSingleRounding}) {
          for (const NpuHypothesis& npu : kNpus) {
            if (v != MeanVariant::kNpuSingleRounding && &npu != &kNpus[0]) continue;
            const std::vector<T> want = reference::mean(x, dims, spec, q.first, q.second, v, build, npu);
            mean_hw(isa, x.data(), s, q.first, q.second, v, got.data(), build, npu);
            EXPECT_EQ(first_difference(want, got), "")
                << to_string(isa) << " " << tname<T>() << " MEAN " << s.n << "x" << s.h << "x" << s.w << "x" << s.c
                << " variant " << static_cast<int>(v) << " build " << static_cast<int>(build) << " in (" << q.first.scale
                << ", " << q.first.zero_point << ") out (" << q.second.scale << ", " << q.second.zero_point << ")";
          }
        }
      }
    }
  }
}

TEST(Pooling, MeanEveryIsaMatchesReference) {
  qparity_test::for_each_supported_isa([](Isa isa) {
    check_means<std::int8_t>(isa);
    check_means<std::uint8_t>(isa);
  });
}

// Ties of both signs with the fused HAZ division: 2-tap windows over values whose sums are odd, so
// every mean is an exact half (+0.5 and -0.5 .. +-127.5), and the extremes of the sum.
TEST(Pooling, AverageTiesOfBothSignsEveryIsa) {
  qparity_test::for_each_supported_isa([](Isa isa) {
    const Shape4 s{1, 1, 2, 256};
    std::vector<std::int8_t> x(s.size());
    for (std::size_t c = 0; c < 256; ++c) {
      x[c] = static_cast<std::int8_t>(static_cast<int>(c) - 128);
      x[256 + c] = static_cast<std::int8_t>(static_cast<int>(c) - 127 > 127 ? 127 : static_cast<int>(c) - 127);
    }
    PoolWindow w;
    w.filter_h = 1;
    w.filter_w = 2;
    w.padding = Padding::kValid;
    const TensorQuant q{1.0f, 0};
    std::vector<std::int8_t> got(256);
    const std::vector<std::int8_t> want =
        reference::average_pool(x, s, w, q, q, Activation::kNone, AveragePoolVariant::kTflite);
    average_pool(isa, x.data(), s, w, q, q, Activation::kNone, AveragePoolVariant::kTflite, got.data());
    EXPECT_EQ(first_difference(want, got), "") << to_string(isa);
    EXPECT_EQ(got[128 - 1], -1);  // (-1 + 0) / 2 = -0.5 -> -1 (away from zero)
    EXPECT_EQ(got[128], 1);       // (0 + 1) / 2 = 0.5 -> 1
  });
}

TEST(Pooling, BadArgumentsThrowLikeTheReference) {
  const Shape4 s{1, 3, 3, 2};
  std::vector<std::int8_t> x(s.size()), y(s.size());
  PoolWindow w;
  w.filter_h = w.filter_w = 2;
  w.padding = Padding::kExplicit;
  w.pad_left = 2;  // as wide as the filter: a window of padding only
  const TensorQuant q{0.5f, 0};
  EXPECT_THROW(max_pool(x.data(), s, w, q, Activation::kNone, MaxPoolVariant::kTflite, y.data()), InvalidArgument);
  w.padding = Padding::kSame;
  EXPECT_THROW(average_pool(x.data(), s, w, TensorQuant{0.0f, 0}, q, Activation::kNone, AveragePoolVariant::kTflite,
                            y.data()),
               InvalidArgument);
  EXPECT_THROW(average_pool(x.data(), s, w, q, q, Activation::kNone, AveragePoolVariant::kTflite,
                            static_cast<std::int8_t*>(nullptr)),
               InvalidArgument);
  EXPECT_THROW(mean_hw(x.data(), s, q, TensorQuant{0.25f, 0}, MeanVariant::kTflmSameQuantTruncate, y.data()),
               InvalidArgument);
  std::vector<std::uint8_t> xu(s.size()), yu(s.size());
  EXPECT_THROW(mean_hw(xu.data(), s, TensorQuant{0.5f, -1}, q, MeanVariant::kXnnpack, yu.data()), InvalidArgument);
  EXPECT_THROW(mean_hw(xu.data(), Shape4{1, 0, 3, 2}, q, q, MeanVariant::kXnnpack, yu.data()), InvalidArgument);
  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) != 0) continue;
    EXPECT_THROW(max_pool(isa, x.data(), s, w, q, Activation::kNone, MaxPoolVariant::kTflite, y.data()),
                 InvalidArgument)
        << to_string(isa);
  }
}

TEST(Pooling, KernelIsaFollowsTheParentChain) {
  EXPECT_EQ(pooling_kernel_isa(Isa::kScalar), Isa::kScalar);
  EXPECT_EQ(pooling_kernel_isa(Isa::kSse41), Isa::kScalar);
  if ((compiled_isas() & mask_of(Isa::kAvx2)) != 0) {
    EXPECT_EQ(pooling_kernel_isa(Isa::kAvxVnni), Isa::kAvx2);
  }
  if ((compiled_isas() & mask_of(Isa::kAvx512)) != 0) {
    EXPECT_EQ(pooling_kernel_isa(Isa::kAvx512Vnni), Isa::kAvx512);
    EXPECT_EQ(pooling_kernel_isa(Isa::kAmx), Isa::kAvx512);
  }
}

}  // namespace
