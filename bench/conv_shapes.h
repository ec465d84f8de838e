// The convolution shapes conv_bench measures (NHWC, batch 1, TensorFlow SAME padding, int8).
//
// Seven headline shapes (3x3 stride-1 convolutions of a ResNet-like ladder, a 1x1 expansion, two
// 3x3 depthwise layers), then every convolution and depthwise layer of MobileNet v1 and v2 at
// 224x224 (width multiplier 1), in network order, one row per layer (repeated shapes included, so
// that the mnv2/all rows add up the whole network; the classifier is a GEMM, see gemm_shapes.h).
//
// Names: <net>/L<i>_<kind>_<in_h>x<in_w>x<in_c>[to<out_c>], with i the layer's position among the
// network's conv and depthwise layers (1-based), kind conv<k>x<k>s<stride> or dw3x3s<stride>.
// MobileNet v2 blocks are expansion 1x1 (absent in the first block), depthwise 3x3, projection 1x1.
// Totals: MobileNet v1 567.7 M MACs over 27 layers, v2 299.5 M MACs over 52 layers.
#pragma once

#include <cstddef>

namespace qparity_bench {

struct ConvBenchShape {
  const char* name;
  std::size_t in_h, in_w, in_c, out_c;  ///< depthwise: out_c == in_c (multiplier 1)
  std::size_t kernel, stride;           ///< square kernel and stride, SAME padding, no dilation
  bool depthwise;

  std::size_t out_h() const { return (in_h + stride - 1) / stride; }
  std::size_t out_w() const { return (in_w + stride - 1) / stride; }
  /// Multiply-accumulates of one run (OPS = 2 * MACs).
  double macs() const {
    return static_cast<double>(out_h() * out_w() * out_c * kernel * kernel * (depthwise ? 1 : in_c));
  }
};

inline constexpr ConvBenchShape kConvBenchShapes[] = {
    // Headline shapes.
    {"56x56x64to64_3x3", 56, 56, 64, 64, 3, 1, false},
    {"28x28x128to128_3x3", 28, 28, 128, 128, 3, 1, false},
    {"14x14x256to256_3x3", 14, 14, 256, 256, 3, 1, false},
    {"7x7x512to512_3x3", 7, 7, 512, 512, 3, 1, false},
    {"112x112x32to64_1x1", 112, 112, 32, 64, 1, 1, false},
    {"dw3x3_112x112x32", 112, 112, 32, 32, 3, 1, true},
    {"dw3x3_14x14x512", 14, 14, 512, 512, 3, 1, true},

    // MobileNet v1 (224x224).
    {"mnv1/L01_conv3x3s2_224x224x3to32", 224, 224, 3, 32, 3, 2, false},
    {"mnv1/L02_dw3x3s1_112x112x32", 112, 112, 32, 32, 3, 1, true},
    {"mnv1/L03_conv1x1s1_112x112x32to64", 112, 112, 32, 64, 1, 1, false},
    {"mnv1/L04_dw3x3s2_112x112x64", 112, 112, 64, 64, 3, 2, true},
    {"mnv1/L05_conv1x1s1_56x56x64to128", 56, 56, 64, 128, 1, 1, false},
    {"mnv1/L06_dw3x3s1_56x56x128", 56, 56, 128, 128, 3, 1, true},
    {"mnv1/L07_conv1x1s1_56x56x128to128", 56, 56, 128, 128, 1, 1, false},
    {"mnv1/L08_dw3x3s2_56x56x128", 56, 56, 128, 128, 3, 2, true},
    {"mnv1/L09_conv1x1s1_28x28x128to256", 28, 28, 128, 256, 1, 1, false},
    {"mnv1/L10_dw3x3s1_28x28x256", 28, 28, 256, 256, 3, 1, true},
    {"mnv1/L11_conv1x1s1_28x28x256to256", 28, 28, 256, 256, 1, 1, false},
    {"mnv1/L12_dw3x3s2_28x28x256", 28, 28, 256, 256, 3, 2, true},
    {"mnv1/L13_conv1x1s1_14x14x256to512", 14, 14, 256, 512, 1, 1, false},
    {"mnv1/L14_dw3x3s1_14x14x512", 14, 14, 512, 512, 3, 1, true},
    {"mnv1/L15_conv1x1s1_14x14x512to512", 14, 14, 512, 512, 1, 1, false},
    {"mnv1/L16_dw3x3s1_14x14x512", 14, 14, 512, 512, 3, 1, true},
    {"mnv1/L17_conv1x1s1_14x14x512to512", 14, 14, 512, 512, 1, 1, false},
    {"mnv1/L18_dw3x3s1_14x14x512", 14, 14, 512, 512, 3, 1, true},
    {"mnv1/L19_conv1x1s1_14x14x512to512", 14, 14, 512, 512, 1, 1, false},
    {"mnv1/L20_dw3x3s1_14x14x512", 14, 14, 512, 512, 3, 1, true},
    {"mnv1/L21_conv1x1s1_14x14x512to512", 14, 14, 512, 512, 1, 1, false},
    {"mnv1/L22_dw3x3s1_14x14x512", 14, 14, 512, 512, 3, 1, true},
    {"mnv1/L23_conv1x1s1_14x14x512to512", 14, 14, 512, 512, 1, 1, false},
    {"mnv1/L24_dw3x3s2_14x14x512", 14, 14, 512, 512, 3, 2, true},
    {"mnv1/L25_conv1x1s1_7x7x512to1024", 7, 7, 512, 1024, 1, 1, false},
    {"mnv1/L26_dw3x3s1_7x7x1024", 7, 7, 1024, 1024, 3, 1, true},
    {"mnv1/L27_conv1x1s1_7x7x1024to1024", 7, 7, 1024, 1024, 1, 1, false},

    // MobileNet v2 (224x224).
    {"mnv2/L01_conv3x3s2_224x224x3to32", 224, 224, 3, 32, 3, 2, false},
    {"mnv2/L02_dw3x3s1_112x112x32", 112, 112, 32, 32, 3, 1, true},
    {"mnv2/L03_conv1x1s1_112x112x32to16", 112, 112, 32, 16, 1, 1, false},
    {"mnv2/L04_conv1x1s1_112x112x16to96", 112, 112, 16, 96, 1, 1, false},
    {"mnv2/L05_dw3x3s2_112x112x96", 112, 112, 96, 96, 3, 2, true},
    {"mnv2/L06_conv1x1s1_56x56x96to24", 56, 56, 96, 24, 1, 1, false},
    {"mnv2/L07_conv1x1s1_56x56x24to144", 56, 56, 24, 144, 1, 1, false},
    {"mnv2/L08_dw3x3s1_56x56x144", 56, 56, 144, 144, 3, 1, true},
    {"mnv2/L09_conv1x1s1_56x56x144to24", 56, 56, 144, 24, 1, 1, false},
    {"mnv2/L10_conv1x1s1_56x56x24to144", 56, 56, 24, 144, 1, 1, false},
    {"mnv2/L11_dw3x3s2_56x56x144", 56, 56, 144, 144, 3, 2, true},
    {"mnv2/L12_conv1x1s1_28x28x144to32", 28, 28, 144, 32, 1, 1, false},
    {"mnv2/L13_conv1x1s1_28x28x32to192", 28, 28, 32, 192, 1, 1, false},
    {"mnv2/L14_dw3x3s1_28x28x192", 28, 28, 192, 192, 3, 1, true},
    {"mnv2/L15_conv1x1s1_28x28x192to32", 28, 28, 192, 32, 1, 1, false},
    {"mnv2/L16_conv1x1s1_28x28x32to192", 28, 28, 32, 192, 1, 1, false},
    {"mnv2/L17_dw3x3s1_28x28x192", 28, 28, 192, 192, 3, 1, true},
    {"mnv2/L18_conv1x1s1_28x28x192to32", 28, 28, 192, 32, 1, 1, false},
    {"mnv2/L19_conv1x1s1_28x28x32to192", 28, 28, 32, 192, 1, 1, false},
    {"mnv2/L20_dw3x3s2_28x28x192", 28, 28, 192, 192, 3, 2, true},
    {"mnv2/L21_conv1x1s1_14x14x192to64", 14, 14, 192, 64, 1, 1, false},
    {"mnv2/L22_conv1x1s1_14x14x64to384", 14, 14, 64, 384, 1, 1, false},
    {"mnv2/L23_dw3x3s1_14x14x384", 14, 14, 384, 384, 3, 1, true},
    {"mnv2/L24_conv1x1s1_14x14x384to64", 14, 14, 384, 64, 1, 1, false},
    {"mnv2/L25_conv1x1s1_14x14x64to384", 14, 14, 64, 384, 1, 1, false},
    {"mnv2/L26_dw3x3s1_14x14x384", 14, 14, 384, 384, 3, 1, true},
    {"mnv2/L27_conv1x1s1_14x14x384to64", 14, 14, 384, 64, 1, 1, false},
    {"mnv2/L28_conv1x1s1_14x14x64to384", 14, 14, 64, 384, 1, 1, false},
    {"mnv2/L29_dw3x3s1_14x14x384", 14, 14, 384, 384, 3, 1, true},
    {"mnv2/L30_conv1x1s1_14x14x384to64", 14, 14, 384, 64, 1, 1, false},
    {"mnv2/L31_conv1x1s1_14x14x64to384", 14, 14, 64, 384, 1, 1, false},
    {"mnv2/L32_dw3x3s1_14x14x384", 14, 14, 384, 384, 3, 1, true},
    {"mnv2/L33_conv1x1s1_14x14x384to96", 14, 14, 384, 96, 1, 1, false},
    {"mnv2/L34_conv1x1s1_14x14x96to576", 14, 14, 96, 576, 1, 1, false},
    {"mnv2/L35_dw3x3s1_14x14x576", 14, 14, 576, 576, 3, 1, true},
    {"mnv2/L36_conv1x1s1_14x14x576to96", 14, 14, 576, 96, 1, 1, false},
    {"mnv2/L37_conv1x1s1_14x14x96to576", 14, 14, 96, 576, 1, 1, false},
    {"mnv2/L38_dw3x3s1_14x14x576", 14, 14, 576, 576, 3, 1, true},
    {"mnv2/L39_conv1x1s1_14x14x576to96", 14, 14, 576, 96, 1, 1, false},
    {"mnv2/L40_conv1x1s1_14x14x96to576", 14, 14, 96, 576, 1, 1, false},
    {"mnv2/L41_dw3x3s2_14x14x576", 14, 14, 576, 576, 3, 2, true},
    {"mnv2/L42_conv1x1s1_7x7x576to160", 7, 7, 576, 160, 1, 1, false},
    {"mnv2/L43_conv1x1s1_7x7x160to960", 7, 7, 160, 960, 1, 1, false},
    {"mnv2/L44_dw3x3s1_7x7x960", 7, 7, 960, 960, 3, 1, true},
    {"mnv2/L45_conv1x1s1_7x7x960to160", 7, 7, 960, 160, 1, 1, false},
    {"mnv2/L46_conv1x1s1_7x7x160to960", 7, 7, 160, 960, 1, 1, false},
    {"mnv2/L47_dw3x3s1_7x7x960", 7, 7, 960, 960, 3, 1, true},
    {"mnv2/L48_conv1x1s1_7x7x960to160", 7, 7, 960, 160, 1, 1, false},
    {"mnv2/L49_conv1x1s1_7x7x160to960", 7, 7, 160, 960, 1, 1, false},
    {"mnv2/L50_dw3x3s1_7x7x960", 7, 7, 960, 960, 3, 1, true},
    {"mnv2/L51_conv1x1s1_7x7x960to320", 7, 7, 960, 320, 1, 1, false},
    {"mnv2/L52_conv1x1s1_7x7x320to1280", 7, 7, 320, 1280, 1, 1, false},
};

/// The first MobileNet v2 layer's index in kConvBenchShapes (the mnv2/all rows run every entry from
/// there to the end).
/// The headline layers (issue 19's targets; the two-thread rows): the first seven.
inline constexpr std::size_t kNumHeadlineConvShapes = 7;
inline constexpr std::size_t kFirstMobilenetV2Shape = 7 + 27;
inline constexpr std::size_t kNumConvBenchShapes = sizeof(kConvBenchShapes) / sizeof(kConvBenchShapes[0]);

}  // namespace qparity_bench
