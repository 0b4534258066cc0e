// k04 — tensor cores: mma.sync m16n8k16 (16-bit inputs, fp32 accumulators).
//
// A 128x128 tile of D per CTA of 4 warps (a 2x2 TiledMMA of the atom: each
// warp owns 64x64 of the tile, as 4x8 atoms interleaved with its
// neighbours').  Per k-tile of 64: cp.async brings the (128,64) tiles of A
// and B into 128-byte-swizzled shared memory, the CTA waits for them, then
// ldmatrix feeds the fragments one k-slice of 16 at a time.  Load, wait,
// compute: nothing overlaps yet, which is what k05 changes.
#pragma once

#include "tessel/kernels/gemm/mma_common.cuh"

namespace tessel::gemm_kernels::k04 {

inline constexpr int kBM = 128, kBN = 128, kThreads = 128;

template <class T>
using Mma = TiledMma<SM80_16x8x16_F32_TN<T>, 2, 2, 1>;  // (32,16,16) per step, 4 warps

template <class T, MajorA MA, MajorB MB>
using Tile = MmaTile<T, Mma<T>, major_of(MA), major_of(MB), kBM, kBN, kThreads>;

template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads) gemm_mma_sync(Params<T> p) {
  using TT = Tile<T, MA, MB>;
  __shared__ alignas(1024) T sA[TT::OpA::kElems];
  __shared__ alignas(1024) T sB[TT::OpB::kElems];
  const int t = static_cast<int>(threadIdx.x);
  const index_t tile_m = blockIdx.y, tile_n = blockIdx.x;
  const auto gA = tensor_a<MA>(p);  // (M,K)
  const auto gB = tensor_b<MB>(p);  // (N,K)
  const bool vec_a = rows_aligned16(p.a, p.lda), vec_b = rows_aligned16(p.b, p.ldb);

  const auto tCsA = TT::partition_a(sA, t);  // (8,RM,4) rows for ldmatrix
  const auto tCsB = TT::partition_b(sB, t);  // (4,RN,4)
  typename TT::FragA tCrA;                   // (8,4,4)
  typename TT::FragB tCrB;                   // (4,8,4)
  typename TT::FragC tCrC;                   // (4,4,8) f32
  clear(tCrC);

  const index_t k_tiles = ceil_div(p.k, index_t{kBK});
  for (index_t kt = 0; kt < k_tiles; ++kt) {
    TT::OpA::load(gA, tile_m, kt, sA, t, vec_a);
    TT::OpB::load(gB, tile_n, kt, sB, t, vec_b);
    arch::sm80::cp_async_wait_all();
    __syncthreads();
    TESSEL_UNROLL
    for (int k = 0; k < TT::kRK; ++k) {  // one k-slice of 16 at a time
      TT::load_slice(k, tCsA, tCsB, tCrA, tCrB);
      gemm(Mma<T>{}, tCrA(_, _, k), tCrB(_, _, k), tCrC);
    }
    __syncthreads();  // the next k-tile overwrites the tiles
  }

  const auto tCcD = Mma<T>{}.get_slice(t).partition_C(
      coord_tile<typename TT::CTile>(p.m - tile_m * kBM, p.n - tile_n * kBN));  // (4,4,8) coordinates
  epilogue_registers(p, tile_m * kBM, tile_n * kBN, tCcD, tCrC);
}

}  // namespace tessel::gemm_kernels::k04
