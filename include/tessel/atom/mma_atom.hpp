// tessel/atom/mma_atom.hpp — MMA atoms as data (shape, types, thread-value
// layouts of A, B and C) and the tiling of an atom over a grid of atoms
// (TiledMMA's layouts).  Generic: the atoms of each architecture, as data,
// are in atom/mma_traits_<arch>.hpp; the instructions in arch/; the atoms that
// call them in atom/mma_<arch>.hpp.
//
// Conventions (docs/hardware.md §1.2): A is an (M,K) tile, B an (N,K)
// tile, C an (M,N) tile; a TV layout maps (thread, value) to the
// column-major index of the element in that tile.
#pragma once

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
