// The instruction layouts that the GPU tests use (tests/cuda/atom_reference.hpp)
// against the golden file tests/data/atom_layouts.tsv: every constant equals
// its TSV line as a function (same shape, same value at every index), every
// mma.sync / ldmatrix / stmatrix line of the TSV has a constant, and the
// relations that docs/hardware.md states between them hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cuda/atom_reference.hpp"
#include "tessel/host/calc.hpp"

using namespace tessel;

namespace {

struct TsvLine {
  std::string instruction, operand, tile, layout;
};

std::vector<TsvLine> read_tsv() {
  std::vector<TsvLine> lines;
  std::ifstream in(TESSEL_TEST_DATA "/atom_layouts.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    TsvLine t;
    std::string* fields[] = {&t.instruction, &t.operand, &t.tile, &t.layout};
    std::size_t begin = 0;
    for (std::string* f : fields) {
      const std::size_t tab = line.find('\t', begin);
      *f = line.substr(begin, tab == std::string::npos ? std::string::npos : tab - begin);
      begin = tab == std::string::npos ? line.size() : tab + 1;
    }
    lines.push_back(t);
  }
  return lines;
}

// The TSV's instruction families that atom_reference.hpp covers (wgmma and the
// GMMA shared-memory atoms belong to the sm_90 tests).
bool covered_family(const std::string& instruction) {
  return instruction.rfind("mma.sync.", 0) == 0 || instruction.rfind("ldmatrix.", 0) == 0 ||
         instruction.rfind("stmatrix.", 0) == 0;
}

// Same shape and the same offset at every index.
::testing::AssertionResult same_function(const Layout& want, const Layout& got) {
  if (!(want.shape == got.shape))
    return ::testing::AssertionFailure() << "shape " << to_string(got.shape) << " != " << to_string(want.shape);
  for (index_t i = 0; i < size(want); ++i)
    if (want(i) != got(i))
      return ::testing::AssertionFailure() << "at index " << i << ": " << got(i) << " != " << want(i) << " ("
                                           << to_string(got) << " vs " << to_string(want) << ")";
  return ::testing::AssertionSuccess();
}

// How many times each element of the rows x cols tile is the image of l.
std::vector<int> image_counts(const Layout& l, index_t rows, index_t cols, bool& in_range) {
  std::vector<int> count(static_cast<std::size_t>(rows * cols), 0);
  in_range = true;
  for (index_t i = 0; i < size(l); ++i) {
    const index_t e = l(i);
    if (e < 0 || e >= rows * cols) {
      in_range = false;
      continue;
    }
    ++count[static_cast<std::size_t>(e)];
  }
  return count;
}

// The memory side of ldmatrix (SRC) and stmatrix (DST): (lane, element of row).
bool is_row_side(const std::string& instruction, const std::string& operand) {
  return (instruction.rfind("ldmatrix.", 0) == 0 && operand == "SRC") ||
         (instruction.rfind("stmatrix.", 0) == 0 && operand == "DST");
}

}  // namespace

TEST(AtomReference, EveryLayoutEqualsItsTsvLine) {
  const std::vector<TsvLine> tsv = read_tsv();
  ASSERT_FALSE(tsv.empty()) << "cannot read " << TESSEL_TEST_DATA "/atom_layouts.tsv";
  for (const ref::AtomLayout& a : ref::kAtomLayouts) {
    SCOPED_TRACE(std::string(a.instruction) + " " + a.operand);
    const auto it = std::find_if(tsv.begin(), tsv.end(), [&](const TsvLine& t) {
      return t.instruction == a.instruction && t.operand == a.operand;
    });
    ASSERT_NE(it, tsv.end()) << "no TSV line";

    calc::Literal tile, layout;
    Error e;
    ASSERT_TRUE(calc::parse_literal(it->tile, tile, e)) << it->tile << ": " << e.message();
    ASSERT_EQ(tile.kind, calc::Literal::kTuple);
    EXPECT_EQ(tile.tuple, make_shape(a.rows, a.cols)) << "tile " << it->tile;

    ASSERT_TRUE(calc::parse_literal(it->layout, layout, e)) << it->layout << ": " << e.message();
    ASSERT_EQ(layout.kind, calc::Literal::kLayout);
    ASSERT_TRUE(layout.layout.swizzle.is_identity()) << it->layout;
    EXPECT_TRUE(same_function(layout.layout.layout, a.layout));
  }
}

TEST(AtomReference, EveryTsvLineHasALayout) {
  const std::vector<TsvLine> tsv = read_tsv();
  ASSERT_FALSE(tsv.empty());
  int covered = 0;
  for (const TsvLine& t : tsv) {
    if (!covered_family(t.instruction)) continue;
    ++covered;
    const bool found =
        std::any_of(std::begin(ref::kAtomLayouts), std::end(ref::kAtomLayouts),
                    [&](const ref::AtomLayout& a) { return t.instruction == a.instruction && t.operand == a.operand; });
    EXPECT_TRUE(found) << t.instruction << " " << t.operand << " is not in atom_reference.hpp";
  }
  EXPECT_EQ(covered, static_cast<int>(std::size(ref::kAtomLayouts)));
}

// Register-side layouts give every tile element to exactly one (lane, value);
// row-side layouts (lane, element j) reach every tile element, and a lane's 8
// elements are 8 consecutive columns of one tile row, so that one 16-byte row
// address per lane describes them (tile index r + R*c: column +1 is index +R).
TEST(AtomReference, TilesAreCovered) {
  for (const ref::AtomLayout& a : ref::kAtomLayouts) {
    SCOPED_TRACE(std::string(a.instruction) + " " + a.operand + " " + to_string(a.layout));
    ASSERT_EQ(rank(a.layout), 2);
    bool in_range = false;
    const std::vector<int> count = image_counts(a.layout, a.rows, a.cols, in_range);
    EXPECT_TRUE(in_range);
    if (is_row_side(a.instruction, a.operand)) {
      ASSERT_EQ(size(mode(a.layout, 0)), 32);
      ASSERT_EQ(size(mode(a.layout, 1)), 8);
      EXPECT_TRUE(std::all_of(count.begin(), count.end(), [](int c) { return c > 0; }))
          << "an element is never addressed";
      for (index_t lane = 0; lane < 32; ++lane)
        for (index_t j = 0; j < 8; ++j)
          EXPECT_EQ(a.layout(lane, j), a.layout(lane, index_t{0}) + a.rows * j) << lane << "," << j;
    } else {
      EXPECT_EQ(size(a.layout), a.rows * a.cols);
      EXPECT_EQ(size(mode(a.layout, 0)), 32);
      EXPECT_TRUE(std::all_of(count.begin(), count.end(), [](int c) { return c == 1; }))
          << "not a bijection onto the tile";
    }
  }
}

// docs/hardware.md §5: stmatrix is the mirror of ldmatrix; §2(c): ldmatrix.x4 DST
// is the m16n8k16 A layout and ldmatrix.x2 DST the C layout.
TEST(AtomReference, StatedRelationsHold) {
  EXPECT_TRUE(same_function(ref::ldmatrix_x1_dst, ref::stmatrix_x1_src));
  EXPECT_TRUE(same_function(ref::ldmatrix_x2_dst, ref::stmatrix_x2_src));
  EXPECT_TRUE(same_function(ref::ldmatrix_x4_dst, ref::stmatrix_x4_src));
  EXPECT_TRUE(same_function(ref::ldmatrix_x1_trans_dst, ref::stmatrix_x1_trans_src));
  EXPECT_TRUE(same_function(ref::ldmatrix_x2_trans_dst, ref::stmatrix_x2_trans_src));
  EXPECT_TRUE(same_function(ref::ldmatrix_x4_trans_dst, ref::stmatrix_x4_trans_src));
  EXPECT_TRUE(same_function(ref::ldmatrix_x1_src, ref::stmatrix_x1_dst));
  EXPECT_TRUE(same_function(ref::ldmatrix_x2_src, ref::stmatrix_x2_dst));
  EXPECT_TRUE(same_function(ref::ldmatrix_x4_src, ref::stmatrix_x4_dst));
  EXPECT_TRUE(same_function(ref::ldmatrix_x1_trans_src, ref::stmatrix_x1_trans_dst));
  EXPECT_TRUE(same_function(ref::ldmatrix_x2_trans_src, ref::stmatrix_x2_trans_dst));
  EXPECT_TRUE(same_function(ref::ldmatrix_x4_trans_src, ref::stmatrix_x4_trans_dst));

  EXPECT_TRUE(same_function(ref::ldmatrix_x4_dst, ref::mma_m16n8k16_bf16_a));
  EXPECT_TRUE(same_function(ref::ldmatrix_x2_dst, ref::mma_m16n8k16_bf16_c));
  EXPECT_TRUE(same_function(ref::mma_m16n8k16_bf16_a, ref::mma_m16n8k16_f16_a));
  EXPECT_TRUE(same_function(ref::mma_m16n8k16_bf16_b, ref::mma_m16n8k16_f16_b));
  EXPECT_TRUE(same_function(ref::mma_m16n8k16_bf16_c, ref::mma_m16n8k16_f16_c));
  EXPECT_TRUE(same_function(ref::mma_m16n8k16_bf16_c, ref::mma_m16n8k8_tf32_c));
}

// The row/column formulas of docs/hardware.md §2-§4, evaluated independently of
// the layouts (g = lane/4, q = lane%4).
TEST(AtomReference, LayoutsMatchTheSpecFormulas) {
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, q = l & 3;
    for (int i = 0; i < 8; ++i) {  // m16n8k16 A (16 rows)
      const int row = g + 8 * ((i >> 1) & 1), col = 2 * q + (i & 1) + 8 * (i >> 2);
      EXPECT_EQ(ref::mma_m16n8k16_bf16_a(l, i), row + 16 * col) << l << "," << i;
    }
    for (int i = 0; i < 4; ++i) {
      const int n = g, k = 2 * q + (i & 1) + 8 * (i >> 1);  // m16n8k16 B as (8,16)
      EXPECT_EQ(ref::mma_m16n8k16_bf16_b(l, i), n + 8 * k) << l << "," << i;
      const int row = g + 8 * (i >> 1), col = 2 * q + (i & 1);  // C (16 rows)
      EXPECT_EQ(ref::mma_m16n8k16_bf16_c(l, i), row + 16 * col) << l << "," << i;
      const int trow = g + 8 * (i & 1), tcol = q + 4 * (i >> 1);  // tf32 A (16 rows)
      EXPECT_EQ(ref::mma_m16n8k8_tf32_a(l, i), trow + 16 * tcol) << l << "," << i;
    }
    for (int i = 0; i < 2; ++i) EXPECT_EQ(ref::mma_m16n8k8_tf32_b(l, i), g + 8 * (q + 4 * i)) << l << "," << i;
    for (int v = 0; v < 8; ++v) {  // ldmatrix DST, v = h + 2i
      const int h = v & 1, i = v >> 1;
      if (v < 2) {
        EXPECT_EQ(ref::ldmatrix_x1_dst(l, v), g + 8 * (2 * q + h));
        EXPECT_EQ(ref::ldmatrix_x1_trans_dst(l, v), (2 * q + h) + 8 * g);
      }
      if (v < 4) {
        EXPECT_EQ(ref::ldmatrix_x2_dst(l, v), (8 * i + g) + 16 * (2 * q + h));
        EXPECT_EQ(ref::ldmatrix_x2_trans_dst(l, v), (8 * i + 2 * q + h) + 16 * g);
      }
      EXPECT_EQ(ref::ldmatrix_x4_dst(l, v), (8 * (i % 2) + g) + 16 * (8 * (i / 2) + 2 * q + h));
      EXPECT_EQ(ref::ldmatrix_x4_trans_dst(l, v), (8 * (i % 2) + 2 * q + h) + 16 * (8 * (i / 2) + g));
    }
    // ldmatrix SRC (§4.2): the row a lane addresses; lanes beyond 8*num alias.
    EXPECT_EQ(ref::ldmatrix_x1_src(l, 0), l % 8);
    EXPECT_EQ(ref::ldmatrix_x2_src(l, 0), l % 16);
    EXPECT_EQ(ref::ldmatrix_x4_src(l, 0), (l % 16) + 16 * (8 * (l / 16)));
  }
}
