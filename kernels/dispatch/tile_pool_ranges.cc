// The tools library's door to the tile pool (kernels/entries/qparity_internal/tile_pool_ranges.h).
#include "qparity_internal/tile_pool_ranges.h"

#include "kernels/dispatch/run_tiles_threaded.h"

namespace qparity {
namespace internal {

void run_ranges_on_tile_pool(std::size_t count, unsigned threads, std::uint64_t work,
                             void (*run)(const void* ctx, std::size_t begin, std::size_t end),
                             const void* ctx) {
  if (count == 0) return;
  run_tiles_threaded(count, threads, work,
                     [&](std::size_t begin, std::size_t end) { run(ctx, begin, end); });
}

}  // namespace internal
}  // namespace qparity
