// k02 — shared-memory tiles and a TiledMMA of FMA atoms (CUDA cores).
//
// One CTA of 256 threads computes a 128x128 tile of D.  Per k-tile of 16:
//   1. a TiledCopy of one-element atoms brings the (128,16) tiles of A (M,K)
//      and B (N,K) into shared memory, zero-filling what lies outside the
//      matrices (so the K tail adds zeros, and M/N tails compute garbage-free
//      values that are never stored);
//   2. for each of the 16 k, every thread loads its 8 A values and 8 B values
//      of that k into registers (TiledCopyA/B of the TiledMMA: the same
//      values as partition_A/B) and does 8x8 FFMAs: TiledMma<UniversalFma,
//      16, 16> puts thread t at (m, n) = (t%16, t/16) of a 16x16 grid, so it
//      owns the accumulators (t%16 + 16i, t/16 + 16j), i, j < 8;
//   3. the epilogue writes the 64 accumulators through the MMA's C partition
//      of the D tile's coordinates, predicated by inside().
// Load, sync, compute, sync: nothing overlaps (k05 is the step that does).
//
// Why 128x128x16.  Each k costs a thread 8 + 8 shared loads for 64 FFMAs: 4
// FFMAs per load, which is what the SM can sustain (4 FFMA warp-instructions
// per clock against about one shared-memory wavefront), and 64 accumulators
// leave room under 128 registers, i.e. 2 CTAs (16 warps) per SM.  A 64x64
// tile gives 2 FFMAs per load and would be bound by shared memory at half
// the rate.  BK = 16 makes a K-major tile row 32 bytes (one global sector)
// for the 16-bit inputs, and halves the barriers per FFMA against BK = 8;
// the two tiles take 8 KB.
//
// The shared tiles here are K-major, (128,16):(16,1): a plain row-major
// copy of a K-major A.  The TiledMMA's reads of A from them are 4-way bank
// conflicted, and the stores of M/N-major operands 8-way: see
// k03_smem_padded.cuh, which pads the rows to remove both.
//
// Any M, N, K >= 1 and any leading dimensions: loads are element-wise and
// predicated (tiles entirely inside the matrices skip the predicates).
#pragma once

#include "tessel/algorithm/copy.hpp"
#include "tessel/atom/mma_fma.hpp"
#include "tessel/atom/tiled_mma.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels::k02 {

inline constexpr int kBM = 128, kBN = 128, kBK = 16, kThreads = 256;

/// 16x16 FMA atoms: per k, a (16,16,1) step; 256 threads, (8,8) steps per tile.
template <class T>
using Mma = TiledMma<UniversalFma<T, T, float>, 16, 16, 1>;

/// The threads of a global-to-shared load of a (128,16) tile (A (M,K) or B
/// (N,K)), one element each per copy tile, consecutive threads on
/// consecutive addresses of global memory:
///  * K contiguous (A:k, B:k): (16,16):(16,1), thread t at (t/16, t%16), 16
///    threads along K (one 32-byte row) and 16 rows; the copy tile repeats
///    8 times down M (or N);
///  * M/N contiguous (A:m, B:n): (128,2):(1,128), thread t at (t%128, t/128),
///    128 threads down M (or N) and 2 columns of K; repeats 8 times along K.
inline constexpr Layout kLoadThrK = make_layout(make_shape(16, 16), LayoutRight{});
inline constexpr Layout kLoadThrMN = make_layout(make_shape(128, 2));
inline constexpr Layout kOneValue = make_layout(make_shape(1, 1));
template <class T, OperandMajor Major>
using GmemLoad = MakeTiledCopy<UniversalCopyZfill<T, 8 * static_cast<int>(sizeof(T))>,
                               Major == OperandMajor::k ? kLoadThrK : kLoadThrMN, kOneValue>;

/// The shared-memory layouts of k02: K-major tiles, (128,16):(16,1).
struct SmemKMajor {
  static constexpr Layout a = make_layout(make_shape(kBM, kBK), LayoutRight{});
  static constexpr Layout b = make_layout(make_shape(kBN, kBK), LayoutRight{});
};

/// One column k of a shared tile: the (128,1) tile that the MMA reads at step k.
inline constexpr Tiler kColumnA = make_tiler(kBM, 1);
inline constexpr Tiler kColumnB = make_tiler(kBN, 1);

/// A tile of global memory into this thread's share of a shared tile: plain
/// copies when the tile lies inside the matrix, else predicated ones that
/// write zeros outside.
template <class TC, class G, class S>
__device__ inline void load_tile(const G& tile, const S& tXsX, int thread) {
  const TC tc;
  const auto tXgX = tc.get_slice(thread).partition_S(tile);
  if (tile.full())
    copy(tc, tXgX, tXsX);
  else
    copy_if(tc, tXgX, tXsX);
}

/// The CUDA-core GEMM of k02 and k03; `Smem` gives the shared layouts of the
/// A and B tiles (static members a and b, (128,16) -> element offset).  At
/// most 128 registers, so that 2 CTAs (16 warps) fit on an SM.
template <class T, MajorA MA, MajorB MB, class Smem>
__global__ void __launch_bounds__(kThreads, 2) gemm_smem_fma(Params<T> p) {
  using MMA = Mma<T>;
  using CTile = TileShape<kBM, kBN>;
  using TileA = TileShape<kBM, kBK>;
  using TileB = TileShape<kBN, kBK>;
  using LoadA = GmemLoad<T, major_of(MA)>;
  using LoadB = GmemLoad<T, major_of(MB)>;
  using FragLoadA = TiledCopyA<UniversalCopy<T, 8 * static_cast<int>(sizeof(T))>, MMA>;
  using FragLoadB = TiledCopyB<UniversalCopy<T, 8 * static_cast<int>(sizeof(T))>, MMA>;
  constexpr Layout LA = Smem::a;
  constexpr Layout LB = Smem::b;
  static_assert(size(LA) == kBM * kBK && size(LB) == kBN * kBK, "tessel: shared tiles must be (128,16)");

  __shared__ alignas(16) T sa[cosize(LA)];
  __shared__ alignas(16) T sb[cosize(LB)];
  const int t = static_cast<int>(threadIdx.x);
  const index_t tile_m = blockIdx.y, tile_n = blockIdx.x;
  const auto gA = tensor_a<MA>(p);                         // (M,K)
  const auto gB = tensor_b<MB>(p);                         // (N,K)
  const auto sA = make_smem_tensor<LA>(sa);                // (128,16)
  const auto sB = make_smem_tensor<LB>(sb);                // (128,16)
  const auto tAsA = LoadA{}.get_slice(t).partition_D(sA);  // (1,REST): 8 elements
  const auto tBsB = LoadB{}.get_slice(t).partition_D(sB);

  typename MMA::template FragmentC<coord_layout(CTile::value)> acc;  // (1,(8,8)) f32
  clear(acc);

  const index_t k_tiles = ceil_div(p.k, index_t{kBK});
  for (index_t kt = 0; kt < k_tiles; ++kt) {
    load_tile<LoadA>(local_tile<TileA>(gA, tile_m, kt), tAsA, t);
    load_tile<LoadB>(local_tile<TileB>(gB, tile_n, kt), tBsB, t);
    __syncthreads();
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      const auto tCsA = FragLoadA{}.get_slice(t).partition_S(local_tile<kColumnA>(sA, 0, k));  // (1,(8,1))
      const auto tCsB = FragLoadB{}.get_slice(t).partition_S(local_tile<kColumnB>(sB, 0, k));  // (1,(8,1))
      auto a = make_fragment_like(tCsA);
      auto b = make_fragment_like(tCsB);
      if constexpr (std::is_same_v<T, float>) {
        // fp32 (f02, f03): float by float.  The atom moves a float through a
        // uint32_t pointer, which kept float fragments on the stack (88..168
        // bytes of spills); the 16-bit instantiations keep the atom.
        TESSEL_UNROLL
        for (int v = 0; v < decltype(a)::kValues; ++v) *a.addr(v) = *tCsA.addr(v);
        TESSEL_UNROLL
        for (int v = 0; v < decltype(b)::kValues; ++v) *b.addr(v) = *tCsB.addr(v);
      } else {
        copy(FragLoadA{}, tCsA, a);
        copy(FragLoadB{}, tCsB, b);
      }
      gemm(MMA{}, a, b, acc);  // 8x8 FFMA
    }
    __syncthreads();  // the next k-tile overwrites the tiles
  }

  const auto tCcD = MMA{}.get_slice(t).partition_C(
      coord_tile<CTile>(p.m - tile_m * kBM, p.n - tile_n * kBN));  // (1,(8,8)) coordinates
  epilogue_registers(p, tile_m * kBM, tile_n * kBN, tCcD, acc);
}

}  // namespace tessel::gemm_kernels::k02
