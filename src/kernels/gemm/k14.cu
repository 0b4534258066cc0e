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
  if (a.tuning.splits > 1)
    return Status::failure(Status::unsupported, "k14: no split K (tuning.splits must be 0 or 1, got " +
                                                    std::to_string(a.tuning.splits) + "); k13 splits K");
  if (a.tuning.swap_ab == SwapAB::on || a.tuning.tile_n == 16 || a.tuning.tile_n == 32)
    return Status::failure(Status::unsupported,
                           "k14: no swap of A and B (tuning.swap_ab must not be on, tile_n not 16 or 32); k13 swaps");
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
  // The scheduler counts tile pairs in 32 bits (k14::Scheduler): the most
  // tiles (128 x 64, or 64 x 128), with room for a grid's stride past the last.
  const index_t tiles = ceil_div(a.m, index_t{64}) * ceil_div(a.n, index_t{64});
  if (tiles > tma::kMaxScheduledUnits)
    return Status::failure(Status::unsupported, "k14: more than 2^31 - 2^20 tiles of 64 x 64");
  return tma::check(a, "k14");
}

namespace {

/// `a` with k14's tile filled in where the caller left it to the plan.
Status resolved(const GemmArgs& a, GemmArgs& g) {
  g = a;
  g.tuning.splits = 1;
  if (g.tuning.tile_n == 0) {
    int sms = 0;
    if (Status s = tma::sm_count("k14", sms); !s) return s;
    g.tuning = k14_tile(g.m, g.n, g.k, sms, g.tuning);  // k14 never swaps
  }
  if (g.tuning.cluster == 4) g.tuning.tile_n = 128;  // the 2 x 2 clusters' tiles
  return Status::success();
}

}  // namespace

std::size_t k14_workspace_bytes(const GemmArgs& a) {
  GemmArgs g;
  return resolved(a, g) ? pads_of(g, true).bytes() : 0;  // a failed resolution fails the launch first
}

Status launch_k14(const GemmArgs& a, cudaStream_t stream) {
  GemmArgs g;
  if (Status s = resolved(a, g); !s) return s;
  return tma::launch<false>(g, stream, "k14", [stream](const GemmArgs& t) {
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
