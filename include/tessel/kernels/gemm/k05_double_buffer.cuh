// k05 — double buffering: two shared-memory stages.  While the tensor cores
// work on k-tile kt in one stage, cp.async fills the other with k-tile kt+1,
// so the load latency hides behind the MMAs of a whole k-tile (k04 paid it
// in full on every k-tile).  The rest is k04: 128x128x64 tile, 4 warps.
#pragma once

#include "tessel/kernels/gemm/k04_mma_sync.cuh"

namespace tessel::gemm_kernels::k05 {

using k04::kBM;
using k04::kBN;
using k04::kThreads;
using k04::Mma;
using k04::Tile;
inline constexpr int kStages = 2;

/// The kernel's shared memory: two stages of A and of B (1024-byte aligned,
/// as the 128-byte swizzle needs).
template <class T, MajorA MA, MajorB MB>
struct SharedStorage {
  alignas(1024) T a[kStages][Tile<T, MA, MB>::OpA::kElems];  // kStages x (128,64)
  alignas(1024) T b[kStages][Tile<T, MA, MB>::OpB::kElems];  // kStages x (128,64)
};
template <class T, MajorA MA, MajorB MB>
inline constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage<T, MA, MB>));

/// Raster picks the tile of D from the block index (k06 changes only that).
template <class T, MajorA MA, MajorB MB, class Raster>
__global__ void __launch_bounds__(kThreads) gemm_double_buffer(Params<T> p) {
  using TT = Tile<T, MA, MB>;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<SharedStorage<T, MA, MB>*>(smem);
  const int t = static_cast<int>(threadIdx.x);
  const index_t tiles_m = ceil_div(p.m, index_t{kBM}), tiles_n = ceil_div(p.n, index_t{kBN});
  index_t tile_m, tile_n;
  Raster::tile(tiles_m, tiles_n, tile_m, tile_n);
  const auto gA = tensor_a<MA>(p);  // (M,K)
  const auto gB = tensor_b<MB>(p);  // (N,K)
  const bool vec_a = rows_aligned16(p.a, p.lda), vec_b = rows_aligned16(p.b, p.ldb);

  typename TT::FragA tCrA;  // (8,4,4)
  typename TT::FragB tCrB;  // (4,8,4)
  typename TT::FragC tCrC;  // (4,4,8) f32
  clear(tCrC);

  const index_t k_tiles = ceil_div(p.k, index_t{kBK});
  TT::OpA::load(gA, tile_m, 0, shared.a[0], t, vec_a);
  TT::OpB::load(gB, tile_n, 0, shared.b[0], t, vec_b);
  arch::sm80::cp_async_commit();
  for (index_t kt = 0; kt < k_tiles; ++kt) {
    const int s = static_cast<int>(kt % kStages);
    if (kt + 1 < k_tiles) {  // the other stage was released by the barrier that ended k-tile kt-1
      TT::OpA::load(gA, tile_m, kt + 1, shared.a[1 - s], t, vec_a);
      TT::OpB::load(gB, tile_n, kt + 1, shared.b[1 - s], t, vec_b);
    }
    arch::sm80::cp_async_commit();   // possibly empty: keeps one group per k-tile
    arch::sm80::cp_async_wait<1>();  // k-tile kt has landed (kt+1 may be in flight)
    __syncthreads();
    const auto tCsA = TT::partition_a(shared.a[s], t);  // (8,4,4) ldmatrix rows
    const auto tCsB = TT::partition_b(shared.b[s], t);  // (4,8,4)
    TESSEL_UNROLL
    for (int k = 0; k < TT::kRK; ++k) {
      TT::load_slice(k, tCsA, tCsB, tCrA, tCrB);
      gemm(Mma<T>{}, tCrA(_, _, k), tCrB(_, _, k), tCrC);
    }
    __syncthreads();  // stage s is free for k-tile kt+2
  }

  const auto tCcD = Mma<T>{}.get_slice(t).partition_C(
      coord_tile<typename TT::CTile>(p.m - tile_m * kBM, p.n - tile_n * kBN));  // (4,4,8) coordinates
  epilogue_registers(p, tile_m * kBM, tile_n * kBN, tCcD, tCrC);
}

}  // namespace tessel::gemm_kernels::k05
