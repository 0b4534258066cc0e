// tests/property/property.hpp — what the property tests share (failure collection,
// layout helpers written independently of the library, random generators,
// tilers).  The tests themselves are grouped by operation in tests/property/*.cpp.
//
// Property tests of the layout algebra over many random layouts (docs/algebra.md §3–§12).
//
// The golden files pin down exact results for hand-picked inputs; these tests
// check the *defining properties* of each operation (R(c) == A(B(c)) for
// composition, strictly increasing and disjoint for complement, ...) on
// thousands of generated inputs, so that a rule that happens to match the
// golden cases but is wrong in general is caught.
//
// Every test draws from its own std::mt19937_64 with a fixed seed, so a run is
// deterministic and a failure reproduces.  Every test also counts how many
// random cases were admissible (the operation succeeded and the property was
// actually checked) and requires a minimum, so no test can pass vacuously
// because the generator stopped producing useful inputs.
//
// Failures are collected by `Failures` and only the first few are reported in
// full (each message prints the inputs in CuTe notation), so a broken rule
// gives a readable report instead of thousands of lines.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fstream>

#include "tessel/host/calc.hpp"
#include "tessel/tessel.hpp"

using namespace tessel;

namespace {

// ============================================================ failure collection

/// Collects failed checks; the message is built lazily, only for the first
/// kMaxReported failures, so the passing path costs no string formatting.
class Failures {
 public:
  static constexpr int kMaxReported = 8;

  template <class Msg>
  void expect(bool ok, Msg&& msg) {
    if (ok) return;
    if (count_++ < kMaxReported) ADD_FAILURE() << msg();
  }
  int count() const { return count_; }

 private:
  int count_ = 0;
};

inline std::string str(const Layout& l) { return to_string(l); }
inline std::string str(const IntTuple& t) { return to_string(t); }

// ============================================================ layout helpers

/// docs/algebra.md §3.3/§3.4 written out independently of the library: colexicographic
/// digits over the leaves, the last leaf absorbing any overflow.
inline index_t reference_eval(const Layout& l, index_t i) {
  index_t total = 0;
  const int n = l.shape.nleaf;
  for (int k = 0; k + 1 < n; ++k) {
    total += (i % l.shape.val[k]) * l.stride.val[k];
    i /= l.shape.val[k];
  }
  return total + i * l.stride.val[n - 1];
}

/// The offsets L(0..size-1) (1-D evaluation), in index order.
inline std::vector<index_t> offsets(const Layout& l) {
  const index_t n = size(l);
  std::vector<index_t> out(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = l(i);
  return out;
}
inline std::vector<index_t> sorted_offsets(const Layout& l) {
  std::vector<index_t> v = offsets(l);
  std::sort(v.begin(), v.end());
  return v;
}
/// Injective on its domain, by brute force (the definition, not a shortcut).
inline bool injective(const Layout& l) {
  const std::vector<index_t> v = sorted_offsets(l);
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}
/// The image of L is exactly {0, 1, ..., size(L)-1}: a permutation of the
/// indices (e.g. a compact layout in any mode order).
inline bool bijective_onto_range(const Layout& l) {
  const std::vector<index_t> v = sorted_offsets(l);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<index_t>(i)) return false;
  return true;
}
inline bool contains_sorted(const std::vector<index_t>& sorted, index_t x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

/// The (shape, stride) leaves of L in order, as pairs.
inline std::vector<std::pair<index_t, index_t>> leaf_pairs(const Layout& l) {
  std::vector<std::pair<index_t, index_t>> out;
  for (int i = 0; i < l.shape.nleaf; ++i) out.emplace_back(l.shape.val[i], l.stride.val[i]);
  return out;
}

/// Test-side padding to rank R with 1:0 modes (docs/algebra.md §10.3 step 1), written
/// independently of the library's helper so the blocked/raked check compares
/// against the spec, not against the implementation.
inline Layout pad_to_rank(const Layout& l, int R) {
  const int r = rank(l);
  if (R <= 1 || r >= R) return l;
  std::vector<Layout> modes;
  for (int k = 0; k < r; ++k) modes.push_back(mode(l, k));
  while (static_cast<int>(modes.size()) < R) modes.push_back(Layout{make_int(1), make_int(0)});
  return concat(modes.data(), R);
}

/// The rank of a mode as the unpacking rules of docs/algebra.md §9.3 see it (an integer
/// counts as rank 1).
inline int unpack_rank(const Layout& l) { return l.shape.is_int() ? 1 : rank(l); }

// ============================================================ random generation

/// How the strides of a random layout are chosen.  The kinds cover what the
/// algebra cares about: arbitrary strides (mostly non-injective, exercising the
/// error paths), powers of two (often admissible for composition), and three
/// injective families (compact, compact in a random mode order, compact with
/// gaps) that make complement/inverses/divides/products succeed.
enum class Strides { Random, Pow2, Compact, Permuted, Gapped };

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}

  index_t uniform(index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng_); }
  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform_int(0, 99) < percent; }

  Strides any_kind() {
    const int r = uniform_int(0, 99);
    if (r < 25) return Strides::Random;
    if (r < 40) return Strides::Pow2;
    if (r < 55) return Strides::Compact;
    if (r < 75) return Strides::Permuted;
    return Strides::Gapped;
  }
  Strides injective_kind() {
    const int r = uniform_int(0, 2);
    return r == 0 ? Strides::Compact : (r == 1 ? Strides::Permuted : Strides::Gapped);
  }

  /// A random shape with `nleaf` leaves (extents 1..8, half of them powers of
  /// two so that divisibility rules are often met), size ≤ max_size, nested to
  /// depth ≤ max_depth.
  IntTuple shape(int nleaf, index_t max_size, int max_depth) {
    std::vector<index_t> ext(static_cast<std::size_t>(nleaf));
    for (auto& e : ext) e = chance(50) ? (index_t{1} << uniform(0, 3)) : uniform(1, 8);
    // Shrink until small enough: the tests enumerate whole domains.
    auto total = [&] {
      index_t p = 1;
      for (index_t e : ext) p *= e;
      return p;
    };
    while (total() > max_size) {
      auto& e = ext[static_cast<std::size_t>(uniform_int(0, nleaf - 1))];
      e = (e + 1) / 2;
    }
    IntTuple t;
    const int budget = nleaf == 1 ? uniform_int(0, std::min(1, max_depth)) : uniform_int(1, max_depth);
    emit(t, ext, 0, nleaf, budget);
    return t;
  }

  /// Strides for the leaves of S, of the given kind; the result is congruent to S.
  IntTuple strides(const IntTuple& S, Strides kind) {
    IntTuple D = S;
    const int n = S.nleaf;
    switch (kind) {
      case Strides::Random:
        for (int i = 0; i < n; ++i) D.val[i] = chance(15) ? 0 : uniform(0, 64);
        break;
      case Strides::Pow2:
        for (int i = 0; i < n; ++i) D.val[i] = chance(15) ? 0 : (index_t{1} << uniform(0, 6));
        break;
      case Strides::Compact:
        D = compact_strides(S, chance(50) ? Major::Left : Major::Right);
        break;
      case Strides::Permuted:
      case Strides::Gapped: {
        // Visit the leaves in a random order, each starting where the previous
        // one ended (Permuted: exactly; Gapped: at a multiple of that point,
        // sometimes plus a non-dividing offset).  Either way the leaves never
        // overlap, so the layout is injective.
        std::vector<int> order(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
        std::shuffle(order.begin(), order.end(), rng_);
        index_t p = 1;
        for (int i : order) {
          if (S.val[i] == 1) {  // an extent-1 leaf's stride never matters
            D.val[i] = chance(50) ? 0 : uniform(0, 64);
            continue;
          }
          index_t d = p;
          if (kind == Strides::Gapped) {
            d = p * uniform(1, 3);
            if (chance(20)) d += uniform(0, p);
          }
          D.val[i] = d;
          p = d * S.val[i];
        }
        break;
      }
    }
    return D;
  }

  Layout layout(Strides kind, int max_leaves, index_t max_size, int max_depth) {
    const IntTuple S = shape(uniform_int(1, max_leaves), max_size, max_depth);
    return Layout{S, strides(S, kind)};
  }
  Layout any_layout(int max_leaves = 6, index_t max_size = 256, int max_depth = 3) {
    return layout(any_kind(), max_leaves, max_size, max_depth);
  }
  Layout injective_layout(int max_leaves = 6, index_t max_size = 256, int max_depth = 3) {
    return layout(injective_kind(), max_leaves, max_size, max_depth);
  }
  /// A layout of rank ≥ 2 (for tilers, which address top-level modes).
  Layout multi_mode_layout(int max_leaves, index_t max_size, Strides kind) {
    for (;;) {
      const IntTuple S = shape(uniform_int(2, max_leaves), max_size, 3);
      if (S.is_tuple() && rank(S) >= 2) return Layout{S, strides(S, kind)};
    }
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  /// Emit leaves [lo,hi) of `ext` as one element with at most `budget` levels
  /// of nesting; rank-1 tuples such as `(4)` or `((2,2))` arise on purpose.
  void emit(IntTuple& t, const std::vector<index_t>& ext, int lo, int hi, int budget) {
    if (hi - lo == 1 && (budget == 0 || chance(60))) {
      push_leaf(t, ext[static_cast<std::size_t>(lo)]);
      return;
    }
    push_tok(t, kTokOpen);
    for (int i = lo; i < hi;) {
      const int len = budget == 1 ? 1 : uniform_int(1, hi - i);
      emit(t, ext, i, i + len, budget - 1);
      i += len;
    }
    push_tok(t, kTokClose);
  }

  std::mt19937_64 rng_;
};

// ============================================================ tilers

/// One element of a random tiler, kept alongside the library Tiler so the
/// test knows what each mode was supposed to do.
struct TilerElem {
  enum Kind { kSkip, kInt, kLayout } kind = kSkip;
  index_t n = 0;
  Layout layout{};
};

/// Builds the library tiler with make_tiler, one element at a time (make_tiler
/// is variadic over static types; a single-element tiler per element lets the
/// test mix `_`, integers and layouts at run time).
inline Tiler build_tiler(const std::vector<TilerElem>& elems) {
  Tiler t;
  for (const TilerElem& e : elems) {
    const Tiler one = e.kind == TilerElem::kSkip  ? make_tiler(tessel::_)
                      : e.kind == TilerElem::kInt ? make_tiler(e.n)
                                                  : make_tiler(e.layout);
    t.mode[t.n++] = one.mode[0];
  }
  return t;
}

inline std::string str(const std::vector<TilerElem>& elems) {
  std::string s = "<";
  for (std::size_t i = 0; i < elems.size(); ++i) {
    if (i) s += ",";
    const TilerElem& e = elems[i];
    s += e.kind == TilerElem::kSkip  ? std::string("_")
         : e.kind == TilerElem::kInt ? std::to_string(e.n)
                                     : str(e.layout);
  }
  return s + ">";
}

/// The layout a tiler element stands for: composition reads an integer n as
/// n:1 (docs/algebra.md §6.4); divides and products as make_layout(n), i.e. 1:0 for n = 1
/// (docs/algebra.md §9.2).  `_` is handled by the caller.
inline Layout tiler_layout(const TilerElem& e, bool compact_int) {
  if (e.kind == TilerElem::kLayout) return e.layout;
  if (compact_int && e.n == 1) return Layout{make_int(1), make_int(0)};
  return Layout{make_int(e.n), make_int(1)};
}

// ============================================================ complement (docs/algebra.md §7.2), restated
/// docs/algebra.md §7.2 step 3/4, restated on the sorted filtered leaves: the complement
/// exists exactly when every leaf (in stride order) starts at or after the end
/// d*s of the previous one.  `divisible` is the stronger condition that it
/// starts at a multiple of that end: then (L,R) tiles [0, size(L)*size(R))
/// exactly.
struct ComplementShape {
  bool exists = true;
  bool divisible = true;
};
inline ComplementShape complement_shape(const Layout& L) {
  auto leaves = leaf_pairs(filter(L));
  ComplementShape out;
  if (leaves.size() == 1 && leaves[0].second == 0) return out;  // 1:0
  std::stable_sort(leaves.begin(), leaves.end(), [](auto a, auto b) { return a.second < b.second; });
  index_t end = 1;
  for (auto [s, d] : leaves) {
    if (d < end) out.exists = false;
    if (d % end != 0) out.divisible = false;
    end = d * s;
  }
  return out;
}

}  // namespace
