// tessel/atom/mma_traits_sm80.hpp — the sm_80 MMA atoms (mma.sync) as data:
// their tiles, types and thread-value layouts (from atom/layouts_sm80.hpp,
// which tests/atom_reference_test.cpp checks against tests/data/atom_layouts.tsv).
// Pure data: the atoms that execute them are in atom/mma_sm80.hpp.
#pragma once

#include "tessel/atom/layouts_sm80.hpp"
#include "tessel/atom/mma_atom.hpp"

namespace tessel {

inline constexpr MmaAtomInfo kSM80_16x8x16_F32BF16BF16F32_TN{"SM80_16x8x16_F32BF16BF16F32_TN",
                                                             "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                                                             16,
                                                             8,
                                                             16,
                                                             32,
                                                             atom_layouts::mma_m16n8k16_bf16_a,
                                                             atom_layouts::mma_m16n8k16_bf16_b,
                                                             atom_layouts::mma_m16n8k16_bf16_c};
inline constexpr MmaAtomInfo kSM80_16x8x16_F32F16F16F32_TN{"SM80_16x8x16_F32F16F16F32_TN",
                                                           "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                                           16,
                                                           8,
                                                           16,
                                                           32,
                                                           atom_layouts::mma_m16n8k16_f16_a,
                                                           atom_layouts::mma_m16n8k16_f16_b,
                                                           atom_layouts::mma_m16n8k16_f16_c};
inline constexpr MmaAtomInfo kSM80_16x8x8_F32TF32TF32F32_TN{"SM80_16x8x8_F32TF32TF32F32_TN",
                                                            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                                                            16,
                                                            8,
                                                            8,
                                                            32,
                                                            atom_layouts::mma_m16n8k8_tf32_a,
                                                            atom_layouts::mma_m16n8k8_tf32_b,
                                                            atom_layouts::mma_m16n8k8_tf32_c};

/// The sm_80 atoms, for tables of every atom (`tessel draw`).
inline constexpr const MmaAtomInfo* kMmaAtomsSm80[] = {&kSM80_16x8x16_F32BF16BF16F32_TN, &kSM80_16x8x16_F32F16F16F32_TN,
                                                       &kSM80_16x8x8_F32TF32TF32F32_TN};

}  // namespace tessel
