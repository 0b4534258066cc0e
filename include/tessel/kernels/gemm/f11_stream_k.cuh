// f11 — stream-K: the last wave's tiles shared along K by every SM.
//
// Why (measured, docs/ladder.md): f10 runs one 128 x 256 tile per CTA and
// one CTA per SM.  4096^3 is 512 tiles, 3.88 waves of 132 SMs; 8192^3 is
// 2048 tiles, 15.5 waves: in the last wave 16 (resp. 64) SMs have nothing
// to do.  On shapes of whole waves (M = 4224 and 8448 rows, N and K as
// before) f10's TFLOP/s rose 2.9 and 3.6 % (bench/results/s25/s25b).
//
// The split (stream-K with data-parallel waves before it): the tiles of all
// full waves but the last run as in f10, one CTA each over all of K; the
// rest (one full wave plus the remainder: between 1 and 2 tiles per SM) is
// one range of k-tiles, (tiles) x (k-tiles per tile), cut into `sk_ctas`
// equal slices, one CTA each.  A slice is a run of pieces of consecutive
// tiles: a piece that starts at k-tile 0 belongs to the tile's owner; one
// that starts later is a contribution.  A CTA's only possible contribution
// is its first piece (its slice starts inside a tile), which it computes
// first and stores to its own partial tile in global memory, then counts in
// at the tile's counter.  The owner computes its piece last (the end of its
// slice), waits for the count of its contributors (usually long there), and
// adds their partials in slice order: the sums do not depend on timing.
// Only the owner runs the epilogue (alpha, beta, C).
//
// Waiting is safe: the owner only waits for CTAs of higher index, which
// never wait for it, and every CTA of the stream-K part can be resident at
// once (sk_ctas <= the number of SMs, one CTA per SM), whatever the order
// in which the hardware starts the CTAs.
//
// The main loop is f10's (product_of_k_range), run once per piece with the
// stages' barrier phases carried from piece to piece.
#pragma once

#include <cstdint>

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/gemm/f10_tma_loads.cuh"

namespace tessel::gemm_kernels::f11 {

namespace f10 = gemm_kernels::f10;
using f10::kBK;
using f10::kBM;
using f10::kBN;
using f10::kSmemBytes;
using f10::kStages;
using f10::kThreads;

/// One partial tile: 128 x 256 floats, in the threads' register order (a
/// thread's 32 float4 at stride kThreads, so that a warp's stores are 512
/// contiguous bytes).
inline constexpr int kPartialFloats = kBM * kBN;

/// The split of a launch (host: f11.cu's plan).  Grid: dp_tiles + sk_ctas
/// CTAs in x.  Tile t (t < tiles) is row t / tiles_n, column t % tiles_n
/// of tiles; tiles dp_tiles.. are shared.
struct StreamK {
  int tiles_n = 1;            // tiles along N
  int dp_tiles = 0;           // tiles run whole, one CTA each: blockIdx.x < dp_tiles
  int k_tiles = 1;            // k-tiles per tile
  int sk_ctas = 0;            // CTAs sharing the shared tiles' k-tiles
  long long sk_iters = 0;     // (shared tiles) x k_tiles
  float* partials = nullptr;  // sk_ctas partial tiles (CTA c's at c * kPartialFloats)
  int* counters = nullptr;    // one per shared tile: zero before the launch, zero after

  /// First k-tile (in the shared range) of stream-K CTA c; c = sk_ctas gives the end.
  __host__ __device__ long long begin(int c) const { return sk_iters * c / sk_ctas; }
};

/// Spins (thread 0) until *counter reaches `expected` (acquire: the
/// contributors' partials, written before their release, are then visible).
__device__ inline void wait_count(const int* counter, int expected) {
  int seen;
  while (true) {
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(seen) : "l"(counter) : "memory");
    if (seen >= expected) break;
    __nanosleep(256);
  }
}

/// The fp32 GEMM of f11 (see the header comment): f10's tile and main loop,
/// the grid split as `sk` says.  map_a, map_b as f10's.
template <MajorA MA, bool Serpentine = MA == MajorA::m>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_stream_k(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, Params<float> p,
                  StreamK sk) {
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ alignas(8) std::uint64_t full[kStages];
  const int t = static_cast<int>(threadIdx.x);
  const f10::Stages st = f10::make_stages(smem_raw, full, t);
  if (t == 0) {
    arch::sm90::prefetch_tensormap(&map_a);
    arch::sm90::prefetch_tensormap(&map_b);
  }
  __syncthreads();
  const f10::ThreadTile th(t);
  float acc[8][16];
  const auto corner = [&](int tile, int& m0, int& n0) {
    m0 = (tile / sk.tiles_n) * kBM;
    n0 = (tile % sk.tiles_n) * kBN;
  };
  // This CTA's slice of the k-tiles of all tiles, (tile) x k_tiles + k-tile:
  // one whole tile for b < dp_tiles, else stream-K CTA c's slice of the
  // shared tiles.  One call of the main loop for both, so that ptxas
  // allocates registers for one copy of it, as in f10.
  const int b = static_cast<int>(blockIdx.x);
  const int c = b - sk.dp_tiles;  // stream-K CTA c (c < 0: a whole tile)
  const long long dp_iters = static_cast<long long>(sk.dp_tiles) * sk.k_tiles;
  const long long first = c < 0 ? static_cast<long long>(b) * sk.k_tiles : dp_iters + sk.begin(c);
  const long long last = c < 0 ? first + sk.k_tiles : dp_iters + sk.begin(c + 1);
  int g = 0;  // k-tiles through the stages so far
  for (long long it = first; it < last;) {
    const int tile = static_cast<int>(it / sk.k_tiles);
    const int u = tile - sk.dp_tiles;  // shared tile u (u >= 0)
    const int kb = static_cast<int>(it % sk.k_tiles);
    const int ke = static_cast<int>(it + sk.k_tiles - kb <= last ? sk.k_tiles : kb + (last - it));
    int m0, n0;
    corner(tile, m0, n0);
    f10::product_of_k_range<MA, Serpentine>(map_a, map_b, st, th, t, m0, n0, kb, ke, g, acc);
    g += ke - kb;
    it += ke - kb;
    if (kb != 0) {  // a contribution (this slice's first piece): store it, count it in
      auto* mine = reinterpret_cast<float4*>(sk.partials + static_cast<long long>(c) * kPartialFloats);
      TESSEL_UNROLL
      for (int i = 0; i < 8; ++i) {
        TESSEL_UNROLL
        for (int j = 0; j < 4; ++j)
          __stcg(mine + (4 * i + j) * kThreads + t,
                 make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));
      }
      __threadfence();  // this thread's stores device-wide before the CTA's count
      __syncthreads();
      if (t == 0) atomicAdd(sk.counters + u, 1);
      continue;
    }
    if (ke < sk.k_tiles) {  // the owner of a shared tile: add its contributors' partials
      const long long tile_end = static_cast<long long>(u + 1) * sk.k_tiles;
      int n = 0;
      while (c + n + 1 < sk.sk_ctas && sk.begin(c + n + 1) < tile_end) ++n;
      if (t == 0) wait_count(sk.counters + u, n);
      __syncthreads();
      __threadfence();  // the count seen: now the contributors' partials
      for (int q = 1; q <= n; ++q) {
        const auto* other =
            reinterpret_cast<const float4*>(sk.partials + static_cast<long long>(c + q) * kPartialFloats);
        TESSEL_UNROLL
        for (int i = 0; i < 8; ++i) {
          TESSEL_UNROLL
          for (int j = 0; j < 4; ++j) {
            const float4 x = __ldcg(other + (4 * i + j) * kThreads + t);
            acc[i][4 * j] += x.x;
            acc[i][4 * j + 1] += x.y;
            acc[i][4 * j + 2] += x.z;
            acc[i][4 * j + 3] += x.w;
          }
        }
      }
      if (t == 0) sk.counters[u] = 0;  // every contributor has counted in: ready for the next launch
    }
    f10::epilogue<MA>(p, m0, n0, th, acc);
  }
}

}  // namespace tessel::gemm_kernels::f11
