// k07 — three stages (and, as a template, any number).  With two stages the
// load of k-tile kt+1 has only the MMAs of k-tile kt to hide behind, and a
// DRAM miss is longer than that; with S stages S-1 k-tiles are in flight.
// The loop also waits and synchronizes once per k-tile instead of twice: the
// barrier that says "k-tile kt has landed" also says "every warp has finished
// k-tile kt-1", so its stage can be refilled right after it.
//
// The kernel is written for a configuration (tile, warps, stages, raster,
// epilogue) so that k08 is this loop with another epilogue.
#pragma once

#include "tessel/kernels/gemm/k06_grouped_raster.cuh"

namespace tessel::gemm_kernels {

template <int BM, int BN, int WarpsM, int WarpsN, int Stages, class Raster, class Epilogue, int MinBlocks = 1>
struct MultistageConfig {
  static constexpr int kBM = BM, kBN = BN, kStages = Stages, kMinBlocks = MinBlocks;
  static constexpr int kThreads = 32 * WarpsM * WarpsN;
  template <class T>
  using Mma = TiledMma<SM80_16x8x16_F32_TN<T>, WarpsM, WarpsN, 1>;
  template <class T, MajorA MA, MajorB MB>
  using Tile = MmaTile<T, Mma<T>, major_of(MA), major_of(MB), BM, BN, kThreads>;
  using raster = Raster;
  using epilogue = Epilogue;
  /// The pipeline's stages (1024-byte aligned, as the 128-byte swizzle
  /// needs).  The epilogue reuses the same bytes once the last stage is read.
  template <class T, MajorA MA, MajorB MB>
  struct SharedStorage {
    alignas(1024) T a[Stages][Tile<T, MA, MB>::OpA::kElems];  // Stages x (BM,64)
    alignas(1024) T b[Stages][Tile<T, MA, MB>::OpB::kElems];  // Stages x (BN,64)
  };
  template <class T, MajorA MA, MajorB MB>
  static constexpr int smem_bytes() {
    const int pipe = static_cast<int>(sizeof(SharedStorage<T, MA, MB>));
    return pipe > Epilogue::template smem_bytes<BM, BN>() ? pipe : Epilogue::template smem_bytes<BM, BN>();
  }
};

template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) gemm_multistage(Params<T> p) {
  using TT = typename Cfg::template Tile<T, MA, MB>;
  using TM = typename Cfg::template Mma<T>;
  constexpr int S = Cfg::kStages, BM = Cfg::kBM, BN = Cfg::kBN;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename Cfg::template SharedStorage<T, MA, MB>*>(smem);
  const int t = static_cast<int>(threadIdx.x);
  const index_t tiles_m = ceil_div(p.m, index_t{BM}), tiles_n = ceil_div(p.n, index_t{BN});
  index_t tile_m, tile_n;
  Cfg::raster::tile(tiles_m, tiles_n, tile_m, tile_n);
  const auto gA = tensor_a<MA>(p);  // (M,K)
  const auto gB = tensor_b<MB>(p);  // (N,K)
  const bool vec_a = rows_aligned16(p.a, p.lda), vec_b = rows_aligned16(p.b, p.ldb);

  typename TT::FragA tCrA;  // (8,RM,4)
  typename TT::FragB tCrB;  // (4,RN,4)
  typename TT::FragC tCrC;  // (4,RM,RN) f32
  clear(tCrC);

  const index_t k_tiles = ceil_div(p.k, index_t{kBK});
  TESSEL_UNROLL
  for (int s = 0; s < S - 1; ++s) {  // prologue: k-tiles 0..S-2 in flight
    if (s < k_tiles) {
      TT::OpA::load(gA, tile_m, s, shared.a[s], t, vec_a);
      TT::OpB::load(gB, tile_n, s, shared.b[s], t, vec_b);
    }
    arch::sm80::cp_async_commit();
  }
  for (index_t kt = 0; kt < k_tiles; ++kt) {
    arch::sm80::cp_async_wait<S - 2>();  // k-tile kt has landed
    __syncthreads();                     // ... for every thread, and k-tile kt-1 is consumed
    const index_t next = kt + S - 1;     // refill the stage k-tile kt-1 used
    if (next < k_tiles) {
      const int sn = static_cast<int>(next % S);
      TT::OpA::load(gA, tile_m, next, shared.a[sn], t, vec_a);
      TT::OpB::load(gB, tile_n, next, shared.b[sn], t, vec_b);
    }
    arch::sm80::cp_async_commit();
    const int s = static_cast<int>(kt % S);
    const auto tCsA = TT::partition_a(shared.a[s], t);  // (8,RM,4) ldmatrix rows
    const auto tCsB = TT::partition_b(shared.b[s], t);  // (4,RN,4)
    // Registers double-buffered by order: slice kk+1 is requested before
    // slice kk's MMAs, so ldmatrix latency overlaps tensor-core work.
    TT::load_slice(0, tCsA, tCsB, tCrA, tCrB);
    TESSEL_UNROLL
    for (int k = 0; k < TT::kRK; ++k) {
      if (k + 1 < TT::kRK) TT::load_slice(k + 1, tCsA, tCsB, tCrA, tCrB);
      gemm(TM{}, tCrA(_, _, k), tCrB(_, _, k), tCrC);
    }
  }
  if constexpr (Cfg::epilogue::template smem_bytes<BM, BN>() > 0) {
    arch::sm80::cp_async_wait<0>();  // only empty groups remain, but the pipeline's smem gets reused
    __syncthreads();
  }
  Cfg::epilogue::template apply<TM, typename TT::CTile>(p, tile_m * BM, tile_n * BN, tCrC, smem, t);
}

namespace k07 {
using Config = MultistageConfig<128, 128, 2, 2, 3, GroupedRaster<8>, RegisterEpilogue>;
}  // namespace k07

}  // namespace tessel::gemm_kernels
