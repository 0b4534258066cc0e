// tessel/kernels/blocks/tile_scheduler.hpp — which output tile a CTA works
// on next.  A persistent kernel asks `next(tile)` until it says no; the
// order in which tiles are handed out (the raster) decides how well the
// operands that neighbouring CTAs read are shared in L2.
#pragma once

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
  TESSEL_HD static void tile_of(index_t b, index_t tiles_m, index_t tiles_n, index_t& tm, index_t& tn) {
    const index_t per_group = index_t{G} * tiles_n;
    const index_t first_m = (b / per_group) * G;
    const index_t rows = tiles_m - first_m < G ? tiles_m - first_m : G;  // the last group may be short
    const index_t in_group = b % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
  }
};

struct TileCoord {
  index_t m = 0, n = 0;
};

/// Persistent CTAs over a grid of tiles_m x tiles_n tiles: CTA `first` of
/// `count` takes tiles first, first + count, ... in the order of `Raster`.
/// It takes the CTA's index and the grid size as arguments (only kernels read
/// blockIdx), so a producer and its consumers can each walk their own copy
/// and meet the same tiles in the same order.
template <class Raster>
class PersistentScheduler {
 public:
  TESSEL_HD PersistentScheduler(index_t tiles_m, index_t tiles_n, index_t first, index_t count)
      : tiles_m_(tiles_m), tiles_n_(tiles_n), next_(first), count_(count) {}

  /// The next tile of this CTA, or false when there is none.
  TESSEL_HD bool next(TileCoord& tile) {
    if (next_ >= tiles_m_ * tiles_n_) return false;
    Raster::tile_of(next_, tiles_m_, tiles_n_, tile.m, tile.n);
    next_ += count_;
    return true;
  }

  TESSEL_HD index_t tiles() const { return tiles_m_ * tiles_n_; }

 private:
  index_t tiles_m_, tiles_n_, next_, count_;
};

}  // namespace tessel::blocks
