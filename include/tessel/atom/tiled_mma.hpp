// tessel/atom/tiled_mma.hpp — an MMA atom tiled over a grid of atoms
// (TiledMma: partitions of A, B and C tiles, register fragments), the
// TiledCopies that share its thread-value layouts, and gemm() over
// fragments.  Generic: it needs only the atom's data (Atom::info, an
// MmaAtomInfo) and its fma(); the atoms themselves live in mma_fma.hpp
// (CUDA cores), mma_sm80.hpp (mma.sync) and mma_sm90.hpp (wgmma).
#pragma once

#include "tessel/atom/mma_atom.hpp"
#include "tessel/atom/tiled_copy.hpp"

namespace tessel {

/// An MMA atom tiled over (AM, AN, AK) atoms.  Partitions work like
/// TiledCopy's: a tile of A (BM,BK), B (BN,BK) or C (BM,BN) is divided into
/// tiled-MMA tiles and composed with the operand's TV layout, giving each
/// thread (V, (REST...)) values.
template <class Atom, int AM, int AN, int AK = 1>
struct TiledMma {
  using atom = Atom;
  static constexpr TiledMmaLayouts kL = make_tiled_mma_layouts(Atom::info, AM, AN, AK);
  static constexpr int kThreads = kL.threads;
  static constexpr int kVa = static_cast<int>(size(mode(Atom::info.a, 1)));
  static constexpr int kVb = static_cast<int>(size(mode(Atom::info.b, 1)));
  static constexpr int kVc = static_cast<int>(size(mode(Atom::info.c, 1)));

  template <Layout X>
  static constexpr Layout kPartA = detail::partition_layout(X, make_shape(kL.m, kL.k), kL.a);
  template <Layout X>
  static constexpr Layout kPartB = detail::partition_layout(X, make_shape(kL.n, kL.k), kL.b);
  template <Layout X>
  static constexpr Layout kPartC = detail::partition_layout(X, make_shape(kL.m, kL.n), kL.c);

  struct ThrMma {
    int thread;
    template <class T, Space S, Layout L>
    TESSEL_HD constexpr auto partition_A(const StaticTensor<T, S, StaticLayout<L>>& s) const {
      return StaticThrView<T, S, kPartA<L>, Swizzle{}>{s.ptr, StaticLayout<kPartA<L>>{}(thread, 0)};
    }
    template <class T, Space S, Layout L>
    TESSEL_HD constexpr auto partition_B(const StaticTensor<T, S, StaticLayout<L>>& s) const {
      return StaticThrView<T, S, kPartB<L>, Swizzle{}>{s.ptr, StaticLayout<kPartB<L>>{}(thread, 0)};
    }
    template <class T, class Shape, int R>
    TESSEL_HD constexpr auto partition_C(const GlobalTile<T, Shape, R>& g) const {
      constexpr Layout P = kPartC<coord_layout(Shape::value)>;
      GlobalThrView<T, P, R> v{g.ptr, {}, {}, StaticLayout<P>{}(thread, 0)};
      for (int i = 0; i < R; ++i) {
        v.stride[i] = g.stride[i];
        v.residue[i] = g.residue[i];
      }
      return v;
    }
  };
  TESSEL_HD constexpr ThrMma get_slice(int thread) const { return ThrMma{thread}; }

  /// partition_fragment_A/B/C: the register fragment of this thread's share
  /// of a tile with layout X (the static tensor's layout for A/B, the
  /// coordinate layout for a global C tile).
  template <Layout X>
  static constexpr auto partition_fragment_A() {
    return FragmentA<X>{};
  }
  template <Layout X>
  static constexpr auto partition_fragment_B() {
    return FragmentB<X>{};
  }
  template <Layout X>
  static constexpr auto partition_fragment_C() {
    return FragmentC<X>{};
  }

  /// A register fragment for this thread's share of an A/B/C tile of layout X.
  template <Layout X>
  using FragmentA = FragmentView<typename Atom::a_type, static_cast<int>(size(mode(kPartA<X>, 1)))>;
  template <Layout X>
  using FragmentB = FragmentView<typename Atom::b_type, static_cast<int>(size(mode(kPartB<X>, 1)))>;
  template <Layout X>
  using FragmentC = FragmentView<typename Atom::c_type, static_cast<int>(size(mode(kPartC<X>, 1)))>;
};

/// TiledCopies whose thread-value layout is the TiledMMA's A, B or C layout
/// (CuTe's make_tiled_copy_A/B/C): partition_S/partition_D of them give each
/// thread exactly the values that partition_A/B/C and the fragments hold, in
/// the same order, so copies into a fragment need no retiling.  `Atom` moves
/// as many elements as the layout keeps contiguous (1, or 2 along K for the
/// m16n8k16 A and B fragments of a K-major tile).
template <class Atom, class TM>
using TiledCopyA = TiledCopy<Atom, TM::kL.a, make_shape(TM::kL.m, TM::kL.k)>;
template <class Atom, class TM>
using TiledCopyB = TiledCopy<Atom, TM::kL.b, make_shape(TM::kL.n, TM::kL.k)>;
template <class Atom, class TM>
using TiledCopyC = TiledCopy<Atom, TM::kL.c, make_shape(TM::kL.m, TM::kL.n)>;

/// C += A * B over register fragments partitioned by `tm`: one atom per
/// (rest_m, rest_n, rest_k) step.  The fragments' REST modes are (RM, RK) for
/// A, (RN, RK) for B and (RM, RN) for C, column-major (as partition_* makes them).
template <class TM, class FA, class FB, class FC>
TESSEL_DEVICE void gemm(const TM&, const FA& a, const FB& b, FC& c) {
  using Atom = typename TM::atom;
  constexpr int Va = TM::kVa, Vb = TM::kVb, Vc = TM::kVc;
  static_assert(FA::kValues % Va == 0 && FB::kValues % Vb == 0 && FC::kValues % Vc == 0,
                "tessel: fragments are not whole atoms");
  // rest_a = RM*RK, rest_b = RN*RK, rest_c = RM*RN, so RK^2 = rest_a*rest_b/rest_c.
  constexpr int rest_a = FA::kValues / Va, rest_b = FB::kValues / Vb, rest_c = FC::kValues / Vc;
  constexpr int RK = [] {
    int k = 1;
    while (k * k < rest_a * rest_b / rest_c) ++k;
    return k;
  }();
  constexpr int RM = rest_a / RK, RN = rest_b / RK;
  static_assert(RM * RN == rest_c && RM * RK == rest_a && RN * RK == rest_b,
                "tessel: the A, B and C fragments do not tile one GEMM");
  TESSEL_UNROLL
  for (int k = 0; k < RK; ++k) {
    TESSEL_UNROLL
    for (int n = 0; n < RN; ++n) {
      TESSEL_UNROLL
      for (int m = 0; m < RM; ++m)
        Atom::fma(c.addr(Vc * (m + RM * n)), a.addr(Va * (m + RM * k)), b.addr(Vb * (n + RN * k)));
    }
  }
}

}  // namespace tessel
