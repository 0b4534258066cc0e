// f11 — stream-K: the last wave's tiles shared along K by every SM.
//
// Why (measured, docs/ladder-fp32.md, f11): f10 runs one 128 x 256 tile per CTA and
// one CTA per SM.  4096^3 is 512 tiles, 3.88 waves of 132 SMs; 8192^3 is
// 2048 tiles, 15.5 waves: in the last wave 16 (resp. 64) SMs have nothing
// to do.  On shapes of whole waves (M = 4224 and 8448 rows, N and K as
// before) f10's TFLOP/s rose 2.9 and 3.6 % (H100).
//
// The split (stream-K beside data-parallel waves): the tiles of all full
// waves run as in f10, one CTA each over all of K; the remainder (less than
// a wave) is one range of k-tiles, (tiles) x (k-tiles per tile), cut into
// `sk_ctas` equal slices, one CTA each (stream_k_split, gemm_plan.hpp, says
// why only the remainder: shared slices read their operands from DRAM).
// The stream-K CTAs come first in the grid, the whole tiles after them.
// A slice is a run of pieces of consecutive
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
// stages' barrier phases carried from piece to piece; the epilogue is f10's
// (f10::epilogue, on D's and C's tiles with int offsets: the launcher runs
// f08's kernel where they do not fit).
#pragma once

#include <cstdint>

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/gemm/f10_tma_loads.cuh"

namespace tessel::gemm_kernels::f11 {

namespace f10 = gemm_kernels::f10;
using f10::kAlign;
using f10::kBK;
using f10::kBM;
using f10::kBN;
using f10::kSmemBytes;
using f10::kStageBytesA;
using f10::kStageBytesB;
using f10::kStages;
using f10::kThreads;
using f10::lds128;

/// This thread's place in the CTA tile: warp (wm, wn) of 64 x 64, lane (tm,
/// tn), f10's thread tile (f10::Tiling<MA>::kC, checked below).  f11's
/// fragment reads stay on these 32-bit shared offsets rather than on
/// f10::Tiling's partitions (the same addresses): in f11's two copies of the
/// main loop ptxas then allocated the piece loop worse (A:m same-bank FFMAs
/// 9.2 -> 18.3 % and 13 LDS.128 within 20 instructions of their use, against
/// 0; 255 registers with the partitions' unsigned thread offsets).
struct ThreadTile {
  int wm, wn, tm, tn;
  TESSEL_HDI constexpr explicit ThreadTile(int t) : wm((t >> 5) & 1), wn(t >> 6), tm(t & 7), tn((t & 31) >> 3) {}
  /// Row of D (in the CTA tile) of this thread's accumulator row i < 8.
  template <MajorA MA>
  TESSEL_HDI constexpr int row(int i) const {
    if constexpr (MA == MajorA::k)
      return 64 * wm + tm + 8 * i;
    else
      return 64 * wm + 4 * tm + 32 * (i / 4) + i % 4;
  }
  /// Column of D (in the CTA tile) of this thread's accumulator column c < 16.
  TESSEL_HDI constexpr int col(int c) const { return 64 * wn + 4 * tn + 16 * (c / 4) + c % 4; }
};
/// ThreadTile is f10's C layout: value c + 16 i of thread t at (row(i), col(c)),
/// thread and value parts apart (a layout is linear over its modes).
template <MajorA MA>
constexpr bool thread_tile_is_f10s() {
  constexpr Layout kC = f10::Tiling<MA>::kC;
  const Layout tc = mode(kC, 0), vc = mode(kC, 1);
  for (int t = 0; t < kThreads; ++t) {
    const ThreadTile th(t);
    if (tc(t) != th.row<MA>(0) + kBM * th.col(0)) return false;
  }
  const ThreadTile t0(0);
  for (int i = 0; i < 8; ++i)
    for (int c = 0; c < 16; ++c)
      if (vc(c + 16 * i) != t0.row<MA>(i) + kBM * t0.col(c)) return false;
  return true;
}
static_assert(thread_tile_is_f10s<MajorA::k>() && thread_tile_is_f10s<MajorA::m>());

/// The shared stages and their full barriers, as TMA fills them.
struct Stages {
  std::uint32_t a, b, bar0;  // A's and B's stages (shared addresses), barrier of stage 0
};

/// The stages in dynamic shared memory (aligned up to kAlign) and `full`'s
/// barriers, initialised by thread 0 (the caller syncs the CTA after).
__device__ inline Stages make_stages(std::uint8_t* smem_raw, std::uint64_t (&full)[kStages], int t) {
  const std::uint32_t base = (arch::smem_addr(smem_raw) + kAlign - 1) & ~std::uint32_t{kAlign - 1};
  const Stages st{base, base + kStages * kStageBytesA, arch::smem_addr(&full[0])};
  if (t == 0) {
    for (int s = 0; s < kStages; ++s) arch::sm90::mbarrier_init(st.bar0 + 8 * s, 1);
    arch::sm90::fence_mbarrier_init();
  }
  return st;
}

/// f10's main loop (f10_tma_loads.cuh, the kernel's body) over a range of
/// k-tiles, with the stages' phases carried from range to range.
/// acc = the product of k-tiles [kt0, kt1) (kt1 > kt0) of tile (m0, n0): A's
/// rows m0.. and B's columns n0.. through the stages.  `g`: how many k-tiles
/// this CTA has put through the stages before (k-tile kt0 + j uses stage
/// (g + j) % kStages, in that barrier's phase (g + j) / kStages), so that a
/// CTA can run several ranges one after another (f11).  Every thread of the
/// CTA calls it; it ends with the CTA synced and no load in flight.
/// Serpentine: the FFMA order of f08's Config (every other row of the thread
/// tile backwards, so that a row's last FFMA and the next row's first share
/// B's value).  On for A:m: in its SASS the FFMAs with two source registers
/// in one bank fell from 17.9 to 14.9 % of the main loop's (A:k: 25.0 to
/// 27.9 %, so off there; counted with ffma_banks.py).
template <MajorA MA, bool Serpentine, int NextReadsAfterRow = -1>
__device__ __forceinline__ void product_of_k_range(const CUtensorMap& map_a, const CUtensorMap& map_b, const Stages& st,
                                                   const ThreadTile& th, int t, int m0, int n0, int kt0, int kt1, int g,
                                                   float (&acc)[8][16]) {
  const std::uint32_t sa = st.a, sb = st.b, bar0 = st.bar0;
  const int n_tiles = kt1 - kt0;
  // k-tile kt0 + j into stage (g + j) % kStages (thread 0): the barrier
  // expects both boxes' bytes (out-of-range parts count too: TMA writes
  // zeros there).
  const auto load = [&](int j) {
    const int s = (g + j) % kStages, kt = kt0 + j;
    const std::uint32_t bar = bar0 + 8 * s;
    arch::sm90::mbarrier_arrive_expect_tx(bar, kStageBytesA + kStageBytesB);
    if constexpr (MA == MajorA::k)
      arch::sm90::tma_load(sa + s * kStageBytesA, &map_a, bar, kt * kBK, m0);
    else
      arch::sm90::tma_load(sa + s * kStageBytesA, &map_a, bar, m0, kt * kBK);
    arch::sm90::tma_load(sb + s * kStageBytesB, &map_b, bar, n0, kt * kBK);
  };
  const auto phase = [&](int j) { return static_cast<std::uint32_t>(((g + j) / kStages) & 1); };
  if (t == 0)
    for (int j = 0; j < kStages && j < n_tiles; ++j) load(j);

  // Byte offsets of this thread's fragments in a stage.  A:k: row r's 16-byte
  // chunk q sits at r*64 + 16*(q ^ ((r/2) % 4)); r = 64 wm + tm + 8 i, so
  // the swizzle term is (tm/2) % 4 for every i.
  const std::uint32_t off_b = static_cast<std::uint32_t>(th.col(0)) * 4;
  std::uint32_t off_a;
  int swz = 0;
  if constexpr (MA == MajorA::k) {
    off_a = static_cast<std::uint32_t>(64 * th.wm + th.tm) * 64;
    swz = (th.tm >> 1) & 3;
  } else {
    off_a = static_cast<std::uint32_t>(th.row<MA>(0)) * 4;
  }
  // A's 8 values at one k (A:m), or at 4 consecutive k (A:k: a[i][q], one LDS.128 per row).
  const auto read_a = [&](std::uint32_t stage, int k, float(&a)[8][4]) {
    if constexpr (MA == MajorA::k) {
      const std::uint32_t chunk = static_cast<std::uint32_t>(((k / 4) ^ swz) * 16);
      TESSEL_UNROLL
      for (int i = 0; i < 8; ++i) lds128(stage + off_a + 512 * i + chunk, a[i]);
    } else {
      const std::uint32_t row = stage + static_cast<std::uint32_t>(k) * (kBM * 4) + off_a;
      lds128(row, a[0]);
      lds128(row + 32 * 4, a[1]);
    }
  };
  const auto read_b = [&](std::uint32_t stage, int k, float(&b)[16]) {
    const std::uint32_t row = stage + static_cast<std::uint32_t>(k) * (kBN * 4) + off_b;
    TESSEL_UNROLL
    for (int j = 0; j < 4; ++j) lds128(row + 64 * j, &b[4 * j]);
  };

  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    TESSEL_UNROLL
    for (int c = 0; c < 16; ++c) acc[i][c] = 0.0f;
  }
  // A: [buffer][...]: for A:k a[i][q] over 4 k (buffer = group parity); for
  // A:m the 8 values at one k as a[0..1][0..3] (buffer = k parity).
  float fa[2][8][4], fb[2][16];
  const int s0 = g % kStages;
  arch::sm90::mbarrier_wait_parity(bar0 + 8 * s0, phase(0));
  read_a(sa + s0 * kStageBytesA, 0, fa[0]);
  read_b(sb + s0 * kStageBytesB, 0, fb[0]);

  for (int j = 0; j < n_tiles; ++j) {
    const int s = (g + j) % kStages;
    const std::uint32_t a_now = sa + s * kStageBytesA, b_now = sb + s * kStageBytesB;
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      constexpr bool kGroups = MA == MajorA::k;
      const int ab = kGroups ? (k / 4) % 2 : k % 2;  // buffer of A in use
      // The next fragments: this stage's k+1, or the next k-tile's k = 0
      // once its barrier has completed; before this step's FFMAs, or after
      // row NextReadsAfterRow's.
      const auto read_next = [&] {
        if (k < kBK - 1) {
          if (!kGroups || k % 4 == 3) read_a(a_now, k + 1, fa[ab ^ 1]);
          read_b(b_now, k + 1, fb[(k + 1) % 2]);
        } else {
          // Read unconditionally: after the last k-tile the stage holds stale
          // values that nothing uses, and without a branch around the reads the
          // fragments are one value in one register each, not a merge of two
          // paths (ptxas then moved fewer accumulators between registers:
          // ffma_banks.py, docs/ladder-fp32.md, f10).  Only the wait is skipped.
          const int s1 = (g + j + 1) % kStages;
          if (j + 1 < n_tiles) arch::sm90::mbarrier_wait_parity(bar0 + 8 * s1, phase(j + 1));
          read_a(sa + s1 * kStageBytesA, 0, fa[ab ^ 1]);
          read_b(sb + s1 * kStageBytesB, 0, fb[(k + 1) % 2]);
        }
      };
      if constexpr (NextReadsAfterRow < 0) read_next();
      const float* const b = fb[k % 2];
      TESSEL_UNROLL
      for (int i = 0; i < 8; ++i) {
        const float a = kGroups ? fa[ab][i][k % 4] : fa[ab][i / 4][i % 4];
        TESSEL_UNROLL
        for (int cc = 0; cc < 16; ++cc) {
          const int c = Serpentine && i % 2 == 1 ? 15 - cc : cc;
          acc[i][c] += a * b[c];
        }
        if constexpr (NextReadsAfterRow >= 0)
          if (i == NextReadsAfterRow) read_next();
      }
    }
    // Every warp is done with stage s: refill it with k-tile j + kStages.
    __syncthreads();
    if (t == 0 && j + kStages < n_tiles) load(j + kStages);
  }
}

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

/// The fp32 GEMM of f11 (see the header comment): f10's tile and main loop, the
/// grid split as `sk` says.  map_a, map_b as f10's.  Serpentine,
/// NextReadsAfterRow: f10's knobs (the FFMA order; where a k-step reads the
/// next one's fragments).  In a loop over pieces ptxas allocates f10's loop
/// differently (A:m 254 registers, not 204), so they were screened again for
/// f11 (fp32_configs.cu SCREEN=5, H100): the serpentine order gained 3 % on A:m
/// and 1 % on A:k, reading after row 7 another 0.4 % on A:m (rows 1 and 3 the
/// same), nothing on A:k.  3072^3: A:m 1.024, A:k 1.012 of cuBLAS.
/// f11's kernel body (gemm_stream_k's; a function so that a screen can wrap
/// it in kernels of other register limits, as fp32_configs.cu does).
/// Form 1 (a screen's knob): a whole tile (b < dp_tiles) takes its own
/// straight path, f10's shape (main loop, epilogue), before the loop over
/// pieces; form 0 runs it through that loop as a slice of one piece; form 2
/// is form 1 with the stream-K CTAs first in the grid (b < sk_ctas), the
/// whole tiles after them.
template <MajorA MA, bool Serpentine, int NextReadsAfterRow, int Form = 0>
__device__ __forceinline__ void stream_k_body(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                              const Params<float>& p, const f10::Out& out, const StreamK& sk) {
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ alignas(8) std::uint64_t full[kStages];
  const int t = static_cast<int>(threadIdx.x);
  const Stages st = make_stages(smem_raw, full, t);
  if (t == 0) {
    arch::sm90::prefetch_tensormap(&map_a);
    arch::sm90::prefetch_tensormap(&map_b);
  }
  __syncthreads();
  const ThreadTile th(t);
  float acc[8][16];
  // Tile `tile`'s tile coordinates (bm, bn) and first row and column (m0, n0).
  const auto corner = [&](int tile, int& bm, int& bn, int& m0, int& n0) {
    bm = tile / sk.tiles_n, bn = tile % sk.tiles_n;
    m0 = bm * kBM, n0 = bn * kBN;
  };
  // This CTA's slice: one whole tile for b < dp_tiles, else stream-K CTA c's
  // slice of the shared tiles, walked as (tile, first k-tile, k-tiles left)
  // in 32-bit values.  One call of the main loop for both, so that ptxas
  // allocates registers for one copy of it.
  const int b = static_cast<int>(blockIdx.x);
  // Stream-K CTA c (c < 0: whole tile `whole`).  Forms 0 and 1 put the whole
  // tiles first in the grid, form 2 the stream-K CTAs.
  const int c = Form == 2 ? (b < sk.sk_ctas ? b : -1) : b - sk.dp_tiles;
  const int whole = Form == 2 ? b - sk.sk_ctas : b;
  if constexpr (Form >= 1) {
    if (c < 0) {
      int bm, bn, m0, n0;
      corner(whole, bm, bn, m0, n0);
      product_of_k_range<MA, Serpentine, NextReadsAfterRow>(map_a, map_b, st, th, t, m0, n0, 0, sk.k_tiles, 0, acc);
      f10::epilogue<MA>(p, out, bm, bn, t, acc);
      return;
    }
  }
  int tile = b, kb = 0, left = sk.k_tiles;
  if (c >= 0) {
    const long long first = sk.begin(c);
    tile = sk.dp_tiles + static_cast<int>(first / sk.k_tiles);
    kb = static_cast<int>(first % sk.k_tiles);
    left = static_cast<int>(sk.begin(c + 1) - first);
  }
  int g = 0;  // k-tiles through the stages so far
  for (; left > 0; ++tile, kb = 0) {
    const int u = tile - sk.dp_tiles;  // shared tile u (u >= 0)
    const int ke = left < sk.k_tiles - kb ? kb + left : sk.k_tiles;
    int bm, bn, m0, n0;
    corner(tile, bm, bn, m0, n0);
    product_of_k_range<MA, Serpentine, NextReadsAfterRow>(map_a, map_b, st, th, t, m0, n0, kb, ke, g, acc);
    g += ke - kb;
    left -= ke - kb;
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
    f10::epilogue<MA>(p, out, bm, bn, t, acc);
  }
}

/// Form 1, a straight path for whole tiles, since the SCREEN=9 screen
/// (H100): A:m 0.963 -> 0.994 of cuBLAS at 4096^3 and
/// 0.941 -> 1.012 at 8192^3; A:k 0.892 -> 0.895 and 0.899 -> 0.931.
/// Form 2 (the stream-K CTAs first, as the stream-K paper orders them) since
/// the SCREEN=10 screen: with only the remainder
/// shared, A:m 1.021 of cuBLAS at 4096^3 (form 1: 1.018), 1.016 at 8192^3
/// (1.017).
template <MajorA MA, bool Serpentine = true, int NextReadsAfterRow = MA == MajorA::m ? 7 : -1, int Form = 2>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_stream_k(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, Params<float> p,
                  f10::Out out, StreamK sk) {
  stream_k_body<MA, Serpentine, NextReadsAfterRow, Form>(map_a, map_b, p, out, sk);
}

}  // namespace tessel::gemm_kernels::f11
