// tessel/kernels/gemm/fp8_mainloop.cuh — what an FP8 main loop adds to the
// 16-bit one (wgmma_mainloop.cuh): promotion of the tensor core's sums into
// fp32 registers with a batch kept in flight, and the scales (per tensor,
// per row of A and column of B, or per block: 1 x 128 of A, 128 x 128 of B).
// Block scales change every 128 elements of K, one FP8 k-tile, so they are
// applied where each k-tile's sum is promoted; the others are constant along
// K and multiply the unit's sum once, at its end.
#pragma once

#include <type_traits>

#include "tessel/kernels/gemm/split_k.cuh"
#include "tessel/kernels/gemm/wgmma_mainloop.cuh"

namespace tessel::gemm_kernels {

/// Thread t's value v of an accumulator X::FragC sits at row 64 (t / 128) +
/// 16 (t % 128 / 32) + (t % 32) / 4 + 8 ((v / 2) % 2), column 8 (v / 4) +
/// 2 (t % 4) + v % 2 (wgmma's fragment), so a thread's values span two rows:
/// checked for X's TiledMMA on the first warp of each warpgroup (the others differ by rows).
template <class X>
constexpr bool fp8_fragment_rows() {
  constexpr Layout c = X::TM::template kPartC<coord_layout(make_shape(X::kBM, X::kBN))>;
  constexpr int values = static_cast<int>(size(mode(c, 1)));
  for (int w = 0; w < X::kBM / 64; ++w)
    for (int l = 0; l < 32; ++l)
      for (int v = 0; v < values; ++v) {
        const auto at = StaticLayout<c>{}(128 * w + l, v);
        if (coord_field(at, 0) != 64 * w + l / 4 + 8 * ((v / 2) % 2) ||
            coord_field(at, 1) != 8 * (v / 4) + 2 * (l % 4) + v % 2)
          return false;
      }
  return true;
}

/// The row and column of thread t's value v in X's tile (see fp8_fragment_rows).
template <class X>
__device__ __forceinline__ auto fp8_value_coord(int t, int v) {
  constexpr Layout c = X::TM::template kPartC<coord_layout(make_shape(X::kBM, X::kBN))>;
  return StaticLayout<c>{}(t, v);
}

/// A promotion without scales: acc += part.
struct PlainPromotion {
  struct Factors {};
  __device__ Factors fetch(index_t) const { return {}; }
  template <class Frag>
  __device__ void add(Frag& acc, const Frag& part, const Factors&) const {
    TESSEL_UNROLL
    for (int i = 0; i < Frag::kValues; ++i) *acc.addr(i) += *part.addr(i);
  }
};

/// Block scales at promotion: k-tile kt's sum times A's scale of the row's
/// 128 elements of K and B's of the tile's 128 x 128 block (the tile is one
/// block of N wide: tiles 128 columns wide, unswapped).  A's scales of a
/// k-tile are M contiguous floats (a tile's 128 rows are 512 bytes), read
/// for the thread's two rows (those past M read row M - 1's: never
/// stored) two k-tiles ahead (consume_promoted).
template <class X>
struct BlockPromotion {
  static_assert(X::kBN == 128 && fp8_fragment_rows<X>(),
                "tessel: block scales take 128-wide tiles of wgmma's fragment");
  const float* a0;  // A's scale of the thread's first row in k-tile 0, one every `m` floats
  const float* a1;  // of its second row (8 below)
  const float* b;   // B's scales of the tile's block of N, one a k-tile
  index_t m;
  __device__ BlockPromotion(const Fp8Scales& s, index_t tile_m, index_t tile_n, index_t rows, int t) : m(rows) {
    const auto row = [&](int v) {
      const index_t r = tile_m * X::kBM + coord_field(fp8_value_coord<X>(t, v), 0);
      return r < rows ? r : rows - 1;
    };
    a0 = s.a + row(0);
    a1 = s.a + row(2);
    b = s.b + tile_n * s.k_blocks;
  }
  struct Factors {
    float a0, a1, b;
  };
  __device__ Factors fetch(index_t kt) const { return {__ldg(a0 + kt * m), __ldg(a1 + kt * m), __ldg(b + kt)}; }
  template <class Frag>
  __device__ void add(Frag& acc, const Frag& part, const Factors& f) const {
    const float s0 = f.a0 * f.b, s1 = f.a1 * f.b;
    TESSEL_UNROLL
    for (int i = 0; i < Frag::kValues; ++i) *acc.addr(i) = fmaf(*part.addr(i), (i / 2) % 2 ? s1 : s0, *acc.addr(i));
  }
};

/// consume() for FP8 with promotion: the tensor core's FP8 accumulator
/// keeps about 14 bits (docs/fp8.md), so each run of `interval` k-tiles
/// (0: the whole unit) sums its wgmmas into a part, starting from zero, and
/// the run's sum is then added to `acc` in fp32.  Within a run one batch
/// stays in flight as in consume().  Tiles whose three accumulators fit in
/// registers (64 values a thread: 128 x 128, 64 x 128 and the swapped ones;
/// kTwoParts) sum runs into two parts in turn and promote a run's sum once the next
/// run's first batch is issued, so that a batch stays in flight across the
/// promotion; the 128 x 192 sums into one part and waits for a run's last
/// batch before promoting it, where the other consumer warpgroup's batches
/// keep the tensor core busy.  `promote` adds a run's sum (PlainPromotion, or
/// BlockPromotion with its factors loaded two runs ahead: a k-tile's wgmmas
/// take about 300 ns, less than an L2 round trip under load; factors with
/// data take interval 1).
/// A run is a loop of its own, its first k-tile peeled: only that batch
/// overwrites its part (wgmma's scale-d false), so that every other batch
/// accumulates by a compile-time flag.  With one loop over k-tiles and a
/// run's start known only at run time, ptxas could not tell which wgmma
/// overwrites a part while a batch is in flight and waited for every batch
/// at the loop's back edge (C7517, WARPGROUP.DEPBAR.LE gsb0 0x0 each k-tile).
template <class X, bool TwoPartsFit = true, class Thr, class Promotion, class Release = ReleaseLocal>
__device__ __forceinline__ void consume_promoted(const typename X::Pipeline& pipe, typename X::Pipeline::State& read,
                                                 typename X::SharedStorage& shared, const Thr& thr_desc, int k_begin,
                                                 int k_end, typename X::FragC& acc, int lane, int interval,
                                                 const Promotion& promote, const Release& release = {}) {
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = typename X::TM;
  using Frag = typename X::FragC;  // (BN/2,1,1) f32
  using Factors = typename Promotion::Factors;
  constexpr int kRK = X::kBK / TM::kL.k;
  // Three accumulators of 64 values fit beside k13's state, but not with
  // block factors: the 64-row tile spilled 48 bytes, and at 128 rows ptxas
  // moved B's factor into a uniform register right after its load and waited
  // there every k-tile (0.78 of cuBLASLt's block mode against 0.82 with one
  // part).  TwoPartsFit: the kernel's own state leaves room (the grouped
  // kernel's with scales does not).
  constexpr bool kTwoParts = TwoPartsFit && Frag::kValues <= 64 && std::is_empty_v<Factors>;
  Frag part;  // a run's sum
  TESSEL_UNROLL
  for (int i = 0; i < Frag::kValues; ++i) *acc.addr(i) = 0.0f;
  const int run = interval > 0 ? interval : k_end - k_begin;
  // k-tile kt clamped into the unit (factors loaded past it are never used).
  const auto within = [&](index_t kt) { return kt < k_end ? kt : k_end > k_begin ? k_end - 1 : k_begin; };
  // The batch of the k-tile in `read`'s stage into `into`; Accumulate (a
  // compile-time flag) false: its first wgmma overwrites `into`.
  const auto issue = [&]<bool Accumulate>(Frag& into) {
    pipe.consumer_wait(read);
    const auto tCdA = thr_desc.partition_fragment_A(make_smem_tensor<OpA::kSmem>(shared.a[read.index()]));  // (1,1,4)
    const auto tCdB = thr_desc.partition_fragment_B(make_smem_tensor<OpB::kSmem>(shared.b[read.index()]));  // (1,1,4)
    warpgroup_fence_operand(into);
    warpgroup_arrive();
    TESSEL_UNROLL
    for (int k = 0; k < kRK; ++k) gemm(TM{}, tCdA(_, _, k), tCdB(_, _, k), into, Accumulate || k > 0);
    warpgroup_commit_batch();
  };
  // The rest of a run into `into` after its first batch: to k-tile `last`,
  // then past it (kt and read on the next run's first k-tile).
  const auto run_rest = [&](Frag& into, index_t& kt, index_t last) {
    while (kt < last) {
      ++kt;
      ++read;
      issue.template operator()<true>(into);
      warpgroup_wait<1>();  // k-tile kt-1's batch is done: its stage may be refilled
      warpgroup_fence_operand(into);
      release(pipe, read.previous(), lane);
    }
    ++kt;
    ++read;
  };
  const auto last_of = [&](index_t kt) { return (kt + run < k_end ? kt + run : k_end) - 1; };
  // The first two runs' factors; later ones are loaded two runs ahead.
  Factors f0 = promote.fetch(within(k_begin + run - 1));
  Factors f1 = promote.fetch(within(k_begin + 2 * run - 1));
  index_t kt = k_begin;
  if constexpr (kTwoParts) {
    Frag other;  // the part the run before sums into
    // A run from kt into `into`; Promotes: the run before it (in `done`, its
    // factors `f_done`) is promoted once this run's first batch is issued.
    const auto run_into = [&]<bool Promotes>(Frag& into, Frag& done, Factors& f_done) {
      const index_t last = last_of(kt);
      issue.template operator()<false>(into);
      if constexpr (Promotes) {
        warpgroup_wait<1>();  // the run before's last batch: `done` is its sum
        warpgroup_fence_operand(done);
        release(pipe, read.previous(), lane);
        promote.add(acc, done, f_done);
        f_done = promote.fetch(within(kt - 1 + 2 * run));
      }
      run_rest(into, kt, last);
    };
    // The last run's sum, once its last batch is done.
    const auto finish = [&](Frag& done, const Factors& f_done) {
      warpgroup_wait<0>();
      warpgroup_fence_operand(done);
      release(pipe, read.previous(), lane);
      promote.add(acc, done, f_done);
    };
    if (kt >= k_end) return;
    run_into.template operator()<false>(part, other, f1);
    while (true) {
      if (kt >= k_end) return finish(part, f0);
      run_into.template operator()<true>(other, part, f0);
      if (kt >= k_end) return finish(other, f1);
      run_into.template operator()<true>(part, other, f1);
    }
  } else {
    // One run from kt: its last batch waited for, then its sum promoted; `f`
    // holds the run's factors and is refilled with those two runs later.
    const auto run_once = [&](Factors& f) {
      const index_t last = last_of(kt);
      issue.template operator()<false>(part);
      run_rest(part, kt, last);
      warpgroup_wait<0>();  // the run's last batch: `part` is its sum
      warpgroup_fence_operand(part);
      release(pipe, read.previous(), lane);
      promote.add(acc, part, f);
      f = promote.fetch(within(kt - 1 + 2 * run));
    };
    if constexpr (std::is_empty_v<Factors>) {
      while (kt < k_end) run_once(f0);
    } else {
      // Factors that change by run (block scales: every k-tile): two sets
      // alternate, so neither is copied into the other.  A copy in a rolled
      // loop was placed between a k-tile's wgmmas and waited there for the load.
      while (kt < k_end) {
        run_once(f0);
        if (kt < k_end) run_once(f1);
      }
    }
  }
}

/// The per-tensor and per-channel scales, constant along K, on a unit's sum
/// (acc): times A's scale of the value's row and B's of its column, where a
/// tensor's scale is the same float for every row (a stride of 0; rows past
/// M and columns past N read the last one's: never stored).  `m`, `n`: the
/// problem's extents as the kernel sees them (the launcher swaps A's and
/// B's scales with A and B).  No branch on the mode: a second path through
/// the unit's registers made ptxas serialize the wgmmas.
/// A scale read after the main loop: a volatile load keeps the compiler from
/// hoisting it (its address is known from the start) above the wgmmas, where
/// a tile's worth of them held registers through the loop and spilled.
__device__ __forceinline__ float load_scale_late(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

template <class X>
__device__ __forceinline__ void apply_outer_scales(const Fp8Scales& s, typename X::FragC& acc, index_t tile_m,
                                                   index_t tile_n, index_t m, index_t n, int t) {
  static_assert(fp8_fragment_rows<X>(), "tessel: the scales take wgmma's fragment");
  const index_t step = s.mode == Fp8Scales::channel ? 1 : 0;
  const auto row_scale = [&](int v) {
    const index_t r = tile_m * X::kBM + coord_field(fp8_value_coord<X>(t, v), 0);
    return load_scale_late(s.a + (r < m ? r : m - 1) * step);
  };
  const float r0 = row_scale(0), r1 = row_scale(2);
  const index_t col0 = tile_n * X::kBN;
  TESSEL_UNROLL
  for (int j = 0; j < X::FragC::kValues / 4; ++j) TESSEL_UNROLL
  for (int h = 0; h < 2; ++h) {
    const index_t c = col0 + coord_field(fp8_value_coord<X>(t, 4 * j + h), 1);
    const float b = load_scale_late(s.b + (c < n ? c : n - 1) * step);
    *acc.addr(4 * j + h) *= r0 * b;
    *acc.addr(4 * j + h + 2) *= r1 * b;
  }
}

/// An FP8 unit's main loop, by the instance's scales (Scales, a
/// compile-time choice: one path through the unit's registers): none or
/// outer (per tensor or channel, at the unit's end) with the promotion the
/// launch chose (every `sk.promote` k-tiles, 0: at the unit's end; the
/// 128 x 256 tile sums in the tensor core), or block scales at every
/// k-tile's promotion.
template <class X, Fp8Scales::Mode Scales, bool TwoPartsFit = true, class Thr, class Release = ReleaseLocal>
__device__ __forceinline__ void consume_fp8(const typename X::Pipeline& pipe, typename X::Pipeline::State& read,
                                            typename X::SharedStorage& shared, const Thr& thr_desc,
                                            const blocks::WorkUnit& u, typename X::FragC& acc, int lane,
                                            const SplitK& sk, index_t m, index_t n, int t,
                                            const Release& release = {}) {
  const int kb = static_cast<int>(u.k_begin), ke = static_cast<int>(u.k_end);
  if constexpr (Scales == Fp8Scales::block) {
    consume_promoted<X, TwoPartsFit>(pipe, read, shared, thr_desc, kb, ke, acc, lane, 1,
                                     BlockPromotion<X>(sk.scales, u.tile.m, u.tile.n, m, t), release);
    return;
  } else if constexpr (!X::kPromotes) {
    consume<X>(pipe, read, shared, thr_desc, kb, ke, acc, lane, Nothing{}, Nothing{}, release);
  } else {
    consume_promoted<X, TwoPartsFit>(pipe, read, shared, thr_desc, kb, ke, acc, lane, sk.promote, PlainPromotion{},
                                     release);
  }
  if constexpr (Scales != Fp8Scales::none) apply_outer_scales<X>(sk.scales, acc, u.tile.m, u.tile.n, m, n, t);
}

}  // namespace tessel::gemm_kernels
