// Launcher of ladder step k14 (include/tessel/kernels/gemm/k14_cluster_multicast.cuh):
// the checks, the tile width (the caller's, else the plan's), the padded
// copies of operands TMA cannot read (k11's launcher), then the cluster
// launch of the chosen width (instances.cu's k14 units; tile_m 64: the
// 64 x 128 tile).
#include <string>

#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"

namespace tessel::gemm_launch {

Status check_k14(const GemmArgs& a) {
  if (Status s = check_k13_tuning(a); !s) return s;
  if (a.tuning.splits > 1 && ((a.tuning.tile_n != 0 && a.tuning.tile_n != 128) || a.tuning.cluster == 4))
    return Status::failure(Status::unsupported,
                           "k14: split K runs on pairs of 64 x 128 or 128 x 128 tiles (with tuning.splits = " +
                               std::to_string(a.tuning.splits) + ", tile_n must be 0 or 128 and cluster 0 or 2, got " +
                               std::to_string(a.tuning.tile_n) + " and " + std::to_string(a.tuning.cluster) + ")");
  if (a.tuning.split_tail)
    return Status::failure(Status::unsupported, "k14: no split tail (tuning.split_tail); k13 splits the tail");
  // Swapped, k14 runs k13's 128-row swapped widths only, unsplit, on pairs of its own (never 2 x 2 or a share asked).
  const bool wide = a.tuning.swap_ab == SwapAB::on && a.tuning.tile_m != 64 && swapped_wide_width(a.tuning.tile_n);
  if ((a.tuning.swap_ab == SwapAB::on && !wide) || a.tuning.tile_n == 16 || a.tuning.tile_n == 32)
    return Status::failure(Status::unsupported,
                           "k14: with the swap of A and B (tuning.swap_ab on) it runs the 128-row swapped tiles, "
                           "tile_n a multiple of 16 from 80 to 256 and tile_m 0 or 128; k13 runs the others (got "
                           "tile_m " +
                               std::to_string(a.tuning.tile_m) + ", tile_n " + std::to_string(a.tuning.tile_n) + ")");
  if (wide && (a.tuning.splits > 1 || a.tuning.cluster == 4 || a.tuning.cluster_share != ClusterShare::plan ||
               a.layout.a != MajorA::k))
    return Status::failure(Status::unsupported,
                           "k14: the swapped tile 128 x " + std::to_string(a.tuning.tile_n) +
                               " runs unsplit on pairs sharing A (tuning.splits 0 or 1, cluster 0 or 2, "
                               "cluster_share plan) and reads A K-major only (A:k)");
  if (!wide && fitted_width(a.tuning.tile_n))
    return Status::failure(Status::unsupported, "k14: no unswapped tile 128 x " + std::to_string(a.tuning.tile_n) +
                                                    " (its unswapped widths are 64, 128, 192 and 256)");
  if (a.tuning.tile_m == 64 && a.tuning.tile_n != 0 && a.tuning.tile_n != 128)
    return Status::failure(Status::unsupported,
                           "k14: its 64-row tile is 64 x 128 (with tuning.tile_m = 64, tile_n must be 0 or 128, got " +
                               std::to_string(a.tuning.tile_n) + ")");
  if (a.tuning.cluster != 0 && a.tuning.cluster != 2 && a.tuning.cluster != 4)
    return Status::failure(Status::invalid_argument, "k14: tuning.cluster must be 0 or 2 (pairs) or 4 (2 x 2), got " +
                                                         std::to_string(a.tuning.cluster));
  if (a.tuning.cluster == 4 && a.tuning.tile_n != 0 && a.tuning.tile_n != 128)
    return Status::failure(Status::unsupported,
                           "k14: its 2 x 2 clusters run tiles 64 x 128 and 128 x 128 (tuning.tile_n must be 0 or "
                           "128, got " +
                               std::to_string(a.tuning.tile_n) + ")");
  if (a.tuning.cluster_share != ClusterShare::plan &&
      (a.tuning.splits > 1 || a.tuning.cluster == 4 || a.tuning.tile_m == 64 ||
       (a.tuning.cluster_share == ClusterShare::b && a.tuning.tile_n == 64)))
    return Status::failure(Status::unsupported,
                           "k14: tuning.cluster_share picks the shared operand of unsplit pairs of 128 x 128, 192 or "
                           "256 tiles (128 x 64 pairs share A), not with splits, tile_m 64 or cluster 4");
  // The scheduler counts tile pairs in 32 bits (k14::Scheduler): the most
  // tiles (128 x 64, or 64 x 128), with room for a grid's stride past the last.
  // Split, the units are tiles times splits.
  const index_t tiles =
      ceil_div(a.m, index_t{64}) * ceil_div(a.n, index_t{64}) * (a.tuning.splits > 1 ? a.tuning.splits : 1);
  if (tiles > tma::kMaxScheduledUnits)
    return Status::failure(Status::unsupported, "k14: more than 2^31 - 2^20 tiles of 64 x 64 (times the splits)");
  return tma::check(a, "k14");
}

namespace {

/// `a` with k14's tile filled in where the caller left it to the plan.
Status resolved(const GemmArgs& a, GemmArgs& g) {
  g = a;
  if (g.tuning.splits < 1) g.tuning.splits = 1;
  if (g.tuning.splits > 1 && g.tuning.tile_n == 0) g.tuning.tile_n = 128;  // split K's tiles (check_k14)
  if (g.tuning.tile_n == 0) {
    int sms = 0;
    if (Status s = tma::sm_count("k14", sms); !s) return s;
    g.tuning = k14_tile(g.m, g.n, g.k, sms, g.tuning);  // k14 never swaps
  }
  if (g.tuning.cluster == 4) g.tuning.tile_n = 128;  // the 2 x 2 clusters' tiles
  return Status::success();
}

/// k14's swapped 128 x w tile on the swapped problem g (w: swapped_wide_width).
Status launch_wide(const GemmArgs& g, cudaStream_t stream, int w) {
  return with_wide_width(
      w, [&](auto width) { return k14::launch_tiles_wide<decltype(width)::value>(g, stream); },
      [&] { return Status::failure(Status::invalid_argument, "k14: no swapped tile 128 x " + std::to_string(w)); });
}

}  // namespace

std::size_t k14_workspace_bytes(const GemmArgs& a) {
  GemmArgs g;
  if (!resolved(a, g)) return 0;  // a failed resolution fails the launch first
  std::size_t bytes = pads_of(g, true).bytes();
  if (g.tuning.splits > 1) {  // launch_on_clusters: M-neighbour pairs of 64 or 128 x 128 tiles (check_k14)
    const int bm = g.tuning.tile_m == 64 ? 64 : 128;
    const index_t slots = cluster_tile_slots(ceil_div(g.m, index_t{bm}), ceil_div(g.n, index_t{128}), 2, 1);
    bytes += split_k_bytes(static_cast<std::size_t>(slots), g.tuning.splits, bm, 128);
  }
  return bytes;
}

Status launch_k14(const GemmArgs& a, cudaStream_t stream) {
  GemmArgs g;
  if (Status s = resolved(a, g); !s) return s;
  return tma::launch<false>(g, stream, "k14", [stream](const GemmArgs& t) {
    if (t.tuning.swap_ab == SwapAB::on) return launch_wide(k13_swapped(t), stream, t.tuning.tile_n);  // check_k14
    if (t.tuning.splits > 1) return k14::launch_tiles_split(t, stream);       // 64 or 128 x 128 (check_k14)
    if (t.tuning.cluster == 4) return k14::launch_tiles_2x2(t, stream);       // 64 or 128 x 128 (check_k14)
    if (t.tuning.tile_m == 64) return k14::launch_tiles_m64_n128(t, stream);  // 64 x 128 (check_k14)
    switch (t.tuning.tile_n) {
      case 64:
        return k14::launch_tiles<64>(t, stream);
      case 128:
        return k14::launch_tiles<128>(t, stream);
      case 192:
        return k14::launch_tiles<192>(t, stream);
      default:
        return k14::launch_tiles<256>(t, stream);
    }
  });
}

}  // namespace tessel::gemm_launch
