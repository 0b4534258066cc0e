// Tensors, TiledCopy and TiledMMA on the host: partition shapes, the thread-
// value layouts they are built from, and copy/copy_if with tails, run thread
// by thread on host memory (the same code the kernels run).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tessel/algorithm/copy.hpp"
#include "tessel/atom/mma_atom.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/core/print.hpp"

using namespace tessel;

namespace {
struct Tile {
  static constexpr IntTuple value = make_shape(128, 64);
};
constexpr CopyPlan kPlan = make_copy_plan(make_layout(make_shape(16, 8), LayoutRight{}), make_layout(make_shape(1, 8)));
using VectorCopy = TiledCopy<UniversalCopy<float, 128>, kPlan.tv, kPlan.tile>;  // 4 floats per vector
}  // namespace

TEST(TiledCopy, PlanOfTheVectorKernel) {
  // 128 threads in 16 rows of 8, each with 8 consecutive columns: copy tile (16,64).
  EXPECT_EQ(to_string(kPlan.tile), "(16,64)");
  EXPECT_EQ(to_string(kPlan.tv), "((8,16),8):((128,1),16)");
  // Thread t's value v sits at row t/8, column 8*(t%8) + v.
  for (int t = 0; t < 128; ++t)
    for (int v = 0; v < 8; ++v) {
      const index_t idx = kPlan.tv(make_tuple(t, v));
      EXPECT_EQ(idx % 16, t / 8);
      EXPECT_EQ(idx / 16, 8 * (t % 8) + v);
    }
}

TEST(TiledCopy, PartitionShapes) {
  // Global tile (128,64) as packed coordinates: (T, (V, REST)) with REST = 8 copy tiles down the rows.
  constexpr Layout P = VectorCopy::kPartition<coord_layout(make_shape(128, 64))>;
  EXPECT_EQ(to_string(P.shape), "((8,16),(8,(8,1)))");
  EXPECT_EQ(size(mode(P, 0)), 128);
  EXPECT_EQ(size(mode(P, 1)), 64);
  // The shared tile partitions the same way, onto offsets.
  constexpr Layout S = VectorCopy::kPartition<make_layout(make_shape(128, 64), LayoutRight{})>;
  EXPECT_EQ(to_string(S), "((8,16),(8,(8,1))):((8,64),(1,(1024,0)))");
  // Every element of the tile is owned exactly once.
  std::set<index_t> seen;
  for (index_t i = 0; i < size(S); ++i) seen.insert(S(i));
  EXPECT_EQ(seen.size(), 128u * 64u);
}

TEST(TiledCopy, CopyIfWithTailsOnTheHost) {
  for (auto [M, N] : std::vector<std::pair<int, int>>{{1, 4}, {127, 60}, {128, 64}, {200, 136}, {300, 1000}}) {
    std::vector<float> a(static_cast<std::size_t>(M * N)), b(a.size(), -1.f), smem(128 * 64, -2.f);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
    const auto gA = make_global_tensor(a.data(), {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}});
    const auto gB = make_global_tensor(b.data(), {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}});
    constexpr Layout sl = make_layout(make_shape(128, 64), LayoutRight{});
    const auto sA = make_smem_tensor<sl>(smem.data());
    const VectorCopy tc;
    for (int bm = 0; bm < (M + 127) / 128; ++bm)
      for (int bn = 0; bn < (N + 63) / 64; ++bn) {
        const auto tA = local_tile<Tile>(gA, bm, bn);
        const auto tB = local_tile<Tile>(gB, bm, bn);
        for (int t = 0; t < 128; ++t) copy_if(tc, tc.get_slice(t).partition_S(tA), tc.get_slice(t).partition_D(sA));
        for (int t = 0; t < 128; ++t) copy_if(tc, tc.get_slice(t).partition_S(sA), tc.get_slice(t).partition_D(tB));
      }
    EXPECT_EQ(a, b) << M << "x" << N;
  }
}

// 32-bit offsets (narrow_offsets): where every offset fits in int, the same tiles, partitions and copies as with
// index_t, computed in int.
TEST(Tensor, NarrowOffsetsWhereTheyFit) {
  std::vector<float> a(16);
  const auto big = [&](index_t m, index_t n) { return make_global_tensor(a.data(), {m, n}, {n, index_t{1}}); };
  Tensor<ViewEngine<float, Space::global>, Strided<2, int>> g32{};
  EXPECT_TRUE(narrow_offsets(big(4096, 4096), g32));  // the last offset 16,777,215
  EXPECT_EQ(g32.layout.stride[0], 4096);
  EXPECT_EQ(g32.data(), a.data());
  EXPECT_FALSE(narrow_offsets(big(46341, 46341), g32));  // 2,147,488,280 > 2^31 - 1
  EXPECT_TRUE(narrow_offsets(big(46340, 46340), g32));   // 2,147,395,599
  // Whole tiles past the end count: with 128 x 64 tiles the extents are 46464 x 46400.
  EXPECT_FALSE(narrow_offsets<Tile>(big(46340, 46340), g32));
  EXPECT_TRUE(narrow_offsets<Tile>(big(4096, 4096), g32));
  // Negative and huge strides, huge extents.
  EXPECT_FALSE(
      narrow_offsets(make_global_tensor(a.data(), {index_t{2}, index_t{2}}, {index_t{1} << 31, index_t{1}}), g32));
  EXPECT_TRUE(narrow_offsets(make_global_tensor(a.data(), {index_t{4}, index_t{4}}, {index_t{-4}, index_t{1}}), g32));
  EXPECT_EQ(g32.layout(3, 1), -11);
  EXPECT_FALSE(
      narrow_offsets(make_global_tensor(a.data(), {index_t{1} << 32, index_t{1}}, {index_t{0}, index_t{1}}), g32));
  // The partitions of a 32-bit tile hold int offsets: fewer registers a thread.
  using P64 = decltype(VectorCopy{}.get_slice(0).partition_S(local_tile<Tile>(big(300, 1000), 0, 0)).layout);
  using P32 = decltype(VectorCopy{}.get_slice(0).partition_S(local_tile<Tile>(g32, 0, 0)).layout);
  static_assert(std::is_same_v<P32::offset_type, int> && std::is_same_v<P64::offset_type, index_t>);
  static_assert(sizeof(P32) < sizeof(P64));
}

TEST(Tensor, NarrowOffsetsGiveTheSameElements) {
  for (auto [M, N] : std::vector<std::pair<int, int>>{{1, 4}, {127, 60}, {200, 136}, {300, 1000}}) {
    std::vector<float> a(static_cast<std::size_t>(M * N)), b(a.size(), -1.f), smem(128 * 64, -2.f);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
    Tensor<ViewEngine<float, Space::global>, Strided<2, int>> gA{}, gB{};
    ASSERT_TRUE(
        narrow_offsets<Tile>(make_global_tensor(a.data(), {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}}), gA));
    ASSERT_TRUE(
        narrow_offsets<Tile>(make_global_tensor(b.data(), {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}}), gB));
    const auto g64 = make_global_tensor(a.data(), {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}});
    constexpr Layout sl = make_layout(make_shape(128, 64), LayoutRight{});
    const auto sA = make_smem_tensor<sl>(smem.data());
    const VectorCopy tc;
    for (int bm = 0; bm < (M + 127) / 128; ++bm)
      for (int bn = 0; bn < (N + 63) / 64; ++bn) {
        const auto tA = local_tile<Tile>(gA, bm, bn);
        const auto tB = local_tile<Tile>(gB, bm, bn);
        const auto t64 = local_tile<Tile>(g64, bm, bn);
        EXPECT_EQ(tA.data(), t64.data());
        for (int t = 0; t < 128; ++t) {
          const auto p32 = tc.get_slice(t).partition_S(tA);
          const auto p64 = tc.get_slice(t).partition_S(t64);
          for (int v = 0; v < decltype(p32)::kValues; ++v) {
            EXPECT_EQ(p32.inside(v), p64.inside(v));
            EXPECT_EQ(p32.coord(v), p64.coord(v));
            if (p64.inside(v)) {
              EXPECT_EQ(p32.addr(v), p64.addr(v));
            }
          }
          const auto narrow = p32(_, 3, 0);  // a slice keeps int offsets
          const auto wide = p64(_, 3, 0);
          for (int v = 0; v < 8; ++v)
            if (wide.inside(v)) {
              EXPECT_EQ(narrow.addr(v), wide.addr(v));
            }
          copy_if(tc, p32, tc.get_slice(t).partition_D(sA));
        }
        for (int t = 0; t < 128; ++t) copy_if(tc, tc.get_slice(t).partition_S(sA), tc.get_slice(t).partition_D(tB));
      }
    EXPECT_EQ(a, b) << M << "x" << N;
  }
}

TEST(TiledMma, LayoutsOfA2x2x1TiledAtom) {
  constexpr TiledMmaLayouts t = make_tiled_mma_layouts(kSM80_16x8x16_F32BF16BF16F32_TN, 2, 2, 1);
  EXPECT_EQ(t.threads, 128);
  EXPECT_EQ(t.m, 32);
  EXPECT_EQ(t.n, 16);
  EXPECT_EQ(t.k, 16);
  // C: a bijection from (128 threads, 4 values) onto the (32,16) tile.
  std::set<index_t> c;
  for (index_t i = 0; i < size(t.c); ++i) c.insert(t.c(i));
  EXPECT_EQ(c.size(), 512u);
  EXPECT_EQ(*c.rbegin(), 511);
  // Atom 1 (threads 32..63) is the next 16 rows; atom 2 the next 8 columns.
  EXPECT_EQ(t.c(make_tuple(32, 0)), 16);
  EXPECT_EQ(t.c(make_tuple(64, 0)), 8 * 32);
  // A is shared by atoms that differ along N, B by atoms that differ along M.
  for (int v = 0; v < 8; ++v) EXPECT_EQ(t.a(make_tuple(64 + 5, v)), t.a(make_tuple(5, v)));
  for (int v = 0; v < 4; ++v) EXPECT_EQ(t.b(make_tuple(32 + 5, v)), t.b(make_tuple(5, v)));
  // The atom's own C layout is the first 32 threads (docs/hardware.md §1.2: lane 5, value 3 -> (9,3) of the atom).
  EXPECT_EQ(t.c(make_tuple(5, 3)), 9 + 32 * 3);
}

TEST(Tensor, SliceDivideTilePartitionRecast) {
  std::vector<int> buf(128 * 64);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<int>(i);
  constexpr Layout L = make_layout(make_shape(128, 64), LayoutRight{});  // (128,64):(64,1)
  const auto t = make_smem_tensor<L>(buf.data());
  // Column 3 and row 5.
  const auto col = slice(t, _, 3);
  const auto row = slice(t, 5, _);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(col(i), i * 64 + 3);
  for (int j = 0; j < 64; ++j) EXPECT_EQ(row(j), 5 * 64 + j);
  // Tile (2,1) of 32 x 16 tiles: element (i,j) is t(64+i, 16+j).
  constexpr Tiler tl = make_tiler(32, 16);
  const auto tile = local_tile<tl>(t, 2, 1);
  EXPECT_EQ(tile(0, 0), 64 * 64 + 16);
  EXPECT_EQ(tile(31, 15), 95 * 64 + 31);
  const auto z = zipped_divide<tl>(t);                          // ((32,16),(4,4))
  EXPECT_EQ(z(1 + 32 * 2, 2 + 4 * 1), (64 + 1) * 64 + 16 + 2);  // tile (1,2), rest (2,1) as 1-D indices
  // 4 x 8 threads (row-major numbering) over the 128 x 64 tensor: thread 9 is at (1,1)
  // of every 4 x 8 block, so its k-th element along rows is row 1 + 4k.
  constexpr Layout thr = make_layout(make_shape(4, 8), LayoutRight{});
  const auto part = local_partition<thr>(t, 9);
  EXPECT_EQ(part(0, 0), 1 * 64 + 1);
  EXPECT_EQ(part(3, 2), (1 + 4 * 3) * 64 + 1 + 8 * 2);
  // 4 ints as one 16-byte word: the (128,64):(64,1) layout becomes (128,16):(16,1).
  struct alignas(16) Quad {
    int x[4];
  };
  const auto q = recast<Quad>(t);
  EXPECT_EQ(to_string(decltype(q)::layout_type::value), "(128,16):(16,1)");
  EXPECT_EQ(q(1, 2).x[0], 64 + 8);
  EXPECT_FALSE(
      recast_layout(make_layout(make_shape(8, 6), LayoutRight{}), 1, 4).ok());  // rows of 6 ints are not whole words
  EXPECT_EQ(recast_layout(make_layout(make_shape(6, 8)), 1, 4).code(), Errc::shape_divisibility);
}

TEST(TiledCopy, MakeTiledCopyAndRetile) {
  using TC = MakeTiledCopy<UniversalCopy<float, 128>, make_layout(make_shape(16, 8), LayoutRight{}),
                           make_layout(make_shape(1, 8))>;
  static_assert(std::is_same_v<TC, VectorCopy>);  // the same type as the plan spelled out
  Fragment<float, make_layout(make_shape(64))> f{};
  EXPECT_EQ(&retile(TC{}, f), &f);
}

// ---------------------------------------------------------------- one Tensor

TEST(Tensor, PartitionsAreShapedAndSliceStatically) {
  std::vector<float> smem(128 * 64);
  constexpr Layout L = make_layout(make_shape(128, 64), LayoutRight{});
  const auto sT = make_smem_tensor<L>(smem.data());
  // A thread's share is (V, REST0, REST1): 8 values, 8 copy tiles down the rows, 1 across.
  const auto part = VectorCopy{}.get_slice(9).partition_S(sT);
  using PL = decltype(part)::layout_type;
  EXPECT_EQ(to_string(PL::kVals), "(8,8,1):(1,1024,0)");
  static_assert(decltype(part)::kValues == 64);
  // A slice keeps the modes given `_`; its layout is a static type.
  const auto row3 = part(_, 3, 0);
  static_assert(size(decltype(row3)::layout_type::kVals) == 8);  // known at compile time
  EXPECT_EQ(to_string(decltype(row3)::layout_type::kVals), "8:1");
  for (int v = 0; v < 8; ++v) EXPECT_EQ(row3.addr(v), part.addr(v + 8 * 3));
  for (int r = 0; r < 8; ++r)
    for (int v = 0; v < 8; ++v) EXPECT_EQ(part(_, r, 0).addr(v), smem.data() + (1 + 16 * r) * 64 + 8 + v);
  // A fragment has the partition's shape; a slice of it is a view of its registers.
  auto frag = make_fragment_like(part);
  EXPECT_EQ(to_string(decltype(frag)::layout_type::value), "(8,8,1):(1,8,0)");
  auto f2 = frag(_, 2, 0);
  EXPECT_EQ(f2.addr(0), frag.addr(16));
  *f2.addr(5) = 42.0f;
  EXPECT_EQ(*frag.addr(21), 42.0f);
}

TEST(Tensor, SlicesOfATilePartitionKeepCoordinatesAndBounds) {
  std::vector<float> a(100 * 50);
  const auto g = make_global_tensor(a.data(), {index_t{100}, index_t{50}}, {index_t{50}, index_t{1}});
  const auto tile = local_tile<Tile>(g, 0, 0);  // (128,64) over a 100 x 50 matrix
  EXPECT_FALSE(tile.full());
  const auto part = VectorCopy{}.get_slice(8 * 3 + 6).partition_S(tile);  // row 3, columns 48..55
  for (int r = 0; r < 8; ++r) {
    const auto s = part(_, r, 0);
    for (int v = 0; v < 8; ++v) {
      const index_t row = 3 + 16 * r, col = 48 + v;
      EXPECT_EQ(coord_field(s.coord(v), 0), row);
      EXPECT_EQ(coord_field(s.coord(v), 1), col);
      EXPECT_EQ(s.inside(v), row < 100 && col < 50);
      if (s.inside(v)) {
        EXPECT_EQ(s.addr(v), a.data() + row * 50 + col);
      }
    }
  }
}

TEST(Tensor, GroupModesAndCoordinateTiles) {
  std::vector<int> buf(2 * 3 * 4);
  constexpr Layout L = make_layout(make_shape(2, 3, 4));
  const auto t = make_smem_tensor<L>(buf.data());
  const auto g = group_modes<1, 3>(t);
  EXPECT_EQ(to_string(decltype(g)::layout_type::value), "(2,(3,4)):(1,(2,6))");
  EXPECT_EQ(&g(1, 5), &t(1, 2, 1));
  // The coordinates of a (128,64) tile with 100 x 50 inside, partitioned like data.
  const auto c = make_coord_tile<Tile>(100, 50);
  const auto tc = VectorCopy{}.get_slice(0).partition_S(c);
  EXPECT_TRUE(tc.inside(0));
  EXPECT_EQ(coord_field(tc.coord(8 * 7), 0), 112);
  EXPECT_FALSE(tc.inside(8 * 7));
}

// 32-bit shared addresses (SmemAddrEngine): the same partitions as a pointer into shared memory, offsets in int
// and addresses in 32 bits, swizzled or not.
TEST(Tensor, SharedAddressPartitionsMatchPointerPartitions) {
  static_assert(std::is_same_v<decltype(SmemAddr<float>{1024} + 3), SmemAddr<float>>);
  EXPECT_EQ((SmemAddr<float>{1024} + 3).addr, 1036u);
  EXPECT_EQ(SmemAddr<float>{1024}[3].addr, 1036u);
  std::vector<float> smem(128 * 64);
  const std::uint32_t base = 0x400;  // any 16-byte aligned shared address
  const auto addr_of = [&](const float* p) { return base + static_cast<std::uint32_t>((p - smem.data()) * 4); };
  constexpr Layout L = make_layout(make_shape(128, 64), LayoutRight{});
  constexpr SwizzledLayout SL{Swizzle{3, 2, 3}, L};  // 16-byte chunks of 128-byte rows, 8 chunks swizzled
  const auto plain = make_smem_tensor<L>(smem.data());
  const auto plain32 = make_smem_tensor<L>(SmemAddr<float>{base});
  const auto swz = make_smem_tensor<SL>(smem.data());
  const auto swz32 = make_smem_tensor<SL>(SmemAddr<float>{base});
  EXPECT_EQ(plain32(5, 2).addr, base + 4 * (5 * 64 + 2));
  for (int t = 0; t < 128; ++t) {
    const auto p = VectorCopy{}.get_slice(t).partition_S(plain);
    const auto p32 = VectorCopy{}.get_slice(t).partition_S(plain32);
    const auto ps = VectorCopy{}.get_slice(t).partition_S(swz);
    const auto ps32 = VectorCopy{}.get_slice(t).partition_S(swz32);
    static_assert(std::is_same_v<decltype(p32)::layout_type::offset_type, int>);
    static_assert(std::is_same_v<decltype(p)::layout_type::offset_type, index_t>);
    static_assert(std::is_same_v<decltype(ps32.addr(0)), SmemAddr<float>>);
    for (int v = 0; v < decltype(p)::kValues; ++v) {
      EXPECT_EQ(p32.addr(v).addr, addr_of(p.addr(v)));
      EXPECT_EQ(ps32.addr(v).addr, addr_of(ps.addr(v)));
    }
    for (int r = 0; r < 8; ++r)  // slices keep int offsets and the thread's swizzled base
      for (int v = 0; v < 8; ++v) EXPECT_EQ(ps32(_, r, 0).addr(v).addr, addr_of(ps(_, r, 0).addr(v)));
  }
}

// Sw(x) in x's own type: the same bits as the 64-bit Swizzle, for int and index_t.
TEST(Tensor, SwizzleInTheOffsetType) {
  constexpr Swizzle sw{2, 2, 3};  // the 64-byte TMA swizzle on 4-byte elements
  for (int x = 0; x < 4096; ++x) {
    EXPECT_EQ(detail::swizzle_as<sw>(x), sw(x));
    EXPECT_EQ(detail::swizzle_as<sw>(index_t{x}), sw(x));
  }
  static_assert(std::is_same_v<decltype(detail::swizzle_as<sw>(3)), int>);
  static_assert(detail::swizzle_as<sw>(197) == (197 ^ 8));  // bits 5..6 (10) XOR-ed into bits 2..3
}

// A unit-stride mode (Strided<R, I, U>): narrow_offsets checks that stride, offsets and partitions take the
// coordinate as is, and a vector must run along that mode.
TEST(Tensor, UnitStrideModeNarrowsAndAddressesAsTheRuntimeStride) {
  for (auto [M, N] : std::vector<std::pair<int, int>>{{1, 4}, {127, 60}, {200, 136}}) {
    std::vector<float> a(static_cast<std::size_t>(M * (N + 3)));
    const index_t ld = N + 3;  // padded rows
    const auto g = make_global_tensor(a.data(), {index_t{M}, index_t{N}}, {ld, index_t{1}});
    Tensor<ViewEngine<float, Space::global>, Strided<2, int, 1>> gu{};
    ASSERT_TRUE(narrow_offsets<Tile>(g, gu));
    static_assert(decltype(gu)::layout_type::kUnitMode == 1);
    EXPECT_EQ(gu.layout(3, 2), 3 * ld + 2);
    for (int bm = 0; bm < (M + 127) / 128; ++bm)
      for (int bn = 0; bn < (N + 63) / 64; ++bn) {
        const auto tu = local_tile<Tile>(gu, bm, bn);
        const auto t64 = local_tile<Tile>(g, bm, bn);
        static_assert(decltype(tu)::layout_type::kUnitMode == 1);
        EXPECT_EQ(tu.data(), t64.data());
        for (int t = 0; t < 128; t += 7) {
          const auto pu = VectorCopy{}.get_slice(t).partition_S(tu);
          const auto p64 = VectorCopy{}.get_slice(t).partition_S(t64);
          for (int v = 0; v < decltype(pu)::kValues; ++v) {
            EXPECT_EQ(pu.inside(v), p64.inside(v));
            if (p64.inside(v)) {
              EXPECT_EQ(pu.addr(v), p64.addr(v));
            }
          }
        }
      }
  }
  // Columns of stride 4 are not a unit-stride mode 1: refused, out untouched.
  std::vector<float> b(16);
  Tensor<ViewEngine<float, Space::global>, Strided<2, int, 1>> gu{};
  EXPECT_FALSE(narrow_offsets(make_global_tensor(b.data(), {index_t{4}, index_t{4}}, {index_t{1}, index_t{4}}), gu));
  EXPECT_EQ(gu.data(), nullptr);
  // The same tensor narrows without a unit-stride mode.
  Tensor<ViewEngine<float, Space::global>, Strided<2, int>> g32{};
  EXPECT_TRUE(narrow_offsets(make_global_tensor(b.data(), {index_t{4}, index_t{4}}, {index_t{1}, index_t{4}}), g32));
}
