// bench/lab/lab_kernel.cuh — a copy of k09's kernel with switches that turn
// its parts on and off, to measure what each costs (docs/ladder.md, "k09
// variants").  Not part of the library and not built by CMake: bench/lab/build.sh.
//   kPipe     load k-slice 0 of the next k-tile before the last slice's MMAs
//   kNoEpi    skip the epilogue (D is not written: timing only)
//   kNoLoad   no TMA loads and no waits: the MMAs read whatever the shared
//             stages hold (timing only)
//   kRegs240  setmaxnreg 24 / 240 instead of 40 / 232
//   kTmaStore the TMA-store epilogue (the library's since 0534c1c)
//   kX4B      B (N-major) fragments with ldmatrix.x4.trans, two n-atoms each
//   kNoLds    no ldmatrix in the k loop: two k-slices loaded once per tile,
//             then only MMAs (timing only: the pure mma.sync stream)
//   kGroup16, kGroup32, kGroup4: the grouped raster's group (k09: 8 tile rows)
//   kLoadsOnly the TMA loads and the stage hand-offs alone: consumers wait
//             for each stage and release it at once, no ldmatrix, no MMA, no
//             epilogue (timing only: what moving the operands costs)
#pragma once
#include "tessel/kernels/gemm/k09_best_mma_sync.cuh"

namespace lab {
using namespace tessel;
using namespace tessel::gemm_kernels;
namespace kk = tessel::gemm_kernels::k09;

enum : int { kPipe = 1, kNoEpi = 2, kNoLoad = 4, kRegs240 = 8, kTmaStore = 16, kX4B = 32, kNoLds = 64, kOrder = 128, kNOuter = 256 };
/// lab_cluster_kernel: 2-CTA clusters along M sharing B through TMA multicast.
inline constexpr int kCluster = 512;
inline constexpr int kLoadsOnly = 1024;
inline constexpr int kGroup16 = 2048, kGroup32 = 4096, kGroup4 = 8192;
template <int V>
using Raster = GroupedRaster<(V & kGroup16) ? 16 : (V & kGroup32) ? 32 : (V & kGroup4) ? 4 : kk::kGroup>;

/// gemm_kslice with the order as a switch: kNOuter runs n outside and m
/// inside (serpentine), so consecutive MMAs share B instead of A.
template <int V, int KK, class TM, class FA, class FB, class FC>
__device__ void lab_kslice(const FA& a, const FB& b, FC& c) {
  if constexpr ((V & kNOuter) == 0) {
    gemm_kslice<KK, TM>(a, b, c);
  } else {
    using Atom = typename TM::atom;
    constexpr int Va = TM::kVa, Vb = TM::kVb, Vc = TM::kVc;
    constexpr int RM = 4, RN = 8;  // k09's (128,256) tile, 2x4 warps
    static_assert(FC::kValues == Vc * RM * RN);
    TESSEL_UNROLL
    for (int n = 0; n < RN; ++n) {
      TESSEL_UNROLL
      for (int j = 0; j < RM; ++j) {
        const int m = n % 2 == 0 ? j : RM - 1 - j;
        Atom::fma(c.addr(Vc * (m + RM * n)), a.addr(Va * (m + RM * KK)), b.addr(Vb * (n + RN * KK)));
      }
    }
  }
}

template <int V, class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kk::kThreads, 1)
    lab_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               const __grid_constant__ CUtensorMap map_d, Params<T> p) {
  using Epi = TmaStoreEpilogue<T, typename kk::Tiles<T, MA, MB>::TM, kk::kBM, kk::kBN>;
  using X = kk::Tiles<T, MA, MB>;
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  constexpr int kStages = kk::kStages, kBM = kk::kBM, kBN = kk::kBN;
  extern __shared__ __align__(1024) unsigned char smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + kStages * OpA::kElems;
  T* sD = sB + kStages * OpB::kElems;
  auto* bars = reinterpret_cast<std::uint64_t*>(reinterpret_cast<unsigned char*>(sD) + Epi::kSmemBytes);
  const auto full = [&](int s) { return arch::sm80::smem_addr(bars + s); };
  const auto empty = [&](int s) { return arch::sm80::smem_addr(bars + kStages + s); };
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      arch::sm90::mbarrier_init(full(s), 1);
      arch::sm90::mbarrier_init(empty(s), kk::kConsumerWarps);
    }
    arch::sm90::fence_mbarrier_init();
  }
  __syncthreads();
  const index_t tiles_m = (p.m + kBM - 1) / kBM, tiles_n = (p.n + kBN - 1) / kBN;
  const index_t tiles = tiles_m * tiles_n;
  const index_t k_tiles = (p.k + kBK - 1) / kBK;
  if (warp >= kk::kConsumerWarps) {
    arch::sm90::setmaxnreg_dec<(V & kRegs240) ? 24 : kk::kProducerRegs>();
    if ((V & kNoLoad) == 0 && warp == kk::kConsumerWarps && arch::sm90::elect_one_sync()) {
      index_t it = 0;
      for (index_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        index_t tile_m, tile_n;
        Raster<V>::tile_of(tile, tiles_m, tiles_n, tile_m, tile_n);
        for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
          const int s = static_cast<int>(it % kStages);
          const index_t use = it / kStages;
          if (use > 0) arch::sm90::mbarrier_wait_parity(empty(s), static_cast<std::uint32_t>((use - 1) & 1));
          arch::sm90::mbarrier_arrive_expect_tx(full(s), X::kStageBytes);
          OpA::load(&map_a, sA + s * OpA::kElems, full(s), tile_m, kt);
          OpB::load(&map_b, sB + s * OpB::kElems, full(s), tile_n, kt);
        }
      }
    }
    return;
  }
  arch::sm90::setmaxnreg_inc<(V & kRegs240) ? 240 : kk::kConsumerRegs>();
  const int t = static_cast<int>(threadIdx.x);
  const auto ldsm_a = typename X::LdsmA{}.get_slice(t);
  const auto ldsm_b = typename X::LdsmB{}.get_slice(t);
  constexpr int SA = X::kSliceA, SB = X::kSliceB;
  using LA = typename X::LdsmA;
  using LB = typename X::LdsmB;
  using TM = typename X::TM;
  const auto wait_full = [&](index_t i) {
    if constexpr ((V & kNoLoad) == 0)
      arch::sm90::mbarrier_wait_parity(full(static_cast<int>(i % kStages)), static_cast<std::uint32_t>((i / kStages) & 1));
  };
  const auto release = [&](index_t i) {
    if constexpr ((V & kNoLoad) == 0) {
      __syncwarp();
      if (lane == 0) arch::sm90::mbarrier_arrive(empty(static_cast<int>(i % kStages)));
    }
  };
  const auto part_a = [&](index_t i) {
    return ldsm_a.partition_S(make_smem_tensor<OpA::kSmem>(sA + static_cast<int>(i % kStages) * OpA::kElems));
  };
  const auto part_b = [&](index_t i) {
    return ldsm_b.partition_S(make_smem_tensor<OpB::kSmem>(sB + static_cast<int>(i % kStages) * OpB::kElems));
  };
  // x4.trans B loads: lanes 16..31 address the odd n-atom of a pair.
  const std::uint32_t sB_addr = arch::sm80::smem_addr(sB);
  std::uint32_t boff;
  {
    const auto tCsB0 = part_b(0);
    boff = (lane & 16) ? arch::sm80::smem_addr(tCsB0.addr(4)) - sB_addr : arch::sm80::smem_addr(tCsB0.addr(0)) - sB_addr;
  }
  index_t it = 0;
  for (index_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    index_t tile_m, tile_n;
    Raster<V>::tile_of(tile, tiles_m, tiles_n, tile_m, tile_n);
    if constexpr ((V & kLoadsOnly) != 0) {
      for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
        wait_full(it);
        release(it);
      }
      continue;
    }
    typename X::FragA tCrA;
    typename X::FragB tCrB;
    typename X::FragC tCrC;
    clear(tCrC);
    auto load_b = [&]<int KK>(index_t i) {
      const std::uint32_t base = sB_addr + static_cast<std::uint32_t>(i % kStages) * (OpB::kElems * 2) + boff;
      TESSEL_UNROLL
      for (int q = 0; q < 4; ++q) {
        std::uint32_t* r = reinterpret_cast<std::uint32_t*>(tCrB.addr(8 * q + 32 * KK));
        arch::sm80::ldmatrix_x4_trans(base + (4096 * q + 1024 * KK) * 2, r[0], r[1], r[2], r[3]);
      }
    };
    if constexpr ((V & kPipe) != 0) {
      // Slice 0 of each k-tile is loaded before the last slice of the previous one is computed.
      wait_full(it);
      {
        const auto tCsA = part_a(it);
        const auto tCsB = part_b(it);
        copy_range<0, SA>(LA{}, tCsA, tCrA);
        copy_range<0, SB>(LB{}, tCsB, tCrB);
      }
      for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
        const auto tCsA = part_a(it);
        const auto tCsB = part_b(it);
        copy_range<SA, 2 * SA>(LA{}, tCsA, tCrA);
        copy_range<SB, 2 * SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 0, TM>(tCrA, tCrB, tCrC);
        copy_range<2 * SA, 3 * SA>(LA{}, tCsA, tCrA);
        copy_range<2 * SB, 3 * SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 1, TM>(tCrA, tCrB, tCrC);
        copy_range<3 * SA, 4 * SA>(LA{}, tCsA, tCrA);
        copy_range<3 * SB, 4 * SB>(LB{}, tCsB, tCrB);
        release(it);
        lab_kslice<V, 2, TM>(tCrA, tCrB, tCrC);
        if (kt + 1 < k_tiles) {
          wait_full(it + 1);
          const auto nA = part_a(it + 1);
          const auto nB = part_b(it + 1);
          copy_range<0, SA>(LA{}, nA, tCrA);
          copy_range<0, SB>(LB{}, nB, tCrB);
        }
        lab_kslice<V, 3, TM>(tCrA, tCrB, tCrC);
      }
    } else {
      if constexpr ((V & kNoLds) != 0) {
        const auto tCsA = part_a(it);
        const auto tCsB = part_b(it);
        copy_range<0, 2 * SA>(LA{}, tCsA, tCrA);
        copy_range<0, 2 * SB>(LB{}, tCsB, tCrB);
        for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
          lab_kslice<V, 0, TM>(tCrA, tCrB, tCrC);
          lab_kslice<V, 1, TM>(tCrA, tCrB, tCrC);
          lab_kslice<V, 0, TM>(tCrA, tCrB, tCrC);
          lab_kslice<V, 1, TM>(tCrA, tCrB, tCrC);
        }
      } else
      if constexpr ((V & kOrder) != 0)
      for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
        // Each slice loaded just before its MMAs: ptxas schedules the loads.
        wait_full(it);
        const auto tCsA = part_a(it);
        const auto tCsB = part_b(it);
        copy_range<0, SA>(LA{}, tCsA, tCrA);
        copy_range<0, SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 0, TM>(tCrA, tCrB, tCrC);
        copy_range<SA, 2 * SA>(LA{}, tCsA, tCrA);
        copy_range<SB, 2 * SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 1, TM>(tCrA, tCrB, tCrC);
        copy_range<2 * SA, 3 * SA>(LA{}, tCsA, tCrA);
        copy_range<2 * SB, 3 * SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 2, TM>(tCrA, tCrB, tCrC);
        copy_range<3 * SA, 4 * SA>(LA{}, tCsA, tCrA);
        copy_range<3 * SB, 4 * SB>(LB{}, tCsB, tCrB);
        release(it);
        lab_kslice<V, 3, TM>(tCrA, tCrB, tCrC);
      }
      else
      for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
        wait_full(it);
        const auto tCsA = part_a(it);
        const auto tCsB = part_b(it);
        copy_range<0, SA>(LA{}, tCsA, tCrA);
        if constexpr ((V & kX4B) != 0) load_b.template operator()<0>(it); else copy_range<0, SB>(LB{}, tCsB, tCrB);
        copy_range<SA, 2 * SA>(LA{}, tCsA, tCrA);
        if constexpr ((V & kX4B) != 0) load_b.template operator()<1>(it); else copy_range<SB, 2 * SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 0, TM>(tCrA, tCrB, tCrC);
        copy_range<2 * SA, 3 * SA>(LA{}, tCsA, tCrA);
        if constexpr ((V & kX4B) != 0) load_b.template operator()<2>(it); else copy_range<2 * SB, 3 * SB>(LB{}, tCsB, tCrB);
        lab_kslice<V, 1, TM>(tCrA, tCrB, tCrC);
        copy_range<3 * SA, 4 * SA>(LA{}, tCsA, tCrA);
        if constexpr ((V & kX4B) != 0) load_b.template operator()<3>(it); else copy_range<3 * SB, 4 * SB>(LB{}, tCsB, tCrB);
        release(it);
        lab_kslice<V, 2, TM>(tCrA, tCrB, tCrC);
        lab_kslice<V, 3, TM>(tCrA, tCrB, tCrC);
      }
    }
    if constexpr ((V & kNoEpi) != 0) {
      if (p.alpha != 12345.0f) continue;  // never taken in the lab: keeps the MMAs alive
    }
    if constexpr ((V & kTmaStore) != 0) {
      Epi::apply(&map_d, p, tile_m, tile_n, tCrC, sD, t, 1);
    } else {
      RegisterEpilogue::apply<TM, typename X::CTile>(p, tile_m * kBM, tile_n * kBN, tCrC, nullptr, t);
    }
  }
  if constexpr ((V & kTmaStore) != 0) Epi::finish(t);
}

/// k09 with 2-CTA clusters: the two CTAs compute vertically adjacent tiles
/// (tile rows 2p and 2p+1, same tile column) and share B: CTA r loads B's
/// boxes 2r and 2r+1 (N-major B: 4 boxes of 64 k x 64 n) and multicasts them
/// to both, so each CTA reads 32 KB per k-tile from L2 instead of 48 KB.
/// A stage of either CTA is refilled only when the consumers of *both* have
/// released it: every consumer warp arrives on its own and its peer's empty
/// barrier (count 2 x 8).  Only A:k, B:n here.
template <int V, class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kk::kThreads, 1)
    lab_cluster_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       const __grid_constant__ CUtensorMap map_d, Params<T> p) {
  static_assert(MA == MajorA::k && MB == MajorB::n, "lab: A:k, B:n only");
  using X = kk::Tiles<T, MA, MB>;
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = typename X::TM;
  using Epi = TmaStoreEpilogue<T, TM, kk::kBM, kk::kBN>;
  constexpr int kStages = kk::kStages, kBM = kk::kBM, kBN = kk::kBN;
  extern __shared__ __align__(1024) unsigned char smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + kStages * OpA::kElems;
  T* sD = sB + kStages * OpB::kElems;
  auto* bars = reinterpret_cast<std::uint64_t*>(reinterpret_cast<unsigned char*>(sD) + Epi::kSmemBytes);
  const auto full = [&](int s) { return arch::sm80::smem_addr(bars + s); };
  const auto empty = [&](int s) { return arch::sm80::smem_addr(bars + kStages + s); };
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::uint32_t rank = arch::sm90::cluster_ctarank(), peer = rank ^ 1u;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      arch::sm90::mbarrier_init(full(s), 1);
      arch::sm90::mbarrier_init(empty(s), 2 * kk::kConsumerWarps);
    }
    arch::sm90::fence_mbarrier_init();
  }
  arch::sm90::cluster_sync();  // the peer's multicasts and arrives find initialized barriers
  const index_t tiles_m = (p.m + kBM - 1) / kBM, tiles_n = (p.n + kBN - 1) / kBN;
  const index_t pairs_m = (tiles_m + 1) / 2, pairs = pairs_m * tiles_n;
  const index_t k_tiles = (p.k + kBK - 1) / kBK;
  const index_t cluster = blockIdx.x / 2, clusters = gridDim.x / 2;
  if (warp >= kk::kConsumerWarps) {
    arch::sm90::setmaxnreg_dec<kk::kProducerRegs>();
    if (warp == kk::kConsumerWarps && arch::sm90::elect_one_sync()) {
      index_t it = 0;
      for (index_t pair = cluster; pair < pairs; pair += clusters) {
        index_t pm, tile_n;
        Raster<V>::tile_of(pair, pairs_m, tiles_n, pm, tile_n);
        const index_t tile_m = 2 * pm + rank;
        for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
          const int s = static_cast<int>(it % kStages);
          const index_t use = it / kStages;
          if (use > 0) arch::sm90::mbarrier_wait_parity(empty(s), static_cast<std::uint32_t>((use - 1) & 1));
          arch::sm90::mbarrier_arrive_expect_tx(full(s), X::kStageBytes);
          OpA::load(&map_a, sA + s * OpA::kElems, full(s), tile_m, kt);
          constexpr int kBoxK = 64, kBoxN = 64;  // B's box: (64 k, 64 n)
          static_assert(OpB::kBoxElems == kBoxK * kBoxN);
          TESSEL_UNROLL
          for (int b = 0; b < 2; ++b) {
            const int box = 2 * static_cast<int>(rank) + b;
            arch::sm90::tma_load_multicast(arch::sm80::smem_addr(sB + s * OpB::kElems + box * OpB::kBoxElems), &map_b,
                                           full(s), 0x3,
                                           static_cast<int>((tile_n * 4 + box) * kBoxN),
                                           static_cast<int>(kt * kBoxK));
          }
        }
      }
    }
  } else {
    arch::sm90::setmaxnreg_inc<kk::kConsumerRegs>();
    // A stage may be refilled once both CTAs' consumers are done with it.
    const auto release_both = [&](int s) {
      __syncwarp();
      if (lane == 0) {
        arch::sm90::mbarrier_arrive(empty(s));
        arch::sm90::mbarrier_arrive_cluster(arch::sm90::mapa_shared(empty(s), peer));
      }
    };
    const int t = static_cast<int>(threadIdx.x);
    const auto ldsm_a = typename X::LdsmA{}.get_slice(t);
    const auto ldsm_b = typename X::LdsmB{}.get_slice(t);
    constexpr int SA = X::kSliceA, SB = X::kSliceB;
    using LA = typename X::LdsmA;
    using LB = typename X::LdsmB;
    index_t it = 0;
    for (index_t pair = cluster; pair < pairs; pair += clusters) {
      index_t pm, tile_n;
      Raster<V>::tile_of(pair, pairs_m, tiles_n, pm, tile_n);
      const index_t tile_m = 2 * pm + rank;
      if constexpr ((V & kLoadsOnly) != 0) {
        for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
          const int s = static_cast<int>(it % kStages);
          arch::sm90::mbarrier_wait_parity(full(s), static_cast<std::uint32_t>((it / kStages) & 1));
          release_both(s);
        }
        continue;
      }
      typename X::FragA tCrA;
      typename X::FragB tCrB;
      typename X::FragC tCrC;
      clear(tCrC);
      for (index_t kt = 0; kt < k_tiles; ++kt, ++it) {
        const int s = static_cast<int>(it % kStages);
        arch::sm90::mbarrier_wait_parity(full(s), static_cast<std::uint32_t>((it / kStages) & 1));
        const auto tCsA = ldsm_a.partition_S(make_smem_tensor<OpA::kSmem>(sA + s * OpA::kElems));
        const auto tCsB = ldsm_b.partition_S(make_smem_tensor<OpB::kSmem>(sB + s * OpB::kElems));
        copy_range<0, SA>(LA{}, tCsA, tCrA);
        copy_range<0, SB>(LB{}, tCsB, tCrB);
        copy_range<SA, 2 * SA>(LA{}, tCsA, tCrA);
        copy_range<SB, 2 * SB>(LB{}, tCsB, tCrB);
        gemm_kslice<0, TM>(tCrA, tCrB, tCrC);
        copy_range<2 * SA, 3 * SA>(LA{}, tCsA, tCrA);
        copy_range<2 * SB, 3 * SB>(LB{}, tCsB, tCrB);
        gemm_kslice<1, TM>(tCrA, tCrB, tCrC);
        copy_range<3 * SA, 4 * SA>(LA{}, tCsA, tCrA);
        copy_range<3 * SB, 4 * SB>(LB{}, tCsB, tCrB);
        release_both(s);
        gemm_kslice<2, TM>(tCrA, tCrB, tCrC);
        gemm_kslice<3, TM>(tCrA, tCrB, tCrC);
      }
      Epi::apply(&map_d, p, tile_m, tile_n, tCrC, sD, t, 1);
    }
    Epi::finish(t);
  }
  arch::sm90::cluster_sync();  // no CTA leaves while its peer may still arrive on its barriers
}
}  // namespace lab
