// A fluent tester of the depthwise kernel contract (kernels/depthwise/depthwise_kernel.h), in the
// manner of XNNPACK's kernel testers: set the geometry, then test one kernel function. Operands are
// built here from the contract's text (pair rows, quad rows, packed weights) and the expected
// values computed from the unpacked operands with exact 64-bit sums reduced modulo 2^32, so a
// mistake shared by a kernel and the library's own packing still shows.
//
//   DepthwiseKernelTester().kernel(3, 3).out_w(7).stride_w(2).channels(17, 16).test_row(set.row_3x3);
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/depthwise/depthwise_kernel.h"

namespace qparity_test {

class DepthwiseKernelTester {
 public:
  /// Operand values: random, or every product at its extreme (|x - za| = |w - wz| = 255, same
  /// sign), which makes the largest tap sums the contract allows.
  enum class Values { kRandom, kExtreme };

  DepthwiseKernelTester& kernel(std::size_t h, std::size_t w) {
    kernel_h_ = h;
    kernel_w_ = w;
    return *this;
  }
  DepthwiseKernelTester& out_w(std::size_t v) {
    out_w_ = v;
    return *this;
  }
  DepthwiseKernelTester& stride_w(std::size_t v) {
    stride_w_ = v;
    return *this;
  }
  DepthwiseKernelTester& dilation_w(std::size_t v) {
    dilation_w_ = v;
    return *this;
  }
  /// cg valid channels, padded to a multiple of `lanes`.
  DepthwiseKernelTester& channels(std::size_t cg, std::size_t lanes) {
    cg_ = cg;
    lanes_ = lanes;
    return *this;
  }
  DepthwiseKernelTester& values(Values v) {
    values_ = v;
    return *this;
  }
  /// init values near INT32_MIN / INT32_MAX, so that adding the tap sums wraps.
  DepthwiseKernelTester& init_near_limits(bool v) {
    init_near_limits_ = v;
    return *this;
  }
  DepthwiseKernelTester& seed(std::uint32_t v) {
    seed_ = v;
    return *this;
  }

  std::size_t cgp() const { return (cg_ + lanes_ - 1) / lanes_ * lanes_; }

  /// A row kernel (DwRowFn) on pair rows and packed pair weights.
  void test_row(qparity::internal::DwRowFn fn, const std::string& label) const {
    ASSERT_NE(fn, nullptr) << label;
    std::mt19937 rng(seed_);
    const std::size_t cgp = this->cgp(), pairs = (kernel_w_ + 1) / 2;
    const std::size_t width = (out_w_ - 1) * stride_w_ + 2 * (pairs - 1) * dilation_w_ + 1;
    // d[ky][j][c] = x - za of the pair rows' first elements; the second element of column j is
    // column j + dilation_w's first (the buffer is one image row, so the pairs overlap).
    const std::size_t cols = width + dilation_w_;
    std::vector<std::int32_t> d(kernel_h_ * cols * cgp), wd(kernel_h_ * kernel_w_ * cgp, 0);
    fill(rng, d, values_ == Values::kExtreme ? 255 : 0);
    for (std::size_t ky = 0; ky < kernel_h_; ++ky) {
      for (std::size_t kx = 0; kx < kernel_w_; ++kx) {
        for (std::size_t c = 0; c < cg_; ++c) wd[(ky * kernel_w_ + kx) * cgp + c] = value(rng, values_ == Values::kExtreme ? 255 : 0);
      }
    }
    std::vector<std::vector<std::int16_t>> rows(kernel_h_, std::vector<std::int16_t>(width * cgp * 2));
    std::vector<const std::int16_t*> row_ptrs;
    for (std::size_t ky = 0; ky < kernel_h_; ++ky) {
      for (std::size_t j = 0; j < width; ++j) {
        for (std::size_t c = 0; c < cgp; ++c) {
          rows[ky][(j * cgp + c) * 2] = static_cast<std::int16_t>(d[(ky * cols + j) * cgp + c]);
          rows[ky][(j * cgp + c) * 2 + 1] = static_cast<std::int16_t>(d[(ky * cols + j + dilation_w_) * cgp + c]);
        }
      }
      row_ptrs.push_back(rows[ky].data());
    }
    // Packed weights: [cb][ky][p][lane][2].
    std::vector<std::int16_t> packed(cgp / lanes_ * kernel_h_ * pairs * lanes_ * 2, 0);
    for (std::size_t c = 0; c < cgp; ++c) {
      for (std::size_t ky = 0; ky < kernel_h_; ++ky) {
        for (std::size_t p = 0; p < pairs; ++p) {
          const std::size_t at = (((c / lanes_ * kernel_h_ + ky) * pairs + p) * lanes_ + c % lanes_) * 2;
          packed[at] = static_cast<std::int16_t>(wd[(ky * kernel_w_ + 2 * p) * cgp + c]);
          if (2 * p + 1 < kernel_w_) packed[at + 1] = static_cast<std::int16_t>(wd[(ky * kernel_w_ + 2 * p + 1) * cgp + c]);
        }
      }
    }
    const std::vector<std::int32_t> init = make_init(rng, cgp);
    std::vector<std::int32_t> acc(out_w_ * cgp + 16, 0x5a5a5a5a);
    qparity::internal::DwRowArgs a;
    a.rows = row_ptrs.data();
    a.weights = packed.data();
    a.init = init.data();
    a.cgp = cgp;
    a.out_w = out_w_;
    a.stride_w = stride_w_;
    a.dilation_w = dilation_w_;
    a.kernel_h = kernel_h_;
    a.kernel_w = kernel_w_;
    a.acc = acc.data();
    fn(a);
    for (std::size_t ox = 0; ox < out_w_; ++ox) {
      for (std::size_t c = 0; c < cgp; ++c) {
        std::int64_t sum = init[c];
        for (std::size_t ky = 0; ky < kernel_h_; ++ky) {
          for (std::size_t kx = 0; kx < kernel_w_; ++kx) {
            sum += std::int64_t{d[(ky * cols + ox * stride_w_ + kx * dilation_w_) * cgp + c]} * wd[(ky * kernel_w_ + kx) * cgp + c];
          }
        }
        ASSERT_EQ(acc[ox * cgp + c], wrap32(sum)) << label << " " << describe() << ": ox " << ox << " c " << c;
      }
    }
    for (std::size_t i = out_w_ * cgp; i < acc.size(); ++i) ASSERT_EQ(acc[i], 0x5a5a5a5a) << label << ": wrote past acc";
  }

  /// A pair-row conversion (DwConvertFn) of one int8 (or uint8) image row with `in_w` pixels.
  void test_convert(qparity::internal::DwConvertFn fn, bool is_uint8, std::size_t in_w, std::size_t pad_left,
                    std::size_t column_step, const std::string& label) const {
    ASSERT_NE(fn, nullptr) << label;
    std::mt19937 rng(seed_);
    const std::size_t cgp = this->cgp(), pixel_stride = cgp + 5;  // channels of other groups between pixels
    const std::size_t width = (out_w_ - 1) * stride_w_ + 2 * dilation_w_ + 1;
    std::vector<std::uint8_t> src(in_w * pixel_stride + 64);
    for (std::uint8_t& b : src) b = static_cast<std::uint8_t>(rng());
    const std::int32_t za = is_uint8 ? static_cast<std::int32_t>(rng() % 256) : static_cast<std::int32_t>(rng() % 256) - 128;
    std::vector<std::uint8_t> zp_pixel(cgp, static_cast<std::uint8_t>(za));
    std::vector<std::int16_t> dst(width * cgp * 2 + 32, 0x5a5a);
    qparity::internal::DwConvertArgs a;
    a.src = src.data();
    a.pixel_stride = pixel_stride;
    a.in_w = in_w;
    a.pad_left = pad_left;
    a.dilation_w = dilation_w_;
    a.width = width;
    a.column_step = column_step;
    a.cg = cg_;
    a.cgp = cgp;
    a.zp_pixel = zp_pixel.data();
    a.za = za;
    a.dst = dst.data();
    fn(a);
    auto x = [&](long col, std::size_t c) -> std::int32_t {
      if (col < 0 || col >= static_cast<long>(in_w)) return 0;  // a padded tap holds the zero point
      const std::uint8_t b = src[static_cast<std::size_t>(col) * pixel_stride + c];
      return (is_uint8 ? std::int32_t{b} : std::int32_t{static_cast<std::int8_t>(b)}) - za;
    };
    for (std::size_t j = 0; j < width; j += column_step) {
      for (std::size_t c = 0; c < cg_; ++c) {
        const long col = static_cast<long>(j) - static_cast<long>(pad_left);
        ASSERT_EQ(dst[(j * cgp + c) * 2], x(col, c)) << label << " " << describe() << ": column " << j << " c " << c;
        ASSERT_EQ(dst[(j * cgp + c) * 2 + 1], x(col + static_cast<long>(dilation_w_), c))
            << label << " " << describe() << ": column " << j << " c " << c << " (second of the pair)";
      }
    }
    for (std::size_t i = width * cgp * 2; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0x5a5a) << label << ": wrote past the row";
  }

  /// A quad-row conversion (DwQuadConvertFn): column q holds x' = x ^ flip at buffer pixels 2q..2q+3.
  void test_quad_convert(qparity::internal::DwQuadConvertFn fn, bool is_uint8, std::size_t in_w, std::size_t pad_left,
                         std::size_t columns, const std::string& label) const {
    ASSERT_NE(fn, nullptr) << label;
    std::mt19937 rng(seed_);
    const std::size_t cgp = this->cgp(), pixel_stride = cgp + 3;
    std::vector<std::uint8_t> src(in_w * pixel_stride + 64);
    for (std::uint8_t& b : src) b = static_cast<std::uint8_t>(rng());
    const std::uint8_t zp = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> zp_pixel(cgp, zp), dst(columns * cgp * 4 + 64, 0xa5);
    qparity::internal::DwQuadConvertArgs a;
    a.src = src.data();
    a.pixel_stride = pixel_stride;
    a.in_w = in_w;
    a.pad_left = pad_left;
    a.columns = columns;
    a.cg = cg_;
    a.cgp = cgp;
    a.zp_pixel = zp_pixel.data();
    a.flip = is_uint8 ? 0 : 0x80;
    a.dst = dst.data();
    fn(a);
    for (std::size_t q = 0; q < columns; ++q) {
      for (std::size_t c = 0; c < cg_; ++c) {
        for (std::size_t k = 0; k < 4; ++k) {
          const long col = static_cast<long>(2 * q + k) - static_cast<long>(pad_left);
          const std::uint8_t raw = col < 0 || col >= static_cast<long>(in_w) ? zp : src[static_cast<std::size_t>(col) * pixel_stride + c];
          ASSERT_EQ(dst[q * cgp * 4 + 4 * c + k], static_cast<std::uint8_t>(raw ^ a.flip))
              << label << ": column " << q << " c " << c << " byte " << k << " (pad_left " << pad_left << ")";
        }
      }
    }
    for (std::size_t i = columns * cgp * 4; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xa5) << label << ": wrote past the row";
  }

  /// The raw 3x3 quad kernel (DwQuadKernels::raw) at stride_w 1 or 2 on quad rows and packed quad
  /// weights [cb][ky][variant a, b][lane][4].
  void test_quad_raw(qparity::internal::DwQuadFn fn, const std::string& label) const {
    ASSERT_NE(fn, nullptr) << label;
    std::mt19937 rng(seed_);
    const std::size_t cgp = this->cgp(), lanes = lanes_;
    const std::size_t pixels = (out_w_ - 1) * stride_w_ + 3, columns = stride_w_ == 1 ? (out_w_ + 1) / 2 : out_w_;
    const std::size_t buffer = std::max(pixels, 2 * columns + 2);
    std::vector<std::uint8_t> xq(3 * buffer * cgp);  // x' per (ky, pixel, c)
    for (std::uint8_t& b : xq) b = values_ == Values::kExtreme ? 255 : static_cast<std::uint8_t>(rng());
    std::vector<std::int8_t> w(3 * 3 * cgp, 0);
    for (std::size_t i = 0; i < 3 * 3 * cgp; ++i) {
      if (i % cgp < cg_) w[i] = values_ == Values::kExtreme ? 127 : static_cast<std::int8_t>(rng());
    }
    std::vector<std::vector<std::uint8_t>> rows(3, std::vector<std::uint8_t>(columns * cgp * 4 + 64));
    std::vector<const std::uint8_t*> row_ptrs;
    for (std::size_t ky = 0; ky < 3; ++ky) {
      for (std::size_t q = 0; q < columns; ++q) {
        for (std::size_t c = 0; c < cgp; ++c) {
          for (std::size_t k = 0; k < 4; ++k) rows[ky][q * cgp * 4 + 4 * c + k] = xq[(ky * buffer + 2 * q + k) * cgp + c];
        }
      }
      row_ptrs.push_back(rows[ky].data());
    }
    std::vector<std::int8_t> packed(cgp / lanes * 3 * 2 * lanes * 4, 0);
    for (std::size_t c = 0; c < cgp; ++c) {
      for (std::size_t ky = 0; ky < 3; ++ky) {
        const std::size_t base = ((c / lanes * 3 + ky) * 2) * lanes * 4;
        const std::int8_t w0 = w[(ky * 3 + 0) * cgp + c], w1 = w[(ky * 3 + 1) * cgp + c], w2 = w[(ky * 3 + 2) * cgp + c];
        const std::int8_t a[4] = {w0, w1, w2, 0}, b[4] = {0, w0, w1, w2};
        for (std::size_t k = 0; k < 4; ++k) {
          packed[base + (c % lanes) * 4 + k] = a[k];
          packed[base + lanes * 4 + (c % lanes) * 4 + k] = b[k];
        }
      }
    }
    const std::vector<std::int32_t> init = make_init(rng, cgp);
    std::vector<std::int32_t> acc(out_w_ * cgp + 16, 0x5a5a5a5a);
    qparity::internal::DwQuadArgs a;
    a.rows = row_ptrs.data();
    a.weights = packed.data();
    a.init = init.data();
    a.cg = cg_;
    a.cgp = cgp;
    a.out_w = out_w_;
    a.out = acc.data();
    a.out_stride = cgp;
    fn(a);
    for (std::size_t ox = 0; ox < out_w_; ++ox) {
      for (std::size_t c = 0; c < cgp; ++c) {
        std::int64_t sum = init[c];
        for (std::size_t ky = 0; ky < 3; ++ky) {
          for (std::size_t t = 0; t < 3; ++t) {
            sum += std::int64_t{xq[(ky * buffer + ox * stride_w_ + t) * cgp + c]} * w[(ky * 3 + t) * cgp + c];
          }
        }
        ASSERT_EQ(acc[ox * cgp + c], wrap32(sum)) << label << " " << describe() << ": ox " << ox << " c " << c;
      }
    }
    for (std::size_t i = out_w_ * cgp; i < acc.size(); ++i) ASSERT_EQ(acc[i], 0x5a5a5a5a) << label << ": wrote past acc";
  }

  std::string describe() const {
    return "kernel " + std::to_string(kernel_h_) + "x" + std::to_string(kernel_w_) + " out_w " + std::to_string(out_w_) +
           " stride " + std::to_string(stride_w_) + " dilation " + std::to_string(dilation_w_) + " channels " +
           std::to_string(cg_) + "/" + std::to_string(cgp());
  }

 private:
  static std::int32_t wrap32(std::int64_t v) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
  }
  /// A value in [-255, 255], or +-extreme with a fixed sign when extreme > 0.
  static std::int32_t value(std::mt19937& rng, std::int32_t extreme) {
    if (extreme > 0) return extreme;
    return static_cast<std::int32_t>(rng() % 511) - 255;
  }
  static void fill(std::mt19937& rng, std::vector<std::int32_t>& v, std::int32_t extreme) {
    for (std::int32_t& x : v) x = value(rng, extreme);
  }
  std::vector<std::int32_t> make_init(std::mt19937& rng, std::size_t n) const {
    std::vector<std::int32_t> init(n);
    for (std::size_t c = 0; c < n; ++c) {
      if (init_near_limits_) {
        init[c] = c % 2 == 0 ? std::numeric_limits<std::int32_t>::max() - static_cast<std::int32_t>(rng() % 1000)
                             : std::numeric_limits<std::int32_t>::min() + static_cast<std::int32_t>(rng() % 1000);
      } else {
        init[c] = static_cast<std::int32_t>(rng() % 200001) - 100000;
      }
    }
    return init;
  }

  std::size_t kernel_h_ = 3, kernel_w_ = 3, out_w_ = 7, stride_w_ = 1, dilation_w_ = 1, cg_ = 16, lanes_ = 16;
  Values values_ = Values::kRandom;
  bool init_near_limits_ = false;
  std::uint32_t seed_ = 1;
};

}  // namespace qparity_test
