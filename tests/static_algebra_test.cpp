// tests/static_algebra_test.cpp — the layout algebra folded at compile time.
//
// THE FILE COMPILING IS THE PROOF.  Almost every check below is a
// `static_assert` over a `constexpr` computation: layouts built from constants
// (plain integers or `Int<N>` such as `_4{}`) are pushed through
// make_layout, coalesce, filter, composition, complement, the inverses, every
// divide and product, tile_to_shape and the swizzles, and the compiler itself
// compares each result with its golden result (docs/algebra.md, tests/data/)
// (exact structure and strides: `Layout::operator==` compares nesting and
// every stride, including those of extent-1 leaves).  If any of them were not
// foldable, or folded to a different layout, this translation unit would not
// compile.  Errors are values too: an inadmissible input yields a `Result`
// whose `.code()` is checked with static_assert.
//
// `StaticLayout<L>` (static_layout.hpp) lifts a layout value, including any
// algebra result, into a type whose evaluation is unrolled over constants; it
// is checked index by index against the value-level `Layout::operator()`.
//
// The TEST()s at the end repeat some of the same computations with inputs the
// compiler cannot see (read through `volatile`), and expect the same results:
// one implementation serves both compile time and run time.
//
// Asking for the value of an error in a constant expression does not compile,
// and the diagnostic names the broken rule.  For example (not compiled here):
//
//   constexpr Layout A = make_layout(make_shape(16, 16), make_stride(16, 1));
//   constexpr Layout B = make_layout(make_shape(2, 3), make_stride(8, 24));
//   constexpr auto bad = composition(A, B).value();   // stride 24 vs extent 16
//
// Checked with a scratch file: `g++ -std=c++20 -I include` (g++ 12.2) stops with
//
//   include/tessel/core/status.hpp:158:70: error: call to non-‘constexpr’ function ‘void
//   tessel::detail::tessel_rule_stride_divisibility()’
//
// (the line numbers follow status.hpp as it was when checked), and clang 14 with
//
//   note: non-constexpr function 'tessel_rule_stride_divisibility' cannot be used in a constant expression
//
// The same diagnostic appears for `using S = StaticLayout<composition(A, B).value()>;`.

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "tessel/tessel.hpp"

namespace {

using namespace tessel;  // NOLINT: test file

// ============================================================ helpers

/// R(i) == A(B(i)) for every index of B (A evaluated with the extended rule).
constexpr bool composes_pointwise(const Layout& R, const Layout& A, const Layout& B) {
  if (size(R) != size(B)) return false;
  for (index_t i = 0; i < size(B); ++i)
    if (R(i) != A(B(i))) return false;
  return true;
}

/// Two layouts are the same function on 0..size-1.
constexpr bool same_function(const Layout& a, const Layout& b) {
  if (size(a) != size(b)) return false;
  for (index_t i = 0; i < size(a); ++i)
    if (a(i) != b(i)) return false;
  return true;
}

/// The swizzled layout equals Sw applied to the plain one at every index.
constexpr bool swizzled_pointwise(const SwizzledLayout& s) {
  for (index_t i = 0; i < size(s); ++i)
    if (s(i) != s.swizzle(s.layout(i))) return false;
  return true;
}

/// L(R(i)) == i for every i < size(R).
constexpr bool is_right_inverse(const Layout& L, const Layout& R) {
  for (index_t i = 0; i < size(R); ++i)
    if (L(R(i)) != i) return false;
  return true;
}
/// R(L(i)) == i for every i < size(L).
constexpr bool is_left_inverse(const Layout& L, const Layout& R) {
  for (index_t i = 0; i < size(L); ++i)
    if (R(L(i)) != i) return false;
  return true;
}

/// Strictly increasing on its domain (docs/algebra.md §7.1).
constexpr bool strictly_increasing(const Layout& l) {
  for (index_t i = 1; i < size(l); ++i)
    if (l(i - 1) >= l(i)) return false;
  return true;
}

/// L maps 0..n-1 one-to-one onto 0..n-1 (n ≤ 256).
constexpr bool is_bijection_onto(const Layout& l, index_t n) {
  if (size(l) != n || n > 256) return false;
  bool seen[256]{};
  for (index_t i = 0; i < n; ++i) {
    const index_t v = l(i);
    if (v < 0 || v >= n || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

constexpr bool str_eq(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

/// StaticLayout<L>(i) == L(i) for every index, with 64-bit and 32-bit indices.
template <Layout L>
constexpr bool static_matches_1d() {
  constexpr StaticLayout<L> sl{};
  for (index_t i = 0; i < size(L); ++i) {
    if (sl(i) != L(i)) return false;
    if (sl(static_cast<std::int32_t>(i)) != L(i)) return false;
  }
  return true;
}

/// StaticLayout<L>(c0,...,c{r-1}) == L(c0,...,c{r-1}) == L(i) for every
/// coordinate of a rank-r layout (r ≥ 2), c being the colexicographic
/// coordinate of i.
template <Layout L, std::size_t... K>
constexpr bool static_matches_rank_r(std::index_sequence<K...>) {
  constexpr StaticLayout<L> sl{};
  constexpr std::size_t r = sizeof...(K);
  static_assert(r >= 2 && r == static_cast<std::size_t>(rank(L)));
  const index_t ext[r] = {size(mode(L, static_cast<int>(K)))...};
  for (index_t i = 0; i < size(L); ++i) {
    index_t c[r]{};
    index_t rest = i;
    for (std::size_t k = 0; k < r; ++k) {
      c[k] = rest % ext[k];
      rest /= ext[k];
    }
    const index_t expected = L(i);
    if (L(c[K]...) != expected) return false;
    if (L(make_coord(c[K]...)) != expected) return false;
    if (sl(c[K]...) != expected) return false;
    if (sl(static_cast<std::int32_t>(c[K])...) != expected) return false;
  }
  return true;
}
template <Layout L>
constexpr bool static_matches_modes() {
  return static_matches_rank_r<L>(std::make_index_sequence<static_cast<std::size_t>(rank(L))>{});
}

/// StaticSwizzledLayout<S>(i) == S(i) for every index.
template <SwizzledLayout S>
constexpr bool static_swizzled_matches() {
  constexpr StaticSwizzledLayout<S> ss{};
  for (index_t i = 0; i < size(S); ++i)
    if (ss(i) != S(i)) return false;
  return true;
}

// ============================================================ 1. static integers

static_assert(std::is_same_v<decltype(_4{} * _8{}), Int<32>>);
static_assert(std::is_same_v<decltype(_4{} + _8{}), Int<12>>);
static_assert(std::is_same_v<decltype(_8{} - _3{}), Int<5>>);
static_assert(std::is_same_v<decltype(_3{} - _8{}), Int<-5>>);
static_assert(std::is_same_v<decltype(_32{} / _8{}), Int<4>>);
static_assert(std::is_same_v<decltype(_13{} % _4{}), Int<1>>);
static_assert(std::is_same_v<decltype(-_4{}), _m4>);
static_assert(std::is_same_v<decltype(ceil_div(_7{}, _2{})), Int<4>>);
static_assert(std::is_same_v<decltype((_2{} + _2{}) * (_16{} / _4{})), _16>);  // nested stays static
static_assert(decltype(_4{} * _8{})::value == 32);
static_assert(_4{} * _8{} == _32{});
static_assert(!(_4{} == _8{}));
// Mixing with a run-time integer falls back to index_t.
static_assert(std::is_same_v<decltype(_4{} * std::declval<index_t>()), index_t>);
static_assert(std::is_same_v<decltype(std::declval<index_t>() + _4{}), index_t>);
static_assert(std::is_same_v<decltype(ceil_div(index_t{7}, index_t{2})), index_t>);
static_assert(ceil_div(index_t{7}, index_t{2}) == 4);
static_assert(is_static_int_v<_8> && is_static_int_v<const Int<3>&> && !is_static_int_v<int>);
static_assert(Integer<_8> && Integer<int> && Integer<std::uint32_t> && !Integer<bool> && !Integer<IntTuple>);

// Layouts built from static integers fold.
constexpr Layout kStatic48 = make_layout(make_shape(_4{}, _8{}));
static_assert(kStatic48 == make_layout(make_shape(4, 8), make_stride(1, 4)));
static_assert(make_layout(make_shape(_4{}, _8{}), make_stride(_8{}, _1{})) ==
              make_layout(make_shape(4, 8), make_stride(8, 1)));
static_assert(make_layout(make_shape(_4{} * _2{}, 16), LayoutRight{}) ==
              make_layout(make_shape(8, 16), make_stride(16, 1)));
static_assert(make_shape(_4{}) == make_int(4));  // a single integer stays an integer
static_assert(size(make_shape(_3{}, make_tuple(_6{}, _2{}), _8{})) == 288);
static_assert(size(kStatic48) == 32 && cosize(kStatic48) == 32 && rank(kStatic48) == 2);
static_assert(kStatic48(_3{}, _5{}) == 23);
static_assert(composition(kStatic48, make_tiler(_2{}, _4{})).value() ==
              make_layout(make_shape(2, 4), make_stride(1, 4)));

// ============================================================ 2. IntTuple, coordinates, measures (§2–§4)

constexpr IntTuple kT3 = make_shape(3, make_tuple(6, 2), 8);
static_assert(size(kT3) == 288 && rank(kT3) == 3 && depth(kT3) == 2);
static_assert(depth(make_int(6)) == 0 && rank(make_tuple(2)) == 1 && rank(make_int(6)) == 1);
static_assert(flatten(kT3) == make_shape(3, 6, 2, 8));
static_assert(congruent(make_shape(2, make_tuple(3, 4)), make_shape(1, make_tuple(6, 2))));
static_assert(weakly_congruent(make_coord(1, 5), make_shape(3, make_tuple(2, 3))));
static_assert(compatible(make_int(24), make_shape(4, 6)) &&
              compatible(make_shape(4, 6), make_shape(make_tuple(2, 2), 6)));
static_assert(!compatible(make_tuple(24), make_int(24)));
static_assert(!compatible(make_shape(make_tuple(2, 3), 4), make_shape(make_tuple(2, 2), make_tuple(3, 2))));

constexpr IntTuple kS323 = make_shape(3, make_tuple(2, 3));
constexpr IntTuple kD323 = make_stride(3, make_tuple(12, 1));
static_assert(idx2crd(16, kS323) == make_coord(1, make_tuple(1, 2)));
static_assert(idx2crd(5, kS323) == make_coord(2, make_tuple(1, 0)));
static_assert(idx2crd(make_coord(1, 5), kS323) == make_coord(1, make_tuple(1, 2)));
static_assert(idx2crd(20, make_shape(16, 3)) == make_coord(4, 1));
static_assert(crd2idx(make_int(16), kS323, kD323) == 17);
static_assert(crd2idx(make_coord(1, 5), kS323, kD323) == 17);
static_assert(crd2idx(make_coord(1, make_tuple(1, 2)), kS323, kD323) == 17);
static_assert(crd2idx(make_int(11), make_shape(6, 6), make_stride(6, 0)) == 30);
static_assert(check_coord(make_coord(1, 1, 1), make_shape(4, 3)).code == Errc::coordinate_rank);
static_assert(check_coord(make_int(12), make_shape(4, 3)).code == Errc::coordinate_range);
static_assert(check_coord(make_coord(3, 2), make_shape(4, 3)).code == Errc::ok);

constexpr Layout kRow43 = make_layout(make_shape(4, 3), make_stride(3, 1));
static_assert(kRow43(2, 1) == 7);                     // eval((4,3):(3,1),(2,1)) → 7
static_assert(kRow43(13) == 6);                       // extended evaluation (§3.4)
static_assert(make_layout(kS323, kD323)(1, 4) == 5);  // eval((3,(2,3)):(3,(12,1)),(1,4)) → 5
static_assert(make_layout(make_shape(make_tuple(4, 2)), make_stride(make_tuple(2, 1)))(5) == 3);
static_assert(make_layout(make_shape(2, make_tuple(2, 2)), make_stride(4, make_tuple(2, 1)))(1, 2) == 5);

static_assert(cosize(make_layout(make_int(8), make_int(2))) == 15);
static_assert(cosize(make_layout(make_shape(4, 4, 8), make_stride(5, 5, 0))) == 31);
static_assert(cosize(make_layout(make_shape(6, 1), make_stride(1, 1))) == 6);
static_assert(depth(make_layout(make_tuple(4), make_tuple(0))) == 1);
static_assert(size(make_shape(make_tuple(4, 1), 6, 4)) == 96);

// ============================================================ 3. make_layout, compact strides (§4.4, §4.5)

static_assert(make_layout(make_shape(2, 4)) == make_layout(make_shape(2, 4), make_stride(1, 2)));
static_assert(make_layout(make_shape(2, 4), LayoutLeft{}) == make_layout(make_shape(2, 4), make_stride(1, 2)));
static_assert(make_layout(make_shape(2, 4), LayoutRight{}) == make_layout(make_shape(2, 4), make_stride(4, 1)));
static_assert(make_layout(make_shape(4, 3), LayoutRight{}) == kRow43);
static_assert(make_layout(make_shape(2, make_tuple(2, 2)), LayoutRight{}) ==
              make_layout(make_shape(2, make_tuple(2, 2)), make_stride(4, make_tuple(2, 1))));
static_assert(make_layout(kT3) == make_layout(kT3, make_stride(1, make_tuple(3, 18), 36)));
static_assert(make_layout(make_shape(8, 1, 4)) == make_layout(make_shape(8, 1, 4), make_stride(1, 0, 8)));
static_assert(make_layout(make_shape(8, 1, 4), LayoutRight{}) ==
              make_layout(make_shape(8, 1, 4), make_stride(4, 0, 1)));

constexpr Layout k3x1 = make_layout(make_int(3), make_int(1));
static_assert(make_layout(k3x1, make_layout(make_int(4), make_int(3))) ==
              make_layout(make_shape(3, 4), make_stride(1, 3)));
static_assert(make_layout(make_layout(make_shape(3, 4), make_stride(1, 3)), kRow43) ==
              make_layout(make_shape(make_tuple(3, 4), make_tuple(4, 3)),
                          make_stride(make_tuple(1, 3), make_tuple(3, 1))));
static_assert(make_layout(k3x1, make_layout(make_tuple(3), make_tuple(1)), k3x1) ==
              make_layout(make_shape(3, make_tuple(3), 3), make_stride(1, make_tuple(1), 1)));
static_assert(make_layout(make_layout(make_shape(4, 6), make_stride(0, 1))) ==
              make_layout(make_shape(make_tuple(4, 6)), make_stride(make_tuple(0, 1))));
static_assert(make_layout(k3x1) == make_layout(make_tuple(3), make_tuple(1)));
static_assert(make_layout_checked(make_shape(4, 3), make_stride(3, 1, 2)).code() == Errc::congruence);
static_assert(make_layout_checked(make_shape(4, 0), make_stride(1, 4)).code() == Errc::value_range);
static_assert(make_layout_checked(make_shape(4, 3), make_stride(3, 1)).value() == kRow43);

// ============================================================ 4. coalesce, filter (§5)

static_assert(coalesce(make_layout(make_shape(2, make_tuple(1, 6)), make_stride(1, make_tuple(6, 2)))) ==
              make_layout(make_int(12), make_int(1)));
static_assert(coalesce(make_layout(make_shape(4, 1), make_stride(1, 0))) == make_layout(make_int(4), make_int(1)));
static_assert(coalesce(make_layout(make_shape(1, 1, 4), make_stride(3, 4, 6))) ==
              make_layout(make_int(4), make_int(6)));
static_assert(coalesce(make_layout(make_int(1), make_int(0))) == make_layout(make_int(1), make_int(0)));
static_assert(coalesce(make_layout(make_shape(2, 4), make_stride(1, 2))) == make_layout(make_int(8), make_int(1)));
// By-mode coalesce with a profile.
static_assert(coalesce(make_layout(make_shape(2, make_tuple(1, 6)), make_stride(1, make_tuple(6, 2))), make_shape(1, 1))
                  .value() == make_layout(make_shape(2, 6), make_stride(1, 2)));
static_assert(coalesce(make_layout(make_shape(2, 4), make_stride(1, 2)), make_tuple(1)).value() ==
              make_layout(make_shape(2, 4), make_stride(1, 2)));
static_assert(coalesce(make_layout(make_int(8), make_int(1)), make_tuple(1)).value() ==
              make_layout(make_tuple(8), make_tuple(1)));
// coalesce keeps the function.
static_assert(same_function(coalesce(make_layout(kT3)), make_layout(kT3)));

static_assert(filter(make_layout(make_shape(4, 3), make_stride(1, 0))) == make_layout(make_int(4), make_int(1)));
static_assert(filter(make_layout(make_shape(6, 1), make_stride(0, 5))) == make_layout(make_int(1), make_int(0)));
static_assert(filter(make_layout(make_shape(4, 4), make_stride(0, 4))) == make_layout(make_int(4), make_int(4)));
static_assert(filter(make_layout(make_shape(1, 4, 1), make_stride(1, 1, 7))) == make_layout(make_int(4), make_int(1)));

// ============================================================ 5. composition (§6)

// Worked example §6.2.
constexpr Layout kA62 = make_layout(make_shape(6, 2), make_stride(8, 2));
constexpr Layout kB43 = make_layout(make_shape(4, 3), make_stride(3, 1));
constexpr Layout kAoB = composition(kA62, kB43).value();
static_assert(kAoB == make_layout(make_shape(make_tuple(2, 2), 3), make_stride(make_tuple(24, 2), 8)));
static_assert(kAoB(5) == kA62(kB43(5)));
static_assert(kAoB(11) == kA62(kB43(11)));
static_assert(kAoB(1, 2) == kA62(kB43(1, 2)));
static_assert(composes_pointwise(kAoB, kA62, kB43));
static_assert(compatible(kB43.shape, kAoB.shape));

constexpr Layout kA10 = make_layout(make_shape(10, 2), make_stride(16, 4));
constexpr Layout kB54 = make_layout(make_shape(5, 4), make_stride(1, 5));
static_assert(composition(kA10, kB54).value() ==
              make_layout(make_shape(5, make_tuple(2, 2)), make_stride(16, make_tuple(80, 4))));
static_assert(composes_pointwise(composition(kA10, kB54).value(), kA10, kB54));

constexpr Layout k20x2 = make_layout(make_int(20), make_int(2));
constexpr Layout kB54r = make_layout(make_shape(5, 4), make_stride(4, 1));
static_assert(composition(k20x2, kB54r).value() == make_layout(make_shape(5, 4), make_stride(8, 2)));
static_assert(composes_pointwise(composition(k20x2, kB54r).value(), k20x2, kB54r));

constexpr Layout kA3628 = make_layout(make_shape(3, 6, 2, 8), make_stride(1, 5, 40, 100));
constexpr Layout k16x9 = make_layout(make_int(16), make_int(9));
static_assert(composition(kA3628, k16x9).value() == make_layout(make_shape(2, 2, 4), make_stride(15, 40, 100)));
static_assert(composes_pointwise(composition(kA3628, k16x9).value(), kA3628, k16x9));
static_assert(composition(kA62, k3x1).value() == make_layout(make_int(3), make_int(8)));

// Tiler (by-mode) composition §6.4.
constexpr Layout kA12 = make_layout(make_shape(12, make_tuple(4, 8)), make_stride(59, make_tuple(13, 1)));
constexpr Tiler kT34_82 = make_tiler(make_layout(make_int(3), make_int(4)), make_layout(make_int(8), make_int(2)));
constexpr Layout kA12oT = composition(kA12, kT34_82).value();
static_assert(kA12oT == make_layout(make_shape(3, make_tuple(2, 4)), make_stride(236, make_tuple(26, 1))));
static_assert(kA12oT(2, 5) == kA12(4 * 2, 2 * 5));  // R(i,j) == A(T0(i), T1(j))
static_assert(kA12oT(1, 7) == kA12(4 * 1, 2 * 7));
static_assert(composition(kA12, make_tiler(3, 8)).value() ==
              make_layout(make_shape(3, make_tuple(4, 2)), make_stride(59, make_tuple(13, 1))));
constexpr Layout kRow620 = make_layout(make_shape(6, 20), make_stride(20, 1));
static_assert(composition(kRow620, make_tiler(2, 4)).value() == make_layout(make_shape(2, 4), make_stride(20, 1)));
static_assert(composition(kRow620, make_tiler(_2{}, _4{})).value() ==
              make_layout(make_shape(2, 4), make_stride(20, 1)));
static_assert(composition(make_layout(make_shape(16, 4), make_stride(5, 4)), make_tiler(8, _)).value() ==
              make_layout(make_shape(8, 4), make_stride(5, 4)));
static_assert(composition(make_layout(make_shape(6, 8), make_stride(1, 6)), make_tiler(_)).value() ==
              make_layout(make_tuple(6), make_tuple(1)));  // mode 1 dropped
static_assert(composition(make_layout(make_shape(4, 2), make_stride(2, 1)), make_tiler(1)).value() ==
              make_layout(make_tuple(1), make_tuple(2)));  // `1` composes as 1:1

// ============================================================ 6. complement (§7)

constexpr Layout k4x1 = make_layout(make_int(4), make_int(1));
static_assert(complement(k4x1, 24).value() == make_layout(make_int(6), make_int(4)));
static_assert(complement(make_layout(make_int(6), make_int(4)), 24).value() == k4x1);
static_assert(complement(make_layout(make_shape(4, 6), make_stride(1, 4)), 24).value() ==
              make_layout(make_int(1), make_int(0)));
static_assert(complement(make_layout(make_int(4), make_int(2)), 24).value() ==
              make_layout(make_shape(2, 3), make_stride(1, 8)));
static_assert(complement(make_layout(make_shape(2, 4), make_stride(1, 6)), 24).value() ==
              make_layout(make_int(3), make_int(2)));
static_assert(complement(make_layout(make_shape(2, 2), make_stride(1, 6)), 24).value() ==
              make_layout(make_shape(3, 2), make_stride(2, 12)));
static_assert(complement(make_layout(make_int(4), make_int(2))).value() == make_layout(make_int(2), make_int(1)));
static_assert(complement(make_layout(make_shape(2, 2), make_stride(1, 6))).value() ==
              make_layout(make_int(3), make_int(2)));
static_assert(complement(k4x1, make_shape(4, 7)).value() == make_layout(make_int(7), make_int(4)));
static_assert(complement(make_layout(make_int(16), make_int(1)), make_shape(make_tuple(4, 2), 4)).value() ==
              make_layout(make_int(2), make_int(16)));
static_assert(complement(make_layout(make_int(8), make_int(0)), make_shape(make_tuple(8, 2), 1)).value() ==
              make_layout(make_int(16), make_int(1)));
// Properties: strictly increasing, and (L, R) is injective onto [0, 24).
static_assert(strictly_increasing(complement(make_layout(make_shape(2, 2), make_stride(1, 6)), 24).value()));
static_assert(is_bijection_onto(make_layout(make_layout(make_int(4), make_int(2)),
                                            complement(make_layout(make_int(4), make_int(2)), 24).value()),
                                24));
static_assert(is_bijection_onto(make_layout(make_layout(make_shape(2, 2), make_stride(1, 6)),
                                            complement(make_layout(make_shape(2, 2), make_stride(1, 6)), 24).value()),
                                24));

// ============================================================ 7. inverses (§8)

static_assert(right_inverse(kRow43).value() == make_layout(make_shape(3, 4), make_stride(4, 1)));
static_assert(right_inverse(make_layout(make_shape(6, 4), make_stride(1, 6))).value() ==
              make_layout(make_int(24), make_int(1)));
static_assert(right_inverse(make_layout(make_shape(8, 32), make_stride(1, 24))).value() ==
              make_layout(make_int(8), make_int(1)));
static_assert(right_inverse(make_layout(make_shape(6, 16), make_stride(48, 1))).value() ==
              make_layout(make_int(16), make_int(6)));
static_assert(right_inverse(make_layout(make_int(6), make_int(3))).value() == make_layout(make_int(1), make_int(0)));
static_assert(right_inverse(make_layout(make_shape(4, 4), make_stride(0, 1))).value() ==
              make_layout(make_int(4), make_int(4)));
static_assert(right_inverse(make_layout(make_shape(2, 3, 2), make_stride(2, 2, 1))).value() ==
              make_layout(make_shape(2, 3), make_stride(6, 2)));  // tie-breaking
static_assert(right_inverse(make_layout(make_shape(2, 3), make_stride(1, 1))).value() ==
              make_layout(make_int(2), make_int(1)));
static_assert(is_right_inverse(kRow43, right_inverse(kRow43).value()));
static_assert(is_right_inverse(make_layout(make_shape(2, 3, 2), make_stride(2, 2, 1)),
                               right_inverse(make_layout(make_shape(2, 3, 2), make_stride(2, 2, 1))).value()));

static_assert(left_inverse(kRow43).value() == make_layout(make_shape(3, 4), make_stride(4, 1)));
static_assert(left_inverse(make_layout(make_int(4), make_int(2))).value() ==
              make_layout(make_shape(2, 4), make_stride(0, 1)));
static_assert(left_inverse(make_layout(make_int(16), make_int(5))).value() ==
              make_layout(make_shape(5, 16), make_stride(0, 1)));
static_assert(left_inverse(make_layout(make_shape(3, 2, 2), make_stride(0, 1, 0))).value() ==
              make_layout(make_int(2), make_int(3)));
static_assert(left_inverse(make_layout(make_shape(4, 8, 8), make_stride(1, 4, 32))).value() ==
              make_layout(make_int(256), make_int(1)));
static_assert(is_left_inverse(kRow43, left_inverse(kRow43).value()));
static_assert(is_left_inverse(make_layout(make_int(16), make_int(5)),
                              left_inverse(make_layout(make_int(16), make_int(5))).value()));

// ============================================================ 8. divides (§9, §9.4)

static_assert(logical_divide(make_layout(make_shape(4, 2, 3), make_stride(2, 1, 8)),
                             make_layout(make_int(4), make_int(2)))
                  .value() == make_layout(make_shape(make_tuple(2, 2), make_tuple(2, 3)),
                                          make_stride(make_tuple(4, 1), make_tuple(2, 8))));
static_assert(logical_divide(make_layout(make_int(32), make_int(1)), make_layout(make_shape(4, 2), make_stride(1, 4)))
                  .value() == make_layout(make_shape(make_tuple(4, 2), 4), make_stride(make_tuple(1, 4), 8)));
constexpr Layout kRow64 = make_layout(make_shape(6, 4), make_stride(4, 1));
constexpr Layout k2x1 = make_layout(make_int(2), make_int(1));
constexpr Layout kDiv64 = logical_divide(kRow64, k2x1).value();
static_assert(kDiv64 == make_layout(make_shape(2, make_tuple(3, 4)), make_stride(4, make_tuple(8, 1))));
static_assert(logical_divide(k2x1, make_layout(make_int(1), make_int(1))).value() ==
              make_layout(make_shape(1, 2), make_stride(1, 1)));

constexpr Layout kA9 = make_layout(make_shape(9, make_tuple(4, 8)), make_stride(59, make_tuple(13, 1)));
constexpr Tiler kT9 =
    make_tiler(make_layout(make_int(3), make_int(3)), make_layout(make_shape(2, 4), make_stride(1, 8)));
static_assert(logical_divide(kA9, kT9).value() ==
              make_layout(make_shape(make_tuple(3, 3), make_tuple(make_tuple(2, 4), make_tuple(2, 2))),
                          make_stride(make_tuple(177, 59), make_tuple(make_tuple(13, 2), make_tuple(26, 1)))));
static_assert(logical_divide(kRow620, make_tiler(2, 4)).value() ==
              make_layout(make_shape(make_tuple(2, 3), make_tuple(4, 5)),
                          make_stride(make_tuple(20, 40), make_tuple(1, 4))));
static_assert(logical_divide(kRow620, make_tiler(k2x1, make_layout(make_int(4), make_int(1)))).value() ==
              logical_divide(kRow620, make_tiler(2, 4)).value());  // <2:1,4:1> == <2,4> (§9.4)
static_assert(logical_divide(make_layout(make_shape(8, 8), make_stride(8, 1)), make_tiler(4)).value() ==
              make_layout(make_shape(make_tuple(4, 2), 8), make_stride(make_tuple(8, 32), 1)));
static_assert(logical_divide(make_layout(make_shape(4, 2), make_stride(1, 4)), make_tiler(1, _)).value() ==
              make_layout(make_shape(make_tuple(1, 4), 2), make_stride(make_tuple(0, 1), 4)));

static_assert(zipped_divide(kA9, kT9).value() ==
              make_layout(make_shape(make_tuple(3, make_tuple(2, 4)), make_tuple(3, make_tuple(2, 2))),
                          make_stride(make_tuple(177, make_tuple(13, 2)), make_tuple(59, make_tuple(26, 1)))));
static_assert(tiled_divide(kA9, kT9).value() ==
              make_layout(make_shape(make_tuple(3, make_tuple(2, 4)), 3, make_tuple(2, 2)),
                          make_stride(make_tuple(177, make_tuple(13, 2)), 59, make_tuple(26, 1))));
static_assert(flat_divide(kA9, kT9).value() == make_layout(make_shape(3, make_tuple(2, 4), 3, make_tuple(2, 2)),
                                                           make_stride(177, make_tuple(13, 2), 59, make_tuple(26, 1))));

constexpr Layout kZip620 = zipped_divide(kRow620, make_tiler(2, 4)).value();
static_assert(kZip620 == make_layout(make_shape(make_tuple(2, 4), make_tuple(3, 5)),
                                     make_stride(make_tuple(20, 1), make_tuple(40, 4))));
static_assert(tiled_divide(kRow620, make_tiler(2, 4)).value() ==
              make_layout(make_shape(make_tuple(2, 4), 3, 5), make_stride(make_tuple(20, 1), 40, 4)));
static_assert(flat_divide(kRow620, make_tiler(2, 4)).value() ==
              make_layout(make_shape(2, 4, 3, 5), make_stride(20, 1, 40, 4)));
// Element (i,j) of tile (m,n) is A(2m+i, 4n+j).
static_assert(kZip620(make_coord(make_tuple(1, 3), make_tuple(2, 4))) == kRow620(2 * 2 + 1, 4 * 4 + 3));
// Mode 0 of zipped_divide is composition(A, T) as a function.
static_assert(same_function(mode(kZip620, 0), composition(kRow620, make_tiler(2, 4)).value()));
static_assert(same_function(mode(zipped_divide(kA9, kT9).value(), 0), composition(kA9, kT9).value()));

static_assert(zipped_divide(make_layout(make_tuple(8), make_tuple(1)), make_layout(make_tuple(2), make_tuple(1)))
                  .value() == make_layout(make_shape(make_tuple(2), 4), make_stride(make_tuple(1), 2)));
static_assert(tiled_divide(make_layout(make_tuple(32), make_tuple(1)),
                           make_tiler(make_layout(make_int(3), make_int(1))))
                  .value() ==
              make_layout(make_shape(make_tuple(3), make_tuple(11)), make_stride(make_tuple(1), make_tuple(3))));
static_assert(flat_divide(make_layout(make_int(16), make_int(1)), make_layout(make_shape(2, 3), make_stride(3, 1)))
                  .value() == make_layout(make_shape(2, 3, 3), make_stride(3, 1, 6)));

// ============================================================ 9. products (§10)

constexpr Layout k22_41 = make_layout(make_shape(2, 2), make_stride(4, 1));
static_assert(logical_product(k22_41, make_layout(make_int(6), make_int(1))).value() ==
              make_layout(make_shape(make_tuple(2, 2), make_tuple(2, 3)),
                          make_stride(make_tuple(4, 1), make_tuple(2, 8))));
static_assert(logical_product(k22_41, make_layout(make_shape(4, 2), make_stride(2, 1))).value() ==
              make_layout(make_shape(make_tuple(2, 2), make_tuple(4, 2)),
                          make_stride(make_tuple(4, 1), make_tuple(8, 2))));
constexpr Layout kA25 = make_layout(make_shape(2, 5), make_stride(5, 1));
constexpr Layout kB34 = make_layout(make_shape(3, 4), make_stride(1, 3));
static_assert(logical_product(kA25, kB34).value() == make_layout(make_shape(make_tuple(2, 5), make_tuple(3, 4)),
                                                                 make_stride(make_tuple(5, 1), make_tuple(10, 30))));
static_assert(
    logical_product(make_layout(make_int(8), make_int(3)), make_layout(make_tuple(6), make_tuple(1))).value() ==
    make_layout(make_shape(8, make_tuple(make_tuple(3, 2))), make_stride(3, make_tuple(make_tuple(1, 24)))));

constexpr Tiler kT35_46 = make_tiler(make_layout(make_int(3), make_int(5)), make_layout(make_int(4), make_int(6)));
static_assert(logical_product(kA25, kT35_46).value() == make_layout(make_shape(make_tuple(2, 3), make_tuple(5, 4)),
                                                                    make_stride(make_tuple(5, 10), make_tuple(1, 30))));
static_assert(zipped_product(kA25, kT35_46).value() == make_layout(make_shape(make_tuple(2, 5), make_tuple(3, 4)),
                                                                   make_stride(make_tuple(5, 1), make_tuple(10, 30))));
static_assert(tiled_product(kA25, kT35_46).value() ==
              make_layout(make_shape(make_tuple(2, 5), 3, 4), make_stride(make_tuple(5, 1), 10, 30)));
static_assert(tiled_product(make_layout(make_shape(8, 4), make_stride(4, 1)), make_layout(make_int(8), make_int(4)))
                  .value() == make_layout(make_shape(make_tuple(8, 4), 8), make_stride(make_tuple(4, 1), 128)));
static_assert(zipped_product(kRow43, make_tiler(3)).value() ==
              make_layout(make_shape(make_tuple(4), make_tuple(3, 3)), make_stride(make_tuple(3), make_tuple(1, 1))));

constexpr Layout kBlocked = blocked_product(kA25, kB34).value();
static_assert(kBlocked == make_layout(make_shape(make_tuple(2, 3), make_tuple(5, 4)),
                                      make_stride(make_tuple(5, 10), make_tuple(1, 30))));
static_assert(raked_product(kA25, kB34).value() == make_layout(make_shape(make_tuple(3, 2), make_tuple(4, 5)),
                                                               make_stride(make_tuple(10, 5), make_tuple(30, 1))));
static_assert(blocked_product(k3x1, k2x1).value() ==
              make_layout(make_shape(make_tuple(3, 2)), make_stride(make_tuple(1, 3))));
static_assert(raked_product(make_layout(make_int(8), make_int(1)), make_layout(make_int(6), make_int(1))).value() ==
              make_layout(make_shape(make_tuple(6, 8)), make_stride(make_tuple(8, 1))));
static_assert(blocked_product(make_layout(make_shape(2, 2), make_stride(1, 2)), k4x1).value() ==
              make_layout(make_shape(make_tuple(2, 4), make_tuple(2, 1)),
                          make_stride(make_tuple(1, 4), make_tuple(2, 0))));
static_assert(raked_product(make_layout(make_tuple(2), make_tuple(1)), make_layout(make_int(6), make_int(1))).value() ==
              make_layout(make_shape(make_tuple(6, make_tuple(2))), make_stride(make_tuple(2, make_tuple(1)))));
// The blocked product is a bijection onto [0, 120): (block (i,j)) + (block index (m,n)).
static_assert(kBlocked(make_coord(make_tuple(1, 2), make_tuple(4, 3))) == kA25(1, 4) + 10 * kB34(2, 3));

// ============================================================ 10. tile_to_shape (§11)

static_assert(tile_to_shape(make_layout(make_shape(2, 2), make_stride(1, 2)), make_shape(4, 8)).value() ==
              make_layout(make_shape(make_tuple(2, 2), make_tuple(2, 4)),
                          make_stride(make_tuple(1, 4), make_tuple(2, 8))));
static_assert(tile_to_shape(make_layout(make_shape(3, 8), make_stride(16, 1)), make_shape(12, 16)).value() ==
              make_layout(make_shape(make_tuple(3, make_tuple(2, 2)), make_tuple(8, 2)),
                          make_stride(make_tuple(16, make_tuple(8, 48)), make_tuple(1, 96))));
static_assert(tile_to_shape(make_layout(make_shape(2, 2), make_stride(1, 2)), make_shape(6, 8, 4)).value() ==
              make_layout(make_shape(make_tuple(2, 3), make_tuple(2, 4), make_tuple(1, 4)),
                          make_stride(make_tuple(1, 4), make_tuple(2, 12), make_tuple(0, 48))));
static_assert(tile_to_shape(k3x1, make_int(6)).value() ==
              make_layout(make_shape(make_tuple(3, make_tuple(2))), make_stride(make_tuple(1, make_tuple(3)))));
static_assert(tile_to_shape(make_layout(make_shape(2, 2), make_stride(1, 2)), make_shape(_4{}, _8{})).value() ==
              tile_to_shape(make_layout(make_shape(2, 2), make_stride(1, 2)), make_shape(4, 8)).value());

// ============================================================ 11. swizzles (§12)

constexpr Swizzle kSw333 = make_swizzle(3, 3, 3).value();
static_assert(kSw333 == Swizzle{3, 3, 3});
static_assert(kSw333(197) == 221);  // bits 6..8 = 011 XOR-ed into bits 3..5
static_assert(Swizzle{0, 4, 3}(197) == 197 && Swizzle{0, 4, 3}.is_identity());
constexpr bool swizzle_is_involution(Swizzle sw, index_t n) {
  for (index_t x = 0; x < n; ++x)
    if (sw(sw(x)) != x) return false;
  return true;
}
static_assert(swizzle_is_involution(kSw333, 4096));
static_assert(swizzle_is_involution(Swizzle{2, 4, -3}, 4096));
static_assert(make_swizzle(3, 3, 2).code() == Errc::swizzle);
static_assert(make_swizzle(3, 4, 2).code() == Errc::swizzle);

constexpr Layout kRow864 = make_layout(make_shape(8, 64), make_stride(64, 1));
constexpr SwizzledLayout kSwL333 = compose(kSw333, kRow864);
constexpr SwizzledLayout kSwL233 = compose(Swizzle{2, 3, 3}, kRow864);
static_assert(kSwL333(3, 5) == 221);  // eval(Sw<3,3,3>o((8,64):(64,1)),(3,5)) → 221
static_assert(kSwL333(make_coord(3, 5)) == 221);
static_assert(kSwL233(7, 63) == 487);
static_assert(size(kSwL333) == 512 && cosize(kSwL333) == 512 && rank(kSwL333) == 2 && depth(kSwL333) == 1);
static_assert(swizzled_pointwise(kSwL333));

// Swizzled-layout composition: f(Sw o L, x) = Sw o f(L, x).
static_assert(composition(kSwL233, make_tiler(4, 32)).value() ==
              compose(Swizzle{2, 3, 3}, make_layout(make_shape(4, 32), make_stride(64, 1))));
constexpr SwizzledLayout kSw888 =
    compose(kSw333, make_layout(make_shape(8, make_tuple(8, 8)), make_stride(8, make_tuple(1, 64))));
constexpr SwizzledLayout kSw888oT = composition(kSw888, make_tiler(4, 32)).value();
static_assert(kSw888oT ==
              compose(kSw333, make_layout(make_shape(4, make_tuple(8, 4)), make_stride(8, make_tuple(1, 64)))));
static_assert(kSw888oT(3, 17) == kSw888(3, 17));  // the tile is the top-left corner
static_assert(tile_to_shape(kSw888, make_shape(128, 64)).value() ==
              compose(kSw333, make_layout(make_shape(make_tuple(8, 16), make_tuple(make_tuple(8, 8), 1)),
                                          make_stride(make_tuple(8, 512), make_tuple(make_tuple(1, 64), 0)))));
static_assert(tile_to_shape(kSw888, make_shape(128, 64, 3)).value() ==
              compose(kSw333,
                      make_layout(make_shape(make_tuple(8, 16), make_tuple(make_tuple(8, 8), 1), make_tuple(1, 3)),
                                  make_stride(make_tuple(8, 512), make_tuple(make_tuple(1, 64), 0),
                                              make_tuple(0, 8192)))));
// Sw<0,M,S> is the identity: the result is the plain layout (still wrapped here; it prints plain).
constexpr SwizzledLayout kSw0 =
    tile_to_shape(compose(Swizzle{0, 4, 3}, make_layout(make_shape(4, 8), make_stride(1, 4))), make_shape(16, 64))
        .value();
static_assert(kSw0.swizzle.is_identity());
static_assert(kSw0.layout == make_layout(make_shape(make_tuple(4, 4), make_tuple(8, 8)),
                                         make_stride(make_tuple(1, 32), make_tuple(4, 128))));
static_assert(coalesce(compose(kSw333, make_layout(make_shape(64, 8), make_stride(1, 64)))) ==
              compose(kSw333, make_layout(make_int(512), make_int(1))));
static_assert(logical_divide(kSwL333, make_tiler(4, 8)).value().layout ==
              logical_divide(kRow864, make_tiler(4, 8)).value());

// ============================================================ 12. StaticLayout, StaticSwizzledLayout

constexpr Layout kNested = make_layout(kS323, kD323);  // (3,(2,3)):(3,(12,1))
using SNested = StaticLayout<kNested>;
static_assert(SNested::value == kNested && SNested::kRank == 2 && SNested::kSize == 18 && SNested::kCosize == 21);
static_assert(SNested{}(16) == 17 && SNested{}(1, 5) == 17);
static_assert(static_matches_1d<kNested>() && static_matches_modes<kNested>());
static_assert(static_matches_1d<kRow43>() && static_matches_modes<kRow43>());
static_assert(static_matches_1d<kAoB>() && static_matches_modes<kAoB>());
static_assert(static_matches_1d<kBlocked>() && static_matches_modes<kBlocked>());
constexpr Layout kRank3 = make_layout(make_shape(2, make_tuple(2, 3), 4), LayoutRight{});
static_assert(static_matches_1d<kRank3>() && static_matches_modes<kRank3>());
static_assert(static_matches_1d<make_layout(make_int(8), make_int(2))>());                   // integral layout
static_assert(static_matches_1d<make_layout(make_shape(4, 1, 3), make_stride(1, 0, 0))>());  // stride 0, extent 1

// Arithmetic happens in the coordinate's type when everything fits in 32 bits.
static_assert(std::is_same_v<decltype(SNested{}(std::int32_t{1})), std::int32_t>);
static_assert(std::is_same_v<decltype(SNested{}(std::int32_t{1}, std::int32_t{2})), std::int32_t>);
static_assert(std::is_same_v<decltype(SNested{}(index_t{1})), index_t>);
constexpr Layout kHuge = make_layout(make_shape(2, 2), make_stride(1, index_t{1} << 40));
static_assert(std::is_same_v<decltype(StaticLayout<kHuge>{}(std::int32_t{1})), index_t>);
static_assert(StaticLayout<kHuge>{}(3) == 1 + (index_t{1} << 40));

// Any algebra result can be lifted to a type.
using SDiv = StaticLayout<logical_divide(kRow64, k2x1).value()>;
static_assert(SDiv::value == make_layout(make_shape(2, make_tuple(3, 4)), make_stride(4, make_tuple(8, 1))));
static_assert(static_matches_1d<SDiv::value>() && static_matches_modes<SDiv::value>());
static_assert(SDiv{}(1, 7) == kRow64(1 + 2 * (7 % 3), 7 / 3));
using SZip = StaticLayout<zipped_divide(kRow620, make_tiler(_2{}, _4{})).value()>;
static_assert(SZip::value == kZip620 && static_matches_modes<SZip::value>());
using STile =
    StaticLayout<tile_to_shape(make_layout(make_shape(3, 8), make_stride(16, 1)), make_shape(12, 16)).value()>;
static_assert(STile::kSize == 192 && static_matches_1d<STile::value>() && static_matches_modes<STile::value>());

// Swizzled.
using SSw = StaticSwizzledLayout<kSwL333>;
static_assert(SSw{}(3, 5) == 221 && SSw{}(3 * 1 + 5 * 8) == kSwL333(3, 5));
static_assert(static_swizzled_matches<kSwL333>() && static_swizzled_matches<kSwL233>());
static_assert(static_swizzled_matches<compose(Swizzle{2, 4, -3}, make_layout(make_shape(16, 16)))>());
static_assert(static_swizzled_matches<tile_to_shape(kSw888, make_shape(128, 64)).value()>());

// ============================================================ 13. errors are values

// composition: the four admissibility rules (§6.2, §6.3).
constexpr Layout kA1616 = make_layout(make_shape(16, 16), make_stride(16, 1));
constexpr Layout kB23 = make_layout(make_shape(2, 3), make_stride(8, 24));
static_assert(composition(kA1616, kB23).code() == Errc::stride_divisibility);
static_assert(!composition(kA1616, kB23).ok() && !static_cast<bool>(composition(kA1616, kB23)));
static_assert(composition(kA1616, kB23).error().arg[0] == 24 && composition(kA1616, kB23).error().arg[1] == 16);
static_assert(str_eq(errc_keyword(composition(kA1616, kB23).code()), "stride-divisibility"));
static_assert(composition(make_layout(make_shape(4, 2), make_stride(2, 1)),
                          make_layout(make_shape(4, 3), make_stride(12, 2)))
                  .code() == Errc::shape_divisibility);
static_assert(composition(make_layout(make_shape(6, 2), make_stride(1, 10)), make_layout(make_int(4), make_int(4)))
                  .code() == Errc::inexact_division);
static_assert(composition(make_layout(make_shape(4, make_tuple(3, 2)), make_stride(1, make_tuple(8, 4))),
                          make_layout(make_shape(8, 2), make_stride(1, 8)))
                  .code() == Errc::overlap);
static_assert(composition(make_layout(make_shape(4, 32, 4), make_stride(128, 4, 1)),
                          make_layout(make_shape(2, 3), make_stride(3, 1)))
                  .code() == Errc::overlap);
static_assert(composition(kRow620, make_tiler(2, 4, 8)).code() == Errc::tiler_rank);
// complement / divides: non-injective.
static_assert(complement(make_layout(make_shape(4, 2), make_stride(1, 2))).code() == Errc::non_injective);
static_assert(complement(make_layout(make_shape(2, 2), make_stride(1, 1)), 16).code() == Errc::non_injective);
static_assert(logical_divide(make_layout(make_int(16), make_int(1)), make_layout(make_shape(2, 2), make_stride(1, 1)))
                  .code() == Errc::non_injective);
// Errors inside a divide are those of its composition.
static_assert(logical_divide(make_layout(make_shape(2, 2, 6), make_stride(6, 12, 1)),
                             make_layout(make_shape(3, 3), make_stride(1, 3)))
                  .code() == Errc::shape_divisibility);
// tiler-rank.
static_assert(logical_divide(make_layout(make_int(8), make_int(1)), make_tiler(2, 2)).code() == Errc::tiler_rank);
static_assert(tile_to_shape(make_layout(make_shape(2, 2, 2), make_stride(1, 2, 4)), make_shape(8, 8)).code() ==
              Errc::tiler_rank);
static_assert(coalesce(make_layout(make_shape(2, make_tuple(1, 6)), make_stride(1, make_tuple(6, 2))),
                       make_shape(1, 1, 1))
                  .code() == Errc::tiler_rank);
static_assert(zipped_divide(make_layout(make_shape(4, 8), make_stride(1, 4)), make_tiler(_, 2)).code() ==
              Errc::tiler_rank);  // `_` leaves a non-pair mode
// tile-divisibility.
static_assert(tile_to_shape(make_layout(make_shape(4, 3), make_stride(1, 4)), make_shape(10, 6)).code() ==
              Errc::tile_divisibility);
static_assert(tile_to_shape(kSwL333, make_shape(100, 64)).code() == Errc::tile_divisibility);
// Errors propagate through the swizzle wrapper, and a good result is ok().
static_assert(composition(compose(kSw333, kA1616), kB23).code() == Errc::stride_divisibility);
static_assert(composition(kA62, kB43).ok() && composition(kA62, kB43).code() == Errc::ok);

// ============================================================ run time: same code, inputs unknown to the compiler

volatile index_t g_six = 6;
volatile index_t g_two = 2;
volatile index_t g_four = 4;
volatile index_t g_twenty = 20;
volatile index_t g_sixteen = 16;
volatile int g_sw_bits = 3;

index_t rt(volatile index_t& v) { return v; }

TEST(StaticAlgebraRuntime, CompositionMatchesStatic) {
  const index_t six = rt(g_six), two = rt(g_two), four = rt(g_four);
  const Layout A = make_layout(make_shape(six, two), make_stride(four * two, two));              // (6,2):(8,2)
  const Layout B = make_layout(make_shape(four, six / two), make_stride(six / two, two / two));  // (4,3):(3,1)
  const auto r = composition(A, B);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), kAoB);
  for (index_t i = 0; i < size(B); ++i) EXPECT_EQ(r.value()(i), A(B(i))) << i;

  const Layout A12 =
      make_layout(make_shape(six * two, make_tuple(four, four * two)), make_stride(59, make_tuple(13, two / two)));
  const Tiler T =
      make_tiler(make_layout(make_int(six / two), make_int(four)), make_layout(make_int(four * two), make_int(two)));
  EXPECT_EQ(composition(A12, T).value(), kA12oT);
}

TEST(StaticAlgebraRuntime, DividesAndProductsMatchStatic) {
  const index_t six = rt(g_six), two = rt(g_two), four = rt(g_four), twenty = rt(g_twenty);
  const Layout A = make_layout(make_shape(six, twenty), make_stride(twenty, two / two));
  const Tiler T = make_tiler(two, four);
  EXPECT_EQ(zipped_divide(A, T).value(), kZip620);
  EXPECT_EQ(zipped_divide(A, T).value(), zipped_divide(kRow620, make_tiler(2, 4)).value());
  EXPECT_EQ(tiled_divide(A, T).value(), tiled_divide(kRow620, make_tiler(2, 4)).value());
  EXPECT_EQ(flat_divide(A, T).value(), flat_divide(kRow620, make_tiler(2, 4)).value());
  EXPECT_EQ(
      logical_divide(make_layout(make_shape(six, four), make_stride(four, 1)), make_layout(make_int(two), make_int(1)))
          .value(),
      kDiv64);

  const Layout A25 = make_layout(make_shape(two, six - 1), make_stride(six - 1, 1));
  const Layout B34 = make_layout(make_shape(six / two, four), make_stride(1, six / two));
  EXPECT_EQ(blocked_product(A25, B34).value(), kBlocked);
  EXPECT_EQ(raked_product(A25, B34).value(), raked_product(kA25, kB34).value());
  EXPECT_EQ(logical_product(A25, B34).value(), logical_product(kA25, kB34).value());
  EXPECT_EQ(tile_to_shape(make_layout(make_shape(3, 8), make_stride(rt(g_sixteen), 1)), make_shape(12, rt(g_sixteen)))
                .value(),
            STile::value);
}

TEST(StaticAlgebraRuntime, ComplementInversesMatchStatic) {
  const index_t two = rt(g_two), four = rt(g_four), six = rt(g_six);
  EXPECT_EQ(complement(make_layout(make_int(four), make_int(two)), four * six).value(),
            complement(make_layout(make_int(4), make_int(2)), 24).value());
  const Layout row43 = make_layout(make_shape(four, six / two), LayoutRight{});
  EXPECT_EQ(row43, kRow43);
  EXPECT_EQ(right_inverse(row43).value(), right_inverse(kRow43).value());
  EXPECT_EQ(left_inverse(row43).value(), left_inverse(kRow43).value());
  EXPECT_EQ(coalesce(make_layout(make_shape(two, make_tuple(1, six)), make_stride(1, make_tuple(six, two)))),
            make_layout(make_int(12), make_int(1)));
}

TEST(StaticAlgebraRuntime, ErrorsMatchStatic) {
  const index_t sixteen = rt(g_sixteen);
  const Layout A = make_layout(make_shape(sixteen, sixteen), make_stride(sixteen, 1));
  const Layout B = make_layout(make_shape(2, 3), make_stride(sixteen / 2, 24));
  const auto r = composition(A, B);
  EXPECT_EQ(r.code(), composition(kA1616, kB23).code());
  EXPECT_EQ(r.code(), Errc::stride_divisibility);
  // At run time `.value()` on an error throws instead of failing to compile.
  EXPECT_THROW((void)r.value(), AlgebraError);
  try {
    (void)r.value();
  } catch (const AlgebraError& e) {
    EXPECT_EQ(e.error().code, Errc::stride_divisibility);
    EXPECT_EQ(std::string(e.what()).rfind("stride-divisibility", 0), 0u) << e.what();
  }
  EXPECT_EQ(complement(make_layout(make_shape(rt(g_four), 2), make_stride(1, rt(g_two)))).code(), Errc::non_injective);
  EXPECT_EQ(logical_divide(make_layout(make_int(8), make_int(1)), make_tiler(rt(g_two), 2)).code(), Errc::tiler_rank);
}

TEST(StaticAlgebraRuntime, StaticLayoutWithRuntimeCoordinates) {
  // The compile-time layout evaluated at coordinates only known at run time.
  const index_t two = rt(g_two);
  for (index_t i = 0; i < SDiv::kSize; ++i) EXPECT_EQ(SDiv{}(i + two - 2), SDiv::value(i)) << i;
  for (index_t m = 0; m < 2; ++m)
    for (index_t n = 0; n < 12; ++n) EXPECT_EQ(SDiv{}(m * (two - 1), n), SDiv::value(m, n));
  const int i32 = static_cast<int>(rt(g_twenty));
  EXPECT_EQ(SZip{}(i32), kZip620(index_t{20}));

  const SwizzledLayout sw = compose(make_swizzle(g_sw_bits, 3, 3).value(), kRow864);
  EXPECT_EQ(sw, kSwL333);
  for (index_t i = 0; i < 512; ++i) EXPECT_EQ(SSw{}(i * (two - 1)), sw(i)) << i;
  EXPECT_EQ(composition(compose(make_swizzle(g_sw_bits, 3, 3).value(),
                                make_layout(make_shape(8, make_tuple(8, 8)), make_stride(8, make_tuple(1, 64)))),
                        make_tiler(rt(g_four), 32))
                .value(),
            kSw888oT);
}

}  // namespace

// ============================================================ robustness: checked at compile time too

static_assert(!mul_overflows(index_t{3037000499}, index_t{3037000499}) &&
              mul_overflows(index_t{3037000500}, index_t{3037000500}));
static_assert(ceil_div(kMaxIndex, index_t{2}) == (index_t{1} << 62));
static_assert(complement(make_layout(make_int(2), make_int(1)), make_tuple(0)).code() == Errc::value_range);
static_assert(tile_to_shape(make_layout(make_int(2), make_int(1)), make_shape(4, 0)).code() == Errc::value_range);
static_assert(make_layout_checked(make_shape(65536, 65536, 65536), make_stride(1, 65536, index_t{1} << 32)).ok());
static_assert(size(make_layout(make_shape(65536, 65536, 65536), make_stride(1, 65536, index_t{1} << 32))) ==
              281474976710656);
static_assert(composition(make_layout(make_int(index_t{1} << 62), make_int(2)),
                          make_layout(make_int(2), make_int(index_t{1} << 62)))
                  .code() == Errc::value_range);
