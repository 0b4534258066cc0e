// Property tests: coordinates, swizzles, and the printed-results round trip (shared helpers in property.hpp).
#include "property.hpp"

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
               [&] { return "L(i) != docs/algebra.md §3.3 at " + std::to_string(i) + ": " + ctx(); });
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
      f.expect(L(i) == want, [&] { return "extended L(" + std::to_string(i) + ") != docs/algebra.md §3.4: " + ctx(); });
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
  static const char* kBinary[] = {"composition",     "logical_divide",  "zipped_divide",  "tiled_divide",
                                  "flat_divide",     "logical_product", "zipped_product", "tiled_product",
                                  "blocked_product", "raked_product",   "make_layout"};
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
  std::cout << "[ round trip ] results read back: golden " << golden_results << ", random " << results - golden_results
            << "\n";
}
