// tessel/kernels/gemm/tma_store_epilogue.cuh — k11's epilogue: D leaves the
// CTA through shared memory and TMA stores instead of per-thread global
// stores.
//
// Why (docs/ladder.md, k11): with the register epilogue every consumer thread
// issues 64 four-byte stores per tile, each warp store touching 8 rows (8
// half-used sectors), and the tensor cores wait until the last one is
// issued; handing whole chunks to the copy engine frees them at once
// (docs/ladder.md, k11, has the measured gains).
//
// How: the (BM,BN) tile leaves in column chunks of 128 bytes per row (64
// 16-bit or 32 fp32 values), each chunk one TMA box written with the 128-byte
// swizzle.  The consumers write a chunk into one of two staging buffers
// (swizzled as TMA reads it, so the stores of a warp are conflict-free), one
// thread issues the TMA store, and the next chunk goes to the other buffer
// while the first drains.  Consumers do not wait for the global writes: the
// only wait is, two chunks later, for TMA to have *read* a buffer.  TMA clips
// the boxes at D's edges, so partial tiles need no predicates.
#pragma once

#include "tessel/arch/common.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/atom/copy_sm90.hpp"
#include "tessel/core/pack.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels {

/// The epilogue of TiledMma TM's (BM,BN) accumulator tile for output type U,
/// staged through 2 x (BM x 128 bytes) of shared memory.  Threads: TM's.
template <class U, class TM, int BM, int BN>
struct TmaStoreEpilogue {
  static constexpr int kChunkCols = 128 / static_cast<int>(sizeof(U));
  static constexpr int kChunks = BN / kChunkCols;
  static constexpr int kBufElems = BM * kChunkCols;
  /// Two buffers take the chunks in turn; an odd chunk count (BN = 192 in
  /// 16-bit: 3 chunks) gets one buffer per chunk, so that a value's buffer
  /// stays a layout of its column.
  static constexpr int kBuffers = kChunks % 2 == 0 ? 2 : kChunks;
  static constexpr int kSmemBytes = kBuffers * kBufElems * static_cast<int>(sizeof(U));  // 32 KB for BM = 128, BN = 256
  /// The 128-byte swizzle in units of U (Sw<3,3,3> for 16-bit, Sw<3,2,3> for fp32), as TMA writes it.
  static constexpr Swizzle kSwizzle{3, sizeof(U) == 2 ? 3 : 2, 3};
  /// One chunk, (BM, kChunkCols) of D, leaves from one staging buffer (rows
  /// of 128 bytes, swizzled) by TMA.
  using Tma = TmaTile<U, make_shape(BM, kChunkCols),
                      SwizzledLayout{kSwizzle, make_layout(make_shape(BM, kChunkCols), LayoutRight{})}>;
  /// The whole tile as the staging sees it: column j of the tile is column
  /// j % kChunkCols of buffer (j / kChunkCols) % kBuffers, so successive
  /// rounds of chunks share the buffers (stride 0).  Example (fp32, BM = 128,
  /// BN = 256): (128,(32,2,4)):(32,(1,4096,0)).
  static constexpr Layout kStage = make_layout(make_shape(BM, make_shape(kChunkCols, kBuffers, kChunks / kBuffers)),
                                               make_stride(kChunkCols, make_stride(1, kBufElems, 0)));
  /// (thread, value) -> staging element, and -> (row, column) of the tile.
  static constexpr Layout kPart = TM::template kPartC<kStage>;
  static constexpr Layout kCoord = TM::template kPartC<coord_layout(make_shape(BM, BN))>;
  static constexpr int kValues = static_cast<int>(size(mode(kPart, 1)));
  static_assert(BN % kChunkCols == 0, "tessel: the tile's columns leave in whole 128-byte chunks");
  static_assert(BM <= 256, "tessel: a TMA box has at most 256 rows");

  /// The chunk of value v (the chunk of thread 0's value v).
  static constexpr int chunk_of(int v) {
    return static_cast<int>(coord_field(StaticLayout<kCoord>{}(0, v), 1)) / kChunkCols;
  }
  /// Column(t, v) = column(t, 0) + column offset of value v, so a value is
  /// in the same chunk for every thread when the threads' spread of columns
  /// fits into every value's chunk after its offset.
  static constexpr bool chunks_uniform() {
    const Layout thr = mode(kCoord, 0), val = mode(kCoord, 1);
    index_t spread = 0;
    for (index_t t = 0; t < size(thr); ++t) spread = coord_field(thr(t), 1) > spread ? coord_field(thr(t), 1) : spread;
    for (index_t v = 0; v < size(val); ++v)
      if (coord_field(val(v), 1) % kChunkCols + spread >= kChunkCols) return false;
    return true;
  }
  static_assert(chunks_uniform(), "tessel: a value's chunk must not depend on the thread");
  static_assert(detail::column_pairs<tessel::detail::thread_values(kCoord)>(),
                "tessel: the accumulators must come in pairs of neighbouring columns");

  /// D tile (tile_m, tile_n) = alpha * acc + beta * C.  Every thread of TM
  /// calls it (it synchronizes them with named barrier `bar`); thread 0
  /// issues the stores.  `stage` is kSmemBytes of 1024-byte aligned shared
  /// memory.  Call finish() before the kernel exits.
  template <class T, class Frag>
  __device__ static void apply(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m, index_t tile_n,
                               const Frag& acc, U* stage, int t, int bar) {
    const auto tCsD =
        TM{}.get_slice(t).partition_C(make_smem_tensor<SwizzledLayout{kSwizzle, kStage}>(stage));  // staging
    const auto tCcD = TM{}.get_slice(t).partition_C(
        coord_tile<TileShape<BM, BN>>(p.m - tile_m * BM, p.n - tile_n * BN));  // (row, col)
    const bool issuer = t == 0;
    TESSEL_UNROLL
    for (int q = 0; q < kChunks; ++q) {
      // The buffer's previous chunk (kBuffers stores ago, maybe of the previous tile) must have been read.
      if (issuer) arch::sm90::bulk_wait_group_read<kBuffers - 1>();
      arch::named_barrier_sync(bar, TM::kThreads);
      TESSEL_UNROLL
      for (int v = 0; v < kValues; v += 2) {
        if (chunk_of(v) != q) continue;
        float x0 = p.alpha * *acc.addr(v), x1 = p.alpha * *acc.addr(v + 1);
        if (p.beta != 0.0f) {
          x0 += p.beta * c_at(p, tile_m, tile_n, tCcD, v);
          x1 += p.beta * c_at(p, tile_m, tile_n, tCcD, v + 1);
        }
        if constexpr (sizeof(U) == 4) {
          *reinterpret_cast<float2*>(tCsD.addr(v)) = make_float2(x0, x1);
        } else {
          *reinterpret_cast<std::uint32_t*>(tCsD.addr(v)) =
              pack_pair(detail::from_float<U>(x0), detail::from_float<U>(x1));
        }
      }
      arch::sm90::fence_proxy_async_shared_cta();  // TMA (the async proxy) reads what ordinary stores wrote
      arch::named_barrier_sync(bar, TM::kThreads);
      if (issuer) {
        Tma::store(map_d, stage + (q % kBuffers) * kBufElems, tile_m, tile_n * kChunks + q);  // chunk q of tile (m, n)
        arch::sm90::bulk_commit_group();
      }
    }
  }
  /// Waits until the stores have completed (thread 0; the others return).
  __device__ static void finish(int t) {
    if (t == 0) arch::sm90::bulk_wait_group<0>();
  }

 private:
  /// C at value v's element, 0 outside D (where TMA drops the value anyway).
  template <class T, class View>
  __device__ static float c_at(const Params<T>& p, index_t tile_m, index_t tile_n, const View& tCcD, int v) {
    if (!tCcD.inside(v)) return 0.0f;
    const index_t at = tCcD.coord(v);
    const index_t i = tile_m * BM + coord_field(at, 0), j = tile_n * BN + coord_field(at, 1);
    return detail::to_float(static_cast<const U*>(p.c)[i * p.ldc + j]);
  }
};

}  // namespace tessel::gemm_kernels
