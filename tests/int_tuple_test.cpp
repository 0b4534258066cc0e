// Integer tuples, integers, coordinates and the Layout core (docs/algebra.md §2–§4).
#include <gtest/gtest.h>

#include "tessel/core/pack.hpp"
#include "tessel/tessel.hpp"

using namespace tessel;

TEST(Integer, StaticArithmeticStaysStatic) {
  static_assert(std::is_same_v<decltype(_4{} * _8{}), Int<32>>);
  static_assert(std::is_same_v<decltype(_4{} + _m4{}), Int<0>>);
  static_assert(std::is_same_v<decltype(ceil_div(_7{}, _2{})), Int<4>>);
  static_assert(_256::value == 256 && _m16::value == -16);
  int k = 3;
  auto mixed = _4{} * k;
  static_assert(std::is_same_v<decltype(mixed), index_t>);
  EXPECT_EQ(mixed, 12);
}

TEST(IntTuple, BuildAndMeasure) {
  const IntTuple t = make_shape(3, make_tuple(6, 2), _8{});
  EXPECT_EQ(to_string(t), "(3,(6,2),8)");
  EXPECT_EQ(rank(t), 3);
  EXPECT_EQ(depth(t), 2);
  EXPECT_EQ(size(t), 288);
  EXPECT_EQ(to_string(flatten(t)), "(3,6,2,8)");
  EXPECT_EQ(to_string(mode(t, 1)), "(6,2)");
  EXPECT_EQ(depth(make_int(6)), 0);
  EXPECT_EQ(rank(make_int(6)), 1);
  EXPECT_EQ(rank(make_tuple(2)), 1);
  EXPECT_EQ(depth(make_tuple(2)), 1);
}

TEST(IntTuple, RunTimeAndStaticMix) {
  const std::int32_t m = 100;
  const std::int64_t k = std::int64_t{1} << 33;
  const IntTuple t = make_shape(m, _64{}, k);
  EXPECT_EQ(to_string(t), "(100,64,8589934592)");
  EXPECT_EQ(size(t), 100 * 64 * k);
}

TEST(IntTuple, Congruence) {
  EXPECT_TRUE(congruent(make_shape(2, make_tuple(3, 4)), make_shape(1, make_tuple(6, 2))));
  EXPECT_FALSE(congruent(make_shape(2, 3), make_shape(2, make_tuple(1, 1))));
  EXPECT_TRUE(weakly_congruent(make_shape(1, 5), make_shape(3, make_tuple(2, 3))));
  EXPECT_FALSE(weakly_congruent(make_shape(1, make_tuple(1, 1, 0)), make_shape(4, make_tuple(3, 2))));
  EXPECT_TRUE(compatible(make_int(24), make_shape(4, 6)));
  EXPECT_TRUE(compatible(make_shape(4, 6), make_shape(make_tuple(2, 2), 6)));
  EXPECT_FALSE(compatible(make_tuple(24), make_int(24)));
  EXPECT_FALSE(compatible(make_shape(make_tuple(2, 3), 4), make_shape(make_tuple(2, 2), make_tuple(3, 2))));
}

TEST(Coordinates, Idx2CrdAndCrd2Idx) {
  const IntTuple S = make_shape(3, make_tuple(2, 3));
  const IntTuple D = make_stride(3, make_tuple(12, 1));
  EXPECT_EQ(to_string(idx2crd(16, S)), "(1,(1,2))");
  EXPECT_EQ(to_string(idx2crd(5, S)), "(2,(1,0))");
  EXPECT_EQ(to_string(idx2crd(make_coord(1, 5), S)), "(1,(1,2))");
  EXPECT_EQ(to_string(idx2crd(20, make_shape(16, 3))), "(4,1)");  // the last mode keeps the quotient
  EXPECT_EQ(crd2idx(make_int(16), S, D), 17);
  EXPECT_EQ(crd2idx(make_coord(1, 5), S, D), 17);
  EXPECT_EQ(crd2idx(make_coord(1, make_tuple(1, 2)), S, D), 17);
  EXPECT_EQ(crd2idx(make_int(11), make_shape(6, 6), make_stride(6, 0)), 30);
  for (index_t i = 0; i < size(S); ++i) EXPECT_EQ(crd2idx(idx2crd(i, S), S, D), crd2idx(make_int(i), S, D));
}

TEST(Coordinates, Checks) {
  const IntTuple S = make_shape(4, 3);
  EXPECT_EQ(check_coord(make_coord(3, 2), S).code, Errc::ok);
  EXPECT_EQ(check_coord(make_coord(4, 0), S).code, Errc::coordinate_range);
  EXPECT_EQ(check_coord(make_int(12), S).code, Errc::coordinate_range);
  EXPECT_EQ(check_coord(make_coord(1, 1, 1), S).code, Errc::coordinate_rank);
  EXPECT_EQ(check_coord(make_coord(1, 2), make_int(8)).code, Errc::coordinate_rank);
}

TEST(Layout, EvaluateAndMeasure) {
  const Layout L = make_layout(make_shape(4, 3), make_stride(3, 1));
  EXPECT_EQ(L(2, 1), 7);
  EXPECT_EQ(L(13), 6);  // extended evaluation: 13%4*3 + 13/4*1
  EXPECT_EQ(size(L), 12);
  EXPECT_EQ(cosize(L), 12);
  EXPECT_EQ(cosize(make_layout(make_int(8), make_int(2))), 15);
  EXPECT_EQ(cosize(make_layout(make_shape(4, 4, 8), make_stride(5, 5, 0))), 31);
  const Layout H = make_layout(make_shape(3, make_tuple(2, 3)), make_stride(3, make_tuple(12, 1)));
  EXPECT_EQ(H(1, 4), 5);
  EXPECT_EQ(to_string(mode(H, 1)), "(2,3):(12,1)");
}

TEST(Layout, CompactStrides) {
  EXPECT_EQ(to_string(make_layout(make_shape(2, 4))), "(2,4):(1,2)");
  EXPECT_EQ(to_string(make_layout(make_shape(2, 4), LayoutRight{})), "(2,4):(4,1)");
  EXPECT_EQ(to_string(make_layout(make_shape(2, make_tuple(2, 2)), LayoutRight{})), "(2,(2,2)):(4,(2,1))");
  EXPECT_EQ(to_string(make_layout(make_shape(3, make_tuple(6, 2), 8))), "(3,(6,2),8):(1,(3,18),36)");
  EXPECT_EQ(to_string(make_layout(make_shape(8, 1, 4))), "(8,1,4):(1,0,8)");
  EXPECT_EQ(to_string(make_layout(make_shape(8, 1, 4), LayoutRight{})), "(8,1,4):(4,0,1)");
}

TEST(Layout, Concatenation) {
  const Layout a = make_layout(make_int(3), make_int(1));
  const Layout b = make_layout(make_int(4), make_int(3));
  EXPECT_EQ(to_string(make_layout(a, b)), "(3,4):(1,3)");
  EXPECT_EQ(to_string(make_layout(a)), "(3):(1)");
}

TEST(Layout, InvalidInputIsRejected) {
  EXPECT_EQ(make_layout_checked(make_shape(4, 3), make_stride(3, 1, 2)).code(), Errc::congruence);
  EXPECT_EQ(make_layout_checked(make_shape(4, 0), make_stride(1, 4)).code(), Errc::value_range);
  EXPECT_THROW(make_layout(make_shape(4, 3), make_stride(3, 1, 2)), AlgebraError);
}

TEST(Layout, CapacityIsReportedNotTruncated) {
  IntTuple t;
  push_tok(t, kTokOpen);
  for (int i = 0; i < kMaxLeaves + 1; ++i) push_leaf(t, 2);
  push_tok(t, kTokClose);
  EXPECT_TRUE(t.overflow);
  EXPECT_EQ(make_layout_checked(t, t).code(), Errc::capacity);
}

TEST(Print, PrintLayoutTable) {
  const std::string s = print_layout(make_layout(make_shape(2, 3), make_stride(3, 1)));
  EXPECT_EQ(s,
            "(2,3):(3,1)\n"
            "      0   1   2 \n"
            "    +---+---+---+\n"
            "  0 | 0 | 1 | 2 |\n"
            "    +---+---+---+\n"
            "  1 | 3 | 4 | 5 |\n"
            "    +---+---+---+\n");
}

TEST(Pack, PairsInPtxOrder) {
  EXPECT_EQ(pack_pair(std::uint16_t{0x1234}, std::uint16_t{0xABCD}), 0xABCD1234u);
  std::uint16_t lo = 0, hi = 0;
  unpack_pair(0xABCD1234u, lo, hi);
  EXPECT_EQ(lo, 0x1234);
  EXPECT_EQ(hi, 0xABCD);
}
