// The algebra through the C++ API at run time: results, the error model
// (status code + message naming the rule), tilers, swizzled layouts.
#include <gtest/gtest.h>

#include "tessel/tessel.hpp"

using namespace tessel;

namespace {
Layout L(const IntTuple& s, const IntTuple& d) { return make_layout(s, d); }
}  // namespace

TEST(Algebra, CompositionExamples) {
  // docs/algebra.md §6.2
  EXPECT_EQ(
      to_string(composition(L(make_shape(6, 2), make_stride(8, 2)), L(make_shape(4, 3), make_stride(3, 1))).value()),
      "((2,2),3):((24,2),8)");
  EXPECT_EQ(
      to_string(composition(L(make_shape(10, 2), make_stride(16, 4)), L(make_shape(5, 4), make_stride(1, 5))).value()),
      "(5,(2,2)):(16,(80,4))");
  EXPECT_EQ(to_string(composition(L(make_int(20), make_int(2)), L(make_shape(5, 4), make_stride(4, 1))).value()),
            "(5,4):(8,2)");
  EXPECT_EQ(
      to_string(
          composition(L(make_shape(3, 6, 2, 8), make_stride(1, 5, 40, 100)), L(make_int(16), make_int(9))).value()),
      "(2,2,4):(15,40,100)");
}

TEST(Algebra, CompositionWithTilers) {
  const Layout A = L(make_shape(12, make_tuple(4, 8)), make_stride(59, make_tuple(13, 1)));
  EXPECT_EQ(to_string(composition(A, make_tiler(L(make_int(3), make_int(4)), L(make_int(8), make_int(2)))).value()),
            "(3,(2,4)):(236,(26,1))");
  EXPECT_EQ(to_string(composition(A, make_tiler(3, 8)).value()), "(3,(4,2)):(59,(13,1))");
  EXPECT_EQ(to_string(composition(L(make_shape(16, 4), make_stride(5, 4)), make_tiler(8, _)).value()), "(8,4):(5,4)");
  EXPECT_EQ(to_string(composition(L(make_shape(6, 8), make_stride(1, 6)), make_tiler(_)).value()), "(6):(1)");
  EXPECT_EQ(to_string(composition(L(make_shape(4, 2), make_stride(2, 1)), make_tiler(1)).value()), "(1):(2)");
}

TEST(Algebra, CompositionErrorsNameTheRule) {
  const auto r = composition(L(make_shape(4, 2), make_stride(2, 1)), L(make_shape(4, 3), make_stride(12, 2)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), Errc::shape_divisibility);
  EXPECT_EQ(r.error().message(), "shape-divisibility: extent 3 of B at mode 0 of coalesce(A) is not divisible by 2");

  const auto s = composition(L(make_shape(16, 16), make_stride(16, 1)), L(make_shape(2, 3), make_stride(8, 24)));
  EXPECT_EQ(s.code(), Errc::stride_divisibility);
  EXPECT_NE(s.error().message().find("stride 24"), std::string::npos) << s.error().message();

  // Accepted by CuTe but wrong there: rejected here (docs/algebra.md §6.3).
  EXPECT_EQ(composition(L(make_shape(6, 2), make_stride(1, 10)), L(make_int(4), make_int(4))).code(),
            Errc::inexact_division);
  EXPECT_EQ(composition(L(make_shape(4, make_tuple(3, 2)), make_stride(1, make_tuple(8, 4))),
                        L(make_shape(8, 2), make_stride(1, 8)))
                .code(),
            Errc::overlap);
  EXPECT_EQ(logical_divide(L(make_int(8), make_int(1)), make_tiler(2, 2)).code(), Errc::tiler_rank);
}

TEST(Algebra, ValueThrowsOnTheHost) {
  const auto r = complement(L(make_shape(2, 2), make_stride(1, 1)), 16);
  EXPECT_EQ(r.code(), Errc::non_injective);
  try {
    (void)r.value();
    FAIL() << "value() of an error must throw";
  } catch (const AlgebraError& e) {
    EXPECT_EQ(e.error().code, Errc::non_injective);
    EXPECT_NE(std::string(e.what()).find("non-injective"), std::string::npos);
  }
}

TEST(Algebra, ComplementAndInverses) {
  EXPECT_EQ(to_string(complement(L(make_int(4), make_int(1)), 24).value()), "6:4");
  EXPECT_EQ(to_string(complement(L(make_int(4), make_int(2)), 24).value()), "(2,3):(1,8)");
  EXPECT_EQ(to_string(complement(L(make_shape(2, 2), make_stride(1, 6)), 24).value()), "(3,2):(2,12)");
  EXPECT_EQ(to_string(complement(L(make_int(16), make_int(1)), make_shape(make_tuple(4, 2), 4)).value()), "2:16");
  EXPECT_EQ(to_string(complement(L(make_int(8), make_int(0)), make_shape(make_tuple(8, 2), 1)).value()), "16:1");
  EXPECT_EQ(to_string(right_inverse(L(make_shape(2, 3, 2), make_stride(2, 2, 1))).value()), "(2,3):(6,2)");
  EXPECT_EQ(to_string(right_inverse(L(make_shape(2, 3), make_stride(1, 1))).value()), "2:1");
  EXPECT_EQ(to_string(left_inverse(L(make_int(16), make_int(5))).value()), "(5,16):(0,1)");
  EXPECT_EQ(to_string(left_inverse(L(make_shape(4, 8, 8), make_stride(1, 4, 32))).value()), "256:1");
}

TEST(Algebra, DividesAndProducts) {
  const Layout A = L(make_shape(9, make_tuple(4, 8)), make_stride(59, make_tuple(13, 1)));
  const Tiler T = make_tiler(L(make_int(3), make_int(3)), L(make_shape(2, 4), make_stride(1, 8)));
  EXPECT_EQ(to_string(logical_divide(A, T).value()), "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  EXPECT_EQ(to_string(zipped_divide(A, T).value()), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  EXPECT_EQ(to_string(tiled_divide(A, T).value()), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  EXPECT_EQ(to_string(flat_divide(A, T).value()), "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
  EXPECT_EQ(to_string(logical_divide(L(make_shape(4, 2), make_stride(1, 4)), make_tiler(1, _)).value()),
            "((1,4),2):((0,1),4)");
  EXPECT_EQ(to_string(logical_product(L(make_int(8), make_int(3)), L(make_tuple(6), make_tuple(1))).value()),
            "(8,((3,2))):(3,((1,24)))");
  EXPECT_EQ(to_string(tiled_product(L(make_shape(8, 4), make_stride(4, 1)), L(make_int(8), make_int(4))).value()),
            "((8,4),8):((4,1),128)");
  EXPECT_EQ(to_string(blocked_product(L(make_shape(2, 2), make_stride(1, 2)), L(make_int(4), make_int(1))).value()),
            "((2,4),(2,1)):((1,4),(2,0))");
  EXPECT_EQ(to_string(raked_product(L(make_tuple(2), make_tuple(1)), L(make_int(6), make_int(1))).value()),
            "((6,(2))):((2,(1)))");
  EXPECT_EQ(to_string(tile_to_shape(L(make_shape(2, 2), make_stride(1, 2)), make_shape(6, 8, 4)).value()),
            "((2,3),(2,4),(1,4)):((1,4),(2,12),(0,48))");
  EXPECT_EQ(tile_to_shape(L(make_shape(4, 3), make_stride(1, 4)), make_shape(10, 6)).code(), Errc::tile_divisibility);
}

TEST(Algebra, SwizzledLayouts) {
  const SwizzledLayout S = compose(make_swizzle(3, 3, 3).value(), L(make_shape(8, 64), make_stride(64, 1)));
  EXPECT_EQ(S(make_coord(3, 5)), 221);
  EXPECT_EQ(compose(make_swizzle(2, 3, 3).value(), L(make_shape(8, 64), make_stride(64, 1)))(make_coord(7, 63)), 487);
  const SwizzledLayout atom =
      compose(Swizzle{3, 3, 3}, L(make_shape(8, make_tuple(8, 8)), make_stride(8, make_tuple(1, 64))));
  EXPECT_EQ(to_string(composition(atom, make_tiler(4, 32)).value()), "Sw<3,3,3>o((4,(8,4)):(8,(1,64)))");
  EXPECT_EQ(to_string(tile_to_shape(atom, make_shape(128, 64)).value()),
            "Sw<3,3,3>o(((8,16),((8,8),1)):((8,512),((1,64),0)))");
  EXPECT_EQ(make_swizzle(3, 3, 2).code(), Errc::swizzle);
  // An identity swizzle prints as the plain layout.
  EXPECT_EQ(to_string(compose(Swizzle{0, 4, 3}, L(make_shape(4, 8), make_stride(1, 4)))), "(4,8):(1,4)");
}

TEST(Algebra, NegativeStridesAreRejectedByTheAlgebra) {
  const Layout neg = L(make_int(4), make_int(-1));
  EXPECT_EQ(neg(3), -3);  // evaluation is fine
  EXPECT_EQ(cosize(neg), 4);
  EXPECT_EQ(composition(neg, L(make_int(2), make_int(1))).code(), Errc::value_range);
  EXPECT_EQ(complement(neg).code(), Errc::value_range);
}

TEST(Algebra, RunTimeExtentsGiveTheStaticResults) {
  // A global m x k row-major matrix tiled by 128 x 64, with m and k known only at run time.
  volatile int vm = 1024, vk = 512;
  const int m = vm, k = vk;
  const Layout global = make_layout(make_shape(m, k), LayoutRight{});
  EXPECT_EQ(to_string(zipped_divide(global, make_tiler(_128{}, _64{})).value()),
            "((128,64),(8,8)):((512,1),(65536,64))");
  // A tile that does not divide the extent: the grid rounds up (docs/algebra.md §7.2 step 5,
  // ceil(1025/128) = 9 tiles); the last tile reaches past row 1024, so kernels
  // must predicate it (copy_if), exactly as with CuTe.
  const Layout odd = make_layout(make_shape(m + 1, k), LayoutRight{});
  EXPECT_EQ(to_string(zipped_divide(odd, make_tiler(_128{}, _64{})).value()), "((128,64),(9,8)):((512,1),(65536,64))");
}

TEST(Docs, ReadmeLibraryExample) {
  // The C++ example of README.md, "The library".
  constexpr Layout A = make_layout(make_shape(6, 20), LayoutRight{});
  constexpr Layout T = logical_divide(A, make_tiler(_2{}, _4{})).value();
  static_assert(T(make_coord(make_coord(1, 2), make_coord(3, 4))) == A(5, 19));
  volatile int vm = 1000, vk = 640;
  const int m = vm, k = vk;
  const Result<Layout> tiles = zipped_divide(make_layout(make_shape(m, k), LayoutRight{}), make_tiler(_128{}, _64{}));
  ASSERT_TRUE(tiles.ok()) << tiles.error().message();
  EXPECT_EQ(to_string(tiles.value()), "((128,64),(8,10)):((640,1),(81920,64))");
}

// ---------------------------------------------------------------- robustness (64-bit values, no overflow, no crash)

namespace {
constexpr index_t k2p62 = index_t{1} << 62;
Layout raw(const IntTuple& s, const IntTuple& d) { return Layout{s, d}; }  // unchecked, as a caller could build it
}  // namespace

TEST(Robustness, CheckedArithmetic) {
  EXPECT_EQ(kMaxIndex, INT64_MAX);
  EXPECT_FALSE(mul_overflows(3037000499, 3037000499));
  EXPECT_TRUE(mul_overflows(3037000500, 3037000500));
  EXPECT_TRUE(mul_overflows(k2p62, 2));
  EXPECT_TRUE(mul_overflows(-k2p62, -2));
  EXPECT_FALSE(mul_overflows(-k2p62, 2));  // -2^63 fits
  EXPECT_TRUE(mul_overflows(kMinIndex, -1));
  EXPECT_FALSE(mul_overflows(kMaxIndex, 0));
  EXPECT_TRUE(add_overflows(kMaxIndex, 1));
  EXPECT_FALSE(add_overflows(kMaxIndex, 0));
  EXPECT_TRUE(add_overflows(kMinIndex, -1));
  EXPECT_EQ(sat_mul(k2p62, 4), kMaxIndex);
  EXPECT_EQ(sat_mul(k2p62, -4), kMinIndex);
  EXPECT_EQ(sat_mul(kMaxIndex, 0), 0);
  EXPECT_EQ(ceil_div(kMaxIndex, 2), k2p62);  // no overflow in a + b - 1
  EXPECT_EQ(ceil_div(index_t{7}, index_t{2}), 4);
  // size() of a tuple: exact when it fits, 0 with a 0 leaf (in any position), saturated otherwise.
  EXPECT_EQ(size(make_shape(0, 2147483647, 2147483647, 2147483647)), 0);
  EXPECT_EQ(size(make_shape(2147483647, 2147483647, 2147483647, 0)), 0);
  EXPECT_EQ(size(make_shape(2147483647, 2147483647, 2147483647)), kMaxIndex);
  EXPECT_EQ(size(make_shape(65536, 65536, 65536)), index_t{1} << 48);
}

TEST(Robustness, LayoutsOf64BitExtents) {
  const auto big = make_layout_checked(make_shape(65536, 65536, 65536), make_stride(1, 65536, index_t{1} << 32));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(size(big.val), 281474976710656);
  EXPECT_EQ(make_layout_checked(make_int(kMaxIndex), make_int(1)).code(), Errc::ok);
  EXPECT_EQ(make_layout_checked(make_int(kMaxIndex), make_int(2)).code(), Errc::value_range);  // cosize 2^64 - 1
  EXPECT_EQ(make_layout_checked(make_shape(k2p62, 2), make_stride(1, k2p62)).code(), Errc::value_range);  // size 2^63
  EXPECT_EQ(make_layout_checked(make_shape(2, 2), make_stride(k2p62, k2p62)).code(), Errc::value_range);  // cosize
  EXPECT_EQ(make_layout_checked(make_shape(1, 4), make_stride(kMinIndex, 1)).code(), Errc::ok);  // extent 1: any stride
  EXPECT_EQ(make_layout_checked(make_shape(2, 4), make_stride(kMinIndex, 1)).code(), Errc::value_range);
  // A result the algebra prints is a valid layout (it used to print strides it then refused).
  const auto c = composition(L(make_int(1), make_int(2147483647)), L(make_int(2), make_int(1073741823)));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(to_string(c.val), "2:2305843005992468481");
  EXPECT_EQ(check_layout(c.val).code, Errc::ok);
}

TEST(Robustness, ZeroExtentsAreRejectedNotDividedBy) {
  const Layout l21 = L(make_int(2), make_int(1));
  for (const IntTuple& cotarget :
       {make_int(0), make_tuple(0), make_tuple(0, 2), make_tuple(16, 0), make_tuple(make_tuple(0, 2), 4)}) {
    const auto r = complement(l21, cotarget);
    EXPECT_EQ(r.code(), Errc::value_range) << to_string(cotarget);
    EXPECT_NE(r.error().message().find("cotarget extent 0"), std::string::npos) << r.error().message();
  }
  const auto t = tile_to_shape(L(make_int(1), make_int(0)), make_tuple(0, make_tuple(2147483647, 2147483647, 3)));
  EXPECT_EQ(t.code(), Errc::value_range);
  EXPECT_EQ(t.error().message(),
            "value-range: target extent 0 (leaf 0 of the target, counting from 0) is not positive");
  EXPECT_EQ(tile_to_shape(L(make_int(1), make_int(0)), make_tuple(1, make_tuple(2147483647, 2147483647, 3))).code(),
            Errc::value_range);  // size of the target overflows
  // The C++ API given a layout that was never checked: an error, not a crash.
  EXPECT_EQ(composition(raw(make_int(0), make_int(1)), l21).code(), Errc::value_range);
  EXPECT_EQ(complement(raw(make_shape(2, 0), make_stride(1, 2))).code(), Errc::value_range);
  EXPECT_EQ(right_inverse(raw(make_shape(k2p62, 4), make_stride(1, k2p62))).code(), Errc::value_range);
  EXPECT_EQ(logical_divide(raw(make_int(8), make_int(1)), raw(make_int(0), make_int(1))).code(), Errc::value_range);
}

TEST(Robustness, OverflowingResultsAreErrors) {
  EXPECT_EQ(composition(L(make_int(k2p62), make_int(2)), L(make_int(2), make_int(k2p62))).code(), Errc::value_range);
  EXPECT_EQ(complement(L(make_int(2), make_int(k2p62))).code(), Errc::value_range);
  EXPECT_EQ(logical_product(L(make_int(k2p62), make_int(1)), L(make_int(2), make_int(2))).code(), Errc::value_range);
  EXPECT_EQ(logical_divide(L(make_int(kMaxIndex), make_int(1)), make_tiler(3)).code(), Errc::value_range);
  EXPECT_EQ(tile_to_shape(L(make_int(2), make_int(1)), make_shape(kMaxIndex, 2)).code(), Errc::value_range);
  // ...while results that fit are exact.
  EXPECT_EQ(to_string(complement(L(make_int(2), make_int(1)), kMaxIndex).value()), "4611686018427387904:2");
  EXPECT_EQ(to_string(right_inverse(L(make_int(kMaxIndex), make_int(1))).value()), "9223372036854775807:1");
}

TEST(Robustness, ExtentOneStridesOverflowNothing) {
  // An extent-1 leaf of B adds no offset: a stride with no image through A
  // that fits (or no image at all) gives stride 0 instead of an error.
  EXPECT_EQ(to_string(composition(L(make_int(1), make_int(2)), L(make_int(1), make_int(k2p62))).value()), "1:0");
  EXPECT_EQ(to_string(composition(L(make_int(2), make_int(2)), L(make_shape(2, 1), make_stride(1, k2p62))).value()),
            "(2,1):(2,0)");
  EXPECT_EQ(to_string(composition(L(make_shape(4, 3), make_stride(1, 5)), L(make_int(1), make_int(6))).value()), "1:0");
  EXPECT_EQ(to_string(composition(L(make_int(8), make_int(2)), L(make_int(1), make_int(3))).value()), "1:6");
  // The same stride on extent 2 still overflows, and still says so.
  const auto r = composition(L(make_int(2), make_int(2)), L(make_int(2), make_int(k2p62)));
  EXPECT_EQ(r.code(), Errc::value_range);
  EXPECT_EQ(r.error().message(), "value-range: a stride of the result would exceed 9223372036854775807");
}

TEST(Robustness, MessagesNameTheRealCause) {
  // A rank-1 tuple against an integer, in either product.
  const auto b = blocked_product(L(make_tuple(2), make_tuple(1)), L(make_int(2), make_int(1)));
  EXPECT_EQ(b.code(), Errc::tiler_rank);
  EXPECT_NE(b.error().message().find("A's shape is a tuple of rank 1 but B's is the integer 2"), std::string::npos)
      << b.error().message();
  const auto r = raked_product(L(make_int(2), make_int(1)), L(make_tuple(2), make_tuple(1)));
  EXPECT_NE(r.error().message().find("B's shape is a tuple of rank 1 but A's is the integer 2"), std::string::npos)
      << r.error().message();
  EXPECT_EQ(to_string(blocked_product(L(make_int(2), make_int(1)), L(make_tuple(2), make_tuple(1))).value()),
            "((2,(2))):((1,(2)))");
  // Only the cosize overflows: every offset (the largest is 2^63 - 1) fits.
  const Error c = check_layout(raw(make_int(2), make_int(kMaxIndex)));
  EXPECT_EQ(c.code, Errc::value_range);
  EXPECT_EQ(c.message(),
            "value-range: the cosize of the layout, 1 + 9223372036854775807, exceeds 9223372036854775807: every "
            "offset fits, but not their count");
  EXPECT_EQ(check_layout(raw(make_int(3), make_int(kMaxIndex))).message(),
            "value-range: the cosize of the layout exceeds 9223372036854775807 (its largest offset does not fit)");
}

TEST(Algebra, AShapeIsATiler) {
  // As in CuTe: a tuple of integers is a by-mode tiler of stride-1 layouts,
  // an integer n the layout n:1.
  const Layout A = L(make_shape(8, 12), make_stride(12, 1));
  EXPECT_EQ(logical_divide(A, make_shape(2, 4)).value(), logical_divide(A, make_tiler(2, 4)).value());
  EXPECT_EQ(zipped_divide(A, make_shape(2, 4)).value(),
            zipped_divide(A, make_tiler(L(make_int(2), make_int(1)), L(make_int(4), make_int(1)))).value());
  EXPECT_EQ(tiled_product(A, make_shape(3, 2)).value(), tiled_product(A, make_tiler(3, 2)).value());
  EXPECT_EQ(composition(A, make_shape(2, 4)).value(), composition(A, make_tiler(2, 4)).value());
  EXPECT_EQ(flat_divide(A, make_int(4)).value(), flat_divide(A, L(make_int(4), make_int(1))).value());
  EXPECT_EQ(to_string(logical_divide(L(make_shape(8, 8), make_stride(1, 8)), make_shape(2, 4)).value()),
            "((2,4),(4,2)):((1,2),(8,32))");
  static_assert(logical_divide(make_layout(make_shape(8, 8)), make_shape(2, 4)).ok());
  // A nested mode is not a shape tiler; extents must be positive.
  EXPECT_EQ(logical_divide(A, make_tuple(2, make_tuple(2, 2))).code(), Errc::type);
  EXPECT_EQ(logical_divide(A, make_tuple(2, 0)).code(), Errc::value_range);
  EXPECT_EQ(logical_divide(A, make_tuple(2, 2, 2)).code(), Errc::tiler_rank);
}
