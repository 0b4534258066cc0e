// k06 — L2-friendly block order.  With k05's row bands, the CTAs resident at
// one time (about one per SM) cover a thin band of D: they share one row band
// of A but together read a wide stretch of B, which falls out of L2 before
// the next band comes back for it.  Grouping G tile rows and walking down
// the group's columns makes the resident CTAs cover a squarer patch of D, so
// each A row band and B column band they read is reused from L2 by
// neighbours.  Only the mapping from block index to tile changes.
#pragma once

#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/k05_double_buffer.cuh"

namespace tessel::gemm_kernels {

/// The grouped raster of kernels/blocks/tile_scheduler.hpp, as k05's raster
/// hook: one CTA per tile, the tile read from blockIdx.
template <int G>
struct GroupedRaster : blocks::GroupedRaster<G> {
  static dim3 grid(index_t tiles_m, index_t tiles_n) { return dim3(static_cast<unsigned>(tiles_m * tiles_n)); }
  __device__ static void tile(index_t tiles_m, index_t tiles_n, index_t& tm, index_t& tn) {
    blocks::GroupedRaster<G>::tile_of(blockIdx.x, tiles_m, tiles_n, tm, tn);
  }
};

namespace k06 {
using k05::kBM;
using k05::kBN;
using k05::kThreads;
inline constexpr int kGroup = 8;  // 8 tile rows = 1024 rows of D per group
template <class T, MajorA MA, MajorB MB>
inline constexpr auto* kernel = &k05::gemm_double_buffer<T, MA, MB, GroupedRaster<kGroup>>;
template <class T, MajorA MA, MajorB MB>
inline constexpr int kSmemBytes = k05::kSmemBytes<T, MA, MB>;
}  // namespace k06

}  // namespace tessel::gemm_kernels
