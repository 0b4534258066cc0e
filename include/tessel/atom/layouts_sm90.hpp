// tessel/atom/layouts_sm90.hpp — ownership layouts of wgmma (sm_90a) and the
// GMMA shared-memory layout atoms, as data (docs/hardware.md §7–§9).
// Checked against tests/data/atom_layouts.tsv by tests/atom_layouts_sm90_test.cpp.
#pragma once

#include "tessel/core/swizzle.hpp"

namespace tessel::atom_layouts {

/// wgmma m64nNk16 accumulator on the (64,N) tile: thread (q, g, w) = (t%4,
/// (t/4)%8, t/32), value (next column, +8 rows, next 8-column block):
/// ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)).
constexpr Layout wgmma_c(int n) {
  return make_layout(make_shape(make_shape(4, 8, 4), make_shape(2, 2, n / 8)),
                     make_stride(make_stride(128, 1, 16), make_stride(64, 8, 512)));
}
/// wgmma A from registers (RS form) on the (64,16) tile, the same for every N:
/// the m16n8k16 A fragment of each warp, rows offset by 16w.
inline constexpr Layout wgmma_a = make_layout(make_shape(make_shape(4, 8, 4), make_shape(2, 2, 2)),
                                              make_stride(make_stride(128, 1, 16), make_stride(64, 8, 512)));

/// GMMA shared-memory layout atoms for 16-bit elements, element units (valid
/// for bases aligned to the swizzle repeat: 256/512/1024 bytes).  K-major:
/// each MN row stores K contiguously; MN-major: MN contiguous.
inline constexpr SwizzledLayout gmma_k_inter{Swizzle{0, 0, 0}, make_layout(make_shape(8, 8), make_stride(8, 1))};
inline constexpr SwizzledLayout gmma_k_sw32{Swizzle{1, 3, 3}, make_layout(make_shape(8, 16), make_stride(16, 1))};
inline constexpr SwizzledLayout gmma_k_sw64{Swizzle{2, 3, 3}, make_layout(make_shape(8, 32), make_stride(32, 1))};
inline constexpr SwizzledLayout gmma_k_sw128{Swizzle{3, 3, 3}, make_layout(make_shape(8, 64), make_stride(64, 1))};
inline constexpr SwizzledLayout gmma_mn_inter{Swizzle{0, 0, 0}, make_layout(make_shape(8, 8), make_stride(1, 8))};
inline constexpr SwizzledLayout gmma_mn_sw32{Swizzle{1, 3, 3}, make_layout(make_shape(16, 8), make_stride(1, 16))};
inline constexpr SwizzledLayout gmma_mn_sw64{Swizzle{2, 3, 3}, make_layout(make_shape(32, 8), make_stride(1, 32))};
inline constexpr SwizzledLayout gmma_mn_sw128{Swizzle{3, 3, 3}, make_layout(make_shape(64, 8), make_stride(1, 64))};

struct SmemAtomLayout {
  const char* name;  // as in the TSV: gmma.smem.<K|MN>.<INTER|SW32|SW64|SW128>.bf16
  SwizzledLayout layout;
};
inline constexpr SmemAtomLayout kSmemAtoms[] = {
    {"gmma.smem.K.INTER.bf16", gmma_k_inter},   {"gmma.smem.K.SW32.bf16", gmma_k_sw32},
    {"gmma.smem.K.SW64.bf16", gmma_k_sw64},     {"gmma.smem.K.SW128.bf16", gmma_k_sw128},
    {"gmma.smem.MN.INTER.bf16", gmma_mn_inter}, {"gmma.smem.MN.SW32.bf16", gmma_mn_sw32},
    {"gmma.smem.MN.SW64.bf16", gmma_mn_sw64},   {"gmma.smem.MN.SW128.bf16", gmma_mn_sw128},
};

}  // namespace tessel::atom_layouts
