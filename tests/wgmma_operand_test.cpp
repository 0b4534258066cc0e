// wgmma atoms as data (atom/mma_traits_sm90.hpp): their thread-value layouts
// inside a TiledMMA, against tests/data/atom_layouts.tsv, and the descriptor
// plans derived from shared-memory layouts (which index is contiguous, the
// swizzle, LBO and SBO), including the layouts TMA writes and layouts that a
// descriptor cannot read.  CPU only: the instructions run in
// tests/cuda/wgmma_atom_test.cu.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tessel/arch/sm90_desc.hpp"
#include "tessel/atom/mma_traits_sm90.hpp"
#include "tessel/core/print.hpp"

using namespace tessel;

namespace {
/// instruction + operand -> layout string, from the golden TSV.
std::map<std::string, std::string> golden() {
  std::map<std::string, std::string> m;
  std::ifstream in(std::string(TESSEL_TEST_DATA) + "/atom_layouts.tsv");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string instr, op, shape, layout;
    if (std::getline(s, instr, '\t') && std::getline(s, op, '\t') && std::getline(s, shape, '\t') &&
        std::getline(s, layout, '\t'))
      m[instr + " " + op] = layout;
  }
  return m;
}
}  // namespace

TEST(WgmmaAtom, LayoutsMatchTheGoldenFile) {
  const auto g = golden();
  for (int n : {8, 64, 128, 256}) {
    const std::string instr = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.bf16.bf16";
    ASSERT_TRUE(g.count(instr + " C")) << instr;
    EXPECT_EQ(to_string(wgmma_info(n, true).c), g.at(instr + " C")) << n;
    EXPECT_EQ(to_string(wgmma_info(n, false).c), g.at(instr + " C")) << n;
    EXPECT_EQ(to_string(wgmma_info(n, false).a), g.at(instr + " A")) << n;  // RS: A from registers
  }
}

TEST(WgmmaAtom, EveryNTilesIntoATiledMmaOfWarpgroups) {
  for (int n = 8; n <= 256; n += 8) {
    for (int am : {1, 2}) {
      const TiledMmaLayouts t = make_tiled_mma_layouts(wgmma_info(n, true), am, 1, 1);
      EXPECT_EQ(t.threads, 128 * am);
      EXPECT_EQ(t.m, 64 * am);
      EXPECT_EQ(t.n, n);
      // C: every element of the (64*am, n) tile is owned by exactly one (thread, value).
      std::vector<int> owners(static_cast<std::size_t>(t.m * t.n), 0);
      for (index_t i = 0; i < size(t.c); ++i) ++owners[static_cast<std::size_t>(t.c(i))];
      for (int o : owners) ASSERT_EQ(o, 1) << "n=" << n << " am=" << am;
      // SS A: warpgroup w reads rows [64w, 64w+64) whole; every thread of it sees all of them.
      for (int thr = 0; thr < t.threads; ++thr) {
        const index_t first = t.a(make_tuple(thr, 0));
        EXPECT_EQ(first, 64 * (thr / 128)) << "n=" << n;
      }
    }
  }
}

TEST(WgmmaOperand, PlansOfTheLayoutsKernelsUse) {
  namespace sm90 = arch::sm90;
  // K-major, 128-byte swizzle, as the ladder's tiles and TMA's K-major boxes.
  const SwizzledLayout k128{Swizzle{3, 3, 3},
                            tile_to_shape(atom_layouts::gmma_k_sw128.layout, make_shape(128, 64)).value()};
  GmmaOperandPlan p = make_gmma_operand_plan(k128, 2, 64);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_TRUE(p.k_major);
  EXPECT_EQ(p.swizzle_bytes, 128);
  EXPECT_EQ(p.sbo, 1024u);
  // The M-major tile TMA writes: (64 m x 64 k) boxes 4096 elements apart.
  const SwizzledLayout mn_tma{Swizzle{3, 3, 3},
                              make_layout(make_shape(make_shape(64, 2), 64), make_stride(make_stride(1, 4096), 64))};
  p = make_gmma_operand_plan(mn_tma, 2, 64);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_FALSE(p.k_major);
  EXPECT_EQ(p.lbo, 8192u);  // next 64 m
  EXPECT_EQ(p.sbo, 1024u);  // next 8 k
  // Every GMMA atom tiled to (64,64): the plan agrees with dense_tile_strides (docs/hardware.md §8.3).
  for (const auto& a : atom_layouts::kSmemAtoms) {
    const SwizzledLayout t{a.layout.swizzle, tile_to_shape(a.layout.layout, make_shape(64, 64)).value()};
    const GmmaOperandPlan q = make_gmma_operand_plan(t, 2, 64);
    ASSERT_TRUE(q.ok) << a.name << ": " << q.why;
    const sm90::GmmaSwizzle sw = q.swizzle_bytes == 128  ? sm90::GmmaSwizzle::sw128
                                 : q.swizzle_bytes == 64 ? sm90::GmmaSwizzle::sw64
                                 : q.swizzle_bytes == 32 ? sm90::GmmaSwizzle::sw32
                                                         : sm90::GmmaSwizzle::none;
    const sm90::DescStrides d =
        sm90::dense_tile_strides(q.k_major ? sm90::GmmaMajor::k : sm90::GmmaMajor::mn, sw, 64, 2);
    EXPECT_EQ(q.sbo, d.sbo_bytes) << a.name;
    if (!(q.k_major && q.swizzle_bytes != 0)) {  // else LBO is unused
      EXPECT_EQ(q.lbo, d.lbo_bytes) << a.name;
    }
  }
}

TEST(WgmmaOperand, MnMajorTilesOfAnyMultipleOf16ColumnsInNarrowSwizzles) {
  // An MN-major tile W wide whose W is not a multiple of 64 (a B:n tile fitted to a thin N): blocks of 16
  // columns by 64 k under the 32-byte swizzle, or of 32 under the 64-byte one, each block's rows contiguous;
  // LBO steps a block, SBO 8 k (docs/hardware.md §8.2).
  const auto blocks = [](int w, int block) {
    return SwizzledLayout{
        Swizzle{block == 16 ? 1 : 2, 3, 3},
        make_layout(make_shape(make_shape(block, w / block), 64), make_stride(make_stride(1, block * 64), block))};
  };
  for (int w : {144, 160, 176}) {
    const GmmaOperandPlan p = make_gmma_operand_plan(blocks(w, 16), 2, w);
    ASSERT_TRUE(p.ok) << w << ": " << p.why;
    EXPECT_FALSE(p.k_major);
    EXPECT_EQ(p.swizzle_bytes, 32) << w;
    EXPECT_EQ(p.lbo, 2048u) << w;  // 16 columns x 64 k x 2 bytes
    EXPECT_EQ(p.sbo, 256u) << w;   // 8 k x 32 bytes
  }
  for (int w : {96, 160, 224}) {
    const GmmaOperandPlan p = make_gmma_operand_plan(blocks(w, 32), 2, w);
    ASSERT_TRUE(p.ok) << w << ": " << p.why;
    EXPECT_EQ(p.swizzle_bytes, 64) << w;
    EXPECT_EQ(p.lbo, 4096u) << w;
    EXPECT_EQ(p.sbo, 512u) << w;
  }
}

TEST(WgmmaOperand, LayoutsADescriptorCannotReadAreRefusedWithTheRule) {
  // Rows padded by 8 elements: K contiguous, but rows are 144 bytes apart.
  const SwizzledLayout padded{Swizzle{}, make_layout(make_shape(64, 64), make_stride(72, 1))};
  GmmaOperandPlan p = make_gmma_operand_plan(padded, 2, 64);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "an element is not where a wgmma descriptor at its atom's origin reads it");
  // A swizzle in 4-byte units on 2-byte elements.
  const SwizzledLayout wrong{Swizzle{3, 2, 3},
                             tile_to_shape(atom_layouts::gmma_k_sw128.layout, make_shape(64, 64)).value()};
  p = make_gmma_operand_plan(wrong, 2, 64);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "the swizzle is not one wgmma reads (Sw<1..3, 4-log2(element bytes), 3>)");
  // K = 40 is not whole k16 steps.
  const SwizzledLayout k40{Swizzle{}, make_layout(make_shape(64, 40), make_stride(40, 1))};
  p = make_gmma_operand_plan(k40, 2, 64);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "the tile is not a whole number of wgmma atoms (MN a multiple of the atom's, K of 16)");
}

// FP8 operands (atom K 32, 1-byte elements): the layouts TMA writes for K-major
// tiles give the same byte geometry as bf16's, and the plan says so; an
// MN-major FP8 tile is refused (wgmma cannot transpose 8-bit operands).
TEST(WgmmaOperand, Fp8PlansAreTheBytesOfTheBf16Ones) {
  namespace sm90 = arch::sm90;
  // 128-byte swizzle: rows of 128 one-byte elements, Sw<3,4,3> in element units.
  const Layout sw128_atom = make_layout(make_shape(8, 128), make_stride(128, 1));
  const SwizzledLayout k128{Swizzle{3, 4, 3}, tile_to_shape(sw128_atom, make_shape(128, 128)).value()};
  GmmaOperandPlan p = make_gmma_operand_plan(k128, 1, 64, 32);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_TRUE(p.k_major);
  EXPECT_EQ(p.swizzle_bytes, 128);
  EXPECT_EQ(p.sbo, 1024u);
  // The same tile read as k16 atoms of 2-byte elements has the same plan in bytes.
  const SwizzledLayout k128_bf16{Swizzle{3, 3, 3},
                                 tile_to_shape(atom_layouts::gmma_k_sw128.layout, make_shape(128, 64)).value()};
  const GmmaOperandPlan q = make_gmma_operand_plan(k128_bf16, 2, 64);
  ASSERT_TRUE(q.ok) << q.why;
  EXPECT_EQ(p.sbo, q.sbo);
  EXPECT_EQ(p.lbo, q.lbo);
  // No swizzle: 8 x 16-byte core matrices (16 elements a row) placed MN-first.
  const Layout core = make_layout(make_shape(8, 16), make_stride(16, 1));
  const SwizzledLayout none{Swizzle{}, tile_to_shape(core, make_shape(64, 64)).value()};
  p = make_gmma_operand_plan(none, 1, 64, 32);
  ASSERT_TRUE(p.ok) << p.why;
  const sm90::DescStrides d = sm90::dense_tile_strides(sm90::GmmaMajor::k, sm90::GmmaSwizzle::none, 64, 1);
  EXPECT_EQ(p.lbo, d.lbo_bytes);
  EXPECT_EQ(p.sbo, d.sbo_bytes);
  // MN contiguous: refused by name.
  const SwizzledLayout mn{Swizzle{}, make_layout(make_shape(64, 32), make_stride(1, 64))};
  p = make_gmma_operand_plan(mn, 1, 64, 32);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "FP8 operands are K-major (wgmma has no transpose for 8-bit types)");
  // K = 48 is not whole k32 steps.
  const SwizzledLayout k48{Swizzle{}, make_layout(make_shape(64, 48), make_stride(48, 1))};
  p = make_gmma_operand_plan(k48, 1, 64, 32);
  EXPECT_FALSE(p.ok);
  EXPECT_STREQ(p.why, "the tile is not a whole number of wgmma atoms (MN a multiple of the atom's, K of 32)");
}

TEST(WgmmaAtom, Fp8AtomTilesLikeTheBf16One) {
  for (int n : {16, 64, 128, 256}) {
    const TiledMmaLayouts f = make_tiled_mma_layouts(wgmma_fp8_info(n), 2, 1, 1);
    const TiledMmaLayouts b = make_tiled_mma_layouts(wgmma_info(n, true), 2, 1, 1);
    EXPECT_EQ(f.threads, 256);
    EXPECT_EQ(f.m, 128);
    EXPECT_EQ(f.n, n);
    EXPECT_EQ(to_string(f.c), to_string(b.c)) << "the same accumulators, n=" << n;
  }
  EXPECT_EQ(wgmma_fp8_info(64).k, 32);
}
