// tessel/kernels/blocks/tile_scheduler.hpp — which output tile a CTA works
// on next.  A persistent kernel asks `next(tile)` until it says no; the
// order in which tiles are handed out (the raster) decides how well the
// operands that neighbouring CTAs read are shared in L2.
#pragma once

#include <type_traits>

#include "tessel/core/config.hpp"

namespace tessel::blocks {

/// Linear tile index -> (tile row, tile column), in groups of G tile rows:
/// inside a group, consecutive indices go down a column of the group, then to
/// the next column; the last group may be shorter.  So the CTAs resident at
/// one time cover a squarer patch of D than a row-by-row order would, and
/// each row band of A and column band of B they read is reused from L2.
/// C++ example: tiles (4, 3), G = 2: indices 0..5 -> (0,0) (1,0) (0,1) (1,1) (0,2) (1,2), then 6.. -> (2,0) (3,0) ...
template <int G>
struct GroupedRaster {
  static_assert(G >= 1, "a group has at least one tile row");
  // I (deduced from the outputs): index_t, or int where the caller has
  // checked that the tiles fit (fewer registers and cheaper divisions in a
  // kernel).
  template <class I>
  TESSEL_HD static void tile_of(std::type_identity_t<I> b, std::type_identity_t<I> tiles_m,
                                std::type_identity_t<I> tiles_n, I& tm, I& tn) {
    const I per_group = I{G} * tiles_n;
    const I first_m = (b / per_group) * G;
    const I rows = tiles_m - first_m < G ? tiles_m - first_m : I{G};  // the last group may be short
    const I in_group = b % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
  }
};

/// GroupedRaster with the group's tile rows `g` (>= 1) chosen at run time:
/// the best group depends on the tile's shape and the SM count (concurrent
/// tiles covering g tile rows by SMs / g tile columns read the fewest
/// operand bytes per wave; docs/heuristics.md, rule 6), which a kernel's
/// template does not know.  The same divisions as GroupedRaster<G> (its
/// group size is a run-time product with tiles_n there too).
/// C++ example: GroupedRasterN{2}.tile_of(6, 4, 3, tm, tn) gives (2, 0), as GroupedRaster<2>.
struct GroupedRasterN {
  int g = 8;
  template <class I>
  TESSEL_HD void tile_of(std::type_identity_t<I> b, std::type_identity_t<I> tiles_m, std::type_identity_t<I> tiles_n,
                         I& tm, I& tn) const {
    // A group of more rows than there are is all the rows (the same order):
    // so group x tiles_n stays within the tiles and cannot wrap in 32 bits.
    const I group = static_cast<I>(g) < tiles_m ? static_cast<I>(g) : tiles_m;
    const I per_group = group * tiles_n;
    const I first_m = (b / per_group) * group;
    const I rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const I in_group = b % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
  }
};

/// Unit `u` of a strided batch with tiles_m x tiles_n tiles a batch (the
/// batches outermost) -> its batch and its tile, the tiles of one batch in
/// GroupedRasterN{group} order.  Unsigned: the batched kernels' launchers
/// bound the units to 31 bits, and unsigned divisions need no sign fix-ups.
/// C++ example: tiles (2, 2), group 8: unit 7 -> batch 1, tile (1, 1); unit 1 -> batch 0, tile (1, 0).
TESSEL_HD inline void batched_tile_of(unsigned u, unsigned tiles_m, unsigned tiles_n, int group, unsigned& batch,
                                      unsigned& tm, unsigned& tn) {
  const unsigned per_batch = tiles_m * tiles_n;
  batch = u / per_batch;
  GroupedRasterN{group}.tile_of(u - batch * per_batch, tiles_m, tiles_n, tm, tn);
}

/// Division by a divisor fixed for a launch, as one 32 x 32 -> 64-bit
/// multiply and a shift: for d >= 1 and every n < 2^31,
/// n / d == (n * mul) >> shift with shift = 31 + ceil(log2 d) and
/// mul = ceil(2^shift / d) (< 2^32).  Exact: n * mul / 2^shift exceeds n / d
/// by less than n / 2^shift < 2^-ceil(log2 d) <= 1 / d, which cannot reach
/// the next integer.  Made on the host (a division there), used where a
/// kernel's dependent divisions by run-time values sit on its way to a
/// unit (an unsigned division is ~20 instructions through MUFU.RCP).
/// C++ example: UnsignedDivisor{3}.div(7) == 2, UnsignedDivisor{1}.div(5) == 5.
struct UnsignedDivisor {
  unsigned d = 1, mul = 1u << 31, shift = 31;
  UnsignedDivisor() = default;
  TESSEL_HD constexpr explicit UnsignedDivisor(unsigned divisor) : d(divisor) {
    unsigned l = 0;
    while ((1ull << l) < divisor) ++l;
    shift = 31 + l;
    mul = static_cast<unsigned>(((1ull << shift) + divisor - 1) / divisor);
  }
  TESSEL_HD constexpr unsigned div(unsigned n) const {
    return static_cast<unsigned>((static_cast<unsigned long long>(n) * mul) >> shift);
  }
};

/// batched_tile_of with its divisors made once (UnsignedDivisor): the batch's
/// tiles, the raster group's tiles (group x tiles_n) and the group's rows,
/// full and last.  Units below 2^31 (the launchers' bound).
/// C++ example: BatchRaster(2, 2, 8).unit(7, b, tm, tn) gives batch 1, tile (1, 1), as batched_tile_of.
struct BatchRaster {
  UnsignedDivisor per_batch, per_group, rows_full, rows_last;
  unsigned tiles_m = 1, group = 1;
  BatchRaster() = default;
  TESSEL_HD constexpr BatchRaster(unsigned tiles_m_, unsigned tiles_n, int group_)
      : BatchRaster(tiles_m_, tiles_n, clamp(tiles_m_, group_), 0) {}
  TESSEL_HD constexpr void unit(unsigned u, unsigned& batch, unsigned& tm, unsigned& tn) const {
    batch = per_batch.div(u);
    const unsigned b = u - batch * per_batch.d;
    const unsigned g = per_group.div(b);
    const unsigned first_m = g * group, in_group = b - g * per_group.d;
    const UnsignedDivisor& rows = tiles_m - first_m < group ? rows_last : rows_full;
    const unsigned q = rows.div(in_group);
    tm = first_m + (in_group - q * rows.d);
    tn = q;
  }

 private:
  // A group at most the batch's tile rows, as GroupedRasterN takes it.
  TESSEL_HD static constexpr unsigned clamp(unsigned tiles_m_, int group_) {
    return static_cast<unsigned>(group_) < tiles_m_ ? static_cast<unsigned>(group_) : tiles_m_;
  }
  TESSEL_HD constexpr BatchRaster(unsigned tiles_m_, unsigned tiles_n, unsigned g, int)
      : per_batch(tiles_m_ * tiles_n),
        per_group(g * tiles_n),
        rows_full(g),
        rows_last(tiles_m_ % g != 0 ? tiles_m_ % g : g),
        tiles_m(tiles_m_),
        group(g) {}
};

struct TileCoord {
  index_t m = 0, n = 0;
};

/// Persistent CTAs over a grid of tiles_m x tiles_n tiles: CTA `first` of
/// `count` takes tiles first, first + count, ... in the order of `Raster`.
/// It takes the CTA's index and the grid size as arguments (only kernels read
/// blockIdx), so a producer and its consumers can each walk their own copy
/// and meet the same tiles in the same order.
/// `I` is the type it counts in: index_t, or `unsigned` where the launcher
/// has checked that the tiles and a grid's stride past the last fit in 31
/// bits.  A kernel asks for its first tile on the way to its first load, and
/// in 64 bits the raster's divisions are subroutine calls (a few hundred
/// cycles each, measured in k13's first unit).
/// C++ example: tiles (2, 3), first 1, count 4, GroupedRaster<2>: (1, 0), then (1, 2), then none.
template <class Raster, class I = index_t>
class PersistentScheduler {
 public:
  TESSEL_HD PersistentScheduler(index_t tiles_m, index_t tiles_n, index_t first, index_t count)
      : tiles_m_(static_cast<I>(tiles_m)),
        tiles_n_(static_cast<I>(tiles_n)),
        next_(static_cast<I>(first)),
        count_(static_cast<I>(count)) {}

  /// The next tile of this CTA, or false when there is none.
  TESSEL_HD bool next(TileCoord& tile) {
    if (next_ >= tiles_m_ * tiles_n_) return false;
    I tm = 0, tn = 0;
    Raster::tile_of(next_, tiles_m_, tiles_n_, tm, tn);
    tile = TileCoord{static_cast<index_t>(tm), static_cast<index_t>(tn)};
    next_ += count_;
    return true;
  }

  TESSEL_HD index_t tiles() const { return static_cast<index_t>(tiles_m_) * static_cast<index_t>(tiles_n_); }

 private:
  I tiles_m_, tiles_n_, next_, count_;
};

/// One unit of a split-K schedule: tile `tile` (linear index `id` in the
/// raster), k-tiles [k_begin, k_end) of its K, split `split` of `splits`.
/// 32-bit fields: a split-K kernel keeps a unit live across its main loop
/// beside its accumulators, where every register counts.
struct WorkUnit {
  TileCoord tile;
  int id = 0, k_begin = 0, k_end = 0;
  int split = 0;
};

/// Persistent CTAs over tiles_m x tiles_n tiles, each tile's K cut into
/// `splits` contiguous ranges of k-tiles (as even as the division allows):
/// CTA `first` of `count` takes units first, first + count, ...  Units are
/// numbered in one of two orders (SplitOrder).  tile_major: unit u is split
/// u % splits of tile u / splits, so a tile's splits run on neighbouring CTAs
/// (what split K inside a cluster needs: the cluster is those CTAs).
/// split_major: with T split tiles, unit u is split u / T of tile u % T, so
/// the CTAs side by side in the launch take neighbouring tiles at the same k
/// and read the same rows of A and columns of B together, which the GPCs'
/// request coalescing serves with fewer L2 reads (H100, 1024 x 448 x 16128 on
/// 64 x 128 tiles in 2 splits: L2 sectors 10.9 M -> 9.0 M, 62 -> 47 us;
/// docs/heuristics.md, "Split K's order").  With splits = 1 either is
/// PersistentScheduler's order.  Needs 1 <= splits <= k_tiles, so that no
/// range is empty, and fewer than 2^31 units and k-tiles (the launcher
/// checks; the counting is 32-bit).
/// `whole` (0 <= whole <= tiles): the first `whole` tiles of the raster are
/// one unit each, unsplit, and only the tiles after them are split: with
/// `whole` the grid's full waves, the last partial wave's tiles are shared
/// out along K over every CTA instead of leaving most of them idle (a
/// data-parallel and split-K hybrid; split_tail_whole, tessel/gemm_launch_model.hpp).
/// C++ example: 2 tiles, splits = 2, k_tiles = 5, tile_major: units 0..3 -> (tile 0,
/// k 0..2), (tile 0, k 2..5), (tile 1, k 0..2), (tile 1, k 2..5); split_major:
/// (tile 0, k 0..2), (tile 1, k 0..2), (tile 0, k 2..5), (tile 1, k 2..5); with
/// whole = 1 (either order): units 0..2 -> (tile 0, k 0..5), (tile 1, k 0..2),
/// (tile 1, k 2..5).
enum class SplitOrder : bool { tile_major, split_major };
template <class Raster>
class SplitKScheduler {
 public:
  TESSEL_HD SplitKScheduler(index_t tiles_m, index_t tiles_n, index_t k_tiles, int splits, index_t first, index_t count,
                            Raster raster = {}, index_t whole = 0, SplitOrder order = SplitOrder::tile_major)
      : raster_(raster),
        tiles_m_(static_cast<int>(tiles_m)),
        tiles_n_(static_cast<int>(tiles_n)),
        k_tiles_(static_cast<int>(k_tiles)),
        splits_(splits),
        whole_(static_cast<int>(whole)),
        next_(static_cast<int>(first)),
        count_(static_cast<int>(count)),
        split_major_(order == SplitOrder::split_major) {}

  /// The next unit of this CTA, or false when there is none.
  /// The first call is on the critical path of a small problem: a kernel's
  /// producer asks it before its first load (the call took 1300 SM cycles,
  /// a quarter of a 1024^3 tile, with two 64-bit divisions called as
  /// subroutines).  So no 64-bit division, unsigned 32-bit
  /// divisions (no sign fix-ups), and none for the split at splits = 1.
  TESSEL_HD bool next(WorkUnit& u) {
    if (next_ >= units()) return false;
    if (splits_ == 1 || next_ < whole_) {
      u.id = next_;
      u.split = 0;
      u.k_begin = 0;
      u.k_end = k_tiles_;
    } else {
      const unsigned v = static_cast<unsigned>(next_ - whole_);
      // One division: the split tiles (after the whole ones) or the splits run fastest.
      const unsigned inner =
          split_major_ ? static_cast<unsigned>(tiles_m_ * tiles_n_ - whole_) : static_cast<unsigned>(splits_);
      const unsigned q = v / inner, r = v - q * inner;
      u.id = whole_ + static_cast<int>(split_major_ ? r : q);
      u.split = static_cast<int>(split_major_ ? q : r);
      u.k_begin = range_start(u.split);
      u.k_end = range_start(u.split + 1);
    }
    unsigned tm = 0, tn = 0;
    raster_.tile_of(static_cast<unsigned>(u.id), static_cast<unsigned>(tiles_m_), static_cast<unsigned>(tiles_n_), tm,
                    tn);
    u.tile = TileCoord{static_cast<index_t>(tm), static_cast<index_t>(tn)};
    next_ += count_;
    return true;
  }

  TESSEL_HD int units() const { return whole_ + (tiles_m_ * tiles_n_ - whole_) * splits_; }

  /// Where split s's k-tiles begin: floor(k_tiles * s / splits), in 32 bits.
  /// With k_tiles = q * splits + r it is q * s + floor(r * s / splits), and
  /// r * s < splits * (splits + 1) is small (the launchers allow at most 64 splits).
  /// C++ example: k_tiles 5, splits 2: range_start(0, 1, 2) = 0, 2, 5.
  TESSEL_HD int range_start(int s) const {
    const unsigned k = static_cast<unsigned>(k_tiles_), n = static_cast<unsigned>(splits_);
    const unsigned q = k / n, r = k % n, us = static_cast<unsigned>(s);
    return static_cast<int>(q * us + r * us / n);
  }

 private:
  Raster raster_;
  int tiles_m_, tiles_n_, k_tiles_, splits_, whole_;
  int next_, count_;
  bool split_major_;
};

/// Stream-K over persistent CTAs: the first `whole` tiles of the raster run
/// data-parallel (CTA `first` takes tiles first, first + count, ... below
/// `whole`), and the k-tiles of the remaining tiles, laid end to end (tile
/// by tile, each tile's k-tiles in order), are cut into `count` ranges as
/// even as the division allows, one per CTA: CTA c takes k-tiles
/// [floor(c W / count), floor((c + 1) W / count)) of the W = (tiles -
/// whole) x k_tiles.  A CTA's range crosses tile boundaries: each piece of
/// it inside one tile is a unit, and the units of one tile are its `parts(id)`
/// contributors, numbered in k order by `split` (unit.split < max_parts()).
/// So a grid of one partial wave (84 tiles on 132 SMs) keeps every SM busy
/// for the same number of k-tiles, where tile-aligned splits cannot.  Needs
/// 1 <= count <= W (no range empty: then a tile's contributors are
/// consecutive CTAs and `split` has no gaps) and tiles below 2^31.
/// Not yet taken by a kernel: k13's reduction sums `splits` partials a tile,
/// where this gives each tile its own `parts(id)`.
/// C++ example: 1 x 2 tiles, k_tiles 3, whole 0, 4 CTAs (W = 6: ranges of 1,
/// 2, 1, 2): CTA 1 takes (tile 0, k 1..3, split 1); CTA 2 (tile 1, k 0..1,
/// split 0); parts(0) = parts(1) = 2.
template <class Raster>
class StreamKScheduler {
 public:
  TESSEL_HD StreamKScheduler(index_t tiles_m, index_t tiles_n, index_t k_tiles, index_t whole, index_t first,
                             index_t count, Raster raster = {})
      : raster_(raster),
        tiles_m_(static_cast<int>(tiles_m)),
        tiles_n_(static_cast<int>(tiles_n)),
        k_tiles_(static_cast<int>(k_tiles)),
        whole_(static_cast<int>(whole)),
        cta_(static_cast<int>(first)),
        count_(static_cast<int>(count)),
        next_whole_(static_cast<int>(first)),
        it_(range_start(static_cast<int>(first))),
        end_(range_start(static_cast<int>(first) + 1)) {}

  /// The next unit of this CTA (its whole tiles, then the pieces of its range), or false when there is none.
  TESSEL_HD bool next(WorkUnit& u) {
    if (next_whole_ < whole_) {
      u.id = next_whole_;
      u.split = 0;
      u.k_begin = 0;
      u.k_end = k_tiles_;
      next_whole_ += count_;
    } else {
      if (it_ >= end_) return false;
      const long long tile = it_ / k_tiles_;  // among the shared tiles
      const int k0 = static_cast<int>(it_ - tile * k_tiles_);
      const long long tile_end = (tile + 1) * k_tiles_;
      const long long stop = end_ < tile_end ? end_ : tile_end;
      u.id = whole_ + static_cast<int>(tile);
      u.k_begin = k0;
      u.k_end = static_cast<int>(stop - tile * k_tiles_);
      u.split = cta_ - cta_of(tile * k_tiles_);
      it_ = stop;
    }
    unsigned tm = 0, tn = 0;
    raster_.tile_of(static_cast<unsigned>(u.id), static_cast<unsigned>(tiles_m_), static_cast<unsigned>(tiles_n_), tm,
                    tn);
    u.tile = TileCoord{static_cast<index_t>(tm), static_cast<index_t>(tn)};
    return true;
  }

  /// The contributors of tile `id` (1 for a whole tile): the CTAs whose ranges meet its k-tiles.
  TESSEL_HD int parts(int id) const {
    if (id < whole_) return 1;
    const long long first_it = static_cast<long long>(id - whole_) * k_tiles_;
    return cta_of(first_it + k_tiles_ - 1) - cta_of(first_it) + 1;
  }
  /// The most contributors any shared tile has: ranges of at least floor(W / count) k-tiles each
  /// meet a tile in at most ceil((k_tiles - 1) / floor(W / count)) + 1 of them (count, where ranges can be empty).
  TESSEL_HD int max_parts() const {
    const long long per = shared() / count_;
    if (per == 0) return count_;
    const long long bound = (k_tiles_ - 1 + per - 1) / per + 1;
    return static_cast<int>(bound < count_ ? bound : count_);
  }

 private:
  TESSEL_HD long long shared() const {
    return static_cast<long long>(tiles_m_) * tiles_n_ * k_tiles_ - static_cast<long long>(whole_) * k_tiles_;
  }
  /// Where CTA c's range begins: floor(c W / count).
  TESSEL_HD long long range_start(int c) const { return shared() * c / count_; }
  /// The CTA whose range holds shared k-tile i: the largest c with range_start(c) <= i (ranges may be empty).
  TESSEL_HD int cta_of(long long i) const { return static_cast<int>(((i + 1) * count_ - 1) / shared()); }

  Raster raster_;
  int tiles_m_, tiles_n_, k_tiles_, whole_, cta_, count_;
  int next_whole_;
  long long it_, end_;
};

/// A producer's walk over the k-tiles of its units, one k-tile a step, then
/// the rest as nested loops, so that a kernel can issue some loads before
/// the CTA's barrier and go on after it (k13: the first k-tile's loads
/// start before the barrier).  The
/// steps are the nested loops' `for (u; next(u);) for (kt = u.k_begin; kt <
/// u.k_end; ++kt)`, in their order; the scheduler's units are never empty.
/// C++ example: SplitKScheduler of 1 x 2 tiles, k_tiles 5, splits 2, one CTA:
/// steps (tile, split, k) = (0, 0, 0), (0, 0, 1), (0, 1, 2), (0, 1, 3),
/// (0, 1, 4), (1, 0, 0), (1, 0, 1), (1, 1, 2), (1, 1, 3), (1, 1, 4).
template <class Scheduler>
class KTileCursor {
 public:
  TESSEL_HD explicit KTileCursor(const Scheduler& s) : s_(s) {
    more_ = s_.next(u_);
    kt_ = u_.k_begin;
  }
  /// Calls f(unit, kt) for the next k-tile and moves past it; false (and no
  /// call) when every unit's k-tiles have been stepped.
  template <class F>
  TESSEL_HD bool step(F&& f) {
    if (!more_) return false;
    f(static_cast<const WorkUnit&>(u_), kt_);
    if (++kt_ == u_.k_end) {
      more_ = s_.next(u_);
      kt_ = u_.k_begin;
    }
    return true;
  }
  /// Calls f(unit, kt) for every k-tile not yet stepped, in order, as the
  /// nested loops (so that the compiler keeps their tight inner loop: a
  /// producer's loop per k-tile is on the critical path of a latency-bound
  /// pipeline).
  template <class F>
  TESSEL_HD void rest(F&& f) {
    if (!more_) return;
    for (;;) {
      for (int kt = kt_; kt < u_.k_end; ++kt) f(static_cast<const WorkUnit&>(u_), kt);
      if (!s_.next(u_)) break;
      kt_ = u_.k_begin;
    }
    more_ = false;
  }

 private:
  Scheduler s_;
  WorkUnit u_;
  int kt_ = 0;
  bool more_ = false;
};

}  // namespace tessel::blocks
