// k06 — L2-friendly block order.  With k05's row bands, the CTAs resident at
// one time (about one per SM) cover a thin band of D: they share one row band
// of A but together read a wide stretch of B, which falls out of L2 before
// the next band comes back for it.  Grouping G tile rows and walking down
// the group's columns makes the resident CTAs cover a squarer patch of D, so
// each A row band and B column band they read is reused from L2 by
// neighbours.  Only the mapping from block index to tile changes.
#pragma once

#include "tessel/kernels/gemm/k05_double_buffer.cuh"

namespace tessel::gemm_kernels {

/// Linear block index -> (tile row, tile column), in groups of G tile rows:
/// inside a group, consecutive blocks go down a column of the group, then to
/// the next column; the last group may be shorter.
/// Example: tiles (4, 3), G = 2: blocks 0..5 -> (0,0) (1,0) (0,1) (1,1) (0,2) (1,2), then 6.. -> (2,0) (3,0) ...
template <int G>
struct GroupedRaster {
  static dim3 grid(index_t tiles_m, index_t tiles_n) { return dim3(static_cast<unsigned>(tiles_m * tiles_n)); }
  __device__ static void tile(index_t tiles_m, index_t tiles_n, index_t& tm, index_t& tn) {
    tile_of(blockIdx.x, tiles_m, tiles_n, tm, tn);
  }
  /// The same for linear tile index b (persistent kernels walk b themselves).
  __device__ static void tile_of(index_t b, index_t tiles_m, index_t tiles_n, index_t& tm, index_t& tn) {
    const index_t per_group = index_t{G} * tiles_n;
    const index_t first_m = (b / per_group) * G;
    const index_t rows = tiles_m - first_m < G ? tiles_m - first_m : G;  // the last group may be short
    const index_t in_group = b % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
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
