// Launcher of fp32 ladder step f11 (include/tessel/kernels/gemm/f11_stream_k.cuh):
// f10's kernel with the last wave's tiles shared along K by every SM.  The
// split is stream_k_split's (tessel/gemm_plan.hpp); where it shares nothing
// the grid is f10's tiles in one row.  The partial tiles come from tessel's
// stream-ordered pool and the tiles' counters are the stream's kept-zero
// array (split_counters, workspace.hpp: the kernel sets each back to zero),
// or counters zeroed on the stream where there is no such array.  Problems
// f10's kernel does not run (f10_maps::kernel_runs: TMA rows, C and D
// offsets in int) run f08's kernel, as in f10.
#include <climits>

#include "src/kernels/gemm/f10_launch.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/gemm_plan.hpp"
#include "tessel/kernels/gemm/f11_stream_k.cuh"

namespace tessel::gemm_launch {

namespace {

namespace k11 = gemm_kernels::f11;

index_t tiles_of(const GemmArgs& a) {
  const TileGrid g = tile_grid(a, k11::kBM, k11::kBN);
  return g.x * g.y;
}

}  // namespace

Status check_f11_kernel(const GemmArgs& a, const char* step) {
  if (Status s = check_tile_grid(a, k11::kBM, k11::kBN, step); !s) return s;
  if (const index_t tiles = tiles_of(a); tiles > INT_MAX / 2)
    return Status::failure(Status::unsupported, std::string(step) + ": " + std::to_string(tiles) +
                                                    " tiles of 128 x 256 exceed the one-dimensional grid's 2^30");
  return Status::success();
}

Status check_f11(const GemmArgs& a) {
  gemm_kernels::f10::Out out;
  if (!f10_maps::kernel_runs(a, out)) return check_f08(a);
  return check_f11_kernel(a, "f11");
}

std::size_t f11_workspace_bytes(const GemmArgs& a) {
  gemm_kernels::f10::Out out;
  if (!f10_maps::kernel_runs(a, out)) return 0;  // f08's kernel takes none
  // At most one partial tile per stream-K CTA (one per SM) and one counter per tile.
  const auto sms = static_cast<std::size_t>(device_sm_count());
  return sms * k11::kPartialFloats * sizeof(float) + static_cast<std::size_t>(tiles_of(a)) * sizeof(int) + 256;
}

Status launch_f11(const GemmArgs& a, cudaStream_t stream) {
  gemm_kernels::f10::Out out;
  if (!f10_maps::kernel_runs(a, out)) return launch_f08(a, stream);
  CUtensorMap map_a, map_b;
  if (Status s = f10_maps::make_maps(a, map_a, map_b, "f11"); !s) return s;
  int sms = 0;
  if (Status s = tma::sm_count("f11", sms); !s) return s;
  const index_t tiles = tiles_of(a);
  k11::StreamK sk;
  sk.tiles_n = static_cast<int>(tile_grid(a, k11::kBM, k11::kBN).x);
  sk.k_tiles = static_cast<int>((a.k + k11::kBK - 1) / k11::kBK);
  const StreamKSplit split = stream_k_split(tiles, sk.k_tiles, sms);
  sk.dp_tiles = static_cast<int>(split.dp_tiles);
  sk.sk_ctas = split.sk_ctas;
  sk.sk_iters = static_cast<long long>(split.sk_tiles) * sk.k_tiles;
  PartialsAndCounters mem;
  if (sk.sk_ctas > 0) {
    const std::size_t partial_bytes = static_cast<std::size_t>(sk.sk_ctas) * k11::kPartialFloats * sizeof(float);
    if (Status s = mem.make(partial_bytes, static_cast<std::size_t>(split.sk_tiles), stream, "f11",
                            "stream-K's partial tiles", "stream-K's counters");
        !s)
      return s;
    sk.partials = mem.partials;
    sk.counters = mem.counters;
  }
  const auto run = [&]<MajorA MA>() {
    auto* kernel = &k11::gemm_stream_k<MA>;
    if (Status s = allow_smem(kernel, k11::kSmemBytes, "f11"); !s) return s;
    const auto ctas = static_cast<unsigned>(sk.dp_tiles + sk.sk_ctas);
    kernel<<<ctas, k11::kThreads, k11::kSmemBytes, stream>>>(map_a, map_b, make_params<float>(a), out, sk);
    return launch_status("f11");
  };
  Status s = a.layout.a == MajorA::k ? run.template operator()<MajorA::k>() : run.template operator()<MajorA::m>();
  mem.release(stream);  // after the launch, in stream order
  return s;
}

}  // namespace tessel::gemm_launch
