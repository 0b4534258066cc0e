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
//
// Where TMA cannot describe D (a row of ldd x sizeof(U) bytes that is not a
// multiple of 16, a misaligned base: 4095 x 4095 in 16-bit), the same staged
// chunks leave through the consumers' own stores instead (`map_d` null): one
// warp per row of a chunk, each lane 4 bytes, so a warp store is one row's
// 128 contiguous bytes (two 2-byte stores per lane where the row starts on
// an odd element).  The register epilogue it replaces stores 4 bytes per
// lane from 8 rows at a time (k11's header) and, in 16-bit with an odd ldd,
// cannot use a 4-byte store on half of the rows: k13 took 323 us at 4095^3
// against 195 at 4096^3, of which the padded copies of A and B explain about
// 64 (docs/ladder.md, k13, has the measurement of this path).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "tessel/arch/common.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/atom/copy_sm90.hpp"
#include "tessel/core/pack.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels {

/// The epilogue of TiledMma TM's (BM,BN) accumulator tile for output type U,
/// staged through 2 x (BM x 128 bytes) of shared memory.  Threads: TM's.
/// `Parts`: a chunk leaves as Parts TMA boxes of BM / Parts rows (D's map
/// has that box): 2 lets each of k13's two consumer warpgroups store its own
/// 64 rows (the warpgroup form below); apply() stores every box.
template <class U, class TM, int BM, int BN, int Parts = 1>
struct TmaStoreEpilogue {
  /// A chunk's bytes a row: 128, or where the tile's width is no multiple of
  /// that (k13's tiles fitted to a thin N: 160 columns of 16-bit D), 64 or
  /// 32, with TMA's swizzle of that width.
  static constexpr int kChunkBytes = BN * static_cast<int>(sizeof(U)) % 128 == 0  ? 128
                                     : BN * static_cast<int>(sizeof(U)) % 64 == 0 ? 64
                                                                                  : 32;
  static constexpr int kChunkCols = kChunkBytes / static_cast<int>(sizeof(U));
  static constexpr int kChunks = BN / kChunkCols;
  static constexpr int kBufElems = BM * kChunkCols;
  /// Two buffers take the chunks in turn; an odd chunk count (BN = 192 in
  /// 16-bit: 3 chunks) gets one buffer per chunk, so that a value's buffer
  /// stays a layout of its column.
  static constexpr int kBuffers = kChunks % 2 == 0 ? 2 : kChunks;
  static constexpr int kSmemBytes = kBuffers * kBufElems * static_cast<int>(sizeof(U));  // 32 KB for BM = 128, BN = 256
  /// The chunk's swizzle in units of U, as TMA writes it: 128 bytes Sw<3,3,3> for 16-bit, Sw<3,2,3> for fp32;
  /// 64 bytes Sw<2,.,3>, 32 bytes Sw<1,.,3>.
  static constexpr Swizzle kSwizzle{kChunkBytes == 128 ? 3 : kChunkBytes == 64 ? 2 : 1, sizeof(U) == 2 ? 3 : 2, 3};
  /// One chunk, (BM, kChunkCols) of D, leaves from one staging buffer (rows
  /// of 128 bytes, swizzled) by TMA.
  using Tma = TmaTile<U, make_shape(BM, kChunkCols),
                      SwizzledLayout{kSwizzle, make_layout(make_shape(BM, kChunkCols), LayoutRight{})}, Parts>;
  static_assert(Tma::kBoxes == Parts, "tessel: a chunk leaves as Parts boxes");
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
  static_assert(BN % kChunkCols == 0, "tessel: the tile's columns leave in whole chunks of 32 bytes or more");
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
  /// Does every thread's value pair start on an even column of the tile?
  /// (k13's fused epilogue reads a pair's column bias as one float2.)
  static constexpr bool pairs_start_even() {
    const Layout thr = mode(kCoord, 0), val = mode(kCoord, 1);
    // column(t, v) = column(t, 0) + column offset of v (chunks_uniform): both even suffices.
    for (index_t t = 0; t < size(thr); ++t)
      if (coord_field(thr(t), 1) % 2 != 0) return false;
    for (index_t v = 0; v < size(val); v += 2)
      if (coord_field(val(v), 1) % 2 != 0) return false;
    return true;
  }
  static_assert(pairs_start_even(), "tessel: the accumulators' column pairs must start on even columns");

  /// D tile (tile_m, tile_n) = alpha * acc + beta * C.  Every thread of TM
  /// calls it (it synchronizes them with named barrier `bar`); thread 0
  /// issues the TMA stores, or, with `map_d` null, every thread stores its
  /// share of each staged chunk (store_chunk).  `stage` is kSmemBytes of
  /// 1024-byte aligned shared memory.  Call finish() before the kernel exits.
  ///
  /// The common path (beta = 0, TMA stores) is tested once, before the
  /// chunk loop, and gets a loop of its own: one straight run of machine
  /// code.  Tested inside the unrolled loop, every chunk's beta = 0 code sat
  /// between ~8 KB of C's code and the row stores', the consumers jumped
  /// over both at each chunk, and ncu's source counters put a third of
  /// k13's epilogue stalls on instruction fetch (no_inst; 128 x 256 at
  /// 4096^3).
  template <class T, class Frag>
  __device__ static void apply(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m, index_t tile_n,
                               const Frag& acc, U* stage, int t, int bar) {
    if (p.beta == 0.0f && map_d != nullptr)
      chunks<true>(map_d, p, tile_m, tile_n, acc, stage, t, bar);
    else
      chunks<false>(map_d, p, tile_m, tile_n, acc, stage, t, bar);
  }
  /// apply() with the values computed by the caller: for each value pair
  /// (v, v + 1) of a thread, `values(tCcD, v, x0, x1)` turns the
  /// accumulators x0, x1 into D's two values (the row and column of value v
  /// are tCcD.coord(v), and tCcD.inside() says which of the two are in D);
  /// then the same staging, TMA stores or row stores.  k13's run-time
  /// compiled fused instances use it (StaticEpilogueValues,
  /// fused_epilogue.cuh); apply() keeps its own loop, so that the plain
  /// kernels' machine code stays the code that was measured.
  template <class T, class Frag, class Values>
  __device__ static void apply_with(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m, index_t tile_n,
                                    const Frag& acc, U* stage, int t, int bar, const Values& values) {
    const auto tCsD =
        TM{}.get_slice(t).partition_C(make_smem_tensor<SwizzledLayout{kSwizzle, kStage}>(stage));  // staging
    const auto tCcD = TM{}.get_slice(t).partition_C(
        coord_tile<TileShape<BM, BN>>(p.m - tile_m * BM, p.n - tile_n * BN));  // (row, col)
    const bool issuer = t == 0;
    TESSEL_UNROLL
    for (int q = 0; q < kChunks; ++q) {
      if (issuer) arch::sm90::bulk_wait_group_read<kBuffers - 1>();
      arch::named_barrier_sync(bar, TM::kThreads);
      TESSEL_UNROLL
      for (int v = 0; v < kValues; v += 2) {
        if (chunk_of(v) != q) continue;
        float x0 = *acc.addr(v), x1 = *acc.addr(v + 1);
        values(tCcD, v, x0, x1);
        if constexpr (sizeof(U) == 4) {
          *reinterpret_cast<float2*>(tCsD.addr(v)) = make_float2(x0, x1);
        } else {
          *reinterpret_cast<std::uint32_t*>(tCsD.addr(v)) =
              pack_pair(detail::from_float<U>(x0), detail::from_float<U>(x1));
        }
      }
      if (map_d == nullptr) {
        arch::named_barrier_sync(bar, TM::kThreads);
        store_chunk(p, stage + (q % kBuffers) * kBufElems, tile_m, tile_n * kChunks + q, t);
        continue;
      }
      arch::sm90::fence_proxy_async_shared_cta();
      arch::named_barrier_sync(bar, TM::kThreads);
      if (issuer) {
        Tma::store(map_d, stage + (q % kBuffers) * kBufElems, tile_m, tile_n * kChunks + q);
        arch::sm90::bulk_commit_group();
      }
    }
  }
  // ---------------------------------------------------------------------
  // The warpgroup form (k13's 128 x 256 tile with 16-bit D, beta = 0 and TMA
  // stores; docs/ladder.md).  Each consumer warpgroup stages its
  // own 64 rows of a chunk with stmatrix (a warp's x4 stores four 8 x 8
  // blocks: 4 instructions a chunk where 32-bit stores take 16) and stores
  // them as its own TMA box (Parts = 2), so it synchronizes its own 128
  // threads (named barrier bar0 + its index) and never waits for the other
  // warpgroup.  A tile leaves in three calls:
  //   wg_store_first, right after the tile's last wgmma: the first kBuffers
  //     chunks staged and stored (their buffers were freed by wg_free, no
  //     wait), the later chunks packed into registers (Words);
  //   wg_free, while the next tile's first k-tile runs: waits until TMA has
  //     read the first chunks' buffers;
  //   wg_store_rest, while its second k-tile runs: stages and stores the
  //     later chunks;
  //   wg_free again, while its third k-tile runs, so that the next
  //     wg_store_first may write at once.
  // One step a k-tile: each fits in a k-tile's wgmmas (about 1000 SM
  // cycles at 128 x 256 x 64), so the next batch is issued in time.
  // The plain epilogue keeps the tensor cores idle through all of that,
  // including the wait for TMA's reads, with two 256-thread barriers a chunk.
  static constexpr int kWgRows = 64;
  static constexpr int kWarpgroups = BM / kWgRows;
  static constexpr int kChunkValues = kValues / kChunks;  // a thread's values in one chunk
  static constexpr int kDeferred = kChunks > kBuffers ? (kChunks - kBuffers) * kChunkValues / 2 : 1;  // words
  using Words = std::uint32_t[kDeferred];
  /// What the stmatrix staging assumes of TM's accumulators (wgmma's
  /// fragment): thread t's value v sits at row 64 (t / 128) + 16 (t % 128 /
  /// 32) + (t % 32) / 4 + 8 ((v / 2) % 2), column 8 (v / 4) + 2 (t % 4) + v % 2.
  /// Checked on the first warp of each warpgroup (the others differ by rows).
  static constexpr bool wgmma_fragment() {
    for (int w = 0; w < kWarpgroups; ++w)
      for (int l = 0; l < 32; ++l)
        for (int v = 0; v < kValues; ++v) {
          const auto c = StaticLayout<kCoord>{}(128 * w + l, v);
          if (coord_field(c, 0) != 64 * w + l / 4 + 8 * ((v / 2) % 2) ||
              coord_field(c, 1) != 8 * (v / 4) + 2 * (l % 4) + v % 2)
            return false;
        }
    return true;
  }

  /// D tile (tile_m, tile_n) = alpha * acc, the warpgroup form's first
  /// call: chunks [0, kBuffers) staged and stored, the others into `w`.
  /// Every thread of TM calls it; `stage` as apply()'s.
  template <class T, class Frag>
  __device__ __forceinline__ static void wg_store_first(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m,
                                                        index_t tile_n, const Frag& acc, U* stage, int t, int bar0,
                                                        Words& w) {
    static_assert(sizeof(U) == 2 && kChunks > kBuffers && Parts == kWarpgroups && TM::kThreads == 128 * kWarpgroups &&
                      wgmma_fragment() && stmatrix_offsets(),
                  "tessel: the warpgroup epilogue takes 16-bit D from wgmma's fragment, one box per warpgroup");
    // alpha = 1, the common call, as code of its own: a select per value
    // (what nvcc made of one loop for both) costs more than the multiply.
    if (alpha_of(p) == 1.0f)
      wg_first<true>(map_d, p, tile_m, tile_n, acc, stage, t, bar0, w);
    else
      wg_first<false>(map_d, p, tile_m, tile_n, acc, stage, t, bar0, w);
  }
  /// The chunks after the first kBuffers, from wg_store_first's words; the
  /// buffers must be free (wg_free since wg_store_first).
  __device__ __forceinline__ static void wg_store_rest(const CUtensorMap* map_d, index_t tile_m, index_t tile_n,
                                                       const Words& w, U* stage, int t, int bar0) {
    stmatrix_chunks<kBuffers, kChunks>(stage, t, [&](int v) { return w[(v - kBuffers * kChunkValues) / 2]; });
    arch::sm90::fence_proxy_async_shared_cta();
    arch::named_barrier_sync(bar0 + t / 128, 128);
    if (t % 128 == 0) {
      TESSEL_UNROLL
      for (int q = kBuffers; q < kChunks; ++q)
        Tma::store_part(map_d, stage + (q % kBuffers) * kBufElems, t / 128, tile_m, tile_n * kChunks + q);
      arch::sm90::bulk_commit_group();
    }
  }
  /// The warpgroup's staging buffers are free: its issuing thread
  /// waits until TMA has read them, then the warpgroup meets.
  __device__ __forceinline__ static void wg_free(int t, int bar0) {
    if (t % 128 == 0) arch::sm90::bulk_wait_group_read<0>();
    arch::named_barrier_sync(bar0 + t / 128, 128);
  }

 private:
  /// wg_store_first with alpha = 1 known (kOne) or applied.
  template <bool kOne, class T, class Frag>
  __device__ __forceinline__ static void wg_first(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m,
                                                  index_t tile_n, const Frag& acc, U* stage, int t, int bar0,
                                                  Words& w) {
    const float s_alpha = kOne ? 1.0f : alpha_of(p);
    const auto word = [&](int v) {
      const float x0 = kOne ? *acc.addr(v) : s_alpha * *acc.addr(v);
      const float x1 = kOne ? *acc.addr(v + 1) : s_alpha * *acc.addr(v + 1);
      return pack_pair(detail::from_float<U>(x0), detail::from_float<U>(x1));
    };
    stmatrix_chunks<0, kBuffers>(stage, t, word);
    arch::sm90::fence_proxy_async_shared_cta();  // TMA (the async proxy) reads what stmatrix wrote
    arch::named_barrier_sync(bar0 + t / 128, 128);
    if (t % 128 == 0) {
      TESSEL_UNROLL
      for (int q = 0; q < kBuffers; ++q)
        Tma::store_part(map_d, stage + q * kBufElems, t / 128, tile_m, tile_n * kChunks + q);  // chunk q, our rows
      arch::sm90::bulk_commit_group();
    }
    TESSEL_UNROLL
    for (int v = kBuffers * kChunkValues; v < kValues; v += 2) w[(v - kBuffers * kChunkValues) / 2] = word(v);
  }
  /// Chunks [Q0, Q1)'s values of thread t, word(v) for the pair (v, v + 1),
  /// into their buffers by stmatrix x4: a warp's 16 rows by 16 columns at a
  /// time.  Its registers are the words of 8-column groups g, g + 1, rows r
  /// and r + 8 (values 4g, 4g + 2, 4g + 4, 4g + 6: wgmma_fragment()), and
  /// lane l names the row of block l / 8 that lane 4 (l % 8) holds at the
  /// block's first column: that lane's value 4 (g + l / 16) + 2 ((l / 8) % 2).
  /// The lane's address for chunk q and group g (8 per chunk) is its address
  /// for chunk 0, group 0, plus q's buffer, with the 16-byte granule index
  /// XOR-ed with g % 8 (stmatrix_offsets(); the staging is 1024-byte
  /// aligned, so the XOR meets only the granule bits): one add and one XOR with
  /// constants per store, where evaluating the partition for each took ~40
  /// instructions, all run once per CTA from a cold instruction cache.
  /// Chunks and groups are template arguments, so that every word index is
  /// a constant (an index the compiler cannot fold puts the words in local
  /// memory).
  template <int Q0, int Q1, class Word>
  __device__ __forceinline__ static void stmatrix_chunks(U* stage, int t, const Word& word) {
    const std::uint32_t base = stmatrix_base(stage, t);
    constexpr int kStores = kChunkCols / 16;  // x4 stores per chunk
    [&]<int... I>(std::integer_sequence<int, I...>) {
      (
          [&] {
            constexpr int q = Q0 + I / kStores, g = 2 * (I % kStores), v = 4 * (q * kChunkCols / 8 + g);
            constexpr std::uint32_t buf = (q % kBuffers) * kBufElems * sizeof(U), granules = g * 16;
            arch::sm90::stmatrix_x4((base + buf) ^ granules, word(v), word(v + 2), word(v + 4), word(v + 6));
          }(),
          ...);
    }
    (std::make_integer_sequence<int, (Q1 - Q0) * kStores>{});
  }
  /// Thread t's stmatrix row address for chunk 0, group 0 (see stmatrix_chunks).
  __device__ __forceinline__ static std::uint32_t stmatrix_base(U* stage, int t) {
    const int lane = t % 32;
    const auto tLsD = TM{}.get_slice((t & ~31) + 4 * (lane % 8))
                          .partition_C(make_smem_tensor<SwizzledLayout{kSwizzle, kStage}>(stage));  // staging
    return arch::smem_addr(tLsD.addr(4 * (lane / 16) + 2 * ((lane / 8) % 2)));
  }
  /// stmatrix_chunks's addresses, checked on the layouts for every lane of
  /// every warp: element offset of (thread t', value 4 (8q + g) + dv) = (that
  /// of (t', dv) + q's buffer) XOR 8g (16 bytes a granule in 16-bit).
  static constexpr bool stmatrix_offsets() {
    for (int t = 0; t < TM::kThreads; ++t) {
      const int lane = t % 32, tp = (t & ~31) + 4 * (lane % 8), dv = 4 * (lane / 16) + 2 * ((lane / 8) % 2);
      const index_t base = kSwizzle(StaticLayout<kPart>{}(tp, dv));
      for (int q = 0; q < kChunks; ++q)
        for (int g = 0; g < kChunkCols / 8; g += 2)
          if (kSwizzle(StaticLayout<kPart>{}(tp, 4 * (q * kChunkCols / 8 + g) + dv)) !=
              ((base + (q % kBuffers) * kBufElems) ^ (8 * g)))
            return false;
    }
    return true;
  }

 public:
  /// Before the kernel exits: waits until the stores have read their staging
  /// buffers (thread 0; the others return), so that the CTA's shared memory
  /// may go to the next CTA.  Their global writes need no wait: the end of
  /// the kernel makes them visible to what runs after it.  Waiting for the
  /// writes too (bulk_wait_group<0>) kept each CTA of a small problem about
  /// 700 SM cycles longer (H100, k13's 64 x 128 tile at 1024^3).
  __device__ static void finish(int t) {
    if (t == 0) arch::sm90::bulk_wait_group_read<0>();
  }

  /// Asks L2 for the lines of C's (BM, BN) tile (tile_m, tile_n) inside D:
  /// thread t of `threads` one line of a row at a time.  Called before the
  /// tile's main loop, so that apply()'s loads of C, after it, find the
  /// lines in L2 rather than wait for DRAM.  A row of BN values covers
  /// BN * sizeof(U) / 128 lines, one more where it does not start on a line.
  template <class T>
  __device__ static void prefetch_c(const Params<T>& p, index_t tile_m, index_t tile_n, int t, int threads) {
    constexpr int kLines = BN * static_cast<int>(sizeof(U)) / 128 + 1;
    const index_t rows = p.m - tile_m * BM, cols = p.n - tile_n * BN;
    const int row_end = rows < BM ? static_cast<int>(rows) : BM;
    const index_t last_col = (cols < BN ? cols : index_t{BN}) - 1;
    for (int x = t; x < row_end * kLines; x += threads) {
      const int r = x / kLines, l = x % kLines;
      const U* row = static_cast<const U*>(p.c) + (tile_m * BM + r) * p.ldc + tile_n * BN;
      const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(row) & ~std::uintptr_t{127};
      const std::uintptr_t line = first + 128u * static_cast<unsigned>(l);
      if (line <= reinterpret_cast<std::uintptr_t>(row + last_col))
        arch::prefetch_l2(reinterpret_cast<const void*>(line));
    }
  }

 private:
  /// apply()'s chunk loop: kCommon, beta = 0 and TMA stores known; else beta
  /// and `map_d` tested at each chunk (C's loads, the row stores).
  template <bool kCommon, class T, class Frag>
  __device__ __forceinline__ static void chunks(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m,
                                                index_t tile_n, const Frag& acc, U* stage, int t, int bar) {
    const auto tCsD =
        TM{}.get_slice(t).partition_C(make_smem_tensor<SwizzledLayout{kSwizzle, kStage}>(stage));  // staging
    const auto tCcD = TM{}.get_slice(t).partition_C(
        coord_tile<TileShape<BM, BN>>(p.m - tile_m * BM, p.n - tile_n * BN));  // (row, col)
    const bool issuer = t == 0;
    const float s_alpha = alpha_of(p), s_beta = kCommon ? 0.0f : beta_of(p);
    TESSEL_UNROLL
    for (int q = 0; q < kChunks; ++q) {
      // The buffer's previous chunk (kBuffers stores ago, maybe of the previous tile) must have been read.
      if (issuer) arch::sm90::bulk_wait_group_read<kBuffers - 1>();
      arch::named_barrier_sync(bar, TM::kThreads);
      // One pair of D's values into the staging buffer.
      const auto stage_pair = [&](int v, float x0, float x1) {
        if constexpr (sizeof(U) == 4) {
          *reinterpret_cast<float2*>(tCsD.addr(v)) = make_float2(x0, x1);
        } else {
          *reinterpret_cast<std::uint32_t*>(tCsD.addr(v)) =
              pack_pair(detail::from_float<U>(x0), detail::from_float<U>(x1));
        }
      };
      // beta is tested once per chunk, outside the unrolled loop: tested per
      // pair, it wrapped each pair in a divergent block of its own (BSSY /
      // BSYNC, 113 in k13's batched kernel) even where beta is 0.
      if (!kCommon && p.beta != 0.0f) {
        // All of the chunk's C values are loaded before any is used.  In one
        // loop with the staging stores, each load came after a store that
        // the compiler cannot tell apart from C (both through generic
        // pointers), so the loads ran one latency at a time: 1000^3 with
        // beta = 1 took twice the time of beta = 0.
        CPair c[kChunkPairs];
        TESSEL_UNROLL
        for (int i = 0; i < kChunkPairs; ++i) c[i] = c_pair(p, tile_m, tile_n, tCcD, pair_value(q, i));
        TESSEL_UNROLL
        for (int i = 0; i < kChunkPairs; ++i) {
          const int v = pair_value(q, i);
          float c0 = 0.0f, c1 = 0.0f;
          unpack_c(c[i], c0, c1);
          stage_pair(v, s_alpha * *acc.addr(v) + s_beta * c0, s_alpha * *acc.addr(v + 1) + s_beta * c1);
        }
      } else {
        TESSEL_UNROLL
        for (int v = 0; v < kValues; v += 2) {
          if (chunk_of(v) != q) continue;
          stage_pair(v, s_alpha * *acc.addr(v), s_alpha * *acc.addr(v + 1));
        }
      }
      if (!kCommon && map_d == nullptr) {
        // The buffer is rewritten kBuffers chunks later, after the barrier
        // at the top of this loop that every thread reaches only once its
        // stores of this chunk are issued.
        arch::named_barrier_sync(bar, TM::kThreads);
        store_chunk(p, stage + (q % kBuffers) * kBufElems, tile_m, tile_n * kChunks + q, t);
        continue;
      }
      arch::sm90::fence_proxy_async_shared_cta();  // TMA (the async proxy) reads what ordinary stores wrote
      arch::named_barrier_sync(bar, TM::kThreads);
      if (issuer) {
        Tma::store(map_d, stage + (q % kBuffers) * kBufElems, tile_m, tile_n * kChunks + q);  // chunk q of tile (m, n)
        arch::sm90::bulk_commit_group();
      }
    }
  }

  /// Chunk `chunk` (columns [chunk * kChunkCols, +kChunkCols) of D) of row
  /// tile `tile_m`, from staging buffer `buf` to D by the threads of TM: a
  /// warp takes kRowsPerWarp rows at a time (one for 128-byte chunks), each
  /// lane 4 bytes of one (the swizzle moves 16-byte granules, so a lane's 4
  /// bytes stay together and a warp reads 128 contiguous bytes of the
  /// staging: no bank conflicts).  Elements outside D are not written.
  template <class T>
  __device__ static void store_chunk(const Params<T>& p, const U* buf, index_t tile_m, index_t chunk, int t) {
    constexpr int kWarps = TM::kThreads / 32;
    constexpr int kPerLane = 4 / static_cast<int>(sizeof(U));  // elements in a lane's 4 bytes
    constexpr int kLanesPerRow = kChunkBytes / 4, kRowsPerWarp = 32 / kLanesPerRow;
    constexpr Swizzle swizzle = kSwizzle;  // a local copy: device code cannot use the static member's address
    const int warp = t / 32, lane = t % 32 % kLanesPerRow, first = warp * kRowsPerWarp + t % 32 / kLanesPerRow;
    const index_t j = chunk * kChunkCols + lane * kPerLane;  // the lane's first column of D
    if (j >= p.n) return;
    const bool pair_inside = kPerLane == 1 || j + 1 < p.n;
    const index_t rows = p.m - tile_m * BM < BM ? p.m - tile_m * BM : BM;
    U* dst = static_cast<U*>(p.d) + (tile_m * BM + first) * p.ldd + j;
    const index_t step = kWarps * kRowsPerWarp * p.ldd;
    // Not unrolled: the accumulators hold most of the registers meanwhile.
#pragma unroll 1
    for (int r = first; r < rows; r += kWarps * kRowsPerWarp, dst += step) {
      const U* src = buf + swizzle(r * kChunkCols + lane * kPerLane);
      if constexpr (kPerLane == 1) {
        *dst = *src;
      } else if (pair_inside && reinterpret_cast<std::uintptr_t>(dst) % 4 == 0) {
        *reinterpret_cast<std::uint32_t*>(dst) = *reinterpret_cast<const std::uint32_t*>(src);
      } else {
        dst[0] = src[0];
        if (pair_inside) dst[1] = src[1];
      }
    }
  }

  /// The value index v of the i-th value pair of chunk q (v, v + 1 are a
  /// pair of neighbouring columns).
  static constexpr int kChunkPairs = kValues / 2 / kChunks;  // a thread's value pairs per chunk
  /// pair_value's answers, computed once per epilogue type by the front end.
  /// apply() calls pair_value(q, i) inside unrolled loops, where q and i are
  /// not constant expressions: as a search over the thread's values, nvcc
  /// folded that search at every unrolled (chunk, pair), and it took about
  /// half of every TMA-store kernel's compile time (k13's 128 x 256
  /// unit 165 s of CPU, 71 s with the table; the machine code is the same).
  struct PairTable {
    int v[kChunks][kChunkPairs > 0 ? kChunkPairs : 1];
  };
  static constexpr PairTable pair_table() {
    PairTable table{};
    for (int q = 0; q < kChunks; ++q) {
      int i = 0;
      for (int v = 0; v < kValues; v += 2)
        if (chunk_of(v) == q && i < kChunkPairs) table.v[q][i++] = v;
      for (; i < kChunkPairs; ++i) table.v[q][i] = -1;
    }
    return table;
  }
  static constexpr int pair_value(int q, int i) {
    constexpr PairTable kTable = pair_table();
    return kTable.v[q][i];
  }
  static_assert(kChunkPairs * 2 * kChunks == kValues && pair_value(kChunks - 1, kChunkPairs - 1) >= 0,
                "tessel: every chunk holds the same count of a thread's value pairs");
  /// A pair of C's neighbouring values, packed as they were stored: two
  /// 16-bit values in one word (half the registers of two floats), or two
  /// floats.
  using CPair = std::conditional_t<sizeof(U) == 4, float2, std::uint32_t>;
  /// C at value v's element and the next column's, 0 outside D (where TMA
  /// drops the value anyway), one 16-bit (or fp32) load each.  One load per
  /// pair where the pair's address allows it spilled 8 bytes in the
  /// 128 x 256 kernel, whether the alignment was tested per
  /// pair or once per tile.
  template <class T, class View>
  __device__ __forceinline__ static CPair c_pair(const Params<T>& p, index_t tile_m, index_t tile_n, const View& tCcD,
                                                 int v) {
    const bool in0 = tCcD.inside(v), in1 = tCcD.inside(v + 1);
    const index_t at = tCcD.coord(v);
    const U* cp =
        static_cast<const U*>(p.c) + (tile_m * BM + coord_field(at, 0)) * p.ldc + tile_n * BN + coord_field(at, 1);
    const U lo = in0 ? cp[0] : detail::from_float<U>(0.0f), hi = in1 ? cp[1] : detail::from_float<U>(0.0f);
    if constexpr (sizeof(U) == 4) {
      return make_float2(lo, hi);
    } else {
      return pack_pair(lo, hi);
    }
  }
  /// The pair's two values as floats.
  __device__ __forceinline__ static void unpack_c(const CPair& c, float& c0, float& c1) {
    if constexpr (sizeof(U) == 4) {
      c0 = c.x;
      c1 = c.y;
    } else {
      U lo, hi;
      unpack_pair(c, lo, hi);
      c0 = detail::to_float(lo);
      c1 = detail::to_float(hi);
    }
  }
};

/// The epilogue of a swapped problem's (BM,BN) tile: the kernel computed
/// D^T = B^T A^T, so its accumulator (i, j) is D(j, i) and the tile's BN
/// columns are BN rows of D.  The values are staged as D's rows (chunk q:
/// BN rows of D by 128 bytes of its columns, tile rows [q * kChunkRows,
/// +kChunkRows)), swizzled as TMA reads them, and leave by one TMA store per
/// chunk through D's own map (rows M, columns N: the launcher's
/// d_store_map with `transposed`).  beta = 0 only: C would be read
/// transposed, one scattered load per value, which stays with
/// epilogue_registers_transposed.
///
/// Why: the register epilogue stores one element per instruction (a warp
/// writes 16 bytes into each of 4 rows of D), and at M = 64 its stores took
/// 3060 SM cycles per CTA against 1050 for the TMA-store epilogue of the
/// unswapped 128 x 64 tile (in-kernel clock stamps; docs/heuristics.md,
/// rule 4b); here each value is one 2- or 4-byte store into shared memory,
/// a warp's 32 lanes writing 4 rows of 16 contiguous bytes that the swizzle
/// puts in 4 different bank groups (no conflicts), and TMA writes whole
/// 128-byte rows of D.
template <class U, class TM, int BM, int BN>
struct TmaStoreEpilogueTransposed {
  static constexpr int kChunkRows = 128 / static_cast<int>(sizeof(U));  // tile rows per chunk: 128 bytes of a row of D
  static_assert(BM % kChunkRows == 0, "tessel: the tile's rows leave in whole 128-byte chunks of D's rows");
  static constexpr int kChunks = BM / kChunkRows;
  static constexpr int kBufElems = BN * kChunkRows;
  static constexpr int kSmemBytes = kChunks * kBufElems * static_cast<int>(sizeof(U));  // BM x BN values
  static constexpr Swizzle kSwizzle{3, sizeof(U) == 2 ? 3 : 2, 3};  // TmaStoreEpilogue's, as TMA writes it
  /// One chunk, (BN, kChunkRows) of D (rows of 128 bytes, swizzled), one TMA box.
  using Tma = TmaTile<U, make_shape(BN, kChunkRows),
                      SwizzledLayout{kSwizzle, make_layout(make_shape(BN, kChunkRows), LayoutRight{})}>;
  /// Tile element (i, j) -> staging element: chunk i / kChunkRows, its row j,
  /// column i % kChunkRows.  Example (bf16, BM = 64, BN = 64): ((64,1),64):((1,4096),64).
  static constexpr Layout kStage =
      make_layout(make_shape(make_shape(kChunkRows, kChunks), BN), make_stride(make_stride(1, kBufElems), kChunkRows));
  static_assert(kBufElems * static_cast<int>(sizeof(U)) % 1024 == 0,
                "tessel: each chunk's buffer starts on a 1024-byte boundary (the swizzle's period)");

  /// D's tile (tile_m, tile_n) of the swapped problem `p` (D(j, i) =
  /// alpha * acc(i, j); p.beta must be 0).  Every thread of TM calls it (named
  /// barrier `bar`); thread 0 issues the TMA stores.  `stage` is kSmemBytes
  /// of 1024-byte aligned shared memory.  Call TmaStoreEpilogue::finish's
  /// wait (bulk_wait_group_read<0>) before the kernel exits.
  template <class T, class Frag>
  __device__ static void apply(const CUtensorMap* map_d, const Params<T>& p, index_t tile_m, index_t tile_n,
                               const Frag& acc, U* stage, int t, int bar) {
    const auto tCsD =
        TM{}.get_slice(t).partition_C(make_smem_tensor<SwizzledLayout{kSwizzle, kStage}>(stage));  // staging
    const bool issuer = t == 0;
    // The previous tile's stores (issued a whole main loop ago) have read the buffers.
    if (issuer) arch::sm90::bulk_wait_group_read<0>();
    arch::named_barrier_sync(bar, TM::kThreads);
    const float s_alpha = alpha_of(p);
    TESSEL_UNROLL
    for (int v = 0; v < Frag::kValues; ++v) *tCsD.addr(v) = detail::from_float<U>(s_alpha * *acc.addr(v));
    arch::sm90::fence_proxy_async_shared_cta();  // TMA (the async proxy) reads what ordinary stores wrote
    arch::named_barrier_sync(bar, TM::kThreads);
    if (issuer) {
      TESSEL_UNROLL
      for (int q = 0; q < kChunks; ++q)
        Tma::store(map_d, stage + q * kBufElems, tile_n, tile_m * kChunks + q);  // D's rows of tile n, columns chunk q
      arch::sm90::bulk_commit_group();
    }
  }
};

}  // namespace tessel::gemm_kernels
