// tessel/kernels/gemm/tma_warp_specialized_common.cuh — what the TMA steps of
// the ladder (k09, k10, k11) share: the operand tiles as TMA writes them, the
// CTA tile and its fragments, the shared stages, and the CTA program (`run`):
// the producer's TMA loads and the consumers' ldmatrix + mma.sync main loop.
//
// Each step file holds its own idea and passes it to `run`: k09 the TMA +
// mbarrier pipeline with a producer warp and one tile per CTA, k10 a
// persistent CTA whose producer warpgroup gives its registers away, k11 the
// TMA-store epilogue.  Between two steps only that idea changes.
//
// The shared images are the same 128-byte swizzle as the cp.async steps (TMA
// writes exactly Sw<3,3,3> for 16-bit elements), so the ldmatrix partitions
// are k04's.  TMA needs 16-byte aligned rows: the launchers first copy an A or
// B without them into a temporary with padded rows
// (src/kernels/gemm/tma_warp_specialized_launch.hpp).
#pragma once

#include "tessel/arch/sm90.hpp"
#include "tessel/atom/copy_sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/mma_common.cuh"

namespace tessel::gemm_kernels {

/// An operand tile (Rows, kBKOf<T>) as TMA writes it, and the TMA copy of it.
/// K-major: rows of 128 bytes of k (kSmemKMajorOf: 64 16-bit or 128 FP8
/// elements).  M/N-major (16-bit elements only): atoms of
/// (64 m x 64 k), each k a 128-byte row, the atoms 4096 elements apart
/// (TmaTile finds that a box cannot span two atoms and cuts the tile into
/// Rows/64 boxes).  An M/N-major tile of 16 or 32 rows (k13's swapped
/// tiles: M as wgmma's N) is one atom whose k-rows are 32 or 64 bytes, with
/// the swizzle of that width (Sw<1,3,3>, Sw<2,3,3>: TMA's 32- and 64-byte
/// modes, which wgmma reads as well).  Any other multiple of 16 rows (k13's
/// unswapped tiles fitted to a thin N, B:n: 80, 96, ..., 240) is a row of
/// such atoms, 32 rows each where Rows allows, else 16, one TMA box each:
/// (160,64) is ((32,5),64):((1,2048),32) under Sw<2,3,3>.
template <class T, OperandMajor Major, int Rows>
struct TmaOperand {
  static_assert(Major == OperandMajor::k || sizeof(T) == 2, "tessel: M/N-major operand tiles hold 16-bit elements");
  static_assert(Rows % 64 == 0 || (sizeof(T) == 2 && Rows % 16 == 0) || (Major == OperandMajor::k && Rows % 8 == 0),
                "tessel: operand tiles are 64-row atoms, or 16- or 32-row atoms of 16-bit elements, or K-major "
                "tiles of any multiple of 8 rows");
  /// The M/N-major atom's rows: 64 (128-byte swizzle), else 32 or 16.
  static constexpr int kAtomRows = Rows % 64 == 0 ? 64 : Rows % 32 == 0 ? 32 : 16;
  static constexpr SwizzledLayout mn_major() {
    if constexpr (Rows % 64 == 0)
      return compose(Swizzle{3, 3, 3}, make_layout(make_shape(make_shape(64, Rows / 64), kBK),
                                                   make_stride(make_stride(1, 64 * kBK), 64)));
    else if constexpr (Rows == 16 || Rows == 32)
      return compose(Swizzle{Rows == 16 ? 1 : 2, 3, 3}, make_layout(make_shape(Rows, kBK), make_stride(1, Rows)));
    else
      return compose(Swizzle{kAtomRows == 16 ? 1 : 2, 3, 3},
                     make_layout(make_shape(make_shape(kAtomRows, Rows / kAtomRows), kBK),
                                 make_stride(make_stride(1, kAtomRows * kBK), kAtomRows)));
  }
  static constexpr SwizzledLayout kSmem = Major == OperandMajor::k ? kSmemKMajorOf<T, Rows> : mn_major();
  static constexpr int kElems = Rows * kBKOf<T>;
  using Tma = TmaTile<T, make_shape(Rows, kBKOf<T>), kSmem>;
};

namespace warp_specialized {

// A 128x256 tile (8 consumer warps, 64x64 each) and 4 stages: 48 KB of
// operands per k-tile for 4.2 MFLOP, a quarter less L2 traffic per flop than
// k08's 128x128 (32 KB for 2.1 MFLOP); 192 KB of stages, so one CTA per SM.
inline constexpr int kBM = 128, kBN = 256, kStages = 4;
inline constexpr int kConsumerWarps = 8;  // 2 x 4, each 64x64 of D
inline constexpr int kConsumerThreads = 32 * kConsumerWarps;
inline constexpr int kGroup = 8;  // the grouped raster's tile rows (k06)

template <class T>
using Mma = TiledMma<SM80_16x8x16_F32_TN<T>, 2, 4, 1>;  // (32,32,16) per step

using Pipeline = blocks::TmaPipeline<kStages>;

/// The CTA tile of one input type and layout: operands, fragments, stages,
/// and the producer's loads of one tile.
template <class T, MajorA MA, MajorB MB>
struct Tiles {
  using OpA = TmaOperand<T, major_of(MA), kBM>;
  using OpB = TmaOperand<T, major_of(MB), kBN>;
  using TM = Mma<T>;
  using LdsmA = TiledLdsmA<T, TM, major_of(MA)>;
  using LdsmB = TiledLdsmB<T, TM, major_of(MB)>;
  using FragA = typename TM::template FragmentA<OpA::kSmem.layout>;  // (8,4,4)
  using FragB = typename TM::template FragmentB<OpB::kSmem.layout>;  // (4,8,4)
  using CTile = TileShape<kBM, kBN>;
  using FragC = typename TM::template FragmentC<coord_layout(CTile::value)>;  // (4,4,8) f32
  static_assert(TM::kThreads == kConsumerThreads, "one TiledMMA thread per consumer thread");
  static constexpr int kStageBytes = (OpA::kElems + OpB::kElems) * static_cast<int>(sizeof(T));

  /// The operand stages, 1024-byte aligned as the 128-byte swizzle needs; the
  /// first member of every step's SharedStorage.
  struct Stages {
    alignas(1024) T a[kStages][OpA::kElems];  // kStages x (128,64)
    alignas(1024) T b[kStages][OpB::kElems];  // kStages x (256,64)
  };

  /// Producer (one thread): the loads of tile `tile`'s k_tiles k-tiles into
  /// the stages from `write` on, each stage first waited for free.  `write`
  /// runs on, so a persistent producer starts the next tile where this one ended.
  __device__ __forceinline__ static void load(const CUtensorMap* map_a, const CUtensorMap* map_b, Stages& s,
                                              const Pipeline& pipe, Pipeline::State& write, blocks::TileCoord tile,
                                              index_t k_tiles) {
    for (index_t kt = 0; kt < k_tiles; ++kt, ++write) {
      pipe.producer_acquire(write, kStageBytes);
      OpA::Tma::load(map_a, s.a[write.index()], pipe.full(write.index()), tile.m, kt);  // tile (m, kt) of A
      OpB::Tma::load(map_b, s.b[write.index()], pipe.full(write.index()), tile.n, kt);  // tile (n, kt) of B
    }
  }
};

/// The producer side of every warp-specialized step: the schedule's
/// producer_start(), then one elected thread of the first producer warp
/// walks the CTA's tiles and issues their loads.  Shared by k09..k12.
template <class X, class Schedule, class Shared>
__device__ __forceinline__ void produce(const CUtensorMap& map_a, const CUtensorMap& map_b, Shared& shared,
                                        const Pipeline& pipe, int warp, index_t tiles_m, index_t tiles_n,
                                        index_t k_tiles) {
  Schedule::producer_start();
  if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
    arch::sm90::prefetch_tensormap(&map_a);
    arch::sm90::prefetch_tensormap(&map_b);
    auto scheduler = Schedule::scheduler(tiles_m, tiles_n);
    Pipeline::State write;
    for (blocks::TileCoord tile; scheduler.next(tile);)
      X::load(&map_a, &map_b, shared.stages, pipe, write, tile, k_tiles);
  }
}

/// The CTA program of the three steps.  `Schedule` is the step's choice of
/// who produces and which tiles a CTA computes: its kThreads (the consumer
/// warps, then the producer's), producer_start() and consumer_start() (what
/// each side does first: k10 moves registers with setmaxnreg), and
/// scheduler(tiles_m, tiles_n), the CTA's tiles (k09: one; k10: a persistent
/// loop).  `epilogue.store(tile, tCrC, t)` writes each tile's D from the
/// consumers (threads 0..255), `epilogue.finish(t)` follows the last tile.
/// `shared` has the operand stages (`stages`) and the barriers (`pipe`).
///
/// The program is one function, main loop included: nvcc schedules a loop
/// inlined from a function of its own differently, and k11 keeps the
/// machine code it was measured with.
template <class X, class Schedule, class Shared, class Epilogue, class T>
__device__ __forceinline__ void run(const CUtensorMap& map_a, const CUtensorMap& map_b, const Params<T>& p,
                                    Shared& shared, const Epilogue& epilogue) {
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = typename X::TM;
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  if (threadIdx.x == 0) pipe.init(kConsumerWarps);  // one release per consumer warp
  __syncthreads();                                  // the last CTA-wide barrier: from here on, only mbarriers

  const index_t tiles_m = ceil_div(p.m, index_t{kBM}), tiles_n = ceil_div(p.n, index_t{kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{kBK});

  // The producer and the consumers each walk their own copy of the
  // scheduler and meet the same tiles in the same order; the pipeline state
  // runs on across tiles, so a persistent producer runs ahead into the next
  // tile while the consumers are still in the previous tile's epilogue.
  if (warp >= kConsumerWarps) {  // the producer: one thread issues every load
    produce<X, Schedule>(map_a, map_b, shared, pipe, warp, tiles_m, tiles_n, k_tiles);
    return;
  }
  Schedule::consumer_start();

  // Consumer warps: thread t of 256 in the TiledMMA.
  const int t = static_cast<int>(threadIdx.x);
  const auto ldsm_a = typename X::LdsmA{}.get_slice(t);
  const auto ldsm_b = typename X::LdsmB{}.get_slice(t);
  constexpr int kRK = kBK / TM::kL.k;  // k-slices of 16 per k-tile
  using LA = typename X::LdsmA;
  using LB = typename X::LdsmB;
  auto scheduler = Schedule::scheduler(tiles_m, tiles_n);
  Pipeline::State read;
  for (blocks::TileCoord tile; scheduler.next(tile);) {
    typename X::FragA tCrA;  // (8,4,4)
    typename X::FragB tCrB;  // (4,8,4)
    typename X::FragC tCrC;  // (4,4,8) f32
    clear(tCrC);
    for (index_t kt = 0; kt < k_tiles; ++kt, ++read) {
      pipe.consumer_wait(read);
      const auto tCsA = ldsm_a.partition_S(make_smem_tensor<OpA::kSmem>(shared.stages.a[read.index()]));  // (8,4,4)
      const auto tCsB = ldsm_b.partition_S(make_smem_tensor<OpB::kSmem>(shared.stages.b[read.index()]));  // (4,8,4)
      // Registers double-buffered by order: slice k+1 is requested before
      // slice k's MMAs.
      copy(LA{}, tCsA(_, _, 0), tCrA(_, _, 0));
      copy(LB{}, tCsB(_, _, 0), tCrB(_, _, 0));
      TESSEL_UNROLL
      for (int k = 0; k < kRK; ++k) {
        if (k + 1 < kRK) {
          copy(LA{}, tCsA(_, _, k + 1), tCrA(_, _, k + 1));
          copy(LB{}, tCsB(_, _, k + 1), tCrB(_, _, k + 1));
        }
        // Every read of the stage is issued: release it to the producer,
        // which refills it while the last k-slice's MMAs run.
        if (k + 2 == kRK) {
          __syncwarp();
          if (lane == 0) pipe.consumer_release(read);
        }
        gemm(TM{}, tCrA(_, _, k), tCrB(_, _, k), tCrC);
      }
    }
    epilogue.store(tile, tCrC, t);
  }
  epilogue.finish(t);
}

}  // namespace warp_specialized

}  // namespace tessel::gemm_kernels
