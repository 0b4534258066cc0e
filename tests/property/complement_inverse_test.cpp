// Property tests: complement, right_inverse, left_inverse (shared helpers in property.hpp).
#include "property.hpp"

// ============================================================ 2. complement

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

    // Existence follows the rule of docs/algebra.md §7.2 for every input, injective or not.
    f.expect(r.ok() == expect_shape.exists,
             [&] { return "complement existence differs from docs/algebra.md §7.2: " + ctx(); });
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
    // algorithm docs/algebra.md prescribes, not a library bug, so it is only counted.
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
/// docs/algebra.md §8.2: left_inverse succeeds exactly when each non-zero stride of
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
    f.expect(r.ok() == defined, [&] { return "left_inverse existence differs from docs/algebra.md §8.2: " + ctx(); });
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
