// The body of k14's per-width launchers (instances.cu's k14 units): the maps
// of A, B (the shared one in the halves the two CTAs of a cluster load) and D, the cluster
// count, and the cluster launch.
#pragma once

#include <atomic>
#include <string>
#include <type_traits>
#include <utility>

#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "src/kernels/gemm/workspace.hpp"
#include "tessel/kernels/gemm/k14_cluster_multicast.cuh"

namespace tessel::gemm_launch::k14 {

namespace gk = gemm_kernels::k14;

/// The launch of `kernel` (tiles X, BM x BN each, `threads` a CTA) on clusters of X::kSize CTAs: A's, B's and D's
/// maps, one cluster per unit (cluster tile, or with Split each of its g.tuning.splits k-ranges) up to those that
/// fit at once; with Split, the partials and counters of every CTA tile of the cluster tiles; errors name `step`.
/// `waits`: the kernel's producer waits for a grid ahead (k14's), so that it may follow a padded copy as its
/// programmatic dependent (tma::after_padded_copy).  k14 and k15 on pairs.
template <class X, int BM, int BN, class T, MajorA MA, MajorB MB, bool Split = false, class K>
Status launch_on_clusters(const GemmArgs& g, K* kernel, int threads, cudaStream_t stream, const char* step,
                          bool waits = false) {
  CUtensorMap map_a, map_b;
  if (Status s = tma::operand_maps<T, MA, MB, X>(g, map_a, map_b, step); !s) return s;
  CUtensorMap map_d{};
  bool tma_store = false;
  // A swapped-only tile (k13's 128-row swapped tiles in pairs) writes D^T as k13's does.
  if constexpr (X::kTransposed && !X::kTmaStore)
    tma_store = tma::stores_transposed_d(g, true) && tma::d_store_map<X::template EpilogueT>(g, map_d, step, true);
  else
    tma_store = tma::d_store_map<X::template Epilogue>(g, map_d, step);
  if (Status s = allow_smem(kernel, X::kSmemBytes, step); !s) return s;
  int sms = 0, clusters = 0;
  if (Status s = tma::sm_count(step, sms); !s) return s;
  // The occupancy query is cached per kernel: the split instance is a kernel of its own.
  if (Status s = tma::max_clusters<std::pair<X, std::bool_constant<Split>>>(kernel, threads, X::kSmemBytes, sms,
                                                                            clusters, X::kSize, step);
      !s)
    return s;
  const index_t pairs = X::pair_rows(ceil_div(g.m, index_t{BM})) * X::pair_cols(ceil_div(g.n, index_t{BN}));
  const int splits = Split && g.tuning.splits > 1 ? g.tuning.splits : 1;
  const index_t units = pairs * splits;
  const index_t used = units < clusters ? units : clusters;
  cudaLaunchAttribute cluster, attrs[2];
  const cudaLaunchConfig_t cfg =
      tma::cluster_config(static_cast<unsigned>(used * X::kSize), threads, X::kSmemBytes, stream, cluster, X::kSize);
  // After a padded copy, the copy's programmatic dependent where the producer waits for it (`waits`).
  const auto launch = [&](auto... args) {
    void* list[] = {&args...};
    return launch_dependent(cfg, attrs, reinterpret_cast<const void*>(kernel), list, waits && tma::after_padded_copy);
  };
  cudaError_t e = cudaSuccess;
  if constexpr (Split) {
    gemm_kernels::SplitK sk;
    sk.splits = splits;
    PartialsAndCounters mem;
    if (splits > 1) {
      const auto slots = static_cast<std::size_t>(  // a CTA tile each, padding tiles included (k14_workspace_bytes)
          cluster_tile_slots(ceil_div(g.m, index_t{BM}), ceil_div(g.n, index_t{BN}), X::kCM, X::kCN));
      if (Status s = mem.make(slots * splits * BM * BN * sizeof(float), slots, stream, step, "split K's workspace",
                              "split K's counters");
          !s)
        return s;
      sk.partials = mem.partials;
      sk.counters = mem.counters;
    }
    e = launch(map_a, map_b, map_d, tma_store, make_params<T>(g), sk);
    mem.release(stream);
  } else {
    e = launch(map_a, map_b, map_d, tma_store, make_params<T>(g));
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::failure(Status::cuda_error, std::string(step) + ": " + cudaGetErrorString(e));
  }
  return launch_status(step);
}

/// The launch of tile BM x BN (BM = 64: one consumer warpgroup, 64 x 128) on
/// clusters of CM x CN CTAs (default: k14's pairs); Split: the instance that
/// splits K (gemm_cluster_split, g.tuning.splits ways).
template <int BN, int BM = gemm_kernels::wgmma::kBM,
          int CM = gemm_kernels::cluster::kPairM<gemm_kernels::wgmma::Config<BN, false, BM>>,
          int CN = gemm_kernels::cluster::kPairN<gemm_kernels::wgmma::Config<BN, false, BM>>, bool Split = false>
Status launch_tiles_of(const GemmArgs& g, cudaStream_t stream) {
  using Cfg = gemm_kernels::wgmma::Config<BN, false, BM>;
  return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
    using X = gemm_kernels::cluster::ClusterTiles<T, MA, MB, Cfg, CM, CN>;
    if constexpr (Split)
      return launch_on_clusters<X, BM, BN, T, MA, MB, true>(g, &gk::gemm_cluster_split<T, MA, MB, Cfg, CM, CN>,
                                                            Cfg::kThreads, stream, "k14", true);
    else
      return launch_on_clusters<X, BM, BN, T, MA, MB>(g, &gk::gemm_cluster_multicast<T, MA, MB, Cfg, CM, CN>,
                                                      Cfg::kThreads, stream, "k14", true);
  });
}

/// k13's 128-row swapped-only tile 128 x BN (128 of N by BN of M) on pairs of
/// neighbours along the swapped problem's M sharing its B (the caller's A,
/// read K-major); `g` is the swapped problem (k13_swapped).
template <int BN>
Status launch_wide_of(const GemmArgs& g, cudaStream_t stream) {
  using Cfg = gemm_kernels::wgmma::Config<BN, false, 128, true>;
  return with_swapped_types(g, [&]<class T, MajorA MA, MajorB MB>() {
    if constexpr (MB != MajorB::k) {
      return Status::failure(Status::unsupported,
                             "k14: the swapped tile 128 x " + std::to_string(BN) + " reads A K-major only (A:k)");
    } else {
      using X = gemm_kernels::cluster::ClusterTiles<T, MA, MB, Cfg, 2, 1>;
      return launch_on_clusters<X, 128, BN, T, MA, MB>(g, &gk::gemm_cluster_multicast<T, MA, MB, Cfg, 2, 1>,
                                                       Cfg::kThreads, stream, "k14", true);
    }
  });
}

}  // namespace tessel::gemm_launch::k14
