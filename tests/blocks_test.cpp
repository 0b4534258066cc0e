// Host-side logic of the kernels' building blocks (kernels/blocks/): the
// pipeline state's stage/phase walk and the persistent tile scheduler's
// coverage and order.  The GPU side of the pipeline is tests/cuda/pipeline_test.cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "tessel/kernels/blocks/pipeline_state.hpp"
#include "tessel/kernels/blocks/tile_scheduler.hpp"

using namespace tessel;
using namespace tessel::blocks;

// The state after i increments is stage i mod S and parity (i / S) mod 2:
// the round's parity, which is the mbarrier phase a consumer waits for.
template <int S>
void walk() {
  PipelineState<S> st;
  for (int i = 0; i < 10 * S + 3; ++i, ++st) {
    ASSERT_EQ(st.index(), i % S) << "S=" << S << " i=" << i;
    ASSERT_EQ(st.phase(), static_cast<std::uint32_t>((i / S) & 1)) << "S=" << S << " i=" << i;
  }
}
TEST(Blocks, PipelineStateWalksTheRing) {
  walk<1>();
  walk<2>();
  walk<3>();
  walk<4>();
  walk<7>();
}

static_assert([] {
  PipelineState<4> st;
  for (int i = 0; i < 5; ++i) ++st;
  return st.index() == 1 && st.phase() == 1;
}());

// previous() undoes one increment, across a wrap of the ring too.
TEST(Blocks, PipelineStatePreviousUndoesAStep) {
  PipelineState<3> st, before;
  for (int i = 0; i < 20; ++i) {
    ++st;
    ASSERT_EQ(st.previous().index(), before.index()) << i;
    ASSERT_EQ(st.previous().phase(), before.phase()) << i;
    ++before;
  }
}

// advance(n) is n increments, from every start and for n across several wraps.
TEST(Blocks, PipelineStateAdvanceIsRepeatedIncrement) {
  for (int start = 0; start < 12; ++start)
    for (int n = 0; n < 40; ++n) {
      PipelineState<5> a, b;
      for (int i = 0; i < start; ++i) ++a;
      b = a;
      for (int i = 0; i < n; ++i) ++a;
      b.advance(n);
      ASSERT_EQ(b.index(), a.index()) << start << " " << n;
      ASSERT_EQ(b.phase(), a.phase()) << start << " " << n;
    }
}
static_assert([] {
  PipelineState<5> st;
  for (int i = 0; i < 3; ++i) ++st;
  st.advance(64);  // the doc example: (3, 0) + 64 = 67 = 13 x 5 + 2
  return st.index() == 2 && st.phase() == 1;
}());

// A RingState of n stages walks, steps back and advances exactly as a
// PipelineState<n>, for every n up to its maximum; sizes outside 1..Max clamp.
template <int N>
void ring_matches() {
  RingState<16> r(N);
  PipelineState<N> p;
  ASSERT_EQ(r.size(), N);
  for (int i = 0; i < 7 * N + 5; ++i, ++r, ++p) {
    ASSERT_EQ(r.index(), p.index()) << "N=" << N << " i=" << i;
    ASSERT_EQ(r.phase(), p.phase()) << "N=" << N << " i=" << i;
    ASSERT_EQ(r.previous().index(), p.previous().index()) << "N=" << N << " i=" << i;
    ASSERT_EQ(r.previous().phase(), p.previous().phase()) << "N=" << N << " i=" << i;
    for (int n = 0; n < 3 * N + 2; n += 3) {
      RingState<16> ra = r;
      PipelineState<N> pa = p;
      ra.advance(n);
      pa.advance(n);
      ASSERT_EQ(ra.index(), pa.index()) << "N=" << N << " i=" << i << " n=" << n;
      ASSERT_EQ(ra.phase(), pa.phase()) << "N=" << N << " i=" << i << " n=" << n;
    }
  }
}
TEST(Blocks, RingStateWalksAsAPipelineStateOfItsSize) {
  ring_matches<1>();
  ring_matches<2>();
  ring_matches<3>();
  ring_matches<4>();
  ring_matches<8>();
  ring_matches<13>();
  ring_matches<16>();
  EXPECT_EQ(RingState<16>(0).size(), 1);
  EXPECT_EQ(RingState<16>(40).size(), 16);
  EXPECT_EQ(RingState<16>().size(), 16);
  EXPECT_EQ(PipelineState<5>::size(), 5);
}

static_assert([] {
  RingState<8> st(3);
  for (int i = 0; i < 4; ++i) ++st;
  return st.index() == 1 && st.phase() == 1;
}());

// Every tile is handed out exactly once over all CTAs, each CTA's tiles come
// in the order of the linear index, and the raster is a bijection.
TEST(Blocks, PersistentSchedulerCoversEveryTileOnce) {
  for (const auto& [tm, tn] :
       std::vector<std::pair<index_t, index_t>>{{1, 1}, {4, 3}, {9, 7}, {32, 16}, {33, 17}, {5, 100}}) {
    for (index_t ctas : {index_t{1}, index_t{3}, index_t{132}, tm * tn, tm * tn + 5}) {
      std::set<std::pair<index_t, index_t>> seen;
      index_t handed = 0;
      for (index_t b = 0; b < ctas; ++b) {
        PersistentScheduler<GroupedRaster<8>> s(tm, tn, b, ctas);
        index_t expected_linear = b;
        for (TileCoord t; s.next(t); expected_linear += ctas) {
          ++handed;
          ASSERT_GE(t.m, 0);
          ASSERT_LT(t.m, tm);
          ASSERT_GE(t.n, 0);
          ASSERT_LT(t.n, tn);
          index_t m = 0, n = 0;
          GroupedRaster<8>::tile_of(expected_linear, tm, tn, m, n);
          ASSERT_EQ(t.m, m);
          ASSERT_EQ(t.n, n);
          ASSERT_TRUE(seen.insert({t.m, t.n}).second) << "tile (" << t.m << "," << t.n << ") twice";
        }
      }
      EXPECT_EQ(handed, tm * tn) << tm << "x" << tn << " tiles over " << ctas << " CTAs";
      EXPECT_EQ(static_cast<index_t>(seen.size()), tm * tn);
    }
  }
}

// The 32-bit form (k14's) hands each CTA the same tiles in the same order as
// the index_t one, on grids past 2^16 tiles a side too.
TEST(Blocks, PersistentSchedulerUnsignedGivesTheSameTiles) {
  for (const auto& [tm, tn] :
       std::vector<std::pair<index_t, index_t>>{{1, 1}, {4, 3}, {9, 7}, {33, 17}, {5, 100}, {70001, 3}, {2, 70001}}) {
    for (index_t ctas : {index_t{1}, index_t{2}, index_t{132}, index_t{133}}) {
      for (index_t b : {index_t{0}, ctas / 2, ctas - 1}) {
        PersistentScheduler<GroupedRaster<8>> wide(tm, tn, b, ctas);
        PersistentScheduler<GroupedRaster<8>, unsigned> narrow(tm, tn, b, ctas);
        EXPECT_EQ(narrow.tiles(), tm * tn);
        TileCoord w, n;
        index_t count = 0;
        while (true) {
          const bool more = wide.next(w);
          ASSERT_EQ(narrow.next(n), more) << tm << "x" << tn << " CTA " << b << " of " << ctas;
          if (!more) break;
          ASSERT_EQ(n.m, w.m);
          ASSERT_EQ(n.n, w.n);
          ++count;
        }
        EXPECT_EQ(count, (tm * tn - b + ctas - 1) / ctas);
      }
    }
  }
}

// The doc example of PersistentScheduler.
TEST(Blocks, PersistentSchedulerDocExample) {
  PersistentScheduler<GroupedRaster<2>, unsigned> s(2, 3, 1, 4);
  TileCoord t;
  ASSERT_TRUE(s.next(t));
  EXPECT_EQ(t.m, 1);
  EXPECT_EQ(t.n, 0);
  ASSERT_TRUE(s.next(t));
  EXPECT_EQ(t.m, 1);
  EXPECT_EQ(t.n, 2);
  EXPECT_FALSE(s.next(t));
}

// The documented order: tiles (4, 3) in groups of 2 tile rows.
TEST(Blocks, GroupedRasterOrder) {
  const std::vector<std::pair<index_t, index_t>> want = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2},
                                                         {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2}};
  for (index_t b = 0; b < 12; ++b) {
    index_t m = 0, n = 0;
    GroupedRaster<2>::tile_of(b, 4, 3, m, n);
    EXPECT_EQ(std::make_pair(m, n), want[static_cast<std::size_t>(b)]) << b;
  }
  // A short last group (5 rows in groups of 2): the fifth row alone, down its columns.
  index_t m = 0, n = 0;
  GroupedRaster<2>::tile_of(12, 5, 3, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(index_t{4}, index_t{0}));
  GroupedRaster<2>::tile_of(14, 5, 3, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(index_t{4}, index_t{2}));
}

// The run-time group gives GroupedRaster<G>'s order for every G, including
// groups larger than the tile rows and short last groups.
TEST(Blocks, GroupedRasterNMatchesStatic) {
  const auto same = [](auto fixed, int g) {
    for (index_t tm = 1; tm <= 9; ++tm)
      for (index_t tn = 1; tn <= 5; ++tn)
        for (index_t b = 0; b < tm * tn; ++b) {
          index_t m0 = 0, n0 = 0, m1 = 0, n1 = 0;
          decltype(fixed)::tile_of(b, tm, tn, m0, n0);
          GroupedRasterN{g}.tile_of(b, tm, tn, m1, n1);
          ASSERT_EQ(std::make_pair(m0, n0), std::make_pair(m1, n1)) << g << " " << tm << "x" << tn << " " << b;
        }
  };
  same(GroupedRaster<1>{}, 1);
  same(GroupedRaster<2>{}, 2);
  same(GroupedRaster<3>{}, 3);
  same(GroupedRaster<8>{}, 8);
  same(GroupedRaster<16>{}, 16);
  // And SplitKScheduler walks the raster object it was given.
  SplitKScheduler<GroupedRasterN> s(4, 3, 5, 1, 6, 100, GroupedRasterN{2});
  WorkUnit u;
  ASSERT_TRUE(s.next(u));
  EXPECT_EQ(std::make_pair(u.tile.m, u.tile.n), std::make_pair(index_t{2}, index_t{0}));
}

// A strided batch's units: batches outermost, each batch's tiles in the
// raster's order, every (batch, tile) once; and the doc example.
TEST(Blocks, BatchedTileOfCoversEveryBatchAndTileOnce) {
  unsigned batch = 0, tm = 0, tn = 0;
  batched_tile_of(7, 2, 2, 8, batch, tm, tn);
  EXPECT_EQ(std::make_tuple(batch, tm, tn), std::make_tuple(1u, 1u, 1u));
  batched_tile_of(1, 2, 2, 8, batch, tm, tn);
  EXPECT_EQ(std::make_tuple(batch, tm, tn), std::make_tuple(0u, 1u, 0u));
  for (unsigned tiles_m = 1; tiles_m <= 7; ++tiles_m)
    for (unsigned tiles_n = 1; tiles_n <= 5; ++tiles_n)
      for (int g : {1, 2, 3, 8}) {
        const unsigned batches = 3, per_batch = tiles_m * tiles_n;
        std::set<std::tuple<unsigned, unsigned, unsigned>> seen;
        for (unsigned u = 0; u < batches * per_batch; ++u) {
          batched_tile_of(u, tiles_m, tiles_n, g, batch, tm, tn);
          unsigned rm = 0, rn = 0;
          GroupedRasterN{g}.tile_of(u % per_batch, tiles_m, tiles_n, rm, rn);
          ASSERT_EQ(batch, u / per_batch);
          ASSERT_EQ(std::make_pair(tm, tn), std::make_pair(rm, rn)) << tiles_m << "x" << tiles_n << " g" << g;
          ASSERT_TRUE(tm < tiles_m && tn < tiles_n);
          seen.insert({batch, tm, tn});
        }
        ASSERT_EQ(seen.size(), batches * per_batch);
      }
}

// The multiply-and-shift division is exact for every n < 2^31: each divisor
// up to 4096 and a spread of larger ones, against n at the edges of every
// quotient and spread over the range.
static_assert(UnsignedDivisor{3}.div(7) == 2 && UnsignedDivisor{1}.div(5) == 5);
TEST(Blocks, UnsignedDivisorIsExactBelow2To31) {
  const unsigned top = (1u << 31) - 1;
  std::vector<unsigned> ds;
  for (unsigned d = 1; d <= 4096; ++d) ds.push_back(d);
  for (unsigned d : {6553u, 65535u, 65536u, 65537u, 1000003u, (1u << 24) + 1, (1u << 30) - 1, 1u << 30, (1u << 31) - 1})
    ds.push_back(d);
  std::uint64_t x = 88172645463325252ull;  // xorshift: a spread of n
  for (unsigned d : ds) {
    const UnsignedDivisor v{d};
    ASSERT_LT(v.shift, 64u);
    const auto check = [&](unsigned n) { ASSERT_EQ(v.div(n), n / d) << n << " / " << d; };
    for (unsigned q : {0u, 1u, 2u, top / d - 1, top / d})
      for (unsigned n : {q * d, q * d + d - 1})
        if (n <= top && n / d == q) check(n);
    check(top);
    for (int i = 0; i < 64; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      check(static_cast<unsigned>(x) & top);
    }
  }
}

// BatchRaster gives batched_tile_of's units, short last groups included.
static_assert([] {
  unsigned b = 0, tm = 0, tn = 0;
  BatchRaster(2, 2, 8).unit(7, b, tm, tn);
  return b == 1 && tm == 1 && tn == 1;
}());
TEST(Blocks, BatchRasterMatchesBatchedTileOf) {
  for (unsigned tiles_m = 1; tiles_m <= 19; ++tiles_m)
    for (unsigned tiles_n = 1; tiles_n <= 11; ++tiles_n)
      for (int g : {1, 2, 3, 4, 8, 16, 64}) {
        const BatchRaster r(tiles_m, tiles_n, g);
        for (unsigned u = 0; u < 3 * tiles_m * tiles_n; ++u) {
          unsigned b0 = 0, m0 = 0, n0 = 0, b1 = 0, m1 = 0, n1 = 0;
          batched_tile_of(u, tiles_m, tiles_n, g, b0, m0, n0);
          r.unit(u, b1, m1, n1);
          ASSERT_EQ(std::make_tuple(b0, m0, n0), std::make_tuple(b1, m1, n1))
              << tiles_m << "x" << tiles_n << " g" << g << " u" << u;
        }
      }
}

// A raster group larger than the tile rows is all the rows: the same order,
// and group x tiles_n (which wraps in 32 bits here) is never formed.  Before
// the clamp, 32-bit rasters (k13, k15, the batched kernels) put unit 65536
// on tile row 65536 of 3.
TEST(Blocks, BatchedRasterGroupBeyondTheRowsIsTheRows) {
  const unsigned tiles_m = 3, tiles_n = 65537;  // 65536 x 65537 wraps to 65536 in 32 bits
  const BatchRaster big(tiles_m, tiles_n, 65536), rows(tiles_m, tiles_n, 3);
  for (unsigned u : {0u, 1u, 65535u, 65536u, 65537u, 131073u, 196610u, 196611u, 262147u, 589832u}) {
    unsigned b0 = 0, m0 = 0, n0 = 0, b1 = 0, m1 = 0, n1 = 0, b2 = 0, m2 = 0, n2 = 0;
    big.unit(u, b0, m0, n0);
    rows.unit(u, b1, m1, n1);
    batched_tile_of(u, tiles_m, tiles_n, 65536, b2, m2, n2);
    index_t rm = 0, rn = 0;  // 64-bit reference
    GroupedRasterN{65536}.tile_of(index_t{u % (tiles_m * tiles_n)}, index_t{tiles_m}, index_t{tiles_n}, rm, rn);
    EXPECT_EQ(std::make_tuple(b0, m0, n0), std::make_tuple(b1, m1, n1)) << u;
    EXPECT_EQ(std::make_tuple(b0, m0, n0), std::make_tuple(b2, m2, n2)) << u;
    EXPECT_EQ(std::make_tuple(b0, index_t{m0}, index_t{n0}), std::make_tuple(u / (tiles_m * tiles_n), rm, rn)) << u;
  }
}

// Split K, in either order: every (tile, k-tile) pair is handed out exactly
// once, each tile's splits are contiguous non-empty ranges in split order
// covering [0, k_tiles), the first `whole` tiles are one unsplit unit each,
// and splits = 1 is PersistentScheduler's order.
TEST(Blocks, SplitKSchedulerCoversEveryTileAndKTileOnce) {
  for (const SplitOrder order : {SplitOrder::tile_major, SplitOrder::split_major})
    for (const auto& [tm, tn] : std::vector<std::pair<index_t, index_t>>{{1, 1}, {1, 32}, {2, 16}, {9, 7}}) {
      for (index_t k_tiles : {index_t{1}, index_t{5}, index_t{64}, index_t{128}}) {
        for (int splits : {1, 2, 3, 4, 7}) {
          if (splits > k_tiles) continue;
          for (index_t whole : {index_t{0}, index_t{1}, tm * tn / 2, tm * tn}) {
            for (index_t ctas : {index_t{1}, index_t{132}, tm * tn * splits + 3}) {
              std::set<std::pair<index_t, index_t>> seen_k;  // (tile id, k-tile)
              std::vector<std::vector<std::pair<index_t, index_t>>> ranges(static_cast<std::size_t>(tm * tn));
              index_t units = 0;
              for (index_t b = 0; b < ctas; ++b) {
                SplitKScheduler<GroupedRaster<8>> s(tm, tn, k_tiles, splits, b, ctas, {}, whole, order);
                PersistentScheduler<GroupedRaster<8>> p(tm, tn, b, ctas);
                for (WorkUnit u; s.next(u);) {
                  ++units;
                  ASSERT_LT(u.k_begin, u.k_end) << "an empty range";
                  index_t m = 0, n = 0;
                  GroupedRaster<8>::tile_of(u.id, tm, tn, m, n);
                  ASSERT_EQ(u.tile.m, m);
                  ASSERT_EQ(u.tile.n, n);
                  auto& r = ranges[static_cast<std::size_t>(u.id)];
                  if (r.size() <= static_cast<std::size_t>(u.split)) r.resize(static_cast<std::size_t>(u.split) + 1);
                  r[static_cast<std::size_t>(u.split)] = {u.k_begin, u.k_end};
                  for (index_t k = u.k_begin; k < u.k_end; ++k) ASSERT_TRUE(seen_k.insert({u.id, k}).second);
                  if (splits == 1) {
                    TileCoord t;
                    ASSERT_TRUE(p.next(t));
                    ASSERT_EQ(t.m, u.tile.m);
                    ASSERT_EQ(t.n, u.tile.n);
                  }
                }
              }
              EXPECT_EQ(units, whole + (tm * tn - whole) * splits);
              EXPECT_EQ(static_cast<index_t>(seen_k.size()), tm * tn * k_tiles);
              for (std::size_t id = 0; id < ranges.size(); ++id) {
                const auto& r = ranges[id];
                ASSERT_EQ(r.size(), static_cast<index_t>(id) < whole ? 1u : static_cast<std::size_t>(splits)) << id;
                EXPECT_EQ(r.front().first, 0);
                EXPECT_EQ(r.back().second, k_tiles);
                for (std::size_t i = 1; i < r.size(); ++i) EXPECT_EQ(r[i].first, r[i - 1].second);
              }
            }
          }
        }
      }
    }
}

// Stream-K: every (tile, k-tile) pair is handed out exactly once; each
// tile's units are contiguous ranges numbered 0..parts(id)-1 in k order, by
// consecutive CTAs, below max_parts(); the CTAs' shared k-tiles differ by at
// most one; whole tiles are unsplit.
TEST(Blocks, StreamKSchedulerCoversEveryKTileOnceEvenly) {
  for (const auto& [tm, tn] : std::vector<std::pair<int, int>>{{1, 1}, {1, 7}, {6, 14}, {13, 11}}) {
    for (int k_tiles : {1, 2, 5, 64, 106}) {
      const int tiles = tm * tn;
      for (int whole : {0, tiles / 3, tiles}) {
        const long long shared = static_cast<long long>(tiles - whole) * k_tiles;
        for (long long count : {1LL, 7LL, 132LL, shared}) {
          if (count > shared || count < 1) continue;
          std::set<std::pair<int, int>> seen;                          // (tile, k-tile)
          std::vector<std::vector<std::array<int, 4>>> pieces(tiles);  // (split, k_begin, k_end, cta)
          std::vector<long long> shared_of(static_cast<std::size_t>(count), 0);
          int max_parts = 0;
          for (long long c = 0; c < count; ++c) {
            StreamKScheduler<GroupedRaster<8>> s(tm, tn, k_tiles, whole, c, count);
            max_parts = s.max_parts();
            for (WorkUnit u; s.next(u);) {
              ASSERT_LT(u.k_begin, u.k_end);
              index_t m = 0, n = 0;
              GroupedRaster<8>::tile_of(index_t{u.id}, index_t{tm}, index_t{tn}, m, n);
              ASSERT_EQ(u.tile.m, m);
              ASSERT_EQ(u.tile.n, n);
              for (int k = u.k_begin; k < u.k_end; ++k) ASSERT_TRUE(seen.insert({u.id, k}).second);
              pieces[static_cast<std::size_t>(u.id)].push_back({u.split, u.k_begin, u.k_end, static_cast<int>(c)});
              if (u.id >= whole) shared_of[static_cast<std::size_t>(c)] += u.k_end - u.k_begin;
              ASSERT_LT(u.split, s.max_parts());
            }
          }
          ASSERT_EQ(static_cast<long long>(seen.size()), static_cast<long long>(tiles) * k_tiles);
          const StreamKScheduler<GroupedRaster<8>> any(tm, tn, k_tiles, whole, 0, count);
          for (int id = 0; id < tiles; ++id) {
            auto& p = pieces[static_cast<std::size_t>(id)];
            std::sort(p.begin(), p.end());
            ASSERT_EQ(static_cast<int>(p.size()), any.parts(id)) << id;
            ASSERT_LE(any.parts(id), max_parts);
            for (std::size_t i = 0; i < p.size(); ++i) {
              EXPECT_EQ(p[i][0], static_cast<int>(i));  // splits 0.. in k order
              EXPECT_EQ(p[i][1], i == 0 ? 0 : p[i - 1][2]);
              if (i > 0) {
                EXPECT_EQ(p[i][3], p[i - 1][3] + 1);  // consecutive CTAs
              }
            }
            EXPECT_EQ(p.back()[2], k_tiles);
            if (id < whole) {
              EXPECT_EQ(p.size(), 1u);
            }
          }
          const auto [lo, hi] = std::minmax_element(shared_of.begin(), shared_of.end());
          EXPECT_LE(*hi - *lo, 1) << tm << "x" << tn << " k_tiles " << k_tiles << " count " << count;
        }
      }
    }
  }
}

// StreamKScheduler's documented example.
TEST(Blocks, StreamKSchedulerExample) {
  StreamKScheduler<GroupedRaster<8>> s1(1, 2, 3, 0, 1, 4), s2(1, 2, 3, 0, 2, 4);
  WorkUnit u;
  ASSERT_TRUE(s1.next(u));
  EXPECT_EQ(u.id, 0);
  EXPECT_EQ(u.k_begin, 1);
  EXPECT_EQ(u.k_end, 3);
  EXPECT_EQ(u.split, 1);
  EXPECT_FALSE(s1.next(u));
  ASSERT_TRUE(s2.next(u));
  EXPECT_EQ(u.id, 1);
  EXPECT_EQ(u.k_begin, 0);
  EXPECT_EQ(u.k_end, 1);
  EXPECT_EQ(u.split, 0);
  EXPECT_EQ(s1.parts(0), 2);
  EXPECT_EQ(s1.parts(1), 2);
}

// The documented examples: 2 tiles of 5 k-tiles in 2 splits, in each order; with whole = 1, tile 0 unsplit and
// tile 1 in two splits, in either order.
TEST(Blocks, SplitKSchedulerOrderExamples) {
  const auto units_of = [](SplitKScheduler<GroupedRaster<8>> s) {
    std::vector<std::array<int, 4>> got;  // id, split, k_begin, k_end
    for (WorkUnit u; s.next(u);) got.push_back({u.id, u.split, u.k_begin, u.k_end});
    return got;
  };
  using U = std::vector<std::array<int, 4>>;
  EXPECT_EQ(units_of({1, 2, 5, 2, 0, 1, {}, 0, SplitOrder::tile_major}),
            (U{{0, 0, 0, 2}, {0, 1, 2, 5}, {1, 0, 0, 2}, {1, 1, 2, 5}}));
  EXPECT_EQ(units_of({1, 2, 5, 2, 0, 1, {}, 0, SplitOrder::split_major}),
            (U{{0, 0, 0, 2}, {1, 0, 0, 2}, {0, 1, 2, 5}, {1, 1, 2, 5}}));
  for (const SplitOrder order : {SplitOrder::tile_major, SplitOrder::split_major}) {
    SplitKScheduler<GroupedRaster<8>> s(1, 2, 5, 2, 0, 1, {}, 1, order);
    EXPECT_EQ(units_of(s), (U{{0, 0, 0, 5}, {1, 0, 0, 2}, {1, 1, 2, 5}}));
    EXPECT_EQ(s.units(), 3);
  }
  // Split-major over 3 tiles after 1 whole one, in 2 CTAs: CTA 1 takes units 1, 3, 5 -> tiles 1, 3, 2.
  SplitKScheduler<GroupedRaster<8>> s(1, 4, 8, 2, 1, 2, {}, 1, SplitOrder::split_major);
  EXPECT_EQ(units_of(s), (U{{1, 0, 0, 4}, {3, 0, 0, 4}, {2, 1, 4, 8}}));
}

// range_start's 32-bit form is floor(k_tiles * s / splits) for every split
// count the launchers allow (1..64) and k-tile counts up to 2^31 - 1.
TEST(Blocks, SplitKSchedulerRangeStartIsTheFloor) {
  for (int splits = 1; splits <= 64; ++splits)
    for (long long k_tiles : {1LL, 5LL, 63LL, 64LL, 65LL, 1000LL, 123457LL, (1LL << 31) - 1}) {
      if (splits > k_tiles) continue;
      const SplitKScheduler<GroupedRaster<8>> s(1, 1, k_tiles, splits, 0, 1);
      for (int i = 0; i <= splits; ++i) ASSERT_EQ(s.range_start(i), k_tiles * i / splits) << k_tiles << " " << splits;
    }
}

// KTileCursor steps the nested loops' (unit, k-tile) pairs in their order,
// for every CTA of split and unsplit schedules, by step() alone and by step()
// then rest().
TEST(Blocks, KTileCursorStepsTheNestedLoops) {
  for (int tm : {1, 3}) {
    for (int tn : {1, 2, 5}) {
      for (int k_tiles : {1, 2, 7}) {
        for (int splits = 1; splits <= k_tiles && splits <= 4; ++splits) {
          for (int ctas : {1, 2, 7}) {
            for (int b = 0; b < ctas; ++b) {
              std::vector<std::array<int, 4>> loops, stepped;
              const SplitOrder order = b % 2 == 0 ? SplitOrder::tile_major : SplitOrder::split_major;
              SplitKScheduler<GroupedRaster<2>> s(tm, tn, k_tiles, splits, b, ctas, {}, 0, order);
              for (WorkUnit u; s.next(u);)
                for (int kt = u.k_begin; kt < u.k_end; ++kt)
                  loops.push_back({static_cast<int>(u.tile.m), static_cast<int>(u.tile.n), u.id, kt});
              KTileCursor cursor(SplitKScheduler<GroupedRaster<2>>(tm, tn, k_tiles, splits, b, ctas, {}, 0, order));
              const auto record = [&](const WorkUnit& u, int kt) {
                stepped.push_back({static_cast<int>(u.tile.m), static_cast<int>(u.tile.n), u.id, kt});
              };
              while (cursor.step(record)) {
              }
              EXPECT_EQ(stepped, loops) << tm << "x" << tn << " k_tiles " << k_tiles << " splits " << splits << " cta "
                                        << b << "/" << ctas;
              EXPECT_FALSE(cursor.step(record));  // and stays done
              // Stepped for a while, then the rest: the same sequence.
              for (int first = 0; first <= static_cast<int>(loops.size()) + 1; ++first) {
                stepped.clear();
                KTileCursor again(SplitKScheduler<GroupedRaster<2>>(tm, tn, k_tiles, splits, b, ctas, {}, 0, order));
                for (int i = 0; i < first && again.step(record); ++i) {
                }
                again.rest(record);
                EXPECT_EQ(stepped, loops) << "rest after " << first << " steps";
                EXPECT_FALSE(again.step(record));
              }
            }
          }
        }
      }
    }
  }
}

// KTileCursor's documented example.
TEST(Blocks, KTileCursorExample) {
  KTileCursor cursor(SplitKScheduler<GroupedRaster<8>>(1, 2, 5, 2, 0, 1));
  const int want[10][3] = {{0, 0, 0}, {0, 0, 1}, {0, 1, 2}, {0, 1, 3}, {0, 1, 4},
                           {1, 0, 0}, {1, 0, 1}, {1, 1, 2}, {1, 1, 3}, {1, 1, 4}};
  for (const auto& w : want) {
    int id = -1, split = -1, kt = -1;
    ASSERT_TRUE(cursor.step([&](const WorkUnit& u, int k) {
      id = u.id;
      split = u.split;
      kt = k;
    }));
    EXPECT_EQ(id, w[0]);
    EXPECT_EQ(split, w[1]);
    EXPECT_EQ(kt, w[2]);
  }
  EXPECT_FALSE(cursor.step([](const WorkUnit&, int) {}));
}

// The documented example: 2 tiles, 2 splits, 5 k-tiles.
TEST(Blocks, SplitKSchedulerExample) {
  SplitKScheduler<GroupedRaster<8>> s(1, 2, 5, 2, 0, 1);
  const index_t want[4][3] = {{0, 0, 2}, {0, 2, 5}, {1, 0, 2}, {1, 2, 5}};
  WorkUnit u;
  for (const auto& w : want) {
    ASSERT_TRUE(s.next(u));
    EXPECT_EQ(u.id, w[0]);
    EXPECT_EQ(u.k_begin, w[1]);
    EXPECT_EQ(u.k_end, w[2]);
  }
  EXPECT_FALSE(s.next(u));
}
