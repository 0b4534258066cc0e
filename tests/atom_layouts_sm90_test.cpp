// wgmma ownership layouts and GMMA shared-memory atoms (atom/layouts_sm90.hpp)
// against tests/data/atom_layouts.tsv, as functions; and the wgmma layouts
// against the row/column formulas of docs/hardware.md §7.2/§7.3 for every N.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "tessel/atom/layouts_sm90.hpp"
#include "tessel/host/calc.hpp"

using namespace tessel;
using namespace tessel::atom_layouts;

namespace {
struct Line {
  std::string instruction, operand, tile, layout;
};
std::vector<Line> tsv() {
  std::vector<Line> out;
  std::ifstream in(TESSEL_TEST_DATA "/atom_layouts.tsv");
  std::string s;
  while (std::getline(in, s)) {
    std::vector<std::string> f;
    std::size_t b = 0;
    for (std::size_t t; (t = s.find('\t', b)) != std::string::npos; b = t + 1) f.push_back(s.substr(b, t - b));
    f.push_back(s.substr(b));
    if (f.size() == 4) out.push_back({f[0], f[1], f[2], f[3]});
  }
  return out;
}
SwizzledLayout read(const std::string& text) {
  calc::Literal lit;
  Error e;
  EXPECT_TRUE(calc::parse_literal(text, lit, e)) << text << ": " << e.message();
  return lit.layout;
}
void expect_same(const SwizzledLayout& want, const SwizzledLayout& got, const std::string& what) {
  ASSERT_EQ(to_string(want.layout.shape), to_string(got.layout.shape)) << what;
  for (index_t i = 0; i < size(want); ++i) ASSERT_EQ(want(i), got(i)) << what << " at index " << i;
}
}  // namespace

TEST(AtomLayoutsSm90, WgmmaLinesOfTheTsv) {
  int checked = 0;
  const std::regex n_of(R"(m64n(\d+)k16)");
  for (const Line& l : tsv()) {
    std::smatch m;
    if (l.instruction.rfind("wgmma.", 0) != 0 || !std::regex_search(l.instruction, m, n_of)) continue;
    const int n = std::stoi(m[1]);
    const Layout mine = l.operand == "A" ? wgmma_a : wgmma_c(n);
    expect_same(read(l.layout), SwizzledLayout{Swizzle{}, mine}, l.instruction + " " + l.operand);
    ++checked;
  }
  EXPECT_EQ(checked, 8);  // N = 8, 64, 128, 256; A and C
}

TEST(AtomLayoutsSm90, SmemAtomsOfTheTsv) {
  int checked = 0;
  for (const Line& l : tsv()) {
    if (l.operand != "SMEM") continue;
    bool found = false;
    for (const SmemAtomLayout& a : kSmemAtoms) {
      if (l.instruction != a.name) continue;
      expect_same(read(l.layout), a.layout, l.instruction);
      found = true;
    }
    EXPECT_TRUE(found) << "no layout for " << l.instruction;
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

TEST(AtomLayoutsSm90, WgmmaFormulasForEveryN) {
  for (int n = 8; n <= 256; n += 8) {
    const Layout c = wgmma_c(n);
    std::set<index_t> seen;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < n / 2; ++i) {
        const int w = t / 32, g = (t % 32) >> 2, q = t & 3;
        const int row = 16 * w + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * q + (i & 1);
        ASSERT_EQ(c(make_tuple(t, i)), row + 64 * col) << "N=" << n << " t=" << t << " i=" << i;
        seen.insert(c(make_tuple(t, i)));
      }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(64 * n));  // a bijection onto the (64,N) tile
  }
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 8; ++i) {
      const int w = t / 32, g = (t % 32) >> 2, q = t & 3;
      const int row = 16 * w + g + 8 * ((i >> 1) & 1), col = 2 * q + (i & 1) + 8 * (i >> 2);
      ASSERT_EQ(wgmma_a(make_tuple(t, i)), row + 64 * col);
    }
}

TEST(AtomLayoutsSm90, SmemAtomsAreBijections) {
  for (const SmemAtomLayout& a : kSmemAtoms) {
    std::set<index_t> seen;
    for (index_t i = 0; i < size(a.layout); ++i) seen.insert(a.layout(i));
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(size(a.layout))) << a.name;
    EXPECT_EQ(*seen.rbegin(), size(a.layout) - 1) << a.name;
  }
}
