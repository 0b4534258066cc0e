// Host-only tests of the Hopper layouts and descriptors (tessel/arch/sm90.hpp,
// sm90_desc.hpp) against docs/hardware.md §7–§9 and the golden atom layouts
// (tests/data/atom_layouts.tsv): the §7.2/§7.3 ownership formulas that the
// kernels use equal the TSV's TV layouts; the TMA image of a box equals the
// wgmma smem atom of the same swizzle; and, at compile time, the descriptor
// bits and the dense-tile strides.  Needs no GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "sm90_test_util.hpp"

// ================================================================ host-only tests

TEST(Sm90Golden, WgmmaFragmentFormulasMatchGolden) {
  ASSERT_FALSE(atom_tsv_path().empty()) << "atom_layouts.tsv not found";
  for (int n : {8, 64, 128, 256}) {
    const std::string instr = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.bf16.bf16";
    const SwizzledLayout* c = golden(instr, "C");
    const SwizzledLayout* a = golden(instr, "A");
    ASSERT_NE(c, nullptr) << instr << " C";
    ASSERT_NE(a, nullptr) << instr << " A";
    for (int t = 0; t < 128; ++t) {
      for (int i = 0; i < n / 2; ++i) {
        const index_t idx = (*c)(index_t{t}, index_t{i});
        ASSERT_EQ(idx % 64, acc_row(t, i)) << "N=" << n << " t=" << t << " i=" << i;
        ASSERT_EQ(idx / 64, acc_col(t, i)) << "N=" << n << " t=" << t << " i=" << i;
      }
      for (int i = 0; i < 8; ++i) {
        const index_t idx = (*a)(index_t{t}, index_t{i});
        ASSERT_EQ(idx % 64, afrag_row(t, i)) << "N=" << n << " t=" << t << " i=" << i;
        ASSERT_EQ(idx / 64, afrag_col(t, i)) << "N=" << n << " t=" << t << " i=" << i;
      }
    }
  }
}

// §9: the smem image of a TMA box whose inner extent is the swizzle span is the
// wgmma atom of the same swizzle (K-major when the inner dimension is K,
// MN-major when it is M/N).  The image is computed as the TMA tests compute it.
TEST(Sm90Golden, TmaBoxImageIsTheWgmmaAtom) {
  ASSERT_FALSE(atom_tsv_path().empty()) << "atom_layouts.tsv not found";
  for (GmmaSwizzle sw : {GmmaSwizzle::sw32, GmmaSwizzle::sw64, GmmaSwizzle::sw128}) {
    const int b = sw == GmmaSwizzle::sw32 ? 1 : sw == GmmaSwizzle::sw64 ? 2 : 3;
    const int w = static_cast<int>(sm90::swizzle_span_bytes(sw)) / 2;  // elements per row
    const SwizzledLayout image = compose(Swizzle{b, 3, 3}, make_layout(make_shape(w, 8), make_stride(1, w)));
    const SwizzledLayout* kmaj = golden(smem_atom_name(GmmaMajor::k, sw), "SMEM");
    const SwizzledLayout* mnmaj = golden(smem_atom_name(GmmaMajor::mn, sw), "SMEM");
    ASSERT_NE(kmaj, nullptr);
    ASSERT_NE(mnmaj, nullptr);
    for (int row = 0; row < 8; ++row)
      for (int e = 0; e < w; ++e) {
        // K-major atom: (mn = row, k = e); MN-major atom: (mn = e, k = row).
        EXPECT_EQ((*kmaj)(index_t{row}, index_t{e}), image(index_t{e}, index_t{row})) << to_string(*kmaj);
        EXPECT_EQ((*mnmaj)(index_t{e}, index_t{row}), image(index_t{e}, index_t{row})) << to_string(*mnmaj);
      }
  }
}

// Descriptor bits (§8.1) and the dense-tile strides against the §8.3 table.
static_assert(sm90::make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128) == 0x4000'0040'0001'0040ull);
static_assert(sm90::make_smem_desc(0x3FFF0, 0x3FFF0, 0x3FFF0, GmmaSwizzle::sw32, 7) ==
              ((0x3FFFull) | (0x3FFFull << 16) | (0x3FFFull << 32) | (7ull << 49) | (3ull << 62)));
static_assert(sm90::desc_advance(sm90::make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128), 32) ==
              sm90::make_smem_desc(0x420, 16, 1024, GmmaSwizzle::sw128));
// desc_add is desc_advance for addresses inside the shared window (no wrap needed there).
static_assert(sm90::desc_add(sm90::make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128), 32) ==
              sm90::desc_advance(sm90::make_smem_desc(0x400, 16, 1024, GmmaSwizzle::sw128), 32));
static_assert(sm90::desc_add(sm90::make_smem_desc(0x37F00, 16, 1024, GmmaSwizzle::sw128), 0x80F0) ==
              sm90::make_smem_desc(0x3FFF0, 16, 1024, GmmaSwizzle::sw128));
// The start-address field wraps inside its 14 bits rather than carrying into LBO.
static_assert(sm90::desc_advance(sm90::make_smem_desc(0x3FFF0, 16, 0, GmmaSwizzle::none), 16) ==
              sm90::make_smem_desc(0, 16, 0, GmmaSwizzle::none));
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).lbo_bytes == 2048);
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).start_addr ==
              0x1230);
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).base_offset == 5);
static_assert(sm90::decode_smem_desc(sm90::make_smem_desc(0x1230, 2048, 128, GmmaSwizzle::sw64, 5)).swizzle ==
              GmmaSwizzle::sw64);

namespace {
constexpr bool strides_are(GmmaMajor m, GmmaSwizzle s, std::uint32_t lbo, std::uint32_t sbo) {
  const sm90::DescStrides d = sm90::dense_tile_strides(m, s, 64, 2);
  return d.lbo_bytes == lbo && d.sbo_bytes == sbo;
}
}  // namespace
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::none, 1024, 128));
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::sw32, 16, 256));
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::sw64, 16, 512));
static_assert(strides_are(GmmaMajor::k, GmmaSwizzle::sw128, 16, 1024));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::none, 1024, 128));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::sw32, 256, 1024));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::sw64, 512, 1024));
static_assert(strides_are(GmmaMajor::mn, GmmaSwizzle::sw128, 1024, 1024));
