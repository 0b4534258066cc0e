// tessel/atom/layouts_sm80.hpp — the ownership (thread-value) layouts of the
// sm_80 MMA and ldmatrix instructions and of stmatrix (sm_90), written out
// with tessel's builders, one constant per TSV line.
//
// These are the atoms' traits as data: the MMA and copy atoms read them, the
// GPU test (tests/cuda/arch_sm80_test.cu) runs the instructions and compares
// each lane's registers with them, and the CPU test
// (tests/atom_reference_test.cpp) checks that every layout here is, as a
// function, its line of tests/data/atom_layouts.tsv.  So a GPU pass means the
// hardware agrees with the golden file, not merely with a copy of it.
//
// Conventions (docs/hardware.md §1): a TV layout maps (lane t,
// value v) to the column-major index of an element of the operand tile:
// A (M,K) -> m + M*k, B stored as (N,K) -> n + N*k, C/D (M,N) -> m + M*n, a
// copy tile (R,C) -> r + R*c.  The ldmatrix SRC layout maps (lane, element j
// of the 16-byte row that the lane addresses) to the tile; the tile
// arrangement of the matrices is tessel's choice of §4.2 (x1: 8x8, x2: 16x8
// with matrix i in rows 8i..8i+7, x4: 16x16 with matrix i at row block i%2 and
// column block i/2).
//
// Plain C++ (no CUDA): device code reads these through StaticLayout<...>.
#pragma once

#include "tessel/core/layout.hpp"

namespace tessel::atom_layouts {

using tessel::index_t;
using tessel::Layout;
using tessel::make_layout;
using tessel::make_shape;
using tessel::make_stride;

// ---------------------------------------------------------------- mma.sync m16n8k16 (bf16 and f16), §2
// g = lane/4 (mode 1 of the thread mode, stride 1 = one row), q = lane%4.

/// A (16,16): value i at row g + 8*((i>>1)&1), column 2q + (i&1) + 8*(i>>2).
inline constexpr Layout mma_m16n8k16_bf16_a = make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                                                          make_stride(make_stride(32, 1), make_stride(16, 8, 128)));
/// B as (N,K) = (8,16): value i at n = g, k = 2q + (i&1) + 8*(i>>1).
inline constexpr Layout mma_m16n8k16_bf16_b =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(16, 1), make_stride(8, 64)));
/// C/D (16,8): value i at row g + 8*(i>>1), column 2q + (i&1).
inline constexpr Layout mma_m16n8k16_bf16_c =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(32, 1), make_stride(16, 8)));

// The f16 form owns the same elements as the bf16 form (§2a).
inline constexpr Layout mma_m16n8k16_f16_a = make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                                                         make_stride(make_stride(32, 1), make_stride(16, 8, 128)));
inline constexpr Layout mma_m16n8k16_f16_b =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(16, 1), make_stride(8, 64)));
inline constexpr Layout mma_m16n8k16_f16_c =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(32, 1), make_stride(16, 8)));

// ---------------------------------------------------------------- mma.sync m16n8k8 tf32, §3

/// A (16,8): value i at row g + 8*(i&1), column q + 4*(i>>1) (a1 is 8 rows below a0).
inline constexpr Layout mma_m16n8k8_tf32_a =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(16, 1), make_stride(8, 64)));
/// B as (N,K) = (8,8): value i at n = g, k = q + 4i.
inline constexpr Layout mma_m16n8k8_tf32_b =
    make_layout(make_shape(make_shape(4, 8), 2), make_stride(make_stride(8, 1), 32));
/// C/D (16,8): as m16n8k16.
inline constexpr Layout mma_m16n8k8_tf32_c =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(32, 1), make_stride(16, 8)));

// ---------------------------------------------------------------- ldmatrix, §4
// SRC: lane t addresses one row; lanes beyond 8*num alias lane t % (8*num)
// (stride 0).  DST: value v = h + 2i is half h of register i.

/// x1, tile (8,8): lane t < 8 addresses tile row t.
inline constexpr Layout ldmatrix_x1_src =
    make_layout(make_shape(make_shape(8, 4), 8), make_stride(make_stride(1, 0), 8));
/// x1: lane l value h at (l/4, 2q+h).
inline constexpr Layout ldmatrix_x1_dst =
    make_layout(make_shape(make_shape(4, 8), 2), make_stride(make_stride(16, 1), 8));
/// x2, tile (16,8): lane t < 16 addresses tile row t.
inline constexpr Layout ldmatrix_x2_src =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 0), 16));
/// x2: register i, half h at (8i + l/4, 2q+h).
inline constexpr Layout ldmatrix_x2_dst =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(32, 1), make_stride(16, 8)));
/// x4, tile (16,16): lane t addresses row t%16, columns 8*(t/16)..+7.
inline constexpr Layout ldmatrix_x4_src =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 128), 16));
/// x4: register i, half h at (8(i%2) + l/4, 8(i/2) + 2q+h) — the m16n8k16 A layout.
inline constexpr Layout ldmatrix_x4_dst = make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                                                      make_stride(make_stride(32, 1), make_stride(16, 8, 128)));

// .trans: the lane receives the transposed pair (rows 2q+h of column l/4).
inline constexpr Layout ldmatrix_x1_trans_src =
    make_layout(make_shape(make_shape(8, 4), 8), make_stride(make_stride(1, 0), 8));
inline constexpr Layout ldmatrix_x1_trans_dst =
    make_layout(make_shape(make_shape(4, 8), 2), make_stride(make_stride(2, 8), 1));
inline constexpr Layout ldmatrix_x2_trans_src =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 0), 16));
inline constexpr Layout ldmatrix_x2_trans_dst =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(2, 16), make_stride(1, 8)));
inline constexpr Layout ldmatrix_x4_trans_src =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 128), 16));
inline constexpr Layout ldmatrix_x4_trans_dst = make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                                                            make_stride(make_stride(2, 16), make_stride(1, 8, 128)));

// ---------------------------------------------------------------- stmatrix (sm_90), §5
// The mirror of ldmatrix: SRC (registers) = ldmatrix DST, DST (the rows the
// lanes address) = ldmatrix SRC.  Written out again so that each TSV line has
// its own constant; the CPU test checks the mirror relation separately.

inline constexpr Layout stmatrix_x1_src =
    make_layout(make_shape(make_shape(4, 8), 2), make_stride(make_stride(16, 1), 8));
inline constexpr Layout stmatrix_x1_dst =
    make_layout(make_shape(make_shape(8, 4), 8), make_stride(make_stride(1, 0), 8));
inline constexpr Layout stmatrix_x2_src =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(32, 1), make_stride(16, 8)));
inline constexpr Layout stmatrix_x2_dst =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 0), 16));
inline constexpr Layout stmatrix_x4_src = make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                                                      make_stride(make_stride(32, 1), make_stride(16, 8, 128)));
inline constexpr Layout stmatrix_x4_dst =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 128), 16));
inline constexpr Layout stmatrix_x1_trans_src =
    make_layout(make_shape(make_shape(4, 8), 2), make_stride(make_stride(2, 8), 1));
inline constexpr Layout stmatrix_x1_trans_dst =
    make_layout(make_shape(make_shape(8, 4), 8), make_stride(make_stride(1, 0), 8));
inline constexpr Layout stmatrix_x2_trans_src =
    make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)), make_stride(make_stride(2, 16), make_stride(1, 8)));
inline constexpr Layout stmatrix_x2_trans_dst =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 0), 16));
inline constexpr Layout stmatrix_x4_trans_src = make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                                                            make_stride(make_stride(2, 16), make_stride(1, 8, 128)));
inline constexpr Layout stmatrix_x4_trans_dst =
    make_layout(make_shape(make_shape(16, 2), 8), make_stride(make_stride(1, 128), 16));

// ---------------------------------------------------------------- the table (TSV order)

/// One TSV line: instruction, operand, tile (rows, cols), layout.
struct AtomLayout {
  const char* instruction;
  const char* operand;
  index_t rows;
  index_t cols;
  Layout layout;
};

inline constexpr const char* kMmaBf16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
inline constexpr const char* kMmaF16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
inline constexpr const char* kMmaTf32 = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";

inline constexpr AtomLayout kAtomLayouts[] = {
    {kMmaBf16, "A", 16, 16, mma_m16n8k16_bf16_a},
    {kMmaBf16, "B", 8, 16, mma_m16n8k16_bf16_b},
    {kMmaBf16, "C", 16, 8, mma_m16n8k16_bf16_c},
    {kMmaF16, "A", 16, 16, mma_m16n8k16_f16_a},
    {kMmaF16, "B", 8, 16, mma_m16n8k16_f16_b},
    {kMmaF16, "C", 16, 8, mma_m16n8k16_f16_c},
    {kMmaTf32, "A", 16, 8, mma_m16n8k8_tf32_a},
    {kMmaTf32, "B", 8, 8, mma_m16n8k8_tf32_b},
    {kMmaTf32, "C", 16, 8, mma_m16n8k8_tf32_c},
    {"ldmatrix.sync.aligned.m8n8.x1.shared.b16", "SRC", 8, 8, ldmatrix_x1_src},
    {"ldmatrix.sync.aligned.m8n8.x1.shared.b16", "DST", 8, 8, ldmatrix_x1_dst},
    {"ldmatrix.sync.aligned.m8n8.x2.shared.b16", "SRC", 16, 8, ldmatrix_x2_src},
    {"ldmatrix.sync.aligned.m8n8.x2.shared.b16", "DST", 16, 8, ldmatrix_x2_dst},
    {"ldmatrix.sync.aligned.m8n8.x4.shared.b16", "SRC", 16, 16, ldmatrix_x4_src},
    {"ldmatrix.sync.aligned.m8n8.x4.shared.b16", "DST", 16, 16, ldmatrix_x4_dst},
    {"ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "SRC", 8, 8, ldmatrix_x1_trans_src},
    {"ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "DST", 8, 8, ldmatrix_x1_trans_dst},
    {"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "SRC", 16, 8, ldmatrix_x2_trans_src},
    {"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "DST", 16, 8, ldmatrix_x2_trans_dst},
    {"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "SRC", 16, 16, ldmatrix_x4_trans_src},
    {"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "DST", 16, 16, ldmatrix_x4_trans_dst},
    {"stmatrix.sync.aligned.m8n8.x1.shared.b16", "SRC", 8, 8, stmatrix_x1_src},
    {"stmatrix.sync.aligned.m8n8.x1.shared.b16", "DST", 8, 8, stmatrix_x1_dst},
    {"stmatrix.sync.aligned.m8n8.x2.shared.b16", "SRC", 16, 8, stmatrix_x2_src},
    {"stmatrix.sync.aligned.m8n8.x2.shared.b16", "DST", 16, 8, stmatrix_x2_dst},
    {"stmatrix.sync.aligned.m8n8.x4.shared.b16", "SRC", 16, 16, stmatrix_x4_src},
    {"stmatrix.sync.aligned.m8n8.x4.shared.b16", "DST", 16, 16, stmatrix_x4_dst},
    {"stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "SRC", 8, 8, stmatrix_x1_trans_src},
    {"stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "DST", 8, 8, stmatrix_x1_trans_dst},
    {"stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "SRC", 16, 8, stmatrix_x2_trans_src},
    {"stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "DST", 16, 8, stmatrix_x2_trans_dst},
    {"stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "SRC", 16, 16, stmatrix_x4_trans_src},
    {"stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "DST", 16, 16, stmatrix_x4_trans_dst},
};

}  // namespace tessel::atom_layouts
