// The depthwise kernels against their contract (kernels/depthwise/depthwise_kernel.h), label unit,
// on every ISA with a depthwise file of its own that this CPU supports: the pair-row conversions
// (int8 and uint8 rows, padding on both sides, dilation, column steps), the row kernels (3x3, 5x5,
// generic down to 1x1 and up to 181x181 taps with every product at its extreme, strides 1-3,
// dilation 1-2, odd channel counts, init near INT32_MIN / INT32_MAX so the sums wrap) and, where
// the ISA has VPDPBUSD, the quad-row conversion and the raw 3x3 quad kernels at strides 1 and 2.
// Operands and expected values come from the contract's text (tests/support/depthwise_kernel_tester.h),
// not from the library's packing. The fused quad kernels (requantizing in registers) are checked
// against the reference through the operator in depthwise_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "depthwise_kernel_tester.h"
#include "isa_coverage.h"
#include "kernels/depthwise/depthwise_kernel.h"
#include "qparity/isa.h"

namespace {

using qparity::internal::DepthwiseFamily;
using qparity::internal::DepthwiseKernelSet;
using qparity_test::DepthwiseKernelTester;

/// Calls f(set, name) for every supported ISA that has its own depthwise kernels.
template <class F>
void for_each_own_set(F&& f) {
  std::size_t sets = 0;
  qparity_test::for_each_supported_isa([&](qparity::Isa isa) {
    if (!qparity::internal::has_own_kernels<DepthwiseFamily>(isa)) return;
    const DepthwiseKernelSet* set = qparity::internal::own_kernels<DepthwiseFamily>(isa);
    ASSERT_NE(set, nullptr) << qparity::to_string(isa);
    ASSERT_GT(set->lanes, 0u);
    ++sets;
    f(*set, std::string(qparity::to_string(isa)));
  });
  EXPECT_GE(sets, 1u) << "no depthwise kernel set ran (scalar always has one)";
}

TEST(DepthwiseKernelContract, PairRowConversion) {
  for_each_own_set([](const DepthwiseKernelSet& set, const std::string& isa) {
    std::uint32_t seed = 1;
    for (bool u8 : {false, true}) {
      for (std::size_t cg : {1u, 3u, 17u, 63u}) {
        for (std::size_t in_w : {1u, 3u, 7u, 17u}) {
          for (std::size_t pad_left : {0u, 1u, 2u}) {
            for (std::size_t dilation : {1u, 2u}) {
              for (std::size_t step : {1u, 2u}) {
                DepthwiseKernelTester()
                    .channels(cg, set.lanes)
                    .out_w(in_w + 2)
                    .dilation_w(dilation)
                    .seed(seed++)
                    .test_convert(u8 ? set.convert_u8 : set.convert_s8, u8, in_w, pad_left, step,
                                  isa + (u8 ? " convert_u8" : " convert_s8"));
              }
            }
          }
        }
      }
    }
  });
}

TEST(DepthwiseKernelContract, RowKernels3x3And5x5) {
  for_each_own_set([](const DepthwiseKernelSet& set, const std::string& isa) {
    std::uint32_t seed = 1;
    for (std::size_t k : {3u, 5u}) {
      for (std::size_t cg : {1u, 16u, 17u, 63u}) {
        for (std::size_t out_w : {1u, 3u, 7u, 17u}) {
          for (std::size_t stride : {1u, 2u, 3u}) {
            for (std::size_t dilation : {1u, 2u}) {
              for (bool limits : {false, true}) {
                DepthwiseKernelTester()
                    .kernel(k, k)
                    .channels(cg, set.lanes)
                    .out_w(out_w)
                    .stride_w(stride)
                    .dilation_w(dilation)
                    .init_near_limits(limits)
                    .seed(seed++)
                    .test_row(k == 3 ? set.row_3x3 : set.row_5x5, isa + (k == 3 ? " row_3x3" : " row_5x5"));
              }
            }
          }
        }
      }
      DepthwiseKernelTester()
          .kernel(k, k)
          .channels(17, set.lanes)
          .out_w(9)
          .values(DepthwiseKernelTester::Values::kExtreme)
          .init_near_limits(true)
          .test_row(k == 3 ? set.row_3x3 : set.row_5x5, isa + " extreme");
    }
  });
}

TEST(DepthwiseKernelContract, GenericRowKernel) {
  for_each_own_set([](const DepthwiseKernelSet& set, const std::string& isa) {
    std::uint32_t seed = 1;
    const std::size_t shapes[][2] = {{1, 1}, {1, 2}, {2, 3}, {3, 1}, {1, 9}, {7, 7}, {4, 6}};
    for (const auto& s : shapes) {
      for (std::size_t cg : {1u, 17u, 32u}) {
        for (std::size_t out_w : {1u, 7u}) {
          for (std::size_t stride : {1u, 2u}) {
            for (std::size_t dilation : {1u, 3u}) {
              const std::uint32_t this_seed = seed++;
              DepthwiseKernelTester()
                  .kernel(s[0], s[1])
                  .channels(cg, set.lanes)
                  .out_w(out_w)
                  .stride_w(stride)
                  .dilation_w(dilation)
                  .init_near_limits(this_seed % 2 == 0)
                  .seed(this_seed)
                  .test_row(set.row_generic, isa + " row_generic");
            }
          }
        }
      }
    }
    // The largest window the int32 lanes hold exactly (181 * 181 = 32761 <= kMaxSimdTaps taps),
    // every product 255 * 255: tap sums of 2.13e9.
    static_assert(181 * 181 <= qparity::internal::kMaxSimdTaps, "window beyond the exact limit");
    DepthwiseKernelTester()
        .kernel(181, 181)
        .channels(set.lanes, set.lanes)
        .out_w(2)
        .values(DepthwiseKernelTester::Values::kExtreme)
        .test_row(set.row_generic, isa + " row_generic 181x181 extreme");
  });
}

TEST(DepthwiseKernelContract, QuadPath) {
  std::size_t quad_sets = 0;
  for_each_own_set([&](const DepthwiseKernelSet& set, const std::string& isa) {
    if (set.quad_convert == nullptr) {
      EXPECT_EQ(set.quad_3x3, nullptr) << isa << ": quad kernels without a quad conversion";
      return;
    }
    ++quad_sets;
    ASSERT_NE(set.quad_3x3, nullptr) << isa;
    std::uint32_t seed = 1;
    for (bool u8 : {false, true}) {
      for (std::size_t cg : {1u, 16u, 17u, 63u}) {
        for (std::size_t in_w : {1u, 3u, 8u, 17u}) {
          for (std::size_t pad_left : {0u, 1u}) {
            DepthwiseKernelTester().channels(cg, set.lanes).seed(seed++).test_quad_convert(
                set.quad_convert, u8, in_w, pad_left, (in_w + 2 * pad_left + 1) / 2 + 1, isa + " quad_convert");
          }
        }
      }
    }
    for (std::size_t stride : {1u, 2u}) {
      const qparity::internal::DwQuadFn raw = set.quad_3x3(qparity::RoundingCore::kFloat32, {}, stride).raw;
      for (std::size_t cg : {1u, 16u, 17u, 63u}) {
        for (std::size_t out_w : {1u, 2u, 3u, 8u, 17u}) {
          for (bool limits : {false, true}) {
            DepthwiseKernelTester()
                .channels(cg, set.lanes)
                .out_w(out_w)
                .stride_w(stride)
                .init_near_limits(limits)
                .seed(seed++)
                .test_quad_raw(raw, isa + " quad raw stride " + std::to_string(stride));
          }
        }
      }
      DepthwiseKernelTester()
          .channels(32, set.lanes)
          .out_w(5)
          .stride_w(stride)
          .values(DepthwiseKernelTester::Values::kExtreme)
          .init_near_limits(true)
          .test_quad_raw(raw, isa + " quad raw extreme");
    }
  });
  // The quad path exists where VPDPBUSD does; a CPU with AVX-512 VNNI must have run it.
  if ((qparity::supported_isas() & qparity::mask_of(qparity::Isa::kAvx512Vnni)) != 0) {
    EXPECT_GE(quad_sets, 1u) << "AVX-512 VNNI is supported but no quad kernels ran";
  }
}

}  // namespace
