// Property tests: coalesce, filter and the divides (shared helpers in property.hpp).
#include "property.hpp"

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
    // Fewest leaves (docs/algebra.md §5.1): no extent-1 leaf (except the whole 1:0) and no
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
