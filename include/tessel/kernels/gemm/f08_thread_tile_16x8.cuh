// f08 — a 16x8 thread tile: 128 accumulators per thread, as cuBLAS's own
// fp32 kernel on the H100 keeps.
//
// What held f07 (8x8 per thread, two CTAs of 128 x 128 per SM) at 0.88 of
// cuBLAS's fp32 GEMM: ncu at 4096^3 shows cuBLASLt running
// sm80_xmma_gemm_f32f32_..._tilesize256x128x8_stage3_warpsize4x2x1_ffma with
// 256 threads and 254 registers (one CTA, 8 warps per SM): 128 accumulators
// per thread, 88 % of its instructions FFMA, the issue slots 88 % busy.  A
// thread that owns 8x8 values loads 8 + 8 floats per k for 64 FFMAs; one
// that owns 16x8 loads 16 + 8 for 128, so the loads, address arithmetic,
// barriers and loop control per FFMA halve, and the CTA tile of 256 x 128
// reads 3/4 of the operand bytes per FFMA of a 128 x 128 tile.
//  * the CTA: 256 threads on a 256 x 128 tile of D (blockIdx.x along N,
//    blockIdx.y along M), one per SM (__launch_bounds__(256, 1): up to 255
//    registers);
//  * a warp: 64 x 64 of D, lanes 4 (M) x 8 (N); the 8 warps 4 along M and 2
//    along N.  Thread (tm, tn) of warp (wm, wn) owns rows 64*wm + 4*tm +
//    [0,4) + {0, 16, 32, 48} and columns 64*wn + 4*tn + [0,4) + {0, 32}:
//    blocks of 4x4 whose 4 rows (4 columns) at one k are one LDS.128, so per
//    k 4 + 2 LDS.128 for 128 FFMAs (f07: 2 + 2 for 64).  A warp's LDS.128 of
//    A reads 4 distinct vectors (64 contiguous bytes) and of B 8 (128
//    bytes): one wavefront each, as in f07;
//  * f07's stages, loads and k-tiles of 16 (f07's OperandLoad with 256 rows
//    for A): M/N-major stages with k-rows of 260 (A) and 132 (B) floats, 4
//    cp.async stages (100 KB), the copies of k-tile kt+3 issued before the
//    FFMAs of kt, register double buffering of the fragments, one barrier
//    per k-tile;
//  * the epilogue from registers as f07's: 128-bit loads of C and stores
//    of D where rows are 16-byte aligned, element by element elsewhere.
// Registers: 128 accumulators + 2 x 24 fragment values + the two operands'
// pointers and offsets, about 200: one CTA (8 warps, 2 per scheduler) per SM,
// as cuBLAS's.  Each warp then has 128 independent FFMAs per k to issue
// between the LDS.128 of k+1 and their use, which is what hides the shared
// latency with only 2 warps per scheduler.
// The kernel is a template over Config (tile, k-tile, stages, copy schedule,
// FFMA order); f08 was measured first as 256 x 128 with k-tiles of 16
// (Tile256x128: 0.89-0.905 of cuBLAS) and runs as the screen's best, 128 x
// 256 with k-tiles of 8 (Tile: 0.909-0.915), docs/ladder-fp32.md, f08.
#pragma once

#include <cstdint>

#include "tessel/atom/bank_conflicts.hpp"
#include "tessel/kernels/gemm/f07_two_ctas_per_sm.cuh"

namespace tessel::gemm_kernels::f08 {

/// A configuration of the kernel: the CTA tile (BM x BN, 8 warps of 64 x 64
/// tiles: BM/64 along M, BN/64 along N), BK k per k-tile, Stages cp.async
/// stages, and when the copies of the k-tile Stages-1 ahead are issued:
/// SpreadSteps = 0 all before the k-tile's FFMAs (f08), else in SpreadSteps
/// parts, one per k-step (f09); Serpentine: the FFMAs of a k-step row by
/// row with every other row backwards (the last column's b is then the
/// next row's first: ptxas allocates the registers differently, and the
/// FFMAs' register bank conflicts change; fp32_configs.cu screens it).
/// f08 is Config<256, 128, 16, 4>.
template <int BM, int BN, int BK, int Stages, int SpreadSteps = 0, bool Serpentine = false>
struct Config {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kStages = Stages, kSpreadSteps = SpreadSteps;
  static constexpr bool kSerpentine = Serpentine;
  static constexpr int kWarpsM = BM / 64;
  static_assert(BM % 64 == 0 && BN % 64 == 0 && (BM / 64) * (BN / 64) == 8, "8 warps of 64 x 64");
  static_assert(SpreadSteps >= 0 && SpreadSteps < BK, "the spread copies are committed before the last k-step");
  /// A stage of A is (BM,BK) with k-rows of BM + 4 floats, of B (BN,BK) with BN + 4.
  static constexpr int kPitchA = BM + 4, kPitchB = BN + 4;
  static constexpr int kStageFloatsA = BK * kPitchA, kStageFloatsB = BK * kPitchB;
  static_assert(cosize(make_layout(make_shape(BM, BK), make_stride(1, kPitchA))) <= kStageFloatsA);
  static_assert(kStageFloatsA % 4 == 0 && kStageFloatsB % 4 == 0);  // stages stay 16-byte aligned
  /// Dynamic shared memory: A's stages, then B's.
  static constexpr int kSmemBytes = Stages * (kStageFloatsA + kStageFloatsB) * 4;
  template <OperandMajor Major>
  using LoadA = f07::OperandLoad<Major, BM, BK>;
  template <OperandMajor Major>
  using LoadB = f07::OperandLoad<Major, BN, BK>;
};

/// f08 as first written and measured: 256 x 128, k-tiles of 16, 4 stages
/// (100352 bytes), copies at once (f09 keeps it).
using Tile256x128 = Config<256, 128, 16, 4>;
/// f08 as it runs since the screen of its configurations (fp32_configs.cu):
/// 128 x 256, k-tiles of 8, 4 stages (50176 bytes): 0.909 / 0.915 of
/// cuBLAS at 4096^3 / 8192^3 against 0.879 / 0.898 for Tile256x128.  A:k,
/// the operand copied by transposing 4-byte cp.async, is the 128-row side.
using Tile = Config<128, 256, 8, 4>;
inline constexpr int kThreads = 256;

/// The thread tile: warps of 64 x 64 (f08: 4 along M, 2 along N), lanes 4
/// (M) x 8 (N), 4 x 2 blocks of 4x4 per thread, 16 rows and 32 columns apart.
inline constexpr int kWarpM = 64, kWarpN = 64, kLanesN = 8, kBlocksM = 4, kBlocksN = 2;
inline constexpr int kBlockStepM = 16, kBlockStepN = 32;
inline constexpr int kRowsPerThread = 4 * kBlocksM, kColsPerThread = 4 * kBlocksN;  // 16, 8
template <class Cfg>
__device__ inline int thread_row(int t) {
  return kWarpM * ((t >> 5) % Cfg::kWarpsM) + 4 * ((t & 31) / kLanesN);
}
template <class Cfg>
__device__ inline int thread_col(int t) {
  return kWarpN * ((t >> 5) / Cfg::kWarpsM) + 4 * ((t & 31) % kLanesN);
}

// The fragment reads as TV layouts of the stage's element indices (a warp's
// LDS.128 at one k: lane -> its 4 rows of A, its 4 columns of B); the
// blocks 16 and 32 floats apart are further loads of the same pattern.
inline constexpr Layout kFragReadA =
    make_layout(make_shape(make_shape(kLanesN, 4), 4), make_stride(make_stride(0, 4), 1));  // ((tn,tm),v) -> row
inline constexpr Layout kFragReadB =
    make_layout(make_shape(make_shape(kLanesN, 4), 4), make_stride(make_stride(4, 0), 1));  // ((tn,tm),v) -> col
static_assert(bank_conflict_ways(kFragReadA, 4) == 1);
static_assert(bank_conflict_ways(kFragReadB, 4) == 1);
// The transposing 4-byte stores of a K-contiguous operand (pitches 260 and
// 132 are 4 mod 32): lane l at k l%8, row l/8 + 32 v.
inline constexpr Layout kStoreK260 =
    make_layout(make_shape(make_shape(8, 4), 8), make_stride(make_stride(260, 1), 32));  // ((k,r),v)
inline constexpr Layout kStoreK132 =
    make_layout(make_shape(make_shape(8, 4), 4), make_stride(make_stride(132, 1), 32));  // ((k,r),v)
static_assert(bank_conflict_ways(kStoreK260, 4) == 1 && bank_conflict_ways(kStoreK132, 4) == 1);

/// The N values at step k of a stage: N/4 LDS.128, `Apart` floats apart.
template <int N, int Apart>
__device__ inline void load_fragment(const float* s, float (&f)[N]) {
  TESSEL_UNROLL
  for (int b = 0; b < N / 4; ++b) {
    const float4 x = *reinterpret_cast<const float4*>(s + b * Apart);
    f[4 * b] = x.x, f[4 * b + 1] = x.y, f[4 * b + 2] = x.z, f[4 * b + 3] = x.w;
  }
}

/// D = alpha * acc + beta * C for this thread's 16x8 values (rows and
/// columns of D as thread_row/thread_col say, offset by the CTA's m0, n0).
template <class Cfg>
__device__ inline void epilogue(const Params<float>& p, index_t m0, index_t n0, int t,
                                const float (&acc)[kRowsPerThread][kColsPerThread]) {
  const f07::RegisterEpilogue out(p);
  const index_t row0 = m0 + thread_row<Cfg>(t), col0 = n0 + thread_col<Cfg>(t);
  TESSEL_UNROLL
  for (int i = 0; i < kRowsPerThread; ++i) {
    const index_t row = row0 + (i / 4) * kBlockStepM + i % 4;
    if (row >= p.m) continue;
    TESSEL_UNROLL
    for (int bj = 0; bj < kBlocksN; ++bj) out.four(p, row, col0 + bj * kBlockStepN, &acc[i][4 * bj]);
  }
}

/// The fp32 GEMM of f08 (see the header comment): one CTA of 256 threads per
/// BM x BN tile of D (blockIdx.x along N, blockIdx.y along M), one per SM.
template <MajorA MA, MajorB MB, class Cfg = Tile>
__global__ void __launch_bounds__(kThreads, 1) gemm_thread_tile_16x8(Params<float> p) {
  constexpr int kBM = Cfg::kBM, kBN = Cfg::kBN, kBK = Cfg::kBK, kStages = Cfg::kStages;
  constexpr int kSpreadSteps = Cfg::kSpreadSteps;
  constexpr int kPitchA = Cfg::kPitchA, kPitchB = Cfg::kPitchB;
  constexpr int kStageFloatsA = Cfg::kStageFloatsA, kStageFloatsB = Cfg::kStageFloatsB;
  extern __shared__ __align__(16) float smem[];
  float* const sa = smem;                            // kStages x (BM,BK) of A
  float* const sb = smem + kStages * kStageFloatsA;  // kStages x (BN,BK) of B
  const std::uint32_t sa_addr = arch::smem_addr(sa), sb_addr = arch::smem_addr(sb);
  constexpr std::uint32_t kStageBytesA = kStageFloatsA * 4, kStageBytesB = kStageFloatsB * 4;

  const int t = static_cast<int>(threadIdx.x);
  const index_t m0 = index_t{blockIdx.y} * kBM, n0 = index_t{blockIdx.x} * kBN;
  const index_t k_tiles = (p.k + kBK - 1) / kBK;
  // Inside along M and N: only the last k-tile (K % 16 != 0) needs predicates.
  const bool inside = m0 + kBM <= p.m && n0 + kBN <= p.n;

  typename Cfg::template LoadA<major_of(MA)> load_a(p.a, p.lda, m0, t);
  typename Cfg::template LoadB<major_of(MB)> load_b(p.b, p.ldb, n0, t);
  // k-tile kt into stage kt % kStages (then both pointers move on one k-tile).
  const auto load_tile = [&](index_t kt) {
    const std::uint32_t st = static_cast<std::uint32_t>(kt % kStages);
    const index_t ks = p.k - kt * kBK;
    if (inside && ks >= kBK) {
      load_a.load(sa_addr + st * kStageBytesA, p.lda);
      load_b.load(sb_addr + st * kStageBytesB, p.ldb);
    } else {
      load_a.load_edge(sa_addr + st * kStageBytesA, p.lda, p.a, p.m - m0, ks, t);
      load_b.load_edge(sb_addr + st * kStageBytesB, p.ldb, p.b, p.n - n0, ks, t);
    }
  };

  // k-tiles 0 .. kStages-2 on their way; one commit group per k-tile (empty
  // ones past the end keep the count that cp.async.wait_group relies on).
  TESSEL_UNROLL
  for (int kt = 0; kt < kStages - 1; ++kt) {
    if (kt < k_tiles) load_tile(kt);
    arch::sm80::cp_async_commit();
  }
  arch::sm80::cp_async_wait<kStages - 2>();
  __syncthreads();

  // This thread's fragments in a stage: its rows of A, its columns of B.
  const int frag_a = thread_row<Cfg>(t), frag_b = thread_col<Cfg>(t);
  float acc[kRowsPerThread][kColsPerThread];
  TESSEL_UNROLL
  for (int i = 0; i < kRowsPerThread; ++i) {
    TESSEL_UNROLL
    for (int j = 0; j < kColsPerThread; ++j) acc[i][j] = 0.0f;
  }
  float fa[2][kRowsPerThread], fb[2][kColsPerThread];  // step k's fragments and step k+1's, being loaded
  load_fragment<kRowsPerThread, kBlockStepM>(sa + frag_a, fa[0]);
  load_fragment<kColsPerThread, kBlockStepN>(sb + frag_b, fb[0]);

  for (index_t kt = 0; kt < k_tiles; ++kt) {
    // Stage (kt-1) % kStages was last read before the previous k-tile's
    // barrier: refill it with k-tile kt+3, before this k-tile's FFMAs.
    // With Copies::kSteps > 0 a k-tile inside the matrix is copied in parts
    // during the first kSteps k-steps (edge k-tiles still all at once).
    const index_t kn = kt + kStages - 1;
    const std::uint32_t st_next = static_cast<std::uint32_t>(kn % kStages);
    const bool spread = kSpreadSteps > 0 && kn < k_tiles && inside && p.k - kn * kBK >= kBK;
    if (kn < k_tiles && !spread) load_tile(kn);
    if constexpr (kSpreadSteps == 0) arch::sm80::cp_async_commit();
    const int now = static_cast<int>(kt % kStages), next = static_cast<int>((kt + 1) % kStages);
    const float* const sa_now = sa + now * kStageFloatsA + frag_a;
    const float* const sb_now = sb + now * kStageFloatsB + frag_b;
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      if constexpr (kSpreadSteps > 0) {
        if (k < kSpreadSteps && spread) {
          load_a.load_part(sa_addr + st_next * kStageBytesA, p.lda, k, kSpreadSteps);
          load_b.load_part(sb_addr + st_next * kStageBytesB, p.ldb, k, kSpreadSteps);
        }
        if (k == kSpreadSteps - 1) {
          if (spread) load_a.advance(p.lda), load_b.advance(p.ldb);
          arch::sm80::cp_async_commit();  // one group per k-tile, as at once
        }
      }
      if (k == kBK - 1) {
        // k-tile kt+1 has landed (at most kStages-2 younger groups pending)
        // and, after the barrier, everyone's: its first fragments load now.
        // The barrier also ends every read of stage `now`, refilled next.
        arch::sm80::cp_async_wait<kStages - 2>();
        __syncthreads();
        load_fragment<kRowsPerThread, kBlockStepM>(sa + next * kStageFloatsA + frag_a, fa[0]);
        load_fragment<kColsPerThread, kBlockStepN>(sb + next * kStageFloatsB + frag_b, fb[0]);
      } else {
        load_fragment<kRowsPerThread, kBlockStepM>(sa_now + (k + 1) * kPitchA, fa[(k + 1) % 2]);
        load_fragment<kColsPerThread, kBlockStepN>(sb_now + (k + 1) * kPitchB, fb[(k + 1) % 2]);
      }
      TESSEL_UNROLL
      for (int i = 0; i < kRowsPerThread; ++i) {
        TESSEL_UNROLL
        for (int jj = 0; jj < kColsPerThread; ++jj) {
          const int j = Cfg::kSerpentine && i % 2 == 1 ? kColsPerThread - 1 - jj : jj;
          acc[i][j] += fa[k % 2][i] * fb[k % 2][j];
        }
      }
    }
  }

  epilogue<Cfg>(p, m0, n0, t, acc);
}

}  // namespace tessel::gemm_kernels::f08
