// k09 — the best mma.sync kernel for Hopper: the MMAs are still mma.sync,
// but the data movement and synchronization are Hopper's.
//
// What k07 measured (docs/ladder.md): a 128x256 tile with one CTA per SM was
// *slower* than 128x128 with two, because every k-tile ends in a CTA-wide
// barrier (all eight warps wait for the slowest, and the tensor cores drain)
// and every thread spends instructions on cp.async addresses.  Here:
//   * TMA loads whole boxes: one elected thread of a producer warp issues
//     them, no per-thread address arithmetic, zero fill at the edges;
//   * mbarriers replace __syncthreads: a `full` barrier per stage completes
//     when its bytes land; each consumer warp releases the stage on its
//     `empty` barrier as soon as its ldmatrix reads are issued.  Warps drift
//     freely; the only waits are on data;
//   * a 128x256 tile (8 consumer warps, 64x64 each) and 4 stages: 48 KB of
//     operands per k-tile for 4.2 MFLOP, a third less L2 traffic per flop
//     than 128x128;
//   * persistent CTAs, one per SM: the producer fills the next tile's stages
//     while the consumers write the previous tile's D;
//   * D leaves through shared memory and TMA stores (tma_store_epilogue.cuh):
//     the consumers hand each 128-byte-wide column chunk to the copy engine
//     and go on, instead of issuing 64 scattered stores each.  The producer is a
//     whole warpgroup that gives its registers to the consumers
//     (setmaxnreg): with 9 warps a CTA may use only 168 registers per thread,
//     too few for the persistent loop without spills.
// Tried and dropped (docs/ladder.md has the numbers): a persistent variant
// without a producer (thread 0 issuing the loads), where warp 0 waited for
// the slowest warp on every refill and everyone then waited for warp 0's loads.
// The shared images are the same 128-byte swizzle as the earlier steps (TMA
// writes exactly Sw<3,3,3> for 16-bit elements), so the ldmatrix partitions
// are the earlier ones.  TMA needs 16-byte aligned rows: k09's launcher
// first copies an A or B without them into a temporary with padded rows
// (src/kernels/gemm/k09.cu).
#pragma once

#include "tessel/arch/sm90.hpp"
#include "tessel/atom/copy_sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/k08_smem_epilogue.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"

namespace tessel::gemm_kernels {

/// An operand tile (Rows, 64) as TMA writes it, and the TMA copy of it.
/// K-major: rows of 64 k, 128 bytes each (kSmemKMajor).  M/N-major: atoms of
/// (64 m x 64 k), each k a 128-byte row, the atoms 4096 elements apart
/// (TmaTile finds that a box cannot span two atoms and cuts the tile into
/// Rows/64 boxes).
template <class T, OperandMajor Major, int Rows>
struct TmaOperand {
  static constexpr SwizzledLayout kSmem =
      Major == OperandMajor::k ? kSmemKMajor<Rows>
             : compose(Swizzle{3, 3, 3}, make_layout(make_shape(make_shape(64, Rows / 64), kBK),
                                                     make_stride(make_stride(1, 64 * kBK), 64)));
  static constexpr int kElems = Rows * kBK;
  using Tma = TmaTile<T, make_shape(Rows, kBK), kSmem>;
};

namespace k09 {

inline constexpr int kBM = 128, kBN = 256, kStages = 4;
inline constexpr int kConsumerWarps = 8;                    // 2 x 4, each 64x64 of D
inline constexpr int kThreads = 32 * (kConsumerWarps + 4);  // + one producer warpgroup
// setmaxnreg moves registers from the producer warpgroup (one thread works)
// to the consumers: 128*40 + 256*232 <= 65536.
inline constexpr int kProducerRegs = 40, kConsumerRegs = 232;
inline constexpr int kGroup = 8;

template <class T>
using Mma = TiledMma<SM80_16x8x16_F32_TN<T>, 2, 4, 1>;  // (32,32,16) per step

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
  template <class U>
  using Epilogue = TmaStoreEpilogue<U, TM, kBM, kBN>;
  static constexpr int kStageBytes = (OpA::kElems + OpB::kElems) * static_cast<int>(sizeof(T));
  static constexpr int kEpilogueBytes = Epilogue<float>::kSmemBytes;
  static_assert(Epilogue<__half>::kSmemBytes == kEpilogueBytes, "one staging size for every output type");

  /// The kernel's shared memory: the operand stages (1024-byte aligned, as
  /// the 128-byte swizzle needs), D's staging buffers, the pipeline's barriers.
  struct SharedStorage {
    alignas(1024) T a[kStages][OpA::kElems];  // kStages x (128,64)
    alignas(1024) T b[kStages][OpB::kElems];  // kStages x (256,64)
    union Staging {                           // D's two 128-row x 128-byte buffers, in the output type
      __nv_bfloat16 bf16[kEpilogueBytes / 2];
      __half f16[kEpilogueBytes / 2];
      float f32[kEpilogueBytes / 4];
    };
    alignas(1024) Staging d;
    blocks::PipelineStorage<kStages> pipe;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
};

/// The consumers' named barrier (barrier 0 is __syncthreads).
inline constexpr int kConsumerBarrier = 1;

template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_warp_specialized(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                          const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p) {
  using X = Tiles<T, MA, MB>;
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using Pipeline = blocks::TmaPipeline<kStages>;
  using Scheduler = blocks::PersistentScheduler<blocks::GroupedRaster<kGroup>>;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  if (threadIdx.x == 0) pipe.init(kConsumerWarps);  // one release per consumer warp
  __syncthreads();                                  // the last CTA-wide barrier: from here on, only mbarriers

  const index_t tiles_m = ceil_div(p.m, index_t{kBM}), tiles_n = ceil_div(p.n, index_t{kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{kBK});

  // Persistent: CTA b computes tiles b, b + gridDim.x, ...  The pipeline state
  // runs on across tiles, so the producer runs ahead into the next tile while
  // the consumers are still in the previous tile's epilogue.
  if (warp >= kConsumerWarps) {  // producer warpgroup: one thread issues every load
    arch::sm90::setmaxnreg_dec<kProducerRegs>();
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      arch::sm90::prefetch_tensormap(&map_a);
      arch::sm90::prefetch_tensormap(&map_b);
      Scheduler scheduler(tiles_m, tiles_n, blockIdx.x, gridDim.x);
      typename Pipeline::State write;
      for (blocks::TileCoord tile; scheduler.next(tile);) {
        for (index_t kt = 0; kt < k_tiles; ++kt, ++write) {
          pipe.producer_acquire(write, X::kStageBytes);
          OpA::Tma::load(&map_a, shared.a[write.index()], pipe.full(write.index()), tile.m, kt);  // tile (m, kt) of A
          OpB::Tma::load(&map_b, shared.b[write.index()], pipe.full(write.index()), tile.n, kt);  // tile (n, kt) of B
        }
      }
    }
    return;
  }
  arch::sm90::setmaxnreg_inc<kConsumerRegs>();

  // Consumer warps: thread t of 256 in the TiledMMA.
  const int t = static_cast<int>(threadIdx.x);
  const auto ldsm_a = typename X::LdsmA{}.get_slice(t);
  const auto ldsm_b = typename X::LdsmB{}.get_slice(t);
  constexpr int kRK = kBK / X::TM::kL.k;  // k-slices of 16 per k-tile
  using LA = typename X::LdsmA;
  using LB = typename X::LdsmB;
  using TM = typename X::TM;
  Scheduler scheduler(tiles_m, tiles_n, blockIdx.x, gridDim.x);
  typename Pipeline::State read;
  for (blocks::TileCoord tile; scheduler.next(tile);) {
    typename X::FragA tCrA;  // (8,4,4)
    typename X::FragB tCrB;  // (4,8,4)
    typename X::FragC tCrC;  // (4,4,8) f32
    clear(tCrC);
    for (index_t kt = 0; kt < k_tiles; ++kt, ++read) {
      pipe.consumer_wait(read);
      const auto tCsA = ldsm_a.partition_S(make_smem_tensor<OpA::kSmem>(shared.a[read.index()]));  // (8,4,4) rows
      const auto tCsB = ldsm_b.partition_S(make_smem_tensor<OpB::kSmem>(shared.b[read.index()]));  // (4,8,4)
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
        if (k + 2 == kRK) {  // every read of the stage is issued: release it to the producer
          __syncwarp();
          if (lane == 0) pipe.consumer_release(read);
        }
        gemm(TM{}, tCrA(_, _, k), tCrB(_, _, k), tCrC);
      }
    }
    if (tma_store) {
      switch (p.cd_type) {
        case DType::bf16:
          X::template Epilogue<__nv_bfloat16>::apply(&map_d, p, tile.m, tile.n, tCrC, shared.d.bf16, t,
                                                     kConsumerBarrier);
          break;
        case DType::f16:
          X::template Epilogue<__half>::apply(&map_d, p, tile.m, tile.n, tCrC, shared.d.f16, t, kConsumerBarrier);
          break;
        case DType::f32:
          X::template Epilogue<float>::apply(&map_d, p, tile.m, tile.n, tCrC, shared.d.f32, t, kConsumerBarrier);
          break;
      }
    } else {
      // D's rows are not 16-byte aligned: TMA cannot write it.
      RegisterEpilogue::apply<TM, typename X::CTile>(p, tile.m * kBM, tile.n * kBN, tCrC, nullptr, t);
    }
  }
  if (tma_store) X::template Epilogue<float>::finish(t);
}

}  // namespace k09

}  // namespace tessel::gemm_kernels
