// tessel/kernels/gemm/tile_epilogue.cuh — the wgmma kernels' epilogue
// collective: one work unit's fp32 accumulators (the consumers' wgmma
// fragments) to D, through the staging buffers and TMA stores, the
// consumers' own row stores, or D^T from registers for a swapped problem;
// with a fused instance's bias slice and math.  Taken by k13, its batched and
// grouped kernel, k14 and k15, for any tile type X that has k13's Tiles'
// members (TM, FragC, SharedStorage::Staging, Epilogue<U>, EpilogueT<U>,
// kBM, kBN, kTmaStore, kTransposed, kFused, Epi).
#pragma once

#include "tessel/arch/common.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/common.cuh"
#include "tessel/kernels/gemm/fused_epilogue.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"

namespace tessel::gemm_kernels {

/// The consumers' named barrier (0 is __syncthreads), the epilogue's by default.
inline constexpr int kConsumerBarrier = 1;

/// D's tile from the accumulators through the staging buffers: TMA stores,
/// or the consumers' own row stores where TMA cannot describe D
/// (TmaStoreEpilogue, `map_d` null); or, for a swapped problem
/// (`transposed`), from registers to D^T (epilogue_registers_transposed).
template <class X, class T, class P = Params<T>>
struct TileEpilogue {
  const CUtensorMap* map_d;  // null: D's rows are not TMA-describable, or D is written transposed
  const P& p;
  typename X::SharedStorage::Staging& d;
  bool transposed;             // the launcher swapped A and B: the kernel's (i, j) is D(j, i)
  float* bias = nullptr;       // a fused instance: FusedStorage::bias (the column slice, then the row slice)
  int bar = kConsumerBarrier;  // the named barrier of the X::TM::kThreads threads that run this epilogue
  static constexpr int kThreadsOf = X::TM::kThreads;  // k13: both consumer warpgroups; k15: one

  /// A thread's share of a unit's bias slice in registers (BiasShare).
  using BiasRegs = BiasShare<X::kBM, X::kBN, kThreadsOf>;

  /// A fused instance: issues the loads of this thread's share of unit u's
  /// bias slice, to be staged by store_bias after the unit's main loop (k13:
  /// the loads' latency then hides behind it).
  __device__ __forceinline__ BiasRegs load_bias(blocks::TileCoord tile, int t) const {
    BiasRegs share{};
    if constexpr (X::kFused && stages_bias<typename X::Epi>())
      share.load(p.epi, p.cd_type, p.m, p.n, tile.m, tile.n, t);
    return share;
  }
  /// Writes the share into the slice in shared memory, every thread of the
  /// epilogue having read the previous unit's slice (the previous
  /// epilogue's barriers).  fuse_in_registers's first pass makes
  /// prescale_of(act) * x from this slice; StaticEpilogueValues adds the
  /// bias unscaled.
  __device__ __forceinline__ void store_bias(const BiasRegs& share, int t) const {
    if constexpr (X::kFused && stages_bias<typename X::Epi>()) {
      const float scale = X::Epi::kStatic ? 1.0f : prescale_of(p.epi.act);
      share.store(p.cd_type, scale, bias + X::kBN, bias, t);
    }
  }
  /// Both at once, before the unit's main loop: k15, whose warpgroup then
  /// waits for its turn while the loads land.
  __device__ void prepare(blocks::TileCoord tile, int t) const { store_bias(load_bias(tile, t), t); }

  /// A call with C (beta != 0): asks L2 for unit u's C tile before the
  /// unit's main loop (TmaStoreEpilogue::prefetch_c), so that the
  /// epilogue's loads of C find it there.  Without it they waited for DRAM
  /// after the last batch.  Called by k13's and k14's kernels
  /// (k15 reads no C); not compiled into the 128 x 192 instance, where it
  /// left a 4-byte spill, nor where D is written transposed.
  __device__ void prefetch_c(blocks::TileCoord tile, int t) const {
    if constexpr (X::kTmaStore && X::kBN != 192) {
      if (p.beta == 0.0f || transposed) return;
      with_out_type(p.cd_type,
                    [&]<class U>() { X::template Epilogue<U>::prefetch_c(p, tile.m, tile.n, t, kThreadsOf); });
    }
  }

  /// A fused instance's epilogue: the fused math in the accumulators
  /// (fuse_in_registers), then store() with alpha = 1 and beta = 0.
  __device__ __forceinline__ void store_fused(blocks::TileCoord tile, typename X::FragC& acc, int t) const {
    if constexpr (X::kFused && X::Epi::kStatic) {
      // A compile-time epilogue: the whole epilogue in TmaStoreEpilogue's
      // value loop, a chunk at a time (apply_with), no switch but the output
      // type's.  Its first barrier orders the bias slice's writes (store_bias)
      // before the reads; the next unit's writes come after the last
      // chunk's barriers, which every thread reaches after its last read.
      const auto run = [&]<class U>(U* stage) {
        using Values = StaticEpilogueValues<typename X::Epi, U, X::kBM, X::kBN, T>;
        const Values values{p, tile.m, tile.n, bias + X::kBN, bias, Values::pairs_aligned(p.epi)};
        X::template Epilogue<U>::apply_with(map_d, p, tile.m, tile.n, acc, stage, t, bar, values);
      };
      with_out_type(p.cd_type, [&]<class U>() { run(d.template as<U>()); });
    } else if constexpr (X::kFused) {
      const auto tCcD = typename X::TM{}.get_slice(t).partition_C(
          coord_tile<TileShape<X::kBM, X::kBN>>(p.m - tile.m * X::kBM, p.n - tile.n * X::kBN));  // (row, col)
      // Every consumer thread has staged its share of the bias slice (store_bias; k15: prepare).
      arch::named_barrier_sync(bar, kThreadsOf);
      fuse_in_registers<X::template Epilogue<float>::kCoord>(p, acc, tCcD, bias + X::kBN, bias);
      store_final(tile, acc, t);
    }
  }

  /// store() of values that are already D's (alpha, beta and any fused math
  /// applied in the accumulators): the plain epilogue with alpha = 1 and
  /// beta = 0 only converts and stores them.
  __device__ __forceinline__ void store_final(blocks::TileCoord tile, const typename X::FragC& acc, int t) const {
    Params<T> plain = p;
    plain.alpha = 1.0f;
    plain.beta = 0.0f;
    plain.alpha_ptr = nullptr;
    plain.beta_ptr = nullptr;
    TileEpilogue<X, T>{map_d, plain, d, transposed, nullptr, bar}.store(tile, acc, t);
  }

  /// store() of beta = 0 with alpha applied in the accumulators first (the
  /// store then runs with alpha = 1: no scaled copies of a chunk's values
  /// beside the accumulators).  k15's plain epilogue: its 128 x 128
  /// warpgroup tile spilled 148 bytes in store(), whose scaled copies of a
  /// 64-value bf16 chunk live beside the 128 accumulators; this form spills
  /// nothing.  C (beta != 0) is not read: the caller sees to that.
  __device__ __forceinline__ void store_beta0(blocks::TileCoord tile, typename X::FragC& acc, int t) const {
    const float s_alpha = alpha_of(p);
    TESSEL_UNROLL
    for (int v = 0; v < X::FragC::kValues; ++v) *acc.addr(v) *= s_alpha;
    store_final(tile, acc, t);
  }

  // Inlined: as a call, the accumulators would go through local memory (a
  // fused instance's epilogue, which calls it, is large enough that nvcc
  // stopped inlining it: 480 bytes of stack until this was forced).
  __device__ __forceinline__ void store(blocks::TileCoord tile, const typename X::FragC& acc, int t) const {
    if constexpr (X::kTransposed) {
      if (transposed && map_d != nullptr && p.beta == 0.0f) {
        // D^T staged as D's rows, TMA-stored (the launcher made D's map for it).
        with_out_type(p.cd_type, [&]<class U>() {
          // An output type the staging cannot hold never gets D's map (k13_tiles.hpp's launch_kernel).
          if constexpr (X::template EpilogueT<U>::kSmemBytes <= X::kStagingBytes)
            X::template EpilogueT<U>::apply(map_d, p, tile.m, tile.n, acc, d.template as<U>(), t, bar);
        });
        return;
      }
      if (!X::kTmaStore || transposed) {
        // One element per store; a warp's store of one value writes 8
        // consecutive elements into each of 4 rows of D: fine for the few
        // rows of D (M <= 64) of the swapped problems.
        const auto tCcD = typename X::TM{}.get_slice(t).partition_C(
            coord_tile<TileShape<X::kBM, X::kBN>>(p.m - tile.m * X::kBM, p.n - tile.n * X::kBN));  // (row, col)
        epilogue_registers_transposed(p, tile.m * X::kBM, tile.n * X::kBN, tCcD, acc);
        return;
      }
    }
    if constexpr (X::kTmaStore) {
      with_out_type(p.cd_type, [&]<class U>() {
        X::template Epilogue<U>::apply(map_d, p, tile.m, tile.n, acc, d.template as<U>(), t, bar);
      });
    }
  }
  __device__ void finish(int t) const {
    if constexpr (X::kTmaStore || X::kTransposed)
      if (map_d != nullptr && t == 0) arch::sm90::bulk_wait_group_read<0>();  // TmaStoreEpilogue::finish's wait
  }
};

}  // namespace tessel::gemm_kernels
