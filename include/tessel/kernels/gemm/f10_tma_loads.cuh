// f10 — TMA loads: the k-tiles arrive without a copy instruction per thread.
//
// Why (measured, docs/ladder-fp32.md, f10): f08's threads issue 6..18 cp.async per
// k-tile and the address arithmetic that goes with them; ncu's stall samples
// put about 40 % of f08's not-issued cycles on that block (the LSU queue
// full, lg_throttle, and registers that a queued LDGSTS still reads,
// long_scoreboard), and spreading the copies over the k-steps (f09) cost
// more instructions than it saved.  With TMA one thread asks for a whole
// k-tile of A and of B (two instructions per k-tile for the CTA, not 6..18
// per thread) and an mbarrier says when it has landed; out-of-range rows,
// columns and k are zero-filled by the copy engine, so the loop has no edge
// path either.
//
// The tile is 128 x 256 (the best of a screen of f08's configurations against
// cuBLAS, fp32_configs.cu), 8 warps of 64 x 64 (2 along M, 4 along N), k-tiles
// of 16 in 4 stages.  The shared layouts are the ones TMA writes, so the thread
// tile adapts to them: a thread holds 8 rows x 16 columns (lanes 8 along M, 4
// along N; columns 4*tn + 16*j + [0,4), j < 4, as one LDS.128 each per k):
//  * B:n (N-contiguous), stage (16 k, 256 columns), rows of 1 KB: per k 4
//    LDS.128, a warp's 4 distinct vectors 64 contiguous bytes;
//  * A:k (K-contiguous), stage (128 rows, 16 k) with rows of 64 bytes in
//    TMA's 64-byte swizzle (16-byte chunk c of row r at chunk c ^ ((r/2) % 4)):
//    a thread's rows are tm + 8*i (i < 8), and one LDS.128 reads 4 k of one
//    row, so per 4 k 8 LDS.128 (2 per k); the 8 rows tm..tm+7 that a warp
//    reads at once land in 8 distinct 16-byte slots of the 128 banks'
//    bytes: conflict-free;
//  * A:m (M-contiguous), stage (16 k, 128 rows), rows of 512 bytes: a
//    thread's rows are 4*tm + 32*b + [0,4) (b < 2), 2 LDS.128 per k.
// Per k: 6 LDS.128 for 128 FFMAs, as f08.  Fragments of the next k (for A:k
// the next 4 k) are read during the current FFMAs; the next k-tile's first
// ones right after its mbarrier wait, before the last k's FFMAs.  One
// __syncthreads per k-tile ends the reads of a stage; then thread 0 refills
// it with the k-tile kStages ahead.
// Epilogue from registers as f08: 128-bit loads of C and stores of D where
// the rows are 16-byte aligned, element by element elsewhere.
// Served: B:n with A:k or A:m, A and B rows that TMA can describe (leading
// dimensions multiples of 4 floats, 16-byte aligned bases); the launcher
// runs f08 for the other problems.
#pragma once

#include <cstdint>

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/gemm/common.cuh"
#include "tessel/kernels/gemm/f07_two_ctas_per_sm.cuh"

namespace tessel::gemm_kernels::f10 {

inline constexpr int kBM = 128, kBN = 256, kBK = 16, kStages = 4, kThreads = 256;
inline constexpr int kStageBytesA = kBM * kBK * 4;  // 8 KB
inline constexpr int kStageBytesB = kBN * kBK * 4;  // 16 KB
/// The 64-byte swizzle repeats every 512 bytes and TMA applies it to the
/// shared address itself: stages start at multiples of 1024 bytes (the
/// dynamic shared memory is aligned up to that, hence the slack).
inline constexpr int kAlign = 1024;
inline constexpr int kSmemBytes = kStages * (kStageBytesA + kStageBytesB) + kAlign;
static_assert(kStageBytesA % kAlign == 0 && kStageBytesB % kAlign == 0);

/// TMA boxes (innermost first): A:k {16 k, 128 rows} with the 64-byte
/// swizzle, A:m {128 rows, 16 k}, B:n {256 columns, 16 k}.
inline constexpr int kBoxAk[2] = {kBK, kBM}, kBoxAm[2] = {kBM, kBK}, kBoxBn[2] = {kBN, kBK};

/// This thread's place in the CTA tile: warp (wm, wn) of 64 x 64, lane (tm, tn).
struct ThreadTile {
  int wm, wn, tm, tn;
  __device__ explicit ThreadTile(int t) : wm((t >> 5) & 1), wn(t >> 6), tm(t & 7), tn((t & 31) >> 3) {}
  /// Row of D (in the CTA tile) of this thread's accumulator row i < 8.
  template <MajorA MA>
  __device__ int row(int i) const {
    if constexpr (MA == MajorA::k)
      return 64 * wm + tm + 8 * i;
    else
      return 64 * wm + 4 * tm + 32 * (i / 4) + i % 4;
  }
  /// Column of D (in the CTA tile) of this thread's accumulator column c < 16.
  __device__ int col(int c) const { return 64 * wn + 4 * tn + 16 * (c / 4) + c % 4; }
};

/// D = alpha * acc + beta * C for this thread's 8 x 16 values.
template <MajorA MA>
__device__ inline void epilogue(const Params<float>& p, index_t m0, index_t n0, const ThreadTile& th,
                                const float (&acc)[8][16]) {
  const f07::RegisterEpilogue out(p);
  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    const index_t row = m0 + th.row<MA>(i);
    if (row >= p.m) continue;
    TESSEL_UNROLL
    for (int j = 0; j < 4; ++j) out.four(p, row, n0 + th.col(4 * j), &acc[i][4 * j]);
  }
}

__device__ inline void lds128(std::uint32_t addr, float* f) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(f[0]), "=f"(f[1]), "=f"(f[2]), "=f"(f[3])
               : "r"(addr));
}

/// The fp32 GEMM of f10 (see the header comment): one CTA of 256 threads per
/// 128 x 256 tile of D (blockIdx.x along N, blockIdx.y along M), one per SM.
/// map_a: A:k {K, M} or A:m {M, K}; map_b: B:n {N, K} (f10.cu).
/// Serpentine: the FFMA order of f08's Config (every other row of the thread
/// tile backwards, so that a row's last FFMA and the next row's first share
/// B's value).  On for A:m: in its SASS the FFMAs with two source registers
/// in one bank fell from 17.9 to 14.9 % of the main loop's (A:k: 25.0 to
/// 27.9 %, so off there; counted with ffma_banks.py).
/// NextReadsAfterRow: where in a k-step the next step's fragments are read:
/// -1 before the FFMAs (measured best), r >= 0 after row r's FFMAs (A:m's
/// SASS: 14.9 -> 10.9 % same-bank FFMAs for r = 1..5, yet 1-2 % slower on
/// the H100).
/// The loop stays written out here, not shared with f11's
/// product_of_k_range: as that function f10's A:m instance measured 3.7 %
/// slower (0.989 -> 0.952 of cuBLAS at 4096^3; ptxas placed 19 of the 96
/// LDS.128 within 20 instructions of their first use, against 6 here).
template <MajorA MA, bool Serpentine = MA == MajorA::m, int NextReadsAfterRow = -1>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_tma_loads(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   Params<float> p) {
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ alignas(8) std::uint64_t full[kStages];
  const std::uint32_t base = (arch::smem_addr(smem_raw) + kAlign - 1) & ~std::uint32_t{kAlign - 1};
  const std::uint32_t sa = base, sb = base + kStages * kStageBytesA;
  const std::uint32_t bar0 = arch::smem_addr(&full[0]);

  const int t = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * kBM, n0 = static_cast<int>(blockIdx.x) * kBN;
  const int k_tiles = static_cast<int>((p.k + kBK - 1) / kBK);

  // k-tile kt into stage s (thread 0): the barrier expects both boxes' bytes
  // (out-of-range parts count too: TMA writes zeros there).
  const auto load = [&](int kt, int s) {
    const std::uint32_t bar = bar0 + 8 * s;
    arch::sm90::mbarrier_arrive_expect_tx(bar, kStageBytesA + kStageBytesB);
    if constexpr (MA == MajorA::k)
      arch::sm90::tma_load(sa + s * kStageBytesA, &map_a, bar, kt * kBK, m0);
    else
      arch::sm90::tma_load(sa + s * kStageBytesA, &map_a, bar, m0, kt * kBK);
    arch::sm90::tma_load(sb + s * kStageBytesB, &map_b, bar, n0, kt * kBK);
  };
  if (t == 0) {
    arch::sm90::prefetch_tensormap(&map_a);
    arch::sm90::prefetch_tensormap(&map_b);
    for (int s = 0; s < kStages; ++s) arch::sm90::mbarrier_init(bar0 + 8 * s, 1);
    arch::sm90::fence_mbarrier_init();
  }
  __syncthreads();
  if (t == 0)
    for (int s = 0; s < kStages && s < k_tiles; ++s) load(s, s);

  const ThreadTile th(t);
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

  float acc[8][16];
  TESSEL_UNROLL
  for (int i = 0; i < 8; ++i) {
    TESSEL_UNROLL
    for (int c = 0; c < 16; ++c) acc[i][c] = 0.0f;
  }
  // A: [buffer][...]: for A:k a[i][q] over 4 k (buffer = group parity); for
  // A:m the 8 values at one k as a[0..1][0..3] (buffer = k parity).
  float fa[2][8][4], fb[2][16];
  arch::sm90::mbarrier_wait_parity(bar0, 0);
  read_a(sa, 0, fa[0]);
  read_b(sb, 0, fb[0]);

  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kStages;
    const std::uint32_t a_now = sa + s * kStageBytesA, b_now = sb + s * kStageBytesB;
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      constexpr bool kGroups = MA == MajorA::k;
      const int ab = kGroups ? (k / 4) % 2 : k % 2;  // buffer of A in use
      // The next fragments: this stage's k+1, or the next k-tile's k = 0
      // once its barrier has completed; before this step's FFMAs, or after
      // row NextReadsAfterRow's (a knob of fp32_configs.cu's screen).
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
          const int s1 = (kt + 1) % kStages;
          if (kt + 1 < k_tiles)
            arch::sm90::mbarrier_wait_parity(bar0 + 8 * s1, static_cast<std::uint32_t>(((kt + 1) / kStages) & 1));
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
    // Every warp is done with stage s: refill it with k-tile kt + kStages.
    __syncthreads();
    if (t == 0 && kt + kStages < k_tiles) load(kt + kStages, s);
  }

  epilogue<MA>(p, m0, n0, th, acc);
}

}  // namespace tessel::gemm_kernels::f10
