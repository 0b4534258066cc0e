// The body of k13's per-width launchers (instances.cu's k13 units, plain and
// fused): the maps of A, B
// and D, split K's workspace, and the launch.
#pragma once

#include <string>

#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/kernels/gemm/k13_wgmma_in_flight.cuh"

namespace tessel::gemm_launch::k13 {

namespace gk = gemm_kernels::k13;

/// Split K's workspace: one partial tile per split of each split output tile
/// and one counter per split output tile (PartialsAndCounters,
/// workspace.hpp); the first `whole` tiles are not split.
struct Workspace {
  PartialsAndCounters mem;
  gk::SplitK sk;
  Status make(index_t tiles, index_t whole, int splits, int bm, int bn, cudaStream_t stream, bool apart = false) {
    sk.splits = splits;
    sk.whole = static_cast<int>(whole);
    if (splits == 1 || whole == tiles) return Status::success();
    const auto counters = static_cast<std::size_t>(tiles - whole);
    const std::size_t partial_bytes =
        counters * static_cast<std::size_t>(splits) * static_cast<std::size_t>(bm) * static_cast<std::size_t>(bn) * 4;
    // Summed apart, the units count nothing (a second kernel sums the planes): no counters to take or clear.
    if (Status s = mem.make(partial_bytes, apart ? 0 : counters, stream, "k13", "split K's workspace",
                            "split K's counters", apart);
        !s)
      return s;
    sk.partials = mem.partials;
    sk.counters = mem.counters;
    return Status::success();
  }
  void release(cudaStream_t stream) { mem.release(stream); }
};

/// How many clusters of `size` CTAs (2..kMaxClusterSplits) of k13's `kernel` on tiles X fit at once (cached per
/// kernel and size: tma::max_clusters).
template <class X>
Status max_clusters_of(const void* kernel, int size, int sms, int& clusters) {
  return tma::max_clusters<X>(kernel, X::kConsumerThreads + 128, X::kSmemBytes, sms, clusters, size, "k13");
}

/// The kernel parameters of configuration Cfg: Params<T>, or for a fused
/// instance FusedParams<T> with g's epilogue.
template <class Cfg, class T>
typename Cfg::template ParamsOf<T> params_of(const GemmArgs& g) {
  if constexpr (Cfg::kFused) {
    const GemmEpilogue& e = g.epilogue;
    return gemm_kernels::FusedParams<T>{make_params<T>(g),
                                        gemm_kernels::EpilogueParams{e.bias, e.aux, e.ldaux, e.act, e.bias_kind}};
  } else {
    return make_params<T>(g);
  }
}

/// launch_tiles_with's launch for one input type and layout.
template <class Cfg, class T, MajorA MA, MajorB MB, class KernelOf>
Status launch_kernel(const GemmArgs& g, cudaStream_t stream, bool transposed, const KernelOf& kernel_of) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN;
  using X = gk::KernelTiles<T, MA, MB, Cfg>;
  CUtensorMap map_a, map_b;
  if (Status s = tma::operand_maps<T, MA, MB, X>(g, map_a, map_b, "k13"); !s) return s;
  CUtensorMap map_d{};
  bool tma_store = false;  // no map: D is written from registers
  if constexpr (Cfg::kTmaStore)
    if (!transposed) tma_store = tma::d_store_map<X::template Epilogue>(g, map_d, "k13");
  if constexpr (Cfg::kTransposed)
    if (transposed && tma::stores_transposed_d(g, Cfg::kWide))
      tma_store = tma::d_store_map<X::template EpilogueT>(g, map_d, "k13", true);
  const void* kernel = kernel_of.template operator()<T, MA, MB>();
  if (Status s = allow_smem(kernel, X::kSmemBytes, "k13"); !s) return s;
  const index_t tiles = ceil_div(g.m, index_t{BM}) * ceil_div(g.n, index_t{BN});
  const int splits = g.tuning.splits < 1 ? 1 : g.tuning.splits;
  int sms = 0;
  if (Status s = tma::sm_count("k13", sms); !s) return s;
  const index_t whole = g.tuning.split_tail ? split_tail_whole(tiles, sms) : 0;
  // The swapped 16- and 32-wide tiles split K inside clusters (cluster_split_k.cuh), unless the caller asks for
  // split K through global memory (tuning.cluster 1) or splits only the tail.
  bool cluster_split = Cfg::kRuntimeDepth && sizeof(T) == 2 && whole == 0 && g.tuning.cluster != 1 &&
                       splits_in_cluster(transposed, BN, splits, tiles * splits, sms);
  dim3 grid;
  if (Status s = tma::persistent_grid(g, "k13", grid, whole + (tiles - whole) * splits); !s) return s;
  if (cluster_split) {  // every cluster resident at once, or the split goes through global memory
    int clusters = 0;
    // A device that cannot say (or hold) such clusters splits through global memory, not fails.
    if (!max_clusters_of<X>(kernel, splits, sms, clusters)) {
      (void)cudaGetLastError();
      clusters = 0;
    }
    cluster_split = tiles <= clusters;
  }
  // Split K summed apart (tuning.split_sum): every tile split through global memory, planes whose offsets fit int.
  const index_t tiles_m = ceil_div(g.m, index_t{BM}), tiles_n = ceil_div(g.n, index_t{BN});
  const bool apart = gemm_kernels::kServesApart<X> && g.tuning.split_sum == SplitSum::second_kernel && splits > 1 &&
                     whole == 0 && !cluster_split && tiles_m * BM * tiles_n * BN < (index_t{1} << 31);
  Workspace ws;
  if (Status s = ws.make(tiles, whole, cluster_split ? 1 : splits, BM, BN, stream, apart); !s) return s;
  if (apart) gemm_kernels::set_apart(ws.sk, tiles_m, tiles_n, BM, BN, transposed);
  // The model's tail of a narrow stream (narrow_tail_us) assumes this stage and depth cap.
  static_assert(!Cfg::kRuntimeDepth || BN > 32 ||
                    (Cfg::kStageBytes == narrow_stage_bytes(BM, BN) && Cfg::kDepthCap == narrow_depth_cap(BM)),
                "tessel: gemm_launch_model.hpp's narrow_stage_bytes / narrow_depth_cap no longer match k13's tiles");
  if constexpr (Cfg::kRuntimeDepth)
    ws.sk.depth = g.tuning.stages > 0 ? (g.tuning.stages < Cfg::kStages ? g.tuning.stages : Cfg::kStages)
                                      : stages_in_flight(grid.x, Cfg::kStageBytes, Cfg::kDepthCap, Cfg::kStages);
  if (cluster_split) {  // the stages past the depth hold the slots and barriers
    constexpr int kStageABytes = X::OpA::kElems * static_cast<int>(sizeof(T));  // a stage of A
    const int room =
        Cfg::kStages - (gemm_kernels::cluster_split_bytes(BM, BN, splits) + kStageABytes - 1) / kStageABytes;
    if (ws.sk.depth > room) ws.sk.depth = room;
    ws.sk.splits = splits;
    ws.sk.cluster = splits;
  }
  if constexpr (X::kPromotes) ws.sk.promote = fp8_promote_interval(g);
  if constexpr (sizeof(T) == 1) {
    static_assert(static_cast<int>(Fp8Scale::block) == gemm_kernels::Fp8Scales::block, "the modes' numbers agree");
    ws.sk.scales = {static_cast<int>(g.fp8_scale), g.fp8_scale_a, g.fp8_scale_b, ceil_div(g.k, index_t{128})};
  }
  // The kernel's parameters, in its order (gk::gemm_wgmma_in_flight).
  auto params = params_of<Cfg, T>(g);
  if constexpr (sizeof(T) == 1 && Cfg::kScales == gemm_kernels::Fp8Scales::none)
    if (g.fp8_scale == Fp8Scale::tensor) {  // an unscaled instance: the scales go with alpha (alpha_of)
      params.scale_a = g.fp8_scale_a;
      params.scale_b = g.fp8_scale_b;
    }
  int group = g.tuning.raster_group < 1 ? 8 : g.tuning.raster_group;
  void* args[] = {&map_a, &map_b, &map_d, &tma_store, &transposed, &params, &ws.sk, &group};
  cudaLaunchAttribute cluster, attrs[2];
  cudaLaunchConfig_t cfg = tma::cluster_config(grid.x, Cfg::kThreads, X::kSmemBytes, stream, cluster, splits);
  cfg.gridDim = grid;
  if (!cluster_split) cfg.numAttrs = 0;
  // After a padded copy, the copy's programmatic dependent (the producer waits for it in produce_first).
  (void)launch_dependent(cfg, attrs, kernel, args, tma::after_padded_copy);
  Status s = launch_status("k13");
  if (s && apart)
    s = launch_split_sum(g, transposed, ws.sk.partials, ws.sk.plane, transposed ? ws.sk.col_stride : ws.sk.row_stride,
                         splits, stream);
  ws.release(stream);
  return s;
}

/// The launch of tile width BN's kernel (Fused: a fused-epilogue
/// configuration, gk::Config<BN, true>; never transposed): the maps of A, B
/// and D, split K's workspace, the persistent grid, the shared memory, and
/// the kernel `kernel_of.template operator()<T, MA, MB>()` gives for the
/// call's input type and layout, as a `const void*`: the address of an
/// ahead-of-time instance (launch_tiles_of), or the handle of a run-time
/// compiled one (k13_jit.cu, a gk::SpecializedConfig<BN, ...> that shares
/// Config<BN, true>'s shared memory and parameters), launched the same way.
template <int BN, bool Fused, class KernelOf, int BM = gk::kBM, bool Swapped = false>
Status launch_tiles_with(const GemmArgs& g, cudaStream_t stream, bool transposed, const KernelOf& kernel_of) {
  using Cfg = gk::Config<BN, Fused, BM, Swapped>;
  if ((transposed && !Cfg::kTransposed) || (!transposed && !Cfg::kTmaStore))
    return Status::failure(Status::unsupported, "k13: tile " + std::to_string(BM) + " x " + std::to_string(BN) +
                                                    " has no " + (transposed ? "transposed" : "untransposed") +
                                                    " epilogue");
  const auto body = [&]<class T, MajorA MA, MajorB MB>() {
    if constexpr (Cfg::kSwappedOnly && MB != MajorB::k) {
      // The swapped problem's B is the caller's A: these widths read it K-major only (A:k).
      return Status::failure(Status::unsupported, "k13: the swapped tile " + std::to_string(BM) + " x " +
                                                      std::to_string(BN) +
                                                      " reads A K-major only (A:k; with A:m use a width of 16, 32 "
                                                      "or 64)");
    } else {
      return launch_kernel<Cfg, T, MA, MB>(g, stream, transposed, kernel_of);
    }
  };
  if constexpr (Cfg::kTransposed && !Cfg::kTmaStore)
    return with_swapped_types(g, body);  // a swapped-only tile
  else if constexpr (Cfg::kTransposed)
    return transposed ? with_swapped_types(g, body) : with_types(g, body);
  else
    return with_types(g, body);
}

/// The ahead-of-time instance gk::gemm_wgmma_in_flight<T, MA, MB, Cfg>, for launch_tiles_with and launch_kernel.
template <class Cfg>
struct CfgKernel {
  template <class T, MajorA MA, MajorB MB>
  const void* operator()() const {
    return reinterpret_cast<const void*>(&gk::gemm_wgmma_in_flight<T, MA, MB, Cfg>);
  }
};
/// The instance of tile BM x BN (Fused: with the fused epilogue; Swapped: a 128-row swapped-only tile).
template <int BN, bool Fused, int BM = gk::kBM, bool Swapped = false>
using AotKernel = CfgKernel<gk::Config<BN, Fused, BM, Swapped>>;

/// The ahead-of-time instance of tile BM x BN (Fused: the fused-epilogue one;
/// BM = 64: the one-warpgroup tiles, swapped 64 x {16, 32, 48, 64, 80, 96}, unswapped 64 x 128;
/// Swapped: the 128-row swapped-only tiles 128 x {80, 96, ..., 256}).
template <int BN, bool Fused = false, int BM = gk::kBM, bool Swapped = false>
Status launch_tiles_of(const GemmArgs& g, cudaStream_t stream, bool transposed) {
  using K = AotKernel<BN, Fused, BM, Swapped>;
  return launch_tiles_with<BN, Fused, K, BM, Swapped>(g, stream, transposed, K{});
}

}  // namespace tessel::gemm_launch::k13
