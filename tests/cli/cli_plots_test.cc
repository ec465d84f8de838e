// The drift plots as rendered: converted to PNG by rsvg-convert (Debian librsvg2-bin, installed by
// .ci/install-deps; its absence fails the test), their sizes checked, and what the issue about them
// asked for: the title and legend fit at any layer count, one unit on the histogram's axis, the
// clipped end bins labelled, the isolated series on its own scale, the layers of another arithmetic
// marked.
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "npy.h"
#include "tensor.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::DType;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

struct PngSize {
  std::uint32_t width = 0, height = 0;
};

// Renders `svg` to PNG with rsvg-convert and reads the IHDR size.
PngSize render(const std::string& svg) {
  const std::string png = svg + ".png";
  CliResult r;
  try {
    r = run_program("rsvg-convert", {svg, "-o", png});
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rsvg-convert (Debian librsvg2-bin) is needed to render the plots; run .ci/install-deps: "
                  << e.what();
    return {};
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = read_bytes(png);
  if (bytes.size() < 24 || bytes.compare(1, 3, "PNG") != 0) {
    ADD_FAILURE() << "not a PNG: " << png;
    return {};
  }
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t{static_cast<unsigned char>(bytes[at])} << 24) |
           (std::uint32_t{static_cast<unsigned char>(bytes[at + 1])} << 16) |
           (std::uint32_t{static_cast<unsigned char>(bytes[at + 2])} << 8) |
           std::uint32_t{static_cast<unsigned char>(bytes[at + 3])};
  };
  EXPECT_GT(bytes.size(), 2000u) << "a blank image?";
  return {be32(16), be32(20)};
}

// The largest x a text element of the SVG may reach, estimated as the histogram code does: its x
// plus 0.6 em per character (DejaVu Sans averages less).
double rightmost_text(const std::string& svg) {
  const std::regex text(R"re(<text x="([0-9.]+)" y="[0-9.]+" font-size="([0-9.]+)"[^>]*text-anchor="start"[^>]*>([^<]*)</text>)re");
  double right = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), size = std::stod((*it)[2]);
    right = std::max(right, x + 0.6 * size * static_cast<double>((*it)[3].length()));
  }
  return right;
}

TEST(CliPlots, HistogramOfOneLayerKeepsItsTitleAndLabelsTheClippedBins) {
  const std::string dir = make_temp_dir("plots_hist");
  qparity::cli::Tensor a = qparity::cli::make_tensor(DType::kInt8, {1, 4, 4, 2});
  qparity::cli::Tensor b = a;
  b.set_integer(0, 12);  // beyond the +8 end bin
  b.set_integer(5, -1);
  qparity::cli::write_npy(dir + "/a_dump_with_a_long_name.npy", a);
  qparity::cli::write_npy(dir + "/b_dump_with_a_long_name.npy", b);
  const CliResult r = run_cli({"diff", "--dump-a", dir + "/a_dump_with_a_long_name.npy", "--dump-b",
                               dir + "/b_dump_with_a_long_name.npy", "--svg-histogram", dir + "/h.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = read_bytes(dir + "/h.svg");
  const PngSize size = render(dir + "/h.svg");
  EXPECT_GE(static_cast<double>(size.width), rightmost_text(svg)) << "a title or legend runs off the image";
  EXPECT_GE(size.width, 600u);
  EXPECT_GE(size.height, 200u);
  EXPECT_TRUE(contains(svg, ">\u2265+8</text>")) << "the clipped end bin is labelled";
  EXPECT_TRUE(contains(svg, ">\u2264-8</text>"));
  EXPECT_TRUE(contains(svg, ">100%</text>"));
  EXPECT_TRUE(contains(svg, ">1%</text>"));
  EXPECT_FALSE(contains(svg, ">1e-")) << "one unit on the axis: percentages only";
}

TEST(CliPlots, PropagationGivesTheIsolatedSeriesItsOwnScaleAndShadesTheMapsExceptions) {
  const std::string dir = make_temp_dir("plots_prop");
  const std::string stack = std::string(QPARITY_SOURCE_DIR) + "/examples/npu_drift/stack.json";
  const CliResult r = run_cli({"diff", "--stack", stack, "--a", "tflite-reference", "--b",
                               "npu-verisilicon,3-5=tflite-reference", "--svg-propagation", dir + "/p.svg",
                               "--svg-histogram", dir + "/h.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = read_bytes(dir + "/p.svg");
  EXPECT_TRUE(contains(svg, "Isolated: Elements differing")) << "the isolated series has a panel of its own";
  EXPECT_TRUE(contains(svg, "shaded: 3 layers whose arithmetic differs from the default"));
  // The isolated panel's scale is its own: its top tick is far below the accumulated one's 80 %.
  EXPECT_TRUE(contains(svg, ">0.15</text>") || contains(svg, ">0.10</text>") || contains(svg, ">0.2</text>")) << svg;
  const PngSize p = render(dir + "/p.svg");
  EXPECT_GE(static_cast<double>(p.width), rightmost_text(svg));
  const PngSize h = render(dir + "/h.svg");
  EXPECT_GE(static_cast<double>(h.width), rightmost_text(read_bytes(dir + "/h.svg")));
  EXPECT_GE(h.height, 4 * 150u) << "20 layers in 4 rows of panels";
}

}  // namespace
}  // namespace qparity_cli_test
