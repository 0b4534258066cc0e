// tessel/core/int_tuple.hpp — nested integer tuples as values.
//
// An IntTuple is an integer or a tuple of IntTuples: `8`, `(2,3)`,
// `((2,2),(3,4))`.  It is stored as a flat token string (leaf, open, close) in
// pre-order plus the leaf values, in fixed-size arrays: a literal, structural
// type, so one IntTuple can be a constant expression, a class-type template
// argument, a host value built by the parser, or a run-time value in a kernel.
// Unused array slots are always zero, so two equal tuples are equal bytewise.
#pragma once

#include "tessel/core/config.hpp"
#include "tessel/core/integer.hpp"
#include "tessel/core/status.hpp"

namespace tessel {

enum Tok : std::int8_t { kTokNone = 0, kTokLeaf = 1, kTokOpen = 2, kTokClose = 3 };

struct IntTuple {
  std::int8_t tok[kMaxTokens]{};
  index_t val[kMaxLeaves]{};
  std::int16_t ntok = 0;
  std::int16_t nleaf = 0;
  bool overflow = false;  // set when a builder ran out of capacity

  TESSEL_HD constexpr bool is_int() const { return ntok == 1 && tok[0] == kTokLeaf; }
  TESSEL_HD constexpr bool is_tuple() const { return ntok >= 2 && tok[0] == kTokOpen; }
};

TESSEL_HD constexpr bool operator==(const IntTuple& a, const IntTuple& b) {
  if (a.ntok != b.ntok || a.nleaf != b.nleaf || a.overflow != b.overflow) return false;
  for (int i = 0; i < a.ntok; ++i)
    if (a.tok[i] != b.tok[i]) return false;
  for (int i = 0; i < a.nleaf; ++i)
    if (a.val[i] != b.val[i]) return false;
  return true;
}

/// A sub-tuple of an IntTuple: tokens [tb,te) and leaves [lb,le).
struct Span {
  int tb = 0, te = 0, lb = 0, le = 0;
};

// ---------------------------------------------------------------- building

/// Append one leaf.  C++ example: push_leaf(t, 4) on an empty t gives `4`.
TESSEL_HD constexpr void push_leaf(IntTuple& t, index_t v) {
  if (t.ntok >= kMaxTokens || t.nleaf >= kMaxLeaves) {
    t.overflow = true;
    return;
  }
  t.tok[t.ntok++] = kTokLeaf;
  t.val[t.nleaf++] = v;
}
TESSEL_HD constexpr void push_tok(IntTuple& t, Tok k) {
  if (t.ntok >= kMaxTokens) {
    t.overflow = true;
    return;
  }
  t.tok[t.ntok++] = k;
}
/// Append the sub-tuple `s` of `src` to `dst`.
TESSEL_HD constexpr void push_span(IntTuple& dst, const IntTuple& src, Span s) {
  if (src.overflow) dst.overflow = true;
  int leaf = s.lb;
  for (int i = s.tb; i < s.te; ++i) {
    if (src.tok[i] == kTokLeaf)
      push_leaf(dst, src.val[leaf++]);
    else
      push_tok(dst, static_cast<Tok>(src.tok[i]));
  }
}
TESSEL_HD constexpr Span whole(const IntTuple& t) { return Span{0, t.ntok, 0, t.nleaf}; }
TESSEL_HD constexpr void push_tuple(IntTuple& dst, const IntTuple& src) { push_span(dst, src, whole(src)); }

/// The integer `v` as an IntTuple.  C++ example: make_int(8) is `8`.
TESSEL_HD constexpr IntTuple make_int(index_t v) {
  IntTuple t;
  push_leaf(t, v);
  return t;
}

/// A tuple of the given items.  C++ example: tuple_of({2, (3,4)}) is `(2,(3,4))`.
TESSEL_HD constexpr IntTuple tuple_of(const IntTuple* items, int n) {
  IntTuple t;
  push_tok(t, kTokOpen);
  for (int i = 0; i < n; ++i) push_tuple(t, items[i]);
  push_tok(t, kTokClose);
  return t;
}

/// A flat tuple of integers; a single value gives the rank-1 tuple `(v)`.
TESSEL_HD constexpr IntTuple flat_tuple_of(const index_t* v, int n) {
  IntTuple t;
  push_tok(t, kTokOpen);
  for (int i = 0; i < n; ++i) push_leaf(t, v[i]);
  push_tok(t, kTokClose);
  return t;
}

// ---------------------------------------------------------------- navigation

/// Number of leaves under the token range [tb,te).
TESSEL_HD constexpr int count_leaves(const IntTuple& t, int tb, int te) {
  int n = 0;
  for (int i = tb; i < te; ++i) n += (t.tok[i] == kTokLeaf);
  return n;
}

/// The top-level elements of span `s` (for a leaf span: the leaf itself).
/// Returns how many were written to `out` (at most kMaxLeaves: a tuple can
/// never have more children than leaves).
TESSEL_HD constexpr int children(const IntTuple& t, Span s, Span* out) {
  if (s.te - s.tb == 1) {
    out[0] = s;
    return 1;
  }
  int n = 0;
  int depth = 0;
  int leaf = s.lb;
  Span cur{};
  for (int i = s.tb + 1; i < s.te - 1; ++i) {
    if (depth == 0) {
      cur.tb = i;
      cur.lb = leaf;
    }
    const int k = t.tok[i];
    if (k == kTokLeaf) ++leaf;
    if (k == kTokOpen) ++depth;
    if (k == kTokClose) --depth;
    if (depth == 0) {
      cur.te = i + 1;
      cur.le = leaf;
      if (n == kMaxLeaves) return n;  // only reachable with empty sub-tuples
      out[n++] = cur;
    }
  }
  return n;
}

TESSEL_HD constexpr bool span_is_leaf(const IntTuple& t, Span s) { return s.te - s.tb == 1 && t.tok[s.tb] == kTokLeaf; }

TESSEL_HD constexpr IntTuple extract(const IntTuple& t, Span s) {
  IntTuple r;
  push_span(r, t, s);
  return r;
}

// ---------------------------------------------------------------- measures

/// Number of top-level modes (1 for an integer).  Example: rank((3,(6,2),8)) == 3.
TESSEL_HD constexpr int rank(const IntTuple& t) {
  if (t.is_int()) return 1;
  Span c[kMaxLeaves];
  return children(t, whole(t), c);
}

/// Nesting depth (0 for an integer).  Example: depth((3,(6,2),8)) == 2.
TESSEL_HD constexpr int depth(const IntTuple& t) {
  int d = 0, best = 0;
  for (int i = 0; i < t.ntok; ++i) {
    if (t.tok[i] == kTokOpen) best = (++d > best) ? d : best;
    if (t.tok[i] == kTokClose) --d;
  }
  return best;
}

/// Product of the leaves of span `s`.  Example: size((3,(6,2),8)) == 288.
/// Exact whenever the product fits in index_t (always, for a shape that
/// check_shape or check_layout accepted); saturates at kMaxIndex otherwise, and
/// is 0 when a leaf is 0, so no input makes it overflow.  Negative leaves
/// (which no shape has) are not supported.
TESSEL_HD constexpr index_t span_size(const IntTuple& t, Span s) {
  index_t p = 1;
  for (int i = s.lb; i < s.le; ++i) p = sat_mul(p, t.val[i]);
  for (int i = s.lb; i < s.le; ++i)
    if (t.val[i] == 0) return 0;
  return p;
}
TESSEL_HD constexpr index_t size(const IntTuple& t) { return span_size(t, whole(t)); }

/// Mode `k` (an integer has one mode, itself).  C++ example: mode((3,(6,2)),1) is `(6,2)`.
TESSEL_HD constexpr IntTuple mode(const IntTuple& t, int k) {
  Span c[kMaxLeaves];
  const int n = children(t, whole(t), c);
  if (k < 0 || k >= n) {
    IntTuple bad;
    bad.overflow = true;
    return bad;
  }
  return extract(t, c[k]);
}

/// The leaves as a flat tuple (an integer stays an integer).
/// C++ example: flatten((3,(6,2),8)) is `(3,6,2,8)`.
TESSEL_HD constexpr IntTuple flatten(const IntTuple& t) {
  if (t.is_int()) return t;
  return flat_tuple_of(t.val, t.nleaf);
}

/// Same nesting profile.  C++ example: congruent((2,(3,4)),(1,(6,2))) is true.
TESSEL_HD constexpr bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.ntok != b.ntok) return false;
  for (int i = 0; i < a.ntok; ++i)
    if (a.tok[i] != b.tok[i]) return false;
  return true;
}

/// `a` is weakly congruent to `b` (a ≤ b): a is an integer where b may have a
/// tuple.  C++ example: weakly_congruent((1,5),(3,(2,3))) is true.
TESSEL_HD constexpr bool weakly_congruent_span(const IntTuple& a, Span sa, const IntTuple& b, Span sb) {
  if (span_is_leaf(a, sa)) return true;
  if (span_is_leaf(b, sb)) return false;
  Span ca[kMaxLeaves], cb[kMaxLeaves];
  const int na = children(a, sa, ca);
  const int nb = children(b, sb, cb);
  if (na != nb) return false;
  for (int i = 0; i < na; ++i)
    if (!weakly_congruent_span(a, ca[i], b, cb[i])) return false;
  return true;
}
TESSEL_HD constexpr bool weakly_congruent(const IntTuple& a, const IntTuple& b) {
  return weakly_congruent_span(a, whole(a), b, whole(b));
}

/// Shape `a` can index shape `b` (docs/algebra.md §2.2).  C++ example: compatible(24,(4,6)) is true.
TESSEL_HD constexpr bool compatible_span(const IntTuple& a, Span sa, const IntTuple& b, Span sb) {
  if (span_is_leaf(a, sa)) return a.val[sa.lb] == span_size(b, sb);
  if (span_is_leaf(b, sb)) return false;
  Span ca[kMaxLeaves], cb[kMaxLeaves];
  const int na = children(a, sa, ca);
  const int nb = children(b, sb, cb);
  if (na != nb) return false;
  for (int i = 0; i < na; ++i)
    if (!compatible_span(a, ca[i], b, cb[i])) return false;
  return true;
}
TESSEL_HD constexpr bool compatible(const IntTuple& a, const IntTuple& b) {
  return compatible_span(a, whole(a), b, whole(b));
}

// ---------------------------------------------------------------- C++ builders

namespace detail {
template <class T>
TESSEL_HD constexpr void push_any(IntTuple& t, const T& x) {
  if constexpr (std::is_same_v<T, IntTuple>)
    push_tuple(t, x);
  else
    push_leaf(t, static_cast<index_t>(x));
}
}  // namespace detail

/// Build a tuple from integers (static or run-time) and IntTuples.
/// C++ example: make_tuple(_4{}, m, make_tuple(2, 3)) is `(4,m,(2,3))`.
template <class... Ts>
TESSEL_HD constexpr IntTuple make_tuple(const Ts&... xs) {
  IntTuple t;
  push_tok(t, kTokOpen);
  (detail::push_any(t, xs), ...);
  push_tok(t, kTokClose);
  return t;
}
/// A single integer stays an integer; several make a tuple.
template <class... Ts>
TESSEL_HD constexpr IntTuple make_shape(const Ts&... xs) {
  if constexpr (sizeof...(Ts) == 1 && (Integer<Ts> && ...)) {
    return make_int((static_cast<index_t>(xs), ...));
  } else {
    return make_tuple(xs...);
  }
}
template <class... Ts>
TESSEL_HD constexpr IntTuple make_stride(const Ts&... xs) {
  return make_shape(xs...);
}
template <class... Ts>
TESSEL_HD constexpr IntTuple make_coord(const Ts&... xs) {
  return make_shape(xs...);
}

}  // namespace tessel
