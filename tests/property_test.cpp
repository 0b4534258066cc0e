// Property tests of the layout algebra over many random layouts (spec §3–§12).
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

std::string str(const Layout& l) { return to_string(l); }
std::string str(const IntTuple& t) { return to_string(t); }

// ============================================================ layout helpers

/// Spec §3.3/§3.4 written out independently of the library: colexicographic
/// digits over the leaves, the last leaf absorbing any overflow.
index_t reference_eval(const Layout& l, index_t i) {
  index_t total = 0;
  const int n = l.shape.nleaf;
  for (int k = 0; k + 1 < n; ++k) {
    total += (i % l.shape.val[k]) * l.stride.val[k];
    i /= l.shape.val[k];
  }
  return total + i * l.stride.val[n - 1];
}

/// The offsets L(0..size-1) (1-D evaluation), in index order.
std::vector<index_t> offsets(const Layout& l) {
  const index_t n = size(l);
  std::vector<index_t> out(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = l(i);
  return out;
}
std::vector<index_t> sorted_offsets(const Layout& l) {
  std::vector<index_t> v = offsets(l);
  std::sort(v.begin(), v.end());
  return v;
}
/// Injective on its domain, by brute force (the definition, not a shortcut).
bool injective(const Layout& l) {
  const std::vector<index_t> v = sorted_offsets(l);
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}
/// The image of L is exactly {0, 1, ..., size(L)-1}: a permutation of the
/// indices (e.g. a compact layout in any mode order).
bool bijective_onto_range(const Layout& l) {
  const std::vector<index_t> v = sorted_offsets(l);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<index_t>(i)) return false;
  return true;
}
bool contains_sorted(const std::vector<index_t>& sorted, index_t x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

/// The (shape, stride) leaves of L in order, as pairs.
std::vector<std::pair<index_t, index_t>> leaf_pairs(const Layout& l) {
  std::vector<std::pair<index_t, index_t>> out;
  for (int i = 0; i < l.shape.nleaf; ++i) out.emplace_back(l.shape.val[i], l.stride.val[i]);
  return out;
}

/// Test-side padding to rank R with 1:0 modes (spec §10.3 step 1), written
/// independently of the library's helper so the blocked/raked check compares
/// against the spec, not against the implementation.
Layout pad_to_rank(const Layout& l, int R) {
  const int r = rank(l);
  if (R <= 1 || r >= R) return l;
  std::vector<Layout> modes;
  for (int k = 0; k < r; ++k) modes.push_back(mode(l, k));
  while (static_cast<int>(modes.size()) < R) modes.push_back(Layout{make_int(1), make_int(0)});
  return concat(modes.data(), R);
}

/// The rank of a mode as the unpacking rules of spec §9.3 see it (an integer
/// counts as rank 1).
int unpack_rank(const Layout& l) { return l.shape.is_int() ? 1 : rank(l); }

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
Tiler build_tiler(const std::vector<TilerElem>& elems) {
  Tiler t;
  for (const TilerElem& e : elems) {
    const Tiler one = e.kind == TilerElem::kSkip  ? make_tiler(tessel::_)
                      : e.kind == TilerElem::kInt ? make_tiler(e.n)
                                                  : make_tiler(e.layout);
    t.mode[t.n++] = one.mode[0];
  }
  return t;
}

std::string str(const std::vector<TilerElem>& elems) {
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
/// n:1 (spec §6.4); divides and products as make_layout(n), i.e. 1:0 for n = 1
/// (spec §9.2).  `_` is handled by the caller.
Layout tiler_layout(const TilerElem& e, bool compact_int) {
  if (e.kind == TilerElem::kLayout) return e.layout;
  if (compact_int && e.n == 1) return Layout{make_int(1), make_int(0)};
  return Layout{make_int(e.n), make_int(1)};
}

}  // namespace

// ============================================================ 1. composition

// R = composition(A,B), when admissible, satisfies R(c) == A(B(c)) for every
// index c of B (A with the extended evaluation of §3.4), its shape is
// compatible with B's shape and keeps B's top-level profile (§6.1, §6.3).
TEST(Property, CompositionIsFunctionComposition) {
  Gen g(0x5eed0001);
  Failures f;
  int admissible = 0, nontrivial = 0;
  for (int iter = 0; iter < 30000; ++iter) {
    const Layout A = g.any_layout(6, 256, 3);
    const Layout B = g.any_layout(4, 64, 3);
    const auto r = composition(A, B);
    if (!r.ok()) continue;
    ++admissible;
    const Layout& R = r.val;
    if (size(B) > 1 && depth(R) >= 1) ++nontrivial;
    auto ctx = [&] { return "A=" + str(A) + " B=" + str(B) + " R=" + str(R); };
    f.expect(size(R) == size(B), [&] { return "size(R) != size(B): " + ctx(); });
    f.expect(compatible(B.shape, R.shape), [&] { return "shape(B) not compatible with shape(R): " + ctx(); });
    // Same top-level profile: a tuple B gives a tuple R of the same rank.
    if (B.shape.is_tuple())
      f.expect(R.shape.is_tuple() && rank(R) == rank(B), [&] { return "top-level profile differs: " + ctx(); });
    for (index_t c = 0; c < size(B); ++c) {
      const index_t want = A(B(c));
      f.expect(R(c) == want,
               [&] { return "R(" + std::to_string(c) + ") != A(B(c)) = " + std::to_string(want) + ": " + ctx(); });
      // Because shape(B) is compatible with shape(R), B's natural coordinate is
      // also a coordinate of R and must land on the same offset.
      const IntTuple crd = idx2crd(c, B.shape);
      f.expect(R(crd) == want, [&] { return "R(" + str(crd) + ") != A(B(c)): " + ctx(); });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 5000) << "too few admissible compositions: the generator no longer exercises composition";
  EXPECT_GE(nontrivial, 3000);
  std::cout << "[ composition ] admissible " << admissible << " of 30000, nested results " << nontrivial << "\n";
}

// By-mode composition with a tiler (§6.4): mode k of the result is
// composition(A_k, T_k) (an integer n means n:1, `_` keeps A_k), and modes of
// A beyond the tiler are dropped.
TEST(Property, CompositionByModeWithTiler) {
  Gen g(0x5eed0002);
  Failures f;
  int admissible = 0, layout_modes = 0;
  for (int iter = 0; iter < 8000; ++iter) {
    const Layout A = g.multi_mode_layout(6, 256, g.any_kind());
    const int m = g.uniform_int(1, std::min(rank(A), 3));
    std::vector<TilerElem> elems(static_cast<std::size_t>(m));
    for (auto& e : elems) {
      const int r = g.uniform_int(0, 99);
      if (r < 60) {
        e.kind = TilerElem::kLayout;
        e.layout = g.any_layout(3, 16, 2);
      } else if (r < 85) {
        e.kind = TilerElem::kInt;
        e.n = g.uniform(1, 8);
      }
    }
    const Tiler T = build_tiler(elems);
    const auto r = composition(A, T);
    auto ctx = [&] { return "A=" + str(A) + " T=" + str(elems) + (r.ok() ? " R=" + str(r.val) : std::string()); };
    // Errors are per mode, so the tiler fails exactly when some mode fails.
    bool some_mode_fails = false;
    for (int k = 0; k < m; ++k) {
      const TilerElem& e = elems[static_cast<std::size_t>(k)];
      if (e.kind != TilerElem::kSkip && !composition(mode(A, k), tiler_layout(e, false)).ok()) some_mode_fails = true;
    }
    f.expect(r.ok() != some_mode_fails, [&] { return "tiler result disagrees with per-mode admissibility: " + ctx(); });
    if (!r.ok()) continue;
    ++admissible;
    const Layout& R = r.val;
    f.expect(R.shape.is_tuple() && rank(R) == m, [&] { return "rank(R) != length of the tiler: " + ctx(); });
    if (!R.shape.is_tuple() || rank(R) != m) continue;
    for (int k = 0; k < m; ++k) {
      const TilerElem& e = elems[static_cast<std::size_t>(k)];
      const Layout Ak = mode(A, k);
      const Layout Rk = mode(R, k);
      if (e.kind == TilerElem::kSkip) {
        f.expect(Rk == Ak, [&] { return "`_` mode " + std::to_string(k) + " changed: " + ctx(); });
        continue;
      }
      const Layout Tk = tiler_layout(e, false);
      if (e.kind == TilerElem::kLayout) ++layout_modes;
      f.expect(Rk == composition(Ak, Tk).val,
               [&] { return "mode " + std::to_string(k) + " != composition(A_k,T_k): " + ctx(); });
      f.expect(size(Rk) == size(Tk), [&] { return "size of mode " + std::to_string(k) + ": " + ctx(); });
      for (index_t c = 0; c < size(Tk); ++c)
        f.expect(Rk(c) == Ak(Tk(c)),
                 [&] { return "mode " + std::to_string(k) + " at " + std::to_string(c) + ": " + ctx(); });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 1500);
  EXPECT_GE(layout_modes, 1000);
  std::cout << "[ composition tiler ] admissible " << admissible << " of 8000, layout modes " << layout_modes << "\n";
}

// ============================================================ 2. complement

namespace {
/// Spec §7.2 step 3/4, restated on the sorted filtered leaves: the complement
/// exists exactly when every leaf (in stride order) starts at or after the end
/// d*s of the previous one.  `divisible` is the stronger condition that it
/// starts at a multiple of that end: then (L,R) tiles [0, size(L)*size(R))
/// exactly.
struct ComplementShape {
  bool exists = true;
  bool divisible = true;
};
ComplementShape complement_shape(const Layout& L) {
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

TEST(Property, ComplementIsIncreasingDisjointAndCovers) {
  Gen g(0x5eed0003);
  Failures f;
  int checked = 0, injective_inputs = 0, divisible_cases = 0, interleaved_rejected = 0;
  int reach_short_nondivisible = 0;  // see the note at the "reaches" check
  for (int iter = 0; iter < 10000; ++iter) {
    const Layout L = g.chance(70) ? g.injective_layout(6, 64, 3) : g.any_layout(6, 64, 3);
    const index_t cos = cosize(L);
    const int pick = g.uniform_int(0, 3);
    const index_t C = pick == 0 ? cos : pick == 1 ? cos + g.uniform(0, cos) : cos * g.uniform(2, 3);
    const auto r = complement(L, C);
    const ComplementShape expect_shape = complement_shape(L);
    auto ctx = [&] { return "L=" + str(L) + " C=" + std::to_string(C) + (r.ok() ? " R=" + str(r.val) : " error"); };

    // Existence follows the spec's rule for every input, injective or not.
    f.expect(r.ok() == expect_shape.exists, [&] { return "complement existence differs from spec §7.2: " + ctx(); });
    if (!r.ok()) {
      f.expect(r.code() == Errc::non_injective, [&] { return "complement failed with a wrong error: " + ctx(); });
      continue;
    }
    // The one-argument form uses the cotarget cosize(filter(L)) (§7.1).
    f.expect(complement(L).val == complement(L, cosize(filter(L))).val, [&] { return "default cotarget: " + ctx(); });

    if (!injective(L)) continue;
    ++injective_inputs;
    const Layout& R = r.val;
    const std::vector<index_t> image = sorted_offsets(L);
    f.expect(R(0) == 0, [&] { return "R(0) != 0: " + ctx(); });
    for (index_t i = 1; i < size(R); ++i) {
      f.expect(R(i - 1) < R(i), [&] { return "R not strictly increasing at " + std::to_string(i) + ": " + ctx(); });
      f.expect(!contains_sorted(image, R(i)),
               [&] { return "R(" + std::to_string(i) + ") is an offset of L: " + ctx(); });
    }
    const Layout LR = make_layout(L, R);
    f.expect(injective(LR), [&] { return "(L,R) is not injective: " + ctx(); });
    // "(L,R) reaches at least size(C) offsets" (§7.1).  This holds when the
    // leaves of L start at multiples of each other's ends; then (L,R) is even
    // a bijection onto [0, size(L)*size(R)).  When a leaf starts at a
    // non-multiple (e.g. (2,2):(1,3)), §7.2 step 3 rounds d // out_stride down
    // and the algorithm (CuTe's too) returns fewer offsets than C: that is the
    // algorithm the spec prescribes, not a library bug, so it is only counted.
    const bool reaches = size(L) * size(R) >= C;
    if (expect_shape.divisible) {
      ++divisible_cases;
      f.expect(reaches, [&] { return "size(L)*size(R) < C: " + ctx(); });
      f.expect(bijective_onto_range(LR), [&] { return "(L,R) is not a bijection onto [0,size): " + ctx(); });
    } else if (!reaches) {
      ++reach_short_nondivisible;
    }
    ++checked;
  }
  // Injective but interleaved layouts, e.g. (3,2):(2,3) with offsets
  // {0,2,4,3,5,7}, have no complement (§7.2 reports non-injective): check it.
  for (int iter = 0; iter < 2000; ++iter) {
    const Layout L = g.layout(Strides::Random, 3, 64, 2);
    if (!injective(L) || complement_shape(L).exists) continue;
    ++interleaved_rejected;
    f.expect(complement(L, cosize(L)).code() == Errc::non_injective,
             [&] { return "expected non-injective: L=" + str(L); });
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(checked, 5000);
  EXPECT_GE(divisible_cases, 3000);
  EXPECT_GE(interleaved_rejected, 20);
  std::cout << "[ complement ] checked " << checked << " (injective inputs " << injective_inputs << ", divisible "
            << divisible_cases << "), non-divisible with size(L)*size(R) < C " << reach_short_nondivisible
            << ", interleaved rejected " << interleaved_rejected << "\n";
}

// ============================================================ 3. inverses

namespace {
/// Size of the right inverse by the greedy rule of §8.1: leaves of
/// coalesce(L) in the §8 exchange-sort order (ties matter), following the
/// chain of strides 1, s*d, ...
index_t right_inverse_size(const Layout& L) {
  const auto lv = leaf_pairs(coalesce(L));
  std::vector<std::size_t> order(lv.size());
  for (std::size_t i = 0; i < lv.size(); ++i) order[i] = i;
  for (std::size_t i = 0; i < lv.size(); ++i)
    for (std::size_t j = i + 1; j < lv.size(); ++j)
      if (lv[order[j]].second < lv[order[i]].second) std::swap(order[i], order[j]);
  index_t cur = 1, n = 1;
  for (std::size_t j : order)
    if (lv[j].second == cur) {
      n *= lv[j].first;
      cur = lv[j].first * lv[j].second;
    }
  return n;
}
}  // namespace

TEST(Property, RightInverse) {
  Gen g(0x5eed0004);
  Failures f;
  int checked = 0, nontrivial = 0, full = 0;
  for (int iter = 0; iter < 15000; ++iter) {
    const Layout L = g.any_layout();
    const auto r = right_inverse(L);
    // Every valid layout with non-negative strides has a right inverse (at
    // worst 1:0), so this must never fail.
    f.expect(r.ok(), [&] { return "right_inverse failed: L=" + str(L); });
    if (!r.ok()) continue;
    ++checked;
    const Layout& R = r.val;
    if (size(R) > 1) ++nontrivial;
    auto ctx = [&] { return "L=" + str(L) + " R=" + str(R); };
    // "As large as the greedy rule finds": the size is the chain of §8.1.
    f.expect(size(R) == right_inverse_size(L),
             [&] { return "size(R) != greedy chain " + std::to_string(right_inverse_size(L)) + ": " + ctx(); });
    for (index_t i = 0; i < size(R); ++i) {
      // R maps into L's domain and L undoes it.
      f.expect(R(i) < size(L), [&] { return "R(i) outside L's domain: " + ctx(); });
      f.expect(L(R(i)) == i, [&] { return "L(R(" + std::to_string(i) + ")) != i: " + ctx(); });
    }
    // A permutation of [0,size) has a full inverse: the greedy rule of §8.1
    // finds every leaf, so R is a two-sided inverse.
    if (bijective_onto_range(L)) {
      ++full;
      f.expect(size(R) == size(L), [&] { return "bijective L but size(R) != size(L): " + ctx(); });
      for (index_t i = 0; i < size(L); ++i)
        f.expect(R(L(i)) == i, [&] { return "bijective L but R(L(i)) != i: " + ctx(); });
    }
  }
  EXPECT_EQ(f.count(), 0);
  // Equal strides (ties) on purpose: the §8 order is not a stable sort, and
  // e.g. right_inverse((2,3,2):(2,2,1)) must visit leaf 1 before leaf 0.
  int ties = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const IntTuple S = g.shape(g.uniform_int(2, 4), 64, 1);
    IntTuple D = S;
    for (int i = 0; i < D.nleaf; ++i) D.val[i] = index_t{1} << g.uniform(0, 2);
    const Layout L{S, D};
    const auto r = right_inverse(L);
    if (!r.ok()) continue;
    ++ties;
    f.expect(size(r.val) == right_inverse_size(L), [&] { return "tie order: L=" + str(L) + " R=" + str(r.val); });
    for (index_t i = 0; i < size(r.val); ++i)
      f.expect(L(r.val(i)) == i, [&] { return "tie case L(R(i)) != i: L=" + str(L) + " R=" + str(r.val); });
  }
  EXPECT_GE(ties, 3000);
  EXPECT_GE(checked, 15000);
  EXPECT_GE(nontrivial, 5000);
  EXPECT_GE(full, 2000);
  std::cout << "[ right_inverse ] checked " << checked << ", size(R) > 1: " << nontrivial << ", bijective " << full
            << ", equal-stride cases " << ties << "\n";
}

namespace {
/// Spec §8.2: left_inverse succeeds exactly when each non-zero stride of
/// coalesce(L), in the §8 order, is a multiple of the previous one (the product
/// of the shapes emitted so far telescopes to the previous stride).
bool left_inverse_defined(const Layout& L) {
  std::vector<index_t> strides;
  for (auto [s, d] : leaf_pairs(coalesce(L)))
    if (d != 0 && s != 1) strides.push_back(d);
  std::sort(strides.begin(), strides.end());
  index_t z = 1;
  for (index_t d : strides) {
    if (d % z != 0) return false;
    z = d;
  }
  return true;
}
}  // namespace

TEST(Property, LeftInverse) {
  Gen g(0x5eed0005);
  Failures f;
  int checked = 0, quasi = 0, rejected = 0;
  for (int iter = 0; iter < 15000; ++iter) {
    Layout L = g.chance(80) ? g.injective_layout() : g.any_layout();
    const auto r = left_inverse(L);
    const bool defined = left_inverse_defined(L);
    auto ctx = [&] { return "L=" + str(L) + (r.ok() ? " R=" + str(r.val) : " error"); };
    f.expect(r.ok() == defined, [&] { return "left_inverse existence differs from spec §8.2: " + ctx(); });
    if (!r.ok()) {
      ++rejected;
      f.expect(r.code() == Errc::left_inverse_divisibility, [&] { return "wrong error: " + ctx(); });
      continue;
    }
    const Layout& R = r.val;
    // R must be defined on every offset L produces: its domain covers cosize(L).
    if (injective(filter(L))) f.expect(size(R) >= cosize(L), [&] { return "size(R) < cosize(L): " + ctx(); });
    if (injective(L)) {
      ++checked;
      for (index_t i = 0; i < size(L); ++i)
        f.expect(R(L(i)) == i, [&] { return "R(L(" + std::to_string(i) + ")) != i: " + ctx(); });
    } else if (injective(filter(L))) {
      // Stride-0 leaves: only a quasi-inverse, L∘R∘L == L (§8.2).
      ++quasi;
      for (index_t i = 0; i < size(L); ++i)
        f.expect(L(R(L(i))) == L(i), [&] { return "L(R(L(i))) != L(i): " + ctx(); });
    }
  }
  // Broadcast (stride-0) modes in front of an injective layout: the quasi-inverse case.
  for (int iter = 0; iter < 3000; ++iter) {
    const Layout base = g.injective_layout(4, 64, 2);
    const Layout bcast{make_int(g.uniform(2, 4)), make_int(0)};
    const Layout L = g.chance(50) ? make_layout(bcast, base) : make_layout(base, bcast);
    const auto r = left_inverse(L);
    if (!r.ok()) continue;
    ++quasi;
    f.expect(size(r.val) >= cosize(L), [&] { return "quasi-inverse domain: L=" + str(L) + " R=" + str(r.val); });
    for (index_t i = 0; i < size(L); ++i)
      f.expect(L(r.val(L(i))) == L(i), [&] { return "quasi-inverse: L=" + str(L) + " R=" + str(r.val); });
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(checked, 8000);
  EXPECT_GE(quasi, 2000);
  EXPECT_GE(rejected, 100);
  std::cout << "[ left_inverse ] injective " << checked << ", quasi " << quasi << ", rejected " << rejected << "\n";
}

// ============================================================ 4. coalesce, filter

TEST(Property, CoalescePreservesTheFunction) {
  Gen g(0x5eed0006);
  Failures f;
  int checked = 0, merged = 0, by_mode = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    const Layout L = g.any_layout();
    const Layout C = coalesce(L);
    ++checked;
    auto ctx = [&] { return "L=" + str(L) + " coalesce=" + str(C); };
    f.expect(size(C) == size(L), [&] { return "size changed: " + ctx(); });
    f.expect(depth(C) <= 1, [&] { return "depth > 1: " + ctx(); });
    for (index_t i = 0; i < size(L); ++i)
      f.expect(C(i) == L(i), [&] { return "value differs at " + std::to_string(i) + ": " + ctx(); });
    // Fewest leaves (§5.1): no extent-1 leaf (except the whole 1:0) and no
    // neighbouring pair the merge rule would still join.
    const auto lv = leaf_pairs(C);
    if (lv.size() < static_cast<std::size_t>(L.shape.nleaf)) ++merged;
    if (size(L) == 1) f.expect(C == Layout{make_int(1), make_int(0)}, [&] { return "size 1 must give 1:0: " + ctx(); });
    if (lv.size() == 1) f.expect(C.shape.is_int(), [&] { return "a single leaf must be integral: " + ctx(); });
    for (std::size_t i = 0; i < lv.size(); ++i) {
      if (size(L) > 1) f.expect(lv[i].first > 1, [&] { return "extent-1 leaf left: " + ctx(); });
      if (i > 0)
        f.expect(lv[i].second != lv[i - 1].first * lv[i - 1].second, [&] { return "mergeable leaves left: " + ctx(); });
    }
    // By-mode coalesce with a flat profile (§5.2): mode k is coalesce(L_k).
    if (L.shape.is_tuple()) {
      ++by_mode;
      std::vector<IntTuple> ones(static_cast<std::size_t>(rank(L)), make_int(1));
      const auto rm = coalesce(L, tuple_of(ones.data(), rank(L)));
      f.expect(rm.ok() && rank(rm.val) == rank(L), [&] { return "by-mode coalesce failed: " + ctx(); });
      if (rm.ok() && rank(rm.val) == rank(L))
        for (int k = 0; k < rank(L); ++k)
          f.expect(mode(rm.val, k) == coalesce(mode(L, k)), [&] { return "by-mode coalesce mode differs: " + ctx(); });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(checked, 20000);
  EXPECT_GE(merged, 5000);
  EXPECT_GE(by_mode, 5000);
  std::cout << "[ coalesce ] checked " << checked << ", merged leaves in " << merged << ", by-mode " << by_mode << "\n";
}

TEST(Property, FilterKeepsTheImage) {
  Gen g(0x5eed0007);
  Failures f;
  int checked = 0, with_zero = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    const Layout L = g.any_layout();
    const Layout F = filter(L);
    ++checked;
    bool has_zero = false;
    for (int i = 0; i < L.shape.nleaf; ++i) has_zero |= (L.stride.val[i] == 0 && L.shape.val[i] > 1);
    if (has_zero) ++with_zero;
    auto ctx = [&] { return "L=" + str(L) + " filter=" + str(F); };
    // Same set of offsets (filter only removes repetition).
    std::vector<index_t> a = sorted_offsets(L), b = sorted_offsets(F);
    a.erase(std::unique(a.begin(), a.end()), a.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    f.expect(a == b, [&] { return "image differs: " + ctx(); });
    f.expect(depth(F) <= 1 && size(F) <= size(L), [&] { return "shape: " + ctx(); });
    // No stride-0 leaf survives unless the result is 1:0.
    if (!(F == Layout{make_int(1), make_int(0)}))
      for (auto [s, d] : leaf_pairs(F))
        f.expect(d != 0 && s > 1, [&] { return "stride-0 or extent-1 leaf left: " + ctx(); });
    // Filtering is idempotent.
    f.expect(filter(F) == F, [&] { return "filter not idempotent: " + ctx(); });
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(checked, 20000);
  EXPECT_GE(with_zero, 2000);
  std::cout << "[ filter ] checked " << checked << ", with broadcast leaves " << with_zero << "\n";
}

// ============================================================ 5. divide

// logical_divide(A,B) = A ∘ (B, complement(B, shape(coalesce(A)))) (§9.1):
// mode 0 is one tile A∘B, the whole is A∘Bfull as a function, and when Bfull
// permutes A's indices the result is a rearrangement of A.
TEST(Property, LogicalDivideWithLayout) {
  Gen g(0x5eed0008);
  Failures f;
  int admissible = 0, exact = 0;
  for (int iter = 0; iter < 15000; ++iter) {
    const Layout A = g.chance(70) ? g.injective_layout(5, 256, 3) : g.any_layout(5, 256, 3);
    const Layout B = g.chance(80) ? g.injective_layout(3, 32, 2) : g.any_layout(3, 32, 2);
    const auto r = logical_divide(A, B);
    const auto comp = complement(B, coalesce(A).shape);
    auto ctx = [&] { return "A=" + str(A) + " B=" + str(B) + (r.ok() ? " R=" + str(r.val) : " error"); };
    if (!comp.ok()) {
      f.expect(!r.ok() && r.code() == comp.code(), [&] { return "complement error not propagated: " + ctx(); });
      continue;
    }
    const Layout Bfull = make_layout(B, comp.val);
    const auto direct = composition(A, Bfull);
    f.expect(r.ok() == direct.ok(), [&] { return "divide/composition admissibility differ: " + ctx(); });
    if (!r.ok() || !direct.ok()) continue;
    ++admissible;
    const Layout& R = r.val;
    f.expect(R == direct.val, [&] { return "R != composition(A, (B, complement)): " + ctx(); });
    f.expect(R.shape.is_tuple() && rank(R) == 2, [&] { return "rank(R) != 2: " + ctx(); });
    f.expect(size(R) == size(Bfull), [&] { return "size(R) != size(Bfull): " + ctx(); });
    for (index_t c = 0; c < size(R); ++c)
      f.expect(R(c) == A(Bfull(c)), [&] { return "R(c) != A(Bfull(c)) at " + std::to_string(c) + ": " + ctx(); });
    // Mode 0 is the first tile: A∘B as a function.
    const Layout R0 = mode(R, 0);
    f.expect(size(R0) == size(B), [&] { return "size(mode 0) != size(B): " + ctx(); });
    for (index_t c = 0; c < size(B); ++c)
      f.expect(R0(c) == A(B(c)), [&] { return "mode 0 != A∘B at " + std::to_string(c) + ": " + ctx(); });
    // Exact division: Bfull permutes A's indices, so R holds exactly A's offsets.
    if (size(Bfull) == size(A) && bijective_onto_range(Bfull)) {
      ++exact;
      f.expect(sorted_offsets(R) == sorted_offsets(A),
               [&] { return "exact division is not a rearrangement of A: " + ctx(); });
    }
    // zipped_divide with a layout is logical_divide itself; tiled and flat
    // only unpack modes, which keeps the leaf sequence and hence the 1-D function.
    const auto z = zipped_divide(A, B);
    const auto t = tiled_divide(A, B);
    const auto fl = flat_divide(A, B);
    f.expect(z.ok() && z.val == R, [&] { return "zipped_divide != logical_divide: " + ctx(); });
    f.expect(t.ok() && fl.ok(), [&] { return "tiled/flat_divide failed: " + ctx(); });
    if (!t.ok() || !fl.ok()) continue;
    const Layout Z0 = mode(R, 0), Z1 = mode(R, 1);
    f.expect(rank(t.val) == 1 + unpack_rank(Z1), [&] { return "tiled rank: " + ctx() + " tiled=" + str(t.val); });
    f.expect(rank(fl.val) == unpack_rank(Z0) + unpack_rank(Z1),
             [&] { return "flat rank: " + ctx() + " flat=" + str(fl.val); });
    f.expect(leaf_pairs(t.val) == leaf_pairs(R) && leaf_pairs(fl.val) == leaf_pairs(R),
             [&] { return "tiled/flat leaves differ: " + ctx(); });
    for (index_t c = 0; c < size(R); ++c)
      f.expect(t.val(c) == R(c) && fl.val(c) == R(c), [&] { return "tiled/flat function differs: " + ctx(); });
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 4000);
  EXPECT_GE(exact, 1500);
  std::cout << "[ logical_divide ] admissible " << admissible << " of 15000, exact " << exact << "\n";
}

// Divides with tilers (§9.2, §9.3): per mode logical_divide, extra modes kept;
// zipped/tiled/flat are rearrangements of the same offsets, and mode 0 of the
// zipped result is composition(A,T) as a function.
TEST(Property, DivideWithTiler) {
  Gen g(0x5eed0009);
  Failures f;
  int admissible = 0, zipped_ok = 0, tile_checked = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    const Layout A = g.multi_mode_layout(6, 128, g.chance(75) ? g.injective_kind() : g.any_kind());
    const int m = g.uniform_int(1, std::min(rank(A), 3));
    std::vector<TilerElem> elems(static_cast<std::size_t>(m));
    bool has_skip = false;
    for (auto& e : elems) {
      const int r = g.uniform_int(0, 99);
      if (r < 55) {
        e.kind = TilerElem::kLayout;
        e.layout = g.injective_layout(2, 8, 1);
      } else if (r < 90) {
        e.kind = TilerElem::kInt;
        e.n = index_t{1} << g.uniform(0, 2);
      } else {
        has_skip = true;
      }
    }
    const Tiler T = build_tiler(elems);
    const auto r = logical_divide(A, T);
    auto ctx = [&] { return "A=" + str(A) + " T=" + str(elems) + (r.ok() ? " R=" + str(r.val) : " error"); };
    if (!r.ok()) continue;
    ++admissible;
    const Layout& X = r.val;
    f.expect(X.shape.is_tuple() && rank(X) == rank(A), [&] { return "rank(X) != rank(A): " + ctx(); });
    for (int k = 0; k < rank(A); ++k) {
      const Layout Ak = mode(A, k);
      if (k >= m || elems[static_cast<std::size_t>(k)].kind == TilerElem::kSkip) {
        f.expect(mode(X, k) == Ak, [&] { return "mode " + std::to_string(k) + " must be kept: " + ctx(); });
        continue;
      }
      const auto want = logical_divide(Ak, tiler_layout(elems[static_cast<std::size_t>(k)], true));
      f.expect(want.ok() && mode(X, k) == want.val,
               [&] { return "mode " + std::to_string(k) + " != logical_divide(A_k,T_k): " + ctx(); });
    }
    // zipped_divide needs every tiled mode to be a (tile, rest) pair.
    bool pairs = true;
    for (int k = 0; k < m; ++k) pairs &= (mode(X, k).shape.is_tuple() && rank(mode(X, k)) == 2);
    const auto z = zipped_divide(A, T);
    f.expect(z.ok() == pairs, [&] { return "zipped_divide admissibility: " + ctx(); });
    if (!z.ok()) {
      f.expect(z.code() == Errc::tiler_rank, [&] { return "zipped_divide wrong error: " + ctx(); });
      continue;
    }
    ++zipped_ok;
    const Layout& Z = z.val;
    f.expect(size(Z) == size(X) && sorted_offsets(Z) == sorted_offsets(X),
             [&] { return "zipped is not a rearrangement: " + ctx() + " Z=" + str(Z); });
    f.expect(Z.shape.is_tuple() && rank(Z) == 2 && unpack_rank(mode(Z, 0)) == m,
             [&] { return "zipped structure: " + ctx() + " Z=" + str(Z); });
    // Tile = A∘T as a function (§9.3 "Property"), when no mode was skipped
    // (a skipped mode composes as the whole A_k but tiles as A_k's mode 0).
    if (!has_skip) {
      const auto c = composition(A, T);
      f.expect(c.ok(), [&] { return "divide admissible but composition not: " + ctx(); });
      if (c.ok()) {
        ++tile_checked;
        const Layout Z0 = mode(Z, 0);
        f.expect(size(Z0) == size(c.val), [&] { return "tile size: " + ctx(); });
        for (index_t i = 0; i < size(Z0); ++i)
          f.expect(Z0(i) == c.val(i), [&] { return "tile != composition(A,T): " + ctx() + " Z=" + str(Z); });
      }
    }
    const auto t = tiled_divide(A, T);
    const auto fl = flat_divide(A, T);
    f.expect(t.ok() && fl.ok(), [&] { return "tiled/flat failed: " + ctx(); });
    if (!t.ok() || !fl.ok()) continue;
    f.expect(rank(t.val) == 1 + unpack_rank(mode(Z, 1)), [&] { return "tiled rank: " + ctx(); });
    f.expect(rank(fl.val) == unpack_rank(mode(Z, 0)) + unpack_rank(mode(Z, 1)), [&] { return "flat rank: " + ctx(); });
    for (index_t i = 0; i < size(Z); ++i)
      f.expect(t.val(i) == Z(i) && fl.val(i) == Z(i), [&] { return "tiled/flat function != zipped: " + ctx(); });
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 3000);
  EXPECT_GE(zipped_ok, 2000);
  EXPECT_GE(tile_checked, 1500);
  std::cout << "[ divide tiler ] admissible " << admissible << " of 5000, zipped " << zipped_ok << ", tile==A∘T "
            << tile_checked << "\n";
}

// ============================================================ 6. product

// logical_product(A,B) = (A, complement(A, size(A)*cosize(B)) ∘ B) (§10.1).
TEST(Property, LogicalProduct) {
  Gen g(0x5eed000a);
  Failures f;
  int admissible = 0, compact_a = 0, injective_p = 0;
  for (int iter = 0; iter < 12000; ++iter) {
    const Layout A = g.chance(80) ? g.injective_layout(4, 64, 2) : g.any_layout(4, 64, 2);
    const Layout B = g.chance(80) ? g.injective_layout(3, 16, 2) : g.any_layout(3, 16, 2);
    const auto r = logical_product(A, B);
    auto ctx = [&] { return "A=" + str(A) + " B=" + str(B) + (r.ok() ? " P=" + str(r.val) : " error"); };
    if (!r.ok()) continue;
    ++admissible;
    const Layout& P = r.val;
    const Layout comp = complement(A, size(A) * cosize(B)).val;
    f.expect(P.shape.is_tuple() && rank(P) == 2, [&] { return "rank(P) != 2: " + ctx(); });
    f.expect(mode(P, 0) == A, [&] { return "mode 0 != A: " + ctx(); });
    f.expect(size(P) == size(A) * size(B), [&] { return "size(P) != size(A)*size(B): " + ctx(); });
    const Layout P1 = mode(P, 1);
    for (index_t j = 0; j < size(B); ++j)
      f.expect(P1(j) == comp(B(j)), [&] { return "mode 1 != complement∘B at " + std::to_string(j) + ": " + ctx(); });
    // A a permutation of [0,n): its complement is n-strided, so the product
    // is P(i + n*j) == A(i) + n*B(j) (copies of A at B's positions, scaled).
    const index_t n = size(A);
    if (bijective_onto_range(A)) {
      ++compact_a;
      for (index_t j = 0; j < size(B); ++j)
        for (index_t i = 0; i < n; ++i)
          f.expect(P(i + n * j) == A(i) + n * B(j), [&] { return "P(i,j) != A(i) + n*B(j): " + ctx(); });
    }
    // Injective A and B, with B's offsets inside the complement's domain:
    // (A, complement) is injective (§7.1), hence so is the product.
    if (injective(A) && injective(B) && cosize(B) <= size(comp) && complement_shape(A).exists) {
      ++injective_p;
      f.expect(injective(P), [&] { return "product of injective layouts not injective: " + ctx(); });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 5000);
  EXPECT_GE(compact_a, 2000);
  EXPECT_GE(injective_p, 3000);
  std::cout << "[ logical_product ] admissible " << admissible << " of 12000, bijective A " << compact_a
            << ", injective " << injective_p << "\n";
}

namespace {
/// The coordinate of the zipped layout (mode k = (X_k, Y_k)) that holds the
/// element whose coordinate in the product is (cx, cy) (spec §10.3 step 4).
IntTuple zip_coord(const Layout& X, const IntTuple& cx, const IntTuple& cy) {
  if (X.shape.is_int()) {
    const IntTuple pair[] = {cx, cy};
    const IntTuple one[] = {tuple_of(pair, 2)};
    return tuple_of(one, 1);
  }
  std::vector<IntTuple> modes;
  for (int k = 0; k < rank(X); ++k) {
    const IntTuple pair[] = {mode(cx, k), mode(cy, k)};
    modes.push_back(tuple_of(pair, 2));
  }
  return tuple_of(modes.data(), static_cast<int>(modes.size()));
}
}  // namespace

// blocked_product / raked_product (§10.3) zip the two modes of
// logical_product(A_pad, B_pad): the same elements, each reachable by the
// rearranged coordinate.
TEST(Property, BlockedAndRakedProduct) {
  Gen g(0x5eed000b);
  Failures f;
  int checked = 0, rank1 = 0, zip_rejected = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const Layout A = g.injective_layout(4, 32, 2);
    const Layout B = g.chance(80) ? g.injective_layout(3, 16, 2) : g.any_layout(3, 16, 2);
    const int R = std::max(rank(A), rank(B));
    const auto p = logical_product(pad_to_rank(A, R), pad_to_rank(B, R));
    const auto blk = blocked_product(A, B);
    const auto rak = raked_product(A, B);
    auto ctx = [&] {
      return "A=" + str(A) + " B=" + str(B) + (p.ok() ? " P=" + str(p.val) : " P error") +
             (blk.ok() ? " blocked=" + str(blk.val) : " blocked error") +
             (rak.ok() ? " raked=" + str(rak.val) : " raked error");
    };
    if (!p.ok()) {
      f.expect(!blk.ok() && !rak.ok(), [&] { return "product failed but blocked/raked did not: " + ctx(); });
      continue;
    }
    const Layout& P = p.val;
    const Layout P0 = mode(P, 0), P1 = mode(P, 1);
    const std::vector<index_t> want = sorted_offsets(P);
    // When rank(A) == rank(B) == 1 no padding happens: compare with the plain product too.
    if (R == 1) {
      ++rank1;
      f.expect(logical_product(A, B).val == P, [&] { return "rank-1 padding changed the product: " + ctx(); });
    }
    for (int raked = 0; raked < 2; ++raked) {
      const auto& res = raked ? rak : blk;
      const Layout& X = raked ? P1 : P0;
      const Layout& Y = raked ? P0 : P1;
      // Zipping needs Y to have X's rank when X is a tuple (§10.3 step 4).
      const bool zippable = X.shape.is_int() || (Y.shape.is_tuple() && rank(Y) == rank(X));
      f.expect(res.ok() == zippable,
               [&] { return std::string(raked ? "raked" : "blocked") + " admissibility: " + ctx(); });
      if (!res.ok()) {
        ++zip_rejected;
        f.expect(res.code() == Errc::tiler_rank, [&] { return "wrong error: " + ctx(); });
        continue;
      }
      ++checked;
      const Layout& Q = res.val;
      f.expect(size(Q) == size(A) * size(B), [&] { return "size != size(A)*size(B): " + ctx(); });
      f.expect(sorted_offsets(Q) == want,
               [&] { return "offsets differ from logical_product of the padded layouts: " + ctx(); });
      // The coordinate rearrangement is costly to build with IntTuples, so it
      // is checked on a sample of indices (always including the last one);
      // the offset multiset above already covers every element.
      for (int sample = 0; sample < 24; ++sample) {
        const index_t i = sample == 0 ? size(P) - 1 : g.uniform(0, size(P) - 1);
        const IntTuple crd = idx2crd(i, P.shape);
        const IntTuple cx = mode(crd, raked), cy = mode(crd, 1 - raked);
        const IntTuple zc = zip_coord(X, cx, cy);
        f.expect(congruent(zc, Q.shape) && Q(zc) == P(crd),
                 [&] { return "zipped coordinate " + str(zc) + " of " + str(crd) + ": " + ctx(); });
      }
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(checked, 5500);
  EXPECT_GE(rank1, 400);
  std::cout << "[ blocked/raked ] checked " << checked << ", rank-1 " << rank1 << ", zip rejected " << zip_rejected
            << "\n";
}

// Products with tilers (§10.2): per-mode logical_product, extra modes kept;
// zipped/tiled products are rearrangements of the same offsets.
TEST(Property, ProductWithTiler) {
  Gen g(0x5eed000c);
  Failures f;
  int admissible = 0, zipped_ok = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    const Layout A = g.multi_mode_layout(4, 64, g.injective_kind());
    const int m = g.uniform_int(1, std::min(rank(A), 3));
    std::vector<TilerElem> elems(static_cast<std::size_t>(m));
    for (auto& e : elems) {
      const int r = g.uniform_int(0, 99);
      if (r < 50) {
        e.kind = TilerElem::kLayout;
        e.layout = g.injective_layout(2, 6, 1);
      } else if (r < 90) {
        e.kind = TilerElem::kInt;
        e.n = g.uniform(1, 4);
      }
    }
    const Tiler T = build_tiler(elems);
    const auto r = logical_product(A, T);
    auto ctx = [&] { return "A=" + str(A) + " T=" + str(elems) + (r.ok() ? " R=" + str(r.val) : " error"); };
    if (!r.ok()) continue;
    ++admissible;
    const Layout& X = r.val;
    f.expect(X.shape.is_tuple() && rank(X) == rank(A), [&] { return "rank: " + ctx(); });
    index_t expect_size = size(A);
    for (int k = 0; k < rank(A); ++k) {
      const Layout Ak = mode(A, k);
      if (k >= m || elems[static_cast<std::size_t>(k)].kind == TilerElem::kSkip) {
        f.expect(mode(X, k) == Ak, [&] { return "mode " + std::to_string(k) + " must be kept: " + ctx(); });
        continue;
      }
      const Layout Tk = tiler_layout(elems[static_cast<std::size_t>(k)], true);
      expect_size *= size(Tk);
      const auto want = logical_product(Ak, Tk);
      f.expect(want.ok() && mode(X, k) == want.val,
               [&] { return "mode " + std::to_string(k) + " != logical_product(A_k,T_k): " + ctx(); });
    }
    f.expect(size(X) == expect_size, [&] { return "size != size(A) * prod size(T_k): " + ctx(); });
    const auto z = zipped_product(A, T);
    if (!z.ok()) continue;  // a skipped mode that is not a pair (checked for divides above)
    ++zipped_ok;
    f.expect(sorted_offsets(z.val) == sorted_offsets(X),
             [&] { return "zipped_product not a rearrangement: " + ctx(); });
    const auto t = tiled_product(A, T);
    f.expect(t.ok(), [&] { return "tiled_product failed: " + ctx(); });
    if (t.ok())
      for (index_t i = 0; i < size(X); ++i)
        f.expect(t.val(i) == z.val(i), [&] { return "tiled_product function != zipped: " + ctx(); });
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 2000);
  EXPECT_GE(zipped_ok, 1500);
  std::cout << "[ product tiler ] admissible " << admissible << " of 5000, zipped " << zipped_ok << "\n";
}

// tile_to_shape(L, T) (§11): when admissible, mode k covers exactly size(T_k)
// and, for a bijective block, the whole result is a bijection onto [0,size(T)).
TEST(Property, TileToShape) {
  Gen g(0x5eed000d);
  Failures f;
  int admissible = 0, bijective = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    const Layout L = g.injective_layout(3, 16, 2);
    // A target whose modes are multiples of the block's (padded) modes.
    const int R = std::max(rank(L), g.uniform_int(1, 3));
    const Layout Lp = pad_to_rank(L, R);
    std::vector<IntTuple> t;
    for (int k = 0; k < R; ++k) t.push_back(make_int(size(R == 1 ? Lp : mode(Lp, k)) * g.uniform(1, 3)));
    const IntTuple target = R == 1 ? t[0] : tuple_of(t.data(), R);
    const auto r = tile_to_shape(L, target);
    auto ctx = [&] { return "L=" + str(L) + " T=" + str(target) + (r.ok() ? " R=" + str(r.val) : " error"); };
    // A block that permutes [0,n) always tiles (its complement is n-strided,
    // so the inner composition is integral); other blocks may hit the
    // composition rules of §6.3, which are then the errors reported (§15).
    const bool bij = bijective_onto_range(L);
    if (!r.ok()) {
      f.expect(!bij, [&] { return "tile_to_shape failed for a bijective block on a divisible target: " + ctx(); });
      f.expect(r.code() == Errc::shape_divisibility || r.code() == Errc::stride_divisibility ||
                   r.code() == Errc::inexact_division || r.code() == Errc::overlap,
               [&] { return "unexpected error kind: " + ctx(); });
      continue;
    }
    ++admissible;
    f.expect(size(r.val) == size(target), [&] { return "size != size(T): " + ctx(); });
    if (R > 1) {
      f.expect(rank(r.val) == R, [&] { return "rank != rank(T): " + ctx(); });
      for (int k = 0; k < R && rank(r.val) == R; ++k)
        f.expect(size(mode(r.val, k)) == size(mode(target, k)), [&] { return "mode size: " + ctx(); });
    }
    if (bij) {
      ++bijective;
      f.expect(bijective_onto_range(r.val), [&] { return "tiling a bijective block is not bijective: " + ctx(); });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(admissible, 3000);
  EXPECT_GE(bijective, 1000);
  std::cout << "[ tile_to_shape ] admissible " << admissible << " of 5000, bijective " << bijective << "\n";
}

// ============================================================ 7. coordinates

// idx2crd and crd2idx agree with the 1-D evaluation (§3.2, §3.3): the natural
// coordinate of i, and any partly flat coordinate of it, reach offset L(i).
TEST(Property, Idx2CrdCrd2IdxRoundTrip) {
  Gen g(0x5eed000e);
  Failures f;
  int layouts = 0;
  long long points = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const IntTuple S = g.shape(g.uniform_int(1, 6), 128, 3);
    const IntTuple D = g.strides(S, g.any_kind());
    const Layout L{S, D};
    ++layouts;
    auto ctx = [&] { return "S=" + str(S) + " D=" + str(D); };
    IntTuple prev;
    for (index_t i = 0; i < size(S); ++i) {
      ++points;
      const IntTuple crd = idx2crd(i, S);
      f.expect(congruent(crd, S),
               [&] { return "idx2crd(" + std::to_string(i) + ") not congruent: " + str(crd) + " " + ctx(); });
      f.expect(check_coord(crd, S).code == Errc::ok, [&] { return "idx2crd out of range: " + str(crd) + " " + ctx(); });
      f.expect(crd2idx(crd, S, D) == L(i),
               [&] { return "crd2idx(idx2crd(i)) != L(i) at " + std::to_string(i) + " " + ctx(); });
      f.expect(crd2idx(make_int(i), S, D) == L(i), [&] { return "crd2idx(i) != L(i): " + ctx(); });
      f.expect(L(i) == reference_eval(L, i),
               [&] { return "L(i) != spec §3.3 at " + std::to_string(i) + ": " + ctx(); });
      // Colexicographic order: the compact column-major layout numbers the
      // natural coordinates 0, 1, 2, ... (§3.1).
      f.expect(crd2idx(crd, S, compact_strides(S, Major::Left)) == i, [&] { return "not colexicographic: " + ctx(); });
      f.expect(i == 0 || !(crd == prev), [&] { return "repeated coordinate: " + ctx(); });
      prev = crd;
      // A partly flat coordinate: some top-level modes given as their own 1-D index.
      if (S.is_tuple()) {
        std::vector<IntTuple> parts;
        for (int k = 0; k < rank(S); ++k) {
          const IntTuple ck = mode(crd, k), sk = mode(S, k);
          parts.push_back(g.chance(50) ? make_int(crd2idx(ck, sk, compact_strides(sk, Major::Left))) : ck);
        }
        const IntTuple partial = tuple_of(parts.data(), rank(S));
        f.expect(weakly_congruent(partial, S) && idx2crd(partial, S) == crd,
                 [&] { return "idx2crd(" + str(partial) + ") != " + str(crd) + " " + ctx(); });
        f.expect(crd2idx(partial, S, D) == L(i), [&] { return "crd2idx(" + str(partial) + ") != L(i) " + ctx(); });
      }
    }
    // Extended evaluation (§3.4) past the end: the last leaf absorbs the
    // overflow, both in L(i) and in idx2crd's last mode (§3.2).
    for (index_t i = size(S); i < 2 * size(S) + 3; ++i) {
      ++points;
      const index_t want = reference_eval(L, i);
      f.expect(L(i) == want, [&] { return "extended L(" + std::to_string(i) + ") != spec §3.4: " + ctx(); });
      f.expect(crd2idx(idx2crd(i, S), S, D) == want, [&] {
        return "extended idx2crd(" + std::to_string(i) + ") = " + str(idx2crd(i, S)) + " loses the overflow: " + ctx();
      });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(layouts, 3000);
  EXPECT_GE(points, 100000);
  std::cout << "[ idx2crd/crd2idx ] layouts " << layouts << ", coordinates " << points << "\n";
}

// ============================================================ 8. swizzle

// Sw<B,M,S> (§12.1) is an involution, a bijection on [0, 2^(M+B+|S|)), and
// only changes its B target bits; invalid parameters are rejected.
TEST(Property, SwizzleIsAnInvolutiveBijection) {
  Failures f;
  int params = 0;
  long long points = 0;
  for (int b = 0; b <= 4; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int s = -6; s <= 6; ++s) {
        const int as = s < 0 ? -s : s;
        const auto sw = make_swizzle(b, m, s);
        f.expect(sw.ok() == (as >= b), [&] {
          return "make_swizzle validity for " + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s);
        });
        if (!sw.ok()) {
          f.expect(sw.code() == Errc::swizzle, [&] { return std::string("wrong error for an invalid swizzle"); });
          continue;
        }
        ++params;
        const Swizzle Sw = sw.val;
        const index_t n = index_t{1} << (m + b + as);
        // Bits that may change: [M, M+B) for S ≥ 0, [M+|S|, M+|S|+B) for S < 0.
        const index_t target = ((index_t{1} << b) - 1) << (s >= 0 ? m : m + as);
        std::vector<char> seen(static_cast<std::size_t>(n), 0);
        auto ctx = [&] { return "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) + ">"; };
        for (index_t x = 0; x < n; ++x) {
          ++points;
          const index_t y = Sw(x);
          f.expect(Sw(y) == x, [&] { return ctx() + " not an involution at " + std::to_string(x); });
          f.expect(((x ^ y) & ~target) == 0,
                   [&] { return ctx() + " changed a non-target bit at " + std::to_string(x); });
          f.expect(y >= 0 && y < n, [&] { return ctx() + " left [0,2^(M+B+|S|)) at " + std::to_string(x); });
          if (y >= 0 && y < n) {
            f.expect(!seen[static_cast<std::size_t>(y)],
                     [&] { return ctx() + " not injective at " + std::to_string(x); });
            seen[static_cast<std::size_t>(y)] = 1;
          }
        }
        if (b == 0) f.expect(Sw(n - 1) == n - 1 && Sw(5) == 5, [&] { return ctx() + " with B=0 is not the identity"; });
      }
  // Larger random parameters: check the involution on random samples.
  Gen g(0x5eed000f);
  for (int iter = 0; iter < 2000; ++iter) {
    const int b = g.uniform_int(0, 8), m = g.uniform_int(0, 12);
    const int s = g.uniform_int(b, 16);
    const Swizzle Sw = make_swizzle(b, m, s).value();
    ++params;
    for (int k = 0; k < 64; ++k) {
      ++points;
      const index_t x = g.uniform(0, (index_t{1} << 40) - 1);
      f.expect(Sw(Sw(x)) == x, [&] { return "random swizzle not an involution"; });
      // Permutes each aligned block of 2^(M+B) offsets (§12.1).
      f.expect((Sw(x) >> (m + b)) == (x >> (m + b)), [&] { return "left its aligned block"; });
    }
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(params, 2100);
  std::cout << "[ swizzle ] parameter sets " << params << ", points " << points << "\n";
}

// ============================================================ round trip

// Everything the calculator prints it also reads, as itself: every result of
// the golden expressions, and of random calls of every operation on random
// layouts (small ones and ones scaled into the 64-bit range, where results
// overflow or fit by a hair).  An error is the only other outcome.
TEST(Property, EveryPrintedResultParsesBackToItself) {
  Failures f;
  int results = 0;
  auto check = [&](const std::string& expr) {
    const calc::Outcome r = calc::evaluate(expr);
    if (!r.ok) {
      f.expect(r.text.rfind("error: ", 0) == 0, [&] { return "not an error line: " + expr + " -> " + r.text; });
      return;
    }
    ++results;
    const calc::Outcome again = calc::evaluate(r.text);
    f.expect(again.ok && again.text == r.text,
             [&] { return expr + " printed " + r.text + ", which reads back as " + again.text; });
  };
  std::ifstream golden(TESSEL_TEST_DATA "/layout_algebra.tsv");
  ASSERT_TRUE(golden) << "cannot read the golden file";
  for (std::string line; std::getline(golden, line);) check(line.substr(0, line.find('\t')));
  const int golden_results = results;

  Gen g(0x5eed0010);
  static const char* kUnary[] = {"coalesce", "filter", "complement", "right_inverse", "left_inverse", "size", "cosize"};
  static const char* kBinary[] = {"composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
                                  "logical_product", "zipped_product", "tiled_product", "blocked_product",
                                  "raked_product", "make_layout"};
  auto scaled = [&](Layout l) {  // multiply every stride (or every extent) by a large power of two
    const int bits = g.uniform_int(20, 61);
    const bool shapes = g.chance(30);
    IntTuple& t = shapes ? l.shape : l.stride;
    for (int i = 0; i < t.nleaf; ++i) t.val[i] = sat_mul(t.val[i], index_t{1} << (bits / (shapes ? 4 : 1)));
    return l;
  };
  for (int iter = 0; iter < 20000; ++iter) {
    Layout A = g.any_layout(), B = g.any_layout(4, 64, 2);
    if (g.chance(30)) A = scaled(A);
    if (g.chance(30)) B = scaled(B);
    const std::string a = to_string(A), b = to_string(B);
    check(std::string(kUnary[g.uniform_int(0, 6)]) + "(" + a + ")");
    check(std::string(kBinary[g.uniform_int(0, 10)]) + "(" + a + "," + b + ")");
    check("complement(" + a + "," + std::to_string(g.uniform(1, index_t{1} << 62) * g.uniform(1, 2)) + ")");
    check("tile_to_shape(" + a + "," + to_string(make_shape(g.uniform(1, 1 << 20), g.uniform(1, 1 << 20))) + ")");
  }
  EXPECT_EQ(f.count(), 0);
  EXPECT_GE(golden_results, 2000);
  EXPECT_GE(results - golden_results, 20000);
  std::cout << "[ round trip ] results read back: golden " << golden_results << ", random "
            << results - golden_results << "\n";
}
