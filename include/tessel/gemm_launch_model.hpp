// tessel/gemm_launch_model.hpp — the parts of the GEMM cost model that the
// launchers apply as well as the plan: how many stages a streaming tile keeps
// in flight, a narrow tile's stage, the whole waves a split tail leaves
// unsplit, and which operands are copied into rows of whole 128-byte lines.
// Plain host arithmetic, no CUDA.  Kept apart from tessel/gemm_model.hpp so
// that the kernels' translation units, which include this one, are not
// rebuilt when the model's fitted constants or candidates change.
#pragma once

#include <cstdint>

#include "tessel/core/config.hpp"

namespace tessel {

/// Do the wide tiles read a copy of A (K-major, base `addr`, rows of `lda`)?  Each row of A is read by N / 128 CTAs,
/// and rows that start inside 128-byte lines cost the wide tiles 17-78 % a k-step (six problems, H200), so the
/// launcher copies such an A into rows of whole lines first (pads_of) and predicted_us counts the copy.
/// C++ example: wide_copies_a(0, 4096) == false; wide_copies_a(0, 4104) == true (8208-byte rows).
constexpr bool wide_copies_a(std::uint64_t addr, index_t lda) { return addr % 128 != 0 || lda % 64 != 0; }

namespace model_detail {
/// Rows of `ld` elements that TMA reads as they are but that start inside
/// 128-byte lines (rows_whole_lines' complement among TMA-readable rows).
constexpr bool straddles(index_t ld) { return ld % 8 == 0 && ld % 64 != 0; }
}  // namespace model_detail

/// The stages a CTA of a streaming tile keeps in flight where the kernel lets
/// the launch choose (k13's swapped x 16 and x 32 tiles: their K loop reads
/// only the weights, one SM's loads are the limit, and shared memory holds
/// more stages than they fill). A CTA needs about `sm_bytes` in flight for its
/// loads to reach their rate over a DRAM round trip: 8 stages of 10 KB held
/// the 64 x 16 tile to 85 GB/s a CTA (120 ns a k-tile at 1-39 CTAs on the
/// H200) where the 64 x 128 tile's ~200 KB reach 147 GB/s (167 ns a 24 KB
/// k-tile). The grid as a whole keeps at most `grid_bytes`: with 128 CTAs the
/// 4 stages of 18 KB (9 MB) measured 1.2-2.1 % faster than all 12 (H100), so
/// never fewer than that measured `cap`, nor more than the `fit`.
/// C++ example: stages_in_flight(14, 10240, 8, 22) == 19; stages_in_flight(128, 10240, 8, 22) == 8.
struct DepthModel {
  double sm_bytes = 192e3;  ///< bytes in flight one SM's loads need
  double grid_bytes = 9e6;  ///< bytes in flight over the grid, at most
};
inline constexpr DepthModel kDepthModel{};

constexpr int stages_in_flight(index_t ctas, int stage_bytes, int cap, int fit, const DepthModel& d = kDepthModel) {
  if (ctas < 1 || stage_bytes < 1) return cap < fit ? cap : fit;
  const double share = d.grid_bytes / static_cast<double>(ctas);
  const double want = share < d.sm_bytes ? share : d.sm_bytes;
  int n = static_cast<int>(want / stage_bytes);
  if (n * static_cast<double>(stage_bytes) < want) ++n;  // ceil
  if (n < cap) n = cap;
  return n < fit ? n : fit;
}

/// A narrow swapped tile's stage (128 bytes of K a row of either operand's tile) and the fewest stages its launch
/// keeps in flight: k13's kStageBytes and kDepthCap for widths up to 32 (k13_tiles.hpp asserts they agree).
/// C++ example: narrow_stage_bytes(64, 16) == 10240; narrow_depth_cap(64) == 8, narrow_depth_cap(128) == 4.
constexpr int narrow_stage_bytes(int tile_m, int tile_n) { return (tile_m + tile_n) * 128; }
constexpr int narrow_depth_cap(int tile_m) { return 4 * 128 / tile_m; }
static_assert(narrow_stage_bytes(64, 16) == 10240 && narrow_depth_cap(64) == 8 && narrow_depth_cap(128) == 4);

/// The tiles a split_tail launch runs unsplit: the grid's full waves (tiles - tiles % sms), 0 on one wave or less.
/// C++ example: split_tail_whole(192, 132) == 132 (60 tiles left to split); split_tail_whole(100, 132) == 0.
constexpr index_t split_tail_whole(index_t tiles, int sms) { return sms > 0 && tiles > sms ? tiles - tiles % sms : 0; }

/// The padded copy of an operand TMA could read as it is (16-bit elements,
/// rows 16-byte aligned), into rows of whole 128-byte lines.  Where an M- or
/// N-major operand's rows start 16 bytes off a 32-byte sector (`addr` or
/// `ld`), each 128-byte box row touches five sectors of two lines instead of
/// four, and each of the kernel's `rereads` reads of the operand costs more;
/// the copy reads and writes its `elems` elements once.  Rows that start on a
/// sector cost little (copying them lost 9-42 us in four problems of five),
/// and K-major operands gained in some problems and lost up to 96 us in
/// others, so neither is copied (docs/heuristics.md, "Rows that straddle
/// lines").  The launchers of k13-k15 ask it.
/// C++ example: B (N-major) of 3000 x 5000 x 7000, ldb 5000, read by 24 tile rows: copied.
struct StraddleModel {
  double us_per_mb_read = 0.05;  ///< extra time per MB per read of a straddled operand
  double copy_fixed_us = 3.0;    ///< the copy's launch
  double copy_mb_per_us = 2.0;   ///< operand MB copied per us (a read and a write: 4 TB/s)
};
inline constexpr StraddleModel kStraddleModel{};

constexpr bool straddled_copy_repays(std::uint64_t addr, index_t ld, index_t elems, index_t rereads, bool mn_major,
                                     const StraddleModel& s = kStraddleModel) {
  const bool straddles = addr % 32 != 0 || (ld * 2) % 32 != 0;
  if (!straddles || !mn_major) return false;
  const double mb = static_cast<double>(elems) * 2 / 1e6;
  return s.us_per_mb_read * mb * static_cast<double>(rereads) > s.copy_fixed_us + mb / s.copy_mb_per_us;
}

}  // namespace tessel
