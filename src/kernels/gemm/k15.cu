// Launcher of ladder step k15 (include/tessel/kernels/gemm/k15_pingpong.cuh):
// the checks, the raster group (the caller's, else the plan's), the padded
// copies of operands TMA cannot read (k11's launcher), then the plain
// kernels (here) or the fused-epilogue ones (instances.cu).
#include <string>

#include "src/kernels/gemm/k15_tiles.hpp"

namespace tessel::gemm_launch {

namespace k15 {
template <>
Status launch_tiles<false>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<false>(g, stream);
}
}  // namespace k15

Status check_k15(const GemmArgs& a) {
  const GemmTuning& t = a.tuning;
  if (t.tile_n != 0 && t.tile_n != 128)
    return Status::failure(Status::invalid_argument,
                           "k15: tuning.tile_n must be 0 or 128 (its warpgroup tile is 128 x "
                           "128; got " +
                               std::to_string(t.tile_n) + ")");
  if (t.tile_m != 0 && t.tile_m != 128)
    return Status::failure(
        Status::invalid_argument,
        "k15: tuning.tile_m must be 0 or 128 (its warpgroup tile is 128 x 128; got " + std::to_string(t.tile_m) + ")");
  if (t.splits > 1)
    return Status::failure(Status::unsupported, "k15: no split K (tuning.splits must be 0 or 1, got " +
                                                    std::to_string(t.splits) + "); k13 splits K");
  if (t.splits < 0)
    return Status::failure(Status::invalid_argument,
                           "k15: tuning.splits must be 0 or 1 (got " + std::to_string(t.splits) + ")");
  if (t.swap_ab == SwapAB::on)
    return Status::failure(Status::unsupported, "k15: no swap of A and B (tuning.swap_ab must not be on); k13 swaps");
  if (t.swap_ab != SwapAB::plan && t.swap_ab != SwapAB::off)
    return Status::failure(Status::invalid_argument, "k15: tuning.swap_ab must be SwapAB::plan or off (got " +
                                                         std::to_string(static_cast<int>(t.swap_ab)) + ")");
  if (t.raster_group < 0 || t.raster_group > 65536)
    return Status::failure(
        Status::invalid_argument,
        "k15: tuning.raster_group must be in 0..65536, 0 for the plan's (got " + std::to_string(t.raster_group) + ")");
  if (a.beta != 0.0f)
    return Status::failure(Status::unsupported,
                           "k15: beta must be 0 (k15 does not read C: beside a warpgroup's 128 accumulators the "
                           "reads of C spill; k13 and auto serve beta != 0)");
  if (t.cluster != 0 && (t.cluster != 2 || a.epilogue.active()))
    return Status::failure(Status::unsupported,
                           "k15: tuning.cluster must be 0, or 2 (pairs sharing B) without an epilogue (got " +
                               std::to_string(t.cluster) + ")");
  if (t.cluster_share != ClusterShare::plan)
    return Status::failure(Status::unsupported, "k15: tuning.cluster_share is k14's (k15's pairs share B)");
  const index_t tiles = ceil_div(a.m, index_t{128}) * ceil_div(a.n, index_t{128});
  if (tiles > tma::kMaxScheduledUnits || ceil_div(a.k, index_t{64}) > 0x7FFFFFFF)
    return Status::failure(Status::unsupported, "k15: more than 2^31 - 2^20 tiles of 128 x 128 or 2^31 k-tiles");
  return tma::check(a, "k15");
}

namespace {

/// `a` with k15's one tile (128 x 128, no split, no swap) and the plan's raster group.
Status resolved(const GemmArgs& a, GemmArgs& g) {
  g = a;
  g.tuning.tile_n = 128;
  g.tuning.splits = 1;
  g.tuning.swap_ab = SwapAB::off;
  if (g.tuning.raster_group == 0) {
    int sms = 0;
    if (Status s = tma::sm_count("k15", sms); !s) return s;
    g.tuning.raster_group = plan_k13(g.m, g.n, g.k, sms, 128, SwapAB::off).raster_group;
  }
  return Status::success();
}

}  // namespace

std::size_t k15_workspace_bytes(const GemmArgs& a) {
  GemmArgs g;
  return resolved(a, g) ? pads_of(g, true).bytes() : 0;  // a failed resolution fails the launch first
}

Status launch_k15(const GemmArgs& a, cudaStream_t stream) {
  GemmArgs g;
  if (Status s = resolved(a, g); !s) return s;
  if (g.epilogue.active() && g.epilogue.aux != nullptr) {
    // The fused instance writes no aux (as k13's ahead-of-time ones): the
    // plain kernel, then the elementwise epilogue over D.
    GemmArgs plain = g;
    plain.epilogue = GemmEpilogue{};
    if (Status s = launch_k15(plain, stream); !s) return s;
    return launch_epilogue(g, stream);
  }
  return tma::launch<false>(g, stream, "k15", [stream](const GemmArgs& t) {
    if (t.tuning.cluster == 2) return k15::launch_tiles_cluster(t, stream);  // plain (check_k15)
    return t.epilogue.active() ? k15::launch_tiles<true>(t, stream) : k15::launch_tiles<false>(t, stream);
  });
}

}  // namespace tessel::gemm_launch
