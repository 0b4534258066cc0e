// tessel/kernels/gemm/split_k.cuh — split K's reduction as an epilogue piece:
// each unit of a split tile writes its fp32 accumulators as a partial tile,
// counts itself in, and the last unit sums the partials in split order
// before the kernel's own epilogue stores the tile.  Taken by k13; any
// kernel whose consumers hold the tile as wgmma fp32 fragments can take it.
// Or, summed apart: the units write their partials into planes of D's shape
// and a second kernel, spread over the SMs, sums them and stores D.
#pragma once

#include "tessel/arch/common.hpp"
#include "tessel/core/config.hpp"
#include "tessel/gemm_types.hpp"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/common.cuh"
#include "tessel/tensor/tensor.hpp"

namespace tessel::gemm_kernels {

/// An FP8 call's scales as its kernel reads them (GemmArgs::fp8_scale,
/// fp8_mainloop.cuh): none; `a` and `b` one float each (tensor); M and N
/// floats (channel); or k_blocks x M and ceil(N/128) x k_blocks, row-major
/// (block: one per 128 elements of K of each row of A, one per 128 x 128
/// block of B), k_blocks = ceil(K / 128).
struct Fp8Scales {
  enum Mode : int { none = 0, tensor = 1, channel = 2, block = 3 };
  int mode = none;
  const float* a = nullptr;
  const float* b = nullptr;
  index_t k_blocks = 0;
};

/// Where split K keeps its partial tiles: `splits` fp32 (128 x BN) tiles per
/// split output tile, and one arrival counter per split output tile (zero
/// before the launch; the last unit of a tile sets it back to zero).  The
/// first `whole` tiles of the raster are not split (the full waves of a
/// hybrid schedule, blocks::SplitKScheduler): tile id's partials and counter
/// are at id - whole.
struct SplitK {
  int splits = 1;
  float* partials = nullptr;
  int* counters = nullptr;
  int whole = 0;
  /// Not split K's: the stages a CTA keeps in flight where the kernel lets the
  /// launch choose (k13's Config::kRuntimeDepth; 0: the tile's default), carried
  /// with the schedule's other run-time knobs so that the kernel's signature,
  /// which run-time compiled instances name, stays the same.
  int depth = 0;
  /// Nor is this: FP8's promotion interval, the k-tiles whose wgmmas sum in
  /// the tensor core before their sum is added to the fp32 accumulators
  /// (consume_promoted; 0: at the unit's end only).
  int promote = 0;
  /// Nor these: an FP8 call's scales (fp8_mainloop.cuh).
  Fp8Scales scales{};
  /// Split K inside clusters of this many CTAs (= splits; 0: through
  /// `partials`): the cluster's CTAs run one tile's splits and CTA 0 sums them
  /// from its shared memory (cluster_split_k.cuh); no partials, no counters.
  int cluster = 0;
  /// Split K summed apart (nonzero; whole = 0): every unit writes its partial
  /// tile into plane `split` of `partials`, `plane` floats each, element (i, j)
  /// of the kernel's problem at i * row_stride + j * col_stride (D's own
  /// orientation, padded to whole tiles: row_stride 1 where the problem is
  /// D^T), and a second kernel sums the planes (split_sum_group); no counters.
  index_t plane = 0;
  int row_stride = 0, col_stride = 0;
  /// The units' order (blocks::SplitOrder): inside a cluster a tile's splits
  /// are the cluster's CTAs; through global memory neighbouring CTAs take
  /// neighbouring tiles at the same k, whose reads the GPCs coalesce.
  TESSEL_HD blocks::SplitOrder order() const {
    return cluster > 1 ? blocks::SplitOrder::tile_major : blocks::SplitOrder::split_major;
  }
};

/// The planes' extents for split K summed apart: D's rows and columns padded
/// to whole tiles of the kernel's (tiles_m x tiles_n tiles of bm x bn; the
/// problem is D^T where `transposed`), so a unit writes its tile unchecked
/// past N.  C++ example: 100 x 300 on 64 x 128 tiles, 2 x 3 of them: planes
/// of 128 x 384, row_stride 384; transposed (D is 300 x 100): 384 x 128,
/// row_stride 1 and col_stride 128.
inline constexpr void set_apart(SplitK& sk, index_t tiles_m, index_t tiles_n, int bm, int bn, bool transposed) {
  const index_t rows = tiles_m * bm, cols = tiles_n * bn;  // the kernel's problem, padded
  sk.plane = rows * cols;
  sk.row_stride = transposed ? 1 : static_cast<int>(cols);
  sk.col_stride = transposed ? static_cast<int>(rows) : 1;
}
static_assert([] {
  SplitK a, t;
  set_apart(a, 2, 3, 64, 128, false);
  set_apart(t, 2, 3, 64, 128, true);
  return a.plane == 128 * 384 && a.row_stride == 384 && a.col_stride == 1 && t.row_stride == 1 && t.col_stride == 128;
}());

/// The tiles that compile split K summed apart (SplitKReduce's `Apart`): the
/// unfused 16-bit ones except the 128-row swapped-only tiles 80 and more wide,
/// which the plan runs unsplit and where the path's stores spilled (24-816
/// bytes from 144 columns up).
template <class X>
inline constexpr bool kServesApart =
    !X::kFused && X::kBK == 64 && !(X::kTransposed && !X::kTmaStore && X::kBM == 128 && X::kBN > 64);

/// Split K's side of the epilogue (splits > 1), for a kernel whose tile X
/// (kBM x kBN, FragC, kConsumerThreads) its consumers hold in fp32 and sync
/// on named barrier `Barrier`.  Every unit writes its accumulators to its own
/// partial tile, in the fragment's order so that a warp's writes are 256
/// contiguous bytes, except the rows at or below M (at M = 16 that is 7/8 of
/// the tile: small M is split K's main customer; columns are not checked:
/// values beyond N are never stored, and a check per value made k13 spill);
/// then thread 0 counts the unit in.  The last unit of a tile sums the
/// partials (read past L1: other SMs wrote them) and goes on to the
/// epilogue; the others are done with the tile.  The sum runs in split order,
/// ((p0 + p1) + p2) + ..., whichever unit arrived last (it reads its own
/// partial back where it is not split 0), so that a call's result does not
/// depend on timing: the same inputs give the same bits, as cuBLAS's do.
/// `Apart`: the kernel also serves split K summed apart (sk.plane nonzero):
/// each unit writes its partial into its plane and is done with the tile.
template <class X, int Barrier, bool Apart = false>
struct SplitKReduce {
  const SplitK& sk;
  int& ticket;

  template <class Coords>
  __device__ bool last_adds(const blocks::WorkUnit& u, typename X::FragC& acc, const Coords& tCcD, index_t rows_left,
                            int t) const {
    constexpr int kPairs = X::FragC::kValues / 2;
    // A pair's two values share a row: its row is field 0 of its packed coordinate.
    const auto row_in = [&](int q) { return coord_field(tCcD.coord(2 * q), 0) < rows_left; };
    if constexpr (Apart) {
      static_assert(detail::column_pairs<Coords::layout_type::kVals>(), "a pair is two neighbouring columns");
      if (sk.plane != 0) {
        // The plane's offsets fit in int (the launcher's check); the tile's origin and the plane's in index_t.
        float* tile =
            sk.partials + u.split * sk.plane + u.tile.m * X::kBM * sk.row_stride + u.tile.n * X::kBN * sk.col_stride;
        const auto each = [&](auto&& store) {
          TESSEL_UNROLL
          for (int q = 0; q < kPairs; ++q) {
            if (!row_in(q)) continue;
            const index_t at = tCcD.coord(2 * q);
            store(static_cast<int>(coord_field(at, 0)), static_cast<int>(coord_field(at, 1)), *acc.addr(2 * q),
                  *acc.addr(2 * q + 1));
          }
        };
        // Only the orientations the tile serves are compiled (as TileEpilogue: swapped-only tiles have no TMA store).
        if (X::kTransposed && (!X::kTmaStore || sk.col_stride != 1)) {
          if constexpr (X::kTransposed)  // D^T: a warp's 8 rows of a column are 32 contiguous bytes of D's row
            each([&](int i, int j, float x, float y) {
              tile[i + j * sk.col_stride] = x;
              tile[i + (j + 1) * sk.col_stride] = y;
            });
        } else if constexpr (X::kTmaStore) {  // a pair is two neighbours of a row: a warp writes 8 rows x 32 bytes
          each([&](int i, int j, float x, float y) {
            *reinterpret_cast<float2*>(tile + i * sk.row_stride + j) = make_float2(x, y);
          });
        }
        return false;
      }
    }
    constexpr index_t kTileFloats = index_t{X::kBM} * X::kBN;
    constexpr int kConsumerThreads = X::kConsumerThreads;
    const int slot = u.id - sk.whole;  // the tile among the split ones
    auto* mine = reinterpret_cast<float2*>(sk.partials + (slot * sk.splits + u.split) * kTileFloats);
    TESSEL_UNROLL
    for (int q = 0; q < kPairs; ++q)
      if (row_in(q)) mine[q * kConsumerThreads + t] = make_float2(*acc.addr(2 * q), *acc.addr(2 * q + 1));
    __threadfence();  // the partial is visible device-wide before the count says so
    arch::named_barrier_sync(Barrier, kConsumerThreads);
    if (t == 0) ticket = atomicAdd(sk.counters + slot, 1);
    arch::named_barrier_sync(Barrier, kConsumerThreads);
    if (ticket != sk.splits - 1) return false;
    __threadfence();  // the count seen: now the other units' partials
    // Each pass over the splits waits one L2 round trip, so a pass loads as
    // many partials as 32 pairs of registers hold: 16 for the swapped x 16
    // tiles (4 pairs a thread: one trip for up to 16 splits), 4 for x 32, 2 at
    // 64 x 64 and 128 x 64; one where a thread holds more than 16 pairs (two
    // in flight made 64 x 128, 128 x 128 and the FP8 tiles spill).
    constexpr int kAhead = split_sum_per_pass(kPairs);
    // Split 0's partial starts the sum: a unit that is split 0 holds it; any other replaces its own values with it.
    const bool have_p0 = u.split == 0;
    if constexpr (kAhead == 1) {
      const auto* base = reinterpret_cast<const float2*>(sk.partials + slot * sk.splits * kTileFloats) + t;
      if (!have_p0) {
        TESSEL_UNROLL
        for (int q = 0; q < kPairs; ++q)
          if (row_in(q)) {
            const float2 x = __ldcg(base + q * kConsumerThreads);
            *acc.addr(2 * q) = x.x;
            *acc.addr(2 * q + 1) = x.y;
          }
      }
      for (int s = 1; s < sk.splits; ++s) {
        const auto* part = base + s * (kTileFloats / 2);
        TESSEL_UNROLL
        for (int q = 0; q < kPairs; ++q)
          if (row_in(q)) {
            const float2 x = __ldcg(part + q * kConsumerThreads);
            *acc.addr(2 * q) += x.x;
            *acc.addr(2 * q + 1) += x.y;
          }
      }
    } else {
      for (int s0 = have_p0 ? 1 : 0; s0 < sk.splits; s0 += kAhead) {
        // A pass stops at the last split by a (uniform) branch, not by predicating off the
        // slots past it: at 2-4 splits those dead slots of 16 cost about as much as they save.
        const int n = sk.splits - s0 < kAhead ? sk.splits - s0 : kAhead;
        float2 x[kAhead][kPairs];
        TESSEL_UNROLL
        for (int j = 0; j < kAhead; ++j) {
          if (j == n) break;
          const auto* part = reinterpret_cast<const float2*>(sk.partials + (slot * sk.splits + s0 + j) * kTileFloats);
          TESSEL_UNROLL
          for (int q = 0; q < kPairs; ++q)
            if (row_in(q)) x[j][q] = __ldcg(part + q * kConsumerThreads + t);
        }
        TESSEL_UNROLL
        for (int j = 0; j < kAhead; ++j) {  // in split order
          if (j == n) break;
          // Split 0's partial starts the sum, tested once a pass (a test per pair compiled to a branch per pair).
          if (j == 0 && s0 == 0) {
            TESSEL_UNROLL
            for (int q = 0; q < kPairs; ++q)
              if (row_in(q)) {
                *acc.addr(2 * q) = x[0][q].x;
                *acc.addr(2 * q + 1) = x[0][q].y;
              }
          } else {
            TESSEL_UNROLL
            for (int q = 0; q < kPairs; ++q)
              if (row_in(q)) {
                *acc.addr(2 * q) += x[j][q].x;
                *acc.addr(2 * q + 1) += x[j][q].y;
              }
          }
        }
      }
    }
    if (t == 0) sk.counters[slot] = 0;  // ready for the next launch on this workspace
    return true;
  }
};

/// Split K summed apart, the second kernel's work for 8 consecutive elements
/// of a row of D (its row i, columns j..j+7, those below p.n): the planes'
/// values summed in split order, ((p0 + p1) + p2) + ..., as the last unit's
/// sum above adds them, then D = alpha x sum + beta x C in D's type
/// (store_as's arithmetic).  `p` is D's problem (m x n, never transposed);
/// the planes' rows are `ld` floats (a multiple of 16, so the loads are
/// 16-byte ones); they were written by another grid (read past L1).
/// `vector`: D's rows and base are 16-byte aligned, so a group without C
/// leaves in 16-byte stores.
template <class U, class T>
__device__ __forceinline__ void split_sum_group(const Params<T>& p, const float* partials, index_t plane, int ld,
                                                int splits, unsigned i, unsigned j, bool vector) {
  const float4* at = reinterpret_cast<const float4*>(partials + static_cast<index_t>(i) * ld + j);
  const index_t step = plane / 4;
  float4 lo = __ldcg(at), hi = __ldcg(at + 1);
#pragma unroll 4
  for (int s = 1; s < splits; ++s) {
    const float4 x = __ldcg(at + s * step), y = __ldcg(at + s * step + 1);
    lo.x += x.x, lo.y += x.y, lo.z += x.z, lo.w += x.w;
    hi.x += y.x, hi.y += y.y, hi.z += y.z, hi.w += y.w;
  }
  const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  if (vector && p.beta == 0.0f && j + 8 <= p.n) {
    const float alpha = alpha_of(p);
    alignas(16) U out[8];
    TESSEL_UNROLL
    for (int e = 0; e < 8; ++e) out[e] = detail::from_float<U>(alpha * v[e]);
    auto* d = reinterpret_cast<uint4*>(static_cast<U*>(p.d) + static_cast<index_t>(i) * p.ldd + j);
    TESSEL_UNROLL
    for (int w = 0; w < static_cast<int>(sizeof(out) / 16); ++w) d[w] = reinterpret_cast<const uint4*>(out)[w];
    return;
  }
  TESSEL_UNROLL
  for (int e = 0; e < 8; ++e)
    if (j + e < p.n) detail::store_as<U>(p, i, j + e, v[e]);
}

}  // namespace tessel::gemm_kernels
