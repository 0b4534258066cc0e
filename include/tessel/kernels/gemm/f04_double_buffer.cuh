// f04 — pipelining: two shared-memory stages and register double buffering.
//
// f03 loads a k-tile, waits, computes, waits: while a tile travels from
// global memory every warp of the CTA stalls, and while it computes the
// memory system idles.  f04 overlaps the two at both levels of the memory
// hierarchy, as the seed's pipelining step does:
//  * shared memory: two stages.  While the CTA computes k-tile kt from stage
//    s, k-tile kt+1 is on its way into stage s^1: each thread issues its
//    cp.async copies of kt+1 *before* the FMAs of kt (global to shared
//    without passing through registers) and waits for them only before
//    the last k of kt, so the load latency hides behind a k-tile of FMAs;
//  * registers: the A and B values of k+1 are loaded from shared memory
//    (LDS) into a second fragment before the FMAs of k are issued, so the
//    FMAs do not wait on the shared-memory latency (about 30 cycles).
// One barrier per k-tile: at k = BK-1 it publishes stage s^1 (written by
// everyone's cp.async) before anyone reads its first slice, and it also says
// that everyone has finished reading stage s, which k-tile kt+1 refills.
//
// Tile 128x128x8, 256 threads, the 16x16 grid of one-element FMA atoms of
// f02/f03 (8x8 accumulators per thread, values 16 rows and columns apart),
// K-major shared tiles with rows padded to 9 words (f03's idea for BK = 8:
// (r, k) in bank (9r + k) % 32, 9 odd).  BK is 8, not 16, for the register
// budget: 64 accumulators and 2 x (8 + 8) fragment values must fit under 128
// registers with the addressing, for 2 CTAs per SM.  (A first version staged
// the global loads through registers, LDG then STS; its 8 staged values and
// their addressing pushed ptxas into 24..56 bytes of spills at 128
// registers; cp.async needs none of them.)  The copies are one float each,
// 4-byte cp.async: the seed's one-element copy atoms; f06 widens them.
//
// The kernel is also the loop that f05 and f06 configure (their thread
// layout, shared layout, loads and epilogue): `Config` below is f04's.
//
// Any M, N, K >= 1 and any leading dimensions: copies are element-wise and
// predicated, zero-filled outside (tiles inside skip the predicates).
#pragma once

#include "tessel/algorithm/copy.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/atom/bank_conflicts.hpp"
#include "tessel/atom/copy_sm80.hpp"
#include "tessel/atom/mma_fma.hpp"
#include "tessel/atom/tiled_mma.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels::f04 {

inline constexpr int kBM = 128, kBN = 128, kBK = 8, kThreads = 256, kStages = 2;

/// The threads of a cp.async load of a (128,8) tile, 4 floats each, one
/// 4-byte copy per float.  A thread's 4 floats are neighbours along the
/// contiguous index, so their addresses differ by constants that the copy
/// instructions carry as immediates.  (With a thread's floats 32 rows or 2
/// columns apart instead, ptxas kept their 64-bit offsets live across the
/// main loop, 6 registers per operand, and spilled.)
///  * K contiguous (A:k, B:k): thread t at (t/2, 4*(t%2)): two threads per
///    row of 8 floats (one 32-byte sector), 128 rows;
///  * M/N contiguous (A:m, B:n): thread t at (4*(t%32), t/32): a warp reads
///    128 consecutive floats (512 bytes) of one k.
/// cp.async zero-fills what lies outside the matrix.
inline constexpr Layout kLoadThrK = make_layout(make_shape(kBM, 2), LayoutRight{});
inline constexpr Layout kLoadValK = make_layout(make_shape(1, 4));
inline constexpr Layout kLoadThrMN = make_layout(make_shape(32, kBK));
inline constexpr Layout kLoadValMN = make_layout(make_shape(4, 1));
template <OperandMajor Major>
using AsyncLoad = MakeTiledCopy<SM80_CpAsync<float, 4>, Major == OperandMajor::k ? kLoadThrK : kLoadThrMN,
                                Major == OperandMajor::k ? kLoadValK : kLoadValMN>;

/// K-major (128,8) tiles with rows padded to 9 words.
struct SmemPadded {
  static constexpr Layout a = make_layout(make_shape(kBM, kBK), make_stride(kBK + 1, 1));
  static constexpr Layout b = make_layout(make_shape(kBN, kBK), make_stride(kBK + 1, 1));
};

/// A tile of global memory into this thread's share of a shared stage:
/// plain copies when the tile lies inside the matrix, else predicated ones
/// that zero-fill outside.
template <class TC, class G, class D>
__device__ inline void load_tile(const G& tile, const D& tXsX, int thread) {
  const TC tc;
  const auto tXgX = tc.get_slice(thread).partition_S(tile);  // (V,REST)
  if (tile.full())
    copy(tc, tXgX, tXsX);
  else
    copy_if(tc, tXgX, tXsX);
}

/// f04's configuration of the kernel below:
///   Mma          the TiledMMA (256 threads, a (BM,BN) tile of D)
///   Smem         the shared layouts of one stage's A (BM,BK) and B (BN,BK)
///   FragAtom     the copy atom of the shared-to-register loads of fragments
///   load_async   issues the cp.async copies of a (BM|BN,BK) global tile into a stage
///   Epilogue     void: from registers (epilogue_registers); else a type with
///                apply<Mma, CTile>(p, m0, n0, acc, smem, thread) and smem_bytes<BM, BN>()
///   kMinBlocks   CTAs per SM that __launch_bounds__ budgets registers for (2: at most 128)
struct Config {
  using Mma = TiledMma<UniversalFma<float, float, float>, 16, 16, 1>;
  using Smem = SmemPadded;
  using FragAtom = UniversalCopy<float, 32>;
  using Epilogue = void;
  static constexpr int kMinBlocks = 2;  // CTAs per SM that __launch_bounds__ asks registers for
  template <OperandMajor Major, class G>
  __device__ static void load_async(const G& tile, float* s, int thread, const float*, index_t) {
    static_assert(Smem::a == Smem::b, "tessel: A and B stages share one layout");
    load_tile<AsyncLoad<Major>>(tile, AsyncLoad<Major>{}.get_slice(thread).partition_D(make_smem_tensor<Smem::a>(s)),
                                thread);
  }
};

/// One column k of a stage: the (BM,1) slice that the MMA reads at step k.
inline constexpr Tiler kColumnA = make_tiler(kBM, 1);
inline constexpr Tiler kColumnB = make_tiler(kBN, 1);

/// Floats of one stage of A (B), rounded up to 16 bytes so that every stage
/// starts 16-byte aligned (128-bit loads and cp.async need it).
template <class Cfg>
inline constexpr int kStageA = static_cast<int>((cosize(Cfg::Smem::a) + 3) / 4 * 4);
template <class Cfg>
inline constexpr int kStageB = static_cast<int>((cosize(Cfg::Smem::b) + 3) / 4 * 4);

/// Dynamic shared memory of the kernel: the stages, or the epilogue's
/// staging tile where that is larger (it reuses the stages' memory).
template <class Cfg>
constexpr int smem_bytes() {
  const int stages = kStages * (kStageA<Cfg> + kStageB<Cfg>)*4;
  if constexpr (std::is_void_v<typename Cfg::Epilogue>) {
    return stages;
  } else {
    const int epi = Cfg::Epilogue::template smem_bytes<kBM, kBN>();
    return stages > epi ? stages : epi;
  }
}

/// Do the rows of this fp32 matrix start on 16-byte boundaries (cp.async of
/// 4 floats along a contiguous M or N)?
__device__ inline bool rows_aligned16_f32(const float* p, index_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
}

/// Shared memory into a register fragment by value: vectors of Vec floats
/// (Vec = 1 or 4: LDS.32 or LDS.128) assigned float by float.  The copy
/// atoms move a vector through a pointer to a word type (uint32_t, uint4);
/// into a float fragment that made ptxas keep the fragments on the stack
/// (LDS.128 then STL.128, up to 256 bytes per thread), so the fragment loads
/// here read the vector as a value and assign its floats.
template <int Vec, class S, class F>
__device__ inline void load_fragment(const S& tCsX, F& tCrX) {
  static_assert(Vec == 1 || Vec == 4, "tessel: fragments are loaded 1 or 4 floats at a time");
  TESSEL_UNROLL
  for (int v = 0; v < F::kValues; v += Vec) {
    if constexpr (Vec == 4) {
      const float4 x = *static_cast<const float4*>(__builtin_assume_aligned(tCsX.addr(v), 16));
      *tCrX.addr(v) = x.x;
      *tCrX.addr(v + 1) = x.y;
      *tCrX.addr(v + 2) = x.z;
      *tCrX.addr(v + 3) = x.w;
    } else {
      *tCrX.addr(v) = *tCsX.addr(v);
    }
  }
}

/// The A and B values of step k of a stage into fragments (LDS).
template <class Cfg, class FA, class FB>
__device__ inline void load_fragments(const float* sa, const float* sb, int k, FA& tCrA, FB& tCrB, int thread) {
  using FragLoadA = TiledCopyA<typename Cfg::FragAtom, typename Cfg::Mma>;
  using FragLoadB = TiledCopyB<typename Cfg::FragAtom, typename Cfg::Mma>;
  const auto sA = make_smem_tensor<Cfg::Smem::a>(sa);                                           // (BM,BK)
  const auto sB = make_smem_tensor<Cfg::Smem::b>(sb);                                           // (BN,BK)
  const auto tCsA = FragLoadA{}.get_slice(thread).partition_S(local_tile<kColumnA>(sA, 0, k));  // (V,RM,1)
  const auto tCsB = FragLoadB{}.get_slice(thread).partition_S(local_tile<kColumnB>(sB, 0, k));  // (V,RN,1)
  // The partitions of the copies check that each thread's vectors are contiguous and aligned.
  load_fragment<FragLoadA::kVec>(tCsA, tCrA);
  load_fragment<FragLoadB::kVec>(tCsB, tCrB);
}

/// The pipelined fp32 GEMM of f04..f06 (see the header comment; `Cfg` as
/// f04::Config documents).  f04: at most 128 registers, so that 2 CTAs (16
/// warps) fit on an SM.
template <class Cfg, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, Cfg::kMinBlocks) gemm_pipelined(Params<float> p) {
  using MMA = typename Cfg::Mma;
  using CTile = TileShape<kBM, kBN>;
  using TileA = TileShape<kBM, kBK>;
  using TileB = TileShape<kBN, kBK>;
  static_assert(MMA::kThreads == kThreads, "tessel: the TiledMMA must have 256 threads");
  static_assert(size(Cfg::Smem::a) == kBM * kBK && size(Cfg::Smem::b) == kBN * kBK,
                "tessel: a stage holds a (128,8) tile of A and of B");

  extern __shared__ __align__(16) unsigned char smem[];
  float* const sa = reinterpret_cast<float*>(smem);  // kStages x (BM,BK)
  float* const sb = sa + kStages * kStageA<Cfg>;     // kStages x (BN,BK)
  const int t = static_cast<int>(threadIdx.x);
  const index_t tile_m = blockIdx.y, tile_n = blockIdx.x;
  const auto gA = tensor_a<MA>(p);  // (M,K)
  const auto gB = tensor_b<MB>(p);  // (N,K)
  const index_t k_tiles = ceil_div(p.k, index_t{kBK});

  // The first k-tile into stage 0.
  Cfg::template load_async<major_of(MA)>(local_tile<TileA>(gA, tile_m, 0), sa, t, p.a, p.lda);
  Cfg::template load_async<major_of(MB)>(local_tile<TileB>(gB, tile_n, 0), sb, t, p.b, p.ldb);
  arch::sm80::cp_async_commit();
  arch::sm80::cp_async_wait<0>();
  __syncthreads();

  // Two fragments of A and B: step k's, and step k+1's being loaded.
  using FragA = decltype(make_fragment_like(TiledCopyA<typename Cfg::FragAtom, MMA>{}.get_slice(0).partition_S(
      local_tile<kColumnA>(make_smem_tensor<Cfg::Smem::a>(sa), 0, 0))));  // (V,RM,1)
  using FragB = decltype(make_fragment_like(TiledCopyB<typename Cfg::FragAtom, MMA>{}.get_slice(0).partition_S(
      local_tile<kColumnB>(make_smem_tensor<Cfg::Smem::b>(sb), 0, 0))));  // (V,RN,1)
  FragA tCrA[2];
  FragB tCrB[2];
  typename MMA::template FragmentC<coord_layout(CTile::value)> acc;  // (V,RM,RN) f32
  clear(acc);
  load_fragments<Cfg>(sa, sb, 0, tCrA[0], tCrB[0], t);

  for (index_t kt = 0; kt < k_tiles; ++kt) {
    const int s = static_cast<int>(kt & 1);
    const bool more = kt + 1 < k_tiles;
    float* const sa_now = sa + s * kStageA<Cfg>;
    float* const sb_now = sb + s * kStageB<Cfg>;
    float* const sa_next = sa + (s ^ 1) * kStageA<Cfg>;
    float* const sb_next = sb + (s ^ 1) * kStageB<Cfg>;
    // Stage s^1 was last read before the previous k-tile's barrier: refill it.
    if (more) {
      Cfg::template load_async<major_of(MA)>(local_tile<TileA>(gA, tile_m, kt + 1), sa_next, t, p.a, p.lda);
      Cfg::template load_async<major_of(MB)>(local_tile<TileB>(gB, tile_n, kt + 1), sb_next, t, p.b, p.ldb);
      arch::sm80::cp_async_commit();
    }
    TESSEL_UNROLL
    for (int k = 0; k < kBK; ++k) {
      if (k == kBK - 1) {
        // Publish stage s^1 before its first slice is read; everyone is also
        // past their last read of stage s, which k-tile kt+1 refills.
        if (more) arch::sm80::cp_async_wait<0>();
        __syncthreads();
        if (more) load_fragments<Cfg>(sa_next, sb_next, 0, tCrA[0], tCrB[0], t);
      } else {
        load_fragments<Cfg>(sa_now, sb_now, k + 1, tCrA[(k + 1) % 2], tCrB[(k + 1) % 2], t);
      }
      gemm(MMA{}, tCrA[k % 2], tCrB[k % 2], acc);
    }
  }

  if constexpr (std::is_void_v<typename Cfg::Epilogue>) {
    const auto tCcD = MMA{}.get_slice(t).partition_C(
        coord_tile<CTile>(p.m - tile_m * kBM, p.n - tile_n * kBN));  // (V,RM,RN) coordinates
    epilogue_registers(p, tile_m * kBM, tile_n * kBN, tCcD, acc);
  } else {
    // The stages' memory becomes the epilogue's staging tile: every thread's
    // reads of the stages ended before the last k-tile's barrier, and no
    // cp.async is in flight after it.
    Cfg::Epilogue::template apply<MMA, CTile>(p, tile_m * kBM, tile_n * kBN, acc, smem, t);
  }
}

// Bank conflicts of f04's accesses (4-byte words), on the real partitions:
// the MMA's reads of A (16 rows, 9r % 32 distinct) and B are conflict-free
// (the hot loop: 16 loads per k); the copies into the stages, 4 per thread
// and operand per k-tile, are 2-way (K contiguous: 16 rows x 2 groups of k,
// rows 4 apart collide) and 4-way (M/N contiguous: a warp's rows 4*lane + v
// fall in banks 36*lane % 32).
static_assert(bank_conflict_ways(Config::Mma::kPartA<SmemPadded::a>, 4) == 1);
static_assert(bank_conflict_ways(Config::Mma::kPartB<SmemPadded::b>, 4) == 1);
static_assert(bank_conflict_ways(AsyncLoad<OperandMajor::k>::kPartition<SmemPadded::a>, 4) == 2);
static_assert(bank_conflict_ways(AsyncLoad<OperandMajor::mn>::kPartition<SmemPadded::a>, 4) == 4);

}  // namespace tessel::gemm_kernels::f04
