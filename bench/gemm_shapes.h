// The GEMM shapes gemm_bench measures: C[M x N] = A[M x K] * B[K x N].
//
// Square sizes, a batch-1 fully-connected layer, two convolution-like shapes, and every distinct
// GEMM of MobileNet v1 and v2 at 224x224 (width multiplier 1): for a convolution lowered to a GEMM,
// M = output height x width, N = output channels, K = input channels x kernel height x width.
// Depthwise layers are not GEMMs and are left out.
//
// Layer names: mnv1_l<i> / mnv2_l<i> number the network's GEMM layers in order (standard and
// pointwise convolutions and the classifier), suffixed with the kind (3x3s2: the 3x3 stride-2 stem;
// 1x1; fc). A layer whose shape an earlier layer already has is not listed again; `repeats` says
// how many layers of the network have the shape, to weight a row when adding up a network.
#pragma once

#include <cstddef>

namespace qparity_bench {

struct GemmBenchShape {
  const char* name;
  std::size_t m, n, k;
  int repeats;  ///< GEMM layers of the network with this shape (1 for the synthetic shapes)
};

inline constexpr GemmBenchShape kGemmBenchShapes[] = {
    {"64x64x64", 64, 64, 64, 1},
    {"256x256x256", 256, 256, 256, 1},
    {"512x512x512", 512, 512, 512, 1},
    {"1024x1024x1024", 1024, 1024, 1024, 1},
    {"1x1000x1024", 1, 1000, 1024, 1},    // fully-connected, batch 1 (= MobileNet v1's l15_fc)
    {"3136x64x64", 3136, 64, 64, 1},      // 56x56 1x1 convolution, 64 -> 64
    {"784x128x1152", 784, 128, 1152, 1},  // 28x28 3x3 convolution, 128 -> 128

    // MobileNet v1 (224x224): stem, 13 pointwise convolutions (l2..l14); the classifier, l15, is
    // 1x1000x1024 above.
    {"mnv1_l1_3x3s2", 12544, 32, 27, 1},  // 224x224x3 -> 112x112x32 (also MobileNet v2's stem)
    {"mnv1_l2_1x1", 12544, 64, 32, 1},    // 112x112, 32 -> 64
    {"mnv1_l3_1x1", 3136, 128, 64, 1},    // 56x56, 64 -> 128
    {"mnv1_l4_1x1", 3136, 128, 128, 1},   // 56x56, 128 -> 128
    {"mnv1_l5_1x1", 784, 256, 128, 1},    // 28x28, 128 -> 256
    {"mnv1_l6_1x1", 784, 256, 256, 1},    // 28x28, 256 -> 256
    {"mnv1_l7_1x1", 196, 512, 256, 1},    // 14x14, 256 -> 512
    {"mnv1_l8_1x1", 196, 512, 512, 5},    // 14x14, 512 -> 512 (l8..l12)
    {"mnv1_l13_1x1", 49, 1024, 512, 1},   // 7x7, 512 -> 1024
    {"mnv1_l14_1x1", 49, 1024, 1024, 1},  // 7x7, 1024 -> 1024

    // MobileNet v2 (224x224): stem (= mnv1_l1), 17 inverted-residual blocks (expansion 1x1,
    // depthwise, projection 1x1; the first block has no expansion), last 1x1, classifier.
    {"mnv2_l2_1x1", 12544, 16, 32, 1},   // block 1 projection, 112x112, 32 -> 16
    {"mnv2_l3_1x1", 12544, 96, 16, 1},   // block 2 expansion, 112x112, 16 -> 96
    {"mnv2_l4_1x1", 3136, 24, 96, 1},    // block 2 projection, 56x56, 96 -> 24
    {"mnv2_l5_1x1", 3136, 144, 24, 2},   // blocks 3-4 expansion, 56x56, 24 -> 144 (l5, l7)
    {"mnv2_l6_1x1", 3136, 24, 144, 1},   // block 3 projection, 56x56, 144 -> 24
    {"mnv2_l8_1x1", 784, 32, 144, 1},    // block 4 projection, 28x28, 144 -> 32
    {"mnv2_l9_1x1", 784, 192, 32, 3},    // blocks 5-7 expansion, 28x28, 32 -> 192 (l9, l11, l13)
    {"mnv2_l10_1x1", 784, 32, 192, 2},   // blocks 5-6 projection, 28x28, 192 -> 32 (l10, l12)
    {"mnv2_l14_1x1", 196, 64, 192, 1},   // block 7 projection, 14x14, 192 -> 64
    {"mnv2_l15_1x1", 196, 384, 64, 4},   // blocks 8-11 expansion, 14x14, 64 -> 384 (l15..l21 odd)
    {"mnv2_l16_1x1", 196, 64, 384, 3},   // blocks 8-10 projection, 14x14, 384 -> 64 (l16, l18, l20)
    {"mnv2_l22_1x1", 196, 96, 384, 1},   // block 11 projection, 14x14, 384 -> 96
    {"mnv2_l23_1x1", 196, 576, 96, 3},   // blocks 12-14 expansion, 14x14, 96 -> 576 (l23, l25, l27)
    {"mnv2_l24_1x1", 196, 96, 576, 2},   // blocks 12-13 projection, 14x14, 576 -> 96 (l24, l26)
    {"mnv2_l28_1x1", 49, 160, 576, 1},   // block 14 projection, 7x7, 576 -> 160
    {"mnv2_l29_1x1", 49, 960, 160, 3},   // blocks 15-17 expansion, 7x7, 160 -> 960 (l29, l31, l33)
    {"mnv2_l30_1x1", 49, 160, 960, 2},   // blocks 15-16 projection, 7x7, 960 -> 160 (l30, l32)
    {"mnv2_l34_1x1", 49, 320, 960, 1},   // block 17 projection, 7x7, 960 -> 320
    {"mnv2_l35_1x1", 49, 1280, 320, 1},  // last convolution, 7x7, 320 -> 1280
    {"mnv2_l36_fc", 1, 1000, 1280, 1},   // classifier
};

/// The headline shapes (issue 19's targets; the two-thread rows): the first seven above.
inline constexpr std::size_t kNumHeadlineGemmShapes = 7;

}  // namespace qparity_bench
