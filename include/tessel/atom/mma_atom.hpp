// tessel/atom/mma_atom.hpp — MMA atoms as data (shape, types, thread-value
// layouts of A, B and C) and the tiling of an atom over a grid of atoms
// (TiledMMA's layouts).  The instructions themselves are in arch/; the atoms
// that call them in atom/mma_sm80.hpp.
//
// Conventions (spec/hardware-atoms.md §1.2): A is an (M,K) tile, B an (N,K)
// tile, C an (M,N) tile; a TV layout maps (thread, value) to the
// column-major index of the element in that tile.
#pragma once

#include "tessel/atom/layouts_sm80.hpp"
#include "tessel/core/algebra.hpp"

namespace tessel {

/// What an MMA atom is, as data.
struct MmaAtomInfo {
  const char* name;         // e.g. "SM80_16x8x16_F32BF16BF16F32_TN"
  const char* instruction;  // the PTX spelling
  int m, n, k;              // the atom's tile
  int threads;              // threads that execute one atom (32: a warp)
  Layout a, b, c;           // TV layouts on (M,K), (N,K), (M,N)
};

inline constexpr MmaAtomInfo kSM80_16x8x16_F32BF16BF16F32_TN{
    "SM80_16x8x16_F32BF16BF16F32_TN", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, 32,
    atom_layouts::mma_m16n8k16_bf16_a, atom_layouts::mma_m16n8k16_bf16_b, atom_layouts::mma_m16n8k16_bf16_c};
inline constexpr MmaAtomInfo kSM80_16x8x16_F32F16F16F32_TN{
    "SM80_16x8x16_F32F16F16F32_TN", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, 32,
    atom_layouts::mma_m16n8k16_f16_a, atom_layouts::mma_m16n8k16_f16_b, atom_layouts::mma_m16n8k16_f16_c};
inline constexpr MmaAtomInfo kSM80_16x8x8_F32TF32TF32F32_TN{
    "SM80_16x8x8_F32TF32TF32F32_TN", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8, 32,
    atom_layouts::mma_m16n8k8_tf32_a, atom_layouts::mma_m16n8k8_tf32_b, atom_layouts::mma_m16n8k8_tf32_c};

inline constexpr const MmaAtomInfo* kMmaAtoms[] = {&kSM80_16x8x16_F32BF16BF16F32_TN, &kSM80_16x8x16_F32F16F16F32_TN,
                                                   &kSM80_16x8x8_F32TF32TF32F32_TN};

/// The layouts of an atom tiled over a grid of (AM, AN, AK) atoms, atoms
/// numbered column-major in that grid (thread t of atom j is thread
/// t + threads*j).  The tiled tiles are (AM*m, AK*k) for A, (AN*n, AK*k) for
/// B, (AM*m, AN*n) for C.  Threads of atoms that differ only along N share
/// their A elements (stride 0 in that mode), and likewise along M for B.
struct TiledMmaLayouts {
  Layout a, b, c;  // ((atom thread, AM, AN, AK), value) -> tile index
  int m, n, k;     // tiled tile
  int threads;
};

namespace detail {
/// An atom's TV layout re-indexed into a tile `reps_r` times taller: index
/// r + R*c becomes r + R*reps_r*c (the layout (R,C):(1,R*reps_r) composed with
/// the TV layout); then the thread mode gains the modes (AM, AN, AK) that
/// place the atoms, each `reps:stride` (stride 0 where atoms share elements).
constexpr Layout tile_tv(const Layout& atom_tv, int rows, int cols, int reps_r, const Layout& am, const Layout& an,
                         const Layout& ak) {
  const Layout widen = make_layout(make_shape(rows, cols), make_stride(1, rows * reps_r));
  ModeBuilder threads;
  threads.add(composition(widen, mode(atom_tv, 0)).value());
  threads.add(am);
  threads.add(an);
  threads.add(ak);
  return make_layout(threads.finish(), composition(widen, mode(atom_tv, 1)).value());
}
constexpr Layout rep(int n, index_t stride) { return Layout{make_int(n), make_int(n == 1 ? 0 : stride)}; }
}  // namespace detail

/// make_tiled_mma(atom, (AM, AN, AK)): the TV layouts of the tiled operands.
/// C++ example: for SM80_16x8x16 with (2,2,1), C is a (32,16) tile of 128 threads.
constexpr TiledMmaLayouts make_tiled_mma_layouts(const MmaAtomInfo& atom, int am, int an, int ak) {
  using detail::rep;
  TiledMmaLayouts t{};
  t.m = atom.m * am;
  t.n = atom.n * an;
  t.k = atom.k * ak;
  t.threads = atom.threads * am * an * ak;
  // C (M,N): along M an atom steps m rows, along N n columns (n*M elements); K-atoms share C.
  t.c = detail::tile_tv(atom.c, atom.m, atom.n, am, rep(am, atom.m), rep(an, index_t{atom.n} * t.m), rep(ak, 0));
  // A (M,K): along M m rows, along K k columns (k*M elements); N-atoms share A.
  t.a = detail::tile_tv(atom.a, atom.m, atom.k, am, rep(am, atom.m), rep(an, 0), rep(ak, index_t{atom.k} * t.m));
  // B (N,K): along N n rows, along K k columns (k*N elements); M-atoms share B.
  t.b = detail::tile_tv(atom.b, atom.n, atom.k, an, rep(am, 0), rep(an, atom.n), rep(ak, index_t{atom.k} * t.n));
  return t;
}

}  // namespace tessel
