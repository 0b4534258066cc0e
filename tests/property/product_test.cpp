// Property tests: the products and tile_to_shape (shared helpers in property.hpp).
#include "property.hpp"

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
/// element whose coordinate in the product is (cx, cy) (docs/algebra.md §10.3 step 4).
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
    // composition rules of §6.3, which are then the errors reported (§13).
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
