// Property tests: composition, by mode and with tilers (shared helpers in property.hpp).
#include "property.hpp"

// ============================================================ 1. composition

// R = composition(A,B), when admissible, satisfies R(c) == A(B(c)) for every
// index c of B (A with the extended evaluation of docs/algebra.md §3.4), its shape is
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
