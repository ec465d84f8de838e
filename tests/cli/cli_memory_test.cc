// Size limits (memory_limit.h): sizes parse as the help says, and a valid but huge layer stops
// before allocating, with an error naming the layer, the tensor, its size and the limit.
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "memory_limit.h"
#include "tool_test_files.h"

namespace qparity_cli_test {
namespace {

using qparity::cli::memory_size_text;
using qparity::cli::parse_memory_size;

TEST(MemoryLimit, ParsesSizesWithBinaryUnits) {
  std::uint64_t b = 0;
  EXPECT_TRUE(parse_memory_size("100000", &b));
  EXPECT_EQ(b, 100000u);
  EXPECT_TRUE(parse_memory_size("64K", &b));
  EXPECT_EQ(b, 65536u);
  EXPECT_TRUE(parse_memory_size("512M", &b));
  EXPECT_EQ(b, 512ull << 20);
  EXPECT_TRUE(parse_memory_size("1.5G", &b));
  EXPECT_EQ(b, 3ull << 29);
  EXPECT_TRUE(parse_memory_size("8GiB", &b));
  EXPECT_EQ(b, 8ull << 30);
  EXPECT_TRUE(parse_memory_size("2t", &b));
  EXPECT_EQ(b, 2ull << 40);
  for (const char* bad : {"", "0", "-1G", "G", "1.5x", "1e3", "12 G", "99999999999T", "0.0001K"}) {
    EXPECT_FALSE(parse_memory_size(bad, &b)) << bad;
  }
  EXPECT_EQ(memory_size_text(300), "300 bytes");
  EXPECT_EQ(memory_size_text(3ull << 29), "1.5 GiB");
}

TEST(MemoryLimit, AHugeLayerStopsBeforeAllocatingAndNamesItself) {
  const std::string dir = make_temp_dir("memory");
  write_bytes(dir + "/big.json", R"({"input": {"seed": 1, "shape": [1, 1024, 1024, 3], "min": -128, "max": 127},
 "layers": [{"type": "conv2d", "name": "wide", "input_scale": 0.05, "filter_scales": 0.01, "output_scale": 0.1,
   "filter": {"seed": 2, "shape": [4096, 1, 1, 3], "min": -127, "max": 127}}]})");
  CliResult r = run_cli({"run", "--stack", dir + "/big.json", "--preset", "tflite-reference", "--output",
                         dir + "/y.npy", "--max-memory", "1G"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "qparity run: layers[0]: layer 'wide' (conv2d): its output: an int8 tensor of shape [1, 1024, 1024, 4096] "
            "needs 4 GiB, more than the memory limit of 1 GiB (--max-memory SIZE raises it; the default is half of "
            "this machine's physical memory)\n");
  EXPECT_FALSE(file_exists(dir + "/y.npy"));
  // Before the command name too; diff names the layer the same way.
  r = run_cli({"--max-memory", "100M", "diff", "--stack", dir + "/big.json", "--a", "tflite-reference", "--b",
               "npu-verisilicon"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("qparity diff: layers[0] 'wide': layer 'wide' (conv2d): its output: an int8 tensor of shape "
                       "[1, 1024, 1024, 4096] needs 4 GiB, more than the memory limit of 100 MiB"),
            std::string::npos)
      << r.err;
  // A generated input beyond the limit: named by its shape.
  r = run_cli({"run", "--stack", dir + "/big.json", "--preset", "tflite-reference", "--output", dir + "/y.npy",
               "--max-memory", "1M"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("an int8 tensor of shape [1, 1024, 1024, 3] needs 3 MiB, more than the memory limit of 1 MiB"),
            std::string::npos)
      << r.err;
  r = run_cli({"run", "--stack", dir + "/big.json", "--preset", "tflite-reference", "--output", dir + "/y.npy",
               "--max-memory", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "qparity run: --max-memory: 'lots' is not a size; allowed: a positive number of bytes with an "
                   "optional unit K, M, G or T (binary: 1K = 1024), e.g. 512M, 8G\n");
}

}  // namespace
}  // namespace qparity_cli_test
